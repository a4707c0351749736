"""What ``wfm-sync status`` reads from the warehouse: each API table's rows, newest provider time
(the source's freshness rules, :mod:`pipelines.source_freshness`) and last refresh, the other
tables' rows, the webhook families, the API/webhook reconciliation, the timesheet match and the
schema drift (:mod:`pipelines.drift`). Reads through the dlt pipeline's SQL client, so DuckDB
and PostgreSQL alike, in one connection; dbt is not started."""

from __future__ import annotations

from typing import Any

from core.project import DEFAULT_ACCOUNT, Project, account_dataset
from sources.connecteam.registry import STREAMS as REGISTRY

from .dbt_runner import project_dir
from .drift import collect_drift
from .fold import DATASET_WEBHOOKS
from .runs import RunRecord
from .source_freshness import freshness_rules, source_freshness
from .status_report import FamilyStatus, Status, TableStatus, age_text, iso
from .sync import STREAMS
from .timesheet_match import read_timesheet_match
from .warehouse import DATASET_CONNECTEAM, build_pipeline

OTHER_DATASETS = (DATASET_WEBHOOKS, "marts")
"""Datasets (schemas) beside the accounts' whose tables ``status`` counts; staging views are not
materialized."""


def _refreshed(runs: list[RunRecord], table: str, account: str) -> float | None:
    """When the last successful sync of ``account`` that included ``table`` finished (a run
    logged without an account was the ``default`` account's)."""
    for record in reversed(runs):
        ok = record.job == "sync" and record.outcome == "succeeded"
        mine = (record.account or DEFAULT_ACCOUNT) == account
        if ok and mine and table in record.details.get("rows", {}):
            return record.finished_at
    return None


def warehouse_status(
    status: Status, runs: list[RunRecord], max_age: float, now: float, project: Project
) -> None:
    """Fill ``tables`` (each account's API tables, in its dataset), ``webhook_families``,
    ``reconciliation``, ``timesheet_match`` and ``drift`` from ``project``'s warehouse, if it
    can be read."""
    if project.destination == "duckdb" and not project.warehouse.exists():
        status.problems.append(f"no warehouse at {project.warehouse} yet")
        return
    pipeline = build_pipeline(project=project)
    accounts = {account_dataset(name): name for name in project.account_names}
    try:
        with pipeline.sql_client() as client:
            existing = _tables(client, (*accounts, *OTHER_DATASETS))
            rules = freshness_rules(project_dir(project.settings), DATASET_CONNECTEAM)
            for dataset, account in accounts.items():
                present = {t: r for t, r in rules.items() if (dataset, t) in existing}
                freshness = source_freshness(client, dataset, present, now)
                _api_tables(status, client, existing, (dataset, account, freshness), runs,
                            (max_age, now))  # fmt: skip
            for dataset, table in sorted(existing):
                if dataset not in accounts and not table.startswith("_dlt"):
                    rows = _count(client, dataset, table)
                    status.tables.append(TableStatus(dataset, table, rows))
            if (DATASET_WEBHOOKS, "events") in existing:
                status.webhook_families = _families(client)
            if ("marts", "fct_time_activity_reconciliation") in existing:
                status.reconciliation = _reconciliation(client)
            if ("marts", "fct_daily_hours") in existing:
                match = read_timesheet_match(lambda sql: _rows(client, sql))
                status.timesheet_match = {**match.as_dict(), "line": match.line()}
            if (DATASET_CONNECTEAM, "_dlt_version") in existing:
                status.drift = collect_drift(client, project)
    except Exception as exc:  # noqa: BLE001 - a busy or unreachable warehouse is reported
        reason = str(exc).splitlines()[0]
        if "lock" in reason.lower():
            reason = "in use by a running job (DuckDB allows one writer process)"
        status.problems.append(f"warehouse not readable: {reason}")


def _api_tables(
    status: Status, client: Any, existing: set[tuple[str, str]],
    account: tuple[str, str, dict[str, Any]], runs: list[RunRecord], ages: tuple[float, float],
) -> None:  # fmt: skip
    """Add each API table of one account (``account``: its dataset, its name and its tables'
    freshness, :func:`~.source_freshness.source_freshness`) to ``status.tables``: rows, newest
    provider time, last refresh; a problem for each stale one. ``ages``: the age past which a
    table is stale, and now (epoch seconds)."""
    dataset, name, freshness = account
    max_age, now = ages
    for table in STREAMS:
        refreshed = _refreshed(runs, table, name)
        entry = TableStatus(dataset, table, refreshed_at=iso(refreshed))
        entry.stale = refreshed is None or now - refreshed > max_age
        if (dataset, table) in existing:
            entry.rows = _count(client, dataset, table)
            entry.freshness, newest = freshness.get(table, (None, None))
            entry.newest = iso(newest) if REGISTRY[table].freshness else None
        if entry.stale:
            status.problems.append(
                f"table {dataset}.{table}: last synced {entry.refreshed_at or 'never'}, older "
                f"than {age_text(max_age)}"
            )
        status.tables.append(entry)


def _tables(client: Any, datasets: tuple[str, ...]) -> set[tuple[str, str]]:
    """The base tables of ``datasets``, as ``(dataset, table)``."""
    placeholders = ", ".join(["%s"] * len(datasets))
    with client.execute_query(
        "select table_schema, table_name from information_schema.tables "
        f"where table_type = 'BASE TABLE' and table_schema in ({placeholders})",
        *datasets,
    ) as cursor:
        return {(str(s), str(t)) for s, t in cursor.fetchall()}


def _count(client: Any, dataset: str, table: str) -> int:
    qualified = f"{client.escape_column_name(dataset)}.{client.escape_column_name(table)}"
    with client.execute_query(f"select count(*) from {qualified}") as cursor:
        (rows,) = cursor.fetchone()
    return int(rows)


def _families(client: Any) -> list[FamilyStatus]:
    qualified = f"{client.escape_column_name(DATASET_WEBHOOKS)}.events"
    with client.execute_query(
        f"select family, count(*), max(event_timestamp) from {qualified} "
        "group by family order by family"
    ) as cursor:
        return [
            FamilyStatus(str(f), int(n), iso(t.timestamp()) if t else None)
            for f, n, t in cursor.fetchall()
        ]


def _rows(client: Any, sql: str) -> list[tuple[Any, ...]]:
    with client.execute_query(sql) as cursor:
        return [tuple(row) for row in cursor.fetchall()]


def _reconciliation(client: Any) -> dict[str, int]:
    with client.execute_query(
        "select data_source, sum(activity_count) from marts.fct_time_activity_reconciliation "
        "group by data_source order by data_source"
    ) as cursor:
        return {str(kind): int(n) for kind, n in cursor.fetchall()}
