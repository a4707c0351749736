"""Jobs resource: ``jobs`` (``GET /jobs/v1/jobs?includeDeleted=true``), jobs and sub-jobs merged
on ``job_id``."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, JSON, TEXT, hints
from ..client import ConnecteamClient
from ..listing import complete_listing
from ..registry import STREAMS
from .common import DELETION_MARK, diff_listing, listing_tables
from .run import Builders

logger = logging.getLogger("sources.connecteam")


JOB_COLUMNS: dict[str, str] = {
    "parent_job_id": TEXT,
    "custom_fields": JSON,
    "assign": JSON,
    "gps": JSON,
    "instance_ids": JSON,
    "fence_size": BIGINT,
    **DELETION_MARK,
}


def jobs(client: ConnecteamClient) -> DltResource:
    """``jobs``: every job including deleted ones (``includeDeleted=true``), sub-jobs flattened
    beside their parent (``parent_job_id``), merged on ``job_id``; only changed ones load.

    ``is_deleted`` is the provider's ``isDeleted``; a job (or sub-job) the complete listing no
    longer holds at all is marked ``is_deleted`` too, with ``deleted_at`` set."""

    @dlt.resource(
        name="jobs",
        primary_key="job_id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(JOB_COLUMNS),
    )
    def _jobs() -> Iterator[pa.Table]:
        progress = Progress("jobs", logger=logger)
        listing = partial(client.pages, STREAMS["jobs"], {"includeDeleted": "true"})
        listed, complete = complete_listing(listing(), progress.page)
        rows = _one_row_per_job(row for job in listed for row in _job_rows(job))

        def again(_gone: set[str]) -> set[str]:  # a second pass, only if something looks gone
            jobs = (job for page, _ in listing() for job in page)
            return {str(row["job_id"]) for job in jobs for row in _job_rows(job)}

        # is_deleted is the provider's own: a changed row only clears deleted_at
        changed, gone = diff_listing(
            client, "jobs", "job_id", rows, complete, mark=_undeleted, reread=again
        )
        progress.done(
            f" ({len(rows)} with sub-jobs, {len(changed)} new or changed, {len(gone)} deleted)"
        )
        yield from listing_tables(client, "jobs", JOB_COLUMNS, changed, gone)

    return _jobs


def job_row(job: dict[str, Any], parent: str | None) -> dict[str, Any]:
    """One job or sub-job (``BaseJobResponse``) as a warehouse row; ``parent`` is the id of the
    job a sub-job is listed under."""
    return {
        "job_id": str(job["jobId"]),
        "parent_job_id": parent or job.get("parentId"),
        "title": job.get("title"),
        "code": job.get("code"),
        "color": job.get("color"),
        "description": job.get("description"),
        "is_deleted": bool(job.get("isDeleted", False)),
        "use_parent_data": job.get("useParentData"),
        "fence_size": job.get("fenceSize"),
        "gps": job.get("gps"),
        "assign": job.get("assign"),
        "custom_fields": job.get("customFields") or [],
        "instance_ids": job.get("instanceIds") or [],
    }


def _job_rows(job: dict[str, Any]) -> list[dict[str, Any]]:
    """A job's row and its sub-jobs' rows (:func:`job_row`)."""
    return [job_row(job, None), *(job_row(sub, job["jobId"]) for sub in job.get("subJobs") or [])]


def _one_row_per_job(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with each ``job_id`` once, in first-seen order: a sub-job the listing also
    gives on its own is one job; the row that names a parent wins (the nested one names it even
    when the job's own ``parentId`` is missing)."""
    kept: dict[str, dict[str, Any]] = {}
    for row in rows:
        earlier = kept.get(row["job_id"])
        if earlier is None or (earlier["parent_job_id"] is None and row["parent_job_id"]):
            kept[row["job_id"]] = row
    return list(kept.values())


def _undeleted(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "deleted_at": None}


RESOURCES: Builders = {"jobs": lambda run: jobs(run.client)}
"""This domain's streams and how each one's resource is built for a run."""
