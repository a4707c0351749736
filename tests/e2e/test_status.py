"""``wfm-sync status``: a fresh warehouse, after a run, and with a stale table."""

from __future__ import annotations

import json
import math
import time

from conftest import point_at
from typer.testing import CliRunner

from emulator.webhooks import build_burst
from flows.cli import app
from flows.cli.terminal import console
from inbox import Inbox
from inbox.envelope import read_envelope
from inbox.store import ReceivedEvent
from pipelines import STREAMS, run_sync
from pipelines.fold import run_fold
from pipelines.runs import read_runs
from pipelines.status import collect_status, parse_age
from sources.configuration import resolve
from sources.webhooks.config import inbox_url_from_config


def status_json(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["status", "--json", *args])
    return result.exit_code, json.loads(result.stdout)


def test_status_of_a_fresh_warehouse_says_nothing_ran_and_creates_nothing(warehouse):
    code, report = status_json()
    assert code == 1  # no data yet: an alert should fire
    assert "sync has never run: run `wfm-sync sync`" in report["problems"]
    assert all(job["last_run_at"] is None for job in report["jobs"])
    assert report["inbox"]["backlog"] == 0 and report["pending_load_packages"]["connecteam"] == 0
    assert not warehouse.parent.exists()  # status only reads

    table = CliRunner().invoke(app, ["status"])
    assert table.exit_code == 1 and "never" in table.stdout


def test_status_after_a_run_shows_rows_freshness_inbox_and_budget(start_emulator, monkeypatch,
                                                                  warehouse):  # fmt: skip
    server = start_emulator(users=640, forms=3, schedulers=2, shifts=700, minute_limit=500)
    point_at(monkeypatch, server)
    summary = run_sync(project=resolve())
    inbox = Inbox(inbox_url_from_config())
    events = [ReceivedEvent(read_envelope(json.loads(body), body), body, time.time())
              for body, _key, _family in build_burst(60, seed=2)]  # fmt: skip
    inbox.insert_events(events[:50])
    run_fold(project=resolve())
    inbox.insert_events(events[50:])  # arrived after the fold: the backlog
    inbox.close()

    code, report = status_json()
    assert code == 0, report["problems"]
    tables = {f"{t['dataset']}.{t['table']}": t for t in report["tables"]}
    assert tables["connecteam.users"]["rows"] == 640 == summary.rows["users"]
    assert tables["connecteam.shifts"]["rows"] == 700
    assert tables["webhooks.events"]["rows"] == 50
    newest_user = max(u["modifiedAt"] for u in server.state.dataset.users.values())
    assert tables["connecteam.users"]["newest"] == time.strftime(
        "%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(newest_user)
    )
    assert sum(f["events"] for f in report["webhook_families"]) == 50
    assert all(f["newest_event_at"].endswith("+00:00") for f in report["webhook_families"])
    assert report["inbox"]["backlog"] == 10
    assert report["rate_limit"]["minute"] == summary.rate_limit_remaining["minute"] is not None
    jobs = {j["job"]: j for j in report["jobs"]}
    assert jobs["sync"]["outcome"] == jobs["fold"]["outcome"] == "succeeded"
    assert [r.job for r in read_runs(resolve().paths.run_log)] == ["sync", "fold"]

    monkeypatch.setattr(console, "width", 80)  # a terminal of 80 columns: nothing cut
    shown = CliRunner().invoke(app, ["status"]).stdout
    rows = {line.split()[0]: line for line in shown.splitlines() if line.strip()}
    assert "…" not in shown
    assert rows["users"].split()[1] == "640" and rows["user_custom_field_definitions"]
    assert rows["events"].split()[1] == "50"  # webhooks.events, without its dataset
    table_lines = [x for x in shown.splitlines() if "  " in x.strip() and not x.startswith("  ")]
    assert table_lines and max(map(len, table_lines)) <= 80


def test_a_stale_table_makes_status_exit_non_zero(start_emulator, monkeypatch, warehouse):
    server = start_emulator(users=50, forms=2, schedulers=1, shifts=40)
    point_at(monkeypatch, server)
    run_sync(project=resolve())
    time.sleep(4)
    second_started = time.time()
    run_sync(["users"], project=resolve())  # only users is refreshed now
    # a threshold between the two refreshes, however long each step took on this machine:
    # users is at most (now - second_started) old, the others at least 4 s older than that
    threshold = math.ceil(time.time() - second_started + 2)
    code, report = status_json("--max-age", f"{threshold}s")
    assert code == 1
    stale = {t["table"] for t in report["tables"] if t["stale"]}
    assert stale == set(STREAMS) - {"users"}
    assert any(
        "connecteam.shifts" in p and f"older than {threshold}s" in p for p in report["problems"]
    )
    # the same warehouse is healthy under the default threshold
    assert collect_status(max_age=parse_age("26h"), project=resolve()).problems == []
    assert CliRunner().invoke(app, ["status", "--max-age", "soon"]).exit_code == 2
