"""What the inbox writer's jobs are and how their requests are answered: a job's states, the
errors a write ends in, and the hand-over of outcomes from the writer thread to the event loop
that waits (:mod:`receiver.writer`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence

from inbox import ReceivedEvent, RefusedBody, StoredEvent

Outcome = StoredEvent | RefusedBody | None
"""What a write came to: where an event was stored, the refusal an unstorable event became
(quarantined), or ``None`` for a refused body kept in quarantine."""

PENDING, CLAIMED, ABANDONED = 0, 1, 2
"""A job's states: waiting, claimed for the commit under way, given up (never stored)."""


class WriterBusyError(Exception):
    """The writer's queue is full: the item was not queued (answer 503 at once)."""


class DeadlineExceededError(Exception):
    """The item was not committed by its deadline. ``maybe_stored`` is false when it never will
    be (it was not claimed for a commit); true only when its commit was under way and did not
    finish within the grace (a re-delivery is then recognised and stored once)."""

    def __init__(self, message: str, maybe_stored: bool = False) -> None:
        super().__init__(message)
        self.maybe_stored = maybe_stored


class WriterDeadError(Exception):
    """The writer thread died: nothing more is written by this process."""


class WriterFaultError(Exception):
    """Raised in the writer thread by
    :meth:`receiver.writer.GroupCommitWriter.inject_fault` (a fire drill)."""


class Job:
    """One item waiting for the writer: what to store, the event loop and future its request
    waits on, its deadline (``time.monotonic()``) and state."""

    __slots__ = ("deadline", "enqueued", "future", "item", "loop", "state")

    def __init__(
        self, item: ReceivedEvent | RefusedBody, loop: asyncio.AbstractEventLoop, deadline: float
    ) -> None:
        self.item = item
        self.loop = loop
        self.deadline = deadline
        self.enqueued = time.monotonic()
        self.state = PENDING
        self.future: asyncio.Future[Outcome] = loop.create_future()


def cause(exc: BaseException) -> str:
    """The first line of the driver's own message (not SQLAlchemy's, which quotes the SQL),
    at most 300 characters."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else ""
    return f"{type(orig).__name__}: {text}"[:300]


def settle(job: Job, outcome: Outcome = None, error: BaseException | None = None) -> None:
    job.loop.call_soon_threadsafe(resolve, job.future, outcome, error)


def settle_all(answers: Sequence[tuple[Job, Outcome]]) -> None:
    """Answer a committed group: one wake-up of each event loop its requests wait on, not one
    per request."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[Job, Outcome]]] = {}
    for job, outcome in answers:
        by_loop.setdefault(job.loop, []).append((job, outcome))
    for loop, settled in by_loop.items():
        with contextlib.suppress(RuntimeError):  # its event loop is closed: nobody waits
            loop.call_soon_threadsafe(resolve_all, settled)


def resolve_all(settled: Sequence[tuple[Job, Outcome]]) -> None:
    for job, outcome in settled:
        resolve(job.future, outcome, None)


def resolve(future: asyncio.Future[Outcome], outcome: Outcome, error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(outcome)
    else:
        future.set_exception(error)
