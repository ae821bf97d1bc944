"""The executor seam without a cluster: config and flags, laziness, what workers get."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from agentloop.cli._commands import main
from agentloop.errors import AgentloopError, ConfigError
from agentloop.harness import EvalConfig, load_config
from agentloop.harness.run._executor import _ray_loopback_defaults, open_executor
from agentloop.harness.run._sample import prepare
from tests.support.harness import ROOT, add_setup


def test_executor_defaults_to_local_and_unknown_names_raise(tmp_path: Path) -> None:
    config = add_setup(tmp_path)
    assert load_config(config).executor == "local"
    with pytest.raises(ConfigError) as raised:
        load_config(config, ["executor=dask"])
    assert str(raised.value).count("\n") == 0
    assert "executor" in str(raised.value) and "'ray'" in str(raised.value)


@pytest.mark.parametrize(
    ("setting", "field"),
    [("ray_address=127.0.0.1:6379", "ray_address"), ("ray_workers=2", "ray_workers"),
     ("ray_env=[OPENAI_API_KEY]", "ray_env")],
)  # fmt: skip
def test_ray_fields_need_executor_ray(tmp_path: Path, setting: str, field: str) -> None:
    config = add_setup(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_config(config, [setting])
    assert str(caught.value) == f"--set {setting}: only used with executor: ray"
    assert load_config(config, [setting, "executor=ray"]).executor == "ray"


def test_cli_flags_set_the_executor_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = add_setup(tmp_path)
    assert main(["run", str(config), "--executor", "dask"]) == 2
    err = capsys.readouterr().err
    assert "--executor" in err and len(err.strip().splitlines()) == 1
    assert main(["run", str(config), "--ray-address", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err == "agentloop: error: --ray-address: only used with executor: ray\n"
    assert main(["run", str(config), "--executor", "ray", "--ray-workers", "0"]) == 2
    assert "--ray-workers" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_an_unvalidated_unknown_executor_raises(tmp_path: Path) -> None:
    config = load_config(add_setup(tmp_path))
    bad = EvalConfig.model_construct(**{**dict(config), "executor": "dask"})

    async def open_it() -> None:
        async with open_executor(prepare(bad)):
            pass

    with pytest.raises(AgentloopError, match="unknown executor 'dask'"):
        anyio.run(open_it)


def test_a_local_run_does_not_import_ray(tmp_path: Path) -> None:
    config = add_setup(tmp_path, n=2)
    code = (
        "import sys\n"
        "from agentloop import run_eval_sync\n"
        "from agentloop.harness import load_config\n"
        f"outcome = run_eval_sync(load_config({str(config)!r}))\n"
        "assert outcome.summary.results == 2\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("address", "loopback"),
    [(None, True), ("127.0.0.1:6379", True), ("localhost:6379", True),
     ("ray://127.0.0.1:10001", True), ("[::1]:6379", True), ("10.0.0.5:6379", False),
     ("head.cluster.internal:6379", False)],
)  # fmt: skip
def test_only_a_loopback_ray_is_kept_on_loopback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, address: str | None, loopback: bool
) -> None:
    monkeypatch.delenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", raising=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv("RAY_USAGE_STATS_ENABLED", raising=False)
    fields = {"executor": "ray", "ray_address": address}
    _ray_loopback_defaults(load_config(add_setup(tmp_path), overrides=fields))
    assert ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" in os.environ) is loopback
    assert ("RAY_USAGE_STATS_ENABLED" in os.environ) is (address is None)


def test_workers_get_the_working_dir_and_named_variables_only(tmp_path: Path) -> None:
    from agentloop.harness.run._ray import _runtime_env

    config = load_config(
        add_setup(tmp_path),
        ["executor=ray", "ray_env=[MY_TOKEN]", "output_dir=out/runs"],
    )
    environ = {"MY_TOKEN": "abcdef123", "OTHER_SECRET": "zzzzzzzz"}
    env = _runtime_env(config, environ)
    assert env["working_dir"] == os.getcwd()
    assert env["env_vars"] == {"MY_TOKEN": "abcdef123"}
    assert "/out/runs" in env["excludes"] and ".venv*" in env["excludes"]
    keyed = config.model_copy(update={"model_options": {"api_key_env": "OTHER_SECRET"}})
    assert _runtime_env(keyed, environ)["env_vars"] == environ
    with pytest.raises(AgentloopError, match="ray_env: MY_TOKEN is not set"):
        _runtime_env(config, {})
