"""``agentloop show RUN_DIR SAMPLE_ID``: one sample in the terminal, as the HTML report's
sample view shows it (conversation, tool calls and outcomes, scores, expected answer).

Everything from the run is data: put on screen as ``rich.text.Text`` (never parsed as
markup) and masked with ``Scrubber``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from agentloop._secrets import Scrubber
from agentloop.cli._display import usd
from agentloop.cli._view_data import FAILED_CALLS, find_result, sample_detail

__all__ = ["print_sample", "sample_renderables"]

_FOLD_CHARS = 600
_FOLD_LINES = 12
_ROLE_STYLES = {"user": "blue", "assistant": "white", "tool": "bright_black", "system": "magenta"}


def _pretty(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)


def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _folded(text: str) -> Text:
    """Long text cut to its first lines, saying how much is left out."""
    lines = text.split("\n")
    if len(text) <= _FOLD_CHARS and len(lines) <= _FOLD_LINES:
        return Text(text)
    head = "\n".join(lines[:_FOLD_LINES])[:_FOLD_CHARS]
    return Text(head) + Text(
        f"\n… ({len(text) - len(head)} more characters; all of it in results.jsonl)", style="dim"
    )


def _status(status: str | None) -> Text:
    if not status:
        return Text("")
    style = "green" if status == "ok" else "red" if status in FAILED_CALLS else "yellow"
    return Text(status, style=f"bold {style}")


def _tool_call(call: Mapping[str, Any]) -> RenderableType:
    head = Text.assemble(
        (str(call.get("name")), "bold"),
        " ",
        _status(call.get("status")),
        f"  {call['duration_s']:.3f} s" if call.get("duration_s") else "",
        (f"  {call.get('id') or ''}", "dim"),
    )
    parts: list[RenderableType] = [head, Text(_pretty(call.get("arguments")))]
    if call.get("error"):
        parts.append(Text(str(call["error"]), style="red"))
    failed = call.get("status") in FAILED_CALLS
    return Panel(Group(*parts), border_style="red" if failed else "bright_black", expand=False)


def _message(message: Mapping[str, Any]) -> RenderableType:
    role = str(message.get("role"))
    parts: list[RenderableType] = []
    for part in message.get("reasoning") or []:  # a reasoning model's thinking, dimmed
        kind = str(part.get("kind")).replace("_", " ")
        line = Text.assemble((f"{kind}: ", "bold"), _folded(str(part.get("text"))))
        line.stylize("dim italic")
        parts.append(line)
    content = message.get("content")
    text = content if isinstance(content, str) else _pretty(content) if content else ""
    if text:
        parts.append(_folded(text))
    parts.extend(_tool_call(call) for call in message.get("tool_calls") or [])
    title = Text(str(message.get("who") or role))
    failed = role == "tool" and message.get("status") in FAILED_CALLS
    if role == "tool":
        title = Text.assemble(
            f"tool result · {message.get('name') or ''} ", _status(message.get("status"))
        )
    style = "red" if failed else _ROLE_STYLES.get(role, "white")
    return Panel(
        Group(*parts) if parts else Text("(no text)", style="dim"),
        title=title,
        title_align="left",
        border_style=style,
    )


def _diagnostics(details: Any) -> list[RenderableType]:
    """Scalars on one line; lists of records (which call matched which) as tables."""
    if not isinstance(details, dict):
        return [Text(_pretty(details))] if details is not None else []
    scalars = []
    out: list[RenderableType] = []
    for key, value in details.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            table = Table(title=Text(key), title_justify="left", show_lines=False)
            keys = list(dict.fromkeys(k for item in value for k in item))
            for column in keys:
                table.add_column(Text(column))
            for item in value:
                style = "red" if item.get("matched") is False else None
                table.add_row(*(Text(_compact(item.get(k, ""))) for k in keys), style=style)
            out.append(table)
        elif isinstance(value, (dict, list)) and value:
            out.append(Text(f"{key}: {json.dumps(value, ensure_ascii=False)}"))
        else:
            scalars.append(f"{key}={value}")
    if scalars:
        out.insert(0, Text(", ".join(scalars), style="dim"))
    return out


def _scores(detail: Mapping[str, Any]) -> list[RenderableType]:
    out: list[RenderableType] = [Rule("Scores", align="left")]
    if not detail.get("scores"):
        out.append(Text("no scores (errored results are not scored)", style="dim"))
    for key, result in (detail.get("scores") or {}).items():
        verdict = {True: ("pass", "bold green"), False: ("fail", "bold red")}.get(
            result.get("passed"), ("", "")
        )
        out.append(Text.assemble((key, "bold"), f"  {result.get('score')}  ", verdict))
        if result.get("reason"):
            out.append(Text(str(result["reason"])))
        out.extend(_diagnostics(result.get("details")))
    return out


def _arguments_parsed(holder: dict[str, Any]) -> dict[str, Any]:
    """``holder`` with its ``arguments`` parsed when they are a JSON text."""
    if isinstance(holder.get("arguments"), str):
        with contextlib.suppress(ValueError):
            return {**holder, "arguments": json.loads(holder["arguments"])}
    return holder


def _expected(detail: Mapping[str, Any]) -> list[RenderableType]:
    answer = detail.get("answer")
    truth = detail.get("ground_truth")
    calls = (truth or {}).get("tool_calls") if isinstance(truth, dict) else None
    if isinstance(truth, dict) and isinstance(calls, list):  # arguments: shown parsed
        shown = []
        for call in calls:  # OpenAI's form or the short one ({name, arguments}), as written
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                call = {**call, "function": _arguments_parsed(call["function"])}
            elif isinstance(call, dict):
                call = _arguments_parsed(call)
            shown.append(call)
        truth = {**truth, "tool_calls": shown}
    return [
        Rule("Expected", align="left"),
        Text.assemble(("answer: ", "bold"), _pretty(answer) if answer is not None else "-"),
        Text("ground truth:", style="bold"),
        Text(_pretty(truth) if truth else "-"),
    ]


def sample_renderables(detail: Mapping[str, Any]) -> list[RenderableType]:
    """The sample view of one result (``sample_detail``) as rich renderables."""
    usage = detail.get("usage") or {}
    calls = ", ".join(f"{k}: {v}" for k, v in (detail.get("tool_calls_by_status") or {}).items())
    out: list[RenderableType] = [
        Rule(Text(f"{detail['id']} (epoch {detail.get('epoch')})"), align="left"),
        Text.assemble(
            "status ",
            _status(detail.get("status")),
            f"   stop {detail.get('stop_reason')}"
            + (f" ({detail['stop_signal']})" if detail.get("stop_signal") else "")
            + f"   rounds {detail.get('rounds')}"
            f"   tool calls {calls or '-'}   tokens in {usage.get('input_tokens', 0)}"
            f" out {usage.get('output_tokens', 0)}   cost {usd(detail.get('cost_usd'))}"
            f"   latency {detail.get('wall_time_s')} s",
        ),
    ]
    if detail.get("status") == "error":
        out.append(
            Panel(
                Text(str(detail.get("error"))),
                title=f"{detail.get('error_kind')} error",
                border_style="red",
            )
        )
    out.extend(_message(message) for message in detail.get("messages") or [])
    if detail.get("user_messages"):
        out.append(Rule("the simulated user's side", align="left"))
        out.extend(_message(message) for message in detail["user_messages"])
    answer = detail.get("final_answer")
    if answer is not None and answer.strip():
        out.append(Panel(Text(answer), title="final answer", title_align="left"))
    elif answer is not None:  # no answer: said so, never drawn like one
        said = "(only white space)" if answer else "(the last reply has no text)"
        out.append(
            Panel(
                Text(said, style="italic"),
                title="final answer: empty",
                title_align="left",
                border_style="yellow",
            )
        )
    return out + _scores(detail) + _expected(detail)


def print_sample(run_dir: Path, sample_id: str, epoch: int | None, console: Console) -> None:
    """Print one sample's latest result (its first epoch unless ``epoch`` is given);
    ``run_dir`` may be a results file in a run directory (a re-scored one)."""
    detail = Scrubber().obj(sample_detail(find_result(run_dir, sample_id, epoch)))
    for renderable in sample_renderables(detail):
        console.print(renderable)
