"""The ``agentloop`` chat format of the local server: any number of tools, any ``tool_choice``.

It runs inside llama-cpp-python's server process: ``local:`` starts the server through
``serve``, and ``python -m agentloop.models._local_chat <server arguments>`` starts one
by hand. llama-cpp-python's own ``chatml-function-calling``
asserts ``tool_choice == "auto"`` when several tools are bound (an HTTP 500 without a
cause), renders the prompt with HTML escaping (the model reads ``&#34;``) and in ChatML,
which Gemma does not know. Here:

- the turns are the model's own: the GGUF's chat template if it has one, else Gemma's
  turn markers when the vocabulary has them, else ChatML; nothing is escaped;
- the tools are described in the system text, and a call is a ``<tool_call>`` block
  holding ``{"name": ..., "arguments": {...}}``, which a grammar built from the tools'
  JSON schemas keeps to a bound tool and its parameters;
- ``required`` or a named tool: the reply is one call. ``auto``: the model writes freely,
  and where it opens a ``<tool_call>`` block the call is generated under the grammar.
  ``none``: text, as written (a call written as text stays text, as an OpenAI-compatible
  server returns it);
- a reply ends where the model's turn ends (``turn_end``): at its end-of-turn token (or
  where it starts a new turn), where a call ends, and before a ``<tool_response>`` it
  starts to invent, whatever the ``tool_choice``. A small model left to go on writes
  calls and made-up results until ``max_tokens`` or the end of the context;
- each request is evaluated from an empty context, so a reply does not depend on which
  request the server answered before it (the prompt-prefix cache would otherwise make
  temperature 0 differ between runs).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import runpy
import sys
import time
from typing import Any

from jinja2.sandbox import ImmutableSandboxedEnvironment
from llama_cpp import Llama, LlamaGrammar
from llama_cpp.llama_chat_format import register_chat_completion_handler

from agentloop._content import content_text

__all__ = ["FORMAT", "chat_handler", "serve", "tool_instructions", "turn_end"]

FORMAT = "agentloop"
OPEN, CLOSE = "<tool_call>", "</tool_call>"
# How a tool's result is shown to the model (prompt_messages): a reply that writes either
# tag is making one up.
RESULTS = ("<tool_response>", "</tool_response>")

_GEMMA = (
    "{{ bos_token }}{% for m in messages %}"
    "<start_of_turn>{{ 'model' if m.role == 'assistant' else 'user' }}\n"
    "{{ m.content }}<end_of_turn>\n{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)
_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tool_instructions(tools: list[dict[str, Any]]) -> str:
    """The system text that describes the tools and the call format."""
    lines = "\n".join(json.dumps(t.get("function", t), ensure_ascii=False) for t in tools)
    return (
        f"You can call these tools (JSON schemas):\n{lines}\n\n"
        f"To call a tool, reply with\n{OPEN}\n"
        '{"name": "<tool name>", "arguments": {<the arguments>}}\n'
        f"{CLOSE}\nTo answer the user instead, reply in plain text."
    )


def turn_end(text: str, calls: bool) -> tuple[int, bool] | None:
    """Where the model's turn ends in ``text``, the reply written so far: ``(end, call)``,
    the reply being ``text[:end]`` and ``call`` true when the model opens a call there
    (its body is then generated under the grammar); None while the turn goes on.

    With ``calls`` (a tool may be called), the turn ends where a ``<tool_call>`` opens.
    Without, a call written as text stays text, and the turn ends where that call closes.
    Either way it ends before a ``<tool_response>`` (or ``</tool_response>``) the model
    starts to write: a result is the tool's, in the next turn, and what follows is made up.
    """
    result = min((i for i in (text.find(tag) for tag in RESULTS) if i != -1), default=-1)
    marker = OPEN if calls else CLOSE
    found = text.find(marker)
    if found != -1 and (result == -1 or found < result):
        return (found, True) if calls else (found + len(CLOSE), False)
    if result != -1:
        return len(text[:result].rstrip()), False
    return None


def _call_text(call: dict[str, Any]) -> str:
    function = call.get("function") or {}
    raw = function.get("arguments")
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        arguments = raw  # as the model wrote it
    body = json.dumps({"name": function.get("name"), "arguments": arguments}, ensure_ascii=False)
    return f"{OPEN}\n{body}\n{CLOSE}"


def prompt_messages(
    messages: list[dict[str, Any]], instructions: str | None
) -> list[dict[str, str]]:
    """The conversation as plain system/user/assistant turns: calls and results written
    as text, the tool instructions added to the system text, and neighbouring turns of
    one role merged (chat templates such as Gemma's require strict alternation)."""
    turns: list[dict[str, str]] = []
    if instructions is not None:
        turns.append({"role": "system", "content": instructions})
    for message in messages:
        role, text = message.get("role"), content_text(message.get("content"))
        if role == "assistant":
            calls = [_call_text(c) for c in message.get("tool_calls") or []]
            text = "\n".join([text, *calls] if text else calls)
        elif role == "tool":
            role, text = "user", f"<tool_response>\n{text}\n</tool_response>"
        elif role != "user":
            role = "system"  # system and developer
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] = f"{turns[-1]['content']}\n\n{text}"
        else:
            turns.append({"role": role, "content": text})
    return turns


class _Renderer:
    """The model's turn format, read once per loaded model."""

    def __init__(self, llama: Llama) -> None:
        template = llama.metadata.get("tokenizer.chat_template")
        self.gemma = template is None and len(_tokens(llama, "<start_of_turn>")) == 1
        if template is None:
            template = _GEMMA if self.gemma else _CHATML
        self.end = "<end_of_turn>" if self.gemma else "<|im_end|>"
        # Where the model's turn ends as text: its end marker, or a next turn it begins.
        self.stops = [self.end, "<start_of_turn>" if self.gemma else "<|im_start|>"]
        self._template = ImmutableSandboxedEnvironment(  # no autoescape: plain text
            trim_blocks=True, lstrip_blocks=True
        ).from_string(template)
        self._bos = llama.detokenize([llama.token_bos()]).decode("utf-8", "replace")

    def __call__(self, turns: list[dict[str, str]]) -> str:
        if self.gemma and len(turns) > 1 and turns[0]["role"] == "system":
            # Gemma has no system turn: its text opens the first user turn, as Gemma's
            # own template does.
            first, second, *rest = turns
            if second["role"] == "user":
                opening = f"{first['content']}\n\n{second['content']}"
                turns = [{"role": "user", "content": opening}, *rest]
        return self._template.render(
            messages=turns, add_generation_prompt=True, bos_token=self._bos, eos_token=""
        )


def _tokens(llama: Llama, text: str) -> list[int]:
    return llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)


_RENDERERS: dict[int, _Renderer] = {}


def _call_grammar(tools: list[dict[str, Any]]) -> LlamaGrammar:
    """A grammar for one ``{"name": ..., "arguments": {...}}`` object naming one of
    ``tools``, its arguments held to that tool's parameter schema."""
    options = []
    for tool in tools:
        function = tool.get("function", tool)
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        options.append(
            {
                "type": "object",
                "properties": {"name": {"const": function["name"]}, "arguments": parameters},
                "required": ["name", "arguments"],
            }
        )
    schema = options[0] if len(options) == 1 else {"anyOf": options}
    return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)


_COMPLETION_ARGS = frozenset(inspect.signature(Llama.create_completion).parameters) - {
    "self",
    "prompt",
    "stop",
    "grammar",
    "stream",
    "max_tokens",
    "logprobs",
    "echo",
    "suffix",
}


def chat_handler(
    llama: Llama,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    tool_choice: Any = None,
    max_tokens: int | None = None,
    stop: str | list[str] | None = None,
    stream: bool = False,
    **kwargs: Any,
) -> dict[str, Any]:
    """One chat completion in the OpenAI form (see the module's docstring)."""
    if stream:
        raise ValueError("the agentloop chat format does not stream: send stream=false")
    tools = list(tools or [])
    choice = tool_choice if tool_choice is not None else ("auto" if tools else "none")
    allowed = _allowed(tools, choice)
    renderer = _RENDERERS.get(id(llama)) or _RENDERERS.setdefault(id(llama), _Renderer(llama))
    turns = prompt_messages(messages, tool_instructions(tools) if allowed else None)
    prompt = renderer(turns)
    stops = [*renderer.stops, *([stop] if isinstance(stop, str) else stop or [])]
    sampling = {k: v for k, v in kwargs.items() if k in _COMPLETION_ARGS}
    llama.reset()  # an empty context: the reply does not depend on the request before it

    def call_body(text: str) -> tuple[str, str]:
        """A call's body after ``text``, under the grammar (which ends it: nothing but the
        end of the reply may follow a complete call)."""
        out: Any = llama.create_completion(
            prompt=text, max_tokens=max_tokens, stop=[], grammar=_call_grammar(allowed), **sampling
        )
        choice0 = out["choices"][0]
        return choice0["text"], choice0["finish_reason"] or "stop"

    def free_text(calls: bool) -> tuple[str, str, bool]:
        """The model's own text, up to where its turn ends (``turn_end``); true when it
        opens a call there."""
        chunks: Any = llama.create_completion(
            prompt=prompt, max_tokens=max_tokens, stop=stops, stream=True, **sampling
        )
        text, finish = "", "stop"
        try:
            for chunk in chunks:
                choice0 = chunk["choices"][0]
                text += choice0["text"]
                end = turn_end(text, calls)
                if end is not None:
                    return text[: end[0]], "stop", end[1]
                finish = choice0["finish_reason"] or finish
        finally:
            chunks.close()  # stops the generation where the turn ended
        return text, finish, False

    content, finish = "", "stop"
    body: str | None = None
    if allowed and choice != "auto":  # required or a named tool: one call
        body, finish = call_body(f"{prompt}{OPEN}\n")
    elif allowed:
        text, finish, opened = free_text(calls=True)
        content = text.rstrip() if opened else text
        if opened:  # the model chose to call: the call, under the grammar
            body, finish = call_body(f"{prompt}{text}{OPEN}\n")
    else:  # no tool may be called: the text, as written, up to the end of the turn
        content, finish, _ = free_text(calls=False)
    return _response(llama, prompt, content, body, finish, kwargs.get("model"))


def _allowed(tools: list[dict[str, Any]], choice: Any) -> list[dict[str, Any]]:
    """The tools the reply may call under ``choice`` (none: a text reply)."""
    if choice == "none" or not tools:
        if choice not in ("none", "auto") and not tools:
            raise ValueError(f"tool_choice {choice!r} needs tools, and none were sent")
        return []
    if choice in ("auto", "required"):
        return tools
    name = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
    if name is None:
        raise ValueError(f"unknown tool_choice {choice!r}: use none, auto, required or a tool")
    named = [t for t in tools if t.get("function", t).get("name") == name]
    if not named:
        raise ValueError(f"tool_choice names {name!r}, which is not among the tools sent")
    return named


_CUT_CALL = re.compile(r'\s*\{\s*"name"\s*:\s*"([^"\\]*)"\s*,\s*"arguments"\s*:\s*(.*)', re.DOTALL)


def _call(body: str) -> tuple[str, str] | None:
    """The name and arguments text of a generated call; a call cut by ``max_tokens``
    keeps its cut arguments, as an OpenAI endpoint returns them (not JSON)."""
    try:
        call = json.loads(body)
    except json.JSONDecodeError:
        cut = _CUT_CALL.match(body)
        return (cut[1], cut[2]) if cut else None
    return call["name"], json.dumps(call["arguments"], ensure_ascii=False)


def _response(
    llama: Llama, prompt: str, content: str, body: str | None, finish: str, model: Any
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    written = content
    if body is not None:
        written = f"{content}{OPEN}\n{body}"
        call = _call(body)
        if call is None:  # cut before the name was complete: only text
            message["content"] = written
        else:
            digest = hashlib.sha256(f"{prompt}{body}".encode()).hexdigest()[:24]
            function = {"name": call[0], "arguments": call[1]}
            message["tool_calls"] = [
                {"id": f"call_{digest}", "type": "function", "function": function}
            ]
            finish = "tool_calls" if finish == "stop" else finish
    prompt_tokens = len(_tokens(llama, prompt))
    completion_tokens = len(_tokens(llama, written)) if written else 0
    return {
        "id": f"chatcmpl-{hashlib.sha256(prompt.encode()).hexdigest()[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model or llama.model_path,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


register_chat_completion_handler(FORMAT)(chat_handler)


def serve(argv: list[str]) -> None:
    """llama-cpp-python's server with this format registered (``argv``: its arguments)."""
    sys.argv = ["llama_cpp.server", *argv]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":  # python -m agentloop.models._local_chat <server arguments>
    serve(sys.argv[1:])
