"""Typed results shared by every reward.

A reward returns a :class:`RewardResult` whose ``details`` is a reward-specific
pydantic model (built-ins) or any JSON-serialisable value (custom rewards). Field
docstrings double as JSON-schema descriptions (``use_attribute_docstrings``), so a
results file documents itself.
"""

from __future__ import annotations

from typing import Annotated, Any, Generic

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticSerializationError, to_jsonable_python
from typing_extensions import TypeVar

__all__ = [
    "AnswerScore",
    "BfclDetails",
    "CallDiagnostic",
    "FunctionCallDetails",
    "NotApplicable",
    "QADetails",
    "QAResult",
    "RewardResult",
    "ToolMatchDetails",
]


def _json_details(value: Any) -> Any:
    # Fail in the reward, not later when the harness writes the result.
    if not isinstance(value, BaseModel):
        try:
            to_jsonable_python(value)
        except PydanticSerializationError as exc:
            raise ValueError(f"details must be JSON-serialisable: {exc}") from None
    return value


# Unbound: a bare ``RewardResult`` takes any details that can become JSON (a BaseModel
# bound made pydantic validate a custom reward's dict into a bare, unserialisable
# BaseModel); ``RewardResult[SomeModel]`` takes that model.
DetailsT = TypeVar("DetailsT", default=Annotated[Any, AfterValidator(_json_details)])

_CONFIG = ConfigDict(use_attribute_docstrings=True, extra="forbid")


class RewardResult(BaseModel, Generic[DetailsT]):
    """What a reward returns: a score, a sentence saying why, and diagnostics."""

    model_config = _CONFIG

    score: float = Field(ge=0.0, le=1.0)
    """The reward, in [0, 1]."""
    reason: str
    """One human-readable sentence explaining the score."""
    details: DetailsT
    """Reward-specific per-item diagnostics: a pydantic model or any JSON-serialisable value."""


class NotApplicable(BaseModel):
    """What a reward returns for a sample it has nothing to say about (AgentDojo's security
    on a row without an injection task): the sample is left out of that reward's figures,
    neither 0 nor 1, and its results line says why (``not_applicable``)."""

    model_config = _CONFIG

    reason: str
    """Why the reward does not apply to this sample, in one sentence."""


class CallDiagnostic(BaseModel):
    """How one expected call fared (or one generated call nobody expected)."""

    model_config = _CONFIG

    expected_index: int | None
    """Position of the expected call; None for a generated call that was not expected."""
    generated_index: int | None
    """Position of the generated call it was compared with; None when there was none."""
    expected_name: str | None
    """Name of the expected call, when there is one."""
    generated_name: str | None
    """Name of the generated call, when there is one."""
    matched: bool
    """True when this pair satisfied the name and argument rules."""
    arg_agreement: float
    """Fraction of the expected argument keys whose values the generated call has equal
    (1.0 when nothing is expected; 0.0 without a generated call)."""
    mismatched_args: list[str] = Field(default_factory=list)
    """Argument keys present on both sides with different values."""
    missing_args: list[str] = Field(default_factory=list)
    """Expected argument keys the generated call lacks."""
    extra_args: list[str] = Field(default_factory=list)
    """Generated argument keys that were not expected."""
    note: str = ""
    """Anything else worth knowing, e.g. that the arguments are not JSON objects."""


class ToolMatchDetails(BaseModel):
    """Diagnostics of a tool-call comparison."""

    model_config = _CONFIG

    order: str
    """Order rule applied: strict, unordered, subset or superset."""
    args: str
    """Default argument rule applied: exact, ignore, subset or superset."""
    numbers: str
    """Number comparison: exact (JSON identity) or numeric (1 == 1.0)."""
    generated_count: int
    """Number of generated calls found."""
    expected_count: int
    """Number of expected calls found."""
    matched_count: int
    """Calls paired under the rules (order-preserving alignment for strict, maximum
    bipartite matching otherwise)."""
    call_precision: float
    """matched / generated (1.0 when nothing was generated)."""
    call_recall: float
    """matched / expected (1.0 when nothing was expected)."""
    call_f1: float
    """Harmonic mean of call precision and call recall."""
    mean_arg_agreement: float
    """Mean of ``arg_agreement`` over expected calls (1.0 when none are expected)."""
    calls: list[CallDiagnostic] = Field(default_factory=list)
    """One entry per expected call, then one per unexpected generated call."""
    notes: list[str] = Field(default_factory=list)
    """Parsing notes: skipped <tool_call> blocks, unrecognized call shapes, bad ground truth."""


class BfclDetails(BaseModel):
    """Diagnostics of ``bfcl_verdict``."""

    model_config = _CONFIG

    category: str
    """The BFCL test category whose rules were applied (e.g. simple_python, parallel)."""
    error_type: str
    """BFCL's error type of the failure (e.g. simple_function_checker:missing_required);
    empty when the calls pass."""
    generated_count: int
    """Calls the model made."""
    expected_count: int
    """Calls the ground truth expects (0 for relevance categories)."""


class FunctionCallDetails(BaseModel):
    """Diagnostics of ``match_function_call``."""

    model_config = _CONFIG

    strictness: str
    """The argument strictness applied (exact, partial, flexible or permissive)."""
    name_match: bool
    """True when the function name equals the schema's name."""
    arg_score: float
    """The argument score in [0, 1] under the strictness."""
    matched_args: list[str] = Field(default_factory=list)
    """Provided arguments that are declared and correctly typed."""
    missing_args: list[str] = Field(default_factory=list)
    """Required arguments that were not provided."""
    extra_args: list[str] = Field(default_factory=list)
    """Provided arguments the schema does not declare."""
    type_mismatches: list[str] = Field(default_factory=list)
    """Provided arguments whose value does not have the declared JSON type."""
    note: str = ""
    """Anything else worth knowing, e.g. that the arguments were not a JSON object."""


class AnswerScore(BaseModel):
    """Token-overlap scores against one acceptable gold answer."""

    model_config = _CONFIG

    answer: str
    """The gold answer as given."""
    f1: float
    """Token F1 against this answer."""
    em: float
    """1.0 when the normalized strings are identical."""
    precision: float
    """Shared tokens / prediction tokens."""
    recall: float
    """Shared tokens / gold tokens."""
    rule: str
    """Which rule decided: tokens, yes_no_mismatch, empty_prediction, no_overlap,
    keep_articles (gold was only articles) or raw_string (gold was only punctuation)."""


class QADetails(BaseModel):
    """Diagnostics of a QA reward."""

    model_config = _CONFIG

    prediction: str
    """The prediction after normalization."""
    answers: list[AnswerScore] = Field(default_factory=list)
    """Scores against each acceptable gold answer, in the order given."""
    best_index: int | None = None
    """Index of the answer with the best F1 (first on ties); None without answers."""
    tool_messages: int | None = None
    """The agent's own successful tool calls counted (format/tool variant only): ``ok``
    records of a Trajectory, or non-error tool messages after a list's last user message."""
    min_tool_messages: int | None = None
    """Successful tool calls required for a non-zero reward (format/tool variant only)."""


class QAResult(RewardResult[QADetails]):
    """A QA reward: the generic result plus the reference's flat metrics.

    Reads like the reference dict too: ``result["f1"]``, ``result.to_dict()``
    (exactly ``reward``, ``f1``, ``em``, ``precision``, ``recall``).
    """

    reward: float
    """The reward (equals ``score``): F1, or 0.0 when a tool-use gate failed."""
    f1: float
    """Best token F1 over the acceptable answers."""
    em: float
    """Best exact match over the acceptable answers (0.0 or 1.0)."""
    precision: float
    """Precision of the best-F1 answer."""
    recall: float
    """Recall of the best-F1 answer."""

    def __getitem__(self, key: str) -> Any:
        if key in _QA_KEYS:
            return getattr(self, key)
        raise KeyError(key)

    def to_dict(self) -> dict[str, float]:
        """The reference return shape.

        >>> from agentloop.evals._qa import qa_f1_reward
        >>> qa_f1_reward("Paris", "Paris").to_dict()
        {'reward': 1.0, 'f1': 1.0, 'em': 1.0, 'precision': 1.0, 'recall': 1.0}
        """
        return {key: getattr(self, key) for key in _QA_KEYS}


_QA_KEYS = ("reward", "f1", "em", "precision", "recall")
