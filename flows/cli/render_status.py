"""How ``wfm-sync status`` prints a :class:`pipelines.status.Status`: tables that stay whole at
80 columns (times to the minute, ``YYYY-MM-DD HH:MM`` UTC, or as an age such as ``5 h ago``;
one table per dataset, so names print without their dataset), then a line per note, then the
problems on standard error. ``--json`` prints the full values instead."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rich import box
from rich.markup import escape
from rich.table import Table

from .render import counts_line
from .terminal import console, err

if TYPE_CHECKING:
    from pipelines.status import Status


def minute(text: str | None) -> str:
    """An ISO 8601 time as ``YYYY-MM-DD HH:MM`` (UTC, as given); ``-`` for none; any other
    text (``none``) as it is."""
    if not text:
        return "-"
    return text[:16].replace("T", " ") if text[:1].isdigit() else text


def ago(text: str | None, now: str) -> str:
    """How long before ``now`` the ISO 8601 time ``text`` was: ``40 s ago``, ``12 min ago``,
    ``5 h ago``, ``3 d ago`` (``in 3 d`` when after ``now``); ``-`` for none."""
    if not text:
        return "-"
    seconds = (datetime.fromisoformat(now) - datetime.fromisoformat(text)).total_seconds()
    size = abs(seconds)
    for unit, length in (("d", 86_400), ("h", 3600), ("min", 60)):
        if size >= length * (2 if unit == "d" else 1):
            amount = f"{int(size // length)} {unit}"
            break
    else:
        amount = f"{int(size)} s"
    return f"{amount} ago" if seconds >= 0 else f"in {amount}"


def _table(title: str, *columns: str, right: tuple[str, ...] = ()) -> Table:
    """A table without side borders (80 columns hold five of them); ``right``: the columns of
    numbers, aligned right. No column is cut: a long one wraps."""
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in columns:
        table.add_column(column, justify="right" if column in right else "left", overflow="fold")
    return table


def _stale(flag: bool) -> str:
    return "[red]yes[/]" if flag else "no"


def print_status(report: Status) -> None:
    """Print ``report``: where it looked, the jobs, the tables, the notes and drift, pending
    load packages, the rate-limit budget; then ``healthy`` or its problems (standard error)."""
    console.print(f"status at {report.checked_at}", highlight=False)
    for label, value in (
        ("project", f"{report.project_dir} (settings in .dlt/)"),
        ("warehouse", report.warehouse),
        ("inbox", report.inbox.get("inbox", "-")),
        ("run log", report.run_log),
    ):
        console.print(f"  {label:<10}{escape(str(value))}", highlight=False, soft_wrap=True)
    _print_jobs(report)
    _print_tables(report)
    _print_notes(report)
    _print_drift(report)
    pending = ", ".join(f"{name} {n}" for name, n in report.pending_load_packages.items())
    console.print(f"pending load packages: {pending or 'none'}")
    budget = report.rate_limit
    console.print(
        "rate-limit budget left at the last response: "
        + (
            f"minute {budget.get('minute', '-')}, day {budget.get('day', '-')} "
            f"(at {minute(budget['at'])})"
            if budget
            else "unknown (no sync yet)"
        )
    )
    if report.problems:
        err.print("[bold red]problems:[/]")
        for problem in report.problems:
            err.print(f"  - {escape(problem)}", highlight=False)
    else:
        console.print("[green]healthy[/]")


def _print_jobs(report: Status) -> None:
    """The last run of each job (times UTC, to the minute)."""
    jobs = _table(
        "jobs (UTC)", "job", "last run", "outcome", "seconds", "last success", "stale",
        right=("seconds",),
    )  # fmt: skip
    for job in report.jobs:
        jobs.add_row(
            job.job, minute(job.last_run_at) if job.last_run_at else "never", job.outcome or "-",
            f"{job.duration_seconds:.1f}" if job.duration_seconds is not None else "-",
            minute(job.last_success_at) if job.last_success_at else "never", _stale(job.stale),
        )  # fmt: skip
    console.print(jobs)


def _print_tables(report: Status) -> None:
    """The API tables (rows, newest provider time and last sync as ages, stale), then one table
    of rows per other dataset, then the webhook families."""
    now = report.checked_at
    by_dataset: dict[str, list] = {}
    for entry in report.tables:
        by_dataset.setdefault(entry.dataset, []).append(entry)
    for dataset, entries in by_dataset.items():
        if dataset == "connecteam":
            table = _table(
                "API tables (connecteam)", "table", "rows", "newest record", "synced", "stale",
                right=("rows",),
            )  # fmt: skip
            for t in entries:
                table.add_row(
                    t.table, "-" if t.rows is None else f"{t.rows:,}", ago(t.newest, now),
                    ago(t.refreshed_at, now), _stale(t.stale),
                )  # fmt: skip
        else:
            table = _table(dataset, "table", "rows", right=("rows",))
            for t in entries:
                table.add_row(t.table, "-" if t.rows is None else f"{t.rows:,}")
        console.print(table)
    if report.webhook_families:
        families = _table("webhook events", "family", "events", "newest event", right=("events",))
        for f in report.webhook_families:
            families.add_row(f.family, f"{f.events:,}", ago(f.newest_event_at, now))
        console.print(families)


def _print_drift(report: Status) -> None:
    """The provider fields no staging model declares (a table) and the new enum values of
    ``report.drift`` (a line each); information, not problems."""
    drift = report.drift
    if drift.fields:
        fields = _table(
            "provider fields no staging model declares (information; UTC)", "table", "field",
            "first seen", "rows", right=("rows",),
        )  # fmt: skip
        for f in drift.fields:
            fields.add_row(f.table, f.field, minute(f.first_seen), f"{f.rows:,}")
        console.print(fields)
    for e in drift.enum_values:
        shown = ", ".join(f"{escape(v)} {n:,}" for v, n in e.values.items())
        console.print(
            f"new values of {e.table}.{e.column} ({e.model} accepts others): {e.new_values:,} "
            f"({shown})",
            highlight=False,
        )
    if drift.error:
        console.print(f"schema drift not read: {escape(drift.error)}", highlight=False)


def _print_notes(report: Status) -> None:
    """The inbox, refused deliveries, reconciliation, timesheet match and untyped values of
    ``report``, a line each (those it has)."""
    inbox = report.inbox
    full = f"; [bold red]cannot store events:[/] {escape(inbox['full'])}" if "full" in inbox else ""
    console.print(
        f"inbox: backlog {inbox.get('backlog', '-')}, quarantine {inbox.get('quarantine', '-')}"
        + (
            f", dropped over its budget {inbox['quarantine_dropped']}"
            if inbox.get("quarantine_dropped")
            else ""
        )
        + (f" ({inbox['error']})" if "error" in inbox else "")
        + full
    )
    if report.refusals:
        last_hour = report.refusals["last_hour"]
        console.print(
            "webhook deliveries refused in the last hour: "
            + (", ".join(f"{reason} {n:,}" for reason, n in last_hour.items()) or "none")
            + f" (last stored event {minute(report.refusals['last_stored_at'] or 'none')})",
            highlight=False,
        )
    if report.reconciliation:
        console.print(
            "time activities, API vs webhooks: "
            + ", ".join(f"{kind} {n}" for kind, n in report.reconciliation.items())
            + " (marts.fct_time_activity_reconciliation)"
        )
    if report.timesheet_match:
        console.print(f"{report.timesheet_match['line']} (marts.fct_daily_hours)")
    for title, counts in (
        ("rows with provider values that could not be typed (left null; see each model's "
         "untypable_value_count): ", report.untypable_rows),
        ("values the last sync kept in untyped_values: ", report.untyped_values),
        ("items the last sync quarantined (connecteam.quarantine): ", report.quarantined),
    ):  # fmt: skip
        if counts:
            console.print(counts_line(title, counts))
