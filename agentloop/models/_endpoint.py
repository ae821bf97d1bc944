"""An OpenAI-compatible endpoint as users see it: its URL without credentials, and the
preflight check that it answers before a run starts.

The check is one cheap request: ``GET <base_url>/models``. A server that answers it
(any 2xx) is reachable. Connection errors and timeouts fail at once. Any other status
(404 from servers without a listing, 401/403 from keys without permission to list)
is settled by one chat completion limited to 1 token: 2xx passes; 401, 403 and 404
fail (a rejected key, no chat route, an unknown model); anything else (429, 5xx, a 400
about the token limit) passes, since the server is up and the run's own retries and
error records handle the rest.
"""

from __future__ import annotations

from collections.abc import Callable

import openai
from openai.types.chat import ChatCompletionMessageParam

from agentloop._secrets import mask_url
from agentloop.errors import ModelSpecError

__all__ = ["check_endpoint", "display_url"]

_LISTING_TIMEOUT_S = 30.0  # the listing is cheap: a server that takes longer is not well
_REFUSED = frozenset({401, 403, 404})
_SKIP = "--no-preflight or preflight: false skips this check"
_TEST_REQUEST = {
    "chat_completions": "a 1-token chat completion",
    "responses": "a 16-token response",
}


def display_url(url: str) -> str:
    """``url`` as printed and recorded: its secrets masked (``agentloop._secrets``)."""
    return mask_url(url)


def _server_message(exc: openai.APIStatusError, mask: Callable[[str], str]) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    text = body.get("message") if isinstance(body, dict) else None
    text = " ".join(mask(text if isinstance(text, str) else exc.message).split())
    return text if len(text) <= 200 else text[:197] + "..."


async def check_endpoint(
    client: openai.AsyncOpenAI,
    model: str,
    endpoint: str,
    *,
    max_tokens_field: str = "max_completion_tokens",
    mask: Callable[[str], str] = str,
    api: str = "chat_completions",
) -> None:
    """Raise a one-line ``ModelSpecError`` naming ``endpoint`` when ``model`` cannot be
    reached there (see the module doc); ``mask`` hides the key in a server's message.
    With ``api="responses"`` the test request is a Responses API request (16 tokens, its
    least)."""
    where = f"the openai:{model} endpoint {endpoint}"
    timeout = client.timeout if isinstance(client.timeout, (int, float)) else None
    listing = min(timeout or _LISTING_TIMEOUT_S, _LISTING_TIMEOUT_S)
    try:
        try:
            await client.with_options(timeout=listing).models.list()
            return
        except openai.APIStatusError:
            pass  # reachable, but no listing for us: one chat request decides
        ping: list[ChatCompletionMessageParam] = [{"role": "user", "content": "ping"}]
        if api == "responses":
            await client.responses.create(model=model, input="ping", max_output_tokens=16)
        elif max_tokens_field == "max_tokens":  # servers that only read the legacy field
            await client.chat.completions.create(model=model, messages=ping, max_tokens=1)
        else:
            await client.chat.completions.create(
                model=model, messages=ping, max_completion_tokens=1
            )
    except openai.APIConnectionError as exc:  # timeouts included
        raise ModelSpecError(
            f"cannot reach {where}: {type(exc).__name__}: {' '.join(mask(str(exc)).split())} "
            f"(is the server running? {_SKIP})"
        ) from None
    except openai.APIStatusError as exc:
        if exc.status_code in _REFUSED:
            raise ModelSpecError(
                f"{where} refused a test request ({_TEST_REQUEST[api]}): HTTP "
                f"{exc.status_code}: {_server_message(exc, mask)} ({_SKIP})"
            ) from None
