"""A failed dbt node of a build, and a sample of the rows a failed test complains about.

:func:`pipelines.models.build_models` names every model or test that did not pass; for a failed
data test it re-runs the test's compiled query for a few offending rows, from the DuckDB file or
with psycopg2 from PostgreSQL, so the message shows what is wrong, not only where.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from .warehouse import postgres_target

logger = logging.getLogger("pipelines.models")

SAMPLE_ROWS = 5
"""Offending rows shown per failed test."""


@dataclass
class FailedNode:
    """One model or test that did not pass.

    Attributes:
        name: The dbt node name, e.g. ``primary_key_dim_users_user_id``.
        kind: ``test``, ``unit_test``, ``model``, ...
        status: ``fail`` or ``error``.
        message: dbt's message.
        failures: Failing rows counted by dbt (tests).
        columns: Column names of ``sample``.
        sample: Up to five offending rows (tests whose SQL could be re-run).
    """

    name: str
    kind: str
    status: str
    message: str
    failures: int | None = None
    columns: list[str] = field(default_factory=list)
    sample: list[tuple[Any, ...]] = field(default_factory=list)

    def describe(self) -> str:
        """One paragraph: name, status, message, and the sample rows."""
        text = f"{self.kind} {self.name} {self.status}: {self.message}"
        if self.sample:
            text += f"\n    offending rows ({', '.join(self.columns)}):"
            text += "".join(f"\n      {row}" for row in self.sample)
        return text


def sample_failed_rows(node: FailedNode, compiled_sql: str | None, warehouse: Path | None) -> None:
    """Re-run a failed test's compiled query for a few (:data:`SAMPLE_ROWS`) of the rows it
    complains about, on the DuckDB file ``warehouse`` or (``None``) the PostgreSQL warehouse,
    into ``node.columns`` and ``node.sample``; a query that fails is logged, not raised."""
    if not compiled_sql:
        return
    query = f"select * from ({compiled_sql}) as failing limit {SAMPLE_ROWS}"
    if warehouse is None:
        _sample_postgres(node, query)
        return
    try:
        with duckdb.connect(str(warehouse)) as con:
            relation = con.sql(query)
            node.columns = list(relation.columns)
            node.sample = [tuple(r) for r in relation.fetchall()]
    except duckdb.Error as exc:  # the sample is a courtesy; the failure itself stands
        logger.warning("could not sample the rows of %s: %s", node.name, exc)


def _sample_postgres(node: FailedNode, query: str) -> None:
    """Run ``query`` on the PostgreSQL warehouse (psycopg2, session timezone UTC as the build's)
    into ``node.columns`` and ``node.sample``; a query that fails is logged, not raised."""
    import psycopg2

    target = postgres_target()
    try:
        with psycopg2.connect(
            host=target.host, port=target.port, user=target.user, password=target.password,
            dbname=target.database, options="-c timezone=UTC",
        ) as connection, connection.cursor() as cursor:  # fmt: skip
            cursor.execute(query)
            node.columns = [d.name for d in cursor.description or ()]
            node.sample = [tuple(r) for r in cursor.fetchall()]
    except psycopg2.Error as exc:  # the sample is a courtesy; the failure itself stands
        logger.warning("could not sample the rows of %s: %s", node.name, exc)
