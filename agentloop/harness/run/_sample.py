"""One (sample, epoch): everything validated up front, then run, scored and encoded.

``prepare`` checks dataset, rewards, tools and the content parser before anything
runs; ``run_sample`` turns one pair into one results line, every failure included
(an errored line, never an exception that would stop the other samples).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.tools import BaseTool

from agentloop.engine import ContentCallParser, Trajectory, run_agent
from agentloop.errors import ConfigError
from agentloop.harness.agents._own import OwnAgent
from agentloop.harness.config._fields import EvalConfig
from agentloop.harness.config._loading import blame, check_tool_choice
from agentloop.harness.config._pricing import Pricing, resolve_pricing, sample_cost
from agentloop.harness.config._prompt_files import load_system_prompt
from agentloop.harness.data._dataset import DatasetScan, iter_samples, scan_dataset
from agentloop.harness.data._prompt import prompt_messages, wire_messages, with_system_prompt
from agentloop.harness.data._row_fields import check_row_fields
from agentloop.harness.data._row_tools import check_row_tools
from agentloop.harness.data._rows import Sample
from agentloop.harness.data._selection import Selection, iter_selected, select_rows
from agentloop.harness.run._dependencies import Dependencies, check_dependencies
from agentloop.harness.run._environment import (
    EnvironmentFactory,
    recorded_states,
    rewards_environment,
)
from agentloop.harness.run._scoring import RewardPlan, ToolSet, recorded_trajectory
from agentloop.harness.run._tools import sample_row, turn_plan
from agentloop.harness.run._user import simulated_user
from agentloop.harness.rundir._files import Scrubber, encode_result, utc_now
from agentloop.models import ModelSource
from agentloop.models._cache import cache_scope

if TYPE_CHECKING:
    from agentloop.harness.run._judges import Judges

__all__ = ["Prepared", "prepare", "run_sample"]

_FAILED = ("error", "user_error")  # stop reasons that make the sample an error


@dataclass
class Prepared:
    """Everything validated before the first sample runs."""

    config: EvalConfig
    config_path: str | None
    scan: DatasetScan
    rewards: RewardPlan
    tools: ToolSet
    parser: ContentCallParser | None
    scrub: Scrubber
    selection: Selection
    """The rows to run, in order (``sample_ids``, ``shuffle``, ``limit``)."""
    system_prompt: str | None = None
    """The config's system prompt, read once (a file's text)."""
    requests: dict[tuple[str, ...], dict[str, Any]] = field(default_factory=dict)
    """Request signatures by tool set (computing tool schemas per sample is wasteful)."""
    environment: EnvironmentFactory | None = None
    """The configured environment, made afresh per (sample, epoch)."""
    user_instructions: str | None = None
    """The simulated user's instructions template, read once (a file's text)."""
    dependencies: Dependencies | None = None
    """The order of rows with ``depends_on`` (None: no row has one)."""
    agent: OwnAgent | None = None
    """The configured agent of your own (``agent:``), imported once; None: the loop."""
    pricing: dict[str, Pricing] = field(default_factory=dict)
    """How each side's requests are priced (``agent``, ``user``); found at the first sample
    (it needs the open model source's endpoint)."""
    warnings: list[str] = field(default_factory=list)
    """What the checks found that does not stop the run (one line each): ground truth that
    can never match (``agentloop.harness.data._row_tools``), row fields nothing reads or that
    a reward misses (``agentloop.harness.data._row_fields``)."""

    def pricing_for(self, source: ModelSource, side: str = "agent") -> Pricing:
        """The pricing (``agentloop.harness.config._pricing``) of the agent's model or,
        ``side="user"``, the simulated user's; found once."""
        if side not in self.pricing:
            cfg = self.config
            spec = cfg.model if side == "agent" else cfg.user.model if cfg.user else None
            self.pricing[side] = resolve_pricing(
                spec, source.endpoint, cfg.prices, score_mode=cfg.mode == "score"
            )
        return self.pricing[side]


def _content_parser(config: EvalConfig) -> ContentCallParser | None:
    if not config.parse_content_tool_calls:
        return None
    # Imported only when asked for: most runs talk to servers that parse calls themselves.
    from agentloop.engine import parse_content_tool_calls

    return parse_content_tool_calls


def _check_scripts(config: EvalConfig, selection: Selection, source: str) -> None:
    """A ``scripted:`` model (the user's too) without replies for a selected row is a
    config error before the first sample, not that sample's error at run time."""
    specs = [("model", config.model), ("user.model", config.user.model if config.user else None)]
    scripted = [(f, s) for f, s in specs if isinstance(s, str) and s.startswith("scripted:")]
    if not scripted or config.mode == "score":
        return
    from agentloop.models import missing_scripts

    ids = [sample.id for sample in iter_selected(config, selection)]
    for field_name, spec in scripted:
        missing = missing_scripts(spec, ids)  # an unreadable file: the provider's error
        if missing:
            shown = ", ".join(repr(i) for i in missing[:5]) + (", ..." if len(missing) > 5 else "")
            problem = (
                f"{field_name}: {spec.partition(':')[2]} has no replies for {len(missing)} of "
                f"the {len(ids)} rows to run ({shown}) and no '*' for them"
            )
            raise ConfigError(blame(config, problem, source))


def prepare(
    config: EvalConfig,
    config_path: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Prepared:
    """Validate dataset, selection, system prompt, rewards, tools and the content parser;
    raise on the first bad one."""
    scan = scan_dataset(config.dataset, config.mode)
    if scan.valid == 0 or not config.skip_invalid:
        scan.raise_if_invalid()
    selection = select_rows(config, scan)  # an id matching no row: said before tools load
    dependencies = check_dependencies(config, selection) if scan.row_fields.dependent else None
    rewards = RewardPlan.from_config(config)
    if config.environment is None and (asking := rewards.asking_for("environment")):
        raise ConfigError(
            f"rewards: {', '.join(asking)} need(s) an environment; none is configured "
            "(environment: module:factory)"
        )
    tools = ToolSet.from_config(config)
    environment = None
    if config.environment is not None:
        first = next(iter(iter_samples(config.dataset, config.mode)), None)
        environment = EnvironmentFactory(config.environment, first)
    names = [*tools.names, *scan.tool_names, *(environment.names if environment else [])]
    source = config_path or "config"
    check_tool_choice(config, names, source)
    _check_scripts(config, selection, source)
    warnings = check_row_tools(config, scan.row_tools, rewards.specs, tools.names, source)
    warnings += check_row_fields(config, scan.row_fields, rewards.specs, source)
    return Prepared(
        config=config,
        config_path=config_path,
        scan=scan,
        rewards=rewards,
        tools=tools,
        parser=_content_parser(config),
        scrub=Scrubber(environ),
        selection=selection,
        system_prompt=load_system_prompt(config.system_prompt),
        environment=environment,
        user_instructions=(
            load_system_prompt(config.user.instructions, "user.instructions")
            if config.user is not None
            else None
        ),
        warnings=warnings,
        dependencies=dependencies,
        agent=OwnAgent(config.agent) if config.agent is not None else None,
    )


class _SampleError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _request(p: Prepared, tools: list[BaseTool | dict[str, Any]]) -> dict[str, Any]:
    """The request signature replay checks (tools, tool_choice, params); cached per tool set."""
    from agentloop.models import request_signature

    key = tuple(t.name if isinstance(t, BaseTool) else json.dumps(t, sort_keys=True) for t in tools)
    if key not in p.requests:
        cfg = p.config
        p.requests[key] = request_signature(
            tools,
            cfg.tool_choice,
            cfg.parallel_tool_calls,
            cfg.request_params(),
            cfg.model_options.get("api"),
        )
    return p.requests[key]


async def _generate(
    p: Prepared,
    source: ModelSource,
    sample: Sample,
    epoch: int,
    record: dict[str, Any],
    user_source: ModelSource | None = None,
) -> Trajectory:
    cfg = p.config
    try:
        model = source.for_sample(sample.id, epoch)
    except Exception as exc:
        raise _SampleError("model", f"{type(exc).__name__}: {exc}") from exc
    env = p.environment.make(sample, epoch) if p.environment is not None else None
    tools, turns = turn_plan(sample, p.tools.for_sample(sample, epoch, env.tools if env else ()))
    record["request"] = _request(p, tools)
    user = None
    if cfg.user is not None:
        if sample.turns:
            raise _SampleError(
                "dataset",
                "a row with turns cannot run with a simulated user "
                "(user:): its turns come from the user",
            )
        if user_source is None:
            raise _SampleError("crash", "user: is configured but its model was not opened")
        assert p.user_instructions is not None
        try:
            user = simulated_user(cfg.user, p.user_instructions, user_source, sample, epoch, env)
        except ValueError as exc:
            raise _SampleError("dataset", str(exc)) from exc
        from agentloop.models import request_signature

        record["request"] = dict(
            record["request"], user=request_signature(user.tools, None, True, cfg.user.model_params)
        )
    elif sample.conversation:
        raise _SampleError(
            "dataset",
            "the row has a user_scenario but the config no user: (a simulated user to play it)",
        )
    first = sample.messages
    if env is not None and env.first_messages is not None:
        first = env.first_messages()  # made now, from the environment's state
    opening = wire_messages(first) if user else prompt_messages(first)
    if turns:  # replay checks each turn's tools against these
        bound: list[Any] = list(tools)
        record["request"] = dict(record["request"], turn_tools=[])
        for turn in turns:
            bound += turn.tools
            signature = _request(p, bound)
            record["request"]["turn_tools"].append(
                {"tools": signature["tools"], "tools_sha256": signature["tools_sha256"]}
            )
    if source.cache is not None:
        model.cache = source.cache  # LangChain looks replies up there
    with cache_scope(epoch) as cache_counts:
        if p.agent is not None:
            if why := p.agent.unsupported(record["single_turn"], env):
                raise _SampleError("dataset", why)
            run = await p.agent.run(
                cfg,
                model,
                tools,
                with_system_prompt(opening, p.system_prompt),
                retry=source.retry_policy,
                parser=p.parser,
                tool_executor=source.tool_executor(sample.id, epoch),
                unknown_tool=env.unknown_tool if env is not None else None,
                snapshot=env.snapshot if env is not None else None,
                turns=turns,
                user=user,
                tool_filter=env.tool_filter if env is not None else None,
                episode=(sample.id, epoch),
            )
            trajectory, record["agent_notes"] = run.trajectory, run.notes
            if run.failed == "agent":
                record["error_kind"] = "agent"  # read by run_sample: not the model's error
        else:
            trajectory = await run_agent(
                model,
                tools,
                with_system_prompt(opening, p.system_prompt),
                turns=turns,
                user=user,
                snapshot=env.snapshot if env is not None else None,
                max_rounds=cfg.max_rounds,
                at_max_rounds=cfg.at_max_rounds,
                single_turn=record["single_turn"],
                tool_timeout=cfg.tool_timeout,
                time_limit=cfg.time_limit,
                token_limit=cfg.token_limit,
                parallel_tool_calls=cfg.parallel_tool_calls,
                tool_execution=cfg.tool_execution,
                tool_choice=cfg.tool_choice,
                max_tool_output_chars=cfg.max_tool_output_chars,
                retry=source.retry_policy,
                parse_content_tool_calls=p.parser or False,
                tool_executor=source.tool_executor(sample.id, epoch),
                unknown_tool=env.unknown_tool if env is not None else None,
                after_tools=env.after_tools if env is not None else (),
                tool_filter=env.tool_filter if env is not None else None,
            )
    if env is not None and env.finish is not None and trajectory.stop_reason not in _FAILED:
        env.finish()  # what the rows depending on this one start from
    if source.cache is not None:
        record["cache"] = {"hits": cache_counts["hit"], "misses": cache_counts["miss"]}
    # replay with replay_tools: live reports tools whose output changed since the recording
    if found := source.tool_differences(sample.id, epoch):
        record["replay_tool_diffs"] = found
    return trajectory


async def run_sample(
    p: Prepared,
    source: ModelSource,
    sample: Sample,
    epoch: int,
    user_source: ModelSource | None = None,
    judges: Judges | None = None,
    blocked: str | None = None,
) -> tuple[str, bool]:
    """Run, score and encode one (sample, epoch); every failure becomes an error line.
    ``user_source`` gives the simulated user's model (config ``user:``); ``judges`` the
    run's judges, for rewards whose config names a judge model (``judge:``); ``blocked``
    why the pair does not run (its dependencies failed): an error line of kind
    ``dependency``."""
    started, started_at = time.perf_counter(), utc_now()
    env_names = p.environment.names if p.environment is not None else []
    single = (
        p.tools.single_turn(sample)
        and not sample.turns
        and not any(n in env_names for n in sample.tool_names)
        and p.config.user is None
    )
    record: dict[str, Any] = {
        "id": sample.id,
        "epoch": epoch,
        "status": "ok",
        "error": None,
        "error_kind": None,
        "mode": p.config.mode,
        "single_turn": single,
        "request": None,
    }
    trajectory: Trajectory | None = None
    scores, passed, reward_errors, not_applicable = {}, {}, {}, {}
    judging = judges.for_sample(sample.id, epoch) if judges is not None else None
    try:
        if blocked is not None:
            raise _SampleError("dependency", blocked)
        if p.config.mode == "score":
            trajectory = recorded_trajectory(sample, p.parser)
            if p.environment is not None:
                await recorded_states(p, sample, epoch, trajectory)
        else:
            trajectory = await _generate(p, source, sample, epoch, record, user_source)
        if trajectory.stop_reason == "error":
            raise _SampleError(record["error_kind"] or "model", trajectory.error or "model error")
        if trajectory.stop_reason == "user_error":
            raise _SampleError("user_model", trajectory.error or "user model error")
        asking = p.rewards.asking_for("environment")
        environment, failed = await rewards_environment(p, asking, sample, epoch, trajectory)
        outcome = await p.rewards.score(
            trajectory,
            sample.ground_truth,
            sample.answer,
            metadata=sample.metadata,
            row=sample_row(sample),
            environment=environment,
            expected=sample.expected_calls,
            failed=failed,
            judging=judging,
        )
        scores, passed, reward_errors = outcome.scores, outcome.passed, outcome.errors
        not_applicable = outcome.not_applicable
        if reward_errors:
            raise _SampleError("reward", outcome.error_text() or "")
    except _SampleError as exc:
        record.update(status="error", error=str(exc), error_kind=exc.kind)
    except Exception as exc:  # a crash in a tool wrapper or the loop: contained
        record.update(status="error", error=f"{type(exc).__name__}: {exc}", error_kind="crash")
    record.update(_trajectory_fields(trajectory))
    user_pricing = p.pricing_for(user_source, "user") if user_source is not None else None
    record["cost_usd"], record["cost_unknown"] = sample_cost(
        trajectory, p.pricing_for(source), user_pricing
    )
    if p.rewards.judges:  # the judges' requests, apart from the agent's
        record.update(judging.fields() if judging is not None else _no_judging())
    record.update(
        scores=scores,
        passed=passed,
        reward_errors=reward_errors,
        not_applicable=not_applicable,
        wall_time_s=round(time.perf_counter() - started, 6),
        started_at=started_at,
        answer=sample.answer,
        ground_truth=sample.ground_truth,
        metadata=sample.metadata,
    )
    return encode_result(record, _trajectory_json(trajectory, record), p.scrub), (
        record["status"] != "ok"
    )


def _no_judging() -> dict[str, Any]:
    return {"judge_calls": [], "judge_usage": {}, "judge_cost_usd": 0.0, "judge_cost_unknown": None}


def _trajectory_json(trajectory: Trajectory | None, record: dict[str, Any]) -> str | None:
    """The trajectory as JSON; one that cannot be encoded errors its sample, not the run."""
    if trajectory is None:
        return None
    try:
        return trajectory.model_dump_json()
    except Exception as exc:
        try:  # a lone surrogate (in a row, or from a model) is not UTF-8: stored escaped
            return json.dumps(trajectory.model_dump(mode="json"), separators=(",", ":"))
        except Exception:
            pass
        record.update(
            status="error",
            error=f"the trajectory cannot be saved as JSON: {type(exc).__name__}: {exc}",
            error_kind="crash",
            scores={},
            passed={},
            reward_errors={},
            not_applicable={},
        )
        return None


def _trajectory_fields(trajectory: Trajectory | None) -> dict[str, Any]:
    if trajectory is None:
        return {"stop_reason": None, "rounds": None, "tool_calls_by_status": {}, "usage": {}}
    return {
        "stop_reason": trajectory.stop_reason,
        "rounds": trajectory.rounds,
        "tool_calls_by_status": trajectory.tool_calls_by_status,
        "usage": trajectory.usage.model_dump(),
    }
