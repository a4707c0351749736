"""The sync's own memory: what a finished step freed handed back to the operating system, and
glibc's arenas kept few (``benchmarks/README.md``, "Memory flat in the account")."""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pyarrow as pa


def release_freed_memory() -> None:
    """Hand the memory a finished step freed back to the operating system, for the next step.

    Arrow's pool (mimalloc) holds freed buffers for reuse, and glibc's allocator keeps freed
    pages of the extract's records and pages in its arenas; between extract and load that is
    ~250 MiB on a sync of wide records (``benchmarks/README.md``) that DuckDB can use instead.
    ``malloc_trim`` is called only where glibc provides it.
    """
    gc.collect()
    pa.default_memory_pool().release_unused()
    if _malloc_trim is not None:
        _malloc_trim(0)


@contextmanager
def collecting_new_objects_only() -> Iterator[None]:
    """Within the block, the cyclic garbage collector (and so :func:`release_freed_memory`'s
    ``gc.collect``) looks only at the objects made inside it: everything alive when it starts
    (the imported modules, dlt's schemas, a test runner's or a worker's objects) is set aside
    with ``gc.freeze()``, and given back at the end (``gc.unfreeze()``), so a collection
    between steps costs what the steps made, not what the process holds (a full collection
    was ~0.3 s in a process of the test suite, twice per sync). What the block frees is
    collected as before; garbage from before it waits for the next collection after it."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _glibc_malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or ``None`` on other C libraries (musl, macOS, Windows)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_malloc_trim = _glibc_malloc_trim()

M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter for the number of malloc arenas (``malloc.h``)."""


def few_malloc_arenas(arenas: int = 2) -> None:
    """Let glibc's allocator make at most ``arenas`` arenas for the threads started from now on
    (``mallopt(M_ARENA_MAX)``, what ``MALLOC_ARENA_MAX`` sets at start-up), instead of up to 8
    per core: each extract thread's arena otherwise keeps the pages it freed (~100 MiB at the
    peak of a sync of wide records, ``benchmarks/README.md``). Nothing on other C libraries."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_ARENA_MAX, arenas)
