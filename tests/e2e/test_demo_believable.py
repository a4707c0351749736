"""The demo account is one a manager would believe, read from the demo's published snapshot: every
id of every mart finds its dimension row, nobody works two punches at once or more than 16 hours
a day, the no-show rate stays between 1% and 20%, no schedule change has negative notice, and a
clock that splits overnight hours at midnight is told apart by its timesheet."""

from __future__ import annotations

from pathlib import Path

import duckdb
from conftest import DemoRun

DIMENSIONS = {
    "user_id": ("dim_users", "user_id"),
    "new_user_id": ("dim_users", "user_id"),
    "job_id": ("dim_jobs", "job_id"),
    "sub_job_id": ("dim_jobs", "job_id"),
    "scheduler_id": ("dim_schedulers", "scheduler_id"),
    "time_clock_id": ("dim_time_clocks", "time_clock_id"),
    "group_id": ("dim_groups", "group_id"),
}
"""An id column of a mart -> the dimension (and its key) that names it."""


def read(snapshot: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(snapshot), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_every_id_in_every_mart_finds_its_dimension_row(small_demo: DemoRun) -> None:
    columns = read(
        small_demo.snapshot,
        "select table_name, column_name from information_schema.columns "
        "where table_schema = 'marts' and table_name not like 'dim\\_%' escape '\\' "
        "order by 1, 2",
    )
    checked, orphans = 0, {}
    for table, column in columns:
        if column not in DIMENSIONS:
            continue
        dimension, key = DIMENSIONS[str(column)]
        ((missing, example),) = read(
            small_demo.snapshot,
            f"select count(*), min(cast(f.{column} as varchar)) from marts.{table} as f "
            f"where f.{column} is not null and cast(f.{column} as varchar) not in "
            f"(select cast({key} as varchar) from marts.{dimension})",
        )
        checked += 1
        if missing:
            orphans[f"{table}.{column}"] = (missing, example)
    assert checked >= 20  # user, job, scheduler and clock ids across the facts
    assert orphans == {}


def test_nobody_holds_two_punches_at_once(small_demo: DemoRun) -> None:
    (overlaps,) = read(
        small_demo.snapshot,
        """
        with punches as (
            select time_activity_id, user_id, started_at, ended_at
            from marts.fct_time_activities
            where activity_type = 'shift' and not is_deleted and ended_at is not null
        )
        select count(*) from punches as a join punches as b
            on a.user_id = b.user_id and a.time_activity_id < b.time_activity_id
            and a.started_at < b.ended_at and b.started_at < a.ended_at
        """,
    )[0]
    assert overlaps == 0


def test_nobody_works_more_than_16_hours_a_day(small_demo: DemoRun) -> None:
    ((days, longest),) = read(
        small_demo.snapshot,
        "select count(*), max(worked_hours) from marts.fct_daily_hours where worked_hours > 0",
    )
    assert days > 100
    assert longest <= 16


def test_the_no_show_rate_stays_between_1_and_20_percent(small_demo: DemoRun) -> None:
    """Per ISO week (the small demo has about 20 started assignments a day: a day's rate would
    be a handful of shifts; the default demo's days are checked in the issue's note)."""
    weeks = read(
        small_demo.snapshot,
        """
        select date_trunc('week', local_date) as week, count(*) as assignments,
            count(*) filter (where no_show) / count(*) as rate
        from marts.fct_attendance
        where not is_unscheduled and has_ended
        group by 1 having count(*) >= 50 order by 1
        """,
    )
    assert len(weeks) >= 3
    assert all(0.01 <= rate <= 0.20 for _, _, rate in weeks), weeks


def test_no_schedule_change_has_negative_notice(small_demo: DemoRun) -> None:
    ((negative, changes),) = read(
        small_demo.snapshot,
        "select count(*) filter (where notice_hours < 0), count(*) from marts.fct_schedule_changes",
    )
    assert changes > 0
    assert negative == 0


def test_the_timesheet_states_the_planned_hours(small_demo: DemoRun) -> None:
    """dailyScheduledDetails on every timesheet day: the shifts its punches were for."""
    ((days, unstated, planned),) = read(
        small_demo.snapshot,
        "select count(*), count(*) filter (where scheduled_hours is null), "
        "count(*) filter (where scheduled_hours > 0) from marts.fct_timesheet_days",
    )
    assert days > 100
    assert unstated == 0
    assert planned > days / 2  # most punches were made for a scheduled shift


def test_the_warehouse_clock_is_told_to_split_overnight_hours(small_demo: DemoRun) -> None:
    """The demo's "Warehouse clock" counts overnight hours past midnight on the next day (a
    setting the API does not expose): its timesheet tells the models so, and the main clock's
    tells them it does not."""
    rows = read(
        small_demo.snapshot,
        "select time_clock_name, splits_at_midnight from marts.dim_time_clocks "
        "where not is_inferred order by time_clock_id",
    )
    assert [split for name, split in rows if str(name).startswith("Warehouse clock")] == [True]
    assert [split for name, split in rows if str(name).startswith("Main site")] == [False]


def test_labour_cost_is_the_providers_pay_on_every_day_it_states_it(small_demo: DemoRun) -> None:
    """On every user-day the timesheet states the pay of (every clock's day stating it), the
    costed rows add up to that pay to the cent: overnight pay on the clock's days included."""
    ((days, unequal, missing),) = read(
        small_demo.snapshot,
        """
        with pay as (
            select user_id, work_date, sum(total_pay) as pay
            from marts.fct_timesheet_days
            where user_id is not null and work_date is not null
            group by user_id, work_date
            having bool_and(has_total_pay)
        ),
        cost as (
            select user_id, local_date, sum(labour_cost) as cost
            from marts.fct_labour_cost_daily
            where cost_source = 'provider'
            group by user_id, local_date
        )
        select count(*),
            count(*) filter (where abs(pay.pay - cost.cost) >= 0.005),
            count(*) filter (where cost.cost is null)
        from pay left join cost
            on pay.user_id = cost.user_id and pay.work_date = cost.local_date
        """,
    )
    assert days > 100
    assert (unequal, missing) == (0, 0)
