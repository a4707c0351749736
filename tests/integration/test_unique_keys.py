"""Each merge table's key once per extract (pipelines.unique_keys), so dlt's merge may skip its
de-duplication: a real dlt pipeline into a real DuckDB file, and a whole sync from the emulator."""

from __future__ import annotations

import json
from collections import Counter

import dlt
import pyarrow as pa
from conftest import assert_keys_unique, point_at, query
from dlt.common.normalizers.naming.snake_case import NamingConvention as SnakeCase

from pipelines import run_sync
from pipelines.sync import STREAMS
from pipelines.unique_keys import DEDUPLICATED_HINT, guard_unique_keys
from sources.configuration import resolve
from sources.connecteam.resources.jobs import _one_row_per_job

COVERAGE = dlt.mark.make_hints(
    table_name="thing_coverage", write_disposition="merge", primary_key="thing_id"
)
VARIANT = dlt.mark.make_hints(
    table_name="thing_versions", write_disposition="merge", primary_key="version_key"
)


@dlt.resource(name="things", primary_key="thing_id", write_disposition="merge")
def things():
    # provider spelling (thingId) normalises to the key column thing_id
    yield pa.table({"thingId": [1, 2, 1], "label": ["first", "two", "later"]})
    yield pa.table({"thingId": [2, 3], "label": ["later", "three"]})
    yield pa.table({"thing_id": [3, 4], "label": ["later", "four"]})
    coverage = [{"thing_id": 1, "n": 1}, {"thing_id": 1, "n": 2}, {"thing_id": 2, "n": 3}]
    yield dlt.mark.with_hints(coverage, COVERAGE, create_table_variant=True)
    versions = pa.table({"version_key": ["a", "a", "b"], "label": ["va", "va again", "vb"]})
    yield dlt.mark.with_hints(versions, VARIANT, create_table_variant=True)


def test_the_first_row_of_a_key_loads_and_later_ones_are_counted(tmp_path):
    path = tmp_path / "w.duckdb"
    pipeline = dlt.pipeline(
        "unique_keys", destination=dlt.destinations.duckdb(str(path)),
        dataset_name="d", pipelines_dir=str(tmp_path / "dlt"),
    )  # fmt: skip
    repeated: Counter[str] = Counter()
    resource = things()
    guard_unique_keys(resource, SnakeCase().normalize_identifier, repeated)
    pipeline.run(resource).raise_on_failed_jobs()

    assert dict(repeated) == {"things": 3, "thing_versions": 1, "thing_coverage": 1}
    labels = dict(query(path, "select thing_id, label from d.things"))
    assert labels == {1: "first", 2: "two", 3: "three", 4: "four"}
    assert dict(query(path, "select thing_id, n from d.thing_coverage")) == {1: 1, 2: 3}
    versions = dict(query(path, "select version_key, label from d.thing_versions"))
    assert versions == {"a": "va", "b": "vb"}
    tables = pipeline.default_schema.tables
    assert tables["things"].get(DEDUPLICATED_HINT) is True
    assert tables["thing_versions"].get(DEDUPLICATED_HINT) is True
    assert tables["thing_coverage"].get(DEDUPLICATED_HINT) is True

    # a second run starts with nothing seen: the same keys merge onto the loaded rows
    again = things()
    guard_unique_keys(again, SnakeCase().normalize_identifier, repeated)
    pipeline.run(again).raise_on_failed_jobs()
    assert query(path, "select count(*) from d.things") == [(4,)]


def test_an_append_resource_is_left_alone(tmp_path):
    @dlt.resource(name="events", write_disposition="append")
    def events():
        yield [{"id": 1}, {"id": 1}]

    resource = events()
    guard_unique_keys(resource, str, Counter())
    assert DEDUPLICATED_HINT not in resource.compute_table_schema()
    assert len(list(resource)) == 2


def test_a_sub_job_listed_twice_is_one_job_under_its_parent():
    rows = [
        {"job_id": "s1", "parent_job_id": None, "title": "listed alone"},
        {"job_id": "j1", "parent_job_id": None, "title": "parent"},
        {"job_id": "s1", "parent_job_id": "j1", "title": "nested"},
        {"job_id": "j1", "parent_job_id": None, "title": "parent again"},
    ]
    assert _one_row_per_job(rows) == [
        {"job_id": "s1", "parent_job_id": "j1", "title": "nested"},
        {"job_id": "j1", "parent_job_id": None, "title": "parent"},
    ]


def test_a_whole_sync_derives_every_key_once_and_skips_the_merge_ranking(
    start_emulator, warehouse, monkeypatch
):
    server = start_emulator(users=60, shifts=120)  # the default operations data: jobs, activities
    point_at(monkeypatch, server)
    summary = run_sync(STREAMS, project=resolve())
    assert summary.repeated_keys == {}
    assert not summary.failed_streams
    assert_keys_unique(warehouse)
    schema = query(
        warehouse,
        "select schema from connecteam._dlt_version order by inserted_at desc limit 1",
    )[0][0]
    tables = json.loads(schema)["tables"]
    merged = {n for n, t in tables.items() if t.get("write_disposition") == "merge"}
    assert {"users", "time_activities", "jobs", "shift_versions"} <= merged
    unhinted = {n for n in merged if not tables[n].get(DEDUPLICATED_HINT)}
    assert unhinted <= {"quarantine"}  # extracted on its own, merged on its own key
