"""Start-up: how long the ``agentloop`` command takes before it does anything.

Each case runs the installed ``agentloop`` script (the one beside this Python) as a user
would, N times in a row (default 10), each in a fresh process, from a scratch folder:
``--help``, bare ``agentloop`` (the command list), ``--version``, a config file that does
not exist, a config with an unknown field (both are exit 2 with a one-line message), and
``import agentloop`` (the Python API). Wall time per run from ``time.perf_counter``
around ``subprocess.run`` (median, min, max), and the child's CPU time (user + system,
from ``getrusage``; median), which a busy shared machine disturbs less. Beside each case,
which of the heavy packages it imported (LangChain, the OpenAI SDK, the run machinery,
rich's progress display), read from ``python -X importtime``'s list of modules in one more
run. Before issue 36 (item 10) every case imported them all: about 1.5 s each, 0.65 s for
``import agentloop``.

Run: ``python bench/startup.py [--runs 10]``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_page import publish  # noqa: E402

HEAVY = ("langchain_core", "openai", "langsmith", "agentloop.harness.run._runner", "rich.progress")
BAD_CONFIG = "model: scripted:x.json\ndataset: data.jsonl\nmax_rounds: 3\nmodle: openai:x\n"


def _cases(scratch: Path) -> list[tuple[str, list[str]]]:
    script = str(Path(sys.executable).parent / "agentloop")
    (scratch / "bad.yaml").write_text(BAD_CONFIG, encoding="utf-8")
    return [
        ("agentloop --help", [script, "--help"]),
        ("agentloop", [script]),
        ("agentloop --version", [script, "--version"]),
        ("agentloop run missing.yaml", [script, "run", "missing.yaml"]),
        ("agentloop run bad.yaml (unknown field)", [script, "run", "bad.yaml"]),
        ("python -c 'import agentloop'", [sys.executable, "-c", "import agentloop"]),
    ]


def _heavy_imports(command: list[str], cwd: Path) -> list[str]:
    """The HEAVY packages the command imports (one run under ``-X importtime``)."""
    if command[0] == sys.executable:
        argv = [sys.executable, "-X", "importtime", *command[1:]]
    else:  # the script's own entry point, under the same Python
        code = "import sys; from agentloop.cli import main; sys.exit(main())"
        argv = [sys.executable, "-X", "importtime", "-c", code, *command[1:]]
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if "|" in line}
    return [name for name in HEAVY if name in modules]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per case (default 10)")
    args = parser.parse_args()
    print(f"{args.runs} runs per case, each a fresh process; seconds of wall time")
    print()
    print(f"{'case':<42} {'median':>7} {'min':>7} {'max':>7} {'cpu':>7}  exit  heavy imports")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for name, command in _cases(scratch):
            times, cpu, codes = [], [], set()
            for _ in range(args.runs):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                done = subprocess.run(command, cwd=scratch, capture_output=True)
                times.append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
                codes.add(done.returncode)
            heavy = ", ".join(_heavy_imports(command, scratch)) or "none"
            code = ",".join(str(c) for c in sorted(codes))
            print(
                f"{name:<42} {statistics.median(times):7.3f} {min(times):7.3f} "
                f"{max(times):7.3f} {statistics.median(cpu):7.3f}  {code:>4}  {heavy}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(publish("startup", main))
