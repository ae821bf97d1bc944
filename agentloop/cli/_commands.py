"""The ``agentloop`` command: run, score, summary, compare, power, demo, bfcl, agentdojo, tau2,
view, show, init, tools, serve, export, import.

Exit codes: 0 success; 1 the run failed: every result errored (whatever
``fail_on_error`` says: a run that scored nothing, e.g. a reward raising on every sample,
is no success), or its ``fail_on_error`` rule (``run``, and ``summary`` of such a run);
2 bad usage, a bad config, model setting or dataset, or a run directory another process
is writing (a one-line message on stderr, never a traceback); 130 interrupted (the
message names the run directory to resume). Everything printed is masked with
``agentloop._secrets``.
"""

from __future__ import annotations

import argparse
import io
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError
from rich.console import Console

from agentloop._secrets import Scrubber, holds_mask
from agentloop.cli._command_name import command_name
from agentloop.cli._exchange import cmd_export, cmd_import
from agentloop.cli._parser import ParserExit, UsageError, parse
from agentloop.cli._serve import cmd_serve
from agentloop.errors import AgentloopError

if TYPE_CHECKING:  # each command imports what it needs: --help or a bad config stays light
    from agentloop.harness import EvalConfig

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class _Interrupted(Exception):
    """Ctrl-C during a run; ``run_dir`` is None when no run directory was made yet."""

    def __init__(self, run_dir: Path | None, retry_errors: bool = False) -> None:
        super().__init__(run_dir)
        self.run_dir = run_dir
        self.retry_errors = retry_errors  # an interrupted retry is finished by another


def _flag_overrides(args: argparse.Namespace) -> dict[str, Any]:
    flags = {
        "model": args.model,
        "limit": args.limit,
        "epochs": args.epochs,
        "concurrency": args.concurrency,
        "executor": args.executor,
        "ray_address": args.ray_address,
        "ray_workers": args.ray_workers,
        "output_dir": args.output_dir,
        "model_options.replay_tools": args.replay_tools,
        "preflight": args.preflight,
        "sample_ids": args.sample_ids,
        "shuffle": args.shuffle,
        "seed": args.seed,
        "otel": args.otel,
    }
    return {k: v for k, v in flags.items() if v is not None}


def _run_dir(text: str) -> Path:
    from agentloop.harness.rundir._header import read_header

    path = Path(text)
    read_header(path)  # a clear error when it is not a run directory
    return path


def _config_for_run(args: argparse.Namespace) -> tuple[EvalConfig, str | None]:
    from agentloop.harness.config._loading import (
        load_config,
        override,
        override_origins,
        validate_config,
    )

    if args.config:
        config = load_config(args.config, args.sets, _flag_overrides(args), args.unsets)
        return config, args.config
    if not args.resume:
        raise UsageError("agentloop run: a CONFIG is required (or --resume RUN_DIR)")
    from agentloop.harness.rundir._files import HEADER_FILE
    from agentloop.harness.rundir._header import read_header

    header = read_header(Path(args.resume))
    stored = header.get("config") or {}
    masked = sorted(k for k, v in stored.items() if holds_mask(v))
    if masked:  # the copy in run.json cannot say what those values were
        raise UsageError(
            f"cannot resume {args.resume} from its {HEADER_FILE} alone: its config has masked "
            f"values (secrets) in {', '.join(masked)}; give the config file too: "
            f"{command_name()} run CONFIG --resume {args.resume}"
        )
    flags = _flag_overrides(args)
    raw, notes = override(stored, args.sets, flags, args.unsets)
    origins = override_origins(args.sets, flags)  # an error is blamed on the flag that set it
    config = validate_config(raw, f"{args.resume}/{HEADER_FILE}", origins, notes)
    return config, header.get("config_path")


def _cmd_run(args: argparse.Namespace, out: Console) -> int:
    if args.allow_changed and not args.resume:
        raise UsageError("agentloop run: --allow-changed needs --resume RUN_DIR")
    if args.retry_errors and not args.resume:
        raise UsageError("agentloop run: --retry-errors needs --resume RUN_DIR")
    config, config_path = _config_for_run(args)
    for note in config.notes:
        print(_one_line(f"agentloop: note: {note}"), file=sys.stderr)
    # the run's machinery (LangChain, the SDKs, rich's progress) once the config is good
    import anyio

    from agentloop.cli._display import print_summary
    from agentloop.cli._progress import make_reporter
    from agentloop.harness import run_eval

    resume = _run_dir(args.resume) if args.resume else None
    started: list[Path] = []

    def announce(run_dir: Path) -> None:
        started.append(run_dir)
        _say(out, f"run: {run_dir}")

    def warn(text: str) -> None:  # the checks' warnings, before the first sample
        print(_one_line(f"agentloop: warning: {text}"), file=sys.stderr)

    try:
        outcome = anyio.run(
            lambda: run_eval(
                config,
                config_path=config_path,
                resume=resume,
                reporter=make_reporter(out),
                announce=announce,
                allow_changed=args.allow_changed,
                retry_errors=args.retry_errors,
                warn=warn,
            )
        )
    except KeyboardInterrupt:
        raise _Interrupted(started[0] if started else None, args.retry_errors) from None
    if outcome.nothing_to_do:
        run = shlex.quote(str(outcome.run_dir))
        _say(
            out,
            f"nothing to do: {outcome.run_dir} has all its {outcome.skipped} results"
            + (", none errored" if args.retry_errors else "")
            + f"; see them with: {command_name()} summary {run}",
        )
        if outcome.summary.failed:
            print(_one_line(f"agentloop: run failed: {outcome.summary.failure}"), file=sys.stderr)
        return outcome.exit_code
    print_summary(outcome.summary, out, scrub=Scrubber())
    if args.retry_errors:
        _say(out, f"retried: {outcome.retried} errored result(s)")
    _say(out, f"results: {outcome.run_dir}")
    _next_steps(out, outcome.run_dir)
    if outcome.summary.failed:
        print(_one_line(f"agentloop: run failed: {outcome.summary.failure}"), file=sys.stderr)
    return outcome.exit_code


def _next_steps(out: Console, run_dir: Path) -> None:
    """The commands that look at the run: its report, and one sample in the terminal: the
    first failing result (errored, or failing a reward as the report's triage counts it:
    below its pass threshold, or below 1 without one), else the first result."""
    from agentloop._records import latest_results
    from agentloop.cli._triage import failure_types
    from agentloop.harness.rundir._files import RESULTS_FILE
    from agentloop.harness.rundir._header import read_header, reward_directions

    results = run_dir / RESULTS_FILE
    shown: dict[str, Any] | None = None
    failing = False
    # a reward whose lower score is better fails where it scored above 0 (AgentDojo's
    # security: the attack succeeded)
    lower = {k for k, way in reward_directions(read_header(run_dir)).items() if way == "lower"}
    for line in latest_results(results) if results.is_file() else ():
        failing = bool(failure_types(line, lower))
        if shown is None or failing:
            shown = line  # the first result, unless one fails
        if failing:
            break
    run, agentloop = shlex.quote(str(run_dir)), command_name()
    _say(out, "next:")
    _say(out, f"  {agentloop} view {run}  # the HTML report")
    if shown is not None:
        epoch = f" --epoch {shown['epoch']}" if shown.get("epoch", 1) != 1 else ""
        what = "the first failing sample" if failing else "one sample"
        sample = shlex.quote(str(shown["id"]))
        _say(out, f"  {agentloop} show {run} {sample}{epoch}  # {what} in the terminal")


def _say(out: Console, text: str) -> None:
    out.print(_one_line(text), markup=False, highlight=False, soft_wrap=True)


def _parse_reward_args(items: Sequence[str]) -> list[Any]:
    specs = []
    for item in items:
        try:
            specs.append(yaml.safe_load(item))
        except yaml.YAMLError:
            raise UsageError(f"agentloop score: --rewards {item!r} is not valid YAML") from None
    return specs


def _cmd_score(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._display import print_summary
    from agentloop.harness import rescore_run

    rewards = _parse_reward_args(args.rewards) if args.rewards else None
    target, summary = rescore_run(_run_dir(args.run_dir), rewards)
    print_summary(summary, out, scrub=Scrubber())
    _say(out, f"re-scored results: {target}")
    _say(out, f"see them with: {command_name()} view {target}")
    return EXIT_OK


def _cmd_summary(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._display import print_summary
    from agentloop.harness.rundir._header import read_header
    from agentloop.harness.stats._summary_file import write_summary

    run_dir = Path(args.run_dir)
    scrub = Scrubber()
    summary = write_summary(run_dir, read_header(run_dir), scrub)
    print_summary(summary, out, scrub=scrub)
    return EXIT_FAILED if summary.failed else EXIT_OK


def _cmd_compare(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._display import print_comparison, print_comparisons
    from agentloop.harness import compare_runs
    from agentloop.harness.stats._compare import compare_many

    if args.more:
        multi = compare_many(
            [args.run_a, args.run_b, *args.more], across_task_sets=args.across_task_sets
        )
        if args.json:  # each pair without its summaries: they are in "summaries", once
            data = multi.model_dump(
                mode="json", exclude={"pairs": {"__all__": {"summary_a", "summary_b"}}}
            )
            print(json.dumps(Scrubber().obj(data), indent=2))
            return EXIT_OK
        print_comparisons(multi, out, scrub=Scrubber())
        return EXIT_OK
    comparison = compare_runs(args.run_a, args.run_b, across_task_sets=args.across_task_sets)
    if args.json:  # plain print: a console would wrap long lines
        print(json.dumps(Scrubber().obj(comparison.model_dump(mode="json")), indent=2))
        return EXIT_OK
    print_comparison(comparison, out, scrub=Scrubber())
    return EXIT_OK


def _cmd_power(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._display import print_power
    from agentloop.harness.stats._power import plan_power

    if args.run_b and args.correlation is not None:
        raise UsageError(
            "agentloop power: --correlation is for one run (two runs' correlation is observed)"
        )
    runs = [args.run_a, *([args.run_b] if args.run_b else [])]
    plan = plan_power(
        runs, delta=args.delta, alpha=args.alpha, power=args.power, correlation=args.correlation
    )
    if args.json:
        print(json.dumps(Scrubber().obj(plan.model_dump(mode="json")), indent=2))
        return EXIT_OK
    print_power(plan, out, scrub=Scrubber())
    return EXIT_OK


def _cmd_demo(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._demo import demo_run

    return main(demo_run(args.extra))


def _cmd_bfcl(args: argparse.Namespace, out: Console) -> int:
    from agentloop.benchmarks.bfcl._data import export_bfcl
    from agentloop.benchmarks.bfcl._summary import format_bfcl_summary, summarize_bfcl

    if args.bfcl_command == "export":
        count = export_bfcl(args.category, args.out, args.data_dir)
        _say(out, f"wrote {count} rows of BFCL {args.category} to {args.out}")
        return EXIT_OK
    # plain print: a console would wrap the table
    print(Scrubber().text(format_bfcl_summary(summarize_bfcl(args.run_dirs))))
    return EXIT_OK


def _cmd_agentdojo(args: argparse.Namespace, out: Console) -> int:
    from agentloop.benchmarks.agentdojo._logs import import_logs
    from agentloop.benchmarks.agentdojo._package import DEFAULT_VERSION
    from agentloop.benchmarks.agentdojo._summary import (
        format_agentdojo_summary,
        summarize_agentdojo,
    )

    if args.agentdojo_command == "import":
        done = import_logs(args.logdir, args.outdir, args.version or DEFAULT_VERSION)
        for path, reason in done.refused:  # one line each, then the count
            print(_one_line(f"agentloop: not imported: {path}: {reason}"), file=sys.stderr)
        found = done.imported + len(done.refused)
        if not done.imported:
            raise AgentloopError(
                f"{args.logdir}: none of the {found} AgentDojo log(s) could be "
                "imported (each is listed above with the reason)"
            )
        if done.refused:
            print(
                f"agentloop: {len(done.refused)} of {found} AgentDojo log(s) not imported "
                "(listed above)",
                file=sys.stderr,
            )
        if done.detector:
            _say(
                out,
                f"{done.detector} log(s) of the transformers_pi_detector defense: replayed "
                "without the detector, its verdicts (the results it replaced) taken from "
                "the logs, not recomputed",
            )
        _say(
            out,
            f"wrote {done.imported} rows of AgentDojo logs to {args.outdir}; re-score them "
            f"with: {command_name()} run {Path(args.outdir) / 'eval.yaml'}",
        )
        return EXIT_OK
    # plain print: a console would wrap the table
    print(Scrubber().text(format_agentdojo_summary(summarize_agentdojo(args.run_dirs))))
    return EXIT_OK


def _cmd_view(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._view import write_report
    from agentloop.cli._view_data import resolve_source

    if len(args.run_dirs) > 2:
        raise UsageError("agentloop view: give one RUN_DIR, or two to compare (A B)")
    run_dirs = [Path(text) for text in args.run_dirs]
    for path in run_dirs:
        resolve_source(path)  # a clear error when it is neither a run nor its results file
    outcome = write_report(run_dirs, Path(args.out) if args.out else None, open_it=args.open)
    _say(out, f"report: {outcome.path} ({outcome.samples} samples, {outcome.bytes:,} bytes)")
    if args.open and not outcome.opened:  # no browser here (a server, a container, ssh)
        where = outcome.path.resolve()
        print(
            _one_line(f"agentloop view: no browser to open here; the report is {where}"),
            file=sys.stderr,
        )
    return EXIT_OK


def _cmd_show(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._show import print_sample

    print_sample(Path(args.run_dir), args.sample_id, args.epoch, out)
    return EXIT_OK


def _cmd_init(args: argparse.Namespace, out: Console) -> int:
    from agentloop.cli._init import write_first_eval

    for line in write_first_eval(args.dir):
        _say(out, line)
    return EXIT_OK


def _cmd_tools(args: argparse.Namespace, out: Console) -> int:
    from agentloop.engine import module_tools
    from agentloop.tools import openai_tool_schemas

    schemas = openai_tool_schemas(module_tools(args.module))
    # plain print: a console would wrap long lines
    print(json.dumps(schemas) if args.compact else json.dumps(schemas, indent=2))
    return EXIT_OK


def _cmd_tau2(args: argparse.Namespace, out: Console) -> int:
    if args.tau2_command == "import":
        from agentloop.benchmarks.tau2._results_in import (
            format_rescored,
            rescore_tau2_results,
            write_rescored,
        )

        tasks = "embedded" if args.embedded_tasks else "current"
        items = rescore_tau2_results(args.results, tasks=tasks)
        path = write_rescored(items, args.outdir)
        print(Scrubber().text(format_rescored(items)))
        print(f"wrote {path}")
        return EXIT_OK
    if args.tau2_command == "export":
        from agentloop.benchmarks.tau2._results_out import (
            check_submission,
            export_tau2_run,
            write_submission,
        )
        from agentloop.harness.rundir._files import write_json_atomic

        results = export_tau2_run(args.run_dir)
        if args.submission:  # refused before anything is written
            check_submission(results)
        target = Path(args.output)
        target.parent.mkdir(parents=True, exist_ok=True)
        scrub = Scrubber()
        text = scrub.text(json.dumps(results, indent=2, ensure_ascii=False))
        write_json_atomic(target, json.loads(text))
        simulations, ran = len(results["simulations"]), len(results["tasks"])
        print(f"wrote {target}: {simulations} simulations of {ran} tasks")
        if args.submission:
            written = write_submission(
                json.loads(text),
                target.name,
                args.submission,
                model_name=args.model_name,
                organization=args.organization,
                submitter=args.submitter,
                email=args.email,
            )
            print(f"wrote {written}")
        return EXIT_OK
    from agentloop.benchmarks.tau2._summary import format_tau2_summary, summarize_tau2

    print(Scrubber().text(format_tau2_summary(summarize_tau2(args.run_dirs))))
    return EXIT_OK


_COMMANDS = {
    "run": _cmd_run,
    "score": _cmd_score,
    "summary": _cmd_summary,
    "compare": _cmd_compare,
    "power": _cmd_power,
    "demo": _cmd_demo,
    "bfcl": _cmd_bfcl,
    "agentdojo": _cmd_agentdojo,
    "tau2": _cmd_tau2,
    "view": _cmd_view,
    "show": _cmd_show,
    "init": _cmd_init,
    "tools": _cmd_tools,
    "serve": cmd_serve,
    "export": cmd_export,
    "import": cmd_import,
}


def _one_line(message: str) -> str:
    return Scrubber().text(message)


def _invalid_settings(exc: ValidationError) -> str:
    """A pydantic error (e.g. a model client given ``temperature: hot``) as one line,
    each field first."""
    problems = [
        f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}"
        for e in exc.errors(include_url=False)
    ]
    return f"{'; '.join(problems)} ({exc.title})"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (``sys.exit(main())``)."""
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate in a result prints escaped
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    width = None if sys.stdout.isatty() else 120
    out = Console(width=width, highlight=False, emoji=False)  # user text is never rewritten
    try:
        args = parse(list(sys.argv[1:] if argv is None else argv))
        return _COMMANDS[args.command](args, out)
    except ParserExit as exc:
        return exc.status
    except UsageError as exc:
        print(f"{_one_line(str(exc))}", file=sys.stderr)
    except (AgentloopError, OSError, yaml.YAMLError) as exc:
        print(f"agentloop: error: {_one_line(str(exc))}", file=sys.stderr)
    except ValidationError as exc:
        print(f"agentloop: error: {_one_line(_invalid_settings(exc))}", file=sys.stderr)
    except _Interrupted as exc:
        if exc.run_dir is None:
            message = "agentloop: interrupted before the run started"
        else:
            message = (
                f"agentloop: interrupted; finish it with: {command_name()} run --resume "
                f"{exc.run_dir}" + (" --retry-errors" if exc.retry_errors else "")
            )
        print(_one_line(message), file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print("agentloop: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_USAGE
