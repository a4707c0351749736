"""Run the emulator as its own process for benchmarks, so its CPU does not share our GIL."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx


class EmulatorProcess:
    """``wfm-sync emulator`` on a free loopback port; ``url``, ``stats()``, ``control()``.

    Args:
        **options: CLI options of ``wfm-sync emulator`` (``users=...``, ``latency=...``, ...).
    """

    def __init__(self, **options: Any) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        args = [
            str(Path(sys.executable).with_name("wfm-sync")),
            "emulator",
            "--port",
            str(self.port),
        ]
        for key, value in options.items():
            flag = "--" + key.replace("_", "-")
            if value is True:
                args.append(flag)
            elif value is not False:
                args += [flag, str(value)]
        self._args = args
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> EmulatorProcess:
        self._process = subprocess.Popen(self._args, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 1800  # a large account on a busy machine
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the emulator exited with {self._process.returncode}")
            try:
                httpx.get(self.url + "/_emulator/stats", timeout=2)
                return self
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("the emulator did not start")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(30)

    def stats(self) -> dict[str, Any]:
        result: dict[str, Any] = httpx.get(self.url + "/_emulator/stats", timeout=30).json()
        return result

    def control(self, action: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        response = httpx.post(f"{self.url}/_emulator/{action}", json=body or {}, timeout=300)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result
