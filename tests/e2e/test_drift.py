"""Schema drift in ``wfm-sync status``: a field the emulator starts sending is listed (table,
field, first seen, rows) and never makes status fail; the rule on hand-made names."""

from __future__ import annotations

import json
import subprocess
import time
from datetime import datetime

import httpx
from conftest import WFM_SYNC, cli_env, point_at, query
from typer.testing import CliRunner

from flows.cli import app
from pipelines import run_sync
from pipelines.drift import SOURCE_COLUMNS, first_seen, undeclared_columns
from pipelines.status import collect_status
from sources.configuration import resolve


def test_the_rule_lists_only_columns_nobody_declares():
    tables = {
        "users": ["user_id", "first_name", "favourite_colour", "_dlt_load_id", "untyped_values"],
        "user_versions": ["user_id", "first_name", "observed_at", "version_key", "shoe_size"],
        "shifts": ["id", "title", "is_deleted", "deleted_at", "content_hash"],
        "_dlt_version": ["version", "schema"],
        "forms": ["form_id", "form_name", "_dlt_id", "new_thing"],
    }
    expected = {"users": {"user_id", "first_name"}, "shifts": {"id", "title"}, "forms": {"form_id"}}
    assert undeclared_columns(tables, expected) == {
        "users": ["favourite_colour"],
        "user_versions": ["shoe_size"],  # user_id and first_name: expected in users
        "forms": ["form_name", "new_thing"],  # only its key expected
    }
    assert {"is_deleted", "deleted_at", "untyped_values"} <= SOURCE_COLUMNS
    versions = [
        (100.0, {"users": ["user_id"]}),
        (200.0, {"users": ["user_id", "favourite_colour"]}),
    ]
    assert first_seen(versions, "users", "favourite_colour") == "1970-01-01T00:03:20+00:00"
    assert first_seen(versions, "users", "shoe_size") is None


def test_a_field_the_emulator_starts_sending_is_listed_by_status(start_emulator, monkeypatch,
                                                                 warehouse):  # fmt: skip
    server = start_emulator(users=40, forms=2, schedulers=1, shifts=30)
    point_at(monkeypatch, server)
    run_sync(["users"], project=resolve())
    before = collect_status(project=resolve())
    assert before.drift.error is None
    assert before.drift.fields == []  # smart_groups_ids: the source declares it
    assert before.drift.enum_values == []

    extra = {"favouriteColour": "teal", "userType": "contractor"}  # a new field, a new value
    answer = httpx.post(f"{server.url}/_emulator/extra-fields",
                        json={"users": extra}, timeout=30)  # fmt: skip
    assert answer.status_code == 200
    assert answer.json() == {"extra_fields": {"users": extra}}
    changed = httpx.post(f"{server.url}/_emulator/mutate", json={"users": 5}, timeout=30)
    assert changed.status_code == 200
    started = time.time()
    summary = run_sync(["users"], project=resolve())
    assert summary.rows["users"] >= 5

    after = collect_status(project=resolve())
    assert after.drift.error is None
    found = {(f.table, f.field): f for f in after.drift.fields}
    entry = found[("connecteam.users", "favourite_colour")]
    ((teal_rows,),) = query(
        warehouse, "select count(*) from connecteam.users where favourite_colour = 'teal'"
    )
    assert entry.rows == teal_rows == summary.rows["users"]
    assert entry.first_seen is not None
    assert datetime.fromisoformat(entry.first_seen).timestamp() >= int(started)
    assert [
        (e.table, e.column, e.model, e.new_values, e.values) for e in after.drift.enum_values
    ] == [("connecteam.users", "user_type", "stg_connecteam__users", 1, {"contractor": teal_rows})]
    assert after.problems == before.problems  # drift is information, not a problem

    result = subprocess.run([*WFM_SYNC, "status", "--json"], env=cli_env(server, warehouse),
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == (1 if before.problems else 0), result.stderr  # the other
    # streams were never synced: status exits 1 for them, before the new field as after it
    report = json.loads(result.stdout)
    listed = [f for f in report["drift"]["fields"] if f["table"] == "connecteam.users"]
    assert {"table": "connecteam.users", "field": "favourite_colour",
            "first_seen": entry.first_seen, "rows": teal_rows} in listed  # fmt: skip
    assert report["problems"] == before.problems

    text = CliRunner().invoke(app, ["status"])
    assert text.exit_code == result.returncode
    assert "favourite_colour" in text.stdout and "contractor" in text.stdout

    stop = httpx.post(f"{server.url}/_emulator/extra-fields", json={"users": {}}, timeout=30)
    assert stop.json() == {"extra_fields": {}}
