"""Which of a config's model options follow a model the command line puts in its place
(``--model``, ``--set user.model=``): a key goes only to the provider it was named for.
"""

from __future__ import annotations

from typing import Any

from agentloop.models._base import _PROVIDERS, _split

__all__ = ["BOUND_OPTIONS", "follow_options"]

# Options that say where requests go and with which key: they belong to the provider they
# were written for and never follow a spec to another one.
BOUND_OPTIONS = ("api_key_env", "base_url")
# Providers that send no request: a config written for a live model runs with them as is.
_OFFLINE = ("scripted", "replay")


def _options_of(prefix: str) -> frozenset[str] | None:
    """The option names a built-in provider takes; None for one registered by the user."""
    if prefix in _PROVIDERS:
        return None
    from agentloop.models._local import LOCAL_OPTIONS
    from agentloop.models._openai import OPENAI_OPTIONS
    from agentloop.models._providers import OPTIONS, PROVIDERS

    if prefix == "openai":
        return OPENAI_OPTIONS
    if prefix == "local":
        return LOCAL_OPTIONS
    return frozenset(OPTIONS) if prefix in PROVIDERS else None


def follow_options(
    written_for: str, spec: str, options: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The options a config wrote for the model ``written_for`` that go with ``spec`` when a
    command line replaces the model: all of them for the same provider, or for one that sends
    no request (``scripted:``, ``replay:``); else those the other provider takes, never the
    key's variable or the endpoint (``BOUND_OPTIONS``): a key goes only to the provider it was
    named for. Returns the options kept and, for each one dropped, why (a short phrase)."""
    old, new = _split(written_for)[0], _split(spec)[0]
    if old == new or new in _OFFLINE:
        return dict(options), {}
    known = _options_of(new)
    kept: dict[str, Any] = {}
    dropped: dict[str, str] = {}
    for name, value in options.items():
        if name in BOUND_OPTIONS:
            dropped[name] = (
                f"written for {old}:; a key or an endpoint goes only to the provider it was "
                f"named for"
            )
        elif known is not None and name not in known:
            dropped[name] = f"{new}: models do not take it"
        else:
            kept[name] = value
    return kept, dropped
