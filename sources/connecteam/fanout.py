"""Bounded concurrency of the client's work when the provider is slower than the budget's pace.

Two shapes, both over :class:`concurrent.futures.ThreadPoolExecutor`:

* :func:`in_parallel`: the per-parent work of a fan-out (shifts per scheduler, time activities per
  time clock, ...), up to ``limit`` parents at once, their items handed on as they come;
* :class:`PagesAhead`: the next pages of one listing whose ``paging.total`` is known, asked for
  while the current one is processed, handed on in order.

How many requests are in flight at once is capped by the client (``max_in_flight``), and every
request still takes its budget first (:meth:`~sources.connecteam.pacing.Pacing.pace`), so no
shape sends more than the budget allows. The worker threads are named as dlt's own pool threads
(:func:`pool_prefix`), so they see the running pipeline's context (resource state, schema),
and each task runs in a copy of its caller's context variables (an account's progress label,
:func:`core.progress.account_label`).
"""

from __future__ import annotations

import contextvars
import queue
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import islice
from typing import Generic, TypeVar

from dlt.common.configuration.container import Container

T = TypeVar("T")

_DONE = object()
_POLL = 0.1
"""Seconds a worker waits for room in the hand-over queue before checking for a stop."""


def pool_prefix() -> str:
    """A thread-name prefix under which dlt gives worker threads the calling thread's context
    (the calling thread's own, when it is itself a dlt pool thread)."""
    inherited = re.match(r"dlt-pool-\d+-", threading.current_thread().name)
    return inherited.group(0) if inherited else Container.thread_pool_prefix()


def in_parallel(tasks: Iterable[Callable[[], Iterator[T]]], limit: int) -> Iterator[T]:
    """The items of every task's iterator, with up to ``limit`` tasks running at once.

    Items of one task keep their order; items of different tasks interleave as they come (the
    caller must not depend on an order between tasks). ``limit`` <= 1 runs the tasks one after
    another in the calling thread. At most ``limit`` items wait between the workers and the
    caller, so memory stays at a few items per task however large a task's output is.

    Raises:
        Exception: The first exception a task raised (the other tasks are told to stop and waited
            for). Closing the iterator early stops the tasks likewise.
    """
    if limit <= 1:
        for task in tasks:
            yield from task()
        return
    handed: queue.Queue[tuple[object, BaseException | None]] = queue.Queue(maxsize=limit)
    stop = threading.Event()

    def put(item: object, error: BaseException | None = None) -> bool:
        while not stop.is_set():
            try:
                handed.put((item, error), timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def run(task: Callable[[], Iterator[T]]) -> None:
        try:
            for item in task():
                if not put(item):
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            put(_DONE, exc)
        else:
            put(_DONE)

    pending = iter(tasks)
    with ThreadPoolExecutor(limit, thread_name_prefix=pool_prefix()) as pool:
        running = 0
        for task in islice(pending, limit):
            pool.submit(contextvars.copy_context().run, run, task)
            running += 1
        try:
            while running:
                item, error = handed.get()
                if item is not _DONE:
                    yield item  # type: ignore[misc]
                    continue
                running -= 1
                if error is not None:
                    raise error
                for task in islice(pending, 1):
                    pool.submit(contextvars.copy_context().run, run, task)
                    running += 1
        finally:
            stop.set()


class PagesAhead(Generic[T]):
    """Answers of one listing asked for ahead of the caller, up to ``limit`` at once.

    Args:
        fetch: Sends the request of one offset and returns its answer (runs in a worker thread).
        limit: Requests asked for ahead at most.
    """

    def __init__(self, fetch: Callable[[int], T], limit: int) -> None:
        self._fetch = fetch
        self._limit = limit
        self._pool: ThreadPoolExecutor | None = None
        self._asked: dict[int, Future[T]] = {}

    def plan(self, offsets: Iterable[int]) -> None:
        """Ask for the first of ``offsets`` not asked yet, so that up to ``limit`` are asked."""
        if self._limit <= 1:
            return
        for offset in offsets:
            if len(self._asked) >= self._limit:
                return
            if offset in self._asked:
                continue
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._limit, thread_name_prefix=pool_prefix())
            context = contextvars.copy_context()
            self._asked[offset] = self._pool.submit(context.run, self._fetch, offset)

    def get(self, offset: int) -> T:
        """The answer of ``offset``: the one asked ahead, else fetched now in this thread.

        Raises:
            Exception: What the fetch raised.
        """
        asked = self._asked.pop(offset, None)
        return asked.result() if asked is not None else self._fetch(offset)

    def close(self) -> None:
        """Drop the answers not taken, closing those that can be (requests not started are
        cancelled; those under way end)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        for asked in self._asked.values():
            answer: object = None if asked.cancelled() or asked.exception() else asked.result()
            close = getattr(answer, "close", None)
            if callable(close):
                close()  # an answer's body: its memory or temporary file
        self._asked.clear()
