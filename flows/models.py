"""Prefect tasks and flow for the SQL models: ``dbt build``, then the read-only snapshot."""

from __future__ import annotations

from dataclasses import dataclass

from prefect import flow, task

from dashboard.report import ReportSummary, write_report
from flows.runner import call_task, run_logger
from pipelines.models import ModelsSummary, build_models
from pipelines.publish import PublishSummary, publish_skip_reason, publish_snapshot, report_path
from pipelines.publish import snapshot_path as published_snapshot
from pipelines.runs import run_log_path


@task(name="dbt_build", task_run_name="dbt-build")
def dbt_build(select: str | None = None, full_refresh: bool = False) -> ModelsSummary:
    """``dbt build`` of ``sql/`` (no retries: a failing data test is not transient);
    ``full_refresh`` rebuilds the incremental marts from all their history."""
    summary = build_models(select=select, full_refresh=full_refresh)
    run_logger().info(
        "dbt build: %d passed, %d warnings, %.1f s",
        summary.passed,
        summary.warned,
        summary.duration_seconds,
    )
    return summary


@task(name="publish_snapshot", task_run_name="publish-snapshot", retries=1, retry_delay_seconds=5)
def publish() -> PublishSummary:
    """Publish the warehouse as the read-only snapshot BI tools open."""
    summary = publish_snapshot()
    run_logger().info(
        "published %d tables to %s in %.1f s",
        len(summary.tables),
        summary.snapshot,
        summary.duration_seconds,
    )
    return summary


@task(name="write_report", task_run_name="write-report", retries=1, retry_delay_seconds=5)
def report() -> ReportSummary:
    """Write the static report (``report.html``, :func:`pipelines.publish.report_path`) from the
    published snapshot: the dashboard notebook run once (:mod:`dashboard.report`)."""
    summary = write_report(published_snapshot(), report_path(), runs=run_log_path())
    run_logger().info(
        "report: %s (%d charts, %.0f kB) in %.1f s",
        summary.path,
        summary.charts,
        summary.bytes / 1000,
        summary.duration_seconds,
    )
    return summary


def publish_unless_skipped() -> tuple[PublishSummary | None, str | None]:
    """Run the :func:`publish` task, or, where publishing does not apply (a PostgreSQL
    warehouse), log why and skip it: ``(summary, None)`` or ``(None, note)``."""
    reason = publish_skip_reason()
    if reason is not None:
        run_logger().info(reason)
        return None, reason
    return call_task(publish), None


@dataclass
class ModelsResult:
    """A build and, when it passed and was asked for, the publish that followed (or the note
    saying why it was skipped)."""

    models: ModelsSummary
    publish: PublishSummary | None
    publish_note: str | None = None


@flow(name="build_models", flow_run_name="build-models", log_prints=True)
def build_models_flow(
    select: str | None = None, publish_after: bool = True, full_refresh: bool = False
) -> ModelsResult:
    """Build the dbt models and tests; publish the snapshot when everything passed.

    Args:
        select: Optional dbt selection.
        publish_after: Publish the read-only snapshot (:func:`pipelines.publish.snapshot_path`)
            after a successful build (DuckDB only; skipped with a note on PostgreSQL).
        full_refresh: Rebuild the incremental marts from all their history (dbt's
            ``--full-refresh``) rather than re-deriving the days of the look-back.
    """
    built = call_task(dbt_build, select, full_refresh)
    if not publish_after:
        return ModelsResult(built, None)
    published, note = publish_unless_skipped()
    return ModelsResult(built, published, note)
