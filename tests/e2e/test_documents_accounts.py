"""Document entries for a named account (issue 46): ``wfm-sync documents put-entry --account``
writes through that account's own credentials to its own emulator, and the outcome lands in its
own dataset's ``document_entries``, with its own journal; the ``default`` account's stay apart."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import API_KEY
from support.accounts import accounts_env, duckdb_fetch
from support.cli import run_cli

from emulator import EmulatorServer


def test_a_named_account_s_entry_goes_to_its_account_and_its_dataset(
    start_emulator: Callable[..., EmulatorServer], tmp_path: Path
) -> None:
    default = start_emulator(seed=1, users=20, shifts=10)
    south = start_emulator(seed=2, users=20, shifts=10, api_key="key-south")
    env = dict(
        accounts_env({"south": south}, tmp_path),
        SOURCES__CONNECTEAM__BASE_URL=default.url,
        SOURCES__CONNECTEAM__API_KEY=API_KEY,
    )
    contract = tmp_path / "contract.pdf"
    contract.write_bytes(b"%PDF-1.4 signed")
    entry = ["documents", "put-entry", "--user-id", "1001", "--document-id", "7001",
             "--file", str(contract)]  # fmt: skip
    done = run_cli(*entry, "--account", "south", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert south.stats()["requests"].get("/documents/v1/users/1001/documents/7001/entry") == 1
    assert default.stats()["total"] == 0
    fetch = duckdb_fetch(tmp_path / "warehouse.duckdb")
    assert fetch("select user_id, document_id, status from connecteam_south.document_entries") == [
        (1001, 7001, "approved")
    ]
    schemas = {row[0] for row in fetch("select schema_name from information_schema.schemata")}
    assert "connecteam" not in schemas  # nothing of the default account's
    assert (
        tmp_path / "pipelines" / "connecteam_south_documents.document_entries.journal.sqlite3"
    ).exists()
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert [(r["job"], r["account"]) for r in runs] == [("documents", "south")]
    unknown = run_cli(*entry, "--account", "west", env=env)
    assert unknown.returncode == 2 and "'west'" in unknown.stderr
