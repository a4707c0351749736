"""How far the warehouse's hours agree with the provider's timesheet
(``pipelines.timesheet_match``): counting the ``(reason or 'match', user-days)`` rows into
matched, explained and unexplained user-days, the one line ``status`` and ``demo`` print, and
:data:`MATCH_SQL` itself run on a hand-made ``marts.fct_daily_hours`` in an in-memory DuckDB
(only the columns the query reads), so the days it counts are the documented ones. The test
starts nothing (no dbt, no sync, no file)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import duckdb

from pipelines.timesheet_match import (
    MATCH_SQL,
    TimesheetMatch,
    read_timesheet_match,
    timesheet_match,
)


def test_rows_are_counted_into_matched_explained_and_unexplained() -> None:
    got = timesheet_match([("match", 8), ("not_in_timesheet_yet", 2), ("overlapping_punches", 3),
                           ("unexplained", 1)])  # fmt: skip
    assert got == TimesheetMatch(
        user_days=14, matched=8, explained=5, unexplained=1,
        reasons={"not_in_timesheet_yet": 2, "overlapping_punches": 3, "unexplained": 1},
    )  # fmt: skip
    assert got.line() == (
        "hours match the provider's timesheet on 8 of 14 user-days (5 explained, 1 unexplained): "
        "not_in_timesheet_yet 2, overlapping_punches 3"
    )
    assert got.as_dict()["reasons"] == got.reasons and got.as_dict()["user_days"] == 14
    # the reasons are listed sorted, whatever the rows' order
    line = timesheet_match([("webhook_only_day", 1), ("policy_unknown", 4), ("match", 0)]).line()
    assert line.endswith(": policy_unknown 4, webhook_only_day 1")


def test_no_user_days_and_counts_as_a_driver_returns_them() -> None:
    empty = timesheet_match([])
    assert empty == TimesheetMatch()
    assert empty.line() == (
        "hours match the provider's timesheet on 0 of 0 user-days (0 explained, 0 unexplained)"
    )
    drivers = timesheet_match([("match", Decimal(3)), ("unexplained", "2")])
    assert (drivers.user_days, drivers.matched, drivers.unexplained) == (5, 3, 2)
    assert drivers.line().endswith("(0 explained, 2 unexplained)")  # no reason list after it


def test_match_sql_counts_days_with_punches_breaks_or_a_timesheet_row() -> None:
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.fct_daily_hours (variance_reason text, punch_count int, "
        "is_in_timesheet boolean, paid_break_hours double, unpaid_break_hours double, "
        "unknown_policy_break_hours double)"
    )
    days: list[tuple[Any, ...]] = [
        (None, 2, True, 0.0, 0.0, 0.0),  # punches and a timesheet row, within tolerance
        (None, 0, True, 0.0, 0.0, 0.0),  # a timesheet row only
        ("unapproved", 1, True, 0.5, 0.0, 0.0),
        ("webhook_only_day", 3, False, 0.0, 0.0, 0.0),
        ("unexplained", 0, False, 0.0, 0.25, 0.0),  # break time only
        ("policy_unknown", 0, False, 0.0, 0.0, 1.0),
        (None, 0, False, 0.0, 0.0, 0.0),  # scheduled only: nothing to reconcile
        ("not_in_timesheet_yet", 0, False, 0.0, 0.0, 0.0),  # nothing worked: not counted
    ]
    con.executemany("insert into marts.fct_daily_hours values (?, ?, ?, ?, ?, ?)", days)
    asked: list[str] = []

    def fetch(sql: str) -> list[tuple[Any, ...]]:
        asked.append(sql)
        return con.execute(sql).fetchall()

    got = read_timesheet_match(fetch)
    con.close()
    assert asked == [MATCH_SQL]
    assert (got.user_days, got.matched, got.explained, got.unexplained) == (6, 2, 3, 1)
    assert got.reasons == {"policy_unknown": 1, "unapproved": 1, "unexplained": 1,
                           "webhook_only_day": 1}  # fmt: skip
