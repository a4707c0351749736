"""The run log: one JSON line per job run (sync, fold, models, publish, documents), read by
``status``.

The log lives beside the warehouse (``<warehouse dir>/runs.jsonl``) unless the setting
``run_log`` (``WFM_SYNC_RUN_LOG``) names another file. Each job appends one line when it ends,
succeeded or failed; a line is written with a single ``write`` on a file opened for appending, so
jobs running at once (the nightly sync and a fold) never interleave. Nothing secret is written:
error messages are the project's own, which never carry credentials.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from core.project import given

JOBS = ("sync", "fold", "models", "publish")
"""The scheduled jobs ``status`` watches for failures and staleness. The document bulk (job
``documents``, run on demand) is logged too, but never stale."""

PER_ACCOUNT_JOBS = ("sync", "documents")
"""Jobs that work for one account at a time (:attr:`core.project.Project.account`): their runs
name the account, and each account's takes its own writer lock on PostgreSQL
(:func:`pipelines.writers.writer_job`)."""

P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class RunRecord:
    """One finished job run.

    Attributes:
        job: ``sync``, ``fold``, ``models``, ``publish`` or ``documents``.
        started_at: Start, epoch seconds (UTC).
        duration_seconds: Wall time.
        outcome: ``succeeded`` or ``failed``.
        error: The failure's one-line message (``None`` when it succeeded).
        details: What the job did, e.g. ``{"streams": [...], "rows": {...}}`` for a sync.
        account: The account a job of :data:`PER_ACCOUNT_JOBS` worked for (``None``: another
            job, or a run logged before accounts were named: the ``default`` account's).
    """

    job: str
    started_at: float
    duration_seconds: float
    outcome: str
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    account: str | None = None

    @property
    def finished_at(self) -> float:
        """End, epoch seconds (UTC)."""
        return self.started_at + self.duration_seconds


def append_run(record: RunRecord, path: Path) -> None:
    """Append ``record`` to the run log ``path`` as one JSON line (one ``write`` call, so
    concurrent jobs never mix)."""
    target = path
    target.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(asdict(record), default=str, sort_keys=True) + "\n"
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def read_runs(path: Path) -> list[RunRecord]:
    """Every record in the run log ``path``, oldest first; unreadable lines (a torn write) are
    skipped."""
    source = path
    if not source.exists():
        return []
    records = []
    for line in source.read_text().splitlines():
        try:
            records.append(RunRecord(**json.loads(line)))
        except (ValueError, TypeError):
            continue
    return records


def records_run(
    job: str,
    describe: Callable[[Any], dict[str, Any]],
    problem: Callable[[Any], str | None] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a job function so each call appends a :class:`RunRecord` to the run log of the
    project it is given (keyword ``project``, required: :class:`TypeError` without one,
    :func:`core.project.given`).

    Args:
        job: The job's name in the log.
        describe: Turns the job's return value into the record's ``details``.
        problem: Says what went wrong in a run that returned (e.g. streams that failed while
            the others loaded), or ``None``; such a run is recorded as ``failed`` with that
            message and its details.

    A call that raises is recorded as ``failed`` with the exception's one-line message, and the
    exception propagates unchanged.
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            started, clock = time.time(), time.monotonic()
            project = given(kwargs, job)
            log = project.paths.run_log
            account = project.account if job in PER_ACCOUNT_JOBS else None
            try:
                result = function(*args, **kwargs)
            except Exception as exc:
                message = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
                failed = RunRecord(job, started, _since(clock), "failed", message, {}, account)
                append_run(failed, log)
                raise
            trouble = problem(result) if problem is not None else None
            outcome = "failed" if trouble else "succeeded"
            details = describe(result)
            record = RunRecord(job, started, _since(clock), outcome, trouble, details, account)
            append_run(record, log)
            return result

        return wrapper

    return decorate


def _since(clock: float) -> float:
    return round(time.monotonic() - clock, 2)
