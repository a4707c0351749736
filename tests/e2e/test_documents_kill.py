"""A document bulk killed with SIGKILL at random moments submits every entry exactly once.

The emulator runs as a real HTTP server and counts every PUT to the entry path; the bulk is the
real ``wfm-sync documents bulk`` process. Each kill waits for an observable event at the
emulator, never for time to pass:

* ``held``: the emulator records the target PUT and withholds its answer; the bulk is killed
  while it waits for it. The entry is recorded at the provider and the bulk never learnt it:
  the next run must find it by checking, not send it again.
* ``counted``: the bulk is killed as soon as the emulator has accepted the target number of
  entries, wherever the process is at that moment (uploading the next file, between its intent
  and its PUT, or reading an answer).
"""

from __future__ import annotations

import csv
import os
import random
import re
import signal
import subprocess
import time
from collections import Counter

import httpx
import pytest
from conftest import WFM_SYNC, cli_env, query

ROWS = 200
SEED = 13
MODES = ("held", "counted", "held")


def _stats(server):
    return httpx.get(server.url + "/_emulator/documents", timeout=30).json()


def _control(server, **body):
    httpx.post(server.url + "/_emulator/documents", json=body, timeout=30).raise_for_status()


def _wait_for(condition, process, what):
    """Poll ``condition`` until it holds; fail if the bulk ends first or after 5 minutes."""
    deadline = time.monotonic() + 300
    while not condition():
        assert process.poll() is None, f"the bulk ended (exit {process.returncode}) before {what}"
        assert time.monotonic() < deadline, f"no {what} within 5 minutes"
        time.sleep(0.005)


@pytest.mark.slow
def test_bulk_of_200_killed_three_times_submits_each_entry_once(
    start_emulator, warehouse, tmp_path
):
    server = start_emulator(users=120, shifts=10)
    rows = []
    for i in range(ROWS):
        name = f"scan-{i:03d}.pdf"
        (tmp_path / name).write_bytes(f"%PDF scan {i}".encode())
        # users 1000..1099, each with document 7001 (approve) and 7002 (upload only)
        rows.append({"user_id": 1000 + i // 2, "document_id": 7001 + i % 2, "file": name})
    sheet = tmp_path / "entries.csv"
    with sheet.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    env = cli_env(server, warehouse)
    command = [*WFM_SYNC, "documents", "bulk", "--csv", str(sheet)]
    rng = random.Random(SEED)
    targets = sorted(rng.sample(range(5, ROWS - 5), len(MODES)))

    figures = []
    for run, (target, mode) in enumerate(zip(targets, MODES, strict=True), start=1):
        before = _stats(server)["entry_puts"]
        if mode == "held":
            _control(server, hold_at=target)
        log = tmp_path / f"run{run}.log"
        with log.open("wb") as output:
            process = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
            try:
                if mode == "held":
                    _wait_for(lambda: _stats(server)["held"], process, f"PUT {target} held")
                else:
                    _wait_for(
                        lambda target=target: _stats(server)["accepted"] >= target,
                        process,
                        f"{target} accepted entries",
                    )
                os.kill(process.pid, signal.SIGKILL)
            finally:
                process.kill()
                process.wait(timeout=60)
        assert process.returncode == -signal.SIGKILL
        if mode == "held":
            _control(server, release=True)
        figures.append((run, mode, target, _stats(server)["entry_puts"] - before, log))

    before = _stats(server)["entry_puts"]
    final = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stdout[-2000:] + final.stderr[-2000:]
    final_puts = _stats(server)["entry_puts"] - before

    # What each run after a kill found when it checked the interrupted entries.
    logs = [path.read_text() for *_, path in figures[1:]] + [final.stderr]
    checks = [
        re.findall(r"checked (\d+) interrupted entries: (\d+) recorded, (\d+) absent", text)
        for text in logs
    ]
    report = [
        f"run {run} ({mode}, killed at accepted entry {target}): {puts} PUTs; next run's check: "
        f"{check or 'none'}"
        for (run, mode, target, puts, _), check in zip(figures, checks, strict=True)
    ]
    report.append(f"final run: {final_puts} PUTs")
    stats = _stats(server)
    report.append(f"total: {stats['entry_puts']} PUTs, {stats['accepted']} entries accepted")
    print("\n".join(report))

    assert stats["entry_puts"] == ROWS, "\n".join(report)
    assert stats["accepted"] == ROWS
    per_entry = Counter((e["userId"], e["documentId"]) for e in server.state.entries)
    assert len(per_entry) == ROWS and set(per_entry.values()) == {1}  # none sent twice
    for check, (_run, mode, *_rest) in zip(checks, figures, strict=True):
        if mode == "held":  # the provider recorded the held entry; the next run found it
            assert check and int(check[0][1]) >= 1, "\n".join(report)
    outcomes = query(
        warehouse,
        "select count(*), count(distinct entry_key), count(*) filter (where status = 'approved'),"
        " count(*) filter (where status = 'pendingApproval'), count(user_document_id) "
        "from connecteam.document_entries",
    )
    assert outcomes == [(ROWS, ROWS, ROWS // 2, ROWS // 2, ROWS)]
    assert "200 rows:" in final.stdout
