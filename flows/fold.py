"""Job ``fold_webhooks`` (a Prefect flow where a Prefect API is configured): move received webhook
events into the warehouse.

Meant to run every few minutes; the deployment also rebuilds the models that read webhooks and
publishes the snapshot after a fold that loaded events. One fold step with declared retries; a
retry (or the next scheduled run) resumes an interrupted load, and the insert-only load never
counts an event twice. The fold holds the warehouse's writer lock for job ``fold`` for its whole
run (:func:`pipelines.fold.run_fold`), so this flow and the nightly's fold, on any machine, never
fold at once: the second waits up to ``WFM_SYNC_WRITER_TIMEOUT`` seconds, then fails with
``WarehouseBusyError`` (retried). The inbox URL is read from dlt config inside the task, never
passed as a parameter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.private import private_files
from core.project import Project
from core.settings import FOLD_RETENTION_DAYS
from flows.naming import rename_current_run
from flows.runner import job, run_logger, step
from sources.connecteam.transient import is_transient

if TYPE_CHECKING:
    from pipelines.fold import FoldSummary


WEBHOOK_MODELS = "source:webhooks+"
"""The dbt selection a fold rebuilds: every model that reads the webhook events, and theirs."""


@step(
    name="fold_inbox",
    run_name="fold-inbox",
    retries=2,
    retry_delay_seconds=(5, 30),
    retry_if=is_transient,
)
def fold_inbox(batch_size: int, retention_days: float, project: Project) -> FoldSummary:
    """Fold every unfolded inbox event of ``project`` into ``webhooks.events``; under Prefect
    the task run is renamed after the events folded; a failure is logged with the inbox range
    it was folding."""
    from pipelines.fold import run_fold

    try:
        summary = run_fold(batch_size=batch_size, retention_days=retention_days, project=project)
    except Exception as exc:
        run_logger().error("%s", exc)  # names the inbox ids and families it was loading
        raise
    families = ", ".join(f"{f} {n:,}" for f, n in summary.families.items())
    rename_current_run(
        f"fold {summary.events:,} events into webhooks" + (f" ({families})" if families else ""),
        task=True,
    )
    run_logger().info(
        "folded %d events (%s), %d quarantined bodies, %d pruned, backlog %d, %.1f s",
        summary.events,
        ", ".join(f"{f}={n}" for f, n in summary.families.items()) or "none",
        summary.quarantined,
        summary.pruned,
        summary.backlog,
        summary.duration_seconds,
    )
    return summary


@job(name="fold_webhooks", run_name="fold-webhooks")
def fold_webhooks(
    batch_size: int = 100_000,
    retention_days: float = FOLD_RETENTION_DAYS,
    models: bool = False,
    *,
    project: Project,
) -> FoldSummary:
    """Fold the webhook inbox into dataset ``webhooks`` (tables ``events``, ``quarantine``).

    Args:
        batch_size: Inbox rows per Arrow batch.
        retention_days: Days a folded inbox row is kept before it is pruned.
        models: When the fold loaded events, also build the models that read them
            (``dbt build --select source:webhooks+``: ``fct_shifts`` with the day's shift changes,
            the form, task and chat models, ...) and publish the snapshot (DuckDB only), so a
            dashboard shows the day's changes before the nightly sync. The scheduled
            deployment sets it.
        project: The configuration, resolved at the edge (the command line; a deployment's
            run: :mod:`flows.prefect_flows`).
    """
    from flows.models import dbt_build, publish_unless_skipped

    private_files()  # a Prefect worker's run starts here: what it writes is private
    summary = fold_inbox(batch_size, retention_days, project)
    rename_current_run(f"fold-webhooks: {summary.events:,} events, backlog {summary.backlog:,}")
    if models and summary.events:
        dbt_build(project, WEBHOOK_MODELS)
        publish_unless_skipped(project)
    return summary
