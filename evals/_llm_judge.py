"""``llm_judge``: a judge model grades the final answer against the row's answer.

The model-graded reward of Inspect AI's ``model_graded_qa``, on agentloop's judge machinery
(``agentloop.evals._judge``): the run opens the judge model once and asks it through its
retries, cache and replay, counting its tokens and cost apart from the agent's.

The grading prompt is ``template`` filled with the fields of the sample. The names are
Inspect's, so a template written for ``model_graded_qa`` works unchanged:

- ``{question}``: the text of the last user message before the final answer (with
  ``include_history``: the whole conversation before it, tool calls and results included);
- ``{answer}``: the agent's final answer (note: not the row's ``answer``);
- ``{criterion}``: the row's ``answer``, the gold (several acceptable ones one per line);
- ``{instructions}``: how to grade and how to write the grade (``instructions``, or the
  default of the grade format);
- every key of the row's ``metadata`` (``{topic}``), except those four names.

Grade formats (``grade``):

- ``letter`` (default): the reply's last ``GRADE: <letter>``: ``C`` correct (1.0), ``P``
  partially correct (0.5, only with ``partial_credit: true``), ``I`` incorrect (0.0);
- ``numeric``: the reply's last ``GRADE: <number>``, from 0 to ``scale`` (default 10),
  divided by ``scale``.

A reply without a grade, or with one outside the format (``GRADE: B``, ``GRADE: 11`` on a
scale of 10, ``P`` without partial credit), fails the reward with the reply's excerpt: the
sample errors (kind ``reward``); it is never read as a 0 or a 1. With ``samples: n`` the judge
is asked n times (independent draws, concurrently) and the grades combine by ``aggregate``:
``majority`` (the most frequent grade; a tie goes to the lowest-scoring of the tied grades) or
``mean`` (the mean of the scores). Each reply, its grade and its reasoning (the text before
the grade) are in the details.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict

from ._judge import Judge
from ._messages import get, role_of, text_of
from ._result_models import RewardResult

__all__ = [
    "DEFAULT_TEMPLATE",
    "JudgeGrade",
    "LlmJudgeDetails",
    "check_llm_judge",
    "default_instructions",
    "grading_prompt",
    "llm_judge",
    "read_grade",
]

GradeFormat = Literal["letter", "numeric"]
Aggregate = Literal["majority", "mean"]
LETTER_SCORES = {"C": 1.0, "P": 0.5, "I": 0.0}
FIELDS = ("question", "answer", "criterion", "instructions")
"""The template's own fields; the row's metadata keys may be used besides them."""

DEFAULT_TEMPLATE = """You are grading a submitted answer to a task against a criterion.

[Task]
{question}

[Submission]
{answer}

[Criterion]
{criterion}

Does the submission meet the criterion?

{instructions}
"""
"""The grading prompt when the config gives none (the sections of ``model_graded_qa``'s)."""

_GRADE = re.compile(r"GRADE\s*:\s*[*_`\"']*\s*([A-Za-z]+|-?\d+(?:\.\d+)?)", re.IGNORECASE)

_CONFIG = ConfigDict(use_attribute_docstrings=True, extra="forbid")


class JudgeGrade(BaseModel):
    """One of the judge's replies and the grade read from it."""

    model_config = _CONFIG
    reply: str
    """The judge's reply, whole."""
    grade: str
    """The grade as written after ``GRADE:`` (a letter, upper-cased, or a number)."""
    score: float
    """The grade as a score in [0, 1]."""
    reasoning: str
    """The reply's text before its grade (the judge's reasoning)."""


class LlmJudgeDetails(BaseModel):
    """How the judge graded the final answer."""

    model_config = _CONFIG
    model: str
    """The judge's model spec."""
    grade_format: GradeFormat
    """``letter`` (C/P/I) or ``numeric`` (0..scale)."""
    prompt: str
    """The grading prompt sent (the template filled)."""
    grades: list[JudgeGrade]
    """Each draw's reply and grade, in draw order."""
    aggregate: Aggregate
    """How the draws' grades combine into the score (one draw: its own)."""


def default_instructions(
    grade: GradeFormat = "letter", *, partial_credit: bool = False, scale: int = 10
) -> str:
    """The grading instructions of a grade format (the template's ``{instructions}``).

    >>> print(default_instructions().splitlines()[-1])
    Then end with one line: GRADE: C (correct) or GRADE: I (incorrect).
    """
    steps = (
        "Reason about the criterion step by step first, without stating a verdict at the "
        "outset, so that your conclusion is sound."
    )
    if grade == "numeric":
        return (
            f"{steps}\nThen end with one line: GRADE: N, where N is a whole number from 0 "
            f"(the submission does not meet the criterion at all) to {scale} (it meets it "
            "fully)."
        )
    grades = (
        "GRADE: C (correct), GRADE: P (partially correct) or GRADE: I (incorrect)"
        if partial_credit
        else "GRADE: C (correct) or GRADE: I (incorrect)"
    )
    return f"{steps}\nThen end with one line: {grades}."


def read_grade(
    reply: str, grade: GradeFormat = "letter", *, partial_credit: bool = False, scale: int = 10
) -> JudgeGrade:
    """The last ``GRADE:`` of a reply as a score; ValueError (one line, with an excerpt of
    the reply) when there is none or it is outside the format.

    >>> read_grade("It names Paris, as asked.\\nGRADE: C").score
    1.0
    >>> read_grade("Close enough. GRADE: 7", "numeric").score
    0.7
    >>> read_grade("Half right. GRADE: P")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the judge's grade 'P' is not C or I (partial_credit is off); reply: ...
    """
    found = list(_GRADE.finditer(reply))
    if not found:
        raise ValueError(f"the judge's reply has no grade (GRADE: ...); reply: {_excerpt(reply)}")
    match = found[-1]
    written, reasoning = match.group(1), reply[: match.start()].strip()
    if grade == "numeric":
        try:
            value = float(written)
        except ValueError:
            value = -1.0
        if not 0 <= value <= scale:
            raise ValueError(
                f"the judge's grade {written!r} is not a number from 0 to {scale}; "
                f"reply: {_excerpt(reply)}"
            )
        return JudgeGrade(reply=reply, grade=written, score=value / scale, reasoning=reasoning)
    letter = written.upper()
    allowed = "CPI" if partial_credit else "CI"
    if len(letter) != 1 or letter not in allowed:
        said = " or ".join([", ".join(allowed[:-1]), allowed[-1]])
        off = "" if partial_credit else " (partial_credit is off)"
        raise ValueError(
            f"the judge's grade {written!r} is not {said}{off}; reply: {_excerpt(reply)}"
        )
    return JudgeGrade(reply=reply, grade=letter, score=LETTER_SCORES[letter], reasoning=reasoning)


def _excerpt(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def _before_answer(messages: Sequence[Any]) -> list[Any]:
    """The conversation before its final answer (the last assistant message and after)."""
    last = max((i for i, m in enumerate(messages) if role_of(m) == "assistant"), default=None)
    return list(messages[:last]) if last is not None else list(messages)


def _question(messages: Sequence[Any]) -> str:
    users = [m for m in _before_answer(messages) if role_of(m) == "user"]
    return text_of(get(users[-1], "content")) if users else ""


def _history(messages: Sequence[Any]) -> str:
    """The conversation before the final answer as text: the first message as it is, then
    ``User:``, ``Assistant:`` (its calls as ``name(arguments)``) and ``Tool (name):`` lines;
    system messages left out."""
    shown = [m for m in _before_answer(messages) if role_of(m) != "system"]
    names: dict[str, str] = {}
    lines: list[str] = []
    for index, message in enumerate(shown):
        role, text = role_of(message), text_of(get(message, "content"))
        calls = (message.get("tool_calls") or []) if isinstance(message, Mapping) else []
        said = [text] if text else []
        for call in calls:
            function = call.get("function") or {}
            names[str(call.get("id"))] = str(function.get("name"))
            said.append(f"{function.get('name')}({function.get('arguments') or ''})")
        if index == 0:
            lines.append("\n\n".join(said))
        elif role == "user":
            lines.append(f"User: {text}")
        elif role == "assistant":
            lines.append("Assistant: " + "\n\n".join(said))
        elif role == "tool":
            name = names.get(str(message.get("tool_call_id")), "tool")
            lines.append(f"Tool ({name}): {text}")
    return "\n\n".join(lines)


def grading_prompt(
    template: str,
    *,
    question: str,
    answer: str,
    criterion: str | None,
    instructions: str,
    metadata: Mapping[str, Any] | None = None,
) -> str:
    """``template`` filled (see the module doc); ValueError (one line) for a field that is
    neither the template's own nor a metadata key of the row, or ``{criterion}`` when the
    row has no answer.

    >>> grading_prompt("Q: {question} A: {answer} ({topic})", question="2+2?", answer="4",
    ...                criterion="4", instructions="", metadata={"topic": "sums"})
    'Q: 2+2? A: 4 (sums)'
    """
    fields = {k: v for k, v in (metadata or {}).items() if k not in FIELDS}
    fields.update(question=question, answer=answer, instructions=instructions)
    if criterion is not None:
        fields["criterion"] = criterion
    try:
        return template.format(**fields)
    except KeyError as exc:
        name = exc.args[0]
        if name == "criterion":
            raise ValueError(
                "the template asks for {criterion} but the row has no answer"
            ) from None
        raise ValueError(
            f"the template asks for {{{name}}}, which is neither one of "
            f"{', '.join(FIELDS)} nor a metadata key of this row"
        ) from None
    except (IndexError, ValueError) as exc:
        raise ValueError(f"the template cannot be filled: {exc}") from None


def _criterion(answer: Any) -> str | None:
    if answer is None:
        return None
    if isinstance(answer, (list, tuple)):
        return "\n".join(str(a) for a in answer)
    return str(answer)


def _combine(grades: list[JudgeGrade], aggregate: Aggregate) -> float:
    if aggregate == "mean":
        return sum(g.score for g in grades) / len(grades)
    counts = Counter(g.grade for g in grades)
    top = max(counts.values())
    return min(g.score for g in grades if counts[g.grade] == top)


async def llm_judge(
    final_answer: str | None,
    messages: Sequence[Any],
    answer: Any,
    metadata: Mapping[str, Any],
    *,
    judge: Judge,
    template: str | None = None,
    instructions: str | None = None,
    grade: GradeFormat = "letter",
    partial_credit: bool = False,
    scale: int = 10,
    include_history: bool = False,
    samples: int = 1,
    aggregate: Aggregate = "majority",
) -> RewardResult[LlmJudgeDetails]:
    """The judge's grade of the final answer (see the module doc); the prompt is one user
    message. Raises (the reward's error) when a reply has no grade of the format.

    >>> import anyio
    >>> class Strict:  # a Judge; in a run, the one the config's judge: names
    ...     model = "stub:strict"
    ...     async def ask(self, messages, *, draw=0):
    ...         named = "Paris" in messages[0]["content"]
    ...         return "The capital is named. GRADE: C" if named else "GRADE: I"
    >>> said = [{"role": "user", "content": "Capital of France?"},
    ...         {"role": "assistant", "content": "Paris"}]
    >>> r = anyio.run(lambda: llm_judge("Paris", said, "Paris", {}, judge=Strict()))
    >>> r.score, r.reason, r.details.grades[0].reasoning
    (1.0, 'stub:strict graded C: score 1', 'The capital is named.')
    """
    question = _history(messages) if include_history else _question(messages)
    prompt = grading_prompt(
        template or DEFAULT_TEMPLATE,
        question=question,
        answer=final_answer or "",
        criterion=_criterion(answer),
        instructions=instructions
        or default_instructions(grade, partial_credit=partial_credit, scale=scale),
        metadata=metadata,
    )
    request = [{"role": "user", "content": prompt}]
    replies = await _draws(judge, request, samples)
    grades = []
    for index, reply in enumerate(replies):
        try:
            grades.append(read_grade(reply, grade, partial_credit=partial_credit, scale=scale))
        except ValueError as exc:
            where = f"reply {index + 1} of {samples}: " if samples > 1 else ""
            raise ValueError(f"{where}{exc}") from None
    score = _combine(grades, aggregate)
    said = ", ".join(g.grade for g in grades)
    how = f" ({aggregate} of {samples})" if samples > 1 else ""
    details = LlmJudgeDetails(
        model=judge.model,
        grade_format=grade,
        prompt=prompt,
        grades=grades,
        aggregate=aggregate,
    )
    return RewardResult(
        score=score, reason=f"{judge.model} graded {said}{how}: score {score:g}", details=details
    )


async def _draws(judge: Judge, request: list[dict[str, Any]], samples: int) -> list[str]:
    """The judge's replies to ``samples`` draws of one request, asked concurrently; the first
    draw (in draw order) that failed raises its own error."""
    replies: list[str] = [""] * samples
    failures: dict[int, Exception] = {}

    async def draw(index: int) -> None:
        try:
            replies[index] = await judge.ask(request, draw=index)
        except Exception as exc:  # raised below, as itself (not in an exception group)
            failures[index] = exc

    async with anyio.create_task_group() as group:
        for index in range(samples):
            group.start_soon(draw, index)
    if failures:
        raise failures[min(failures)]
    return replies


def check_llm_judge(params: Mapping[str, Any]) -> None:
    """ValueError (one line) on a parameter ``llm_judge`` cannot use."""
    if params.get("judge") is None:
        raise ValueError("judge (the grading model's spec, e.g. openai:gpt-4o-mini) is required")
    grade = params.get("grade", "letter")
    if grade not in ("letter", "numeric"):
        raise ValueError(f"grade must be letter or numeric, not {grade!r}")
    aggregate = params.get("aggregate", "majority")
    if aggregate not in ("majority", "mean"):
        raise ValueError(f"aggregate must be majority or mean, not {aggregate!r}")
    for name in ("scale", "samples"):
        value = params.get(name, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, not {value!r}")
    for name in ("partial_credit", "include_history"):
        if not isinstance(params.get(name, False), bool):
            raise ValueError(f"{name} must be true or false, not {params[name]!r}")
    if params.get("partial_credit") and grade == "numeric":
        raise ValueError("partial_credit is for letter grades (grade: letter)")
    for name in ("template", "instructions"):
        value = params.get(name)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name} must be a string, not {type(value).__name__}")
    template = params.get("template")
    if template is not None:
        try:
            list(string.Formatter().parse(template))
        except ValueError as exc:
            raise ValueError(f"template: {exc} (write a literal brace as {{{{ or }}}})") from None
