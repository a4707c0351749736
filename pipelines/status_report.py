"""The shapes ``wfm-sync status`` reports in (:class:`Status` and its parts), and the ages it
reads and writes (``26h``; times as ISO 8601 UTC)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

DEFAULT_MAX_AGE = "26h"
DEFAULT_FOLD_MAX_AGE = "1h"


def parse_age(text: str) -> float:
    """Seconds from ``90s``, ``30m``, ``26h``, ``2d`` or a plain number of seconds.

    Raises:
        ValueError: Anything else; the message shows the accepted forms.
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text)
    if not match:
        raise ValueError(f"age {text!r} not understood: use e.g. 90s, 30m, 26h or 2d")
    factor = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400}[match.group(2)]
    return float(match.group(1)) * factor


def iso(epoch: float | None) -> str | None:
    """Epoch seconds as an ISO 8601 UTC string (``None``, and a value that is no time within
    years 1..9999, give ``None``)."""
    if epoch is None:
        return None
    try:
        return datetime.fromtimestamp(float(epoch), UTC).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError, TypeError):
        return None


@dataclass
class JobStatus:
    """The last run of one job. Times are ISO 8601 UTC; ``stale`` per its ``max_age_seconds``."""

    job: str
    last_run_at: str | None = None
    outcome: str | None = None
    duration_seconds: float | None = None
    error: str | None = None
    last_success_at: str | None = None
    max_age_seconds: float = 0.0
    stale: bool = False


@dataclass
class TableStatus:
    """One warehouse table: rows, newest provider timestamp, when a job last refreshed it.

    ``newest`` (ISO 8601 UTC) is the newest provider time of the table's rows for a stream
    whose records carry one (``freshness`` columns in
    :data:`sources.connecteam.registry.STREAMS`); ``freshness`` is the verdict of the source's
    freshness rules on the table (:mod:`pipelines.source_freshness`: ``pass``, ``warn``,
    ``error`` past the thresholds in the source's YAML, ``runtime error`` when it could not be
    queried), ``None`` when there is nothing to judge (no rows, no warehouse yet, a table of
    another dataset).
    """

    dataset: str
    table: str
    rows: int | None = None
    newest: str | None = None
    refreshed_at: str | None = None
    stale: bool = False
    freshness: str | None = None


@dataclass
class FamilyStatus:
    """Webhook events of one family in the warehouse and the newest event's time (UTC)."""

    family: str
    events: int
    newest_event_at: str | None


@dataclass
class DriftField:
    """A raw column no staging model declares and the source does not add
    (:mod:`pipelines.drift`): the provider sends a field the project does not know.

    Attributes:
        table: ``connecteam.<table>``.
        field: The column, as dlt names the provider's field (snake_case: ``favourite_colour``).
        first_seen: When the first stored dlt schema version holding it was stored (ISO 8601
            UTC).
        rows: Rows of the table where it is not null, now.
    """

    table: str
    field: str
    first_seen: str | None
    rows: int


@dataclass
class EnumDrift:
    """Values of a raw column its staging model's ``accepted_values`` test does not list.

    Attributes:
        table: ``connecteam.<table>``.
        column: The raw column (the staging column of the same name).
        model: The staging model whose test lists the accepted values.
        new_values: How many distinct values are not accepted.
        values: The most frequent of them (up to 20) -> their rows.
    """

    table: str
    column: str
    model: str
    new_values: int
    values: dict[str, int] = field(default_factory=dict)


@dataclass
class Drift:
    """What the provider sends beyond what the project declares (:mod:`pipelines.drift`);
    shown, never a problem. ``error``: why it could not be read (then the lists may be
    partial)."""

    fields: list[DriftField] = field(default_factory=list)
    enum_values: list[EnumDrift] = field(default_factory=list)
    error: str | None = None


@dataclass
class Status:
    """Everything ``wfm-sync status`` shows; ``problems`` empty means healthy."""

    checked_at: str
    warehouse: str
    project_dir: str
    """The project's home (``DLT_PROJECT_DIR`` / ``--project-dir``, else the current directory):
    ``.dlt/`` is read from it and relative paths resolve from it."""
    run_log: str
    jobs: list[JobStatus] = field(default_factory=list)
    tables: list[TableStatus] = field(default_factory=list)
    webhook_families: list[FamilyStatus] = field(default_factory=list)
    inbox: dict[str, Any] = field(default_factory=dict)
    refusals: dict[str, Any] = field(default_factory=dict)
    """Deliveries the receiver refused (401, nothing stored), from the inbox
    (:meth:`inbox.refusals.RefusalSummary.as_dict`); one since the last stored event
    is a problem."""
    pending_load_packages: dict[str, int] = field(default_factory=dict)
    rate_limit: dict[str, Any] = field(default_factory=dict)
    reconciliation: dict[str, int] = field(default_factory=dict)
    """Time activities the API and the webhooks disagree on, per kind (``api_only``: missed
    deliveries, ``webhooks_only``, ``differs``), from ``marts.fct_time_activity_reconciliation``
    as of the last model build. Shown, not counted as a problem: the marts already take the
    API's version."""
    timesheet_match: dict[str, Any] = field(default_factory=dict)
    """User-days whose worked hours match the provider's timesheet, explained, unexplained
    (:class:`pipelines.timesheet_match.TimesheetMatch`), as of the last model build; with
    ``line`` in words. Shown, not a problem."""
    untypable_rows: dict[str, int] = field(default_factory=dict)
    """Per staging model, rows holding provider values that could not be typed (left null,
    the raw value kept), as of the last model build; shown, not a problem."""
    untyped_values: dict[str, int] = field(default_factory=dict)
    """Per raw table, values the last sync kept in ``untyped_values`` (not of their column's
    type)."""
    quarantined: dict[str, int] = field(default_factory=dict)
    """Per stream, listed items the last sync could not load and kept whole in
    ``connecteam.quarantine`` (:mod:`sources.connecteam.contract`); shown, not a problem."""
    drift: Drift = field(default_factory=Drift)
    """Raw columns no staging model declares, new enum values (:mod:`pipelines.drift`), from
    the warehouse; shown, never a problem."""
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def age_text(seconds: float) -> str:
    """``seconds`` as the shortest exact ``2d``, ``26h``, ``30m`` or ``90s``."""
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"
