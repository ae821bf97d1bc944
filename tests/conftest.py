"""Test-wide guards: no request leaves the machine; this installation's command on PATH."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def _is_loopback_host(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str):
        return False
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _check(address: Any) -> None:
    if isinstance(address, tuple) and not _is_loopback_host(address[0]):
        raise ConnectionRefusedError(f"tests may only connect to loopback, not {address[0]!r}")


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check(address)
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check(address)
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if host is not None and not _is_loopback_host(host):
        raise socket.gaierror(f"tests may not resolve non-loopback host {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def _loopback_only() -> Iterator[None]:
    patches = {
        "connect": _guarded_connect,
        "connect_ex": _guarded_connect_ex,
    }
    for name, fn in patches.items():
        setattr(socket.socket, name, fn)
    socket.getaddrinfo = _guarded_getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = _real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = _real_getaddrinfo


_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def _no_proxy_from_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    # The HTTP clients honour these as httpx does: a developer's proxy must not carry the
    # tests' loopback requests (tests that test proxies set their own).
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture(autouse=True)
def _agentloop_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # The commands the CLI prints say `agentloop` when this installation's command is on
    # PATH, as in an activated environment; tests/cli/test_command_name.py tests the others.
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([bin_dir, os.environ.get("PATH", "")]))


# aiohttp 3.14 (required by inspect-ai's aiobotocore) deprecates subclassing ClientSession,
# which google-genai 3.6 does when it is imported: a third party's warning, which -W error
# would turn into a failed google_genai model in every test that opens one.
_THIRD_PARTY_WARNINGS = pytest.mark.filterwarnings(
    "ignore:Inheritance class AiohttpClientSession from ClientSession:DeprecationWarning"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(_THIRD_PARTY_WARNINGS)
