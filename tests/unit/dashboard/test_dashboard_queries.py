"""The dashboard and the static report read the marts only, and the dbt exposures say which.

Every query is in ``dashboard/queries.py``; each is parsed here with sqlglot (DuckDB's dialect)
and every table it reads is checked: a ``marts`` model that is neither staging nor intermediate,
the snapshot's ``health`` summary or its ``_published`` manifest. The marts read are exactly the
ones the exposures in ``sql/models/marts/_marts__exposures.yml`` list. The notebook and the
report hold no SQL of their own. The group and layer filters and the labour % of sales are run
on small marts made here, figures worked out by hand. Also: a chart with nothing to draw says so,
money carries its currency.
"""

from __future__ import annotations

import ast
import inspect
from datetime import date

import altair as alt
import duckdb
import pandas as pd
import pytest
import sqlglot
import yaml
from conftest import ROOT
from sqlglot import exp

from dashboard import queries, views

EXPOSURES = ROOT / "sql" / "models" / "marts" / "_marts__exposures.yml"
FILTERED = views.Filters(
    start=date(2026, 11, 1),
    end=date(2026, 11, 14),
    scheduler_id=9000,
    job_id="j'1",
    user_id=7,
    group_id=4,
    layer=("Position", "Cook's mate"),
)
UNFILTERED = views.Filters(start=date(2026, 11, 1), end=date(2026, 11, 14))
SLICED = views.Filters(
    start=date(2026, 11, 1), end=date(2026, 11, 14), group_id=4, layer=("Location", "Downtown")
)
"""The group and layer filters alone (the cost's layer condition without a scheduler)."""
CONDITIONS = {"SALARIED"}
"""Constants of :mod:`dashboard.queries` that are conditions inside queries, not queries."""
ALLOWED_OUTSIDE_MARTS = {("health", "raw_tables"), ("health", "quarantine"), ("main", "_published")}


def every_query() -> dict[str, str]:
    """Every query of :mod:`dashboard.queries`, by a name, with the filters unset and all set."""
    found: dict[str, str] = {}
    for name, value in vars(queries).items():
        if name in CONDITIONS:
            continue
        if name.isupper() and isinstance(value, str):
            found[name] = value
        elif inspect.isfunction(value) and value.__module__ == queries.__name__:
            parameters = inspect.signature(value).parameters
            for label, filters in (
                ("all", UNFILTERED),
                ("filtered", FILTERED),
                ("sliced", SLICED),
            ):
                arguments: dict[str, object] = {"filters": filters}
                if "now" in parameters:
                    arguments["now"] = 1794657600.0  # 2026-11-14 12:00 UTC
                stacks = ["scheduler", "job"] if "stack_by" in parameters else [None]
                for stack in stacks:
                    if stack is not None:
                        arguments["stack_by"] = stack
                    found[f"{name}[{label},{stack}]"] = value(**arguments)
    return found


def tables_read(sql: str) -> set[tuple[str, str]]:
    """``(schema, table)`` of every table ``sql`` reads, common table expressions left out."""
    tree = sqlglot.parse_one(sql, read="duckdb")
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    read = set()
    for table in tree.find_all(exp.Table):
        if not table.db and table.name in ctes:
            continue
        read.add((table.db, table.name))
    return read


def test_every_dashboard_query_reads_marts_only() -> None:
    found = every_query()
    assert len(found) > 20  # every function with and without filters
    for name, sql in found.items():
        if name == "HEALTH_TABLES":
            assert tables_read(sql) == {("information_schema", "tables")}
            continue
        for schema, table in tables_read(sql):
            if (schema, table) in ALLOWED_OUTSIDE_MARTS:
                continue
            assert schema == "marts", f"{name} reads {schema}.{table}"
            assert not table.startswith(("stg_", "int_", "base_")), f"{name} reads {table}"


def test_a_staging_reference_is_caught() -> None:
    """The check above can fail: a query of the old dashboard's kind is refused."""
    sql = "with jobs as (select * from staging.stg_connecteam__jobs) select * from jobs"
    assert tables_read(sql) == {("staging", "stg_connecteam__jobs")}


def test_the_exposures_list_exactly_the_marts_the_dashboard_reads() -> None:
    read = {
        table
        for sql in every_query().values()
        for schema, table in tables_read(sql)
        if schema == "marts"
    }
    exposures = yaml.safe_load(EXPOSURES.read_text())["exposures"]
    assert {e["name"] for e in exposures} == {"workforce_dashboard", "static_report"}
    for exposure in exposures:
        listed = {ref.removeprefix("ref('").removesuffix("')") for ref in exposure["depends_on"]}
        assert listed == read, exposure["name"]


@pytest.mark.parametrize("module", ["notebook.py", "report.py", "sections.py", "views.py"])
def test_no_sql_outside_the_queries_module(module: str) -> None:
    tree = ast.parse((ROOT / "dashboard" / module).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.lower()
            assert not (" from " in text and "select " in text), f"{module}: {node.value!r}"


def test_filters_are_quoted_into_the_queries() -> None:
    sql = queries.cost_jobs(FILTERED)
    assert "job_id = 'j''1'" in sql
    assert "attendance.scheduler_id = 9000" in sql
    assert "membership.group_id = 4" in sql
    assert "layer.value_name = 'Cook''s mate'" in sql
    # a filter left unset reads nothing for it
    unset = queries.kpis(UNFILTERED)
    assert "bridge_user_groups" not in unset and "fct_shift_layer_values" not in unset


def test_the_new_filters_read_their_marts() -> None:
    """Every per-user query reads the bridge with a group chosen, every shift-based one the
    layer values with a layer chosen, and the labour % of sales reads neither."""
    per_user = [queries.kpis, queries.variance_leaders, queries.attendance_people,
                queries.cost_daily, queries.schedule_changes_weekly, queries.timesheet_periods,
                queries.reconciliation]  # fmt: skip
    for query in per_user:
        assert ("marts", "bridge_user_groups") in tables_read(query(SLICED)), query.__name__
        assert ("marts", "bridge_user_groups") not in tables_read(query(UNFILTERED))
    shift_based = [queries.kpis, queries.variance_leaders, queries.attendance_daily,
                   queries.cost_jobs, queries.schedule_changes_weekly]  # fmt: skip
    for query in shift_based:
        assert ("marts", "fct_shift_layer_values") in tables_read(query(SLICED)), query.__name__
    assert tables_read(queries.labour_vs_sales(FILTERED)) == {
        ("marts", "fct_labour_vs_sales_daily")
    }


def test_a_chart_with_nothing_to_draw_says_so() -> None:
    empty = pd.DataFrame({"period_start": ["2026-11-02"], "lag": [None]})
    for frame in (empty, empty.iloc[0:0]):
        chart = views.bar_chart(
            frame, title="Mean approval lag", x="period_start", x_title="Period",
            y="lag", y_title="Lag (h)",
        )  # fmt: skip
        spec = chart.to_dict()
        assert spec["mark"]["type"] == "text"
        assert spec["title"] == "Mean approval lag"
        assert views.NO_DATA in str(spec["datasets"])
    drawn = views.bar_chart(
        pd.DataFrame({"period_start": ["2026-11-02"], "lag": [0.0]}), title="t",
        x="period_start", x_title="Period", y="lag", y_title="Lag (h)",
    )  # fmt: skip
    assert isinstance(drawn, alt.Chart) and drawn.to_dict()["mark"]["type"] == "bar"


def test_money_names_its_currency() -> None:
    assert views.money_title("Labour cost", "EUR") == "Labour cost (EUR)"
    assert "WFM_SYNC_CURRENCY" in views.money_title("Labour cost", None)
    cards = views.kpi_html({"labour_cost": 1234.5}, "EUR")
    assert "1,234.50 EUR" in cards
    assert "1,234.50</div>" in views.kpi_html({"labour_cost": 1234.5})


MARTS = """
    create schema marts;
    create table marts.fct_shifts as select * from (values
        ('a', 9000, 'J', 1, date '2026-10-30', 1.0, true, false, true),
        ('b', 9000, 'J', 1, date '2026-11-04', 2.0, true, false, true),
        ('c', 9000, 'J', 1, date '2026-11-05', 4.0, true, false, true),
        ('d', 9000, 'J', 2, date '2026-11-02', 8.0, true, false, true),
        ('e', 9000, 'J', 2, date '2026-11-03', 16.0, true, false, true),
        ('f', 9000, 'J', null, date '2026-11-03', 32.0, true, true, true),
        ('g', 9000, 'J', 1, date '2026-11-06', 128.0, true, false, false)
    ) as t(shift_assignment_key, scheduler_id, job_id, user_id, local_date, scheduled_hours,
           is_scheduled, is_open_shift, has_ended);
    create table marts.fct_attendance as
        select shift_assignment_key, scheduler_id, job_id, user_id, local_date,
            scheduled_hours,
            case when has_ended then scheduled_hours else 0.5 end as worked_hours,
            false as no_show, false as is_unscheduled, has_ended
        from marts.fct_shifts where user_id is not null
        union all select null, 9000, 'J', 2, date '2026-11-03', null, 64.0, false, true, true;
    create table marts.fct_labour_cost_daily as select * from (values
        (1, date '2026-10-30', 'J', 1.0, 100.0, false, 'provider', 'hourly', 100.0),
        (1, date '2026-11-04', 'J', 2.0, 200.0, false, 'provider', 'hourly', 100.0),
        (1, date '2026-11-04', 'K', 256.0, null, false, 'estimate', 'monthly', null),
        (1, date '2026-11-05', 'J', 4.0, 400.0, false, 'provider', 'hourly', 100.0),
        (2, date '2026-11-02', 'J', 8.0, 800.0, false, 'estimate', 'hourly', 100.0),
        (2, date '2026-11-03', 'J', 80.0, 1600.0, false, 'provider', 'hourly', 20.0)
    ) as t(user_id, local_date, job_id, worked_hours, labour_cost, has_no_rate, cost_source,
           rate_type, hourly_rate);
    create table marts.bridge_user_groups as select * from (values
        (1, 4, timestamptz '2026-11-01 08:00:00+00', timestamptz '2026-11-05 08:00:00+00',
            false, true),
        (1, 5, timestamptz '2026-11-05 08:00:00+00', null, true, false),
        (2, 4, timestamptz '2026-11-03 08:00:00+00', null, true, false)
    ) as t(user_id, group_id, valid_from, valid_to, is_current, is_from_first_sync);
    create table marts.fct_shift_layer_values as select * from (values
        ('b', 'Position', 'Cook'), ('e', 'Position', 'Cook'), ('f', 'Position', 'Cook'),
        ('c', 'Position', 'Server'), ('e', 'Location', 'Downtown')
    ) as t(shift_assignment_key, layer_title, value_name);
"""
"""Two users' shifts (hours 1, 2, 4, 8, 16, an open shift of 32 and user 1's shift of 128 that
has not ended, so every sum names its shifts), a punch of user 2 no shift explains (64 h),
their cost per day (user 1's 256 h on job K paid by a monthly rate nothing costs: salaried),
and their groups: user 1 in group 4 from the first sync that saw them (1 November) to 5
November, then in group 5; user 2 in group 4 from 3 November."""


def kpis_on_marts(filters: views.Filters) -> dict[str, float]:
    with duckdb.connect() as con:
        con.execute("set TimeZone = 'UTC'")
        con.execute(MARTS)
        frame = con.sql(queries.kpis(filters)).df()
    return {key: float(value) for key, value in frame.iloc[0].items()}


@pytest.mark.parametrize(
    ("group_id", "layer", "scheduled", "worked", "open_shift", "cost", "salaried"),
    [
        # everything: every assigned shift that has ended (not the open one, not user 1's 128 h
        # still under way: neither its scheduled nor its worked hours), every clocked-out
        # punch, every cost row; the open shift's hours apart; the monthly-paid hours apart
        (None, None, 31.0, 95.0, 32.0, 3100.0, 256.0),
        # group 4: user 1's shifts of 30 October (before the first sync that saw them: its
        # groups hold) and 4 November, not 5 November (moved to group 5 that day); user 2's of
        # 3 November, not 2 November (joined on the 3rd); no open shift (no user)
        (4, None, 1 + 2 + 16.0, 1 + 2 + 16 + 64.0, 0.0, 100 + 200 + 1600.0, 256.0),
        # group 5: user 1 from 5 November only (not from the first sync: nothing before)
        (5, None, 4.0, 4.0, 0.0, 400.0, 0.0),
        # Cook shifts (the open one apart); the punches of those shifts (not the unexplained
        # one), the cost of those users' days and jobs (job K is no Cook shift's)
        (None, ("Position", "Cook"), 2 + 16.0, 2 + 16.0, 32.0, 200 + 1600.0, 0.0),
        (4, ("Position", "Cook"), 2 + 16.0, 2 + 16.0, 0.0, 200 + 1600.0, 0.0),
        (5, ("Position", "Cook"), 0.0, 0.0, 0.0, 0.0, 0.0),
        (None, ("Location", "Downtown"), 16.0, 16.0, 0.0, 1600.0, 0.0),
    ],
)
def test_group_and_layer_filters_by_hand(
    group_id: int | None,
    layer: tuple[str, str] | None,
    scheduled: float,
    worked: float,
    open_shift: float,
    cost: float,
    salaried: float,
) -> None:
    filters = views.Filters(
        start=date(2026, 10, 25), end=date(2026, 11, 10), group_id=group_id, layer=layer
    )
    shown = kpis_on_marts(filters)
    assert shown["scheduled_hours"] == pytest.approx(scheduled)
    assert shown["worked_hours"] == pytest.approx(worked)
    assert shown["open_shift_hours"] == pytest.approx(open_shift)
    assert shown["labour_cost"] == pytest.approx(cost)
    assert shown["salaried_hours"] == pytest.approx(salaried)
    assert shown["hours_without_rate"] == 0


def test_a_figure_without_a_day_takes_the_current_members() -> None:
    """Timesheets have no local day: the group is its members now (user 1 left group 4)."""
    condition = views.Filters(date(2026, 11, 1), date(2026, 11, 14), group_id=4).where(
        day=None, scheduler=None, job=None, shift=None
    )
    with duckdb.connect() as con:
        con.execute(MARTS)
        rows = con.sql(
            f"select user_id from (values (1), (2), (3)) as t(user_id) where {condition}"
        ).fetchall()
    assert rows == [(2,)]


def test_labour_pct_of_sales_per_location_by_hand() -> None:
    with duckdb.connect() as con:
        con.execute("""
            create schema marts;
            create table marts.fct_labour_vs_sales_daily as select * from (values
                (10, 'Downtown', date '2026-11-02', 350.0, 2000.0),
                (10, 'Downtown', date '2026-11-03', 100.0, null),
                (10, 'Downtown', date '2026-10-20', 999.0, 999.0),
                (11, 'Harbour', date '2026-11-02', 50.0, 1000.0),
                (12, 'Harbour', date '2026-11-02', 30.0, 0.0),
                (13, null, date '2026-11-04', 0.0, 500.0)
            ) as t(location_id, location_name, local_date, labour_cost, total_sales)
        """)  # fmt: skip
        frame = con.sql(queries.labour_vs_sales(FILTERED)).df()
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    assert rows == [
        # 1 to 14 November: 350 + 100 of labour; 350 / 2,000 on the day with sales
        {"location": "Downtown", "labour_cost": 450.0, "sales": 2000.0,
         "labour_pct_of_sales": 17.5, "days_without_sales": 1},
        {"location": "Harbour (11)", "labour_cost": 50.0, "sales": 1000.0,
         "labour_pct_of_sales": 5.0, "days_without_sales": 0},
        {"location": "Harbour (12)", "labour_cost": 30.0, "sales": None,
         "labour_pct_of_sales": None, "days_without_sales": 1},
        {"location": "location (13)", "labour_cost": 0.0, "sales": 500.0,
         "labour_pct_of_sales": 0.0, "days_without_sales": 0},
    ]  # fmt: skip
