"""How ``wfm-sync`` prints what a job did: one renderer per job summary, to standard output
(problems to standard error). Each takes the job's own summary dataclass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from .terminal import console, err

if TYPE_CHECKING:
    from dashboard.report import ReportSummary
    from flows.nightly import NightlyResult
    from pipelines.documents import BulkSummary
    from pipelines.fold import FoldSummary
    from pipelines.models import ModelsSummary
    from pipelines.publish import PublishSummary
    from pipelines.status import Status
    from pipelines.sync import SyncSummary


def count_table(key: str, value: str, counts: dict[str, int], total: int | None = None) -> Table:
    """A two-column table of counts, optionally with a bold total row."""
    table = Table()
    table.add_column(key)
    table.add_column(value, justify="right")
    for name, n in counts.items():
        table.add_row(name, f"{n:,}")
    if total is not None:
        table.add_row("[bold]all[/]", f"[bold]{total:,}[/]")
    return table


def print_summary(summary: SyncSummary, wall_seconds: float | None = None) -> None:
    """Print rows loaded per table, requests made and time taken."""
    console.print(f"warehouse: {summary.warehouse}, dataset {summary.dataset}")
    console.print(count_table("table", "rows loaded", summary.rows))
    per_endpoint = ", ".join(f"{path} {n}" for path, n in sorted(summary.requests.items()))
    console.print(
        f"requests: {summary.total_requests} ({per_endpoint or 'none'}); retries: "
        f"{summary.retries}; 429 answers: {summary.throttled}; waited for rate limit: "
        f"{summary.paced_seconds:.1f} s"
    )
    if summary.resumed_packages:
        console.print(f"finished {summary.resumed_packages} load package(s) of an interrupted run")
    if summary.skipped_parents:
        console.print(
            "skipped, vanished since they were listed: " + ", ".join(summary.skipped_parents)
        )
    if summary.untyped_values:
        console.print(
            "values kept in untyped_values (not of their column's type): "
            + ", ".join(f"{t} {n:,}" for t, n in sorted(summary.untyped_values.items()))
        )
    if summary.quarantined:
        console.print(
            "items quarantined (kept whole in connecteam.quarantine, not loaded): "
            + ", ".join(f"{t} {n:,}" for t, n in sorted(summary.quarantined.items()))
        )
    if wall_seconds is not None:
        console.print(f"time taken: {wall_seconds:.1f} s")


def print_fold(summary: FoldSummary, wall_seconds: float | None = None) -> None:
    """Print events folded per family, quarantined bodies, pruned rows and time taken."""
    console.print(f"warehouse: {summary.warehouse}, dataset webhooks; inbox: {summary.inbox}")
    console.print(count_table("family", "events folded", summary.families, summary.events))
    console.print(
        f"quarantined bodies folded: {summary.quarantined}; inbox rows pruned: {summary.pruned}; "
        f"arrived meanwhile: {summary.backlog}"
    )
    flagged = {
        "deliveries stored apart (same key, other body)": summary.key_conflicts,
        "implausible event times (left null)": summary.implausible_times,
        "bodies not loadable as JSON (kept as text)": summary.unreadable_payloads,
    }
    if any(flagged.values()):
        console.print("; ".join(f"{label}: {n}" for label, n in flagged.items() if n))
    if wall_seconds is not None:
        console.print(f"time taken: {wall_seconds:.1f} s")


def print_models(
    models: ModelsSummary | None = None,
    published: PublishSummary | None = None,
    publish_note: str | None = None,
) -> None:
    """Print the dbt build's outcome, the rows with untypable values, and the snapshot (or why
    it was not published)."""
    if models is not None:
        console.print(
            f"dbt build: {models.passed} models and tests passed, {models.warned} warnings, "
            f"{models.duration_seconds:.1f} s"
        )
        for mart, derived in sorted(models.incremental.items()):
            console.print(f"{mart}: {derived}")
        if models.untypable_rows:
            console.print(
                "rows with provider values that could not be typed (left null): "
                + ", ".join(f"{m} {n:,}" for m, n in sorted(models.untypable_rows.items()))
            )
    if published is not None:
        console.print(
            f"published {len(published.tables)} tables to {published.snapshot} and "
            f"{len(published.parquet_tables)} marts as Parquet to {published.parquet_dir} "
            f"({published.duration_seconds:.1f} s)"
        )
    if publish_note is not None:
        console.print(publish_note)


def print_report(report: ReportSummary) -> None:
    """Print where the static report went, its charts, size and time."""
    console.print(
        f"report: {report.path} ({report.charts} charts, {report.bytes / 1000:,.0f} kB, "
        f"{report.duration_seconds:.1f} s)"
    )


def print_nightly(result: NightlyResult, wall_seconds: float) -> None:
    """Print every step of a nightly_sync run, then the time taken."""
    if result.sync.warehouse:
        print_summary(result.sync)
    if result.fold is not None:
        print_fold(result.fold)
    print_models(result.models, result.publish, result.publish_note)
    if result.report is not None:
        print_report(result.report)
    console.print(f"time taken: {wall_seconds:.1f} s")


def print_status(report: Status) -> None:
    """Print a :class:`pipelines.status.Status` as tables."""
    console.print(f"status at {report.checked_at}")
    console.print(
        f"project {report.project_dir} (settings {report.project_dir}/.dlt); warehouse "
        f"{report.warehouse}; inbox {report.inbox.get('inbox', '-')}; run log {report.run_log}",
        highlight=False,
    )
    _print_status_tables(report)
    _print_status_notes(report)
    _print_status_drift(report)
    pending = ", ".join(f"{name} {n}" for name, n in report.pending_load_packages.items())
    console.print(f"pending load packages: {pending or 'none'}")
    budget = report.rate_limit
    console.print(
        "rate-limit budget left at the last response: "
        + (
            f"minute {budget.get('minute', '-')}, day {budget.get('day', '-')} (at {budget['at']})"
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


def _print_status_tables(report: Status) -> None:
    """The jobs, tables and webhook families of ``report`` as tables."""
    jobs = Table(title="jobs")
    for column in ("job", "last run (UTC)", "outcome", "seconds", "last success (UTC)", "stale"):
        jobs.add_column(column)
    for job in report.jobs:
        jobs.add_row(
            job.job, job.last_run_at or "never", job.outcome or "-",
            f"{job.duration_seconds:.1f}" if job.duration_seconds is not None else "-",
            job.last_success_at or "never", "[red]yes[/]" if job.stale else "no",
        )  # fmt: skip
    console.print(jobs)
    tables = Table(title="tables")
    for column in ("table", "rows", "newest provider time (UTC)", "refreshed (UTC)", "stale"):
        tables.add_column(column, justify="right" if column == "rows" else "left")
    for t in report.tables:
        tables.add_row(
            f"{t.dataset}.{t.table}", "-" if t.rows is None else f"{t.rows:,}", t.newest or "-",
            t.refreshed_at or "-", "[red]yes[/]" if t.stale else "no",
        )  # fmt: skip
    console.print(tables)
    if report.webhook_families:
        families = Table(title="webhook events")
        for column in ("family", "events", "newest event (UTC)"):
            families.add_column(column)
        for f in report.webhook_families:
            families.add_row(f.family, f"{f.events:,}", f.newest_event_at or "-")
        console.print(families)


def _print_status_drift(report: Status) -> None:
    """The provider fields no staging model declares (a table) and the new enum values of
    ``report.drift`` (a line each); information, not problems."""
    drift = report.drift
    if drift.fields:
        fields = Table(title="provider fields no staging model declares (information)")
        for column in ("table", "field", "first seen (UTC)", "rows"):
            fields.add_column(column, justify="right" if column == "rows" else "left")
        for f in drift.fields:
            fields.add_row(f.table, f.field, f.first_seen or "-", f"{f.rows:,}")
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


def _print_status_notes(report: Status) -> None:
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
            + f" (last stored event {report.refusals['last_stored_at'] or 'none'})",
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
    if report.untypable_rows:
        console.print(
            "rows with provider values that could not be typed (left null; see each model's "
            "untypable_value_count): "
            + ", ".join(f"{model} {n:,}" for model, n in sorted(report.untypable_rows.items()))
        )
    if report.untyped_values:
        console.print(
            "values the last sync kept in untyped_values: "
            + ", ".join(f"{table} {n:,}" for table, n in sorted(report.untyped_values.items()))
        )
    if report.quarantined:
        console.print(
            "items the last sync quarantined (connecteam.quarantine): "
            + ", ".join(f"{stream} {n:,}" for stream, n in sorted(report.quarantined.items()))
        )


def print_bulk(summary: BulkSummary) -> None:
    """Print what a document bulk did: rows skipped, checked and submitted by outcome, requests
    and time; then, on standard error, rows kept with an unexpected status and the rows that
    failed or stayed uncertain (twenty of each at most)."""
    checked = (
        f"{summary.checked['recorded']} interrupted entries found recorded and "
        f"{summary.checked['absent']} absent by checking with the provider"
        + (f", {summary.checked['untold']} cannot be told" if summary.checked["untold"] else "")
        + "; "
        if summary.checked
        else ""
    )
    console.print(
        f"{summary.rows} rows: {summary.skipped} already recorded, {checked}"
        + (", ".join(f"{status} {n}" for status, n in sorted(summary.outcomes.items())) or
           "nothing submitted")
        + f"; {summary.requests} requests, {summary.duration_seconds:.1f} s; outcomes in "
        "connecteam.document_entries",
        highlight=False,
    )  # fmt: skip
    if summary.unexpected:
        statuses = ", ".join(f"{s} {n}" for s, n in sorted(summary.unexpected.items()))
        err.print(
            f"{sum(summary.unexpected.values())} row(s) recorded with a status other than "
            f"approved or pendingApproval ({statuses}), kept as the provider answered; they are "
            "not submitted again unless you pass --retry-unexpected",
            highlight=False,
        )
    for line, key, error in summary.failures[:20]:
        err.print(f"row {line} ({key}): {escape(error)}", highlight=False)
    for line, key, error in summary.uncertain[:20]:
        err.print(f"row {line} ({key}) uncertain: {escape(error)}", highlight=False)
    if summary.failures:
        err.print(
            f"{len(summary.failures)} row(s) failed; run the same command again to retry them"
        )
    if summary.uncertain:
        err.print(
            f"{len(summary.uncertain)} row(s) may have reached the provider without an answer "
            "and are not sent again: the next run checks those it can; `wfm-sync documents "
            "status` lists them, `wfm-sync documents resolve --sent|--resend` settles them"
        )
