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


def counts_line(title: str, counts: dict[str, int]) -> str:
    """``title`` then ``name n`` per entry of ``counts``, by name: ``"kept: a 1, b 2,000"``."""
    return title + ", ".join(f"{name} {n:,}" for name, n in sorted(counts.items()))


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
        console.print(counts_line("values kept in untyped_values (not of their column's type): ",
                                  summary.untyped_values))  # fmt: skip
    if summary.repeated_keys:
        console.print(counts_line("rows not loaded, their key came earlier in this run: ",
                                  summary.repeated_keys))  # fmt: skip
    if summary.quarantined:
        console.print(counts_line(
            "items quarantined (kept whole in connecteam.quarantine, not loaded): ",
            summary.quarantined,
        ))  # fmt: skip
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
            f"{models.duration_seconds:.1f} s" + (f"; built {models.scope}" if models.scope else "")
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
    """Print every step of a nightly_sync run (the sync per account when it synced several),
    then the time taken."""
    for name, summary in result.accounts.items():
        console.print(f"[bold]account {escape(name)}[/]")
        print_summary(summary)
    if result.sync.warehouse and not result.accounts:
        print_summary(result.sync)
    if result.fold is not None:
        print_fold(result.fold)
    print_models(result.models, result.publish, result.publish_note)
    if result.report is not None:
        print_report(result.report)
    console.print(f"time taken: {wall_seconds:.1f} s")


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
