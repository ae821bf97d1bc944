"""Model specs: one function turns a spec string into a source of chat models.

A spec is ``prefix:value``. Each prefix names a provider registered here; a
provider opens a ``ModelSource`` (which may own resources, like a local server
process) that hands out a chat model per sample.
"""

from __future__ import annotations

from agentloop.models.base import (
    ModelSource,
    SharedModelSource,
    check_spec,
    known_prefixes,
    open_model,
    register_provider,
)
from agentloop.models.scripted import ScriptedSource

__all__ = [
    "ModelSource",
    "ScriptedSource",
    "SharedModelSource",
    "check_spec",
    "known_prefixes",
    "open_model",
    "register_provider",
]
