"""Taking turns on a PostgreSQL warehouse: a session-level advisory lock per database and job.

PostgreSQL takes concurrent writers, but two jobs of one kind do not mix: two folds share dlt's
staging tables (a load truncates them first) and insert-only merges without a unique constraint,
two dbt builds swap the same ``__dbt_tmp`` relations. :func:`advisory_lock` makes jobs of one
kind take turns on one database, across machines: the lock lives in the server, on a connection
of its own held for the whole job, and the server drops it when that connection closes (the job
ends, or its process dies). The DuckDB side (one OS file lock per warehouse file) is
:func:`pipelines.warehouse.taking_turns`.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

logger = logging.getLogger("pipelines.warehouse")

POLL_SECONDS = (0.1, 1.0)
"""First and longest pause between two tries of a taken lock, in seconds (doubling)."""
CONNECT_TIMEOUT_SECONDS = 10
"""How long the lock's connection may take to open."""


class WarehouseBusyError(RuntimeError):
    """Another job kept the warehouse's writer lock longer than the wait allowed (setting
    ``writer_timeout``)."""


class WriterLockLostError(WarehouseBusyError):
    """The PostgreSQL advisory lock a job held went away mid-job (its connection closed: a
    server restart, a failover, ``idle_session_timeout``, ``pg_terminate_backend``): another job
    of its kind may be running, so this one stops before its next irreversible step."""


_HELD: dict[int, Any] = {}
"""Advisory locks this process holds: key -> the connection holding it."""


class WarehouseUnreachableError(RuntimeError):
    """The PostgreSQL warehouse did not accept the lock's connection (transient: the server may
    be down or restarting; wrong credentials are reported the same way)."""

    transient = True
    """For :func:`sources.connecteam.transient.is_transient`."""


@contextmanager
def taking_turns(lock_path: Path, waiting: str, gave_up: str, timeout: float) -> Iterator[None]:
    """Hold the OS file lock ``lock_path`` (its folder must exist; released even if the process
    is killed) for the block, waiting up to ``timeout`` seconds (the project's setting
    ``writer_timeout``); logs ``waiting`` when it has to wait.

    Raises:
        WarehouseBusyError: The lock stayed taken for the whole wait: ``gave_up``, its
            ``{timeout}`` filled with the seconds waited.
    """
    lock = FileLock(str(lock_path), timeout=timeout, thread_local=False)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        logger.info("%s", waiting)
        try:
            lock.acquire()
        except Timeout:
            raise WarehouseBusyError(gave_up.format(timeout=f"{timeout:.0f}")) from None
    try:
        yield
    finally:
        lock.release()


class _SharedTurn:
    """One process's turn of one job kind at one lock file, shared by its threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holders = 0
        self.stack = ExitStack()


_TURNS: dict[tuple[str, str], _SharedTurn] = {}
_TURNS_LOCK = threading.Lock()


@contextmanager
def sharing_turn(
    lock_path: Path, job: str, waiting: str, gave_up: str, timeout: float
) -> Iterator[None]:
    """:func:`taking_turns` of ``lock_path``, shared by the threads of this process running
    jobs of kind ``job`` (the syncs of several accounts side by side: DuckDB takes one writing
    process per file, and the process's threads write through one database instance). The
    first thread takes the file lock, waiting as :func:`taking_turns` does; the others join
    its turn; the last one to leave releases it. Other processes, and jobs of other kinds,
    take turns as before.

    Raises:
        WarehouseBusyError: As :func:`taking_turns`.
    """
    with _TURNS_LOCK:
        turn = _TURNS.setdefault((str(lock_path), job), _SharedTurn())
    with turn.lock:
        if turn.holders == 0:
            turn.stack.enter_context(taking_turns(lock_path, waiting, gave_up, timeout))
        turn.holders += 1
    try:
        yield
    finally:
        with turn.lock:
            turn.holders -= 1
            if turn.holders == 0:
                turn.stack.close()


def turn_shared(lock_path: Path, job: str) -> bool:
    """Whether another thread of this process is inside :func:`sharing_turn` of ``lock_path``
    and ``job`` beside the caller (itself inside)."""
    with _TURNS_LOCK:
        turn = _TURNS.get((str(lock_path), job))
    return turn is not None and turn.holders > 1


def advisory_key(database: str, job: str) -> int:
    """The advisory lock key of ``job`` (``sync``, ``fold``, ``models``, ``documents``, ...)
    on ``database``: a signed 64-bit integer from a BLAKE2b digest of both names, the same in
    every process and on every machine. (Advisory locks are already per database; the name
    keeps keys of different warehouses apart in logs and ``pg_locks`` readings.)"""
    digest = hashlib.blake2b(f"wfm-sync writer {database} {job}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)


@contextmanager
def advisory_lock(
    connect_args: dict[str, Any],
    key: int,
    timeout: float,
    messages: tuple[str, str, str],
) -> Iterator[None]:
    """Hold the session-level advisory lock ``key`` on a connection of its own for the block.

    Tries ``pg_try_advisory_lock`` at once; when it is taken, logs the waiting message and tries
    again (every 0.1 s, doubling to every 1 s) until it is free or ``timeout`` seconds have
    passed. The connection stays open, idle, for the whole block and is closed after it, which
    releases the lock; a process that dies releases it too, since the server ends its session.
    Session locks need the session: through a pooler (PgBouncer) only in session mode.

    Args:
        connect_args: :func:`psycopg2.connect` keywords: ``host``, ``port``, ``user``,
            ``password``, ``dbname`` and any libpq parameter of the credentials' query
            (``sslmode``, ``sslrootcert``, ``options``, ...). ``application_name`` defaults to
            ``wfm-sync writer lock``.
        key: The lock (:func:`advisory_key`).
        timeout: Seconds to wait for it.
        messages: ``(waiting, gave_up, unreachable)``: logged when the lock is taken; the
            :class:`WarehouseBusyError` message, its ``{timeout}`` filled with the seconds
            waited; the :class:`WarehouseUnreachableError` message, its ``{error}`` filled with
            the first line of the driver's error. None may hold the password.

    Raises:
        WarehouseBusyError: The lock stayed taken for the whole wait.
        WarehouseUnreachableError: The connection could not be opened.
    """
    import psycopg2

    waiting, gave_up, unreachable = messages
    defaults: dict[str, Any] = {
        "connect_timeout": CONNECT_TIMEOUT_SECONDS, "keepalives": 1, "keepalives_idle": 60,
        "keepalives_interval": 10, "keepalives_count": 6,
    }  # fmt: skip
    if "application_name" not in str(connect_args.get("options", "")):
        defaults["application_name"] = "wfm-sync writer lock"
    try:
        connection = psycopg2.connect(**{**defaults, **connect_args})
    except psycopg2.OperationalError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise WarehouseUnreachableError(unreachable.format(error=first)) from None
    try:
        connection.autocommit = True
        _wait_for(connection, key, timeout, waiting, gave_up)
        _HELD[key] = connection
        yield
    finally:
        _HELD.pop(key, None)
        connection.close()  # the server releases the session's advisory locks


def confirm_held(key: int, lost: str) -> None:
    """Check, on its own connection, that this process still holds advisory lock ``key``
    (taken by :func:`advisory_lock`); call it before each irreversible step of a job. Does
    nothing when this process does not hold ``key`` through :func:`advisory_lock`.

    Raises:
        WriterLockLostError: The lock's connection is gone or no longer holds ``key``:
            ``lost``, its ``{cause}`` filled with the first line of the driver's error (or
            ``the server no longer lists it``).
    """
    import psycopg2

    connection = _HELD.get(key)
    if connection is None:
        return
    cause = "the server no longer lists it"
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "select count(*) from pg_locks where locktype = 'advisory' and granted"
                " and pid = pg_backend_pid() and objsubid = 1"
                " and objid::bigint = (%s::bigint & 4294967295)"
                " and classid::bigint = ((%s::bigint >> 32) & 4294967295)",
                (key, key),
            )
            if cursor.fetchone()[0]:
                return
    except psycopg2.Error as exc:
        cause = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    raise WriterLockLostError(lost.format(cause=cause))


def _wait_for(connection: Any, key: int, timeout: float, waiting: str, gave_up: str) -> None:
    """Take ``key`` on ``connection``, polling up to ``timeout`` seconds (see
    :func:`advisory_lock`)."""
    deadline = time.monotonic() + timeout
    pause, longest = POLL_SECONDS
    logged = False
    with connection.cursor() as cursor:
        while True:
            cursor.execute("select pg_try_advisory_lock(%s)", (key,))
            if cursor.fetchone()[0]:
                return
            if not logged:
                logger.info("%s", waiting)
                logged = True
            left = deadline - time.monotonic()
            if left <= 0:
                raise WarehouseBusyError(gave_up.format(timeout=f"{timeout:.0f}"))
            time.sleep(min(pause, left))
            pause = min(pause * 2, longest)
