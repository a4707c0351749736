"""Steps and job for the SQL models: ``dbt build``, then the read-only snapshot and the report
(Prefect tasks and flow where a Prefect API is configured, :mod:`flows.runner`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.project import Project
from flows.runner import job, run_logger, step

if TYPE_CHECKING:
    from dashboard.report import ReportSummary
    from pipelines.models import ModelsSummary
    from pipelines.publish import PublishSummary


@step(name="dbt_build", run_name="dbt-build")
def dbt_build(
    project: Project, select: str | None = None, full_refresh: bool = False,
    everything: bool = False, unit_tests: bool = False,
) -> ModelsSummary:  # fmt: skip
    """``dbt build`` of ``sql/`` on ``project``'s warehouse (no retries: a failing data test is
    not transient): ``select``, else what changed since the last whole build
    (:mod:`pipelines.model_plan`); ``everything`` every model; ``full_refresh`` rebuilds the
    incremental marts from all their history; ``unit_tests`` then runs every dbt unit test."""
    from pipelines.models import build_models

    summary = build_models(
        select=select, full_refresh=full_refresh, everything=everything,
        unit_tests=unit_tests, project=project,
    )  # fmt: skip
    run_logger().info(
        "dbt build of %s: %d passed, %d warnings, %.1f s",
        summary.scope, summary.passed, summary.warned, summary.duration_seconds,
    )  # fmt: skip
    return summary


@step(name="publish_snapshot", run_name="publish-snapshot", retries=1, retry_delay_seconds=(5,))
def publish(project: Project) -> PublishSummary:
    """Publish ``project``'s warehouse as the read-only snapshot BI tools open."""
    from pipelines.publish import publish_snapshot

    summary = publish_snapshot(project=project)
    run_logger().info(
        "published %d tables to %s in %.1f s",
        len(summary.tables),
        summary.snapshot,
        summary.duration_seconds,
    )
    return summary


@step(name="write_report", run_name="write-report", retries=1, retry_delay_seconds=(5,))
def report(project: Project) -> ReportSummary:
    """Write ``project``'s static report (``report.html``) from its published snapshot: the
    dashboard notebook run once (:mod:`dashboard.report`)."""
    from dashboard.report import write_report

    paths = project.paths
    summary = write_report(paths.snapshot, paths.report, runs=paths.run_log, now=project.now)
    run_logger().info(
        "report: %s (%d charts, %.0f kB) in %.1f s",
        summary.path,
        summary.charts,
        summary.bytes / 1000,
        summary.duration_seconds,
    )
    return summary


def publish_unless_skipped(project: Project) -> tuple[PublishSummary | None, str | None]:
    """Run the :func:`publish` task, or, where publishing does not apply (a PostgreSQL
    warehouse), log why and skip it: ``(summary, None)`` or ``(None, note)``."""
    from pipelines.publish import publish_skip_reason

    reason = publish_skip_reason(project)
    if reason is not None:
        run_logger().info(reason)
        return None, reason
    return publish(project), None


@dataclass
class ModelsResult:
    """A build and, when it passed and was asked for, the publish that followed (or the note
    saying why it was skipped)."""

    models: ModelsSummary
    publish: PublishSummary | None
    publish_note: str | None = None


@job(name="build_models", run_name="build-models")
def build_models_flow(
    select: str | None = None,
    publish_after: bool = True,
    full_refresh: bool = False,
    everything: bool = False,
    unit_tests: bool = False,
    *,
    project: Project,
) -> ModelsResult:
    """Build the dbt models and their data tests (what changed, unless ``select`` or
    ``everything`` says otherwise); publish the snapshot when everything passed.

    Args:
        select: Optional dbt selection.
        publish_after: Publish the read-only snapshot (the project's ``snapshot``) after a
            successful build (DuckDB only; skipped with a note on PostgreSQL).
        full_refresh: Rebuild the incremental marts from all their history (dbt's
            ``--full-refresh``) rather than re-deriving the user-days changed since their last
            build: a repair, never needed for correctness.
        everything: Build every model, not only those whose inputs changed since the last
            whole build.
        unit_tests: Then run every dbt unit test (``make test`` does; builds leave them out).
        project: The configuration, resolved at the edge (the command line; a deployment's
            run: :mod:`flows.prefect_flows`).
    """
    built = dbt_build(project, select, full_refresh, everything, unit_tests)
    if not publish_after:
        return ModelsResult(built, None)
    published, note = publish_unless_skipped(project)
    return ModelsResult(built, published, note)
