"""``executor: ray`` against a real Ray cluster on 127.0.0.1, started once per session:
the same results as a local run, resume and retry, replay and view, secrets, bounds.

The cluster has 2 CPUs and no dashboard; its servers listen on loopback only (checked
when it starts and when it stops). Faults are in ``test_ray_faults``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentloop import run_eval_sync
from agentloop.cli._commands import main
from agentloop.errors import AgentloopError
from agentloop.harness import load_config
from agentloop.harness._executor import open_executor
from agentloop.harness._sample import prepare
from agentloop.harness._selection import iter_selected
from tests.support.harness import add_setup, only_run_dir, read_results, write_json

_TIMINGS = {"wall_time_s", "started_at", "latency_s", "duration_s"}

# The add tool, also noting which process ran it with which a (a worker to kill), and
# taking a second when a is the number in slow.txt (a pair surely in flight).
PID_TOOLS = '''
import asyncio
import os
from pathlib import Path
from langchain_core.tools import tool

PIDS = Path(__file__).with_name("pids.txt")
SLOW = Path(__file__).with_name("slow.txt")


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    with PIDS.open("a") as handle:
        handle.write(f"{os.getpid()} {a}\\n")
    if SLOW.is_file() and SLOW.read_text() == str(a):
        await asyncio.sleep(1.0)
    return a + b


@tool
def leak(name: str) -> str:
    """Return the value of an environment variable."""
    return os.environ.get(name, "")
'''


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _listeners(pid: int) -> list[str]:
    """Local addresses of the TCP sockets listening in ``pid``'s process tree."""
    tree = {pid}
    for _ in range(4):  # the head's children and theirs
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if ppid in tree:
                    tree.add(int(entry.name))
    inodes = set()
    for member in tree:
        try:
            for fd in (Path("/proc") / str(member) / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                found.append(fields[1])
    return found


def _is_loopback(hex_address: str) -> bool:
    """``/proc/net/tcp*``'s ``HEX_IP:PORT`` (32-bit words in host byte order) is loopback."""
    raw = bytes.fromhex(hex_address.split(":")[0])
    packed = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    address = ipaddress.ip_address(packed)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


_CLUSTER: dict[str, str] = {}


def shared_ray_address(session: pytest.Session) -> str:
    """A Ray head on 127.0.0.1 (2 CPUs, no dashboard) for the whole session, stopped with
    its processes at the end; every Ray test module's ``ray_address`` fixture uses it."""
    if "address" in _CLUSTER:
        return _CLUSTER["address"]
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths
    # A loopback test cluster without tokens: else a token file in ~/.ray (written by
    # any earlier local ray.init) turns authentication on for the head only.
    saved = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"  # drivers here and in subprocesses
    env = {
        **os.environ,
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # else Ray binds every interface
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    ray_cli = str(Path(sys.executable).with_name("ray"))
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--block", "--node-ip-address=127.0.0.1",
         f"--port={port}", "--num-cpus=2", "--include-dashboard=false",
         "--disable-usage-stats", f"--temp-dir={temp}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: stopped whole at the end
    )  # fmt: skip

    def stop() -> None:
        try:
            listening = _listeners(head.pid)  # workers started since listen too
            assert all(_is_loopback(a) for a in listening), listening
        finally:
            head.terminate()  # ray start --block stops the processes it started
            try:
                head.wait(timeout=30)
            finally:
                with contextlib.suppress(ProcessLookupError):  # and whatever is left
                    os.killpg(head.pid, signal.SIGKILL)
            shutil.rmtree(temp, ignore_errors=True)
            if saved is None:
                os.environ.pop("RAY_AUTH_MODE", None)
            else:
                os.environ["RAY_AUTH_MODE"] = saved

    session.addfinalizer(stop)
    deadline = time.monotonic() + 60
    while not list(Path(temp).glob("session_*/logs/raylet.out")):
        assert head.poll() is None, "ray start failed"
        assert time.monotonic() < deadline, "ray did not start in 60 s"
        time.sleep(0.2)
    time.sleep(1.0)  # the raylet registers with the GCS
    listening = _listeners(head.pid)
    assert listening, "found no listening socket of the cluster"
    assert all(_is_loopback(a) for a in listening), listening
    _CLUSTER["address"] = f"127.0.0.1:{port}"
    return _CLUSTER["address"]


@pytest.fixture(scope="session")
def ray_address(request: pytest.FixtureRequest) -> str:
    return shared_ray_address(request.session)


def _normalized(value: Any) -> Any:
    """A result without timings and LangChain's random run ids."""
    if isinstance(value, dict):
        return {
            k: _normalized(v)
            for k, v in value.items()
            if k not in _TIMINGS and not (k == "id" and str(v).startswith("lc_run--"))
        }
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


def results_by_pair(run_dir: Path) -> dict[tuple[str, int], Any]:
    lines = read_results(run_dir)
    pairs = [(r["id"], r["epoch"]) for r in lines]
    assert len(pairs) == len(set(pairs)), "a pair was written twice"
    return {(r["id"], r["epoch"]): _normalized(r) for r in lines}


def ray_setup(tmp: Path, n: int, **config: Any) -> Path:
    """``add_setup`` with the pid-noting tools; the last row has no script (an error)."""
    (tmp / "pidtools.py").write_text(PID_TOOLS)
    config.setdefault("tools", [f"{tmp / 'pidtools.py'}:add"])
    path = add_setup(tmp, n=n, **config)
    script = json.loads((tmp / "script.json").read_text())
    del script[f"s{n - 1:04d}"]
    write_json(tmp / "script.json", script)
    return path


def test_ray_run_equals_a_local_run_and_resumes_with_retry_errors(
    tmp_path: Path, ray_address: str
) -> None:
    config = ray_setup(tmp_path, n=12, epochs=2, concurrency=3)
    local = run_eval_sync(load_config(config, overrides={"output_dir": str(tmp_path / "local")}))
    on_ray = run_eval_sync(
        load_config(
            config,
            overrides={"executor": "ray", "ray_address": ray_address, "ray_workers": 2},
        )
    )
    expected = results_by_pair(local.run_dir)
    assert len(expected) == 24
    assert results_by_pair(on_ray.run_dir) == expected
    assert on_ray.summary.errored == local.summary.errored == 2
    assert on_ray.summary.rewards == local.summary.rewards
    pids = {line.split()[0] for line in (tmp_path / "pids.txt").read_text().splitlines()}
    assert str(os.getpid()) in pids and len(pids) >= 3, "the ray run used no worker process"
    header = json.loads((on_ray.run_dir / "run.json").read_text())
    assert header["config"]["executor"] == "ray"
    assert header["planned"]["results"] == 24

    # The report and replay read a Ray run like any other.
    assert main(["view", str(on_ray.run_dir), "--out", str(tmp_path / "report.html")]) == 0
    assert "s0010" in (tmp_path / "report.html").read_text()
    replay = main(["run", str(config), "--model", f"replay:{on_ray.run_dir}",
                   "--output-dir", str(tmp_path / "replay")])  # fmt: skip
    assert replay == 0
    replayed = results_by_pair(only_run_dir(tmp_path / "replay"))
    assert {k: v["scores"] for k, v in replayed.items()} == {
        k: v["scores"] for k, v in expected.items()
    }

    # --retry-errors on Ray: the unscripted row gets a script, its errored pairs run again.
    script = json.loads((tmp_path / "script.json").read_text())
    script["s0011"] = [{"role": "assistant", "content": "12"}]
    write_json(tmp_path / "script.json", script)
    code = main(["run", "--resume", str(on_ray.run_dir), "--retry-errors", "--allow-changed"])
    assert code == 0
    latest = {(r["id"], r["epoch"]): r for r in read_results(on_ray.run_dir)}
    assert len(latest) == 24 and all(r["status"] == "ok" for r in latest.values())
    assert len(read_results(on_ray.run_dir)) == 26  # the errored lines stay, superseded


def test_in_flight_pairs_are_bounded_by_workers_times_concurrency(
    tmp_path: Path, ray_address: str
) -> None:
    config = load_config(
        ray_setup(tmp_path, n=30, concurrency=3, model_options={"latency": 0.02}),
        overrides={"executor": "ray", "ray_address": ray_address, "ray_workers": 2},
    )
    p = prepare(config)
    taken = delivered = peak = 0

    def pairs() -> Iterator[tuple[Any, int]]:
        nonlocal taken
        for sample in iter_selected(config, p.selection):
            taken += 1
            yield sample, 1

    def deliver(line: str, errored: bool) -> None:
        nonlocal delivered, peak
        peak = max(peak, taken - delivered)
        delivered += 1

    async def run() -> None:
        async with open_executor(p) as executor:
            await executor.run(pairs(), deliver)

    anyio.run(run)
    assert delivered == taken == 30
    assert peak == 2 * 3  # saturated, never above


def test_secrets_reach_workers_through_the_environment_only(
    tmp_path: Path, ray_address: str
) -> None:
    secret = "s3cr3t-value-for-ray"
    config = ray_setup(tmp_path, n=2, tools=[f"{tmp_path / 'pidtools.py'}:leak"])
    script = {"*": [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "leak", "arguments": json.dumps({"name": "RAY_TEST_TOKEN"})}}]},
        "done"]}  # fmt: skip
    write_json(tmp_path / "script.json", script)
    environ = {"RAY_TEST_TOKEN": secret}
    outcome = run_eval_sync(
        load_config(
            config,
            overrides={
                "executor": "ray",
                "ray_address": ray_address,
                "ray_env": ["RAY_TEST_TOKEN"],
                "ray_workers": 1,
            },
        ),
        environ=environ,
    )
    tool_outputs = [
        m["content"]
        for r in read_results(outcome.run_dir)
        for m in r["trajectory"]["messages"]
        if m["role"] == "tool"
    ]
    assert tool_outputs == ["***", "***"]  # the worker had the value, and masked it
    for file in outcome.run_dir.iterdir():
        assert secret not in file.read_text(), file.name
    with pytest.raises(AgentloopError, match="ray_env: RAY_TEST_TOKEN is not set"):
        run_eval_sync(
            load_config(
                config,
                overrides={
                    "executor": "ray",
                    "ray_address": ray_address,
                    "ray_env": ["RAY_TEST_TOKEN"],
                },
            ),
            environ={},
        )
