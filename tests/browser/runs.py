"""Small real runs (scripted model, real tools and rewards) for the report tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentloop.harness import load_config, run_eval_sync
from tests.support.harness import ask, call, tools_file, write_config, write_json, write_jsonl

INJECTED = "</script><script>alert(1)</script><img src=x onerror=alert(2)><b>bold?</b>"
LONG_TEXT = "\n".join(f"line {n}: the quick brown fox" for n in range(200))


def _truth(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [call(f"g{n}", name, args) for n, (name, args) in enumerate(calls)]}


def rows(long_file: Path) -> list[dict[str, Any]]:
    """Ten rows; their metadata: ``category`` (arithmetic or text: broken down), ``source``
    (one per row: not broken down)."""

    def row(sid: str, question: str, answer: str, *truth: tuple[str, dict[str, Any]]) -> Any:
        category = "text" if sid in ("inject", "long-result") else "arithmetic"
        return {"id": sid, "messages": [{"role": "user", "content": question}],
                "answer": answer, "ground_truth": _truth(*truth),
                "metadata": {"category": category, "source": f"src-{sid}"}}  # fmt: skip

    return [
        *(
            row(f"add-{i}", f"What is {i} + 1?", str(i + 1), ("add", {"a": i, "b": 1}))
            for i in range(4)
        ),
        row("wrong-args", "What is 7 + 1?", "8", ("add", {"a": 7, "b": 1})),
        row("unknown-tool", "What is 2 + 2?", "4", ("add", {"a": 2, "b": 2})),
        row("inject", "Say hello.", "hello"),
        row(
            "long-result", "What does the file say?", "fox", ("read_text", {"path": str(long_file)})
        ),
        row("no-replies", "What is 9 + 1?", "10", ("add", {"a": 9, "b": 1})),
        row("empty-answer", "What is 5 + 1?", "6", ("add", {"a": 5, "b": 1})),
    ]


def script(long_file: Path, *, improved: bool) -> dict[str, list[Any]]:
    """Replies for ``rows``; ``improved`` fixes wrong-args and breaks add-1 (for run B)."""
    replies: dict[str, list[Any]] = {
        f"add-{i}": [ask(call(f"c{i}", "add", {"a": i, "b": 1})), str(i + 1)] for i in range(4)
    }
    replies["wrong-args"] = [ask(call("w", "add", {"a": 7, "b": 2})), "9"]
    if improved:
        replies["wrong-args"] = [ask(call("w", "add", {"a": 7, "b": 1})), "8"]
        replies["add-1"] = [ask(call("c1", "add", {"a": 1, "b": 5})), "6"]
    replies["unknown-tool"] = [ask(call("u", "multiply", {"x": 2})), "4"]
    replies["inject"] = [INJECTED]
    replies["long-result"] = [ask(call("r", "read_text", {"path": str(long_file)})), "fox"]
    replies["no-replies"] = []  # the scripted model fails loudly: an errored result
    replies["empty-answer"] = [ask(call("e", "add", {"a": 5, "b": 1})), ""]
    return replies


def make_run(
    tmp: Path, name: str = "report-demo", *, improved: bool = False, **config: Any
) -> Path:
    """Run the rows above (``config``: more config fields) and return the run directory."""
    tmp.mkdir(parents=True, exist_ok=True)
    long_file = tmp / "long.txt"
    long_file.write_text(LONG_TEXT)
    data = write_jsonl(tmp / "data.jsonl", rows(long_file))
    model = write_json(tmp / f"{name}.json", script(long_file, improved=improved))
    tools = tools_file(tmp)
    config = write_config(
        tmp / f"{name}.yaml",
        name=name,
        model=f"scripted:{model}",
        tools=[f"{tools}:add", f"{tools}:read_text"],
        dataset=str(data),
        rewards=["qa_f1_reward", {"tool_call_match": {"order": "unordered"}}],
        pass_threshold={"qa_f1_reward": 1.0},
        output_dir=str(tmp / "runs"),
        preflight=False,
        **config,
    )
    outcome = run_eval_sync(load_config(config), config_path=str(config))
    return outcome.run_dir
