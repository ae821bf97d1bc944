"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_loop_example_runs_and_says_what_the_comments_claim() -> None:
    block = next(b for b in _python_blocks() if "run_agent_sync(model" in b)
    namespace: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    trajectory = namespace["trajectory"]
    assert trajectory.stop_reason == "final"  # type: ignore[attr-defined]
    assert trajectory.final_answer == "2 + 3 = 5"  # type: ignore[attr-defined]


def test_quickstart_holds_exactly_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    quickstart = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", quickstart, re.S)
    assert block.split("\n")[:-1] == ["make demo", "make test"]


def test_provider_example_registers_a_working_source(monkeypatch: Any) -> None:
    import anyio
    from langchain_openai import ChatOpenAI

    import agentloop.models._base as base
    from agentloop.models import open_model

    monkeypatch.setattr(base, "_PROVIDERS", dict(base._PROVIDERS))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    block = next(b for b in _python_blocks() if "register_provider(" in b)
    exec(compile(block, "README.md", "exec"), {})

    async def main() -> Any:
        async with open_model("mine:my-model", {"temperature": 0}) as source:
            return source.for_sample("s", 1), source.retry_policy, source.tool_executor("s", 1)

    model, policy, executor = anyio.run(main)
    assert isinstance(model, ChatOpenAI) and model.model_name == "my-model"
    assert (policy, executor) == (None, None)
