"""Group commit: one thread writes the items of concurrent requests to the inbox together.

Writes from concurrent requests are grouped into one transaction by a single writer thread, so
the fsync per commit is shared; each request still waits for its own commit. When a group fails
because of a value in a body, it is split in halves and each retried, down to the one body at
fault, which is quarantined: one bad event never fails the others of its group.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Sequence
from typing import cast

from sources.webhooks import Inbox, ReceivedEvent, RefusedBody, StoredEvent, caused_by_body

logger = logging.getLogger("receiver")

Outcome = StoredEvent | RefusedBody | None
"""What a write came to: where an event was stored, the refusal an unstorable event became
(quarantined), or ``None`` for a refused body kept in quarantine."""


class _Job:
    __slots__ = ("future", "item", "loop")

    def __init__(self, item: ReceivedEvent | RefusedBody, loop: asyncio.AbstractEventLoop) -> None:
        self.item = item
        self.loop = loop
        self.future: asyncio.Future[Outcome] = loop.create_future()


class GroupCommitWriter:
    """One thread that commits the items of concurrent requests together.

    Args:
        inbox: Where to write.
        max_batch: Most items in one transaction.

    Attributes:
        groups: Groups taken from the queue so far (each committed together unless a body in it
            could not be stored).
    """

    def __init__(self, inbox: Inbox, max_batch: int = 512) -> None:
        self.inbox = inbox
        self.max_batch = max_batch
        self.groups = 0
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="inbox-writer", daemon=True)
        self._thread.start()

    async def write(self, item: ReceivedEvent | RefusedBody) -> Outcome:
        """Return once ``item`` is committed: where an event went (:class:`StoredEvent`), or the
        :class:`RefusedBody` (status 422) it was quarantined as because the inbox could not
        store a value in it; ``None`` for a refused body. Raise what a failed commit raised
        (the inbox unreachable or locked: transient)."""
        job = _Job(item, asyncio.get_running_loop())
        self._queue.put(job)
        return await job.future

    def pending(self) -> int:
        """Items waiting for the writer thread (not yet taken into a group)."""
        return self._queue.qsize()

    def close(self) -> None:
        """Finish queued writes and stop the thread (waits up to 30 s)."""
        self._queue.put(None)
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            jobs = [first]
            stop = False
            while len(jobs) < self.max_batch:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                jobs.append(nxt)
            self.groups += 1
            self._commit(jobs)
            if stop:
                return

    def _commit(self, jobs: Sequence[_Job]) -> None:
        """Commit ``jobs`` together; on a failure caused by a body, halve and retry, so only the
        body at fault is refused (quarantined with 422)."""
        events = [j for j in jobs if isinstance(j.item, ReceivedEvent)]
        refused = [j for j in jobs if isinstance(j.item, RefusedBody)]
        try:
            stored = self.inbox.store(
                [cast(ReceivedEvent, j.item) for j in events],
                [cast(RefusedBody, j.item) for j in refused],
            )
        except Exception as exc:
            if not caused_by_body(exc):
                logger.exception("inbox commit of %d item(s) failed", len(jobs))
                for job in jobs:
                    _settle(job, error=exc)
                return
            if len(jobs) > 1:
                middle = len(jobs) // 2
                self._commit(jobs[:middle])
                self._commit(jobs[middle:])
                return
            self._refuse_unstorable(jobs[0], exc)
            return
        for job, outcome in zip(events, stored, strict=True):
            _settle(job, outcome)
        for job in refused:
            _settle(job, None)

    def _refuse_unstorable(self, job: _Job, exc: BaseException) -> None:
        """Quarantine the one event the inbox could not store (422, the reason named)."""
        item = job.item
        if not isinstance(item, ReceivedEvent):
            logger.error("inbox could not keep a refused body: %s", cause(exc))
            _settle(job, error=exc)
            return
        reason = f"the inbox cannot store this event: {cause(exc)}"
        refusal = RefusedBody(422, reason, item.body, len(item.body), item.content_type,
                              item.received_at)  # fmt: skip
        logger.warning("inbox refused an event (%s); quarantined", reason)
        try:
            self.inbox.store([], [refusal])
        except Exception as again:  # the inbox failed: the sender retries
            logger.exception("quarantine of an unstorable event failed")
            _settle(job, error=again)
            return
        _settle(job, refusal)


def cause(exc: BaseException) -> str:
    """The first line of the driver's own message (not SQLAlchemy's, which quotes the SQL and
    its parameters), at most 300 characters."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else ""
    return f"{type(orig).__name__}: {text}"[:300]


def _settle(job: _Job, outcome: Outcome = None, error: BaseException | None = None) -> None:
    job.loop.call_soon_threadsafe(_resolve, job.future, outcome, error)


def _resolve(
    future: asyncio.Future[Outcome], outcome: Outcome, error: BaseException | None
) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(outcome)
    else:
        future.set_exception(error)
