"""Several accounts' syncs on a work pool's workers: the nightly run starts each account's sync
deployment and waits for them all.

``wfm-sync deploy`` registers, beside the scheduled ``nightly`` deployment, one deployment per
account, ``sync-<account>`` (:func:`account_deployment`: the nightly flow with ``accounts`` that
one account and ``steps`` the sync alone, unscheduled, one run at a time). When several accounts
are configured, the nightly run starts them all at once (``run_deployment``, as sub-flow runs
of its own) and waits: any worker of the pool takes each, so the accounts sync in parallel on as
many processes or machines as the pool has, each within its own budget and under its own writer
lock (PostgreSQL: :func:`pipelines.writers.writer_job`). An account's run that fails is that
account's: the others load, the nightly run goes on to the fold and the models, and names the
failed account. Importing this module imports Prefect.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, cast

from prefect.client.orchestration import get_client
from prefect.client.schemas.objects import FlowRun
from prefect.deployments import run_deployment

ACCOUNT_DEPLOYMENT = "sync-{account}"
"""The name of an account's sync deployment."""
POLL_SECONDS = 2.0
"""How often the nightly run asks the server about the accounts' runs."""


def account_deployment(account: str) -> str:
    """The name of ``account``'s sync deployment: ``sync-<account>``."""
    return ACCOUNT_DEPLOYMENT.format(account=account)


def sync_on_workers(
    flow_name: str, accounts: Sequence[str], parameters: dict[str, Any]
) -> dict[str, str | None]:
    """Start the sync deployment of every account in ``accounts`` at once (sub-flow runs of the
    calling flow run) with ``parameters`` (streams, source options) over the deployment's own,
    and wait for every one to end.

    Args:
        flow_name: The flow the deployments belong to (``nightly_sync``).
        accounts: The accounts, each with its deployment (:func:`account_deployment`).
        parameters: Run parameters every account's run gets.

    Returns:
        ``{account: None}`` for a run that completed, ``{account: why}`` (its final state's
        name and message) for one that did not.

    Raises:
        prefect.exceptions.ObjectNotFound: An account without its deployment (run
            ``wfm-sync deploy`` again after adding an account).
    """
    runs: dict[str, FlowRun] = {
        account: cast(  # called from a synchronous flow: Prefect runs it to its FlowRun
            FlowRun,
            run_deployment(
                f"{flow_name}/{account_deployment(account)}",
                parameters={**parameters, "accounts": [account], "steps": ["sync"]},
                timeout=0,  # started: the runs are waited for together below
            ),
        )
        for account in accounts
    }
    outcomes: dict[str, str | None] = {}
    with get_client(sync_client=True) as client:
        while len(outcomes) < len(runs):
            for account, run in runs.items():
                if account in outcomes:
                    continue
                state = client.read_flow_run(run.id).state
                if state is not None and state.is_final():
                    outcomes[account] = (
                        None
                        if state.is_completed()
                        else f"{state.name}: {state.message or 'no message'}".splitlines()[0]
                    )
            if len(outcomes) < len(runs):
                time.sleep(POLL_SECONDS)
    return {account: outcomes[account] for account in accounts}
