"""The reporting of a failed ``dbt build`` (``pipelines.model_failures`` and the counting in
``pipelines.models``): each node result counted as passed, warned (untypable-row counts),
skipped or failed, a failed data test's offending rows sampled (at most five) from a DuckDB file
under ``tmp_path``, a sample query that fails logged and never raised, and the error message
naming every failing node. Node results are stand-ins carrying dbt's own status enums; the test
starts nothing (no dbt run, no PostgreSQL, no subprocess)."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest
from dbt.artifacts.schemas.results import RunStatus, TestStatus
from dbt.node_types import NodeType

from pipelines.model_failures import SAMPLE_ROWS, FailedNode, sample_failed_rows
from pipelines.models import ModelsBuildError, ModelsSummary, _count_node

DUPLICATES = "select user_id, count(*) as n from users group by user_id having count(*) > 1"


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    """A DuckDB file whose ``users`` holds 7 user ids twice each and one once."""
    path = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("create table users as select range % 7 as user_id from range(14)")
        con.execute("insert into users values (100)")
    return path


def failed_test(name: str = "unique_dim_users_user_id") -> FailedNode:
    return FailedNode(name, "test", "fail", "Got 7 results, configured to fail if != 0", 7)


def test_a_failed_tests_rows_are_sampled_up_to_five(warehouse: Path) -> None:
    node = failed_test()
    sample_failed_rows(node, DUPLICATES, warehouse)
    assert SAMPLE_ROWS == 5
    assert node.columns == ["user_id", "n"]
    assert len(node.sample) == 5
    assert {row[1] for row in node.sample} == {2}
    assert {row[0] for row in node.sample} <= set(range(7))
    lines = node.describe().split("\n")
    assert lines[1] == "    offending rows (user_id, n):"
    assert lines[2:] == [f"      {row}" for row in node.sample]


def test_no_compiled_sql_opens_nothing(tmp_path: Path) -> None:
    absent = tmp_path / "absent.duckdb"
    for compiled in (None, ""):
        node = failed_test()
        sample_failed_rows(node, compiled, absent)
        assert (node.columns, node.sample) == ([], [])
    assert not absent.exists()


def test_a_sample_query_that_fails_is_logged_not_raised(
    warehouse: Path, caplog: pytest.LogCaptureFixture
) -> None:
    node = failed_test("not_null_gone")
    with caplog.at_level(logging.WARNING, logger="pipelines.models"):
        sample_failed_rows(node, "select * from no_such_table", warehouse)
    assert (node.columns, node.sample) == ([], [])
    assert "could not sample the rows of not_null_gone" in caplog.text


def result(status: Any, kind: NodeType, name: str, **extra: Any) -> SimpleNamespace:
    """A stand-in for one of dbt's node results."""
    node = SimpleNamespace(name=name, resource_type=kind, compiled_code=extra.pop("sql", None),
                           attached_node=extra.pop("attached", None))  # fmt: skip
    return SimpleNamespace(status=status, node=node, message=extra.get("message"),
                           failures=extra.get("failures"))  # fmt: skip


def test_each_node_result_is_counted_once_where_it_belongs(warehouse: Path) -> None:
    summary = ModelsSummary()
    results = [
        result(RunStatus.Success, NodeType.Model, "dim_users"),
        result(TestStatus.Pass, NodeType.Test, "not_null_dim_users_user_id"),
        result(TestStatus.Pass, NodeType.Unit, "test_hours"),
        result(TestStatus.Warn, NodeType.Test, "untypable_values_stg_users",
               attached="model.wfm_sync.stg_users", failures=3),
        result(TestStatus.Warn, NodeType.Test, "accepted_values_x", failures=9),
        result(RunStatus.Skipped, NodeType.Model, "fct_daily_hours"),
        result(RunStatus.NoOp, NodeType.Model, "dashboard"),
        result(TestStatus.Fail, NodeType.Test, "unique_dim_users_user_id", sql=DUPLICATES,
               message="  Got 7 results  \n", failures=7),
        result(RunStatus.Error, NodeType.Model, "fct_pay", message=None),
    ]  # fmt: skip
    for node_result in results:
        _count_node(summary, node_result, warehouse)
    assert (summary.passed, summary.warned, summary.skipped) == (3, 2, 1)
    assert summary.passed_by_kind == {"model": 1, "test": 1, "unit_test": 1}
    assert summary.untypable_rows == {"stg_users": 3}  # keyed by the model the test is on
    assert [(f.name, f.kind, f.status, f.message, f.failures) for f in summary.failed] == [
        ("unique_dim_users_user_id", "test", "fail", "Got 7 results", 7),
        ("fct_pay", "model", "error", "", None),
    ]
    assert len(summary.failed[0].sample) == 5  # a failed test is sampled
    assert summary.failed[1].sample == []  # a model is not


def test_the_build_error_names_every_failing_node() -> None:
    summary = ModelsSummary(failed=[failed_test(), FailedNode("fct_pay", "model", "error", "boom")])
    text = str(ModelsBuildError(summary, " (see the log)"))
    assert text.split("\n") == [
        "dbt build failed (2 failing: unique_dim_users_user_id, fct_pay) (see the log)",
        "test unique_dim_users_user_id fail: Got 7 results, configured to fail if != 0",
        "model fct_pay error: boom",
    ]
    assert str(ModelsBuildError(ModelsSummary())).startswith("dbt build failed (0 failing: none)")
