"""The config's ``agent:``: an agent of your own, loaded once and run per (sample, epoch)
with the run's model, tools and limits (``agentloop.engine.run_own_agent``); in another
process with ``command`` (``_command``), or a service at ``url`` (``_http``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel

from agentloop._secrets import mask_url
from agentloop.engine import (
    AgentFactory,
    ContentCallParser,
    ExecutorFactory,
    OwnAgentRun,
    RetryPolicy,
    SimulatedUser,
    Turn,
    import_object,
    one_line,
    run_own_agent,
)
from agentloop.errors import ToolLoadError
from agentloop.harness.agents._command import command_factory
from agentloop.harness.agents._external import DEFAULT_TIME_LIMIT
from agentloop.harness.agents._http import http_factory, resolve_headers
from agentloop.harness.config._fields import AgentConfig, EvalConfig

__all__ = ["OwnAgent"]


class OwnAgent:
    """The configured factory, imported and checked before the first sample runs."""

    def __init__(self, config: AgentConfig) -> None:
        self.external = config.factory is None  # hangs of another process are cut
        self.args: dict[str, Any] = {}
        if config.command is not None:  # another process: nothing to import
            self.factory: AgentFactory = command_factory(config.command, config.env)
            self.origin = " ".join(config.command)
            return
        if config.url is not None:
            try:
                headers = resolve_headers(config.headers_env)
            except ValueError as exc:
                raise ToolLoadError(str(exc)) from None
            self.factory = http_factory(config.url, headers)
            self.origin = mask_url(config.url)
            return
        assert config.factory is not None  # the config has one or the other
        where = "agent.factory"
        try:
            factory = import_object(config.factory, "agent factory")
        except ToolLoadError as exc:
            raise ToolLoadError(one_line(f"{where}: {exc}")) from None
        if not callable(factory):
            raise ToolLoadError(
                f"{where}: {config.factory} is a {type(factory).__name__}, not a function"
            )
        try:
            inspect.signature(factory).bind(None, [], **config.args)
        except TypeError as exc:
            raise ToolLoadError(
                f"{where}: {config.factory} cannot be called as factory(model, tools"
                f"{''.join(f', {k}=...' for k in config.args)}): {exc}"
            ) from None
        except ValueError:  # a builtin without a signature: called as it is
            pass
        self.factory = factory
        self.args = dict(config.args)
        self.origin = config.factory

    def unsupported(self, single_turn: bool, env: Any) -> str | None:
        """Why this row cannot run with an agent of your own, or None."""
        if single_turn:
            return (
                "agent: the row is scored on the model's first reply (tools by schema only); "
                "an agent of your own does not run it"
            )
        if env is not None and env.after_tools:
            return (
                "agent: the environment's defense repeats the user's prompt after every tool "
                "result (AgentDojo's repeat_user_prompt), which rewrites the conversation "
                "between the agent's own model requests; an agent of your own holds its "
                "conversation itself, so it cannot run it faithfully"
            )
        return None

    async def run(
        self,
        config: EvalConfig,
        model: BaseChatModel,
        tools: list[Any],
        messages: list[Any],
        *,
        retry: RetryPolicy | None,
        parser: ContentCallParser | None,
        tool_executor: ExecutorFactory | None,
        unknown_tool: str | None,
        snapshot: Callable[[], Any] | None,
        turns: Sequence[Turn] = (),
        user: SimulatedUser | None = None,
        tool_filter: str | None = None,
        episode: tuple[str, int] | None = None,
    ) -> OwnAgentRun:
        """One (sample, epoch) with the config's limits: one agent call per turn of the
        row (``turns``) or per user turn (``user``); ``tool_filter`` asked first. An agent
        in another process is told ``episode``, the (sample id, epoch)."""
        args = self.args
        if self.external and episode is not None:
            args = {**args, "episode": {"sample_id": episode[0], "epoch": episode[1]}}
        options: dict[str, Any] = dict(
            factory_args=args,
            max_rounds=config.max_rounds,
            at_max_rounds=config.at_max_rounds,
            tool_timeout=config.tool_timeout,
            # a process that hangs is killed: it always has a time limit
            time_limit=config.time_limit
            if not self.external
            else config.time_limit or DEFAULT_TIME_LIMIT,
            token_limit=config.token_limit,
            parallel_tool_calls=config.parallel_tool_calls,
            tool_execution=config.tool_execution,
            tool_choice=config.tool_choice,
            max_tool_output_chars=config.max_tool_output_chars,
            retry=retry,
            parse_content_tool_calls=parser,
            tool_executor=tool_executor,
            unknown_tool=unknown_tool,
            snapshot=snapshot,
            turns=turns,
            user=user,
            tool_filter=tool_filter,
        )
        return await run_own_agent(self.factory, model, tools, messages, **options)
