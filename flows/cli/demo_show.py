"""What ``wfm-sync demo`` shows at its end: every table's row count (the tables from the stream
registry and the marts' YAML, so a new stream or mart shows without an edit here), example queries
with their answers, and the dashboard's paths."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
from rich import box
from rich.console import Console
from rich.table import Table

from core.paths import ProjectPaths

EXAMPLE_QUERIES = {
    "Active and archived users": (
        "select case when is_archived then 'archived' else 'active' end as status, "
        "count(*) as users from marts.dim_users where not is_inferred group by all order by 1"
    ),
    "Scheduled hours per scheduler in the next 7 days": (
        "select scheduler_name, count(*) as assignments, round(sum(scheduled_hours), 1) as hours "
        "from marts.fct_shifts where not is_deleted and user_id is not null "
        "and starts_at between now() and now() + interval 7 day group by all order by hours desc"
    ),
    "Webhook events per family": (
        "select family, count(*) as events, count(distinct event_type) as event_types "
        "from webhooks.events group by all order by events desc"
    ),
}
"""Queries a newcomer would ask first, with their answers."""
MOVED_SHIFT_SQL = (
    "select user_id, strftime(starts_at, '%Y-%m-%d %H:%M') as starts_utc, "
    "strftime(ends_at, '%H:%M') as ends_utc, data_source, "
    "strftime(changed_at, '%H:%M:%S') as webhook_at, is_deleted from marts.fct_shifts "
    "where shift_id = '{shift_id}' order by user_id"
)
CLOSING_QUERIES = {
    "Reconciliation: time activities the API and the webhooks disagree on": (
        "select data_source, count(distinct user_id) as users, sum(activity_count) as activities, "
        "round(sum(api_hours), 1) as api_hours, round(sum(webhook_hours), 1) as webhook_hours "
        "from marts.fct_time_activity_reconciliation group by all order by 1"
    ),
    "fct_time_activities: where the hours came from": (
        "select data_source, count(*) as activities, round(sum(duration_hours), 1) as hours "
        "from marts.fct_time_activities where not is_deleted group by all order by 1"
    ),
    "fct_daily_hours: scheduled vs worked hours, largest variances": (
        "select users.user_label as person, local_date, scheduled_hours as scheduled, "
        "worked_hours as worked, variance_hours as variance, open_punch_count as open_punches "
        "from marts.fct_daily_hours join marts.dim_users as users using (user_id) "
        "where worked_hours > 0 and local_date < current_date "
        "order by abs(variance_hours) desc, person limit 5"
    ),
    "fct_daily_hours: our worked hours against the provider's timesheet, per reason": (
        "select coalesce(variance_reason, 'match') as reason, count(*) as user_days, "
        "round(sum(worked_hours), 1) as worked, round(sum(provider_work_hours), 1) as provider, "
        "round(sum(hours_variance), 1) as variance from marts.fct_daily_hours "
        "where punch_count > 0 or is_in_timesheet group by all order by user_days desc"
    ),
    "fct_attendance: who came late, left early or not at all, per day": (
        "select local_date, count(*) filter (where not is_unscheduled) as assignments, "
        "count(*) filter (where is_late) as late, "
        "round(avg(late_minutes) filter (where is_late), 1) as avg_late_min, "
        "count(*) filter (where early_leave_minutes > 0) as left_early, "
        "count(*) filter (where no_show) as no_shows, "
        "count(*) filter (where is_unscheduled) as unscheduled_punches "
        "from marts.fct_attendance where local_date is not null "
        "group by all order by local_date desc limit 5"
    ),
    "fct_labour_cost_daily: what the paid hours cost, per day": (
        "select local_date, round(sum(paid_hours), 1) as hours, "
        "round(sum(labour_cost), 2) as labour_cost, "
        "count(*) filter (where cost_source = 'provider') as provider_pay, "
        "count(*) filter (where rate_source in ('resource', 'sub_resource')) as at_job_rate, "
        "count(*) filter (where rate_type <> 'hourly') as salaried, "
        "count(*) filter (where has_no_rate) as without_rate "
        "from marts.fct_labour_cost_daily where local_date is not null "
        "group by all order by local_date desc limit 5"
    ),
    "fct_labour_vs_sales_daily: labour cost as a share of sales, per location (last 7 days)": (
        "with last_day as (select max(local_date) as day from marts.fct_labour_vs_sales_daily "
        "where total_sales is not null and user_count > 0) "
        "select location_name as location, count(total_sales) as days_with_sales, "
        "sum(user_count) as user_days, round(sum(paid_hours), 1) as hours, "
        "round(sum(labour_cost), 2) as labour_cost, round(sum(total_sales), 2) as sales, "
        "round(100 * sum(labour_cost) filter (where total_sales > 0) "
        "/ nullif(sum(total_sales), 0), 2) as labour_pct_of_sales "
        "from marts.fct_labour_vs_sales_daily, last_day "
        "where local_date between last_day.day - 6 and last_day.day group by all order by 1"
    ),
    "fct_schedule_changes_weekly: schedule changes per scheduler and week": (
        "select scheduler_id as scheduler, week_start, change_count as changes, "
        "added_count as added, "
        "cancelled_count as cancelled, time_moved_count as moved, "
        "inside_notice_window_count as in_14_days, inside_24h_count as in_24_hours, "
        "dated_at_sync_count as at_sync from marts.fct_schedule_changes_weekly "
        "order by week_start desc, scheduler_id limit 5"
    ),
    "fct_timesheet_periods: latest status per user and period": (
        "select users.user_label as person, period_start, status, "
        "strftime(approved_at, '%H:%M') as approved, approval_lag_hours as lag_h, "
        "locked_day_count as locked_days from marts.fct_timesheet_periods "
        "join marts.dim_users as users using (user_id) "
        "order by status_changed_at desc nulls last, user_id limit 5"
    ),
}


def demo_tables() -> list[str]:
    """``schema.table`` of every table the demo counts: each stream's raw table of the registry
    (:data:`sources.connecteam.registry.STREAMS`), the webhook events, and every mart of the dbt
    project (:func:`pipelines.model_docs.mart_docs`)."""
    from pipelines.model_docs import mart_docs
    from sources.connecteam.registry import STREAMS

    raw = [f"connecteam.{name}" for name in STREAMS]
    return [*raw, "webhooks.events", *(f"marts.{doc.name}" for doc in mart_docs())]


def print_warehouse(console: Console, project: ProjectPaths) -> None:
    """Print the warehouse's raw tables with their row counts and the queries that read them,
    then the published snapshot's path, its marts' row counts (a table the run did not create
    counted as such), the example and closing queries over it with their answers, and how the
    provider's timesheet agrees with our hours. The raw schemas are not published by default
    (``WFM_SYNC_PUBLISH_RAW_SCHEMAS``), so each query is run where its tables are."""
    from pipelines.timesheet_match import read_timesheet_match

    queries = {**EXAMPLE_QUERIES, **CLOSING_QUERIES}
    raw_queries = {t: q for t, q in queries.items() if re.search(r"\b(connecteam|webhooks)\.", q)}
    tables = demo_tables()
    with (
        duckdb.connect(str(project.snapshot), read_only=True) as con,
        duckdb.connect(str(project.warehouse), read_only=True) as raw,
    ):
        console.rule("the warehouse's raw tables (the jobs' own: not in the snapshot)")
        console.print(f"warehouse: {project.warehouse.resolve()}")
        console.print(_counts(raw, [name for name in tables if not name.startswith("marts.")]))
        for title, sql in raw_queries.items():
            show_on(raw, console, title, sql)
        console.rule("the published snapshot: marts and staging views")
        console.print(
            f"snapshot for BI (read-only): {project.snapshot.resolve()}\n"
            f"marts as Parquet: {project.parquet_dir.absolute()}/<mart>.parquet"
        )
        console.print(_counts(con, [name for name in tables if name.startswith("marts.")]))
        for title, sql in queries.items():
            if title not in raw_queries:
                show_on(con, console, title, sql)
        match = read_timesheet_match(lambda sql: con.sql(sql).fetchall())
        console.print(f"[bold]{match.line()}[/] (marts.fct_daily_hours)")


def _counts(reader: duckdb.DuckDBPyConnection, names: list[str]) -> Table:
    """Rows per table of ``names`` (``schema.table``) in ``reader``; a table that does not
    exist shows ``not created``."""
    counts = Table()
    counts.add_column("table")
    counts.add_column("rows", justify="right")
    for name in names:
        schema, table = name.split(".")
        exists = reader.execute(
            "select count(*) from information_schema.tables "
            "where table_schema = ? and table_name = ?",
            [schema, table],
        ).fetchall()[0][0]
        if not exists:
            counts.add_row(name, "not created")
            continue
        (n,) = reader.sql(f"select count(*) from {name}").fetchall()[0]
        counts.add_row(name, f"{n:,}")
    return counts


def print_dashboard(console: Console, project: ProjectPaths) -> None:
    """Print where the static report is (the app's command is among :func:`print_next_steps`).

    Raises:
        RuntimeError: The last nightly published but wrote no report.
    """
    if not project.report.exists():
        raise RuntimeError(f"run 2 published but wrote no report at {project.report}")
    console.rule("the dashboard")
    console.print(
        "report (the last 14 days, one HTML file, opens offline; run 2's nightly_sync wrote it):\n"
        f"  {project.report.resolve()}\n"
        "the interactive app (filters: days, scheduler, job, user) on http://127.0.0.1:2718: "
        "`wfm-sync dashboard`, below"
    )


def shown(path: Path) -> str:
    """``path`` as a command typed here would name it: relative to the current directory when
    inside it, else absolute (symbolic links kept: ``marts/`` is the stable name of the latest
    publish)."""
    absolute = path.absolute()
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return str(absolute)


def print_next_steps(console: Console, project: ProjectPaths) -> None:
    """The closing lines: commands on the demo's own files (its folder is a project of its
    own, :func:`flows.cli.demo.write_project_settings`), paths as typed from here."""
    folder = shown(project.warehouse.parent)
    console.rule("next: the demo's own warehouse and inbox (its folder is a project)")
    console.print(
        f"  .venv/bin/wfm-sync --project-dir {folder} status\n"
        f"  .venv/bin/wfm-sync --project-dir {folder} models build\n"
        f"  .venv/bin/wfm-sync dashboard --snapshot {shown(project.snapshot)}\n"
        f'  duckdb -readonly {shown(project.snapshot)} "from marts.fct_daily_hours limit 5"\n'
        f"  the marts as Parquet, always the latest publish: {shown(project.parquet_dir)}/",
        highlight=False, soft_wrap=True,
    )  # fmt: skip


def show(snapshot: Path, console: Console, title: str, sql: str) -> None:
    """Print ``sql``'s answer from the published ``snapshot`` (opened read-only, then closed)."""
    with duckdb.connect(str(snapshot), read_only=True) as con:
        show_on(con, console, title, sql)


def show_on(con: duckdb.DuckDBPyConnection, console: Console, title: str, sql: str) -> None:
    """Print ``title``, ``sql`` and its answer on ``con`` (nulls blank), no value ever cut.

    A table wider than the console keeps each column as wide as its widest value (or its
    header's longest word) and wraps the headers at their underscores (``labour_cost`` shows
    as ``labour`` over ``cost``); an answer that does not fit even so is printed one row at a
    time, a ``column  value`` line each (as psql's expanded display does)."""
    relation = con.sql(sql)
    rows = [["" if v is None else str(v) for v in row] for row in relation.fetchall()]
    console.print(f"[bold]{title}[/]")
    console.print(sql, style="dim", highlight=False)
    headers = [column.split("_") for column in relation.columns]
    values = [max([len(row[i]) for row in rows], default=0) for i in range(len(headers))]
    natural = [
        max(width, len("_".join(words))) for width, words in zip(values, headers, strict=True)
    ]
    narrow = [
        max([width] + [len(w) for w in words]) for width, words in zip(values, headers, strict=True)
    ]
    if sum(narrow) + 2 * len(narrow) > console.width:
        _show_expanded(console, relation.columns, rows)
        return
    squeeze = sum(natural) + 2 * len(natural) > console.width
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for words, full, least in zip(headers, natural, narrow, strict=True):
        if squeeze:
            table.add_column(" ".join(words), min_width=least, max_width=least)
        else:
            table.add_column("_".join(words), min_width=full)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def _show_expanded(console: Console, columns: list[str], rows: list[list[str]]) -> None:
    """Print each of ``rows`` as ``column  value`` lines under a ``row k`` rule."""
    for number, row in enumerate(rows, start=1):
        console.print(f"[dim]-- row {number} --[/]")
        record = Table(box=None, show_header=False, pad_edge=False)
        record.add_column(min_width=max(len(column) for column in columns))
        record.add_column(overflow="fold")
        for column, value in zip(columns, row, strict=True):
            record.add_row(column, value)
        console.print(record)
