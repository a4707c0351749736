"""The ``connecteam`` dlt source: users, forms, schedulers, shifts and user documents.

Endpoints (``shared/reference/connecteam-openapi.json``):

============== ============================================ ========================= ============
resource       endpoint                                     primary key               loads
============== ============================================ ========================= ============
users          GET /users/v1/users (``userStatus=all``)     ``user_id``               modified
                                                                                      since last run
forms          GET /forms/v1/forms                          ``form_id``               changed and
                                                                                      deleted
schedulers     GET /scheduler/v1/schedulers                 ``scheduler_id``          changed and
                                                                                      deleted
shifts         GET /scheduler/v1/schedulers/{id}/shifts     ``scheduler_id``, ``id``  changed and
                                                                                      deleted
user_documents GET /documents/v1/user-documents (beta)      ``id``                    changed and
                                                                                      deleted
============== ============================================ ========================= ============

Every table is merged on the provider's own id, so re-running never duplicates a row. Nested
objects and lists (custom fields, questions, notes, breaks, ...) are kept as JSON columns: one
table per stream, each row keyed by the provider's id; the dbt staging models unnest them.

"Deleted": a stream listed in full every run (forms, schedulers, user documents, and the
operations listings in :mod:`.operations`) compares a complete listing (every page read, and
``paging.total`` matched when the answer carries it) with the live rows loaded before; a row the
provider no longer returns is merged again with ``is_deleted = true`` and ``deleted_at`` (epoch
seconds, UTC), its data kept. A listing that fails fails its stream and marks nothing.

With OAuth 2.0 the token asks only for the scopes of the streams selected
(:func:`selected_scopes`).

Configuration, the dlt way (``.dlt/config.toml``, ``.dlt/secrets.toml`` or environment variables):
``SOURCES__CONNECTEAM__API_KEY`` or ``SOURCES__CONNECTEAM__CLIENT_ID`` +
``SOURCES__CONNECTEAM__CLIENT_SECRET``; ``SOURCES__CONNECTEAM__BASE_URL`` (default the global
host); ``SOURCES__CONNECTEAM__SHIFTS_DAYS_BACK`` / ``..._DAYS_AHEAD`` / ``..._BACKFILL_START``.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Iterable, Iterator
from typing import Any

import dlt
import pandas  # noqa: F401 - dlt imports it lazily; parallel extract threads would race on that
import pyarrow as pa
from dlt.common.typing import TSecretStrValue
from dlt.sources import DltResource

from ..arrow_hints import quiet_arrow_hint_warnings
from ..clock import now as clock_now
from ..progress import Progress
from . import operations
from .arrow_rows import BIGINT, BOOL, JSON, TEXT, ArrowRows, hints
from .client import (
    ClientStats,
    ConnecteamAPIError,
    ConnecteamClient,
    ConnecteamConfigError,
    ConnecteamError,
    OAuthScopeError,
    ParentNotFoundError,
    RateLimitExhaustedError,
    find_connecteam_error,
)
from .helpers import (
    Window,
    WindowDiff,
    complete_listing,
    content_hash,
    diff_shifts,
    live,
    once,
    shift_window,
    to_epoch,
)
from .loaded import only_changed, query_loaded, tombstones, vanished
from .settings import (
    DEFAULT_ACTIVITY_DAYS_BACK,
    DEFAULT_BASE_URL,
    DEFAULT_SHIFTS_DAYS_AHEAD,
    DEFAULT_SHIFTS_DAYS_BACK,
    DEFAULT_TIME_OFF_DAYS_AHEAD,
    DEFAULT_TIME_OFF_DAYS_BACK,
    ENDPOINTS,
    FORMS,
    SCHEDULERS,
    SHIFTS,
    TASK_BOARDS,
    TIME_CLOCKS,
    USER_DOCUMENTS,
    USERS,
    oauth_scopes,
)

__all__ = [
    "ClientStats",
    "ConnecteamAPIError",
    "ConnecteamClient",
    "ConnecteamConfigError",
    "ConnecteamError",
    "OAuthScopeError",
    "RateLimitExhaustedError",
    "connecteam_source",
    "find_connecteam_error",
]

logger = logging.getLogger("sources.connecteam")
# JSON columns travel as JSON text in Arrow, declared ``json`` in the hints: intentional
quiet_arrow_hint_warnings("users", "forms", "shifts", "schedulers", "user_documents")

USER_COLUMNS = {"custom_fields": JSON, "smart_groups_ids": JSON}
DELETION_COLUMNS = {"is_deleted": BOOL, "deleted_at": BIGINT}
"""The sync's deletion mark on full-list streams (see the module docstring)."""
FORM_COLUMNS = {"questions": JSON, "settings": JSON, **DELETION_COLUMNS}
SHIFT_JSON_COLUMNS = (
    "assigned_user_ids", "location_data", "notes", "statuses", "breaks", "shift_details",
    "custom_fields",
)  # fmt: skip
SHIFT_COLUMNS = {
    **dict.fromkeys(SHIFT_JSON_COLUMNS, JSON),
    "scheduler_id": "bigint!",
    "user_id": BIGINT,
    "is_deleted": BOOL,
    "deleted_at": BIGINT,
    "content_hash": TEXT,
}


@dlt.source(name="connecteam", max_table_nesting=0)
def connecteam_source(
    api_key: TSecretStrValue | None = None,
    base_url: str = DEFAULT_BASE_URL,
    client_id: str | None = None,
    client_secret: TSecretStrValue | None = None,
    shifts_days_back: int = DEFAULT_SHIFTS_DAYS_BACK,
    shifts_days_ahead: int = DEFAULT_SHIFTS_DAYS_AHEAD,
    shifts_backfill_start: str | None = None,
    activities_days_back: int = DEFAULT_ACTIVITY_DAYS_BACK,
    activities_backfill_start: str | None = None,
    time_off_days_back: int = DEFAULT_TIME_OFF_DAYS_BACK,
    time_off_days_ahead: int = DEFAULT_TIME_OFF_DAYS_AHEAD,
    max_attempts: int = 8,
    backoff_base: float = 1.0,
    stats: ClientStats | None = None,
) -> list[DltResource]:
    """Users, forms, schedulers and shifts of one Connecteam account.

    Args:
        api_key: The account's API key (secret). Alternatively ``client_id`` and ``client_secret``.
        base_url: API host: ``https://api.connecteam.com`` (default) or
            ``https://api-au.connecteam.com``.
        client_id: OAuth 2.0 client id (client-credentials grant).
        client_secret: OAuth 2.0 client secret (secret).
        shifts_days_back: Days before now that every run re-pulls shifts for (default 30).
        shifts_days_ahead: Days after now that every run re-pulls shifts for (default 90).
        shifts_backfill_start: Where the first run of a scheduler starts instead: epoch seconds or
            an ISO date such as ``2024-01-01`` (UTC). Default: the window's start.
        activities_days_back: Days before today that every run re-pulls time activities and
            timesheets for (default 35).
        activities_backfill_start: Where the first run of a time clock starts instead (as
            ``shifts_backfill_start``).
        time_off_days_back: Days before today of the time-off window (default 35).
        time_off_days_ahead: Days after today of the time-off window (default 180).
        max_attempts: Attempts per request on 429, 5xx, timeouts and dropped connections.
        backoff_base: First back-off step in seconds (doubling, jittered).
        stats: Optional :class:`ClientStats` the client fills (requests per endpoint, retries).

    Returns:
        The resources ``users``, ``forms``, ``schedulers``, ``shifts``, ``user_documents``,
        ``time_clocks``, ``time_activities``, ``timesheets``, ``form_submissions``, ``jobs``,
        ``time_off_requests``, ``task_boards``, ``tasks``, ``user_custom_field_definitions``.

    Raises:
        ConnecteamConfigError: No credentials, or a bad ``base_url``/``shifts_backfill_start``.
    """
    backfill = to_epoch(shifts_backfill_start)
    activities_backfill = to_epoch(activities_backfill_start)
    client = ConnecteamClient(
        base_url,
        api_key=api_key,
        client_id=client_id,
        client_secret=client_secret,
        max_attempts=max_attempts,
        backoff_base=backoff_base,
        scopes=selected_scopes,
    )
    if stats is not None:
        client.stats = stats

    @once
    def scheduler_list() -> tuple[list[dict[str, Any]], bool]:
        """The account's schedulers and whether the listing is complete, fetched once per run
        and shared by two resources."""
        return complete_listing(client.pages(SCHEDULERS))

    @once
    def form_list() -> tuple[list[dict[str, Any]], bool]:
        """The account's forms and whether the listing is complete, fetched once per run (forms
        and their submissions)."""
        return complete_listing(client.pages(FORMS))

    @once
    def time_clock_list() -> list[dict[str, Any]]:
        """The time clocks, fetched once per run (clocks, activities, timesheets)."""
        return [c for page in client.paginate(TIME_CLOCKS) for c in page]

    @once
    def board_list() -> list[dict[str, Any]]:
        """The task boards, fetched once per run (boards and their tasks)."""
        return [b for page in client.paginate(TASK_BOARDS) for b in page]

    return [
        users(client),
        forms(client, form_list),
        schedulers(client, scheduler_list),
        shifts(client, scheduler_list, shifts_days_back, shifts_days_ahead, backfill),
        user_documents(client),
        operations.named_listing(client, "time_clocks", time_clock_list),
        operations.time_activities(
            client, time_clock_list, activities_days_back, activities_backfill
        ),
        operations.timesheets(client, time_clock_list, activities_days_back, activities_backfill),
        operations.form_submissions(client, form_list),
        operations.jobs(client),
        operations.time_off_requests(
            client, time_off_days_back, time_off_days_ahead, activities_backfill
        ),
        operations.named_listing(client, "task_boards", board_list),
        operations.tasks(client, board_list),
        operations.user_custom_field_definitions(client),
    ]


def selected_scopes() -> dict[str, list[str]]:
    """The OAuth 2.0 scopes of the streams the running extract selected
    (``source.with_resources``), each with the streams needing it; every stream's outside an
    extract. Called by the client at its first token request, inside the extract."""
    try:
        streams: Iterable[str] = dlt.current.source().selected_resources
    except Exception:  # noqa: BLE001 - no source being extracted: ask for every stream's scope
        streams = ENDPOINTS
    return oauth_scopes(streams)


def users(client: ConnecteamClient) -> DltResource:
    """``users``: every user (active and archived), merged on ``user_id``.

    The first run lists all users. A later run asks for users modified after the second before
    the newest ``modifiedAt`` already loaded (the API's ``modifiedAt`` filter is exclusive), so
    a user changed within that same second after the last pull comes back too. Of the users at
    that second, the ones loaded last time with the same content (a digest per user of that
    second, in the resource state) are skipped; any other is loaded, and the merge on
    ``user_id`` replaces the earlier row. An unchanged account costs one request and loads
    nothing.
    """

    @dlt.resource(
        name="users",
        parallelized=True,
        primary_key="user_id",
        write_disposition="merge",
        columns=hints(USER_COLUMNS),
    )
    def _users() -> Iterator[pa.Table]:
        state = dlt.current.resource_state()
        cursor: dict[str, Any] = state.setdefault("cursor", {})
        if "modified_at" not in cursor:  # a warehouse loaded with dlt's incremental cursor
            earlier = state.get("incremental", {}).get("modifiedAt", {}).get("last_value")
            cursor.update(modified_at=earlier, at_newest={})
        newest, at_newest = cursor["modified_at"], dict(cursor["at_newest"])
        params: dict[str, Any] = {"userStatus": "all"}
        if isinstance(newest, int) and newest > 1:
            params["modifiedAt"] = newest - 1  # the boundary second again
        progress = Progress("users", logger=logger)
        arrow = ArrowRows("users", USER_COLUMNS, client.stats.untyped_values)
        seen: dict[str, str] = {}  # digests of the users at the newest second of this listing
        top = newest

        def fresh(pages: Iterator[list[dict[str, Any]]]) -> Iterator[list[dict[str, Any]]]:
            nonlocal top, seen
            for page in pages:
                out = []
                for user in page:
                    at = user.get("modifiedAt")
                    digest = content_hash(user)
                    if isinstance(at, int) and not isinstance(at, bool):
                        if top is None or at > top:
                            top, seen = at, {}
                        if at == top:
                            seen[str(user.get("userId"))] = digest
                        if at == newest and at_newest.get(str(user.get("userId"))) == digest:
                            continue  # loaded last run, unchanged since
                    out.append(user)
                yield out

        yield from arrow.batches(fresh(progress.track(client.paginate(USERS, params))))
        if top != newest:
            cursor.update(modified_at=top, at_newest=seen)
        elif top is not None:
            cursor["at_newest"] = {**at_newest, **seen}
        since = f" modified from {newest}" if "modifiedAt" in params else ""
        progress.done(since)

    return _users


def forms(client: ConnecteamClient, form_list: Any) -> DltResource:
    """``forms``: every form, merged on ``form_id``; only new or changed forms load (a digest of
    each in the resource state); a form the complete listing no longer holds is marked deleted."""

    @dlt.resource(
        name="forms",
        parallelized=True,
        primary_key="form_id",
        write_disposition="merge",
        columns=hints(FORM_COLUMNS),
    )
    def _forms() -> Iterator[pa.Table]:
        listed, complete = form_list()
        changed = [live(f) for f in only_changed(listed, "formId")]
        arrow = ArrowRows("forms", FORM_COLUMNS, client.stats.untyped_values)
        if changed:
            yield arrow.to_arrow(changed)
        gone = _vanished("forms", "form_id", listed, "formId", complete)
        if gone:
            yield arrow.to_arrow(gone)
        logger.info(
            "forms: %d listed, %d changed, %d deleted", len(listed), len(changed), len(gone)
        )

    return _forms


def schedulers(client: ConnecteamClient, scheduler_list: Any) -> DltResource:
    """``schedulers``: every scheduler, merged on ``scheduler_id``; only changed ones are loaded
    (the endpoint has no timestamps, so a digest of each record is kept in the resource state);
    one the listing no longer holds is marked deleted."""

    @dlt.resource(
        name="schedulers",
        primary_key="scheduler_id",
        write_disposition="merge",
        columns=hints(DELETION_COLUMNS),
    )
    def _schedulers() -> Iterator[pa.Table]:
        listed, complete = scheduler_list()
        changed = [live(s) for s in only_changed(listed, "schedulerId")]
        arrow = ArrowRows("schedulers", DELETION_COLUMNS, client.stats.untyped_values)
        if changed:
            yield arrow.to_arrow(changed)
        gone = _vanished("schedulers", "scheduler_id", listed, "schedulerId", complete)
        if gone:
            yield arrow.to_arrow(gone)
        logger.info(
            "schedulers: %d listed, %d changed, %d deleted", len(listed), len(changed), len(gone)
        )

    return _schedulers


def _vanished(
    table: str, key: str, listed: list[dict[str, Any]], field: str, complete: bool
) -> list[dict[str, Any]]:
    """Tombstones of the loaded rows of ``table`` a complete listing no longer holds
    (:func:`~.loaded.vanished`); ``field`` is the listing's key field."""
    seen = {str(r.get(field)) for r in listed}
    return vanished(table, key, seen, complete, int(clock_now()))


def user_documents(client: ConnecteamClient) -> DltResource:
    """``user_documents``: every user document (beta ``GET /documents/v1/user-documents``),
    merged on ``id``; only new or changed records are loaded (digests in the resource state);
    one the complete listing no longer holds is marked deleted."""

    @dlt.resource(
        name="user_documents",
        primary_key="id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(DELETION_COLUMNS),
    )
    def _user_documents() -> Iterator[pa.Table]:
        progress = Progress("user_documents", logger=logger)
        listed, complete = complete_listing(client.pages(USER_DOCUMENTS), progress.page)
        changed = [live(r) for r in only_changed(listed, "id")]
        arrow = ArrowRows("user_documents", DELETION_COLUMNS, client.stats.untyped_values)
        if changed:
            yield arrow.to_arrow(changed)
        gone = _vanished("user_documents", "id", listed, "id", complete)
        if gone:
            yield arrow.to_arrow(gone)
        progress.done(f", {len(changed)} new or changed, {len(gone)} deleted")

    return _user_documents


def shifts(
    client: ConnecteamClient,
    scheduler_list: Any,
    days_back: int,
    days_ahead: int,
    backfill_start: int | None,
) -> DltResource:
    """``shifts``: one row per V1 shift row (per assigned user; open shifts with no user), merged
    on ``scheduler_id`` + ``id``.

    The window is ``[now - days_back, now + days_ahead)`` per scheduler (the first run of a
    scheduler from ``backfill_start`` when earlier). When the provider's answers carry
    ``paging.total``, a later run first asks for the rows updated since its last pass (sorted by
    ``updated_at``, newest first, stopping at the first older row: one request when little
    changed), and accepts that as complete only if ``paging.total`` equals the rows already known
    plus the new ones. Otherwise (no total, a deletion, an old row entering the window) it
    re-pulls the whole window sorted by creation, so paging is stable. Rows are loaded only when
    new or changed (a digest of the provider's record is kept in ``content_hash``). A live row
    lying wholly inside a re-pulled window that the provider no longer returns is loaded again
    with ``is_deleted = true`` and ``deleted_at`` (epoch seconds, UTC) — never kept as live,
    never dropped.
    """

    @dlt.resource(
        name="shifts",
        parallelized=True,
        primary_key=("scheduler_id", "id"),
        write_disposition="merge",
        columns=hints(SHIFT_COLUMNS),
    )
    def _shifts() -> Iterator[pa.Table]:
        state = dlt.current.resource_state()
        pulled: dict[str, bool] = state.setdefault("backfilled", {})
        newest: dict[str, int] = state.setdefault("newest_update", {})
        # whether the provider's shift answers carried paging.total in the last full pass: without
        # it the changes pass cannot prove completeness, so it is not even tried
        totals: dict[str, bool] = state.setdefault("has_total", {})
        now = clock_now()
        arrow = ArrowRows("shifts", SHIFT_COLUMNS, client.stats.untyped_values)
        for scheduler in scheduler_list()[0]:
            sid = int(scheduler["schedulerId"])
            try:
                first = not pulled.get(str(sid))
                window = shift_window(now, days_back, days_ahead, backfill_start if first else None)
                progress = Progress(f"shifts[{sid}]", logger=logger)
                live = _live_shifts(sid, window)
                since = newest.get(str(sid))
                cheap = (
                    None
                    if first or since is None or not totals.get(str(sid))
                    else _changes_pass(sid, window, since, live, progress)
                )
                if cheap is not None:
                    changed, seen_newest = cheap
                    if changed:
                        yield arrow.to_arrow(changed)
                    loaded, vanished = len(changed), set[str]()
                    note = "changes only (paging.total matched)"
                else:
                    loaded, vanished, seen_newest = yield from _full_pass(
                        sid, window, live, progress, totals, arrow
                    )
                    note = "full window"
                progress.done(
                    f" in {window} ({note}): {loaded} new or changed, {len(vanished)} deleted"
                )
                if vanished:
                    yield arrow.to_arrow(_tombstones(sid, vanished, int(now)))
                pulled[str(sid)] = True
                newest[str(sid)] = max(seen_newest, since or 0)
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "shifts")

    def _full_pass(
        sid: int,
        window: Window,
        live: dict[str, tuple[str, bool]],
        progress: Progress,
        totals: dict[str, bool],
        arrow: ArrowRows,
    ) -> Generator[pa.Table, None, tuple[int, set[str], int]]:
        """The whole window sorted by creation (stable paging), diffed page by page.

        Yields Arrow tables of new or changed rows (:meth:`ArrowRows.batches`), keeping only the
        ids seen between pages; records in ``totals`` whether the answers carried
        ``paging.total``. Returns ``(rows yielded, vanished ids, newest updateTime)``.
        """
        params = {"startTime": window.start, "endTime": window.end,
                  "sort": "created_at", "order": "asc"}  # fmt: skip
        diff = WindowDiff(sid, live)
        loaded = newest_seen = 0

        def changed_pages() -> Iterator[list[dict[str, Any]]]:
            nonlocal loaded, newest_seen
            for page, total in client.pages(SHIFTS, params, {"schedulerId": sid}):
                progress.page(len(page))
                totals[str(sid)] = total is not None
                newest_seen = max([newest_seen, *(_updated(r) for r in page)])
                changed = diff.changed(page)
                loaded += len(changed)
                yield changed

        yield from arrow.batches(changed_pages())
        return loaded, diff.vanished(), newest_seen

    def _changes_pass(
        sid: int,
        window: Window,
        since: int,
        live: dict[str, tuple[str, bool]],
        progress: Progress,
    ) -> tuple[list[dict[str, Any]], int] | None:
        """Rows updated since the last pass, newest first, stopping at the first older row.

        Returns ``None`` (a full window pass is needed) unless the answer carries
        ``paging.total`` and it equals the rows already known plus the new ones, which rules out
        deletions and old rows that entered the window since the last run.
        """
        params = {"startTime": window.start, "endTime": window.end,
                  "sort": "updated_at", "order": "desc"}  # fmt: skip
        records: list[dict[str, Any]] = []
        total: int | None = None
        for page, page_total in client.pages(SHIFTS, params, {"schedulerId": sid}):
            progress.page(len(page))
            total = page_total if total is None else total
            records.extend(r for r in page if _updated(r) >= since)
            if page_total is None or any(_updated(r) < since for r in page):
                break
        if total is None:
            return None
        known = set(live) | {str(r["id"]) for r in records}
        if total != len(known):
            return None
        changed, _ = diff_shifts(sid, records, live)
        return changed, max((_updated(r) for r in records), default=since)

    return _shifts


def _updated(record: dict[str, Any]) -> int:
    """A shift row's last change (``updateTime``, else ``creationTime``), epoch seconds."""
    value = record.get("updateTime") or record.get("creationTime")
    return int(value) if isinstance(value, int | float) and abs(value) < 2**63 else 0


def _live_shifts(scheduler_id: int, window: Window) -> dict[str, tuple[str, bool]]:
    """Live shift rows of one scheduler in the warehouse that overlap ``window``.

    Returns ``{id: (content_hash, lies_wholly_inside_window)}``; empty when nothing was loaded yet.
    """
    rows = _query_shifts(
        "select id, content_hash, start_time >= %s and end_time <= %s from {table} "
        "where scheduler_id = %s and not coalesce(is_deleted, false) "
        "and end_time > %s and start_time < %s",
        window.start,
        window.end,
        scheduler_id,
        window.start,
        window.end,
    )
    return {str(r[0]): (str(r[1]), bool(r[2])) for r in rows}


def _tombstones(scheduler_id: int, ids: set[str], now: int) -> list[dict[str, Any]]:
    """The warehouse rows of ``ids``, marked deleted, ready to merge back."""
    return tombstones(
        "shifts", "scheduler_id = %s", (scheduler_id,), ids, set(SHIFT_JSON_COLUMNS), now
    )


def _query_shifts(sql: str, *args: Any) -> list[tuple[Any, ...]]:
    return query_loaded("shifts", sql, *args)[1]
