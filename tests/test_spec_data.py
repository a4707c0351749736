"""The whole nightly on data generated from the provider's spec, not from our emulator's reading.

For several seeds of the emulator's spec data mode (records and webhook bodies drawn from the
spec's JSON schemas, then made wilder: unknown enum values, odd dates and timezones, integers
beyond 64 bits, extra fields of varying type), ``wfm-sync sync`` (API sync, fold, models,
publish) must exit 0, load every record served exactly once, build every mart, and flag exactly
the rows holding values the generator made untypable.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import WFM_SYNC, cli_env, query
from test_staging_spec_names import STAGING, declarations

from emulator.operations_data import OperationsConfig
from emulator.server import BackgroundServer
from emulator.spec_data import spec_webhook_bodies
from emulator.webhooks import send_burst
from sources.webhooks.receiver import ReceiverSettings, create_app

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
}  # fmt: skip
UNTYPABLE_KINDS = {"date", "datetime", "timezone"}
MARTS = ("dim_users", "fct_shifts", "fct_time_activities", "fct_daily_hours",
         "fct_timesheet_periods", "fct_availability", "fct_form_submissions", "fct_time_off",
         "fct_task_completion_weekly", "fct_time_activity_reconciliation")  # fmt: skip


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def expected_flagged(manifest: list[dict[str, Any]], stream: str, typed: set[str]) -> set[str]:
    """Keys of ``stream``'s records holding a value the generator made untypable in a column
    the staging model types (a date, date-time or timezone field it declares; nested objects
    are flattened as the source flattens them: ``start.timezone`` -> ``start_timezone``)."""
    return {
        str(entry["key"])
        for entry in manifest
        if entry["stream"] == stream and entry["kind"] in UNTYPABLE_KINDS
        and not any(part.isdigit() for part in entry["path"])
        and "_".join(snake(part) for part in entry["path"]) in typed
    }  # fmt: skip


def typed_columns(stream: str) -> set[str]:
    """The columns of ``stream`` its staging model declares with a type other than text/json."""
    sql = (STAGING / f"stg_connecteam__{stream}.sql").read_text()
    _, names = declarations(sql)
    match = re.search(r"set columns = (\{.*?\})", sql, re.S)
    assert match
    types: dict[str, str] = eval(match.group(1))
    return {n for n in names if types[n] not in ("varchar", "json")}


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_the_nightly_holds_on_spec_generated_data(seed, start_emulator, tmp_path: Path):
    server = start_emulator(data="spec", seed=seed, operations=OPERATIONS, **SIZES)
    dataset = server.state.dataset
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    bodies = spec_webhook_bodies(120, seed)
    with BackgroundServer(create_app(ReceiverSettings(token="t0k", inbox_url=inbox_url))) as hooks:
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
                f"{'is_deleted' if stream in ('shifts', 'time_activities') else 'false'}, false)",
            )
        )
        assert loaded == expected, f"seed {seed}: {stream}"  # fmt: skip

    # every mart is built and published
    snapshot = warehouse.parent / "analytics.duckdb"
    for mart in MARTS:
        query(snapshot, f"select count(*) from marts.{mart}")

    # the rows flagged untypable are exactly those holding what the generator made untypable,
    # or values the sync kept aside (untyped_values)
    for stream, (raw_key, model_key, _) in KEYS.items():
        aside: set[str] = set()
        if _has_column(warehouse, stream, "untyped_values"):
            aside = {str(r[0]) for r in query(
                warehouse, f"select {raw_key} from connecteam.{stream} "
                "where untyped_values is not null")}  # fmt: skip
        expected = expected_flagged(dataset.spec_manifest, stream, typed_columns(stream)) | aside
        flagged = {str(r[0]) for r in query(
            warehouse, f"select {model_key} from staging.stg_connecteam__{stream} "
            "where untypable_value_count > 0")}  # fmt: skip
        assert flagged == expected, f"seed {seed}: {stream}"


def _has_column(warehouse: Path, table: str, column: str) -> bool:
    sql = ("select count(*) from information_schema.columns where table_schema = 'connecteam' "
           f"and table_name = '{table}' and column_name = '{column}'")  # fmt: skip
    return bool(query(warehouse, sql)[0][0])
