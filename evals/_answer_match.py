"""``answer_match``: is the gold answer the final answer's value, read as a number when it is one.

Token F1 (``qa_f1_reward``) deletes punctuation, so ``29.0`` becomes ``290`` and matches
``2.90`` but not ``29``. Here a gold answer that reads as a number is compared as a
number with the numbers written in the prediction (``1,234.5``, ``-3``, ``2e-3``; a
thousands comma only between groups of three digits), within ``rel_tol``/``abs_tol``;
any other gold answer is compared as text, case-insensitively, with whitespace collapsed
and the punctuation around it stripped.

``location`` says where in the prediction the answer must be (as Inspect AI's ``match``):
``end`` (the default: the last number, or the text's end), ``begin`` (the first number,
or the text's start), ``any`` (any number, or the text as whole words anywhere) or
``exact`` (the whole prediction is that number or that text). Several gold answers are
alternatives: the score is 1 when one of them matches.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from ._result_models import _CONFIG, RewardResult

__all__ = ["LOCATIONS", "AnswerMatchDetails", "answer_match"]

LOCATIONS = ("end", "begin", "any", "exact")
Location = Literal["end", "begin", "any", "exact"]

# A number as people write it: sign, digits with optional thousands commas, decimals,
# exponent. Not preceded by a letter, digit or dot (so "v2" and "1.2.3"'s tail are no
# numbers), and a trailing sentence dot is not a decimal point; a unit may follow ("5km").
_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?!\d|\.\d)"
    r"|(?<![\w.])[-+]?\.\d+(?:[eE][-+]?\d+)?"
)
_EDGE_PUNCT = " \t\n\r.,;:!?\"'`()[]{}«»“”‘’"


class AnswerMatchDetails(BaseModel):
    """Diagnostics of ``answer_match``."""

    model_config = _CONFIG

    prediction: str
    """The final answer as it was read."""
    numbers: list[float] = Field(default_factory=list)
    """The numbers found in the prediction, in order (read when a gold answer is numeric)."""
    location: str
    """Where the answer had to be: end, begin, any or exact."""
    answers: list[str] = Field(default_factory=list)
    """The acceptable gold answers, in the order given."""
    rules: list[str] = Field(default_factory=list)
    """For each gold answer, how it was compared: ``numeric`` or ``text``."""
    matched_index: int | None = None
    """Index of the first gold answer that matched; None when none did."""


def _as_number(text: str) -> float | None:
    match = _NUMBER.fullmatch(text.strip().strip(_EDGE_PUNCT.replace(".", "")).rstrip("."))
    if match is None:
        return None
    return float(match[0].replace(",", ""))


def _numbers(text: str) -> list[float]:
    return [float(m[0].replace(",", "")) for m in _NUMBER.finditer(text)]


def _plain(text: str) -> str:
    return " ".join(text.lower().split()).strip(_EDGE_PUNCT)


def _text_matches(prediction: str, gold: str, location: Location) -> bool:
    pred, want = _plain(prediction), _plain(gold)
    if not want:  # a gold answer of only punctuation or blanks: the same text
        return " ".join(prediction.lower().split()) == " ".join(gold.lower().split())
    if location == "exact":
        return pred == want
    if location == "begin":
        return pred.startswith(want)
    if location == "end":
        return pred.endswith(want)
    return re.search(rf"(?<!\w){re.escape(want)}(?!\w)", pred) is not None


def _number_matches(
    prediction: str, found: list[float], gold: float, location: Location, rel: float, abs_: float
) -> bool:
    if location == "exact":
        value = _as_number(prediction)
        candidates = [] if value is None else [value]
    elif location == "begin":
        candidates = found[:1]
    elif location == "end":
        candidates = found[-1:]
    else:
        candidates = found
    return any(math.isclose(v, gold, rel_tol=rel, abs_tol=abs_) for v in candidates)


def _answers(answer: Any) -> list[str]:
    values = answer if isinstance(answer, (list, tuple)) else [] if answer is None else [answer]
    return [v if isinstance(v, str) else str(v) for v in values]


def answer_match(
    prediction: Any,
    answer: Any,
    *,
    location: Location = "end",
    rel_tol: float = 1e-9,
    abs_tol: float = 0.0,
) -> RewardResult[AnswerMatchDetails]:
    """1.0 when a gold answer (one, or a list of alternatives) is the prediction's answer.

    >>> answer_match("42 km is about 26.1 miles.", "26.10").score
    1.0
    >>> answer_match("It is 29.0", "29").score, answer_match("2.90", "290").score
    (1.0, 0.0)
    >>> answer_match("The capital is Paris!", ["paris", "Paris, France"]).score
    1.0
    >>> answer_match("26.1 miles, or 42 km", "26.1").score  # the last number is 42
    0.0
    """
    if location not in LOCATIONS:
        raise ValueError(f"unknown location {location!r}: use one of {', '.join(LOCATIONS)}")
    if rel_tol < 0 or abs_tol < 0:
        raise ValueError("rel_tol and abs_tol must be >= 0")
    text = "" if prediction is None else str(prediction)
    answers = _answers(answer)
    golds = [_as_number(a) for a in answers]
    found = _numbers(text) if any(g is not None for g in golds) else []
    matched = None
    for i, (gold_text, gold) in enumerate(zip(answers, golds, strict=True)):
        if not text.strip():
            break  # an empty answer matches nothing
        if gold is not None:
            ok = _number_matches(text, found, gold, location, rel_tol, abs_tol)
        else:
            ok = _text_matches(text, gold_text, location)
        if ok:
            matched = i
            break
    details = AnswerMatchDetails(
        prediction=text,
        numbers=found,
        location=location,
        answers=answers,
        rules=["text" if g is None else "numeric" for g in golds],
        matched_index=matched,
    )
    if not answers:
        reason = "no gold answer given"
    elif not text.strip():
        reason = "empty prediction"
    elif matched is not None:
        reason = f"answer {answers[matched]!r} found ({details.rules[matched]}, {location})"
    else:
        seen = f"; numbers read: {found}" if found else ""
        reason = f"none of {answers!r} found ({location}){seen}"
    return RewardResult[AnswerMatchDetails](
        score=1.0 if matched is not None else 0.0, reason=reason, details=details
    )
