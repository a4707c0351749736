"""One stream's trouble is that stream's: vanished parents, unexpected answers, values of varying
types and a flaky token endpoint, each against the emulator behind a real HTTP server whose
answers a small ASGI layer alters on chosen paths (as the provider might)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from conftest import API_KEY, WFM_SYNC, cli_env, point_at, query

from emulator import EmulatorConfig, ServerOptions, create_app
from emulator.server import BackgroundServer
from pipelines import STREAMS, run_sync
from sources.configuration import resolve
from sources.connecteam.arrow_rows import dumps
from sources.connecteam.client import ConnecteamClient

Rewrite = Callable[[str, dict[str, Any]], dict[str, Any]]


class AlteredProvider:
    """The emulator's ASGI app, with the answers of chosen paths replaced or rewritten.

    Args:
        app: The emulator app.
        replies: ``{path: (status, body)}`` answered instead of the emulator.
        rewrites: ``{path regex: function(path, decoded body) -> body}`` applied to the
            emulator's 200 answers.
        drop_token_requests: How many first ``POST /oauth/v1/token`` requests get their
            connection dropped mid-answer; then ``token_503`` more are answered 503.
        token_503: See ``drop_token_requests``.
    """

    def __init__(
        self,
        app: Any,
        replies: dict[str, tuple[int, Any]] | None = None,
        rewrites: dict[str, Rewrite] | None = None,
        drop_token_requests: int = 0,
        token_503: int = 0,
    ) -> None:
        self.app, self.state = app, app.state
        self.replies = replies or {}
        self.rewrites = {re.compile(k): v for k, v in (rewrites or {}).items()}
        self.drops, self.unavailable = drop_token_requests, token_503
        self.token_requests = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path == "/oauth/v1/token":
            self.token_requests += 1
            if self.drops > 0:
                self.drops -= 1
                await send({"type": "http.response.start", "status": 200, "headers": []})
                raise ConnectionResetError("dropped on purpose")
            if self.unavailable > 0:
                self.unavailable -= 1
                await _reply(send, 503, {"detail": "unavailable"})
                return
        if scope["type"] == "http" and path in self.replies:
            status, body = self.replies[path]
            await _reply(send, status, body)
            return
        rewrite = next((f for p, f in self.rewrites.items() if p.fullmatch(path)), None)
        if scope["type"] != "http" or rewrite is None:
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        body = b"".join(chunks)
        if start.get("status") == 200:
            body = dumps(rewrite(path, orjson.loads(body))).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def _reply(send: Any, status: int, body: Any) -> None:
    payload = orjson.dumps(body)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


SMALL = {"users": 120, "forms": 3, "schedulers": 3, "shifts": 600}


@pytest.fixture
def altered() -> Any:
    """Start an altered provider: ``altered(replies=..., rewrites=..., **sizes)``."""
    running: list[BackgroundServer] = []

    def start(
        replies: dict[str, tuple[int, Any]] | None = None,
        rewrites: dict[str, Rewrite] | None = None,
        options: dict[str, Any] | None = None,
        **sizes: Any,
    ) -> BackgroundServer:
        app = create_app(
            EmulatorConfig(**{**SMALL, **sizes}),
            ServerOptions(api_key=API_KEY, minute_limit=100_000, day_limit=1_000_000,
                          **(options or {})),
        )  # fmt: skip
        server = BackgroundServer(AlteredProvider(app, replies, rewrites)).start()
        server.state = app.state.emulator  # type: ignore[attr-defined]
        running.append(server)
        return server

    yield start
    for server in running:
        server.stop()


def test_a_scheduler_gone_before_its_shifts_request_is_skipped_and_named(
    altered, warehouse, monkeypatch
):
    gone = 9000  # the emulator's first scheduler
    server = altered(
        replies={f"/scheduler/v1/schedulers/{gone}/shifts": (404, {"detail": "Not found"})}
    )
    point_at(monkeypatch, server)
    summary = run_sync(STREAMS, project=resolve())
    assert summary.failed_streams == {}
    assert summary.skipped_parents == [f"shifts: schedulerId {gone}"]
    expected = {sid: len(rows) for sid, rows in server.state.dataset.shifts.items() if sid != gone}
    loaded = dict(
        query(warehouse, "select scheduler_id, count(*) from connecteam.shifts group by 1")
    )
    assert loaded == expected  # every other scheduler's rows, none of the vanished one's
    for stream in STREAMS:
        assert query(warehouse, f"select count(*) from connecteam.{stream}")[0][0] > 0, stream


def test_an_unexpected_answer_fails_only_its_stream_and_the_cli_exits_1(altered, tmp_path):
    server = altered(
        replies={"/documents/v1/user-documents": (200, {"data": {"documents": "soon"}})}
    )
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    env = cli_env(server, warehouse)  # type: ignore[arg-type]
    done = subprocess.run(
        [*WFM_SYNC, "sync", "--steps", "sync"], env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-3000:]
    failure = r"- user_documents: ConnecteamAPIError: GET /documents/v1/user-documents"
    assert re.search(failure, done.stderr), done.stderr[-3000:]
    assert "data.userDocuments" in done.stderr  # what was wrong with the answer
    for stream in STREAMS:
        sql = (
            "select count(*) from information_schema.tables "
            f"where table_schema = 'connecteam' and table_name = '{stream}'"
        )
        (n,) = query(warehouse, sql)[0]
        if stream == "user_documents":
            assert n == 0  # nothing of the failed stream was loaded
        else:
            assert query(warehouse, f"select count(*) from connecteam.{stream}")[0][0] > 0, stream
    # the run log says the sync failed, naming the stream
    log = (warehouse.parent / "runs.jsonl").read_text()
    assert '"outcome": "failed"' in log and "user_documents" in log


def test_fields_whose_type_varies_or_overflows_are_kept_flagged_and_counted(
    altered, warehouse, monkeypatch
):
    def vary(_path: str, body: dict[str, Any]) -> dict[str, Any]:
        for n, user in enumerate(body["data"]["users"]):
            user["badgeNumber"] = n if n % 2 else f"B-{n}"  # an int here, a string there
            if n % 10 == 3:
                user["kioskCode"] = 10**30  # beyond 64 bits, in a text column
                user["createdAt"] = 2**64  # beyond 64 bits, in a bigint column
        return body

    server = altered(rewrites={"/users/v1/users": vary})
    point_at(monkeypatch, server)
    summary = run_sync(["users"], project=resolve())
    users = SMALL["users"]
    # badgeNumber: decided by the first record (a string); every odd record's int is kept aside
    odd = users // 2
    third = len([n for n in range(users) if n % 10 == 3])
    assert summary.rows == {"users": users}
    assert summary.untyped_values == {"users": odd + 2 * third}
    rows = query(
        warehouse,
        "select user_id, badge_number, untyped_values, kiosk_code, created_at "
        "from connecteam.users",
    )
    # the listing's order: the sync asks for sort=created_at (ascending), ties by id
    listed = sorted(
        server.state.dataset.users.values(), key=lambda u: (u["createdAt"], u["userId"])
    )
    by_user = {row[0]: row[1:] for row in rows}
    by_position = {n: by_user[user["userId"]] for n, user in enumerate(listed)}
    assert by_position[0][0] == "B-0" and by_position[0][1] is None
    assert by_position[1][0] is None and orjson.loads(by_position[1][1]) == {"badgeNumber": 1}
    assert json.loads(by_position[3][1]) == {
        "badgeNumber": 3, "kioskCode": 10**30, "createdAt": 2**64
    }  # fmt: skip
    assert by_position[3][2] is None and by_position[3][3] is None

    # the next run sees the same types from the warehouse: an int badge first changes nothing
    def ints(path: str, body: dict[str, Any]) -> dict[str, Any]:
        for n, user in enumerate(vary(path, body)["data"]["users"]):
            user["badgeNumber"] = n
        return body

    server.app.rewrites = {re.compile("/users/v1/users"): ints}
    server.state.dataset.mutate(users=users)  # every user modified: all listed again
    again = run_sync(["users"], project=resolve())
    assert again.failed_streams == {} and again.rows == {"users": users}
    (strings,) = query(warehouse, "select count(badge_number) from connecteam.users")[0]
    assert strings == 0  # every badge is an int now: kept in untyped_values, the column stays text


def test_the_token_request_is_retried_on_dropped_connections_and_5xx(altered):
    server = altered()
    server.app.drops, server.app.unavailable = 1, 2
    client = ConnecteamClient(
        server.url, client_id="emulator-client", client_secret="emulator-secret",
        backoff_base=0.01,
    )  # fmt: skip
    with client:
        answer = client.get("/users/v1/users", {"limit": 5})
    assert len(answer["data"]["users"]) == 5
    assert server.app.token_requests == 4  # dropped, 503, 503, then the token
    assert client.stats.retries == 3
