"""The models rewards ask (judges): opened once per run, asked through the run's machinery.

A reward with a ``judge`` parameter (``agentloop.evals.Judge``) names a model in its
config; the run opens one model source per distinct description (model, ``judge_params``,
``judge_options``) on the first request, like the agent's (``open_model``, the config's
response cache), keeps it open to the end, and hands each sample's reward a judge that:

- sends each request through the engine (``run_agent`` with no tools): the source's retry
  policy (429, 5xx and timeouts retried with backoff), its request timeout and concurrency
  options, the response cache (each ``draw`` of a request keyed apart);
- awaits on the run's event loop, so the other samples go on while a judge answers;
- records every request in the results line (``judge_calls``: the reward, the model, a
  digest of the request, the reply, usage, retries), with the sample's judge usage and cost
  (``judge_usage``, ``judge_cost_usd``) kept apart from the agent's (``usage``,
  ``cost_usd``). A judge is priced like the agent (``resolve_pricing`` over its resolved
  endpoint, the config's ``prices:`` first).

A replayed run (``model: replay:<run>``) asks no live judge: each request is answered by the
recorded reply of the same reward, draw and request, and one the recording does not have
fails that reward loudly (``ReplayMismatchError``), as a replayed model does. Re-scoring a
run (``agentloop score``) reads the replies recorded in each line the same way. A reply read
from a recording is not billed again (``replayed``, cost 0).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel

from agentloop.engine import TokenUsage
from agentloop.errors import AgentloopError, JudgeError, ReplayMismatchError
from agentloop.harness.config._pricing import ModelPrice, Pricing, requests_cost, resolve_pricing

if TYPE_CHECKING:
    from agentloop.evals import Judge, JudgeSpec, RewardSpec
    from agentloop.models import ModelSource

__all__ = [
    "JudgeCall",
    "Judges",
    "SampleJudging",
    "recorded_calls",
    "request_digest",
]

OpenSource = Callable[["JudgeSpec"], Awaitable["ModelSource"]]
"""Opens a judge's model source for the rest of the run (``open_judges``)."""


class JudgeCall(BaseModel):
    """One request a reward made to its judge, as a results line's ``judge_calls`` holds it."""

    reward: str
    """The reward's key (``llm_judge``, ``llm_judge#2``)."""
    model: str
    """The judge's model spec."""
    draw: int = 0
    """Which independent sample of the request this is (0, 1, ...)."""
    request_sha256: str
    """SHA-256 of the request (model spec, ``judge_params`` and messages, canonical JSON):
    what a replay matches on."""
    reply: str | None = None
    """The judge's reply text; None when it failed (``error``)."""
    error: str | None = None
    """Why the request failed after its retries (``Type: message``)."""
    usage: TokenUsage | None = None
    """Token usage the judge reported (None: none reported, or it failed)."""
    retries: int = 0
    """Temporary errors retried before the request succeeded (or gave up)."""
    latency_s: float = 0.0
    """Wall time of the request, retries included."""
    cached: bool = False
    """Served from the response cache (``cache:``): no request made, nothing billed."""
    replayed: bool = False
    """Read from a recording (a replayed run, or ``agentloop score``): nothing billed."""
    cost_usd: float | None = 0.0
    """USD billed for the request; None when unknown (``cost_unknown``)."""
    cost_unknown: str | None = None
    """Why ``cost_usd`` is None."""


def request_digest(spec: JudgeSpec, messages: Sequence[Mapping[str, Any]]) -> str:
    """The SHA-256 of what a request asks: model spec, sampling params and messages."""
    text = json.dumps(
        {"model": spec.model, "params": dict(spec.params), "messages": list(messages)},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def recorded_calls(line: Mapping[str, Any]) -> list[JudgeCall]:
    """The judge calls a results line recorded (none in lines written before they were)."""
    return [JudgeCall.model_validate(c) for c in line.get("judge_calls") or []]


@dataclass
class _Opened:
    source: ModelSource
    pricing: Pricing


@dataclass
class _Recording:
    """The judge calls recorded for one (sample, epoch), handed out once each."""

    calls: list[JudgeCall]
    where: str
    """How a missing reply is explained (a replayed run, or ``agentloop score``)."""
    used: set[int] = field(default_factory=set)

    def take(self, reward: str, model: str, draw: int, digest: str, sample: str) -> JudgeCall:
        for index, call in enumerate(self.calls):
            if (
                index not in self.used
                and (call.reward, call.draw) == (reward, draw)
                and (call.request_sha256 == digest)
            ):
                self.used.add(index)
                return call
        same = sum(1 for c in self.calls if c.reward == reward)
        raise ReplayMismatchError(
            f"{self.where}: sample {sample}: reward {reward!r} asked its judge ({model}, draw "
            f"{draw}) a request the recording does not have ({same} recorded call(s) of this "
            "reward; none with this request)"
        )


class Judges:
    """A run's judges: each model source opened on first use (once), closed with the run.

    ``prices`` are the config's; ``open_source`` opens a source for the rest of the run
    (``open_judges`` in ``agentloop.harness.run._sources``); ``recordings`` ((id, epoch) ->
    recorded calls) make every judge answer from a recording instead (a replayed run).
    """

    def __init__(
        self,
        prices: Mapping[str, ModelPrice],
        open_source: OpenSource,
        recordings: Mapping[tuple[str, int], list[JudgeCall]] | None = None,
        replay_of: str | None = None,
    ) -> None:
        self.prices = dict(prices)
        self._open_source = open_source
        self._opened: dict[str, _Opened | BaseException] = {}
        self._lock = anyio.Lock()
        self.recordings = recordings
        self.replay_of = replay_of

    async def opened(self, spec: JudgeSpec) -> _Opened:
        """The open source of ``spec`` and its pricing; opened once (a failure to open is
        kept: every request to that judge fails with it, none tries again)."""
        key = spec.key()
        async with self._lock:
            if key not in self._opened:
                try:
                    source = await self._open_source(spec)
                except Exception as exc:
                    self._opened[key] = exc
                else:
                    pricing = resolve_pricing(spec.model, source.endpoint, self.prices)
                    self._opened[key] = _Opened(source, pricing)
        found = self._opened[key]
        if isinstance(found, BaseException):
            raise JudgeError(f"judge {spec.model} cannot be opened: {_describe(found)}")
        return found

    def for_sample(self, sample_id: str, epoch: int) -> SampleJudging:
        """The judging of one (sample, epoch): its rewards' judges and their calls."""
        recording = None
        if self.recordings is not None:
            where = f"replay of {self.replay_of}" if self.replay_of else "replay"
            recording = _Recording(list(self.recordings.get((sample_id, epoch), [])), where)
        return SampleJudging(self, sample_id, epoch, recording)

    @classmethod
    def replaying(cls, model: str | None) -> Judges | None:
        """For a replayed run (``model``, the agent's spec, is ``replay:<run>``): judges that
        answer from the recording's ``judge_calls``; None for any other run."""
        if model is None or not model.startswith("replay:"):
            return None
        path = model.partition(":")[2]
        from agentloop._records import RESULTS_FILE, latest_results

        file = Path(path)
        file = file / RESULTS_FILE if file.is_dir() else file
        recordings = {}
        if file.is_file():  # else the replayed model says so when it opens
            recordings = {
                (str(line["id"]), int(line["epoch"])): recorded_calls(line)
                for line in latest_results(file)
            }
        return cls({}, _no_live_judge, recordings, replay_of=path)


async def _no_live_judge(spec: JudgeSpec) -> ModelSource:
    raise AgentloopError("a replayed run asks no live judge")


def _describe(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


class SampleJudging:
    """One (sample, epoch)'s judges and every request they made, in request order."""

    def __init__(
        self, judges: Judges, sample_id: str, epoch: int, recording: _Recording | None = None
    ) -> None:
        self.judges = judges
        self.sample_id = sample_id
        self.epoch = epoch
        self.recording = recording
        self.calls: list[tuple[int, JudgeCall]] = []
        self._next = 0
        self._models: dict[str, Any] = {}

    @classmethod
    def from_recording(cls, line: Mapping[str, Any], where: str) -> SampleJudging:
        """Judging that answers from a results line's ``judge_calls`` (``agentloop score``);
        a request the line does not have fails with ``where`` in its message."""
        calls = recorded_calls(line)
        sample_id, epoch = str(line.get("id")), int(line.get("epoch") or 1)
        return cls(Judges({}, _no_live_judge), sample_id, epoch, _Recording(calls, where))

    def judge_for(self, spec: RewardSpec) -> Judge:
        """The judge of a reward whose config names a model."""
        from agentloop.evals import judge_spec

        described = judge_spec(spec.params)
        if described is None:  # the registry asks only for rewards that name one
            raise ValueError(f"reward {spec.key!r} names no judge model")
        return _RunJudge(self, spec.key, described)

    def model(self, opened: _Opened, spec: JudgeSpec) -> Any:
        """The judge's chat model for this sample, made once (a scripted judge's replies
        then follow one another across the sample's requests)."""
        key = spec.key()
        if key not in self._models:
            model = opened.source.for_sample(self.sample_id, self.epoch)
            if opened.source.cache is not None:
                model.cache = opened.source.cache  # LangChain looks replies up there
            self._models[key] = model
        return self._models[key]

    def ticket(self) -> int:
        """The order of a request, taken when it starts (concurrent draws end in any order)."""
        self._next += 1
        return self._next

    def record(self, ticket: int, call: JudgeCall) -> None:
        self.calls.append((ticket, call))

    def fields(self) -> dict[str, Any]:
        """The results line's judge fields: ``judge_calls`` (in request order),
        ``judge_usage`` (their tokens added up), ``judge_cost_usd`` and ``judge_cost_unknown``."""
        calls = [call for _, call in sorted(self.calls, key=lambda pair: pair[0])]
        usage = TokenUsage()
        cost, unknown = 0.0, None
        for call in calls:
            if call.usage is not None:
                usage = usage + call.usage
            if call.cost_usd is None:
                unknown = unknown or call.cost_unknown
            else:
                cost += call.cost_usd
        return {
            "judge_calls": [call.model_dump(mode="json") for call in calls],
            "judge_usage": usage.model_dump() if calls else {},
            "judge_cost_usd": None if unknown else round(cost, 10),
            "judge_cost_unknown": unknown,
        }


class _RunJudge:
    """The Judge one reward of one sample asks (``agentloop.evals.Judge``)."""

    def __init__(self, judging: SampleJudging, reward: str, spec: JudgeSpec) -> None:
        self.judging = judging
        self.reward = reward
        self.spec = spec
        self.model = spec.model

    async def ask(self, messages: Sequence[Mapping[str, Any]], *, draw: int = 0) -> str:
        judging, ticket = self.judging, self.judging.ticket()
        digest = request_digest(self.spec, messages)
        if judging.recording is not None:
            recorded = judging.recording.take(
                self.reward, self.model, draw, digest, repr(judging.sample_id)
            )
            update = {"replayed": True, "cached": False, "cost_usd": 0.0, "cost_unknown": None}
            judging.record(ticket, recorded.model_copy(update=update))
            if recorded.reply is None:  # the recorded request failed: it fails again
                raise JudgeError(f"judge {self.model}: {recorded.error or 'recorded error'}")
            return recorded.reply
        opened = await judging.judges.opened(self.spec)
        return await self._request(opened, list(messages), draw, digest, ticket)

    async def _request(
        self,
        opened: _Opened,
        messages: list[Mapping[str, Any]],
        draw: int,
        digest: str,
        ticket: int,
    ) -> str:
        from agentloop.engine import run_agent
        from agentloop.models._cache import cache_scope

        judging = self.judging
        model = judging.model(opened, self.spec)
        started = time.perf_counter()
        with cache_scope(judging.epoch, draw):
            trajectory = await run_agent(
                model,
                [],
                [dict(m) for m in messages],
                max_rounds=0,
                retry=opened.source.retry_policy,
            )
        step = trajectory.steps[-1] if trajectory.steps else None
        call = JudgeCall(
            reward=self.reward,
            model=self.model,
            draw=draw,
            request_sha256=digest,
            retries=step.retries if step else 0,
            latency_s=round(step.latency_s if step else time.perf_counter() - started, 6),
        )
        if trajectory.stop_reason == "error" or step is None:
            call.error = trajectory.error or "the judge made no reply"
            judging.record(ticket, call)
            raise JudgeError(f"judge {self.model}: {call.error}")
        call.reply = trajectory.final_answer or ""
        call.usage, call.cached = step.usage, step.cached
        call.cost_usd, call.cost_unknown = requests_cost([step], opened.pricing)
        judging.record(ticket, call)
        return call.reply
