"""The Prefect flows of the scheduled jobs, where deployments and workers load them.

A deployment's entrypoint names a module attribute that must be a Prefect ``Flow``; the jobs in
:mod:`flows.nightly` and :mod:`flows.fold` are declared without Prefect (:mod:`flows.runner`)
and take a resolved :class:`core.project.Project`, which a deployment cannot carry (secrets are
never deployment parameters, and each run has its own instant). So this module holds their
flows for deployments, ``flows/prefect_flows.py:nightly_sync`` and
``flows/prefect_flows.py:fold_webhooks``: each is the run's edge, resolving the project once
when the run starts (:func:`sources.configuration.resolve`, from the worker's environment and
``.dlt/``), then running the job's body. Importing it imports Prefect.
"""

from __future__ import annotations

from typing import Any

from prefect import flow

from core.settings import FOLD_RETENTION_DAYS
from flows.fold import fold_webhooks as fold_job
from flows.nightly import STEPS, STREAMS, NightlyResult
from flows.nightly import nightly_sync as nightly_job
from pipelines.fold import FoldSummary
from sources.configuration import resolve


@flow(name=nightly_job.name, flow_run_name=nightly_job.run_name, log_prints=True)
def nightly_sync(
    streams: tuple[str, ...] = STREAMS,
    streams_label: str = "all",
    source_options: dict[str, Any] | None = None,
    steps: tuple[str, ...] = STEPS,
    accounts: tuple[str, ...] | None = None,
    sync_on_workers: bool = False,
) -> NightlyResult:
    """The ``nightly_sync`` deployments' runs (``nightly``, and each account's
    ``sync-<account>``): :func:`flows.nightly.nightly_sync` (arguments and errors described
    there) with the project resolved as the run starts."""
    return nightly_job.fn(
        streams, streams_label, source_options, steps, accounts, sync_on_workers,
        project=resolve(),
    )  # fmt: skip


@flow(name=fold_job.name, flow_run_name=fold_job.run_name, log_prints=True)
def fold_webhooks(
    batch_size: int = 100_000,
    retention_days: float = FOLD_RETENTION_DAYS,
    models: bool = False,
) -> FoldSummary:
    """The ``fold_webhooks`` deployment's run: :func:`flows.fold.fold_webhooks` (arguments and
    errors described there) with the project resolved as the run starts."""
    return fold_job.fn(batch_size, retention_days, models, project=resolve())
