"""The stream contract end to end, once per hostile variant: ``wfm-sync sync`` against a real
HTTP server on 127.0.0.1 serving spec-generated answers made hostile
(:data:`test_stream_contract.VARIANTS`), for a top-level stream (``users``), a parent listing
(``schedulers``) and a per-parent listing under it (``shift_custom_fields``, the stream a
``null`` item once stopped with a ``TypeError``).

What a user sees: a malformed item is counted on the summary's "items quarantined" line and kept
in ``connecteam.quarantine`` while the run succeeds; an answer that cannot be read fails the run
with one line naming the endpoint, never a traceback.
"""

from __future__ import annotations

import json

import pytest
from conftest import cli_env, query
from support.stream_answers import Answers, asgi_app
from test_first_run import run_cli
from test_stream_contract import VARIANTS, Variant, base_items

from emulator.server import BackgroundServer
from sources.connecteam.registry import STREAMS

SELECTED = ("users", "schedulers", "shift_custom_fields")


@pytest.fixture(scope="module")
def items():
    return {name: v for name, v in base_items().items() if name in SELECTED}


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_a_sync_keeps_the_contract_end_to_end(variant: Variant, items, tmp_path):
    hostile = {n: variant.items(STREAMS[n], v) if variant.items else v for n, v in items.items()}
    body = (lambda s, offset: variant.body(s)) if variant.body else None
    answers = Answers(hostile, body)
    warehouse = tmp_path / "w" / "warehouse.duckdb"
    with BackgroundServer(asgi_app(answers)) as server:
        env = cli_env(server, warehouse)
        done = run_cli("sync", "--streams", ",".join(SELECTED), "--steps", "sync", env=env,
                       cwd=tmp_path)  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    if variant.outcome == "failed":
        assert done.returncode in (1, 2), done.stderr[-3000:]
        said = done.stderr + done.stdout
        assert "/users/v1/users" in said and "/scheduler/v1/schedulers" in said, said[-3000:]
        return
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = {n: query(warehouse, f"select count(*) from connecteam.{n}")[0][0] for n in SELECTED}
    assert loaded["users"] >= 2 and loaded["schedulers"] >= 2, loaded
    assert loaded["shift_custom_fields"] >= 4, loaded  # two fields under each of two schedulers
    kept = query(warehouse, "select stream, count(*) from connecteam.quarantine group by all") \
        if variant.outcome == "quarantined" else []  # fmt: skip
    if variant.outcome == "quarantined":
        listings = {n: len(answers.paths[n]) for n in SELECTED}  # one hostile item per listing
        assert dict(kept) == listings, (kept, listings)
        line = next(x for x in done.stdout.splitlines() if x.startswith("items quarantined"))
        assert all(f"{n} {count}" in line for n, count in listings.items()), line
        if variant.name == "null-item":  # status counts them; the table is no drift
            shown = run_cli("status", "--json", env=env, cwd=tmp_path)
            report = json.loads(shown.stdout)
            assert report["quarantined"] == listings, report["quarantined"]
            drift = {f["table"] for f in report["drift"]["fields"]}
            assert "connecteam.quarantine" not in drift, report["drift"]
    else:
        assert "items quarantined" not in done.stdout, done.stdout
