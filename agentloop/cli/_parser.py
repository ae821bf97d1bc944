"""The ``agentloop`` command line: its subcommands and flags, parsed without tracebacks.

A bad argument is a ``UsageError`` (one line, exit 2); ``--help``, ``--version`` and a
bare ``agentloop`` (the command list, exit 0) end in ``ParserExit`` so ``main()`` returns
their code instead of raising SystemExit.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from agentloop import __version__

__all__ = ["ParserExit", "UsageError", "parse"]


class UsageError(Exception):
    """A bad command line; the message is one line."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (no usage dump) with exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        # --help and --version end here: main() returns the code instead of SystemExit.
        if message:
            print(message, end="", file=sys.stderr)
        raise ParserExit(status)


class ParserExit(Exception):
    """--help or --version: the command line ends here with ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentloop", description="Run and score tool-using LLM evaluations.")
    parser.add_argument("--version", action="version", version=f"agentloop {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser("run", help="run an evaluation config (or resume a run)")
    run.add_argument("config", nargs="?", help="the YAML config (optional with --resume)")
    run.add_argument("--model", help="model spec, e.g. openai:gpt-4o-mini")
    run.add_argument("--limit", type=_positive, help="run only the first N samples")
    run.add_argument("--epochs", type=_positive, help="runs per sample")
    run.add_argument("--concurrency", type=_positive, help="samples run at once")
    run.add_argument(
        "--executor", choices=["local", "ray"], help="where samples run (default: local)"
    )
    run.add_argument("--ray-address", metavar="ADDR", help="with --executor ray: the cluster")
    run.add_argument(
        "--ray-workers", type=_positive, metavar="N", help="with --executor ray: actors to start"
    )
    run.add_argument("--output-dir", help="where run directories are created")
    run.add_argument("--resume", metavar="RUN_DIR", help="finish an interrupted run")
    run.add_argument(
        "--no-preflight",
        dest="preflight",
        action="store_false",
        default=None,
        help="skip the check that the model's endpoint answers before the first sample",
    )
    run.add_argument(
        "--allow-changed",
        action="store_true",
        help="with --resume: resume even though tool code or the model's script or "
        "recording changed since the run started (recorded in run.json)",
    )
    run.add_argument(
        "--retry-errors",
        action="store_true",
        help="with --resume: run again the samples whose latest result errored "
        "(the new results supersede the old ones)",
    )
    run.add_argument(
        "--sample-id",
        dest="sample_ids",
        action="append",
        metavar="ID",
        help="run only this sample id (a glob like 'weather-*' allowed); repeatable",
    )
    run.add_argument(
        "--otel",
        action="store_const",
        const=True,
        help="send each result's OpenTelemetry spans over OTLP/HTTP (OTEL_EXPORTER_OTLP_* "
        "variables; contents too: --set otel=content)",
    )
    run.add_argument(
        "--shuffle",
        action="store_true",
        default=None,
        help="run the samples in a shuffled order (deterministic: see --seed)",
    )
    run.add_argument("--seed", type=int, help="the seed of --shuffle (default 0)")
    run.add_argument(
        "--replay-tools",
        choices=["recorded", "live"],
        help="with --model replay:RUN_DIR: serve the recorded tool results (default) "
        "or re-run the tools and report outputs that differ",
    )
    run.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override any config field (dotted keys, YAML values); repeatable",
    )
    run.add_argument(
        "--unset",
        dest="unsets",
        action="append",
        default=[],
        metavar="KEY",
        help="remove a field the config file sets, e.g. model_options.base_url (dotted "
        "keys; applied before --set); repeatable",
    )
    score = sub.add_parser("score", help="re-score a run's trajectories offline")
    score.add_argument("run_dir")
    score.add_argument(
        "--rewards",
        nargs="+",
        metavar="SPEC",
        help="reward names, or YAML like '{tool_call_match: {order: unordered}}'",
    )
    summary = sub.add_parser("summary", help="print (and rewrite) a run's summary")
    summary.add_argument("run_dir")
    demo = sub.add_parser("demo", help="run the quickstart against the embedded local model")
    demo.add_argument("extra", nargs=argparse.REMAINDER, help="more arguments for agentloop run")
    compare = sub.add_parser(
        "compare",
        help="compare two runs: paired differences with a verdict (more runs: every pair, "
        "Holm-corrected)",
    )
    compare.add_argument("run_a", metavar="RUN_A")
    compare.add_argument("run_b", metavar="RUN_B")
    compare.add_argument("more", nargs="*", metavar="RUN", help="more runs: every pair compared")
    compare.add_argument(
        "--json", action="store_true", help="print the comparison as JSON (no tables)"
    )
    compare.add_argument(
        "--across-task-sets",
        action="store_true",
        help="compare runs over different benchmark task sets (τ²-bench 0.2 and 1.0.1: the "
        "same task ids, other criteria), refused otherwise",
    )
    _add_power(sub)
    _add_bfcl(sub)
    _add_agentdojo(sub)
    _add_tau2(sub)
    _add_view(sub)
    _add_init(sub)
    _add_serve(sub)
    _add_exchange(sub)
    return parser


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value


def _correlation(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not -1.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from -1 to 1, got {text!r}")
    return value


def _add_power(sub: argparse._SubParsersAction[_Parser]) -> None:
    power = sub.add_parser(
        "power",
        help="samples needed to detect a difference, from one run (or two runs' paired "
        "scores); the smallest difference a comparison detects",
    )
    power.add_argument("run_a", metavar="RUN_A")
    power.add_argument("run_b", nargs="?", metavar="RUN_B", help="a second run on the same samples")
    power.add_argument(
        "--delta", type=_fraction, metavar="D", help="the difference to detect (e.g. 0.05)"
    )
    power.add_argument(
        "--power", type=_fraction, default=0.8, metavar="P", help="the power wanted (default 0.8)"
    )
    power.add_argument(
        "--alpha",
        type=_fraction,
        default=0.05,
        metavar="A",
        help="the two-sided significance level (default 0.05)",
    )
    power.add_argument(
        "--correlation",
        type=_correlation,
        metavar="R",
        help="one run: the correlation assumed between the two runs' paired scores "
        "(default 0: as if unpaired)",
    )
    power.add_argument("--json", action="store_true", help="print the plan as JSON (no tables)")


def _add_init(sub: argparse._SubParsersAction[_Parser]) -> None:
    init = sub.add_parser(
        "init", help="write a first evaluation of your own: tools, dataset, config"
    )
    init.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where (default: here)")
    tools = sub.add_parser("tools", help="your tools as the model sees them")
    actions = tools.add_subparsers(dest="tools_command", required=True, parser_class=_Parser)
    schemas = actions.add_parser(
        "schemas", help="print the OpenAI schemas of a module's tools (a dataset row's tools)"
    )
    schemas.add_argument(
        "module", metavar="MODULE[:NAME]", help="e.g. my_tools, ./my_tools.py, my_tools:lookup"
    )
    schemas.add_argument(
        "--compact", action="store_true", help="one line, as a JSONL row's tools field"
    )


def _add_view(sub: argparse._SubParsersAction[_Parser]) -> None:
    view = sub.add_parser("view", help="write a run's HTML report (two runs: their comparison)")
    view.add_argument(
        "run_dirs",
        nargs="+",
        metavar="RUN",
        help="one run, or A and B: a run directory, or a results file in one "
        "(e.g. the results.rescored-<ts>.jsonl of agentloop score)",
    )
    view.add_argument("--out", metavar="FILE", help="the HTML file (default: RUN_DIR/report.html)")
    view.add_argument("--open", action="store_true", help="open the report in a browser")
    show = sub.add_parser("show", help="print one sample's trajectory and scores")
    show.add_argument(
        "run_dir", metavar="RUN", help="a run directory, or a results file in one (re-scored)"
    )
    show.add_argument("sample_id", metavar="SAMPLE_ID")
    show.add_argument("--epoch", type=_positive, help="which epoch (default: the first)")


def _add_bfcl(sub: argparse._SubParsersAction[_Parser]) -> None:
    bfcl = sub.add_parser("bfcl", help="BFCL (Berkeley Function Calling Leaderboard) tasks, scores")
    actions = bfcl.add_subparsers(dest="bfcl_command", required=True, parser_class=_Parser)
    export = actions.add_parser("export", help="write a BFCL category as a JSONL dataset")
    export.add_argument("category", help="e.g. simple_python, live_multiple")
    export.add_argument("--out", required=True, metavar="FILE", help="the JSONL file to write")
    export.add_argument(
        "--data-dir", help="a directory laid out like bfcl_eval/data (default: the package)"
    )
    summary = actions.add_parser(
        "summary", help="BFCL accuracy per category and overall, as the leaderboard reports it"
    )
    summary.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")


def _add_agentdojo(sub: argparse._SubParsersAction[_Parser]) -> None:
    agentdojo = sub.add_parser("agentdojo", help="AgentDojo (prompt-injection benchmark) scores")
    actions = agentdojo.add_subparsers(
        dest="agentdojo_command", required=True, parser_class=_Parser
    )
    summary = actions.add_parser(
        "summary",
        help="utility, utility under attack and targeted attack success rate, per suite and "
        "over all suites, as AgentDojo reports them",
    )
    summary.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    logs = actions.add_parser(
        "import",
        help="AgentDojo's own run logs as rows, scripted replies and a config that re-scores them",
    )
    logs.add_argument("logdir", metavar="LOGDIR", help="where AgentDojo wrote its logs")
    logs.add_argument(
        "outdir", metavar="OUTDIR", help="where to write data.jsonl, scripts.json, eval.yaml"
    )
    logs.add_argument(
        "--version",
        default=None,
        metavar="V",
        help="the benchmark version of logs that do not say theirs (default v1.2.2)",
    )


def _add_tau2(sub: argparse._SubParsersAction[_Parser]) -> None:
    tau2 = sub.add_parser("tau2", help="τ²-bench scores")
    actions = tau2.add_subparsers(dest="tau2_command", required=True, parser_class=_Parser)
    summary = actions.add_parser(
        "summary",
        help="average reward and pass^k per domain as τ²-bench reports them, beside "
        "agentloop's, and whether they compare with τ²-bench's leaderboard",
    )
    summary.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    read = actions.add_parser(
        "import",
        help="re-score every simulation of τ²-bench's own results file with tau2_verdict, "
        "its recorded reward beside agentloop's (OUTDIR/rescored.jsonl)",
    )
    read.add_argument(
        "results", metavar="RESULTS", help="τ²-bench's results JSON (or its directory format)"
    )
    read.add_argument("outdir", metavar="OUTDIR")
    read.add_argument(
        "--embedded-tasks",
        action="store_true",
        help="score under the file's own task definitions, not task set 1.0.1's",
    )
    write = actions.add_parser(
        "export",
        help="write a run as τ²-bench's results JSON, and optionally as a leaderboard "
        "submission (submission.json and trajectories/)",
    )
    write.add_argument("run_dir", metavar="RUN_DIR")
    write.add_argument("output", metavar="OUT.json")
    write.add_argument(
        "--submission", metavar="DIR", help="add the run's domain to the submission in DIR"
    )
    write.add_argument(
        "--model-name", help="submission.json's model_name (default: the agent's model)"
    )
    write.add_argument("--organization", help="submission.json's model_organization")
    write.add_argument(
        "--submitter", help="submission.json's submitting_organization (default: --organization)"
    )
    write.add_argument("--email", help="submission.json's contact_info.email")


def _add_serve(sub: argparse._SubParsersAction[_Parser]) -> None:
    serve = sub.add_parser(
        "serve", help="serve one row's tools over MCP to an agent that runs its own loop"
    )
    serve.add_argument("config", help="the YAML config (its dataset, tools and rewards)")
    serve.add_argument("--sample-id", required=True, metavar="ID", help="the row to serve")
    serve.add_argument("--epoch", type=_positive, default=1, help="the epoch (default: 1)")
    serve.add_argument("--output-dir", help="where the run directory is created")
    serve.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override any config field (dotted keys, YAML values); repeatable",
    )


def _add_exchange(sub: argparse._SubParsersAction[_Parser]) -> None:
    """``export FORMAT ...`` and ``import FORMAT ...``: one sub-command per format, each
    added by its own ``_add_<format>(exports, imports)``."""
    export = sub.add_parser("export", help="write a run in another tool's format")
    exports = export.add_subparsers(dest="export_format", required=True, parser_class=_Parser)
    read = sub.add_parser("import", help="read another tool's runs as a run directory")
    imports = read.add_subparsers(dest="import_format", required=True, parser_class=_Parser)
    _add_otel(exports, imports)
    _add_inspect(exports, imports)


def _add_scored_import(
    imports: argparse._SubParsersAction[_Parser],
    name: str,
    help: str,
    source: tuple[str, str, str],
    config_help: str,
) -> argparse.ArgumentParser:
    """``import NAME SOURCE OUTDIR --config CONFIG [--set KEY=VALUE]``, what every import
    that scores under a config takes; ``source``: its destination, metavar and help."""
    read = imports.add_parser(name, help=help)
    dest, metavar, source_help = source
    read.add_argument(dest, metavar=metavar, help=source_help)
    read.add_argument("outdir", metavar="OUTDIR", help="the run directory to write")
    read.add_argument("--config", required=True, metavar="CONFIG", help=config_help)
    read.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field of the config (dotted keys, YAML values); repeatable",
    )
    return read


def _add_otel(
    exports: argparse._SubParsersAction[_Parser], imports: argparse._SubParsersAction[_Parser]
) -> None:
    write = exports.add_parser(
        "otel", help="a finished run's traces as OTLP JSON (OpenTelemetry GenAI spans)"
    )
    write.add_argument("run_dir", metavar="RUN_DIR")
    write.add_argument("output", metavar="OUT.json")
    write.add_argument(
        "--content",
        action="store_true",
        help="include messages, tool arguments and results (scrubbed of secrets)",
    )
    read = _add_scored_import(
        imports,
        "otel",
        "OTLP JSON traces of an agent as a run directory that score re-scores",
        ("traces", "FILE", "OTLP JSON (one request, or one per line)"),
        "the config whose dataset and rewards score the traces",
    )
    read.add_argument(
        "--sample-attribute",
        metavar="NAME",
        help="the span attribute naming the sample (default: agentloop.sample.id; a.b: key b "
        "of a JSON object attribute a)",
    )


def _add_inspect(
    exports: argparse._SubParsersAction[_Parser], imports: argparse._SubParsersAction[_Parser]
) -> None:
    write = exports.add_parser(
        "inspect", help="a run as an Inspect eval log (its viewer, read_eval_log, samples_df)"
    )
    write.add_argument("run_dir", metavar="RUN_DIR")
    write.add_argument("output", metavar="OUT.eval", help="the log to write (.eval or .json)")
    _add_scored_import(
        imports,
        "inspect",
        "an Inspect eval log's samples as a run directory, scored by a config",
        ("log", "LOG", "an Inspect log (.eval or .json)"),
        "the config whose dataset (rows matched by sample id) and rewards score the log",
    )


def parse(argv: list[str]) -> argparse.Namespace:
    parser = _build_parser()
    if not argv:  # bare `agentloop`: the commands, as --help lists them
        parser.print_help()
        raise ParserExit(0)
    if argv[:1] == ["demo"]:  # everything after it goes to `agentloop run`, options included
        return argparse.Namespace(command="demo", extra=argv[1:])
    return parser.parse_args(argv)
