"""What a models build rebuilds (:mod:`pipelines.model_plan`): the plan's rule on hand-made
records, the ``as_of`` tag against the models' SQL, and, as a property over generated sequences
of loads into a real DuckDB file, that a table's signature changes whenever its rows do and stays
the same when nothing happened. No server, no dbt: a few seconds
(``tests/e2e/test_incremental_marts.py`` compares planned builds with a full build end to end)."""

from __future__ import annotations

import re
from pathlib import Path

import dlt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.dbt_runner import project_dir
from pipelines.dbt_yaml import read_yaml
from pipelines.model_plan import (
    AS_OF_TAG,
    FINGERPRINT,
    INPUTS,
    declared_sources,
    plan_build,
    project_fingerprint,
    read_inputs,
)

INPUTS_NOW = {"connecteam.users": "3:100.5:301.5", "connecteam.shifts": "absent"}


def test_without_an_earlier_whole_build_every_model_is_built() -> None:
    plan = plan_build(INPUTS_NOW, "f1", None)
    assert plan.select is None and plan.scope.startswith("every model (no earlier")
    assert plan_build(INPUTS_NOW, "f1", {"passed": 3}).select is None  # a record without a plan


def test_a_changed_project_builds_every_model() -> None:
    plan = plan_build(INPUTS_NOW, "f2", {INPUTS: INPUTS_NOW, FINGERPRINT: "f1"})
    assert plan.select is None and "dbt project" in plan.scope


def test_a_quiet_night_builds_only_what_reads_now() -> None:
    plan = plan_build(INPUTS_NOW, "f1", {INPUTS: dict(INPUTS_NOW), FINGERPRINT: "f1"})
    assert plan.select == f"tag:{AS_OF_TAG}+" and plan.changed == []
    assert plan.scope == "what changed: nothing; and the models computed against now"


def test_changed_unreadable_and_new_inputs_are_selected_with_their_descendants() -> None:
    now = {**INPUTS_NOW, "connecteam.users": "4:200.5:502.0", "webhooks.events": None,
           "connecteam.jobs": "1:300.0:300.0"}  # fmt: skip
    plan = plan_build(now, "f1", {INPUTS: INPUTS_NOW, FINGERPRINT: "f1"})
    assert plan.changed == ["connecteam.users", "webhooks.events", "connecteam.jobs"]
    assert plan.select == (
        "source:connecteam.users+ source:webhooks.events+ source:connecteam.jobs+ tag:as_of+"
    )


def _macros_reading_now(macros: Path) -> set[str]:
    """Macros whose body calls ``as_of_time()`` or, in turn, another such macro."""
    bodies = {}
    for path in macros.glob("*.sql"):
        for name, body in re.findall(
            r"{%-?\s*macro\s+(\w+)\(.*?%}(.*?){%-?\s*endmacro", path.read_text(), re.S
        ):
            bodies[name] = body
    found = {"as_of_time"}
    while True:
        more = {n for n, b in bodies.items() if any(f"{m}(" in b for m in found)} - found
        if not more:
            return found
        found |= more


def test_the_as_of_tag_is_on_exactly_the_models_that_read_now() -> None:
    dbt_project = project_dir()
    reading = _macros_reading_now(dbt_project / "macros")
    uses_now = {
        path.stem
        for path in (dbt_project / "models").rglob("*.sql")
        if any(f"{macro}(" in path.read_text() for macro in reading)
        or "run_started_at" in path.read_text()
    }
    tagged = {
        model["name"]
        for path in (dbt_project / "models").rglob("*.yml")
        for model in (read_yaml(path) or {}).get("models") or []
        if AS_OF_TAG in ((model.get("config") or {}).get("tags") or [])
    }
    assert uses_now == tagged
    assert uses_now >= {"fct_attendance", "fct_shifts"}


def test_the_fingerprint_follows_the_project_s_files_and_settings(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "a.sql").write_text("select 1")
    (tmp_path / "dbt_project.yml").write_text("name: x")
    (tmp_path / "target").mkdir()
    first = project_fingerprint(tmp_path, {"currency": "USD"})
    (tmp_path / "target" / "manifest.json").write_text("{}")  # artifacts do not count
    assert project_fingerprint(tmp_path, {"currency": "USD"}) == first
    assert project_fingerprint(tmp_path, {"currency": "EUR"}) != first
    (tmp_path / "models" / "a.sql").write_text("select 2")
    assert project_fingerprint(tmp_path, {"currency": "USD"}) != first


def test_every_declared_source_table_is_an_input() -> None:
    declared = {f"{source}.{table}" for source, _, table in declared_sources(project_dir())}
    assert {"connecteam.users", "connecteam.time_activities", "webhooks.events"} <= declared


# --- the signature, over generated sequences of loads -------------------------------------

KEYS = st.integers(0, 5)
loads = st.one_of(
    st.tuples(st.just("load"), st.dictionaries(KEYS, st.integers(0, 2), min_size=1, max_size=4),
              st.integers(0, 50)),
    st.tuples(st.just("delete"), st.sets(KEYS, min_size=1, max_size=2), st.just(0)),
    st.tuples(st.just("nothing"), st.just({}), st.just(0)),
)  # fmt: skip
"""One step: ``load`` merges rows (key -> value; a key present is replaced, same value or not)
under a new load id drawn anywhere in 50 seconds of the first (a writer's clock may be behind);
``delete`` removes keys (as a hard delete would); ``nothing``."""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("signature")
    pipeline = dlt.pipeline(
        "signature", destination=dlt.destinations.duckdb(str(folder / "warehouse.duckdb")),
        dataset_name="connecteam", pipelines_dir=str(folder / "pipelines"),
    )  # fmt: skip
    with pipeline.sql_client() as sql_client:
        sql_client.create_dataset()
        yield sql_client


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(steps=st.lists(loads, min_size=1, max_size=8))
def test_a_signature_changes_with_the_rows_and_only_then(client, steps) -> None:
    client.execute_sql(
        "drop table if exists connecteam.users; create table connecteam.users "
        "(user_id bigint, name bigint, _dlt_load_id varchar)"
    )
    tables = [("connecteam", "connecteam", "users")]
    before = read_inputs(client, tables)["connecteam.users"]
    used: set[str] = set()
    for number, (kind, rows, offset) in enumerate(steps):
        content = client.execute_sql("select user_id, name, _dlt_load_id from connecteam.users")
        load_id = f"{1795176000 + offset}.{number:06d}"
        assert load_id not in used
        used.add(load_id)
        if kind == "load":
            keys = ", ".join(str(k) for k in rows)
            values = ", ".join(f"({k}, {v}, '{load_id}')" for k, v in rows.items())
            client.execute_sql(
                f"delete from connecteam.users where user_id in ({keys}); "
                f"insert into connecteam.users values {values}"
            )
        elif kind == "delete":
            keys = ", ".join(str(k) for k in rows)
            client.execute_sql(f"delete from connecteam.users where user_id in ({keys})")
        after = read_inputs(client, tables)["connecteam.users"]
        now = client.execute_sql("select user_id, name, _dlt_load_id from connecteam.users")
        changed = sorted(map(tuple, content or [])) != sorted(map(tuple, now or []))
        assert (after != before) == changed, (kind, rows, before, after)
        before = after


def test_an_absent_table_and_a_table_without_load_ids(client) -> None:
    client.execute_sql(
        "drop table if exists connecteam.jobs; create table connecteam.jobs (id varchar)"
    )
    found = read_inputs(client, [("connecteam", "connecteam", "jobs"),
                                 ("connecteam", "connecteam", "nowhere")])  # fmt: skip
    assert found == {"connecteam.jobs": None, "connecteam.nowhere": "absent"}


def test_all_beside_select_is_refused_in_one_line() -> None:
    from typer.testing import CliRunner

    from flows.cli import app

    done = CliRunner().invoke(app, ["models", "build", "--all", "--select", "fct_shifts"])
    assert done.exit_code == 2
    said = " ".join(done.output.replace("│", " ").split())  # the message, unwrapped
    assert "--all builds every model; give it or --select, not both" in said
