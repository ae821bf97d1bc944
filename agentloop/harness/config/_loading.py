"""Reading, overriding and validating evaluation configs (the model is ``_config``).

Every field can be overridden: ``load_config(path, sets=["model_params.temperature=0"])``
applies dotted ``key=value`` overrides (values parsed as YAML) before validation, so
an override is validated exactly like the file. Errors are one line per problem,
naming where the value came from (the file, the ``--set KEY=VALUE`` or the flag that set
it) and the field.

The files a config reads are named relative to the config file's folder (``relative_to``),
as Inspect AI resolves a task file's own paths: the dataset, ``@file`` prompts and user
instructions, the files of ``scripted:`` and ``replay:`` model specs, and the files of
``./file.py:name`` import paths (``tools``, ``environment``, ``rewards``). So a config runs
from any working directory. Values from the command line (``--set``, ``--model``) are
relative to the working directory, like every path on a command line, and so are the places
a run writes (``output_dir``, ``cache``) and module paths (``pkg.mod:name``: Python finds
modules from the working directory). A path that the config's folder does not have but the
working directory does (a config written before paths were the config's own) is kept as
written.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import (
    ValidationError,
)

from agentloop._secrets import MASK, is_secret_name
from agentloop.errors import ConfigError, ModelSpecError
from agentloop.harness.config._fields import EvalConfig, UserConfig
from agentloop.harness.config._prompt_files import load_system_prompt
from agentloop.harness.config._yaml import load_unique_yaml

__all__ = [
    "apply_overrides",
    "blame",
    "check_tool_choice",
    "load_config",
    "override",
    "override_origins",
    "read_raw_config",
    "relative_to",
    "validate_config",
]


def _set_dotted(raw: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = raw
    for part in parts[:-1]:
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        if not isinstance(child, dict):
            raise ConfigError(f"--set {key}: {part!r} is not a mapping")
        node = child
    node[parts[-1]] = value


def apply_overrides(raw: dict[str, Any], sets: Sequence[str]) -> dict[str, Any]:
    """A copy of ``raw`` with ``key=value`` overrides applied (dotted keys, YAML values)."""
    result = copy.deepcopy(raw)
    for item in sets:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item!r}: expected key=value, e.g. max_rounds=3")
        try:
            value = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError as exc:
            raise ConfigError(
                f"--set {key}: value is not valid YAML ({_yaml_problem(exc)})"
            ) from None
        _set_dotted(result, key.strip(), value)
    return result


def _yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 1}" if mark is not None else str(problem)


def _field_name(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"


_FIELD = re.compile(r"[A-Za-z_]\w*(?:\.\w+|\[\d+\])*")
_FLAGS = {
    "sample_ids": "--sample-id",
    "preflight": "--no-preflight",
    "model_options.replay_tools": "--replay-tools",
}
"""Flags whose name is not the field's (``--output-dir`` sets ``output_dir``)."""


def _shown(key: str, text: str) -> str:
    """A ``--set`` value as errors show it: masked when it may hold a secret."""
    names = [*key.split("."), *re.findall(r"([\w-]+)\s*:", text)]
    return MASK if any(is_secret_name(n) for n in names) else text


def override_origins(
    sets: Sequence[str] = (), overrides: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """Dotted key -> where its value came from, as errors name it: ``--set KEY=VALUE`` (a
    value that may hold a secret masked) or the flag of a typed override (``--model``),
    applied in the order ``override`` applies them (a later one replaces what it covers)."""
    origins: dict[str, str] = {}

    def note(key: str, label: str) -> None:
        for covered in [k for k in origins if k.startswith(f"{key}.")]:
            del origins[covered]
        origins[key] = label

    for item in sets:
        key, _, text = item.partition("=")
        note(key.strip(), f"--set {key.strip()}={_shown(key, text)}")
    for key in overrides or {}:
        note(key, _FLAGS.get(key, "--" + key.replace("_", "-")))
    return origins


def _blame(problem: str, source: str, origins: Mapping[str, str]) -> str:
    """``problem`` (``field: message``) led by where the field's value came from: the
    override that set the field or a mapping holding it, else ``source`` (the file)."""
    field, sep, message = problem.partition(": ")
    if not sep or not _FIELD.fullmatch(field):
        return f"{source}: {problem}"
    keys = [k for k in origins if field == k or field.startswith((f"{k}.", f"{k}["))]
    if not keys:
        return f"{source}: {problem}"
    key = max(keys, key=len)
    return f"{origins[key]}: {message if key == field else problem}"


def blame(config: EvalConfig, problem: str, source: str) -> str:
    """A problem found after validation (``field: message``), led by where the field's value
    came from: the override that set it (``validate_config`` notes them), else ``source``."""
    return _blame(problem, source, config._origins)


def _describe(err: Any) -> str:
    name = _field_name(tuple(err["loc"]))
    message = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden" and len(err["loc"]) in (1, 2):
        fields = EvalConfig.model_fields if len(err["loc"]) == 1 else None
        if err["loc"][0] == "user" and len(err["loc"]) == 2:
            fields = UserConfig.model_fields
        close = difflib.get_close_matches(str(err["loc"][-1]), fields or (), n=1)
        if close:
            message += f" (did you mean {close[0]!r}?)"
    if not err["loc"]:  # model-level errors name their field themselves
        return message
    return f"{name}: {message}"


def _check_rewards(config: EvalConfig) -> str | None:
    if not config.rewards and not config.pass_threshold:
        return None
    from agentloop.harness.config._rewards import parse_rewards  # evals is slow to import

    try:
        specs = parse_rewards(config.rewards)
    except ValueError as exc:
        return f"rewards: {exc}"
    known = {s.name for s in specs} | {s.key for s in specs}
    unknown = sorted(set(config.pass_threshold) - known)
    if unknown:
        return f"pass_threshold: {', '.join(unknown)} is not a configured reward"
    return None


def validate_config(
    raw: Any,
    source: str = "config",
    origins: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
) -> EvalConfig:
    """Validate a parsed config mapping; ``ConfigError`` lists each problem by field, led by
    ``source`` (the file), or by the override that set the field (``origins``, from
    ``override_origins``). ``notes`` (from ``override``) are kept in the config's ``notes``."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: a config must be a mapping of field: value")
    origins = origins or {}
    try:
        config = EvalConfig.model_validate(raw)
    except ValidationError as exc:
        lines = [_blame(_describe(e), source, origins) for e in exc.errors(include_url=False)]
        raise ConfigError("\n".join(lines)) from None
    problems = []
    if config.model:
        from agentloop.models import check_spec

        try:
            check_spec(config.model)
        except ModelSpecError as exc:
            problems.append(f"model: {exc}")
    if config.user is not None:
        from agentloop.models import check_spec

        try:
            check_spec(config.user.model)
        except ModelSpecError as exc:
            problems.append(f"user.model: {exc}")
        try:
            load_system_prompt(config.user.instructions, "user.instructions")
        except ConfigError as exc:
            problems.append(str(exc))
    reward_problem = _check_rewards(config)
    if reward_problem:
        problems.append(reward_problem)
    try:
        load_system_prompt(config.system_prompt)
    except ConfigError as exc:
        problems.append(str(exc))
    if problems:
        raise ConfigError("\n".join(_blame(p, source, origins) for p in problems))
    config._origins = dict(origins)
    config._notes = list(notes)
    return config


_TOOL_CHOICES = ("auto", "required", "none", "any")  # "any": LangChain's alias of "required"


def check_tool_choice(config: EvalConfig, bound: Iterable[str], source: str = "config") -> None:
    """``ConfigError`` when ``tool_choice`` names a tool (by name or as an OpenAI dict) that
    is not in ``bound``, the configured tools and the rows' schemas: every request
    would force a tool the model does not have. Not checked when factories or MCP
    servers supply tools: their names are known only once they are made."""
    if any(isinstance(t, dict) and ("factory" in t or "mcp" in t) for t in config.tools):
        return
    choice = config.tool_choice
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
    else:
        name = None if choice is None or choice in _TOOL_CHOICES else choice
    known = sorted(set(bound))
    if config.mode == "score" or not isinstance(name, str) or name in known:
        return
    close = difflib.get_close_matches(name, [*known, *_TOOL_CHOICES], n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    problem = f"tool_choice: no row binds a tool named {name!r} "
    if close and close[0] in _TOOL_CHOICES:  # a misspelt keyword, not a tool
        problem = f"tool_choice: {name!r} is not {', '.join(_TOOL_CHOICES)} nor a tool a row binds "
    raise ConfigError(
        blame(config, f"{problem}(tools: {', '.join(known) or 'none'}{hint})", source)
    )


def read_raw_config(path: str | Path) -> dict[str, Any]:
    """The YAML mapping in a config file (``ConfigError`` when unreadable or not a mapping)."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        raw = load_unique_yaml(file.read_text(encoding="utf-8"), str(path))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {_yaml_problem(exc)}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a config must be a mapping of field: value")
    return raw


def load_config(
    path: str | Path,
    sets: Sequence[str] = (),
    overrides: dict[str, Any] | None = None,
    unsets: Sequence[str] = (),
) -> EvalConfig:
    """Read, override and validate a config file.

    The file's own relative paths are taken from its folder (``relative_to``). ``unsets``
    are dotted keys removed from the file (``--unset``); ``sets`` are ``key=value`` strings
    (YAML values); ``overrides`` maps dotted keys to values already typed (command-line
    flags); all are validated with the file, and an error in one is blamed on it (``--set
    KEY=VALUE``, ``--model``), not on the file. What a model of another provider did not take
    of the file's options is in the config's ``notes``.
    """
    raw = relative_to(read_raw_config(path), Path(path).parent)
    origins = override_origins(sets, overrides)
    result, notes = override(raw, sets, overrides, unsets)
    return validate_config(result, str(path), origins, notes)


def _from_folder(folder: Path, value: str) -> str:
    """A path written in a config file of ``folder``, as a path from the working directory:
    joined to the folder, unless absolute (or ``~``), or unless the folder has no such file
    and the working directory has (a config written before paths were the config's own)."""
    if not value or value.startswith("~") or Path(value).is_absolute() or folder == Path():
        return value
    joined = folder / value
    if not joined.exists() and Path(value).exists():
        return value
    return str(joined)


def _from_folder_spec(folder: Path, spec: Any, prefixes: tuple[str, ...]) -> Any:
    """``prefix<path>`` (``@file``, ``scripted:file``) with its path from ``folder``."""
    if isinstance(spec, str):
        for prefix in prefixes:
            if spec.startswith(prefix) and len(spec) > len(prefix):
                return prefix + _from_folder(folder, spec[len(prefix) :])
    return spec


_MODEL_FILES = ("scripted:", "replay:")


def _from_folder_import(folder: Path, value: Any) -> Any:
    """An import path naming a file (``./tools.py:name``) with the file's path from
    ``folder``; a module path (``pkg.mod:name``) as it is (Python finds modules)."""
    if not isinstance(value, str):
        return value
    module, sep, name = value.rpartition(":")
    if not sep or not module or not (module.endswith(".py") or "/" in module or "\\" in module):
        return value
    return f"{_from_folder(folder, module)}:{name}"


def _imports_from_folder(result: dict[str, Any], base: Path) -> None:
    """``tools``, ``environment``, ``agent`` and ``rewards`` with their file paths from
    ``base``; a reward keyed by its path in ``pass_threshold`` follows its new name."""
    tools = result.get("tools")
    if isinstance(tools, list):
        result["tools"] = [
            {**t, **{k: _from_folder_import(base, t[k]) for k in ("path", "factory") if k in t}}
            if isinstance(t, dict)
            else _from_folder_import(base, t)
            for t in tools
        ]
    if "environment" in result:
        env = result["environment"]
        if isinstance(env, dict) and "factory" in env:
            env = {**env, "factory": _from_folder_import(base, env["factory"])}
        result["environment"] = _from_folder_import(base, env)
    agent = result.get("agent")
    if isinstance(agent, dict) and "factory" in agent:
        result["agent"] = {**agent, "factory": _from_folder_import(base, agent["factory"])}
    elif agent is not None:
        result["agent"] = _from_folder_import(base, agent)
    rewards, renamed = result.get("rewards"), {}
    if isinstance(rewards, list):
        moved = []
        for spec in rewards:
            name = next(iter(spec)) if isinstance(spec, dict) and len(spec) == 1 else spec
            new = _from_folder_import(base, name)
            if new != name:
                renamed[name] = new
                spec = {new: spec[name]} if isinstance(spec, dict) else new
            moved.append(spec)
        result["rewards"] = moved
    thresholds = result.get("pass_threshold")
    if renamed and isinstance(thresholds, dict):
        moved_keys = {}
        for key, value in thresholds.items():
            name, hash_, n = str(key).partition("#")  # name#2: the reward listed again
            moved_keys[renamed.get(name, name) + hash_ + n] = value
        result["pass_threshold"] = moved_keys


def relative_to(raw: dict[str, Any], folder: str | Path) -> dict[str, Any]:
    """A copy of a config file's mapping with the paths of the files it reads joined to
    the file's ``folder`` (see the module doc): ``dataset`` (not ``bfcl:``, ``tau2:`` or
    ``agentdojo:``), ``system_prompt`` and ``user.instructions`` given as ``@file``, the
    files of ``scripted:`` and ``replay:`` specs in ``model`` and ``user.model``, and the
    files of import paths (``_imports_from_folder``). Values of the wrong type are left for
    validation to report."""
    from agentloop.benchmarks import agentdojo_suite, bfcl_category, tau2_domain

    base, result = Path(folder), dict(raw)
    _imports_from_folder(result, base)
    dataset = result.get("dataset")
    named = (bfcl_category, tau2_domain, agentdojo_suite)
    if isinstance(dataset, str) and all(f(dataset) is None for f in named):
        result["dataset"] = _from_folder(base, dataset)
    for key, prefixes in (("system_prompt", ("@",)), ("model", _MODEL_FILES)):
        if key in result:
            result[key] = _from_folder_spec(base, result[key], prefixes)
    if isinstance(result.get("user"), dict):
        user = result["user"] = dict(result["user"])
        for key, prefixes in (("instructions", ("@",)), ("model", _MODEL_FILES)):
            if key in user:
                user[key] = _from_folder_spec(base, user[key], prefixes)
    return result


def _unset(raw: dict[str, Any], key: str) -> None:
    """Remove a dotted key the config has (``--unset``); one it has not is an error."""
    parts, node = key.split("."), raw
    for depth, part in enumerate(parts):
        if not isinstance(node, dict) or part not in node:
            where = ".".join(parts[:depth]) or "the config"
            has = sorted(node) if isinstance(node, dict) else []
            close = difflib.get_close_matches(part, has, n=1)
            hint = f"; did you mean {'.'.join([*parts[:depth], close[0]])!r}?" if close else ""
            raise ConfigError(f"--unset {key}: {where} has no {part!r}{hint}")
        if depth == len(parts) - 1:
            del node[part]
        else:
            node = node[part]


def _follow_model(
    written: dict[str, Any], result: dict[str, Any], origins: Mapping[str, str]
) -> list[str]:
    """When the command line puts a model of another provider in place of the file's (agent
    or user), the file's ``model_options`` that the new provider must not get are dropped
    (``agentloop.models.follow_options``: never the key's variable or the endpoint); options
    set on the command line stay. One note per option dropped."""
    notes = []
    for place in ("", "user."):
        before = written.get("user") if place else written
        after = result.get("user") if place else result
        if not isinstance(before, dict) or not isinstance(after, dict):
            continue
        old, new, options = before.get("model"), after.get("model"), after.get("model_options")
        if not (isinstance(old, str) and isinstance(new, str) and isinstance(options, dict)):
            continue
        if old == new:
            continue
        # Only now: the model registry loads LangChain, which a config error never needs.
        from agentloop.models import BOUND_OPTIONS, follow_options

        field = f"{place}model_options"
        try:
            kept, dropped = follow_options(old, new, options)
        except ModelSpecError:
            continue  # a bad spec is validation's to report
        for name in list(dropped):
            key = f"{field}.{name}"
            if any(key == k or key.startswith(f"{k}.") for k in origins):
                kept[name] = options[name]  # the command line's own
                del dropped[name]
        after["model_options"] = {k: v for k, v in options.items() if k in kept}
        lead = origins.get(f"{place}model", f"{place}model")
        for name, why in dropped.items():
            hint = f"; --set {field}.{name}=... sets one for it" if name in BOUND_OPTIONS else ""
            notes.append(f"{lead}: {field}.{name} not used ({why}){hint}")
    return notes


def override(
    raw: dict[str, Any],
    sets: Sequence[str] = (),
    overrides: dict[str, Any] | None = None,
    unsets: Sequence[str] = (),
) -> tuple[dict[str, Any], list[str]]:
    """``raw`` without the ``--unset`` keys, then with ``--set`` strings and typed overrides
    applied; and the notes on what a model from the command line did not take of the file
    (``_follow_model``).

    A ``model`` override that replays a run replays its simulated user too, unless a
    ``--set user.model=...`` says otherwise: a recorded agent can only answer the recorded
    user's messages, so a live user beside it would fail every sample.
    """
    written = copy.deepcopy(raw)
    for key in unsets:
        _unset(written, key.strip())
    result = apply_overrides(written, sets)
    for key, value in (overrides or {}).items():
        _set_dotted(result, key, value)
    model, user = (overrides or {}).get("model"), result.get("user")
    user_set = any(item.partition("=")[0].strip() in ("user", "user.model") for item in sets)
    if isinstance(model, str) and model.startswith("replay:") and isinstance(user, dict):
        user["model"] = user["model"] if user_set else model
    return result, _follow_model(written, result, override_origins(sets, overrides))
