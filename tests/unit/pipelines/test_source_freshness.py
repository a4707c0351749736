"""The freshness ``wfm-sync status`` reads without dbt (:mod:`pipelines.source_freshness`): the
rules come from the source's YAML, the verdicts are dbt's, and each table is read by SQL from a
real DuckDB file. Expected values follow from the YAML's words (warn after 26 hours, error after
7 days) and from rows written here by hand. No server: about a second."""

from __future__ import annotations

from pathlib import Path

import dlt
import pytest

from pipelines.dbt_runner import project_dir
from pipelines.source_freshness import FreshnessRule, freshness_rules, source_freshness

HOUR, DAY = 3600, 86_400
NOW = 1_795_176_000


def test_the_rules_are_the_source_yaml_s_own() -> None:
    rules = freshness_rules(project_dir(), "connecteam")
    users = rules["users"]
    assert users.loaded_at_field == "to_timestamp(modified_at)"
    assert (users.warn_after, users.error_after) == (26 * HOUR, 7 * DAY)
    shifts = rules["shifts"]  # a table's own field over the source's default
    assert shifts.loaded_at_field == "to_timestamp(coalesce(update_time, creation_time))"
    jobs = rules["jobs"]  # no field of its own: the load's time
    assert jobs.loaded_at_field == "to_timestamp(cast(_dlt_load_id as float8))"


@pytest.mark.parametrize(
    ("age", "verdict"),
    [(0, "pass"), (26 * HOUR, "pass"), (26 * HOUR + 1, "warn"), (7 * DAY, "warn"),
     (7 * DAY + 1, "error"), (-DAY, "pass")],
)  # fmt: skip
def test_the_verdict_is_dbt_s(age: int, verdict: str) -> None:
    rule = FreshnessRule("users", "to_timestamp(modified_at)", 26 * HOUR, 7 * DAY)
    assert rule.verdict(NOW - age, NOW) == verdict


def test_a_rule_without_thresholds_always_passes() -> None:
    assert FreshnessRule("t", "x", None, None).verdict(0, NOW) == "pass"


def test_each_table_is_read_by_sql_and_a_bad_one_does_not_stop_the_others(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    pipeline = dlt.pipeline(
        "freshness", destination=dlt.destinations.duckdb(str(warehouse)),
        dataset_name="connecteam", pipelines_dir=str(tmp_path / "pipelines"),
    )  # fmt: skip
    with pipeline.sql_client() as client:
        client.create_dataset()
        client.execute_sql(
            "create table connecteam.users (user_id bigint, modified_at bigint);"
            f"insert into connecteam.users values (1, {NOW - 30 * HOUR}), (2, {NOW - 27 * HOUR});"
            "create table connecteam.forms (form_id bigint, last_updated_at varchar);"
            "insert into connecteam.forms values (1, 'not a number');"
            "create table connecteam.shifts (id varchar, update_time bigint, creation_time bigint);"
            f"insert into connecteam.shifts values ('a', null, {NOW - 8 * DAY});"
            "create table connecteam.jobs (id varchar, _dlt_load_id varchar);"
        )
        rules = freshness_rules(project_dir(), "connecteam")
        chosen = {name: rules[name] for name in ("users", "forms", "shifts", "jobs", "tasks")}
        found = source_freshness(client, "connecteam", chosen, NOW)
    assert found["users"] == ("warn", NOW - 27 * HOUR)  # the newest row, 27 h old
    assert found["shifts"] == ("error", NOW - 8 * DAY)  # creation_time when update_time is null
    assert found["forms"] == ("runtime error", None)  # a column that is not a number
    assert found["tasks"] == ("runtime error", None)  # a table that does not exist
    assert found["jobs"] == (None, None)  # no rows: nothing to judge
