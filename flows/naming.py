"""Rename Prefect flow and task runs after they finish, so a run list says what each run did."""

from __future__ import annotations

import logging
import sys

logger = logging.getLogger("flows")


def rename_current_run(name: str, *, task: bool = False) -> None:
    """Give the running flow run (or task run, with ``task=True``) the name ``name``.

    Best effort: outside a run (always, when Prefect is not imported), or when the server cannot
    be reached, it only logs at debug level; the run itself never fails because of its name.
    """
    if "prefect" not in sys.modules:
        return
    try:
        from prefect.client.orchestration import get_client
        from prefect.runtime import flow_run, task_run

        run_id = task_run.id if task else flow_run.id
        if not run_id:
            return
        with get_client(sync_client=True) as client:
            if task:
                client.set_task_run_name(run_id, name[:250])
            else:
                client.set_flow_run_name(run_id, name[:250])
    except Exception as exc:  # noqa: BLE001 - a name is never worth a failed run
        logger.debug("could not rename the run: %s", exc)


def rows_text(rows: dict[str, int]) -> str:
    """``"3,020 rows (users 3,000, forms 20)"``, tables with no rows left out."""
    total = sum(rows.values())
    parts = ", ".join(f"{table} {n:,}" for table, n in rows.items() if n)
    return f"{total:,} rows" + (f" ({parts})" if parts else "")
