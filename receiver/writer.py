"""Group commit within a deadline: one thread writes the items of concurrent requests to the inbox
together, and every request is answered by its deadline.

Writes from concurrent requests are grouped into one transaction by a single writer thread, so
the fsync per commit is shared. When a group fails because of a value in a body, it is split in
halves and each retried, down to the one body at fault, which is quarantined: one bad event never
fails the others of its group.

Bounds, so the receiver never hangs:

* the queue holds at most ``queue_size`` items: beyond, :meth:`GroupCommitWriter.write` raises
  :class:`WriterBusyError` at once;
* each item has a deadline. An item with less than :data:`MIN_LEFT` left is answered
  :class:`DeadlineExceededError` before its group is written. A transaction waits for locks
  (SQLite's busy timeout, PostgreSQL's ``lock_timeout`` and ``statement_timeout``) at most until
  the earliest deadline of its group; when that wait runs out, the items at their deadline are
  answered and the others written again without them, so one old item never fails the fresh
  ones of its group. Just before its commit a transaction claims its items: an item whose
  deadline passed, or whose request gave up, is not claimed and the transaction is rolled back
  and run again without it. So a request answered :class:`DeadlineExceededError` before its
  item was claimed is never stored.
  An item claimed just before its deadline waits at most :attr:`GroupCommitWriter.commit_grace`
  more for the commit itself (a commit can wait for no lock, only the disk);
* the thread dying (an exception escaping its loop) fails every waiting item with
  :class:`WriterDeadError` and calls ``on_death``: ``wfm-sync webhooks serve`` then stops the
  process with a non-zero exit, for its supervisor to restart it.

:meth:`GroupCommitWriter.problem` tells ``/healthz`` when the thread is dead or stuck.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import cast

from inbox import Inbox, ReceivedEvent, RefusedBody, caused_by_body
from inbox.store import WriteAbandonedError, waited_past_timeout

from .jobs import (
    ABANDONED,
    CLAIMED,
    PENDING,
    DeadlineExceededError,
    Job,
    Outcome,
    WriterBusyError,
    WriterDeadError,
    WriterFaultError,
    cause,
    resolve,
    settle,
    settle_all,
)

logger = logging.getLogger("receiver")

STUCK_GRACE = 2.0
"""Seconds past the deadline after which a waiting item, or a group still being written, makes
the writer count as stuck."""

MIN_LEFT = 0.05
"""Seconds an item must have left to be written (at most a tenth of the deadline); one with less
is answered :class:`DeadlineExceededError` instead."""


class GroupCommitWriter:
    """One thread that commits the items of concurrent requests together, within deadlines.

    Args:
        inbox: Where to write.
        deadline: Seconds from a :meth:`write` call (or the ``deadline`` it is given) within
            which it returns.
        queue_size: Most items waiting for the thread.
        max_batch: Most items in one transaction.
        on_death: Called (in the writer thread) with the exception that killed the thread.

    Attributes:
        groups: Groups taken from the queue so far.
        death: The exception that killed the thread, ``None`` while it runs.
        commit_grace: Seconds an item claimed for a commit just before its deadline may wait
            for that commit beyond the deadline (half the deadline, at most 5).
    """

    def __init__(
        self,
        inbox: Inbox,
        *,
        deadline: float = 10.0,
        queue_size: int = 1000,
        max_batch: int = 512,
        on_death: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.inbox = inbox
        self.deadline = deadline
        self.queue_size = queue_size
        self.max_batch = max_batch
        self.commit_grace = min(5.0, deadline / 2)
        self._min_left = min(MIN_LEFT, deadline / 10)
        self.groups = 0
        self.death: BaseException | None = None
        self._on_death = on_death
        self._jobs: deque[Job] = deque()
        self._busy: list[Job] = []
        self._busy_since = 0.0
        self._closing = False
        self._fault = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._main, name="inbox-writer", daemon=True)
        self._thread.start()

    async def write(
        self, item: ReceivedEvent | RefusedBody, deadline: float | None = None
    ) -> Outcome:
        """Return once ``item`` is committed: where an event went (:class:`StoredEvent`), or the
        :class:`RefusedBody` (status 422) it was quarantined as because the inbox could not
        store a value in it; ``None`` for a refused body.

        Args:
            item: What to store.
            deadline: ``time.monotonic()`` by which to answer; default now + ``deadline``.

        Raises:
            WriterBusyError: The queue is full (at once; nothing stored).
            DeadlineExceededError: Not committed by the deadline.
            WriterDeadError: The writer thread is dead.
            Exception: What a failed commit raised (the inbox unreachable or locked past the
                deadline: transient; nothing stored).
        """
        loop = asyncio.get_running_loop()
        job = Job(
            item, loop, deadline if deadline is not None else time.monotonic() + self.deadline
        )
        with self._cond:
            if self.death is not None:
                raise WriterDeadError(f"the inbox writer died: {self.death!r}")
            if len(self._jobs) >= self.queue_size:
                raise WriterBusyError(f"{len(self._jobs)} deliveries are waiting for the inbox")
            self._jobs.append(job)
            self._cond.notify()
        timer = loop.call_later(max(0.0, job.deadline - time.monotonic()), self._expire, job)
        try:
            return await job.future
        finally:
            timer.cancel()

    def pending(self) -> int:
        """Items waiting for the writer thread (not yet taken into a group)."""
        return len(self._jobs)

    def problem(self) -> str | None:
        """Why the writer cannot be relied on now, or ``None``: dead, not running, an item
        waiting longer than the deadline plus :data:`STUCK_GRACE`, or a group being written that
        long (no progress)."""
        if self.death is not None:
            return f"the inbox writer died ({type(self.death).__name__}: {self.death})"
        if not self._thread.is_alive():
            return "the inbox writer is not running"
        now, limit = time.monotonic(), self.deadline + STUCK_GRACE
        with self._cond:
            waiting = now - self._jobs[0].enqueued if self._jobs else 0.0
            busy = now - self._busy_since if self._busy else 0.0
            queued = len(self._jobs)
        if busy > limit:
            return (
                f"the inbox writer is stuck: one commit has taken {busy:.0f} s ({queued} waiting)"
            )
        if waiting > limit:
            return f"the inbox writer is stuck: a delivery waited {waiting:.0f} s ({queued} queued)"
        return None

    def inject_fault(self) -> None:
        """Make the writer thread raise :class:`WriterFaultError` out of its loop (a fire drill
        of the thread dying: ``kill -USR2`` on ``wfm-sync webhooks serve``)."""
        with self._cond:
            self._fault = True
            self._cond.notify()

    def close(self) -> None:
        """Finish queued writes and stop the thread (waits up to 30 s)."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join(timeout=30)

    # -- the request's side (event loop) -------------------------------------------------------

    def _expire(self, job: Job) -> None:
        """The deadline passed: abandon the job unless a commit has claimed it, then answer."""
        with self._cond:
            claimed = job.state == CLAIMED
            if job.state == PENDING:
                job.state = ABANDONED
        if not claimed:
            resolve(job.future, None, DeadlineExceededError("not committed within the deadline"))
            return
        late = DeadlineExceededError("the commit did not finish within the deadline", True)
        job.loop.call_later(self.commit_grace, resolve, job.future, None, late)

    # -- the writer thread ---------------------------------------------------------------------

    def _main(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # noqa: BLE001 - the thread's death is reported, then acted on
            self._die(exc)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._closing and not self._fault:
                    self._cond.wait()
                if self._fault:
                    raise WriterFaultError("fault injected (SIGUSR2 fire drill)")
                if not self._jobs:
                    return
                jobs = [self._jobs.popleft() for _ in range(min(len(self._jobs), self.max_batch))]
                self._busy, self._busy_since = jobs, time.monotonic()
            self.groups += 1
            self._commit(jobs)
            with self._cond:
                self._busy = []

    def _die(self, exc: BaseException) -> None:
        logger.critical("the inbox writer thread died: %r", exc, exc_info=exc)
        with self._cond:
            self.death = exc
            doomed = [*self._busy, *self._jobs]
            self._jobs.clear()
        for job in doomed:
            with contextlib.suppress(RuntimeError):  # its event loop is closed: nobody waits
                settle(job, error=WriterDeadError(f"the inbox writer died: {exc!r}"))
        if self._on_death is not None:
            self._on_death(exc)

    def _live(self, jobs: Sequence[Job]) -> list[Job]:
        """The jobs still to write: each one abandoned or with less than :data:`MIN_LEFT` before
        its deadline is dropped (and answered, if its request has not been)."""
        now, live, expired = time.monotonic() + self._min_left, [], []
        with self._cond:
            for job in jobs:
                if job.state == PENDING and now < job.deadline:
                    live.append(job)
                elif job.state != ABANDONED:
                    job.state = ABANDONED
                    expired.append(job)
        for job in expired:
            settle(job, error=DeadlineExceededError("not committed within the deadline"))
        return live

    def _claim(self, jobs: Sequence[Job]) -> bool:
        """Claim every job for the commit about to run, or none when one was abandoned or is past
        its deadline (the transaction is then rolled back)."""
        now = time.monotonic()
        with self._cond:
            if any(job.state != PENDING or now >= job.deadline for job in jobs):
                return False
            for job in jobs:
                job.state = CLAIMED
        return True

    def _release(self, jobs: Sequence[Job]) -> None:
        """After a failed commit: jobs claimed for it are pending again."""
        with self._cond:
            for job in jobs:
                if job.state == CLAIMED:
                    job.state = PENDING

    def _commit(self, jobs: Sequence[Job]) -> None:
        """Commit the live ``jobs`` together before their earliest deadline. A job abandoned
        before the commit, or at its deadline when the wait for a lock ran out, is answered and
        the rest written again; on a failure caused by a body, halve and retry, so only the body
        at fault is refused (quarantined with 422)."""
        pending = self._live(jobs)
        while pending:
            try:
                answers = self._store(pending)
            except WriteAbandonedError:
                pending = self._live(pending)
            except Exception as exc:  # noqa: BLE001 - a body's fault or the inbox's: told apart
                self._release(pending)
                if caused_by_body(exc):
                    self._split(pending, exc)
                    return
                logger.error("inbox commit of %d item(s) failed: %s", len(pending), cause(exc))
                live = self._live(pending) if waited_past_timeout(exc) else pending
                if len(live) == len(pending):  # no job's deadline ended the wait: the inbox failed
                    for job in live:
                        settle(job, error=exc)
                    return
                logger.info("inbox: writing the %d item(s) still within their deadline again",
                            len(live))  # fmt: skip
                pending = live
            else:
                settle_all(answers)
                return

    def _store(self, jobs: Sequence[Job]) -> list[tuple[Job, Outcome]]:
        """Store ``jobs`` in one transaction that waits until the earliest deadline; returns each
        job's outcome. Raises what :meth:`inbox.Inbox.store` raised."""
        events = [j for j in jobs if isinstance(j.item, ReceivedEvent)]
        refused = [j for j in jobs if isinstance(j.item, RefusedBody)]
        stored = self.inbox.store(
            [cast(ReceivedEvent, j.item) for j in events],
            [cast(RefusedBody, j.item) for j in refused],
            timeout=self._wait(min(j.deadline for j in jobs)),
            claim=lambda: self._claim(jobs),
        )
        answers: list[tuple[Job, Outcome]] = list(zip(events, stored, strict=True))
        return answers + [(job, None) for job in refused]

    def _wait(self, deadline: float) -> float:
        """Seconds a transaction may wait for a lock to end by ``deadline``, rounded down to a
        step of half :data:`MIN_LEFT` (so consecutive groups pass the inbox the same wait and
        it sets it once; a wait that runs out leaves the job less than :data:`MIN_LEFT`)."""
        step = self._min_left / 2
        return max(step, (deadline - time.monotonic()) // step * step)

    def _split(self, jobs: Sequence[Job], exc: BaseException) -> None:
        """After a failure caused by a body: commit each half of ``jobs``, down to the one job at
        fault, which is refused."""
        if len(jobs) > 1:
            middle = len(jobs) // 2
            self._commit(jobs[:middle])
            self._commit(jobs[middle:])
            return
        self._refuse_unstorable(jobs[0], exc)

    def _refuse_unstorable(self, job: Job, exc: BaseException) -> None:
        """Quarantine the one event the inbox could not store (422, the reason named)."""
        item = job.item
        if not self._live([job]):
            return
        if not isinstance(item, ReceivedEvent):
            logger.error("inbox could not keep a refused body: %s", cause(exc))
            settle(job, error=exc)
            return
        reason = f"the inbox cannot store this event: {cause(exc)}"
        refusal = RefusedBody(422, reason, item.body, len(item.body), item.content_type,
                              item.received_at)  # fmt: skip
        logger.warning("inbox refused an event (%s); quarantined", reason)
        try:
            self.inbox.store([], [refusal], timeout=job.deadline - time.monotonic(),
                             claim=lambda: self._claim([job]))  # fmt: skip
        except WriteAbandonedError:
            self._live([job])
            return
        except Exception as again:  # noqa: BLE001 - the inbox failed: the sender retries
            logger.error("quarantine of an unstorable event failed: %s", cause(again))
            settle(job, error=again)
            return
        settle(job, refusal)
