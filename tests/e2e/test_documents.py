"""Document entries: the emulator's write path as the interface states it, and the bulk job."""

from __future__ import annotations

import csv
import subprocess
from collections import Counter

import httpx
import pytest
from conftest import API_KEY, WFM_SYNC, cli_env, query

from sources.configuration import resolve
from sources.connecteam import ConnecteamAPIError, ConnecteamClient
from sources.connecteam.documents import WRITE_SCOPES, put_entry, upload_file

ENTRY = "/documents/v1/users/{u}/documents/{d}/entry"


@pytest.fixture
def server(start_emulator):
    # API key permissions: pack 1 approve, pack 2 upload only; documents 7001 (pack 1),
    # 7002 (pack 2), 7003 (pack 3, upload only), 7004 (pack 1).
    return start_emulator(users=80, shifts=10)


@pytest.fixture
def client(server):
    with ConnecteamClient(server.url, api_key=API_KEY, backoff_base=0.01) as c:
        yield c


def test_approve_permission_gives_approved_and_upload_permission_gives_pending(
    server, client, tmp_path
):
    contract = tmp_path / "contract.pdf"
    contract.write_bytes(b"%PDF-1.4 signed")
    approved = put_entry(
        client, 1001, 7001, upload_file(client, contract), {"signedOn": "2026-11-20"}
    )
    pending = put_entry(client, 1001, 7002, upload_file(client, contract))
    assert approved["data"]["status"] == "approved"  # approve permission on pack 1
    assert pending["data"]["status"] == "pendingApproval"  # upload permission only on pack 2
    assert approved["requestId"] and approved["data"]["userId"] == 1001
    assert approved["data"]["fields"] == {"signedOn": "2026-11-20"}
    listed = httpx.get(
        server.url + "/documents/v1/user-documents",
        params={"userIds": [1001], "limit": 100},
        headers={"X-API-KEY": API_KEY},
    ).json()["data"]["userDocuments"]
    statuses = {d["documentId"]: d["status"] for d in listed}
    assert statuses[7001] == "approved" and statuses[7002] == "pendingApproval"


@pytest.mark.parametrize(
    ("user_id", "document_id", "loc"),
    [(0, "7001", ["path", "userId"]), (1001, "abc", ["path", "documentId"])],
)
def test_invalid_path_parameters_are_422(server, user_id, document_id, loc):
    response = httpx.put(
        server.url + ENTRY.format(u=user_id, d=document_id),
        json={"fileId": "x"},
        headers={"X-API-KEY": API_KEY},
    )
    assert response.status_code == 422
    assert [d["loc"] for d in response.json()["detail"]] == [loc]
    missing_body = httpx.put(
        server.url + ENTRY.format(u=1001, d=7001), headers={"X-API-KEY": API_KEY}
    )
    assert missing_body.status_code == 422


def test_entry_without_an_upload_is_refused(server, client, tmp_path):
    with pytest.raises(ConnecteamAPIError) as never_uploaded:
        put_entry(client, 1001, 7001, "no-such-file")
    assert never_uploaded.value.status == 422 and "uploaded first" in str(never_uploaded.value)
    # uploaded, but for another feature than documents
    other = tmp_path / "photo.jpg"
    other.write_bytes(b"jpg")
    slot = client.request(
        "POST",
        "/attachments/v1/files/generate-upload-url",
        json={"fileName": "photo.jpg", "featureType": "chat"},
    )["data"]
    client.upload(slot["uploadFileUrl"], b"jpg", "image/jpeg")
    client.request("PUT", f"/attachments/v1/files/complete-upload/{slot['fileId']}")
    with pytest.raises(ConnecteamAPIError) as wrong_feature:
        put_entry(client, 1001, 7001, slot["fileId"])
    assert wrong_feature.value.status == 422


def test_missing_scope_or_permission_is_refused(start_emulator, tmp_path):
    clients = {
        "readonly": {"secret": "s1", "scopes": ["documents.read", "attachments.write"]},
        "writer": {"secret": "s2", "scopes": ["documents.write", "attachments.write"],
                   "document_permissions": {"1": "approve"}},
    }  # fmt: skip
    server = start_emulator(users=20, oauth_clients=clients)
    token = httpx.post(
        server.url + "/oauth/v1/token",
        auth=("readonly", "s1"),
        data={"grant_type": "client_credentials", "scope": "documents.read attachments.write"},
    ).json()["access_token"]
    response = httpx.put(
        server.url + ENTRY.format(u=1001, d=7001),
        json={"fileId": "x"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 403 and "documents.write" in response.text
    assert httpx.put(server.url + ENTRY.format(u=1001, d=7001), json={}).status_code == 401
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(b"%PDF")
    with ConnecteamClient(
        server.url, client_id="writer", client_secret="s2", scopes=WRITE_SCOPES
    ) as writer:
        file_id = upload_file(writer, scan)
        assert put_entry(writer, 1001, 7001, file_id)["data"]["status"] == "approved"
        with pytest.raises(ConnecteamAPIError) as no_permission:
            put_entry(writer, 1001, 7002, file_id)  # pack 2: no permission at all
        assert no_permission.value.status == 403


def test_bulk_of_50_with_5_failures_reruns_to_exactly_50_entries(
    start_emulator, warehouse, tmp_path
):
    server = start_emulator(users=80, shifts=10)
    rows = []
    for i in range(50):
        name = f"entry-{i:02d}.pdf"
        if i % 10 != 3:  # rows 3, 13, 23, 33, 43 name files that do not exist yet
            (tmp_path / name).write_bytes(f"%PDF entry {i}".encode())
        rows.append(
            {
                "user_id": 1000 + i,
                "document_id": 7001 if i % 2 else 7002,
                "file": name,
                "note": "" if i % 4 else "scanned",
                "expires": f"2027-0{1 + i % 9}-01",
            }
        )
    sheet = tmp_path / "entries.csv"
    with sheet.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    env = cli_env(server, warehouse)
    command = [*WFM_SYNC, "documents", "bulk", "--csv", str(sheet)]

    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 1, first.stderr[-2000:]
    assert "5 row(s) failed" in first.stderr and "file not found" in first.stderr
    assert server.stats()["document_entries"] == 45
    outcomes = dict(
        query(warehouse, "select status, count(*) from connecteam.document_entries group by 1")
    )
    # the failing rows are 3, 13, 23, 33, 43: all odd, so all pack 1 (approve)
    assert outcomes == {"approved": 20, "pendingApproval": 25, "failed": 5}

    for i in range(3, 50, 10):
        (tmp_path / f"entry-{i:02d}.pdf").write_bytes(b"%PDF late")
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "45 already recorded" in second.stdout
    assert server.stats()["document_entries"] == 50  # nothing submitted twice
    third = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert third.returncode == 0 and "50 already recorded" in third.stdout
    assert server.stats()["document_entries"] == 50

    rows_in_table = query(
        warehouse,
        "select count(*), count(distinct entry_key), count(*) filter (where status in "
        "('approved', 'pendingApproval')), count(request_id) from connecteam.document_entries",
    )
    assert rows_in_table == [(50, 50, 50, 50)]
    by_status = dict(
        query(warehouse, "select status, count(*) from connecteam.document_entries group by 1")
    )
    assert by_status == {"approved": 25, "pendingApproval": 25}  # odd rows pack 1, even pack 2


def test_rows_from_a_duckdb_query_and_bad_input(tmp_path):
    from pipelines.documents import BulkInputError, read_query

    rows = read_query(
        "select 1001 as user_id, 7001 as document_id, 'a.pdf' as file, 'blue' as colour, "
        "null as note",
        database=tmp_path / "absent.duckdb",
    )
    assert [(r.user_id, r.document_id, r.file, r.fields, r.note) for r in rows] == [
        (1001, 7001, "a.pdf", {"colour": "blue"}, None)
    ]
    with pytest.raises(BulkInputError, match="row 1: documentId must be an integer"):
        read_query("select 1 as user_id, 'x' as document_id, 'f' as file", tmp_path / "a.duckdb")
    with pytest.raises(BulkInputError, match="missing file"):
        read_query("select 1 as user_id, 2 as document_id", tmp_path / "a.duckdb")


def _write_sheet(path, rows):
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _documents_stats(server):
    return httpx.get(server.url + "/_emulator/documents", timeout=30).json()


def _control(server, **body):
    httpx.post(server.url + "/_emulator/documents", json=body, timeout=30).raise_for_status()


def test_user_id_0_makes_no_upload(server, warehouse, tmp_path):
    (tmp_path / "a.pdf").write_bytes(b"%PDF a")
    sheet = _write_sheet(
        tmp_path / "entries.csv",
        [
            {"user_id": 1001, "document_id": 7001, "file": "a.pdf"},
            {"user_id": 0, "document_id": 7001, "file": "a.pdf"},
            {"user_id": 1002, "document_id": "x7", "file": "a.pdf"},
        ],
    )
    env = cli_env(server, warehouse)
    bulk = subprocess.run(
        [*WFM_SYNC, "documents", "bulk", "--csv", str(sheet)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert bulk.returncode == 2, bulk.stderr[-2000:]
    assert "row 2: userId must be an integer >= 1" in bulk.stderr
    assert "row 3: documentId must be an integer" in bulk.stderr
    single = subprocess.run(
        [*WFM_SYNC, "documents", "put-entry", "--user-id", "0", "--document-id", "7001",
         "--file", str(tmp_path / "a.pdf")],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert single.returncode == 2 and "userId must be an integer >= 1" in single.stderr
    stats = _documents_stats(server)
    assert (stats["upload_slots"], stats["uploads"], stats["entry_puts"]) == (0, 0, 0)


def test_a_422_with_two_field_errors_names_both_fields(server, warehouse, tmp_path):
    long = "x" * 250  # each message alone is near the old 300-character excerpt
    _control(
        server,
        refuse_with=[
            {"loc": ["body", "fileId"], "msg": "field required", "type": "value_error.missing"},
            {"loc": ["body", "fields", "expires"], "msg": f"not a date {long}",
             "type": "value_error.date"},
        ],
    )  # fmt: skip
    (tmp_path / "a.pdf").write_bytes(b"%PDF a")
    sheet = _write_sheet(
        tmp_path / "entries.csv",
        [{"user_id": 1001, "document_id": 7001, "file": "a.pdf", "expires": "soon"}],
    )
    bulk = subprocess.run(
        [*WFM_SYNC, "documents", "bulk", "--csv", str(sheet)],
        env=cli_env(server, warehouse), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert bulk.returncode == 1, bulk.stderr[-2000:]
    assert "body.fileId: field required" in bulk.stderr
    assert "body.fields.expires: not a date xxx" in bulk.stderr
    assert "query parameter" not in bulk.stderr
    ((status, error),) = query(warehouse, "select status, error from connecteam.document_entries")
    assert status == "failed" and "body.fileId: field required" in error
    assert "body.fields.expires" in error
    assert _documents_stats(server)["entry_puts"] == 1  # a refusal is not sent again in the run


def test_a_status_outside_the_documented_two_is_kept_and_not_resubmitted(
    server, warehouse, tmp_path
):
    for name in ("a.pdf", "b.pdf", "c.pdf"):
        (tmp_path / name).write_bytes(b"%PDF " + name.encode())
    sheet = _write_sheet(
        tmp_path / "entries.csv",
        [
            {"user_id": 1001, "document_id": 7001, "file": "a.pdf"},  # approved
            {"user_id": 1002, "document_id": 7003, "file": "b.pdf"},  # answered pendingAdminFilling
            {"user_id": 1003, "document_id": 7004, "file": "c.pdf"},  # answered without a status
        ],
    )
    _control(server, answer_status={"7003": "pendingAdminFilling", "7004": None})
    env = cli_env(server, warehouse)
    command = [*WFM_SYNC, "documents", "bulk", "--csv", str(sheet)]
    statuses = "select document_id, status from connecteam.document_entries order by 1"

    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    assert query(warehouse, statuses) == [
        (7001, "approved"), (7003, "pendingAdminFilling"), (7004, "unknown")
    ]  # fmt: skip
    assert "pendingAdminFilling 1, unknown 1" in first.stderr
    assert "--retry-unexpected" in first.stderr
    assert _documents_stats(server)["entry_puts"] == 3

    _control(server, answer_status={})
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "1 already recorded" in second.stdout and "nothing submitted" in second.stdout
    assert _documents_stats(server)["entry_puts"] == 3  # neither unexpected row sent again
    assert query(warehouse, statuses)[1:] == [(7003, "pendingAdminFilling"), (7004, "unknown")]

    third = subprocess.run(
        [*command, "--retry-unexpected"], env=env, capture_output=True, text=True, timeout=300
    )
    assert third.returncode == 0, third.stderr[-2000:]
    assert _documents_stats(server)["entry_puts"] == 5  # only the two unexpected rows
    assert query(warehouse, statuses) == [
        (7001, "approved"), (7003, "pendingApproval"), (7004, "approved")
    ]  # fmt: skip


@pytest.mark.parametrize("reached_the_provider", [True, False])
def test_an_entry_left_sending_is_settled_by_checking_with_the_provider(
    server, client, warehouse, tmp_path, reached_the_provider
):
    """A run killed between writing the intent and learning the outcome: the next run lists the
    user's documents and sends the PUT again only when the entry is not there."""
    from core import clock
    from pipelines.documents import EntryRow, journal_path, run_bulk
    from pipelines.entry_journal import EntryJournal
    from pipelines.warehouse import build_pipeline

    (tmp_path / "a.pdf").write_bytes(b"%PDF a")
    row = EntryRow(1001, 7002, "a.pdf", {"expires": "2027-01-01"})
    file_id = upload_file(client, tmp_path / "a.pdf")
    pipeline = build_pipeline("connecteam_documents", "connecteam", project=resolve())
    with EntryJournal.open(journal_path(pipeline)) as book:
        book.write({
            "entry_key": row.entry_key, "user_id": 1001, "document_id": 7002, "file": "a.pdf",
            "fields": row.fields, "status": "sending", "file_id": file_id,
            "submitted_at": int(clock.now()),
        })  # fmt: skip
    if reached_the_provider:
        put_entry(client, 1001, 7002, file_id, row.fields)
    before = _documents_stats(server)["entry_puts"]

    summary = run_bulk(
        [row], base_dir=tmp_path, pipeline=pipeline, client=client, project=resolve()
    )

    sent = _documents_stats(server)["entry_puts"] - before
    ((status, resolved_by, user_document_id),) = query(
        warehouse, "select status, resolved_by, user_document_id from connecteam.document_entries"
    )
    assert status == "pendingApproval" and user_document_id is not None
    if reached_the_provider:
        assert sent == 0 and summary.checked == {"recorded": 1} and resolved_by == "check"
        assert summary.skipped == 1
    else:
        assert sent == 1 and summary.checked == {"absent": 1} and resolved_by == "answer"


def test_a_lost_journal_starts_again_from_the_warehouse_outcomes(server, warehouse, tmp_path):
    for name in ("a.pdf", "b.pdf"):
        (tmp_path / name).write_bytes(b"%PDF " + name.encode())
    sheet = _write_sheet(
        tmp_path / "entries.csv",
        [
            {"user_id": 1001, "document_id": 7001, "file": "a.pdf"},
            {"user_id": 1002, "document_id": 7002, "file": "b.pdf"},
        ],
    )
    env = cli_env(server, warehouse)
    command = [*WFM_SYNC, "documents", "bulk", "--csv", str(sheet)]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    journal = warehouse.parent / "pipelines" / "document_entries.journal.sqlite3"
    assert journal.is_file()
    for path in journal.parent.glob(journal.name + "*"):
        path.unlink()  # the journal, its WAL and its lock file

    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "2 already recorded" in second.stdout
    assert _documents_stats(server)["entry_puts"] == 2


def test_faults_on_the_way_never_record_an_entry_twice(start_emulator, warehouse, tmp_path):
    """Dropped connections, 500s, 503s and 429s on a fifth of the requests: an entry PUT that
    got no answer is checked, not re-sent blindly; runs repeat until none is left uncertain."""
    server = start_emulator(users=40, shifts=5, fault_rate=0.2, fault_seed=11)
    rows = []
    for i in range(30):
        (tmp_path / f"f{i}.pdf").write_bytes(b"%PDF")
        rows.append({"user_id": 1000 + i, "document_id": 7001 + i % 2, "file": f"f{i}.pdf"})
    sheet = _write_sheet(tmp_path / "entries.csv", rows)
    env = cli_env(server, warehouse)
    for _ in range(5):
        run = subprocess.run(
            [*WFM_SYNC, "documents", "bulk", "--csv", str(sheet)],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        if run.returncode == 0:
            break
    assert run.returncode == 0, run.stderr[-2000:]
    stats = _documents_stats(server)
    assert server.state.faults and stats["entry_puts"] > stats["accepted"]  # faults hit PUTs
    per_entry = Counter((e["userId"], e["documentId"]) for e in server.state.entries)
    assert len(per_entry) == 30 and set(per_entry.values()) == {1}
    assert query(
        warehouse, "select status, count(*) from connecteam.document_entries group by 1 order by 1"
    ) == [("approved", 15), ("pendingApproval", 15)]


def test_an_entry_answered_500_after_it_was_recorded_is_checked_not_resent(
    server, warehouse, tmp_path
):
    """The provider records the entry and then answers 500: a blind retry would record it a
    second time; the bulk lists the user's documents, finds it and sends nothing more."""
    rows = []
    for i in range(10):
        (tmp_path / f"f{i}.pdf").write_bytes(b"%PDF")
        rows.append({"user_id": 1010 + i, "document_id": 7001, "file": f"f{i}.pdf"})
    sheet = _write_sheet(tmp_path / "entries.csv", rows)
    _control(server, fail_after_recording=3)
    run = subprocess.run(
        [*WFM_SYNC, "documents", "bulk", "--csv", str(sheet)],
        env=cli_env(server, warehouse), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert _documents_stats(server)["entry_puts"] == 10
    assert query(
        warehouse,
        "select resolved_by, status, count(*) from connecteam.document_entries group by all "
        "order by 1",
    ) == [("answer", "approved", 7), ("check", "approved", 3)]


def test_the_bulk_waits_for_the_writer_lock_and_is_logged_as_a_run(
    server, client, warehouse, tmp_path, monkeypatch, caplog
):
    """Like sync, fold, models and publish: the bulk writes the warehouse under the writer lock
    (waiting while another job holds it, failing once the wait is spent) and leaves one line per
    run in the run log."""
    import threading
    import time

    from pipelines.documents import EntryRow, run_bulk
    from pipelines.runs import read_runs
    from pipelines.warehouse import WarehouseBusyError
    from pipelines.writers import warehouse_writer
    from sources.configuration import resolve

    (tmp_path / "a.pdf").write_bytes(b"%PDF a")
    row = EntryRow(1001, 7002, "a.pdf")
    held, release = threading.Event(), threading.Event()

    def other_job() -> None:
        with warehouse_writer("nightly", project=resolve()):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=other_job)
    holder.start()
    held.wait(30)
    threading.Timer(1.5, release.set).start()
    started = time.monotonic()
    with caplog.at_level("INFO", logger="pipelines.warehouse"):
        summary = run_bulk([row], base_dir=tmp_path, client=client, project=resolve())
    holder.join()
    assert time.monotonic() - started >= 1.4  # it waited for the other job
    assert "documents: waiting for another job" in caplog.text
    assert summary.outcomes == {"pendingApproval": 1}
    (record,) = read_runs(resolve().paths.run_log)
    assert (record.job, record.outcome, record.error) == ("documents", "succeeded", None)
    assert record.details["outcomes"] == {"pendingApproval": 1} and record.details["rows"] == 1

    monkeypatch.setenv("WFM_SYNC_WRITER_TIMEOUT", "0.3")
    with warehouse_writer("nightly", project=resolve()), pytest.raises(WarehouseBusyError):
        run_bulk([row], base_dir=tmp_path, client=client, project=resolve())
    failed = read_runs(resolve().paths.run_log)[-1]
    assert (failed.job, failed.outcome) == ("documents", "failed")
    assert "another job held the warehouse" in (failed.error or "")
    assert query(warehouse, "select count(*) from connecteam.document_entries") == [(1,)]


def test_a_bulk_with_failed_rows_is_a_failed_run(server, client, warehouse, tmp_path):
    from pipelines.documents import EntryRow, run_bulk
    from pipelines.runs import read_runs
    from sources.configuration import resolve

    summary = run_bulk(
        [EntryRow(1001, 7001, "missing.pdf")], base_dir=tmp_path, client=client, project=resolve()
    )
    assert len(summary.failures) == 1
    (record,) = read_runs(resolve().paths.run_log)
    assert (record.job, record.outcome) == ("documents", "failed")
    assert record.error == "1 row(s) failed, 0 uncertain"
    assert record.details["outcomes"] == {"failed": 1}
