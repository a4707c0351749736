"""Forms resources: ``forms`` (``GET /forms/v1/forms``, merged on ``form_id``) and
``form_submissions`` (``GET /forms/v1/forms/{formId}/form-submissions``, merged on
``form_submission_id``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import partial
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, JSON, ArrowRows, hints
from ..client import ConnecteamClient
from ..errors import ParentNotFoundError
from ..fanout import in_parallel
from ..listing import content_hash, second_pass
from ..registry import FORM_SUBMISSIONS_DAYS_BACK, STREAMS
from .common import DELETION_MARK, Listing, diff_listing, listing_tables
from .run import Builders

logger = logging.getLogger("sources.connecteam")

FORM_COLUMNS = {"questions": JSON, "settings": JSON, **DELETION_MARK}


def forms(client: ConnecteamClient, form_list: Listing) -> DltResource:
    """``forms``: every form, merged on ``form_id``; only new or changed forms load (a digest of
    each in the resource state); a form a consistent listing no longer holds is marked deleted."""

    @dlt.resource(
        name="forms",
        parallelized=True,
        primary_key="form_id",
        write_disposition="merge",
        columns=hints(FORM_COLUMNS),
    )
    def _forms() -> Iterator[pa.Table]:
        listed, complete = form_list()
        again = second_pass(partial(client.pages, STREAMS["forms"]), lambda r: str(r.get("formId")))
        changed, gone = diff_listing(
            client, "forms", "form_id", listed, complete, "formId", reread=again
        )
        yield from listing_tables(client, "forms", FORM_COLUMNS, changed, gone)
        logger.info(
            "forms: %d listed, %d changed, %d deleted", len(listed), len(changed), len(gone)
        )

    return _forms


DAY = 86_400

SUBMISSION_COLUMNS: dict[str, str] = {
    "answers": JSON,
    "manager_fields": JSON,
    "submission_timestamp": BIGINT,
    "synced_at": BIGINT,
}


def form_submissions(
    client: ConnecteamClient, form_list: Listing, days_back: int = FORM_SUBMISSIONS_DAYS_BACK
) -> DltResource:
    """``form_submissions``: one row per submission, answers kept as JSON with their
    ``questionType``, merged on ``form_submission_id``.

    Per form, a later run asks for the submissions from ``days_back`` days before the newest
    ``submissionTimestamp`` already loaded (``submittingStartTimestamp``, inclusive) and loads
    those that are new or whose record changed since it was loaded: an edited submission or an
    updated manager field, which the provider's timestamps do not show (a digest of each
    submission of that span is kept in the resource state). ``days_back=0`` asks from the newest
    instant only. An edit older than the span reaches the warehouse through the
    ``form_submission_edited`` and ``manager_field_updated`` webhooks. Each loaded row carries
    ``synced_at`` (epoch seconds, UTC: the sync's clock), the time its version was read.
    """

    @dlt.resource(
        name="form_submissions",
        primary_key="form_submission_id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(SUBMISSION_COLUMNS),
    )
    def _form_submissions() -> Iterator[pa.Table]:
        cursors: dict[str, dict[str, Any]] = dlt.current.resource_state().setdefault("cursors", {})
        arrow = ArrowRows("form_submissions", SUBMISSION_COLUMNS, client.stats.untyped_values)
        span = max(0, days_back) * DAY
        synced_at = int(client.now)
        listed, complete = form_list()
        if complete:  # forms the provider no longer lists take their digests with them
            for gone in set(cursors) - {str(f["formId"]) for f in listed}:
                del cursors[gone]
        # up to max_in_flight forms at once; each form's cursor is its own state key
        tasks = [
            partial(form_submission_tables, client, form, cursors, arrow, span, synced_at)
            for form in listed
        ]
        yield from in_parallel(tasks, client.max_in_flight)

    return _form_submissions


def form_submission_tables(
    client: ConnecteamClient,
    form: dict[str, Any],
    cursors: dict[str, dict[str, Any]],
    arrow: ArrowRows,
    span: int,
    synced_at: int,
) -> Iterator[pa.Table]:
    """One form's new or changed submissions as Arrow tables
    (``GET /forms/v1/forms/{formId}/form-submissions``), from ``span`` seconds before the
    newest ``submissionTimestamp`` its cursor holds (all of them without one). A form that
    vanished since it was listed (404) is skipped.

    Args:
        client: The client of the requests.
        form: The form's record (``formId``).
        cursors: Per form id (text), ``{"at": newest submissionTimestamp, "digests": {id:
            digest}}`` of the span's submissions (an older state kept ``"ids"`` only); the
            form's entry is replaced once its submissions are read.
        arrow: The Arrow batches of ``form_submissions`` rows.
        span: Seconds re-read before the newest submission (``days_back`` days).
        synced_at: The sync's clock, epoch seconds (UTC): each row's ``synced_at``; a time
            later than a day past it (milliseconds, 2**70) never moves a cursor.
    """
    form_id = int(form["formId"])
    latest_plausible = synced_at + DAY
    try:
        cursor = cursors.get(str(form_id), {})
        # digests of the span's submissions; an older state kept ids only
        known: dict[str, Any] = dict(cursor.get("digests") or {})
        known.update({sid: None for sid in cursor.get("ids", []) if sid not in known})
        params = {}
        newest = _plausible(cursor.get("at"), latest_plausible)
        if newest is not None:
            params["submittingStartTimestamp"] = newest - span
        progress = Progress(f"form_submissions[{form_id}]", logger=logger)
        seen: dict[str, tuple[int | None, str]] = {}

        def rows() -> Iterator[list[dict[str, Any]]]:
            nonlocal newest
            endpoint, parent = STREAMS["form_submissions"], {"formId": form_id}
            for page in progress.track(client.paginate(endpoint, params, parent)):
                out, newest = changed_submissions(
                    page, known, seen, newest, synced_at, latest_plausible
                )
                yield out

        yield from arrow.batches(rows())
        keep_from = (newest or 0) - span
        cursors[str(form_id)] = {
            "at": newest,
            "digests": {sid: d for sid, (at, d) in seen.items() if at is None or at >= keep_from},
        }
        progress.done()
    except ParentNotFoundError as exc:
        client.skip_parent(exc, "form_submissions")


def changed_submissions(
    page: list[dict[str, Any]],
    known: dict[str, Any],
    seen: dict[str, tuple[int | None, str]],
    newest: int | None,
    synced_at: int,
    latest: int,
) -> tuple[list[dict[str, Any]], int | None]:
    """One page of a form's submissions against the digests loaded before.

    Args:
        page: The provider's ``FormSubmissionResponse`` records.
        known: Digest by submission id of the submissions loaded last (``None``: unknown).
        seen: Filled with ``(submissionTimestamp or None, digest)`` by submission id; a
            submission without a usable time keeps its digest all the same.
        newest: The newest plausible ``submissionTimestamp`` so far (epoch seconds), or ``None``.
        synced_at: The sync's clock, epoch seconds (UTC), set as each row's ``synced_at``.
        latest: The latest plausible ``submissionTimestamp`` (later ones move no cursor).

    Returns:
        ``(rows, newest)``: the rows (:func:`submission_row`) of the new or changed
        submissions, and the newest plausible ``submissionTimestamp`` with this page.
    """
    out = []
    for s in page:
        sid, at = str(s["formSubmissionId"]), s.get("submissionTimestamp")
        digest = content_hash(s)
        stamp = _plausible(at, latest)
        if stamp is not None:
            newest = stamp if newest is None else max(newest, stamp)
        # no usable time: its digest is kept all the same; it moves no cursor
        seen[sid] = (stamp, digest)
        if known.get(sid) != digest:
            out.append({**submission_row(s), "synced_at": synced_at})
    return out, newest


def _plausible(value: Any, latest: int) -> int | None:
    """``value`` when it is integer epoch seconds no later than ``latest``, else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool) and value <= latest:
        return value
    return None


def submission_row(record: dict[str, Any]) -> dict[str, Any]:
    """One form submission (``FormSubmissionResponse``) as a warehouse row."""
    return {
        "form_submission_id": str(record["formSubmissionId"]),
        "form_id": record.get("formId"),
        "entry_num": record.get("entryNum"),
        "submission_timestamp": record.get("submissionTimestamp"),
        "submission_timezone": record.get("submissionTimezone"),
        "submission_start_timestamp": record.get("submissionStartTimestamp"),
        "submitting_user_id": record.get("submittingUserId"),
        "is_anonymous": record.get("isAnonymous"),
        "manager_fields": record.get("managerFields") or [],
        "answers": record.get("answers") or [],
    }


RESOURCES: Builders = {
    "forms": lambda run: forms(run.client, run.forms),
    "form_submissions": lambda run: form_submissions(
        run.client, run.forms, run.windows.submissions_days_back
    ),
}
"""This domain's streams and how each one's resource is built for a run."""
