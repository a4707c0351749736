"""The whole nightly on data generated from the provider's spec, not from our emulator's reading.

For several seeds of the emulator's spec data mode (records and webhook bodies drawn from the
spec's JSON schemas, then made wilder: unknown enum values, odd dates and timezones, integers
beyond 64 bits, extra fields of varying type), ``wfm-sync sync`` (API sync, fold, models,
publish) must exit 0, load every record served exactly once, build every mart, report the rows
each staging model flags as holding untypable values, and flag every record the generator gave
an invalid timezone.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import WFM_SYNC, cli_env, query

from emulator.domains.pay_leave.data import pay_leave_of
from emulator.operations_data import OperationsConfig
from emulator.server import BackgroundServer
from emulator.spec_data import spec_webhook_bodies
from emulator.webhooks import send_burst
from pipelines.model_docs import mart_docs
from pipelines.staging_declarations import models_casting
from pipelines.timesheet_match import read_timesheet_match
from receiver import ReceiverConfig, create_app

SEEDS = [1, 2, 3, 4, 5]
SIZES = {"users": 150, "forms": 3, "schedulers": 2, "shifts": 400}
OPERATIONS = OperationsConfig(time_activities=150, form_submissions=10, jobs=6,
                              time_off_requests=25, task_boards=2, tasks=15)  # fmt: skip
KEYS = {
    # stream: (warehouse key of the raw table, of the staging model, the emulator's records)
    "users": ("user_id", "user_id", lambda ds: [u["userId"] for u in ds.users.values()]),
    "forms": ("form_id", "form_id", lambda ds: list(ds.forms)),
    "schedulers": ("scheduler_id", "scheduler_id", lambda ds: list(ds.schedulers)),
    "shifts": ("id", "slot_id", lambda ds: [r["id"] for rows in ds.shifts.values() for r in rows]),
    "form_submissions": ("form_submission_id", "form_submission_id", lambda ds: [
        s["formSubmissionId"] for subs in ds.operations.form_submissions.values() for s in subs]),
    "time_off_requests": ("id", "time_off_request_id",
                          lambda ds: [r["id"] for r in ds.operations.time_off_requests]),
    "tasks": ("id", "task_id",
              lambda ds: [t["id"] for tasks in ds.operations.tasks.values() for t in tasks]),
    "time_activities": ("id", "time_activity_id", lambda ds: [
        a["record"]["id"] for items in ds.operations.activities.values() for a in items]),
    "scheduler_unavailabilities": ("id", "unavailability_id", lambda ds: [
        u["id"] for rows in pay_leave_of(ds).unavailabilities.values() for u in rows]),
    "pay_rule_policies": ("id", "pay_rule_policy_id",
                          lambda ds: [p["id"] for p in pay_leave_of(ds).pay_rule_policies]),
}  # fmt: skip
WINDOWED = ("shifts", "time_activities", "scheduler_unavailabilities")
"""Streams whose re-pulled window may mark a served record deleted (none is, here)."""
MARTS = tuple(d.name for d in mart_docs())


def odd_timezones(dataset: Any, stream: str, records: dict[str, Any]) -> set[str]:
    """Keys of ``stream``'s records with a timezone the generator made invalid (and not empty:
    an empty value counts as absent) in a field a staging model casts."""
    keys = set()
    for entry in dataset.spec_manifest:
        if entry["stream"] != stream or entry["kind"] != "timezone":
            continue
        value: Any = records.get(str(entry["key"]))
        for part in entry["path"]:
            value = value[int(part)] if isinstance(value, list) else (value or {}).get(part)
        if value and models_casting(stream, entry["path"]):
            keys.add(str(entry["key"]))
    return keys


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_the_nightly_holds_on_spec_generated_data(seed, start_emulator, tmp_path: Path):
    server = start_emulator(data="spec", seed=seed, operations=OPERATIONS, **SIZES)
    dataset = server.state.dataset
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    bodies = spec_webhook_bodies(120, seed)
    with BackgroundServer(create_app(ReceiverConfig(token="t0k", inbox_url=inbox_url))) as hooks:
        report = asyncio.run(send_burst(f"{hooks.url}/webhooks/connecteam", bodies, token="t0k"))
    assert not any(code >= 500 or code == 0 for code in report.statuses), report.statuses

    env = dict(cli_env(server, warehouse), WEBHOOKS__INBOX_URL=inbox_url)
    done = subprocess.run([*WFM_SYNC, "sync"], env=env, capture_output=True, text=True,
                          timeout=900)  # fmt: skip
    assert done.returncode == 0, f"seed {seed}: " + done.stderr[-4000:]

    # every record served is in its raw table exactly once
    for stream, (raw_key, _, served) in KEYS.items():
        expected = sorted(str(k) for k in served(dataset))
        loaded = sorted(
            str(r[0])
            for r in query(
                warehouse,
                f"select {raw_key} from connecteam.{stream} where not coalesce("
                f"{'is_deleted' if stream in WINDOWED else 'false'}, false)",
            )
        )
        assert loaded == expected, f"seed {seed}: {stream}"  # fmt: skip

    # every mart is built and published
    snapshot = warehouse.parent / "analytics.duckdb"
    for mart in MARTS:
        query(snapshot, f"select count(*) from marts.{mart}")
    # the emulator's timesheet follows its own activities by the provider's rule: every
    # user-day it covers reconciles, drawn values and all
    match = read_timesheet_match(lambda sql: query(snapshot, sql))
    covered = query(snapshot, "select count(*) from marts.fct_daily_hours where is_in_timesheet "
                              "and variance_reason is null")[0][0]  # fmt: skip
    assert match.unexplained == 0 and covered > 0, f"seed {seed}: {match.line()}"
    # and the dashboard notebook ran on it: the static report holds every section's charts
    page = (warehouse.parent / "report.html").read_text()
    assert page.count("<figure class='wfm-chart'><svg") == 17 and "<script" not in page

    # the rows each model flags are the ones the run reported, and they include every record
    # the generator gave an invalid timezone in a field that model casts
    (record,) = [json.loads(line) for line in (warehouse.parent / "runs.jsonl").read_text()
                 .splitlines() if '"job": "models"' in line]  # fmt: skip
    reported = record["details"]["untypable_rows"]
    for stream, (_, model_key, _) in KEYS.items():
        model = f"stg_connecteam__{stream}"
        flagged = {str(r[0]) for r in query(
            warehouse, f"select {model_key} from staging.{model} where untypable_value_count > 0"
        )}  # fmt: skip
        assert len(flagged) == reported.get(model, 0) or stream == "shifts", f"seed {seed}: {model}"
        records = RECORDS[stream](dataset)
        assert odd_timezones(dataset, stream, records) <= flagged, f"seed {seed}: {model}"


RECORDS = {
    "users": lambda ds: {str(k): v for k, v in ds.users.items()},
    "forms": lambda ds: {str(k): v for k, v in ds.forms.items()},
    "schedulers": lambda ds: {str(k): v for k, v in ds.schedulers.items()},
    "shifts": lambda ds: {r["id"]: r for rows in ds.shifts.values() for r in rows},
    "form_submissions": lambda ds: {
        str(s["formSubmissionId"]): s for subs in ds.operations.form_submissions.values()
        for s in subs},
    "time_off_requests": lambda ds: {str(r["id"]): r for r in ds.operations.time_off_requests},
    "tasks": lambda ds: {str(t["id"]): t for ts in ds.operations.tasks.values() for t in ts},
    "time_activities": lambda ds: {
        str(a["record"]["id"]): a["record"] for items in ds.operations.activities.values()
        for a in items},
    "scheduler_unavailabilities": lambda ds: {
        u["id"]: u for rows in pay_leave_of(ds).unavailabilities.values() for u in rows},
    "pay_rule_policies": lambda ds: {
        str(p["id"]): p for p in pay_leave_of(ds).pay_rule_policies},
}  # fmt: skip


def _has_column(warehouse: Path, table: str, column: str) -> bool:
    sql = ("select count(*) from information_schema.columns where table_schema = 'connecteam' "
           f"and table_name = '{table}' and column_name = '{column}'")  # fmt: skip
    return bool(query(warehouse, sql)[0][0])
