"""Evaluation configs: one YAML file validated by one pydantic model.

Relative paths in a config (``dataset``, ``output_dir``, ``./file.py:name`` tool paths,
``scripted:<file>`` model specs) are resolved against the current working directory,
like every path on the command line; run agentloop from the project root.

Every field can be overridden: ``load_config(path, sets=["model_params.temperature=0"])``
applies dotted ``key=value`` overrides (values parsed as YAML) before validation, so
an override is validated exactly like the file. Errors are one line per problem,
naming the file and the field.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from agentloop.engine import DEFAULT_MAX_TOOL_OUTPUT_CHARS
from agentloop.errors import ConfigError, ModelSpecError
from agentloop.harness._prompt import load_system_prompt
from agentloop.harness._toolspecs import parse_tool_spec
from agentloop.harness._yaml import load_unique_yaml

__all__ = [
    "EvalConfig",
    "apply_overrides",
    "check_tool_choice",
    "load_config",
    "override",
    "read_raw_config",
    "validate_config",
]

RewardSpec = str | dict[str, dict[str, Any] | None]


def _check_tool(raw: Any) -> Any:
    parse_tool_spec(raw)  # shape only: imports and servers wait for the run
    return raw


class EvalConfig(BaseModel):
    """An evaluation: which model, which tools, which dataset, how to score and run it."""

    model_config = ConfigDict(
        extra="forbid", protected_namespaces=(), use_attribute_docstrings=True
    )

    name: str | None = None
    """Run name used in the run directory; defaults to the config file's stem."""
    description: str = ""
    """Free text, copied to the run header."""
    model: str | None = None
    """Model spec, e.g. ``openai:gpt-4o-mini`` or ``scripted:configs/scripts/x.json``.
    Required in generate mode."""
    model_params: dict[str, Any] = Field(default_factory=dict)
    """Sampling parameters sent with each request (temperature, max_tokens, seed, ...)."""
    model_options: dict[str, Any] = Field(default_factory=dict)
    """Connection options for the provider (base_url, api_key_env, max_retries,
    request_timeout, latency for scripted models, replay_tools, ...)."""
    tools: list[Annotated[Any, AfterValidator(_check_tool)]] = Field(default_factory=list)
    """Tool import paths (``pkg.mod:name`` or ``./file.py:name``; a class is instantiated
    afresh for every sample), ``{path: ..., args: {...}}`` for a class with constructor
    arguments, ``{factory: ..., args: {...}}`` for a function returning tools (called for
    every sample and epoch) and ``{mcp: {command: ..., args: [...]} | {url: ...}, tools:
    [names]}`` for an MCP server's tools."""
    dataset: str
    """Path of the JSONL dataset (relative to the working directory)."""
    mode: Literal["generate", "score"] = "generate"
    """generate: strip recorded replies and run the model; score: score rows as recorded."""
    skip_invalid: bool = False
    """Run the valid rows of a dataset with bad lines (listed in the results) instead
    of refusing to start."""
    rewards: list[RewardSpec] = Field(default_factory=list)
    """Reward names or import paths of reward functions, each optionally with parameters:
    ``[qa_f1_reward, {tool_call_match: {order: unordered}}, my_pkg.rewards:judge]``."""
    pass_threshold: dict[str, float] = Field(default_factory=dict)
    """Per reward name: the score at or above which a sample passes (overrides the
    reward's own threshold; enables pass@k for rewards without one)."""
    max_rounds: int = Field(default=5, ge=0)
    """Tool rounds per sample before the model must answer."""
    tool_timeout: float | None = Field(default=None, gt=0)
    """Seconds one tool call may take before it is cancelled."""
    tool_choice: str | dict[str, Any] | None = None
    """Sent with bind_tools: auto, required, none, a tool name or an OpenAI dict."""
    max_tool_output_chars: int | None = Field(default=DEFAULT_MAX_TOOL_OUTPUT_CHARS, ge=1)
    """Characters of one tool result the model sees; longer results are cut with a
    note saying how much was dropped. null: no limit."""
    parallel_tool_calls: bool = True
    """When false, ask the provider for one call at a time (only what it is asked;
    ``tool_execution`` decides how the calls run)."""
    tool_execution: Literal["parallel", "sequential"] = "parallel"
    """How one round's calls run: concurrently (results in call order) or one by one
    in call order (for tools whose calls depend on each other)."""
    parse_content_tool_calls: bool = False
    """Recover tool calls a server left in the reply text."""
    concurrency: int = Field(default=8, ge=1)
    """Samples run at the same time."""
    epochs: int = Field(default=1, ge=1)
    """Times each sample is run (pass@k uses k up to this)."""
    limit: int | None = Field(default=None, ge=1)
    """Run only the first N valid rows (of those ``sample_ids`` selects, in ``shuffle`` order)."""
    sample_ids: list[str] = Field(default_factory=list)
    """Run only the rows with these ids; globs allowed (``weather-*``). Empty: every row.
    An id or glob that matches no row is an error."""
    shuffle: bool = False
    """Run the rows in an order shuffled by ``seed`` (the same on every machine)."""
    seed: int | None = None
    """Seed of ``shuffle`` (default 0); the model's sampling seed is ``model_params.seed``."""
    system_prompt: str | None = None
    """A system message for rows without a system or developer message: the text, or
    ``@path`` of a file (relative to the working directory)."""
    output_dir: str = "runs"
    """Where run directories are created."""
    fail_on_error: bool | int | float = False
    """When the run as a whole fails (exit code 1): false never; true on any errored
    sample; an integer N when more than N samples errored; a fraction f in [0, 1]
    when more than that fraction of the results errored."""
    fsync: bool = False
    """fsync results.jsonl after each line (survives power loss, not only a kill;
    costs a disk sync per sample). Lines are always flushed."""
    preflight: bool = True
    """Before the first sample, check with one cheap request that the model's endpoint
    answers (``openai:``); false (or ``--no-preflight``) skips the check."""

    @field_validator("fail_on_error")
    @classmethod
    def _check_fail_on_error(cls, value: bool | int | float) -> bool | int | float:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value < 0:
            raise ValueError("a count must be >= 0")
        if isinstance(value, float) and not 0.0 <= value <= 1.0:
            raise ValueError("a fraction must be between 0 and 1")
        return value

    @field_validator("pass_threshold")
    @classmethod
    def _check_thresholds(cls, value: dict[str, float]) -> dict[str, float]:
        bad = [k for k, v in value.items() if not 0.0 <= v <= 1.0]
        if bad:
            raise ValueError(f"thresholds must be between 0 and 1 ({', '.join(bad)})")
        return value

    @model_validator(mode="after")
    def _check_model_needed(self) -> EvalConfig:
        if self.mode == "generate" and not self.model:
            raise ValueError("model: a model spec is required in generate mode")
        if self.seed is not None and not self.shuffle:
            raise ValueError("seed: only used with shuffle: true")
        if self.system_prompt is not None and self.mode == "score":
            raise ValueError("system_prompt: score mode scores the rows as recorded; remove it")
        return self

    @field_validator("sample_ids", mode="before")
    @classmethod
    def _ids_as_text(cls, value: Any) -> Any:
        # Dataset ids may be integers (``id: 7`` in YAML); they are compared as text.
        if isinstance(value, list):
            return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
        return value

    def run_name(self, config_path: str | Path | None) -> str:
        """The run's name: ``name``, else the config file's stem, else ``run``."""
        if self.name:
            return self.name
        return Path(config_path).stem if config_path else "run"


def _set_dotted(raw: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = raw
    for part in parts[:-1]:
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        if not isinstance(child, dict):
            raise ConfigError(f"--set {key}: {part!r} is not a mapping")
        node = child
    node[parts[-1]] = value


def apply_overrides(raw: dict[str, Any], sets: Sequence[str]) -> dict[str, Any]:
    """A copy of ``raw`` with ``key=value`` overrides applied (dotted keys, YAML values)."""
    result = copy.deepcopy(raw)
    for item in sets:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item!r}: expected key=value, e.g. max_rounds=3")
        try:
            value = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError as exc:
            raise ConfigError(
                f"--set {key}: value is not valid YAML ({_yaml_problem(exc)})"
            ) from None
        _set_dotted(result, key.strip(), value)
    return result


def _yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 1}" if mark is not None else str(problem)


def _field_name(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"


def _describe(err: Any) -> str:
    name = _field_name(tuple(err["loc"]))
    message = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden" and len(err["loc"]) == 1:
        close = difflib.get_close_matches(str(err["loc"][0]), EvalConfig.model_fields, n=1)
        if close:
            message += f" (did you mean {close[0]!r}?)"
    if not err["loc"]:  # model-level errors name their field themselves
        return message
    return f"{name}: {message}"


def _check_rewards(config: EvalConfig) -> str | None:
    if not config.rewards and not config.pass_threshold:
        return None
    from agentloop.harness._rewards import parse_rewards  # evals is slow to import

    try:
        specs = parse_rewards(config.rewards)
    except ValueError as exc:
        return f"rewards: {exc}"
    known = {s.name for s in specs} | {s.key for s in specs}
    unknown = sorted(set(config.pass_threshold) - known)
    if unknown:
        return f"pass_threshold: {', '.join(unknown)} is not a configured reward"
    return None


def validate_config(raw: Any, source: str = "config") -> EvalConfig:
    """Validate a parsed config mapping; ``ConfigError`` lists each problem by field."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: a config must be a mapping of field: value")
    try:
        config = EvalConfig.model_validate(raw)
    except ValidationError as exc:
        lines = [f"{source}: {_describe(e)}" for e in exc.errors(include_url=False)]
        raise ConfigError("\n".join(lines)) from None
    problems = []
    if config.model:
        from agentloop.models import check_spec

        try:
            check_spec(config.model)
        except ModelSpecError as exc:
            problems.append(f"model: {exc}")
    reward_problem = _check_rewards(config)
    if reward_problem:
        problems.append(reward_problem)
    try:
        load_system_prompt(config.system_prompt)
    except ConfigError as exc:
        problems.append(str(exc))
    if problems:
        raise ConfigError("\n".join(f"{source}: {p}" for p in problems))
    return config


def check_tool_choice(config: EvalConfig, bound: Iterable[str], source: str = "config") -> None:
    """``ConfigError`` when ``tool_choice`` names a tool (by name or as an OpenAI dict) that
    is not in ``bound``, the configured tools and the rows' schemas: every request
    would force a tool the model does not have. Not checked when factories or MCP
    servers supply tools: their names are known only once they are made."""
    if any(isinstance(t, dict) and ("factory" in t or "mcp" in t) for t in config.tools):
        return
    choice = config.tool_choice
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
    else:  # "any" is LangChain's alias of "required"
        name = None if choice in (None, "auto", "required", "none", "any") else choice
    known = sorted(set(bound))
    if config.mode == "score" or not isinstance(name, str) or name in known:
        return
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(
        f"{source}: tool_choice: no row binds a tool named {name!r} "
        f"(tools: {', '.join(known) or 'none'}{hint})"
    )


def read_raw_config(path: str | Path) -> dict[str, Any]:
    """The YAML mapping in a config file (``ConfigError`` when unreadable or not a mapping)."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        raw = load_unique_yaml(file.read_text(encoding="utf-8"), str(path))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {_yaml_problem(exc)}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a config must be a mapping of field: value")
    return raw


def load_config(
    path: str | Path, sets: Sequence[str] = (), overrides: dict[str, Any] | None = None
) -> EvalConfig:
    """Read, override and validate a config file.

    ``sets`` are ``key=value`` strings (YAML values); ``overrides`` maps dotted keys
    to values already typed (command-line flags); both are validated with the file.
    """
    return validate_config(override(read_raw_config(path), sets, overrides), str(path))


def override(
    raw: dict[str, Any], sets: Sequence[str] = (), overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``raw`` with ``--set`` strings, then typed overrides, applied."""
    result = apply_overrides(raw, sets)
    for key, value in (overrides or {}).items():
        _set_dotted(result, key, value)
    return result
