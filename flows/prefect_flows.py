"""The Prefect flows of the scheduled jobs, where deployments and workers load them.

A deployment's entrypoint names a module attribute that must be a Prefect ``Flow``; the jobs in
:mod:`flows.nightly` and :mod:`flows.fold` are declared without Prefect (:mod:`flows.runner`),
so this module holds their flows: ``flows/prefect_flows.py:nightly_sync`` and
``flows/prefect_flows.py:fold_webhooks``. Importing it imports Prefect.
"""

from __future__ import annotations

from flows.fold import fold_webhooks as fold_job
from flows.nightly import nightly_sync as nightly_job

nightly_sync = nightly_job.prefect_flow
fold_webhooks = fold_job.prefect_flow

ENTRYPOINT_FILE = "flows/prefect_flows.py"
"""This module's path from the project's root, the file part of every deployment entrypoint."""
