"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

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
