"""The documentation's examples run as written: the README and every page of docs/pages/.

Python blocks run, JSON blocks parse (dataset rows validate as rows), YAML blocks parse
and validate as configs, every ``agentloop`` command line parses with the real CLI
parser, and the files of "Your first evaluation" are written out and run. Tests
elsewhere run the examples that need their package's fixtures (factories, rewards,
environments, the API example beside a user's own modules).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._parser import parse
from agentloop.harness import EvalConfig, load_config
from agentloop.harness.config._yaml import load_unique_yaml
from agentloop.harness.data._rows import parse_line
from tests.support.docs import PAGES, README, ROOT, Block, all_blocks, blocks_of, blocks_with

PYTHON_BLOCKS = all_blocks("python")
JSON_BLOCKS = all_blocks("json")
YAML_BLOCKS = all_blocks("yaml")
FIELDS = set(EvalConfig.model_fields)


def _ids(blocks: list[Block]) -> list[str]:
    return [b.where for b in blocks]


def test_the_docs_have_pages_and_examples() -> None:
    pages = {p.relative_to(PAGES).as_posix() for p in PAGES.rglob("*.md")}
    for page in ("index.md", "getting-started.md", "first-evaluation.md", "file-formats.md",
                 "benchmarks/index.md", "api/evals.md"):  # fmt: skip
        assert page in pages
    assert len(PYTHON_BLOCKS) >= 8 and len(JSON_BLOCKS) >= 6 and len(YAML_BLOCKS) >= 8


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=_ids(PYTHON_BLOCKS))
def test_every_python_block_runs(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentloop.models._base as base

    # from a project folder of a user's own, the repository's configs beside it; what a
    # block registers stays in the test
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(base, "_PROVIDERS", dict(base._PROVIDERS))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    exec(compile(block.text, block.where, "exec"), {"__name__": "__docs__"})


def test_loop_examples_say_what_their_comments_claim() -> None:
    blocks = blocks_with("run_agent_sync(model")
    assert {b.path.name for b in blocks} == {"README.md", "loop.md"}
    for block in blocks:
        namespace: dict[str, Any] = {}
        exec(compile(block.text, block.where, "exec"), namespace)
        trajectory = namespace["trajectory"]
        assert trajectory.stop_reason == "final", block.where
        assert trajectory.final_answer == "2 + 3 = 5", block.where
        assert [c.status for c in trajectory.tool_calls()] == ["ok"]


@pytest.mark.parametrize("path", [README, PAGES / "getting-started.md"], ids=lambda p: p.name)
def test_quickstart_holds_exactly_the_two_commands(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    quickstart = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", quickstart, re.S)
    assert block.split("\n")[:-1] == ["make demo", "make test"]


def test_the_readme_is_a_landing_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    # every page it points to exists
    for target in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / target).is_file(), target


def test_provider_example_registers_a_working_source(monkeypatch: Any) -> None:
    import anyio
    from langchain_openai import ChatOpenAI

    import agentloop.models._base as base
    from agentloop.models import open_model

    monkeypatch.setattr(base, "_PROVIDERS", dict(base._PROVIDERS))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    (block,) = blocks_with("register_provider(")
    exec(compile(block.text, block.where, "exec"), {})

    async def main() -> Any:
        async with open_model("mine:my-model", {"temperature": 0}) as source:
            return source.for_sample("s", 1), source.retry_policy, source.tool_executor("s", 1)

    model, policy, executor = anyio.run(main)
    assert isinstance(model, ChatOpenAI) and model.model_name == "my-model"
    assert (policy, executor) == (None, None)


def _json_values(block: Block) -> list[Any]:
    if (block.title or "").endswith(".jsonl"):
        return [json.loads(line) for line in block.text.splitlines() if line.strip()]
    return [json.loads(block.text)]


@pytest.mark.parametrize("block", JSON_BLOCKS, ids=_ids(JSON_BLOCKS))
def test_every_json_block_parses_and_rows_are_valid(block: Block) -> None:
    for value in _json_values(block):
        if isinstance(value, dict) and "messages" in value:
            parse_line(json.dumps(value), 1)  # raises saying what is wrong with the row


@pytest.mark.parametrize("block", YAML_BLOCKS, ids=_ids(YAML_BLOCKS))
def test_every_yaml_block_is_a_valid_config_or_part_of_one(
    block: Block, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = load_unique_yaml(block.text, block.where)
    assert isinstance(raw, dict) and set(raw) <= FIELDS, (block.where, set(raw) - FIELDS)
    # a part of a config is checked as a whole one with the rest filled in
    whole = {"model": "scripted:configs/scripts/quickstart.json",
             "dataset": "configs/data/quickstart.jsonl", **raw}  # fmt: skip
    EvalConfig.model_validate(whole)


@pytest.mark.parametrize("name", ["quickstart", "bank"])
def test_whole_configs_in_the_docs_load_as_the_cli_loads_them(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The shipped config as the docs show it, in a folder like configs/: its paths are
    # relative to that folder, whatever the working directory.
    (block,) = [b for b in YAML_BLOCKS if f"dataset: data/{name}.jsonl" in b.text]
    folder = tmp_path / "configs"
    folder.mkdir()
    for part in ("data", "scripts"):
        (folder / part).symlink_to(ROOT / "configs" / part)
    (folder / "config.yaml").write_text(block.text, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "..")
    config = load_config(folder / "config.yaml")
    assert Path(config.dataset).resolve() == ROOT / "configs" / "data" / f"{name}.jsonl"
    if name == "bank":
        assert config.model == f"scripted:{folder / 'scripts' / 'bank.json'}"


def _command_lines() -> list[tuple[str, str]]:
    """Every ``agentloop ...`` command of a console, sh or bash block: (where, line)."""
    found = []
    for block in all_blocks():
        if block.lang not in ("console", "sh", "bash"):
            continue
        text = block.text.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.removeprefix("$ ").split("  #", 1)[0].strip()
            words = shlex.split(line, comments=True) if line else []
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words = words[1:]  # VAR=value before the command
            if words[:1] == ["agentloop"]:
                found.append((block.where, " ".join(words[1:])))
    return found


COMMANDS = _command_lines()


@pytest.mark.parametrize(("where", "line"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_every_command_line_in_the_docs_parses(where: str, line: str) -> None:
    parse(shlex.split(line))


def test_first_evaluation_runs_as_the_page_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentloop.cli import main

    page = PAGES / "first-evaluation.md"
    files = [b for b in blocks_of(page) if b.title]
    assert {b.title for b in files} == {"mytools.py", "units.jsonl", "units.yaml", "script.json"}
    for block in files:
        (tmp_path / block.title).write_text(block.text, encoding="utf-8")  # type: ignore[operator]
    assert "$ agentloop run units.yaml --model scripted:script.json" in page.read_text()
    monkeypatch.chdir(tmp_path)
    assert main(["run", "units.yaml", "--model", "scripted:script.json"]) == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    results = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    lines = {r["id"]: r for r in map(json.loads, results)}
    scores = {i: {k: v["score"] for k, v in r["scores"].items()} for i, r in lines.items()}
    # what the page says: both rewards score 2 of the 3 samples; mi-to-km is the failure
    assert scores["km-to-mi"] == scores["f-to-c"] == {"tool_call_match": 1.0, "answer_match": 1.0}
    assert scores["mi-to-km"] == {"tool_call_match": 0.0, "answer_match": 0.0}
    assert lines["mi-to-km"]["trajectory"]["messages"][2]["content"] == "3.11"
    # one call passes the argument that has a default, one leaves it out: both match
    calls = {i: r["trajectory"]["messages"][1]["tool_calls"][0] for i, r in lines.items()}
    assert '"digits": 2' in calls["km-to-mi"]["function"]["arguments"]
    assert "digits" not in calls["f-to-c"]["function"]["arguments"]
    assert main(["show", str(run_dir), "mi-to-km"]) == 0


def test_serving_the_local_model_yourself_sets_what_local_sets(monkeypatch: Any) -> None:
    import anyio
    import yaml

    from agentloop.models import open_model
    from agentloop.models._local import LOCAL_DEFAULTS

    (block,) = blocks_with("python -m agentloop.models._local_chat", "console")
    options = {
        k: yaml.safe_load(v) for k, v in re.findall(r"model_options\.(\w+)=(\S+)", block.text)
    }
    assert len(options) >= 5
    assert options == {k: LOCAL_DEFAULTS[k] for k in options}
    for flag in ("--model_alias gemma-3-270m", "--chat_format " + LOCAL_DEFAULTS["chat_format"]):
        assert flag in block.text
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")

    async def main() -> None:
        async with open_model("openai:gemma-3-270m", {}, options):  # every option accepted
            pass

    anyio.run(main)
