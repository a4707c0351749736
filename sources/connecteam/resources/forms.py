"""Forms resources: ``forms`` (``GET /forms/v1/forms``, merged on ``form_id``) and
``form_submissions`` (``GET /forms/v1/forms/{formId}/form-submissions``, merged on
``form_submission_id``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from ...progress import Progress
from ..arrow_rows import BIGINT, JSON, ArrowRows, hints
from ..client import ConnecteamClient
from ..errors import ParentNotFoundError
from ..registry import STREAMS
from .common import DELETION_MARK, Listing, diff_listing, listing_tables

logger = logging.getLogger("sources.connecteam")

FORM_COLUMNS = {"questions": JSON, "settings": JSON, **DELETION_MARK}


def forms(client: ConnecteamClient, form_list: Listing) -> DltResource:
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
        changed, gone = diff_listing("forms", "form_id", listed, complete, "formId")
        yield from listing_tables(client, "forms", FORM_COLUMNS, changed, gone)
        logger.info(
            "forms: %d listed, %d changed, %d deleted", len(listed), len(changed), len(gone)
        )

    return _forms


SUBMISSION_COLUMNS: dict[str, str] = {
    "answers": JSON,
    "manager_fields": JSON,
    "submission_timestamp": BIGINT,
}


def form_submissions(client: ConnecteamClient, form_list: Listing) -> DltResource:
    """``form_submissions``: one row per submission, answers kept as JSON with their
    ``questionType``, merged on ``form_submission_id``. Per form, a later run asks only for
    submissions from the newest ``submissionTimestamp`` already loaded
    (``submittingStartTimestamp``, inclusive; the ones at that instant already loaded are
    skipped)."""

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
        for form in form_list()[0]:
            form_id = int(form["formId"])
            try:
                cursor = cursors.get(str(form_id), {})
                params = {}
                if cursor.get("at") is not None:
                    params["submittingStartTimestamp"] = int(cursor["at"])
                known = set(cursor.get("ids", []))
                progress = Progress(f"form_submissions[{form_id}]", logger=logger)
                newest, at_newest = cursor.get("at"), set(known)

                def rows(
                    params: dict[str, Any] = params,
                    form_id: int = form_id,
                    known: set[str] = known,
                    progress: Progress = progress,
                ) -> Iterator[list[dict[str, Any]]]:
                    nonlocal newest, at_newest
                    for page in progress.track(
                        client.paginate(STREAMS["form_submissions"], params, {"formId": form_id})
                    ):
                        out = []
                        for s in page:
                            sid, at = str(s["formSubmissionId"]), s.get("submissionTimestamp")
                            if not isinstance(at, int) or isinstance(at, bool):
                                pass  # no usable time: loaded, but it cannot move the cursor
                            elif newest is None or at > newest:
                                newest, at_newest = at, {sid}
                            elif at == newest:
                                at_newest.add(sid)
                            if sid not in known:
                                out.append(submission_row(s))
                        yield out

                yield from arrow.batches(rows())
                cursors[str(form_id)] = {"at": newest, "ids": sorted(at_newest)}
                progress.done()
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "form_submissions")

    return _form_submissions


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
