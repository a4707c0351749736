"""Old versions of a pipeline's dlt state, removed from the warehouse after each load.

dlt writes the pipeline's whole state (compressed, base64) as a new row of
``<dataset>._dlt_pipeline_state`` at every load whose state changed, and never removes one; a
pipeline restores only the newest row of a completed load (``_dlt_loads.status = 0``). Our
state holds a digest of every record of the streams without a modified-since filter
(:func:`sources.connecteam.loaded.only_changed`): about 65 bytes a record, so a row of 21 MB
for an account of 40,000 users and 450,000 pay rates, written at each load after the pay
rates' (four of the first sync of such an account, 84 MB). The table grew at every sync that
changed the state, without end.
"""

from __future__ import annotations

import logging

import dlt
from dlt.common.schema.typing import LOADS_TABLE_NAME, PIPELINE_STATE_TABLE_NAME
from dlt.destinations.exceptions import DatabaseException

from core.project import Project

from .warehouse import WarehouseBusyError
from .writers import confirm_writer

logger = logging.getLogger(__name__)

STATE_VERSIONS_KEPT = 3
"""Rows of completed loads kept per pipeline: the one dlt restores and the two before it."""


def prune_state_history(pipeline: dlt.Pipeline, keep: int = STATE_VERSIONS_KEPT) -> int:
    """Delete ``pipeline``'s state rows of loads older than its ``keep`` newest completed
    loads (by load id, the order in which dlt picks the row it restores).

    The rows of loads not completed (a package that failed half loaded, to be resumed) that are
    newer than those are kept as well: nothing dlt may restore is removed. Other pipelines' rows
    in the same dataset (the backfill's, the fold's) are not touched.

    Args:
        pipeline: A pipeline whose destination has been loaded at least once (DuckDB or
            PostgreSQL).
        keep: How many of the newest completed versions to keep (at least 1).

    Returns:
        The number of rows deleted.

    Raises:
        ValueError: ``keep`` is below 1.
        dlt.destinations.exceptions.DatabaseException: The warehouse refused the query.
    """
    if keep < 1:
        raise ValueError(f"keep must be at least 1, not {keep}")
    with pipeline.sql_client() as client:
        state = client.make_qualified_table_name(PIPELINE_STATE_TABLE_NAME)
        loads = client.make_qualified_table_name(LOADS_TABLE_NAME)
        # dlt restores the newest row of a completed load by load id (get_stored_state)
        completed = (
            client.execute_sql(
                f"select distinct s._dlt_load_id from {state} as s join {loads} as l "
                "on l.load_id = s._dlt_load_id where s.pipeline_name = %s and l.status = 0 "
                "order by 1 desc limit %s",  # distinct: a resumed load may be listed twice
                pipeline.pipeline_name,
                keep,
            )
            or []
        )
        if len(completed) < keep:
            return 0
        oldest_kept = min(str(row[0]) for row in completed)
        where = f"from {state} where pipeline_name = %s and _dlt_load_id < %s"
        counted = client.execute_sql(
            f"select count(*) {where}", pipeline.pipeline_name, oldest_kept
        )
        old = int(counted[0][0]) if counted else 0
        if old:
            client.execute_sql(f"delete {where}", pipeline.pipeline_name, oldest_kept)
            logger.debug(
                "removed %d old versions of the %s pipeline's state", old, pipeline.pipeline_name
            )
    return old


def prune_after_load(pipeline: dlt.Pipeline, project: Project) -> None:
    """:func:`prune_state_history` as a sync's last step: only while the sync still holds the
    writer lock (:func:`~.warehouse.confirm_writer`), and its failure is a warning, never the
    sync's (its rows and state are loaded by then; the next sync prunes what this one kept)."""
    try:
        confirm_writer("sync", project)
        prune_state_history(pipeline)
    except (DatabaseException, WarehouseBusyError) as exc:
        first_line = (str(exc).strip().splitlines() or [""])[0][:300]
        logger.warning(
            "kept the old versions of the %s pipeline's state this time (%s: %s)",
            pipeline.pipeline_name,
            type(exc).__name__,
            first_line,
        )
