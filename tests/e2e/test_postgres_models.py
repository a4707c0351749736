"""The same marts on DuckDB and on PostgreSQL: the emulator's demo account at a fifth of its
size (:data:`USERS`, :data:`SHIFTS`: every mart still holds rows) and one webhook burst synced,
folded and built into both warehouses (a real PostgreSQL server, the emulator and the receiver
as real servers, the installed ``wfm-sync``), then every mart compared row by row and column by
column."""

from __future__ import annotations

import asyncio
import decimal
import json
import math
import os
import shutil
import subprocess
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import psycopg2
import pytest
import yaml  # type: ignore[import-untyped]
from conftest import NOW, WFM_SYNC, cli_env
from support.servers import free_port, fresh_database, start_receiver

from emulator.config import demo_config
from emulator.webhooks import build_burst, send_burst
from pipelines.model_docs import mart_docs

pytestmark = pytest.mark.slow

MARTS = Path(__file__).resolve().parents[2] / "sql" / "models" / "marts"
TOKEN = "compare-token"
TOLERANCE = 1e-9
USERS, SHIFTS = 600, 6000
"""The compared account: the demo's generator (seed, forms, schedulers, punches per shift) at a
fifth of its users and shifts; the full size took 15 minutes of the suite for no other shape."""


def mart_keys() -> dict[str, str]:
    """Every mart (sql/models/marts/*.sql) and its key (pipelines.model_docs: the column its
    YAML tests as primary_key)."""
    keys = {doc.name: doc.key for doc in mart_docs()}
    assert set(keys) == {sql.stem for sql in MARTS.glob("*.sql")}
    return keys


def comparable(value: Any, is_json: bool) -> Any:
    """A value as both drivers can be compared on: JSON parsed (its numbers as floats: DuckDB
    keeps a JSON number's text, PostgreSQL's jsonb a decimal, so -3.631249782973958e+16 and
    -36312497829739580 are the same number), numbers as float, timestamps in UTC, lists element
    by element."""
    if value is None:
        return None
    if is_json and isinstance(value, str):
        return json_numbers_as_float(json.loads(value))
    if isinstance(value, dict):
        return json_numbers_as_float(value)
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC)
    if isinstance(value, list):  # a SQL list, or a JSON array from jsonb
        return json_numbers_as_float([comparable(item, False) for item in value])
    return value


def json_numbers_as_float(value: Any) -> Any:
    """A decoded JSON value with every number as a float."""
    if isinstance(value, dict):
        return {k: json_numbers_as_float(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_numbers_as_float(v) for v in value]
    if isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool):
        return float(value)
    return value


def differs(duck: Any, pg: Any) -> bool:
    """Whether two comparable values differ (numbers: by more than TOLERANCE)."""
    numbers = (int, float)
    if isinstance(duck, numbers) and isinstance(pg, numbers) and not isinstance(duck, bool):
        if math.isnan(duck) and math.isnan(pg):
            return False
        return not math.isclose(duck, pg, rel_tol=0, abs_tol=TOLERANCE)
    return bool(duck != pg)


def mart_rows(
    duck: duckdb.DuckDBPyConnection, pg: Any, mart: str, key: str
) -> tuple[list[str], dict[Any, list[Any]], dict[Any, list[Any]]]:
    """The mart's columns (DuckDB's order) and its rows by key on each side."""
    relation = duck.sql(f"select * from marts.{mart}")
    columns = list(relation.columns)
    is_json = [str(t) == "JSON" for t in relation.types]
    duck_rows = {}
    for row in relation.fetchall():
        values = [comparable(v, j) for v, j in zip(row, is_json, strict=True)]
        duck_rows[values[columns.index(key)]] = values
    with pg.cursor() as cursor:
        cursor.execute(f"select * from marts.{mart}")
        pg_columns = [d.name for d in cursor.description]
        assert sorted(pg_columns) == sorted(columns), f"{mart}: columns differ"
        pg_rows = {}
        for row in cursor.fetchall():
            by_name = dict(zip(pg_columns, row, strict=True))
            values = [comparable(by_name[c], False) for c in columns]
            pg_rows[values[columns.index(key)]] = values
    return columns, duck_rows, pg_rows


def unit_test_names() -> set[str]:
    """Every unit test the project declares (the models' YAML)."""
    names = set()
    for path in (MARTS.parent).rglob("*.yml"):
        names |= {t["name"] for t in yaml.safe_load(path.read_text()).get("unit_tests") or []}
    assert names
    return names


def passed_unit_tests() -> set[str]:
    """The unit tests the last dbt build passed (run_results.json of the suite's dbt target)."""
    results = Path(os.environ["WFM_SYNC_DBT_TARGET_DIR"]) / "run_results.json"
    return {
        r["unique_id"].rsplit(".", 1)[-1]
        for r in json.loads(results.read_text())["results"]
        if r["unique_id"].startswith("unit_test.") and r["status"] == "pass"
    }


def received(bodies: list[tuple[bytes, str | None, str | None]], inbox: Path) -> Path:
    """``bodies`` sent to a real receiver (``wfm-sync webhooks serve``) storing into the SQLite
    ``inbox``; every one answered. Returns ``inbox``."""
    port = free_port()
    receiver = start_receiver(port, f"sqlite:///{inbox}", TOKEN)
    try:
        url = f"http://127.0.0.1:{port}/webhooks/connecteam"
        report = asyncio.run(send_burst(url, bodies, token=TOKEN, concurrency=8, retries=3))
        assert not report.statuses.get(0), report.errors
    finally:
        receiver.terminate()
        receiver.wait(10)
    return inbox


def fold_copy(inbox: Path, env: dict[str, str], name: str) -> dict[str, str]:
    """``env`` folding from its own copy of the received inbox (same bodies, same receipt
    times on both sides)."""
    copy = inbox.with_name(f"{name}-{inbox.name}")
    shutil.copyfile(inbox, copy)
    return dict(env, WEBHOOKS__INBOX_URL=f"sqlite:///{copy}")


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*WFM_SYNC, *args], env=env, capture_output=True, text=True,
                          timeout=1200)  # fmt: skip
    assert done.returncode == 0, (
        f"wfm-sync {' '.join(args)}:\n{done.stdout[-3000:]}\n" + (done.stderr[-3000:])
    )
    return done


def test_every_mart_is_the_same_on_duckdb_and_postgresql(
    postgres: str, start_emulator: Any, tmp_path: Path, warehouse: Path
) -> None:
    config = demo_config(USERS, SHIFTS, anchor=NOW - NOW % 86_400)
    server = start_emulator(**{k: v for k, v in asdict(config).items() if k != "operations"},
                            operations=config.operations)  # fmt: skip
    # one burst of webhooks (every family, duplicates, malformed bodies, and bodies drawn from
    # the spec's schemas), received once, folded into each warehouse from a copy of the inbox
    user_ids = list(range(1000, 1000 + config.users))
    bodies = build_burst(1500, seed=17, now=NOW, user_ids=user_ids, duplicate_rate=0.1,
                         malformed_rate=0.02)  # fmt: skip
    # spec-drawn bodies too, but those holding U+0000: PostgreSQL's jsonb cannot, so its fold
    # keeps them as text (is_payload_unreadable) and no model reads them there
    spec = build_burst(300, seed=18, now=NOW, data="spec")
    bodies += [body for body in spec if b"\\u0000" not in body[0]]
    inbox = received(bodies, tmp_path / "inbox.sqlite3")

    database = fresh_database(postgres, "compare")
    duck_env = fold_copy(inbox, cli_env(server, warehouse), "duckdb")
    pg_env = dict(
        fold_copy(inbox, cli_env(server, warehouse), "postgres"),
        WFM_SYNC_DESTINATION="postgres",
        DESTINATION__POSTGRES__CREDENTIALS=database,
        DESTINATION__DUCKDB__CREDENTIALS=str(tmp_path / "pg-side" / "unused.duckdb"),
    )
    declared_unit_tests = unit_test_names()
    outputs = {}
    for side, env in (("duckdb", duck_env), ("postgres", pg_env)):
        done = run(env, "sync")  # sync, fold, models (and their data tests), publish
        outputs[side] = done.stdout + done.stderr
        if side == "postgres":  # every unit test on PostgreSQL (DuckDB: tests/e2e/test_demo.py)
            tested = run(env, "models", "build", "--no-publish", "--unit-tests")
            assert passed_unit_tests() == declared_unit_tests, side
            outputs[side] += tested.stdout + tested.stderr
    assert "published" in outputs["duckdb"]
    assert "publish skipped" in outputs["postgres"]  # one line, and the marts are in PostgreSQL
    # the PostgreSQL password reaches neither the output nor dbt's logs and artifacts
    password = database.split(":")[2].split("@")[0]
    assert password and password not in outputs["postgres"]
    dbt_files = [f for f in Path(os.environ["WFM_SYNC_DBT_TARGET_DIR"]).rglob("*") if f.is_file()]
    assert dbt_files and not [f for f in dbt_files if password.encode() in f.read_bytes()]

    duck = duckdb.connect(str(warehouse), read_only=True)
    pg = psycopg2.connect(database)
    differences: list[str] = []
    compared: dict[str, int] = {}
    try:
        for mart, key in mart_keys().items():
            columns, duck_rows, pg_rows = mart_rows(duck, pg, mart, key)
            compared[mart] = len(duck_rows)
            missing, extra = duck_rows.keys() - pg_rows.keys(), pg_rows.keys() - duck_rows.keys()
            if missing or extra:
                differences.append(f"{mart}: keys only in DuckDB {sorted(missing, key=str)[:3]}, "
                                   f"only in PostgreSQL {sorted(extra, key=str)[:3]}")  # fmt: skip
            for row_key in duck_rows.keys() & pg_rows.keys():
                for column, a, b in zip(columns, duck_rows[row_key], pg_rows[row_key],
                                        strict=True):  # fmt: skip
                    if differs(a, b):
                        differences.append(f"{mart}[{row_key}].{column}: {a!r} <> {b!r}")
    finally:
        duck.close()
        pg.close()
    assert not differences, f"{len(differences)} differences:\n" + "\n".join(differences[:40])
    assert sum(compared.values()) > 10_000, compared  # the comparison saw the demo's data
    # every mart held rows to compare; fct_time_activity_reconciliation only when webhook
    # punches fall inside a pulled window before their receipt, which depends on the wall clock
    empty = [m for m, rows in compared.items() if not rows]
    assert set(empty) <= {"fct_time_activity_reconciliation"}, compared


@pytest.mark.parametrize("spec_width", ["mixed", "wide"])
def test_spec_generated_data_syncs_and_builds_on_postgresql(
    postgres: str, start_emulator: Any, tmp_path: Path, warehouse: Path, spec_width: str
) -> None:
    """Records and webhooks drawn from the provider's schemas (U+0000 in strings, numbers up
    to 1e308, unknown enumerations, empty dates) never fail the PostgreSQL load or build:
    strings PostgreSQL cannot hold are loaded with U+FFFD and logged, numbers it would
    overflow on are left untyped and counted, like any value a staging model cannot type."""
    server = start_emulator(data="spec", spec_width=spec_width, seed=11, users=150, forms=3,
                            schedulers=2, shifts=400)  # fmt: skip
    bodies = build_burst(400, seed=12, now=NOW, data="spec", malformed_rate=0.05)
    inbox = received(bodies, tmp_path / "inbox.sqlite3")
    database = fresh_database(postgres, f"spec_{spec_width}")
    env = dict(
        cli_env(server, warehouse),
        WEBHOOKS__INBOX_URL=f"sqlite:///{inbox}",
        WFM_SYNC_DESTINATION="postgres",
        DESTINATION__POSTGRES__CREDENTIALS=database,
    )
    done = run(env, "sync")
    assert "U+0000" in done.stderr + done.stdout  # kept with U+FFFD, and said so
    with psycopg2.connect(database) as connection, connection.cursor() as cursor:
        for mart in mart_keys():
            cursor.execute(f"select count(*) from marts.{mart}")  # every mart was built
        cursor.execute("select count(*) from marts.fct_shifts")
        assert cursor.fetchone()[0] > 0
