"""Configs: one error line per problem, naming the file and the field; overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentloop.cli._commands import main
from agentloop.errors import ConfigError
from agentloop.harness import EvalConfig, load_config
from agentloop.harness.config._loading import apply_overrides, validate_config
from tests.support.harness import ROOT, add_setup, only_run_dir, read_results, write_config

BASE: dict[str, Any] = {"model": "scripted:x.json", "dataset": "d.jsonl"}


def errors_of(tmp_path: Path, sets: tuple[str, ...] = (), **fields: Any) -> list[str]:
    path = write_config(tmp_path / "x.yaml", **{**BASE, **fields})
    with pytest.raises(ConfigError) as info:
        load_config(path, sets)
    return [line.removeprefix(f"{path}: ") for line in str(info.value).splitlines()]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"max_rounds": -1}, "max_rounds: Input should be greater than or equal to 0"),
        ({"concurrency": 0}, "concurrency: Input should be greater than or equal to 1"),
        (
            {"epochs": "two"},
            "epochs: Input should be a valid integer, unable to parse string as an integer",
        ),
        ({"limit": 0}, "limit: Input should be greater than or equal to 1"),
        ({"tool_timeout": 0}, "tool_timeout: Input should be greater than 0"),
        ({"mode": "grade"}, "mode: Input should be 'generate' or 'score'"),
        ({"datset": "x"}, "datset: Extra inputs are not permitted (did you mean 'dataset'?)"),
        ({"tools": "agentloop.tools.search:search"}, "tools: Input should be a valid list"),
        ({"model_params": [1]}, "model_params: Input should be a valid dictionary"),
        ({"fail_on_error": 1.5}, "fail_on_error: a fraction must be between 0 and 1"),
        ({"fail_on_error": -2}, "fail_on_error: a count must be >= 0"),
        ({"cluster_by": " passage"}, "cluster_by: a metadata key, without surrounding spaces"),
        ({"cluster_by": ""}, "cluster_by: a metadata key, without surrounding spaces"),
        ({"cluster_by": ["passage"]}, "cluster_by: Input should be a valid string"),
        ({"rewards": ["no_such_reward"]}, "rewards: unknown reward 'no_such_reward'; known: "),
        (
            {"rewards": [{"tool_call_match": {"order": "sideways"}}]},
            "rewards: reward 'tool_call_match': unknown order mode 'sideways'",
        ),
        (
            {"rewards": [{"qa_f1_reward": {"bogus": 1}}]},
            "rewards: reward 'qa_f1_reward': unknown parameter(s) ['bogus']",
        ),
        (
            {"rewards": ["qa_f1_reward"], "pass_threshold": {"exact_tool_match_reward": 1}},
            "pass_threshold: exact_tool_match_reward is not a configured reward",
        ),
        (
            {"rewards": ["qa_f1_reward"], "pass_threshold": {"qa_f1_reward": 2}},
            "pass_threshold: thresholds must be between 0 and 1 (qa_f1_reward)",
        ),
        ({"model": "nosuch:thing"}, "model: unknown model spec prefix 'nosuch'"),
        ({"model": "scripted"}, "model: bad model spec 'scripted'"),
        ({"model": None}, "model: a model spec is required in generate mode"),
    ],
)
def test_field_errors(tmp_path: Path, fields: dict[str, Any], expected: str) -> None:
    lines = errors_of(tmp_path, **fields)
    assert len(lines) == 1 and lines[0].startswith(expected), lines


def test_every_problem_gets_its_own_line(tmp_path: Path) -> None:
    lines = errors_of(tmp_path, max_rounds=-1, concurrency=0, dataset=None)
    assert sorted(lines) == sorted(
        [
            "max_rounds: Input should be greater than or equal to 0",
            "concurrency: Input should be greater than or equal to 1",
            "dataset: Input should be a valid string",
        ]
    )


def test_missing_required_field(tmp_path: Path) -> None:
    path = write_config(tmp_path / "x.yaml", model="scripted:x.json")
    with pytest.raises(ConfigError, match=r"x.yaml: dataset: Field required$"):
        load_config(path)


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^config file not found: .*nope.yaml$"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: [unclosed\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: invalid YAML: .* at line \d+$"):
        load_config(bad)
    listy = tmp_path / "list.yaml"
    listy.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match=r"list\.yaml: a config must be a mapping"):
        load_config(listy)


def test_overrides_are_validated_like_the_file(tmp_path: Path) -> None:
    path = write_config(tmp_path / "x.yaml", **BASE)
    config = load_config(
        path,
        [
            "model_params.temperature=0",
            "max_rounds=2",
            "tool_choice=auto",
            "model_options.latency=0.5",
            "fail_on_error=0.25",
        ],
        {"limit": 3, "model": "scripted:y.json"},
    )
    assert config.model_params == {"temperature": 0}
    assert (config.max_rounds, config.tool_choice, config.limit, config.model) == (
        2,
        "auto",
        3,
        "scripted:y.json",
    )
    assert config.model_options == {"latency": 0.5}
    assert config.fail_on_error == 0.25
    lines = errors_of(tmp_path, sets=("max_rounds=-3",))  # blamed on the --set, not the file
    assert lines == ["--set max_rounds=-3: Input should be greater than or equal to 0"]


def test_each_error_names_the_source_of_its_value(tmp_path: Path) -> None:
    # The file, the --set KEY=VALUE or the flag that set the field (it used to be the file
    # for all of them).
    path = write_config(tmp_path / "x.yaml", **BASE, concurrency=0)
    sets = ["max_rounds=-1", "model_params={temperature: 1}", "user.max_turns=0"]
    with pytest.raises(ConfigError) as info:
        load_config(path, sets, {"epochs": 0})
    assert sorted(str(info.value).splitlines()) == [
        "--epochs: Input should be greater than or equal to 1",
        "--set max_rounds=-1: Input should be greater than or equal to 0",
        "--set user.max_turns=0: Input should be greater than or equal to 1",
        f"{path}: concurrency: Input should be greater than or equal to 1",
        f"{path}: user.model: Field required",  # the file has no user: it lacks the model
    ]

    def error(sets: list[str], flags: dict[str, Any] | None = None) -> str:
        with pytest.raises(ConfigError) as info:
            load_config(path, ["concurrency=2", *sets], flags)
        return str(info.value)

    # a field under a mapping a --set gave; a later --set of the mapping replaces it
    assert error(["model_params={temperature: 1}", "model_params.reasoning=x"]) == (
        "--set model_params.reasoning=x: set it as the top-level reasoning: setting"
    )
    assert error(["model_params.reasoning=x", "model_params={reasoning: x}"]) == (
        "--set model_params={reasoning: x}: model_params.reasoning: set it as the top-level "
        "reasoning: setting"
    )
    assert error([], {"seed": 3}) == "--seed: only used with shuffle: true"
    assert error([], {"model": "nope"}).startswith("--model: bad model spec 'nope'")
    assert error(["model=nope"]).startswith("--set model=nope: bad model spec 'nope'")
    assert error(["seed=3"], {"sample_ids": ["a"]}) == "--set seed=3: only used with shuffle: true"
    # a value that may hold a secret is not shown
    assert error(["model_options=[api_key: sk-not-shown]"]) == (
        "--set model_options=***: Input should be a valid dictionary"
    )


def test_the_files_a_config_reads_are_relative_to_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "evals"
    (folder / "data").mkdir(parents=True)
    for name in ("data/d.jsonl", "script.json", "prompt.md", "user.md", "user.json"):
        (folder / name).write_text("x")
    fields = {
        "model": "scripted:script.json",
        "dataset": "data/d.jsonl",
        "system_prompt": "@prompt.md",
        "user": {"model": "scripted:user.json", "instructions": "@user.md"},
        "tools": ["./mine.py:x", "mine.tools:y"],  # a file beside it; a module path
        "output_dir": "runs",  # where the run writes: the working directory
    }
    path = write_config(folder / "eval.yaml", **fields)
    monkeypatch.chdir(tmp_path)
    config = load_config(Path("evals/eval.yaml"))
    assert (config.model, config.dataset, config.system_prompt) == (
        "scripted:evals/script.json",
        "evals/data/d.jsonl",
        "@evals/prompt.md",
    )
    assert config.user is not None
    assert (config.user.model, config.user.instructions) == (
        "scripted:evals/user.json",
        "@evals/user.md",
    )
    assert (config.tools, config.output_dir) == (["evals/mine.py:x", "mine.tools:y"], "runs")
    # from any working directory, and from an absolute config path
    monkeypatch.chdir(folder / "data")
    assert load_config(path).dataset == str(folder / "data" / "d.jsonl")
    assert Path(load_config(Path("../eval.yaml")).dataset).resolve() == folder / "data" / "d.jsonl"
    # command-line values are relative to the working directory, as written
    overridden = load_config(path, ["dataset=mine.jsonl"], {"model": "scripted:s.json"})
    assert (overridden.dataset, overridden.model) == ("mine.jsonl", "scripted:s.json")
    # absolute paths and benchmark sources stay as written; a missing file is looked for
    # beside the config, and the error names that place
    for dataset in (str(tmp_path / "d.jsonl"), "bfcl:simple_python", "tau2:mock"):
        write_config(path, **{**fields, "dataset": dataset})
        assert load_config(path).dataset == dataset
    write_config(path, **{**fields, "dataset": "nope.jsonl"})
    assert load_config(path).dataset == str(folder / "nope.jsonl")


REWARDS_PY = """
def exact(final_answer: str, answer: str) -> float:
    return float(final_answer.strip() == answer)
"""


def test_tools_rewards_and_environment_files_are_relative_to_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "evals"
    folder.mkdir()
    add_setup(folder, n=2)
    (folder / "my_rewards.py").write_text(REWARDS_PY)
    path = write_config(
        folder / "eval.yaml", model="scripted:script.json", dataset="data.jsonl",
        tools=["./mytools.py:add"], rewards=["qa_f1_reward", "./my_rewards.py:exact"],
        pass_threshold={"./my_rewards.py:exact": 1.0}, output_dir=str(tmp_path / "runs"),
    )  # fmt: skip
    monkeypatch.chdir(tmp_path)  # the config's folder is not the working directory
    assert main(["run", "evals/eval.yaml"]) == 0
    lines = read_results(only_run_dir(tmp_path / "runs"))
    assert [line["scores"]["evals/my_rewards.py:exact"]["score"] for line in lines] == [1.0, 1.0]
    assert all(line["passed"]["evals/my_rewards.py:exact"] for line in lines)
    # environment factories and tool classes and factories too; module paths as written
    write_config(
        path, model="scripted:script.json", dataset="data.jsonl",
        tools=[{"factory": "./mytools.py:make"}, {"path": "tools/t.py:T"}, "pkg.mod:f"],
        environment={"factory": "./env.py:make", "args": {"a": 1}},
    )  # fmt: skip
    loaded = load_config(Path("evals/eval.yaml"))
    assert loaded.tools == [{"factory": "evals/mytools.py:make"}, {"path": "evals/tools/t.py:T"},
                            "pkg.mod:f"]  # fmt: skip
    assert loaded.environment == {"factory": "evals/env.py:make", "args": {"a": 1}}
    # a file found nowhere: the error names the path tried, beside the config
    capsys.readouterr()
    write_config(path, model="scripted:script.json", dataset="data.jsonl",
                 tools=["./mytoolz.py:add"])  # fmt: skip
    assert main(["run", "evals/eval.yaml"]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: tool file not found: evals/mytoolz.py "
        f"(looked for {folder / 'mytoolz.py'})\n"
    )


def test_a_path_from_the_working_directory_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A config written when its paths were relative to the working directory: a file the
    # config's folder does not have, but the working directory does, is kept.
    (tmp_path / "configs" / "data").mkdir(parents=True)
    (tmp_path / "configs" / "data" / "d.jsonl").write_text("x")
    path = write_config(
        tmp_path / "configs" / "eval.yaml", **{**BASE, "dataset": "configs/data/d.jsonl"}
    )
    monkeypatch.chdir(tmp_path)
    assert load_config(path).dataset == "configs/data/d.jsonl"


def test_override_syntax_errors() -> None:
    with pytest.raises(ConfigError, match=r"^--set 'max_rounds': expected key=value"):
        apply_overrides({}, ["max_rounds"])
    with pytest.raises(
        ConfigError, match=r"^--set model_params.x: 'model_params' is not a mapping"
    ):
        apply_overrides({"model_params": 3}, ["model_params.x=1"])
    with pytest.raises(ConfigError, match=r"^--set x: value is not valid YAML"):
        apply_overrides({}, ["x=[1"])


def test_fail_on_error_keeps_its_type() -> None:
    for value in (False, True, 0, 3, 0.5):
        config = validate_config({**BASE, "fail_on_error": value})
        assert config.fail_on_error == value and type(config.fail_on_error) is type(value)


def test_score_mode_needs_no_model() -> None:
    assert validate_config({"dataset": "d.jsonl", "mode": "score"}).model is None


def test_run_name() -> None:
    config = EvalConfig(model="scripted:x", dataset="d")
    assert config.run_name("configs/search_qa.yaml") == "search_qa"
    assert config.run_name(None) == "run"
    assert EvalConfig(model="scripted:x", dataset="d", name="mine").run_name("a.yaml") == "mine"


@pytest.mark.parametrize("name", ["quickstart", "search_qa", "tool_calls"])
def test_shipped_configs_validate(name: str) -> None:
    config = load_config(
        ROOT / "configs" / f"{name}.yaml",
        overrides={"model": f"scripted:configs/scripts/{name}.json"},
    )
    assert config.rewards


def test_a_misspelt_tool_choice_gets_a_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path, n=1, tool_choice="requred")
    assert main(["run", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"agentloop: error: {config}: tool_choice: 'requred' is not auto, required, none, any "
        "nor a tool a row binds (tools: add; did you mean 'required'?)\n"
    )
    assert main(["run", str(config), "--set", "tool_choice=ad"]) == 2  # a tool's name
    assert capsys.readouterr().err == (
        "agentloop: error: --set tool_choice=ad: no row binds a tool named 'ad' "
        "(tools: add; did you mean 'add'?)\n"
    )
