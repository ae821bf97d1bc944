"""Evaluation configs: one YAML file validated by one pydantic model.

The files a config file reads (``dataset``, ``@file`` prompts, ``scripted:<file>`` and
``replay:<dir>`` model specs, ``./file.py:name`` import paths of tools, environment and
rewards) are named relative to the file's folder; ``load_config`` joins them to it, so the
model holds paths from the working directory, like every path on the command line. Where a
run writes (``output_dir``, ``cache``) and module paths (``pkg.mod:name``) are relative to
the working directory.

Reading a file, ``--set`` overrides and the checks beyond one field's type live in
``_config_loading``.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from agentloop.engine import (
    AGENT_STOP_SIGNALS,
    DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    DEFAULT_TOOL_TIMEOUT,
    USER_STOP_SIGNALS,
)
from agentloop.harness.config._pricing import ModelPrice
from agentloop.harness.config._tool_specs import parse_environment_spec, parse_tool_spec
from agentloop.models._reasoning import REASONING_PARAM, Reasoning

__all__ = ["DEFAULT_USER_INSTRUCTIONS", "AgentConfig", "EvalConfig", "RewardSpec", "UserConfig"]

RewardSpec = str | dict[str, dict[str, Any] | None]


def _check_tool(raw: Any) -> Any:
    parse_tool_spec(raw)  # shape only: imports and servers wait for the run
    return raw


DEFAULT_USER_INSTRUCTIONS = """You are playing a user who talks with an assistant, one \
message at a time. Follow the scenario below; do not invent information it does not give, \
and share what it gives only when the assistant asks for it. When the goal of the scenario \
is reached, reply with ###STOP### alone. If you are transferred to someone else, reply with \
###TRANSFER###. If the scenario does not say how to go on, reply with ###OUT-OF-SCOPE###.

<scenario>
{scenario}
</scenario>"""
"""The user's instructions when ``user.instructions`` is not set."""


class UserConfig(BaseModel):
    """A simulated user: a chat model playing the user from the row's ``user_scenario``."""

    model_config = ConfigDict(
        extra="forbid", protected_namespaces=(), use_attribute_docstrings=True
    )

    model: str
    """The user's model spec (any spec ``model:`` accepts: ``openai:...``, ``local:...``,
    ``scripted:<file>``, ``replay:<run dir>``)."""
    model_params: dict[str, Any] = Field(default_factory=dict)
    """The user model's sampling parameters."""
    model_options: dict[str, Any] = Field(default_factory=dict)
    """The user model's connection options."""
    instructions: str = DEFAULT_USER_INSTRUCTIONS
    """The user's system message, or ``@path`` of a file (relative to the config file's
    folder); ``{scenario}`` in it becomes the row's ``user_scenario`` (a string as is,
    anything else as indented JSON)."""
    stop_signals: list[str] = Field(default_factory=lambda: list(USER_STOP_SIGNALS))
    """A user message holding one of these ends the conversation (``user_stop``)."""
    agent_stop_signals: list[str] = Field(default_factory=lambda: list(AGENT_STOP_SIGNALS))
    """An agent reply holding one of these ends the conversation (``agent_stop``)."""
    max_rounds: int = Field(default=5, ge=0)
    """The user's own tool rounds per message."""
    max_turns: int | None = Field(default=None, ge=1)
    """User messages the agent answers before the conversation ends (null: no limit)."""
    max_steps: int | None = Field(default=200, ge=1)
    """Steps of a conversation, τ²-bench's way: each message of either side and each batch of
    tool results is one (null: no limit)."""
    max_errors: int | None = Field(default=10, ge=1)
    """Failed tool calls of both sides before the conversation ends (null: no limit)."""

    @field_validator("stop_signals", "agent_stop_signals")
    @classmethod
    def _check_signals(cls, value: list[str]) -> list[str]:
        if any(not s for s in value):
            raise ValueError("a stop signal must not be empty")
        return value


class AgentConfig(BaseModel):
    """An agent of your own instead of agentloop's loop (see
    ``agentloop.engine._own_agent``): a factory called per (sample, epoch) with the run's
    chat model and the row's tools."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    factory: str | None = None
    """Import path of the factory, ``pkg.mod:name`` or ``./file.py:name`` (a file relative
    to the config file's folder): ``factory(model, tools, **args)`` returns a LangChain
    Runnable or LangGraph graph over ``{"messages": [...]}``, or an async callable over
    messages."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments passed to the factory."""
    command: list[str] | None = None
    """Instead of a factory, an agent in another process: the program and its arguments,
    run without a shell per (sample, epoch) with the row's tools over MCP and the run's
    model behind an OpenAI endpoint (see ``agentloop.harness.agents._command``)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment variables given to ``command`` (agentloop's own environment is not)."""
    url: str | None = None
    """Instead of a factory, an agent service: each agent call POSTs the task, the MCP URL,
    the model endpoint and the token to this URL, which answers ``{"reply": ...}`` (see
    ``agentloop.harness.agents._http``). On this machine unless ``allow_remote``."""
    headers_env: dict[str, str] = Field(default_factory=dict)
    """Headers sent to ``url``, each naming the environment variable (or ``.env`` entry)
    that holds its value: ``{Authorization: MY_AGENT_AUTH}``; never the value itself."""
    allow_remote: bool = False
    """Allow a ``url`` on another machine. The tools and the model are served on 127.0.0.1
    only: a service elsewhere reaches them only through a tunnel of your own."""

    @model_validator(mode="before")
    @classmethod
    def _from_path(cls, value: Any) -> Any:
        return {"factory": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _one_agent(self) -> AgentConfig:
        if [self.factory, self.command, self.url].count(None) != 2:
            raise ValueError("give one of factory, command or url")
        if (self.headers_env or self.allow_remote) and self.url is None:
            raise ValueError("headers_env and allow_remote are for a url")
        if self.url is not None and self.args:
            raise ValueError("args is for a factory")
        if self.command is not None and (self.args or not self.command):
            raise ValueError(
                "command: a non-empty list (program, arguments...); args is for a factory"
            )
        if self.env and self.command is None:
            raise ValueError("env is for a command")
        return self

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value

    @model_validator(mode="after")
    def _on_this_machine(self) -> AgentConfig:
        host = urlsplit(self.url).hostname if self.url else None
        if host is None or self.allow_remote or host == "localhost":
            return self
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ValueError(
                f"url: {host} is not this machine, and the tools and model an agent is "
                "served listen on 127.0.0.1 only; set allow_remote: true if the service "
                "reaches them (a tunnel)"
            )
        return self

    @field_validator("factory")
    @classmethod
    def _check_factory(cls, value: str | None) -> str | None:
        if value is None:
            return value
        module, sep, name = value.rpartition(":")
        if not sep or not module or not name:
            raise ValueError("expected an import path, 'package.module:name' or './file.py:name'")
        return value


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
    """Model spec, e.g. ``openai:gpt-4o-mini`` or ``scripted:scripts/x.json`` (a file
    relative to the config file's folder). Required in generate mode."""
    model_params: dict[str, Any] = Field(default_factory=dict)
    """Sampling parameters sent with each request (temperature, max_tokens, seed, ...)."""
    reasoning: Reasoning | None = None
    """Reasoning models: ``{enabled, effort, budget_tokens, send_back, summary}``, mapped
    onto the provider's own parameters (openai: ``reasoning_effort``, or ``reasoning`` with
    ``model_options.api: responses``; anthropic: ``thinking`` and ``effort``); a part the
    provider cannot take is an error."""
    model_options: dict[str, Any] = Field(default_factory=dict)
    """Connection options for the provider (base_url, api_key_env, max_retries,
    request_timeout, latency for scripted models, replay_tools, ...)."""
    tools: list[Annotated[Any, AfterValidator(_check_tool)]] = Field(default_factory=list)
    """Tool import paths (``pkg.mod:name`` or ``./file.py:name``, a file relative to the config
    file's folder; a class is instantiated
    afresh for every sample), ``{path: ..., args: {...}}`` for a class with constructor
    arguments, ``{factory: ..., args: {...}}`` for a function returning tools (called for
    every sample and epoch) and ``{mcp: {command: ..., args: [...]} | {url: ...}, tools:
    [names]}`` for an MCP server's tools."""
    environment: str | dict[str, Any] | None = None
    """A stateful environment per (sample, epoch): ``module:factory`` or ``{factory: ...,
    args: {...}}``; its tools join ``tools`` and its state reaches the rewards (see
    ``agentloop.harness.run._environment``)."""
    user: UserConfig | None = None
    """A simulated user that converses with the agent (see ``UserConfig``); rows give its
    scenario in ``user_scenario``."""
    agent: AgentConfig | None = None
    """An agent of your own run instead of agentloop's loop: ``module:factory`` or
    ``{factory: ..., args: {...}}`` (see ``AgentConfig``); unset, agentloop's loop runs."""
    dataset: str
    """Path of the JSONL dataset (relative to the config file's folder), or
    ``bfcl:<category>`` to read a BFCL category from the bfcl-eval package (``tau2:<domain>``:
    a τ²-bench domain)."""
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
    cluster_by: str | None = None
    """A ``metadata`` key whose value groups samples that are not independent (the
    questions of one passage, a task's injection variants): the summary's intervals and
    ``compare``'s tests take each value as one cluster (Miller's clustered standard
    errors); a sample without the key is its own cluster. Unset: a sample's epochs are
    its cluster."""
    max_rounds: int = Field(default=5, ge=0)
    """Tool rounds per sample (per turn) before the model must answer."""
    at_max_rounds: Literal["answer", "stop"] = "answer"
    """What reaching ``max_rounds`` does: ``answer``, the model is called once more to
    answer (calls it still makes are refused) and the next turn follows; ``stop``, the
    conversation ends right after the last round (no further model call, no later turn:
    BFCL's step limit)."""
    tool_timeout: float | None = Field(default=DEFAULT_TOOL_TIMEOUT, gt=0)
    """Seconds one tool call may take before it is cancelled (null: no limit)."""
    time_limit: float | None = Field(default=None, gt=0)
    """Seconds of wall time one sample may take (model calls and tools); when reached the
    sample stops (``stop_reason: time_limit``) and is scored on what it did."""
    token_limit: int | None = Field(default=None, gt=0)
    """Total tokens (as the model reports them) one sample may use; when reached the
    sample stops (``stop_reason: token_limit``) and is scored on what it did."""
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
    in call order (for tools whose calls depend on each other). Sequential by default
    when an ``environment`` is configured."""
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
    ``@path`` of a file (relative to the config file's folder)."""
    output_dir: str = "runs"
    """Where run directories are created."""
    fail_on_error: bool | int | float = False
    """When the run as a whole fails (exit code 1): false never; true on any errored
    sample; an integer N when more than N samples errored; a fraction f in [0, 1]
    when more than that fraction of the results errored."""
    fsync: bool = False
    """fsync results.jsonl after each line (survives power loss, not only a kill;
    costs a disk sync per sample). Lines are always flushed."""
    otel: bool | Literal["content"] = False
    """Send each (sample, epoch)'s OpenTelemetry GenAI spans over OTLP/HTTP as its result is
    written (the ``otel`` extra; ``OTEL_EXPORTER_OTLP_*`` variables); ``content`` adds the
    messages, tool arguments and results (scrubbed of secrets)."""
    cache: bool | str = False
    """Reuse model replies: true (``~/.cache/agentloop``, or ``$XDG_CACHE_HOME``) or a
    directory. A reply is reused for the same model, endpoint, messages, tools,
    tool_choice, sampling parameters, seed and epoch; live models only."""
    cache_expiry_s: float | None = Field(default=None, gt=0)
    """With ``cache``: seconds after which a stored reply is no longer reused."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """USD per million tokens by model spec (``openai:gpt-4o-mini: {input: 0.15,
    cached_input: 0.075, output: 0.6}``; optional ``cache_write``, ``cache_write_1h``,
    ``reasoning`` and ``max_input_tokens``): used instead of agentloop's price table (see
    ``agentloop.harness.config._pricing``)."""
    preflight: bool = True
    """Before the first sample, check with one cheap request that the model's endpoint
    answers (``openai:``); false (or ``--no-preflight``) skips the check."""
    executor: Literal["local", "ray"] = "local"
    """Where samples run: ``local`` (an async pool in this process) or ``ray`` (Ray actors,
    each an async pool of ``concurrency`` samples); this process stays the one writer."""
    ray_address: str | None = None
    """With ``executor: ray``: the cluster (``host:port``); unset: ``RAY_ADDRESS``, else
    a Ray started on this machine (127.0.0.1) for the run."""
    ray_workers: int | None = Field(default=None, ge=1)
    """With ``executor: ray``: how many actors; unset: one per CPU of the cluster."""
    ray_env: list[str] = Field(default_factory=list)
    """With ``executor: ray``: names of environment variables passed from this process to
    the workers (API keys, ...); values never enter the run files. Workers also see
    their nodes' own environment."""
    _origins: dict[str, str] = PrivateAttr(default_factory=dict)
    """Dotted field -> the command-line override that set it (``--set KEY=VALUE``,
    ``--model``), so that checks after validation blame it, not the file
    (``agentloop.harness.config._loading``)."""
    _notes: list[str] = PrivateAttr(default_factory=list)
    """What loading did that the user should hear of (see ``notes``)."""

    @field_validator("otel", mode="before")
    @classmethod
    def _otel_setting(cls, value: Any) -> Any:
        if isinstance(value, bool) or value == "content":
            return value
        raise ValueError(f"true, false or content, not {value!r}")

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

    @field_validator("prices")
    @classmethod
    def _check_price_keys(cls, value: dict[str, ModelPrice]) -> dict[str, ModelPrice]:
        bad = [k for k in value if ":" not in k]
        if bad:
            raise ValueError(
                f"{bad[0]!r}: keys are model specs as model: writes them (e.g. openai:{bad[0]})"
            )
        return value

    @field_validator("cluster_by")
    @classmethod
    def _check_cluster_by(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or value != value.strip()):
            raise ValueError("a metadata key, without surrounding spaces")
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
        if self.user is not None and self.mode == "score":
            raise ValueError("user: score mode scores the rows as recorded; remove it")
        if self.agent is not None and self.mode == "score":
            raise ValueError("agent: score mode scores the rows as recorded; remove it")
        if self.environment is not None:
            parse_environment_spec(self.environment)
            # A stateful environment's calls depend on each other; explicit settings win.
            if "tool_execution" not in self.model_fields_set:
                self.tool_execution = "sequential"
            # Replayed tool results would leave the environment untouched: re-run them.
            if (self.model or "").startswith("replay:"):
                self.model_options.setdefault("replay_tools", "live")
            if self.user is not None and self.user.model.startswith("replay:"):
                self.user.model_options.setdefault("replay_tools", "live")
        return self

    @model_validator(mode="after")
    def _check_reasoning_place(self) -> EvalConfig:
        if REASONING_PARAM in self.model_params:
            raise ValueError("model_params.reasoning: set it as the top-level reasoning: setting")
        return self

    @property
    def notes(self) -> list[str]:
        """What loading changed beyond the user's own words, one line each: the file's
        ``model_options`` a ``--model`` of another provider does not take."""
        return list(self._notes)

    def request_params(self) -> dict[str, Any]:
        """What each request carries besides messages and tools: ``model_params``, and the
        ``reasoning`` setting under that name (see ``agentloop.models._reasoning``)."""
        if self.reasoning is None:
            return dict(self.model_params)
        return {**self.model_params, REASONING_PARAM: self.reasoning.as_param()}

    @model_validator(mode="after")
    def _check_cache_fields(self) -> EvalConfig:
        if self.cache_expiry_s is not None and self.cache is False:
            raise ValueError("cache_expiry_s: only used with cache")
        if self.cache == "":
            raise ValueError("cache: true, false or a directory")
        return self

    @model_validator(mode="after")
    def _check_ray_fields(self) -> EvalConfig:
        if self.executor != "ray":
            used = [f for f in ("ray_address", "ray_workers", "ray_env") if getattr(self, f)]
            if used:
                raise ValueError(f"{used[0]}: only used with executor: ray")
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
