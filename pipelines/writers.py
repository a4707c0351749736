"""Taking turns on the warehouse: the writer lock of each job (and of each account's sync),
and the loads of the syncs that run side by side in one process."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

from core.project import DEFAULT_ACCOUNT, Project, given

from .runs import PER_ACCOUNT_JOBS
from .warehouse import postgres_target, warehouse_folder
from .writer_lock import advisory_key, advisory_lock, confirm_held, sharing_turn, turn_shared

P = ParamSpec("P")
R = TypeVar("R")


def writer_job(job: str, project: Project) -> str:
    """The name ``job``'s writer lock goes by: ``job`` itself, or ``<job>:<account>`` for a job
    of :data:`PER_ACCOUNT_JOBS` working for an account other than ``default`` (whose lock keeps
    the name it always had, so a warehouse's running jobs and its upgraded ones still take
    turns)."""
    if job in PER_ACCOUNT_JOBS and project.account != DEFAULT_ACCOUNT:
        return f"{job}:{project.account}"
    return job


@contextmanager
def warehouse_writer(job: str, project: Project) -> Iterator[None]:
    """Hold ``project``'s warehouse's writer lock for ``job`` while the block writes to it.

    DuckDB allows one writing process per file: every job (the nightly sync, the fold every
    five minutes, the model build, the publish, the document bulk while it writes its outcomes)
    takes turns through ``<warehouse>.lock`` (:func:`~pipelines.writer_lock.taking_turns`, an
    OS file lock released even if the process is killed) instead of failing on each other. The
    threads of one process running one kind of job (several accounts' syncs side by side)
    share its turn (:func:`~pipelines.writer_lock.sharing_turn`).

    PostgreSQL takes concurrent writers, but not two jobs of one kind (two folds share dlt's
    staging tables, two dbt builds the same temporary relations): jobs of one kind on one
    database take turns through a session-level advisory lock held on a connection of its own
    for the whole block (:func:`pipelines.writer_lock.advisory_lock`, key
    :func:`~pipelines.writer_lock.advisory_key` of the database and :func:`writer_job`: one
    per account for the sync), across machines, released when the job ends or its process
    dies; jobs of different kinds, and the syncs of different accounts, run side by side.

    Either way it waits up to the project's setting ``writer_timeout`` seconds
    (``WFM_SYNC_WRITER_TIMEOUT``, default 3600), logging that it waits.

    Args:
        job: The job's kind (``sync``, ``fold``, ``models``, ``documents``, ``publish``),
            named in the messages.
        project: Whose warehouse, and for which account.

    Raises:
        WarehouseBusyError: The lock stayed taken for the whole wait; the message names the job
            and the file or database (password hidden).
        WarehouseConfigError: PostgreSQL without credentials (``postgres_target``).
        WarehouseUnreachableError: The PostgreSQL warehouse refused the lock's connection; the
            message names the database (password hidden) and ``DESTINATION__POSTGRES__CREDENTIALS``.
    """
    timeout = project.settings.writer_timeout
    if project.destination != "duckdb":
        with postgres_writer(writer_job(job, project), timeout):
            yield
        return
    path = project.warehouse
    warehouse_folder(path.parent)
    with sharing_turn(
        Path(f"{path}.lock"), job, f"{job}: waiting for another job to finish writing {path}",
        f"{job}: another job held the warehouse {path} for more than {{timeout}} s "
        f"(lock file {path}.lock); run it again later or raise WFM_SYNC_WRITER_TIMEOUT",
        timeout,
    ):  # fmt: skip
        yield


_LOADS: dict[str, threading.Lock] = {}
_LOADS_LOCK = threading.Lock()


@contextmanager
def load_turn(project: Project) -> Iterator[None]:
    """Within the block, this thread alone of its process loads into ``project``'s DuckDB
    file (the syncs of several accounts extract side by side and load one after another: one
    database instance, whose concurrent schema changes could conflict); nothing on PostgreSQL,
    where each account's load writes its own schema."""
    if project.destination != "duckdb":
        yield
        return
    with _LOADS_LOCK:
        lock = _LOADS.setdefault(str(project.warehouse), threading.Lock())
    with lock:
        yield


@contextmanager
def postgres_writer(job: str, timeout: float) -> Iterator[None]:
    """The PostgreSQL side of :func:`warehouse_writer`: the advisory lock of ``job`` on the
    database of :func:`postgres_target`, waited for up to ``timeout`` seconds."""
    target = postgres_target()
    key = advisory_key(target.database, job)
    where = target.display_url
    messages = (
        f"{job}: waiting for another job to finish writing {where} (another {job} holds "
        f"advisory lock {key})",
        f"{job}: another {job} job held the warehouse {where} for more than {{timeout}} s "
        f"(advisory lock {key}); run it again later or raise WFM_SYNC_WRITER_TIMEOUT",
        f"{job}: cannot connect to the PostgreSQL warehouse {where} ({{error}}); check "
        "DESTINATION__POSTGRES__CREDENTIALS and that the server is running",
    )
    connect_args = {**target.query, "host": target.host, "port": target.port,
                    "user": target.user, "password": target.password,
                    "dbname": target.database}  # fmt: skip
    with advisory_lock(connect_args, key, timeout, messages):
        yield


def confirm_writer(job: str, project: Project) -> None:
    """Before an irreversible step of ``job`` (marking inbox rows folded, pruning), check on
    PostgreSQL that this process still holds ``job``'s advisory lock (:func:`confirm_held`);
    DuckDB's OS file lock lasts as long as the process.

    Raises:
        WriterLockLostError: The lock went away mid-job (a :class:`WarehouseBusyError`),
            named with the job, the database (password hidden) and the cause."""
    if project.destination == "duckdb":
        return
    target = postgres_target()
    key = advisory_key(target.database, writer_job(job, project))
    confirm_held(
        key,
        f"{job}: lost the writer lock (advisory lock {key}) on {target.display_url} mid-job "
        f"({{cause}}: its connection closed, e.g. a server restart or idle_session_timeout); "
        f"stopped before its next irreversible step, run the {job} again",
    )


def writes_warehouse(job: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a job function so it runs inside :func:`warehouse_writer` of the project it is
    given (keyword ``project``, required: :class:`TypeError` without one,
    :func:`core.project.given`)."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            project = given(kwargs, job)
            with warehouse_writer(job, project):
                return function(*args, **kwargs)

        return wrapper

    return decorate


def syncs_beside(project: Project) -> bool:
    """Whether another account's sync of this process writes ``project``'s DuckDB file beside
    the caller's (a sync that made the file and loaded nothing then leaves it in place)."""
    return project.destination == "duckdb" and turn_shared(
        Path(f"{project.warehouse}.lock"), "sync"
    )
