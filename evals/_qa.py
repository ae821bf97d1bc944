"""QA rewards: SQuAD-style token F1 and exact match, optionally gated on tool use.

Normalization is SQuAD's: lower-case, delete punctuation (every Unicode ``P*``
character plus ASCII ``string.punctuation``), drop the articles a/an/the as
whole words, collapse whitespace. F1 counts shared tokens as a multiset.

Special rules, in order:

1. an empty (or whitespace-only, or missing) prediction scores 0 everywhere;
2. if either normalized side is ``yes``, ``no`` or ``noanswer`` and they
   differ, every metric is 0;
3. a gold answer that normalizes to nothing would make token F1 meaningless
   (SQuAD scores it 1 against any prediction that also normalizes to nothing).
   Instead both sides are re-normalized *keeping articles* (gold ``"The"`` then
   matches ``"the"`` but not ``"a"``); if the gold is still empty (it was only
   punctuation or blank), EM = F1 = 1 exactly when the lower-cased,
   whitespace-collapsed raw strings are equal, else 0;
4. no shared token scores 0 everywhere.
"""

from __future__ import annotations

import re
import string
import unicodedata
from typing import Any

from ._messages import count_tool_uses
from ._result_models import QAResult

__all__ = [
    "normalize_answer",
    "qa_f1_reward",
    "qa_f1_reward_format",
    "qa_f1_reward_tool",
]

_ASCII_PUNCT_SET = frozenset(map(ord, string.punctuation))
_MEMO_LIMIT = 1 << 16


class _PunctTable(dict[int, "int | None"]):
    """str.translate's table: None (delete) for punctuation, the code point itself else.

    Filled as characters are met: scanning all of Unicode up front cost ~0.13 s per
    import. Hits stay C dict lookups, so per-call speed is unchanged.
    """

    def __missing__(self, cp: int) -> int | None:
        if cp in _ASCII_PUNCT_SET or unicodedata.category(chr(cp)).startswith("P"):
            self[cp] = None
            return None
        if len(self) < _MEMO_LIMIT:  # bounded: text full of rare scripts cannot grow it forever
            self[cp] = cp
        return cp


_PUNCT_TABLE = _PunctTable()
_ASCII_PUNCT = string.punctuation.encode("ascii")
_ARTICLES = frozenset(("a", "an", "the"))
_ARTICLE_RE = re.compile(r"\b(a|an|the)\b")
_YES_NO = frozenset(("yes", "no", "noanswer"))


def _tokens(text: str, drop_articles: bool = True) -> list[str]:
    if text.isascii():  # bytes.translate deletes in one C pass: 5x str.translate
        words = text.lower().encode("ascii").translate(None, _ASCII_PUNCT).decode("ascii").split()
    else:
        words = text.lower().translate(_PUNCT_TABLE).split()
    if not drop_articles:
        return words
    out = [w for w in words if w not in _ARTICLES]
    if not out or "".join(out).isalnum():
        return out
    # A symbol (not punctuation) is a regex word boundary, as in SQuAD's
    # \b(a|an|the)\b: "a€" loses its article. Rare, so only on this path.
    return " ".join(_ARTICLE_RE.sub(" ", w) for w in out).split()


def normalize_answer(s: str) -> str:
    """SQuAD normalization: lower-case, no punctuation, no articles, single spaces.

    >>> normalize_answer("The  Eiffel-Tower, in Paris!")
    'eiffeltower in paris'
    >>> normalize_answer("«Ça va?» — an answer")
    'ça va answer'
    """
    return " ".join(_tokens(s))


def _zero(gold: str, rule: str) -> dict[str, Any]:
    return {"answer": gold, "f1": 0.0, "em": 0.0, "precision": 0.0, "recall": 0.0, "rule": rule}


def _score_one(pred_tokens: list[str], pred_norm: str, pred_raw: str, gold: str) -> dict[str, Any]:
    gold_tokens = _tokens(gold)
    rule = "tokens"
    tokens = pred_tokens
    norm = pred_norm
    if not gold_tokens:
        gold_tokens = _tokens(gold, drop_articles=False)
        if not gold_tokens:
            same = " ".join(pred_raw.lower().split()) == " ".join(gold.lower().split())
            value = 1.0 if same else 0.0
            return {
                "answer": gold,
                "f1": value,
                "em": value,
                "precision": value,
                "recall": value,
                "rule": "raw_string",
            }
        tokens = _tokens(pred_raw, drop_articles=False)
        norm = " ".join(tokens)
        rule = "keep_articles"
    gold_norm = " ".join(gold_tokens)
    if (norm in _YES_NO or gold_norm in _YES_NO) and norm != gold_norm:
        return _zero(gold, "yes_no_mismatch")
    # Multiset overlap (what Counter(a) & Counter(b) computes), without two Counters.
    remaining: dict[str, int] = {}
    for token in gold_tokens:
        remaining[token] = remaining.get(token, 0) + 1
    common = 0
    for token in tokens:
        left = remaining.get(token)
        if left:
            remaining[token] = left - 1
            common += 1
    if common == 0:
        return _zero(gold, "no_overlap")
    precision = common / len(tokens)
    recall = common / len(gold_tokens)
    return {
        "answer": gold,
        "f1": 2 * precision * recall / (precision + recall),
        "em": 1.0 if norm == gold_norm else 0.0,
        "precision": precision,
        "recall": recall,
        "rule": rule,
    }


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _answers(golden: Any) -> list[str]:
    if isinstance(golden, (list, tuple, set, frozenset)):
        return [_as_text(g) for g in golden]
    return [] if golden is None else [_as_text(golden)]


def _result(
    pred_norm: str, scores: list[dict[str, Any]], best: int | None, reason: str | None
) -> QAResult:
    top = scores[best] if best is not None else _zero("", "")
    em = max([s["em"] for s in scores], default=0.0)
    if reason is None:
        reason = (
            f"F1 {top['f1']:.3f} (precision {top['precision']:.3f}, recall "
            f"{top['recall']:.3f}), EM {em:.0f}; best of {len(scores)} answer(s): {top['rule']}"
        )
    details = {"prediction": pred_norm, "answers": scores, "best_index": best}
    f1, precision, recall = top["f1"], top["precision"], top["recall"]
    # One validation of the whole result: cheaper than a model per answer.
    return QAResult.model_validate(
        {
            "score": f1,
            "reason": reason,
            "details": details,
            "reward": f1,
            "f1": f1,
            "em": em,
            "precision": precision,
            "recall": recall,
        }
    )


def qa_f1_reward(prediction: Any, golden_answer: Any, trajectory: Any = None) -> QAResult:
    """Token F1 / EM of a prediction against one gold answer or a list of acceptable ones.

    ``reward`` (= ``score``) is the best F1; ``em`` the best EM; ``precision``
    and ``recall`` are those of the best-F1 answer. ``trajectory`` is unused.
    The result reads like the reference dict (``result["f1"]``, ``to_dict()``).

    "Paris is the capital" normalizes to 3 tokens, one of them shared:

    >>> r = qa_f1_reward("Paris is the capital", "Paris")
    >>> round(r.precision, 4), r.recall, r.f1, r.em
    (0.3333, 1.0, 0.5, 0.0)
    >>> qa_f1_reward("the Eiffel Tower", ["Tour Eiffel", "Eiffel Tower"])["em"]
    1.0
    >>> qa_f1_reward("no", "yes").f1, qa_f1_reward("", "Paris").f1
    (0.0, 0.0)
    >>> qa_f1_reward("the", "The").f1, qa_f1_reward("a", "The").f1  # gold only an article
    (1.0, 0.0)
    """
    raw = _as_text(prediction)
    answers = _answers(golden_answer)
    pred_tokens = _tokens(raw)
    pred_norm = " ".join(pred_tokens)
    if not answers:
        return _result(pred_norm, [], None, "no gold answer given")
    if not raw.strip():
        return _result(
            pred_norm, [_zero(g, "empty_prediction") for g in answers], 0, "empty prediction"
        )
    scores = [_score_one(pred_tokens, pred_norm, raw, g) for g in answers]
    best = 0
    for i in range(1, len(scores)):
        if scores[i]["f1"] > scores[best]["f1"]:
            best = i
    return _result(pred_norm, scores, best, None)


def qa_f1_reward_format(
    prediction: Any, answer: Any, trajectory: Any, *, min_tool_messages: int = 1
) -> QAResult:
    """``qa_f1_reward``, but ``reward``/``score`` is 0 unless the agent used tools.

    Tools count as used when the agent's own calls succeeded at least
    ``min_tool_messages`` times: for a Trajectory, its tool-call records with status
    ``ok``; for a list of OpenAI dicts or LangChain messages, the tool messages after
    the last user message whose ``status`` is not ``error``. Tool messages of the
    prompt history and error results (unknown tool, malformed arguments, round
    limit, a raising tool) do not count. The final answer is a plain assistant
    message, so the default is 1 (the reference's "2 including the final answer").
    F1/EM/precision/recall are reported either way.

    >>> traj = [
    ...     {"role": "assistant", "content": "I need to search for information"},
    ...     {"role": "tool", "content": "search results"},
    ...     {"role": "assistant", "content": "Based on my search, the answer is Paris"},
    ... ]
    >>> qa_f1_reward_format("Paris", "Paris", traj).to_dict()
    {'reward': 1.0, 'f1': 1.0, 'em': 1.0, 'precision': 1.0, 'recall': 1.0}
    >>> r = qa_f1_reward_format("Paris", "Paris", traj[:1])
    >>> r.reward, r.f1
    (0.0, 1.0)
    """
    result = qa_f1_reward(prediction, answer)
    used = count_tool_uses(trajectory)
    details = result.details.model_copy(
        update={"tool_messages": used, "min_tool_messages": min_tool_messages}
    )
    if used >= min_tool_messages:
        return result.model_copy(update={"details": details})
    reason = f"{used} successful tool call(s), {min_tool_messages} required; {result.reason}"
    return result.model_copy(
        update={"details": details, "score": 0.0, "reward": 0.0, "reason": reason}
    )


qa_f1_reward_tool = qa_f1_reward_format
