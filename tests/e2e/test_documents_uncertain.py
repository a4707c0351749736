"""Never twice: a document entry whose outcome cannot be told stays ``uncertain`` and is not sent
again until someone settles it (``wfm-sync documents status`` / ``resolve``); and a bulk CSV
uploads only files under its own folder. Against the emulator as a real HTTP server whose
user-document listing shows neither ``fileId`` nor ``updatedAt`` (``user_documents_untold``)."""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import httpx
import pytest
from conftest import API_KEY, WFM_SYNC, cli_env, query

from sources.configuration import resolve
from sources.connecteam import ConnecteamClient
from sources.connecteam.documents import put_entry, upload_file

OUTCOMES = "select user_id, status, resolved_by from connecteam.document_entries order by user_id"


@pytest.fixture
def server(start_emulator):
    return start_emulator(users=40, shifts=5, user_documents_untold=True)


def _write_sheet(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _documents(server) -> dict[str, int]:
    return httpx.get(server.url + "/_emulator/documents", timeout=30).json()


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WFM_SYNC, "documents", *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_an_entry_whose_outcome_cannot_be_told_is_not_sent_again_until_resolved(
    server, warehouse, tmp_path
):
    """The provider records the first entry and answers 500; its listing cannot tell whether
    the document holds our entry: the PUT is not sent again, by this run or the next, until
    ``resolve --resend`` sends it once."""
    for name in ("a.pdf", "b.pdf"):
        (tmp_path / name).write_bytes(b"%PDF " + name.encode())
    sheet = _write_sheet(
        tmp_path / "entries.csv",
        [
            {"user_id": 1001, "document_id": 7001, "file": "a.pdf"},
            {"user_id": 1002, "document_id": 7001, "file": "b.pdf"},
        ],
    )
    httpx.post(server.url + "/_emulator/documents", json={"fail_after_recording": 1}, timeout=30)
    env = cli_env(server, warehouse)

    first = _run(env, "bulk", "--csv", str(sheet))
    assert first.returncode == 1, first.stderr[-2000:]
    assert "uncertain" in first.stderr and "documents resolve" in first.stderr
    assert _documents(server)["entry_puts"] == 2  # the 500 was checked, not sent again
    assert query(warehouse, OUTCOMES) == [(1001, "uncertain", None), (1002, "approved", "answer")]

    second = _run(env, "bulk", "--csv", str(sheet))
    assert second.returncode == 1 and "1 already recorded" in second.stdout
    assert _documents(server)["entry_puts"] == 2  # nor by the next run

    listed = _run(env, "status")
    assert listed.returncode == 0, listed.stderr[-2000:]
    ((key,),) = query(warehouse, "select entry_key from connecteam.document_entries "
                                 "where status = 'uncertain'")  # fmt: skip
    assert key in listed.stdout and "uncertain" in listed.stdout
    assert "1 entries waiting" in listed.stdout

    resolved = _run(env, "resolve", key[:10], "--resend")
    assert resolved.returncode == 0, resolved.stderr[-2000:]
    assert _documents(server)["entry_puts"] == 3  # sent once more, once
    assert query(warehouse, OUTCOMES) == [
        (1001, "approved", "answer"),
        (1002, "approved", "answer"),
    ]

    third = _run(env, "bulk", "--csv", str(sheet))
    assert third.returncode == 0 and "2 already recorded" in third.stdout
    assert _documents(server)["entry_puts"] == 3
    assert "no document entry waiting" in _run(env, "status").stdout


def test_an_interrupted_entry_the_check_cannot_tell_is_resolved_as_sent_without_a_request(
    server, warehouse, tmp_path
):
    """A run killed after its PUT left: the next run's check lists the document but cannot tell
    whose entry it holds, so it is kept ``uncertain`` (not sent); ``resolve --sent`` marks it
    recorded without any request."""
    from core import clock
    from pipelines.documents import EntryRow, documents_pipeline, journal_path, run_bulk
    from pipelines.entry_journal import EntryJournal

    (tmp_path / "a.pdf").write_bytes(b"%PDF a")
    row = EntryRow(1003, 7002, "a.pdf")
    with ConnecteamClient(server.url, api_key=API_KEY, backoff_base=0.01) as client:
        file_id = upload_file(client, tmp_path / "a.pdf")
        with EntryJournal.open(journal_path(documents_pipeline(project=resolve()))) as book:
            book.write({
                "entry_key": row.entry_key, "user_id": 1003, "document_id": 7002,
                "file": "a.pdf", "status": "sending", "file_id": file_id,
                "submitted_at": int(clock.now()),
            })  # fmt: skip
        put_entry(client, 1003, 7002, file_id)  # it reached the provider
        before = _documents(server)["entry_puts"]
        summary = run_bulk([row], base_dir=tmp_path, client=client, project=resolve())
    assert _documents(server)["entry_puts"] == before  # not sent again
    assert summary.checked == {"untold": 1} and summary.outcomes == {}
    assert [key for _, key, _ in summary.uncertain] == [row.entry_key]

    env = cli_env(server, warehouse)
    assert row.entry_key in _run(env, "status").stdout
    requests = server.stats()["total"]
    resolved = _run(env, "resolve", "--all", "--sent")
    assert resolved.returncode == 0, resolved.stderr[-2000:]
    assert server.stats()["total"] == requests  # no request at all
    assert query(warehouse, OUTCOMES) == [(1003, "unknown", "operator")]
    assert "no document entry waiting" in _run(env, "status").stdout
    again = _run(env, "resolve", row.entry_key, "--sent")
    assert again.returncode == 2 and "no such row" in again.stderr
    assert _run(env, "resolve", "--all").returncode == 2  # neither --sent nor --resend


def test_a_bulk_uploads_only_files_under_the_csv_folder(start_emulator, warehouse, tmp_path):
    """An absolute or ``../`` path outside the CSV's folder fails its row with the reason; the
    rest of the bulk goes on; ``--allow-any-path`` uploads them."""
    server = start_emulator(users=40, shifts=5)
    outside = tmp_path / "outside.pdf"
    outside.write_bytes(b"%PDF private")
    folder = tmp_path / "sheets"
    (folder / "scans").mkdir(parents=True)
    (folder / "scans" / "inside.pdf").write_bytes(b"%PDF inside")
    sheet = _write_sheet(
        folder / "entries.csv",
        [
            {"user_id": 1001, "document_id": 7001, "file": "scans/inside.pdf"},
            {"user_id": 1002, "document_id": 7001, "file": "../outside.pdf"},
            {"user_id": 1003, "document_id": 7001, "file": str(outside)},
        ],
    )
    env = cli_env(server, warehouse)

    first = _run(env, "bulk", "--csv", str(sheet))
    assert first.returncode == 1, first.stderr[-2000:]
    assert first.stderr.count("is outside the CSV's folder") == 2
    assert "--allow-any-path" in first.stderr
    stats = _documents(server)
    assert (stats["upload_slots"], stats["entry_puts"]) == (1, 1)  # only the file inside
    assert query(warehouse, "select user_id, status from connecteam.document_entries "
                            "order by 1") == [(1001, "approved"), (1002, "failed"),
                                              (1003, "failed")]  # fmt: skip

    second = _run(env, "bulk", "--csv", str(sheet), "--allow-any-path")
    assert second.returncode == 0, second.stderr[-2000:]
    assert _documents(server)["entry_puts"] == 3


def test_resend_checks_an_interrupted_entry_first_and_never_sends_it_twice(
    server, warehouse, tmp_path
):
    """Runs killed after their PUT reached the provider leave rows ``sending``: ``resolve --all
    --resend`` and ``resolve KEY --resend`` check them as a bulk would and send none (the
    listing cannot tell whose entry the document holds: ``uncertain``); once ``uncertain``,
    ``resolve KEY --resend`` sends it once."""
    from core import clock
    from pipelines.documents import EntryRow, documents_pipeline, journal_path
    from pipelines.entry_journal import EntryJournal
    from pipelines.entry_resolve import resolve_entries

    (tmp_path / "a.pdf").write_bytes(b"%PDF a")
    first, second = EntryRow(1004, 7003, "a.pdf"), EntryRow(1005, 7003, "a.pdf")
    with ConnecteamClient(server.url, api_key=API_KEY, backoff_base=0.01) as client:
        file_id = upload_file(client, tmp_path / "a.pdf")

        def interrupted(row: EntryRow) -> None:  # intent written, PUT sent, outcome lost
            with EntryJournal.open(journal_path(documents_pipeline(project=resolve()))) as book:
                book.write({
                    "entry_key": row.entry_key, "user_id": row.user_id,
                    "document_id": row.document_id, "file": "a.pdf", "status": "sending",
                    "file_id": file_id, "submitted_at": int(clock.now()),
                })  # fmt: skip
            put_entry(client, row.user_id, row.document_id, file_id)

        interrupted(first)
        before = _documents(server)["entry_puts"]
        every = resolve_entries(None, resend=True, client=client, project=resolve())
        assert [(r["entry_key"], r["status"]) for r in every.rows] == [
            (first.entry_key, "uncertain")
        ]
        assert _documents(server)["entry_puts"] == before  # checked, not sent

        interrupted(second)
        before = _documents(server)["entry_puts"]
        named = resolve_entries([second.entry_key], resend=True, client=client, project=resolve())
        assert [r["status"] for r in named.rows] == ["uncertain"]
        assert _documents(server)["entry_puts"] == before  # named, but checked, not sent

        again = resolve_entries([first.entry_key], resend=True, client=client, project=resolve())
        assert [r["status"] for r in again.rows] == ["pendingApproval"]
        assert _documents(server)["entry_puts"] == before + 1  # uncertain and named: once
    assert query(warehouse, OUTCOMES) == [
        (1004, "pendingApproval", "answer"),
        (1005, "uncertain", None),
    ]
