"""``scripted:<file>``: replies from a file, for examples, demos and tests.

The file is JSON (or YAML): either a list of replies used for every sample, or an
object mapping sample ids to reply lists (``"*"`` is the fallback for other ids); a key
``ID@EPOCH`` (``s1@2``) answers that epoch of the sample only, before ``ID``.
A reply is a string (final answer) or an OpenAI-format assistant message dict.
The option ``latency`` (seconds) is awaited before each reply. The connection options of
the models that talk to a server (``api_key_env``, ``base_url``, ...) are ignored, as replay
ignores them: ``--model scripted:...`` keeps the rest of a config written for a live model
(a simulated user's too). Sampling params do not change the replies, but their names are
checked like every provider's, so a typo in a config fails here as it would under
``openai:``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from agentloop.errors import ModelSpecError
from agentloop.models._base import ModelSource, ProviderFactory, check_param_names
from agentloop.testing import ScriptedChatModel, to_ai_message

__all__ = ["FACTORIES", "ScriptedSource", "missing_scripts", "read_script"]


def read_script(path: str) -> dict[str, list[Any]]:
    """A script file's replies by sample id (``"*"``: every other sample), as written;
    ``ModelSpecError`` (one line) when it is missing or not a script."""
    file = Path(path)
    if not file.is_file():
        raise ModelSpecError(f"scripted model file not found: {path}")
    try:
        text = file.read_text(encoding="utf-8")
        data = json.loads(text) if file.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ModelSpecError(f"cannot read scripted model file {path}: {exc}") from exc
    if isinstance(data, list):
        data = {"*": data}
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ModelSpecError(
            f"{path}: a script is a list of replies or an object of sample id -> replies"
        )
    return {str(k): v for k, v in data.items()}


def missing_scripts(spec: str, sample_ids: Iterable[str]) -> list[str]:
    """The ids among ``sample_ids`` that the ``scripted:<file>`` spec has no replies for
    (none when it has ``"*"``, or is not a scripted spec), in order, each once."""
    prefix, _, path = spec.partition(":")
    if prefix != "scripted" or not path:
        return []
    scripts = read_script(path)
    if "*" in scripts:
        return []
    epochs = {k.rpartition("@")[0] for k in scripts if "@" in k}
    return list(dict.fromkeys(i for i in sample_ids if i not in scripts and i not in epochs))


class ScriptedSource(ModelSource):
    """A fresh ``ScriptedChatModel`` per sample and epoch, from a script file."""

    def __init__(self, path: str, params: dict[str, Any], options: dict[str, Any]) -> None:
        unknown = set(options) - {"latency", "replay_tools"}
        if unknown:  # a config written for a live model (imported only then: it is slow)
            from agentloop.models._replay import SERVER_OPTIONS

            unknown -= SERVER_OPTIONS
        if unknown:
            raise ModelSpecError(
                f"unknown scripted model option(s): {', '.join(sorted(unknown))}; known: latency"
            )
        check_param_names(params)
        data = read_script(path)
        try:
            self.scripts = {str(k): [to_ai_message(r) for r in v] for k, v in data.items()}
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            # LangChain's converter raises KeyError/AttributeError on malformed tool calls.
            raise ModelSpecError(f"{path}: bad reply: {type(exc).__name__}: {exc}") from exc
        latency = options.get("latency", 0.0)
        if isinstance(latency, bool) or not isinstance(latency, (int, float)) or latency < 0:
            raise ModelSpecError(
                f"model option latency must be a non-negative number, not {latency!r}"
            )
        self.latency = float(latency)
        self.path = path

    def for_sample(self, sample_id: str, epoch: int) -> ScriptedChatModel:
        script = self.scripts.get(f"{sample_id}@{epoch}")
        if script is None:
            script = self.scripts.get(sample_id, self.scripts.get("*"))
        if script is None:
            raise ModelSpecError(f"{self.path} has no script for sample {sample_id!r} and no '*'")
        return ScriptedChatModel(script, latency=self.latency, model_name=f"scripted:{self.path}")

    async def aclose(self) -> None:
        return None


FACTORIES: dict[str, ProviderFactory] = {"scripted": ScriptedSource}
"""The ``scripted:`` prefix (``agentloop.models._base`` reads it)."""
