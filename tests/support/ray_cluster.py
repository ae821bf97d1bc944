"""A real Ray cluster on 127.0.0.1 for the Ray tests (``tests/harness/run/test_ray*.py``),
started once per session, and what those tests share: the pid-noting tools, a setup
with them, and results keyed by pair without timings."""

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
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import add_setup, read_results, write_json

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
    """``add_setup`` with the pid-noting tools; the last row has no replies (an error)."""
    (tmp / "pidtools.py").write_text(PID_TOOLS)
    config.setdefault("tools", [f"{tmp / 'pidtools.py'}:add"])
    path = add_setup(tmp, n=n, **config)
    script = json.loads((tmp / "script.json").read_text())
    script[f"s{n - 1:04d}"] = []  # no replies: it errors
    write_json(tmp / "script.json", script)
    return path
