"""A config's ``agent:`` field: every wrong shape is a one-line error naming the config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentloop.errors import ConfigError
from agentloop.harness import load_config
from tests.support.harness import add_setup


@pytest.mark.parametrize(
    ("agent", "says"),
    [
        ({"command": []}, "agent: command: a non-empty list"),
        ({}, "agent: give one of factory, command or url"),
        ({"factory": "a:b", "command": ["x"]}, "agent: give one of factory, command or url"),
        ({"command": ["x"], "args": {"a": 1}}, "args is for a factory"),
        ({"factory": "a:b", "env": {"A": "b"}}, "agent: env is for a command"),
        ({"url": "http://10.1.2.3:8000/agent"}, "agent: url: 10.1.2.3 is not this machine"),
        ({"url": "ftp://127.0.0.1/x"}, "is not an http(s) URL"),
        ({"url": "http://127.0.0.1:1/", "env": {"A": "b"}}, "env is for a command"),
        ({"command": ["x"], "headers_env": {"A": "B"}}, "headers_env and allow_remote are for"),
        ({"url": "http://127.0.0.1:1/", "command": ["x"]}, "give one of factory, command or url"),
    ],
)
def test_a_wrong_agent_field_is_a_one_line_config_error(
    tmp_path: Path, agent: dict[str, Any], says: str
) -> None:
    config = add_setup(tmp_path, 1, agent=agent)
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert str(raised.value).startswith(f"{config}: ")
    assert says in str(raised.value)
    assert "\n" not in str(raised.value)
