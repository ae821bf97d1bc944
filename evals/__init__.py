"""Reward functions: pure functions over messages or trajectories and a ground truth.

Every reward returns a :class:`RewardResult` (``score`` in [0, 1], ``reason``,
typed ``details``) and accepts OpenAI chat dicts, LangChain messages and
agentloop ``Trajectory`` objects alike. No I/O; a model is called only through the
:class:`Judge` the scorer hands to a reward that asks for one (``llm_judge``).
"""

from . import _builtins  # noqa: F401  (registers the built-in rewards by name)
from ._answer_match import AnswerMatchDetails, answer_match
from ._bfcl import bfcl_answer, bfcl_verdict
from ._bfcl_formats import BFCL_PROMPT_FORMATS, BfclPromptFormat, bfcl_prompt_format
from ._direction import Better, lower_is_better, reward_better
from ._env import env_response_match, env_state_match, first_difference
from ._expected_calls import ExpectedCall, expected_calls
from ._judge import Judge, JudgeSpec, judge_spec
from ._llm_judge import JudgeGrade, LlmJudgeDetails, llm_judge
from ._matchers import (
    MATCHERS,
    NORMALIZERS,
    bfcl_normalize,
    check_matchers,
    compile_matchers,
    matches,
    values_equal,
)
from ._qa import normalize_answer, qa_f1_reward, qa_f1_reward_format, qa_f1_reward_tool
from ._registry import (
    RewardEntry,
    RewardSpec,
    SampleScore,
    ascore_sample,
    parse_reward_specs,
    register_reward,
    registered_rewards,
    reward_entry,
    reward_keys,
    score_sample,
)
from ._result_models import (
    AnswerScore,
    BfclDetails,
    CallDiagnostic,
    FunctionCallDetails,
    NotApplicable,
    QADetails,
    QAResult,
    RewardResult,
    ToolMatchDetails,
)
from ._schema import STRICTNESS_MODES, match_function_call, schema_problem
from ._tool_match import (
    ARG_MODES,
    NUMBER_MODES,
    ORDER_MODES,
    composite_function_call_reward,
    exact_tool_match_reward,
    llm_judge_reward,
    schema_jaccard_reward,
    tool_call_match,
)

__all__ = [
    "ARG_MODES",
    "BFCL_PROMPT_FORMATS",
    "MATCHERS",
    "NORMALIZERS",
    "NUMBER_MODES",
    "ORDER_MODES",
    "STRICTNESS_MODES",
    "AnswerMatchDetails",
    "AnswerScore",
    "Better",
    "BfclDetails",
    "BfclPromptFormat",
    "CallDiagnostic",
    "ExpectedCall",
    "FunctionCallDetails",
    "Judge",
    "JudgeGrade",
    "JudgeSpec",
    "LlmJudgeDetails",
    "NotApplicable",
    "QADetails",
    "QAResult",
    "RewardEntry",
    "RewardResult",
    "RewardSpec",
    "SampleScore",
    "ToolMatchDetails",
    "answer_match",
    "ascore_sample",
    "bfcl_answer",
    "bfcl_normalize",
    "bfcl_prompt_format",
    "bfcl_verdict",
    "check_matchers",
    "compile_matchers",
    "composite_function_call_reward",
    "env_response_match",
    "env_state_match",
    "exact_tool_match_reward",
    "expected_calls",
    "first_difference",
    "judge_spec",
    "llm_judge",
    "llm_judge_reward",
    "lower_is_better",
    "match_function_call",
    "matches",
    "normalize_answer",
    "parse_reward_specs",
    "qa_f1_reward",
    "qa_f1_reward_format",
    "qa_f1_reward_tool",
    "register_reward",
    "registered_rewards",
    "reward_better",
    "reward_entry",
    "reward_keys",
    "schema_jaccard_reward",
    "schema_problem",
    "score_sample",
    "tool_call_match",
    "values_equal",
]
