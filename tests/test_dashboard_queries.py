"""The dashboard and the static report read the marts only, and the dbt exposures say which.

Every query is in ``dashboard/queries.py``; each is parsed here with sqlglot (DuckDB's dialect)
and every table it reads is checked: a ``marts`` model that is neither staging nor intermediate,
the snapshot's ``health`` summary or its ``_published`` manifest. The marts read are exactly the
ones the exposures in ``sql/models/marts/_marts__exposures.yml`` list. The notebook and the
report hold no SQL of their own. Also: a chart with nothing to draw says so, money carries its
currency.
"""

from __future__ import annotations

import ast
import inspect
from datetime import date
from pathlib import Path

import altair as alt
import pandas as pd
import pytest
import sqlglot
import yaml
from sqlglot import exp

from dashboard import queries, views

ROOT = Path(__file__).resolve().parent.parent
EXPOSURES = ROOT / "sql" / "models" / "marts" / "_marts__exposures.yml"
FILTERED = views.Filters(
    start=date(2026, 11, 1), end=date(2026, 11, 14), scheduler_id=9000, job_id="j'1", user_id=7
)
UNFILTERED = views.Filters(start=date(2026, 11, 1), end=date(2026, 11, 14))
ALLOWED_OUTSIDE_MARTS = {("health", "raw_tables"), ("health", "quarantine"), ("main", "_published")}


def every_query() -> dict[str, str]:
    """Every query of :mod:`dashboard.queries`, by a name, with the filters unset and all set."""
    found: dict[str, str] = {}
    for name, value in vars(queries).items():
        if name.isupper() and isinstance(value, str):
            found[name] = value
        elif inspect.isfunction(value) and value.__module__ == queries.__name__:
            parameters = inspect.signature(value).parameters
            for label, filters in (("all", UNFILTERED), ("filtered", FILTERED)):
                arguments: dict[str, object] = {"filters": filters}
                if "today" in parameters:
                    arguments["today"] = date(2026, 11, 14)
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
