"""A reply's text decoded as BFCL's prompting handlers decode it, without running the
model's code."""

from __future__ import annotations

import pytest
from agentloop.evals import BFCL_PROMPT_FORMATS, bfcl_prompt_format
from agentloop.evals._bfcl_formats import decode_reply

PY = bfcl_prompt_format(BFCL_PROMPT_FORMATS[3])  # Python calls, no tag
PY_TAG = bfcl_prompt_format(BFCL_PROMPT_FORMATS[0])
JSON = bfcl_prompt_format(BFCL_PROMPT_FORMATS[9])


def test_python_calls_read_as_bfcl_reads_them() -> None:
    text = "```\nmod.sub.f(a=1, b=[1, (2, 3)], c={'k': None}, d=x, e=g(1), h=+5, i=s[0]), g()\n```"
    assert decode_reply(text, PY) == [
        {
            "mod.sub.f": {
                "a": 1,
                "b": [1, (2, 3)],
                "c": {"k": None},
                "d": "x",
                "e": "g(1)",
                "h": -5,
                "i": "s[0]",
            }
        },
        {"g": {}},
    ]
    assert decode_reply("f(1, 2, a=...)", PY) == [{"f": {"a": "..."}}]  # positional dropped
    assert decode_reply("[f(a=2**10, b='x' + 'y', c=7 // 2)]", PY) == [
        {"f": {"a": 1024, "b": "xy", "c": 3}}
    ]


@pytest.mark.parametrize(
    "text",
    [
        "[f(a=__import__('os').getcwd() + 'x')]",  # code BFCL would run: refused
        "[f(a=9**9**9)]",  # a power too large to build (BFCL hangs)
        "[f(a='x' * 100000000)]",
        "[f(a=lambda: 1)]",
        "[f(a={**d})]",
        "[f(a=-x)]",
        "[f(a=-'s')]",
        "[1, f(a=1)]",
        "x",
        "[f(a=" + "[" * 2000 + "]" * 2000 + ")]",
    ],
)
def test_what_bfcl_cannot_read_fails(text: str) -> None:
    with pytest.raises(Exception):  # noqa: B017 (any exception fails the entry, as in BFCL)
        decode_reply(text, PY)


def test_the_tag_and_the_json_format() -> None:
    assert decode_reply("Sure. <TOOLCALL>[f(a=1)]</TOOLCALL>", PY_TAG) == [{"f": {"a": 1}}]
    with pytest.raises(ValueError, match="no <TOOLCALL> section"):
        decode_reply("[f(a=1)]", PY_TAG)
    reply = 'Here:\n```json\n[{"function": "f", "parameters": {"a": [1]}}]\n```'
    assert decode_reply(reply, JSON) == [{"f": {"a": [1]}}]
    assert decode_reply("not json at all", JSON) == []  # BFCL's parser gives no calls


def test_an_unknown_format_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="not a BFCL prompt format: 'ret_fmt=yaml'"):
        bfcl_prompt_format("ret_fmt=yaml")
