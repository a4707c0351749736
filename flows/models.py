"""Steps and job for the SQL models: ``dbt build``, then the read-only snapshot and the report
(Prefect tasks and flow where a Prefect API is configured, :mod:`flows.runner`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flows.runner import job, run_logger, step

if TYPE_CHECKING:
    from dashboard.report import ReportSummary
    from pipelines.models import ModelsSummary
    from pipelines.publish import PublishSummary


@step(name="dbt_build", run_name="dbt-build")
def dbt_build(select: str | None = None, full_refresh: bool = False) -> ModelsSummary:
    """``dbt build`` of ``sql/`` (no retries: a failing data test is not transient);
    ``full_refresh`` rebuilds the incremental marts from all their history."""
    from pipelines.models import build_models

    summary = build_models(select=select, full_refresh=full_refresh)
    run_logger().info(
        "dbt build: %d passed, %d warnings, %.1f s",
        summary.passed,
        summary.warned,
        summary.duration_seconds,
    )
    return summary


@step(name="publish_snapshot", run_name="publish-snapshot", retries=1, retry_delay_seconds=(5,))
def publish() -> PublishSummary:
    """Publish the warehouse as the read-only snapshot BI tools open."""
    from pipelines.publish import publish_snapshot

    summary = publish_snapshot()
    run_logger().info(
        "published %d tables to %s in %.1f s",
        len(summary.tables),
        summary.snapshot,
        summary.duration_seconds,
    )
    return summary


@step(name="write_report", run_name="write-report", retries=1, retry_delay_seconds=(5,))
def report() -> ReportSummary:
    """Write the static report (``report.html``, :func:`pipelines.publish.report_path`) from the
    published snapshot: the dashboard notebook run once (:mod:`dashboard.report`)."""
    from dashboard.report import write_report
    from pipelines.publish import report_path
    from pipelines.publish import snapshot_path as published_snapshot
    from pipelines.runs import run_log_path

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
    from pipelines.publish import publish_skip_reason

    reason = publish_skip_reason()
    if reason is not None:
        run_logger().info(reason)
        return None, reason
    return publish(), None


@dataclass
class ModelsResult:
    """A build and, when it passed and was asked for, the publish that followed (or the note
    saying why it was skipped)."""

    models: ModelsSummary
    publish: PublishSummary | None
    publish_note: str | None = None


@job(name="build_models", run_name="build-models")
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
    built = dbt_build(select, full_refresh)
    if not publish_after:
        return ModelsResult(built, None)
    published, note = publish_unless_skipped()
    return ModelsResult(built, published, note)
