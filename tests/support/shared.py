"""Work done once per test run and shared by every pytest-xdist worker: the first worker to ask
builds it under a file lock in the run's shared temporary folder and leaves its result there
(pickled); the others wait for the lock and read the result. A session- or module-scoped
fixture alone is built once per worker, so twice with ``-n 2`` when its tests land on both."""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from filelock import FileLock

T = TypeVar("T")


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder every worker of this run shares (without xdist: the run's own)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T]
) -> T:
    """``build(folder)``'s result, computed by the first worker that asks for ``name`` (in
    ``folder``, a new folder of the shared one, where the result's files belong) and read back
    by every other worker. The result must pickle (paths, numbers, text, dataclasses of them).

    Raises:
        Whatever ``build`` raises, in the worker that ran it; a later worker builds again.
    """
    shared = run_folder(tmp_path_factory)
    result = shared / f"{name}.pickle"
    with FileLock(str(shared / f"{name}.lock")):
        if not result.exists():
            folder = shared / name
            shutil.rmtree(folder, ignore_errors=True)  # what a build that raised left behind
            folder.mkdir()
            value = build(folder)
            result.write_bytes(pickle.dumps(value))
    loaded: T = pickle.loads(result.read_bytes())
    return loaded
