"""A socket guard for test subprocesses (put this folder on ``PYTHONPATH``; Python imports
``sitecustomize`` at start): every connection or name lookup outside loopback is appended to the
file ``WFM_TEST_OUTSIDE_LOG`` names, and refused."""

from __future__ import annotations

import os
import socket
from typing import Any

_LOG = os.environ.get("WFM_TEST_OUTSIDE_LOG")
_LOCAL = ("127.0.0.1", "::1", "localhost")
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _outside(what: object) -> None:
    if _LOG:
        with open(_LOG, "a") as log:
            log.write(repr(what) + "\n")


def _is_outside(sock: socket.socket, address: Any) -> bool:
    family_ok = sock.family in (socket.AF_INET, socket.AF_INET6)
    return family_ok and isinstance(address, tuple) and str(address[0]) not in _LOCAL


def connect(self: socket.socket, address: Any) -> None:
    if _is_outside(self, address):
        _outside(("connect", address))
        raise OSError("refused by the test's guard: outside loopback")
    _connect(self, address)


def connect_ex(self: socket.socket, address: Any) -> int:
    if _is_outside(self, address):
        _outside(("connect_ex", address))
        return 111  # ECONNREFUSED
    return _connect_ex(self, address)


def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    name = host.decode() if isinstance(host, bytes) else host
    if name is not None and str(name) not in _LOCAL:
        _outside(("getaddrinfo", name))
        raise socket.gaierror(socket.EAI_NONAME, "refused by the test's guard: outside loopback")
    return _getaddrinfo(host, *args, **kwargs)


if _LOG:
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
