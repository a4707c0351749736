"""OAuth 2.0 scopes: the sync asks only for scopes the provider's spec defines, only for the
streams it syncs, and a refused scope is named with the stream that needs it. The emulator runs
as a real server; ``oauth_strict_scopes`` makes its token endpoint refuse unknown scopes and
scopes beyond the client's with RFC 6749 §5.2 ``invalid_scope``."""

from __future__ import annotations

import json

import httpx
import pytest
from conftest import WFM_SYNC, cli_env, query

from pipelines import run_sync
from sources.configuration import resolve
from sources.connecteam import ConnecteamAPIError, ConnecteamClient, OAuthScopeError
from sources.connecteam.registry import OAUTH_SCOPES, STREAMS, oauth_scopes

NARROW = {"narrow": {"secret": "s3cret-narrow-7c1", "scopes": ["users.read"]}}


def spec_scopes() -> set[str]:
    from emulator.spec_schemas import SPEC_PATH

    spec = json.loads(SPEC_PATH.read_text())
    return set(
        spec["components"]["securitySchemes"]["OAuth2"]["flows"]["clientCredentials"]["scopes"]
    )


def use_oauth(monkeypatch, server, client_id: str, secret: str) -> None:
    monkeypatch.setenv("SOURCES__CONNECTEAM__BASE_URL", server.url)
    monkeypatch.setenv("SOURCES__CONNECTEAM__CLIENT_ID", client_id)
    monkeypatch.setenv("SOURCES__CONNECTEAM__CLIENT_SECRET", secret)


def granted(server) -> list[set[str]]:
    """The scopes of every token the emulator issued, in no particular order."""
    return [scopes for scopes, _expires, _client in server.state.tokens.values()]


def chain(exc: BaseException | None):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def test_every_scope_asked_for_is_one_the_spec_defines():
    defined = spec_scopes()
    assert set(OAUTH_SCOPES) <= defined
    assert "documents.read" not in defined  # the scope the sync used to ask for
    for name, endpoint in STREAMS.items():
        assert endpoint.scope is None if not endpoint.in_spec else endpoint.scope in defined, name
    assert oauth_scopes(["users"]) == {"users.read": ["users"]}
    assert oauth_scopes(["user_documents"]) == {}
    assert oauth_scopes(["tasks", "task_boards", "users"]) == {
        "quick_tasks.read": ["task_boards", "tasks"], "users.read": ["users"]
    }  # fmt: skip
    with pytest.raises(ValueError, match="unknown stream 'user'"):
        oauth_scopes(["user"])


def test_strict_token_endpoint_refuses_unknown_and_ungranted_scopes(start_emulator):
    """The emulator's mode itself: RFC 6749 §5.2 answers, naming the refused scopes."""
    server = start_emulator(users=5, oauth_strict_scopes=True)
    token_url = server.url + "/oauth/v1/token"
    auth = ("emulator-client", "emulator-secret")
    unknown = httpx.post(
        token_url, auth=auth, data={"grant_type": "client_credentials", "scope": "documents.read"}
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"] == "invalid_scope"
    assert "documents.read" in unknown.json()["error_description"]
    beyond = httpx.post(
        token_url, auth=auth, data={"grant_type": "client_credentials", "scope": "chat.read"}
    )
    assert beyond.status_code == 400 and "chat.read" in beyond.json()["error_description"]
    fine = httpx.post(
        token_url, auth=auth, data={"grant_type": "client_credentials", "scope": "users.read"}
    )
    assert fine.status_code == 200 and fine.json()["scope"] == "users.read"


def test_oauth_sync_of_every_stream_succeeds_where_unknown_scopes_are_refused(
    start_emulator, warehouse, monkeypatch
):
    server = start_emulator(users=60, forms=2, schedulers=2, shifts=40, oauth_strict_scopes=True)
    use_oauth(monkeypatch, server, "emulator-client", "emulator-secret")
    summary = run_sync(tuple(STREAMS), project=resolve())
    assert summary.failed_streams == {}
    assert granted(server) == [set(OAUTH_SCOPES)]  # one token, the streams' scopes exactly
    assert summary.rows["users"] == 60 and summary.rows["shifts"] == 40
    documents = len(server.state.dataset.user_documents)
    assert summary.rows["user_documents"] == documents > 0  # no scope of its own: still read


def test_a_client_scoped_to_users_read_syncs_users(start_emulator, warehouse, monkeypatch):
    server = start_emulator(users=30, oauth_clients=NARROW, oauth_strict_scopes=True)
    use_oauth(monkeypatch, server, "narrow", NARROW["narrow"]["secret"])
    summary = run_sync(["users"], project=resolve())
    assert summary.rows == {"users": 30} and summary.failed_streams == {}
    assert granted(server) == [{"users.read"}]
    assert query(warehouse, "select count(*) from connecteam.users") == [(30,)]


def test_invalid_scope_names_the_scope_and_the_stream_needing_it(
    start_emulator, warehouse, monkeypatch
):
    server = start_emulator(users=10, forms=2, oauth_clients=NARROW, oauth_strict_scopes=True)
    secret = NARROW["narrow"]["secret"]
    use_oauth(monkeypatch, server, "narrow", secret)
    with pytest.raises(Exception) as caught:
        run_sync(["users", "forms", "form_submissions"], project=resolve())
    errors = list(chain(caught.value))
    refusal = next(e for e in errors if isinstance(e, OAuthScopeError))
    assert refusal.status == 400
    assert refusal.refused == {"forms.read": ["form_submissions", "forms"]}
    message = str(refusal)
    assert "invalid_scope" in message
    assert "scope forms.read (needed by stream form_submissions, forms)" in message
    assert "--streams" in message
    assert all(secret not in str(e) for e in errors)
    assert server.state.tokens == {}  # no token was issued


def test_the_specs_403_for_unauthorized_scopes_names_them_too(start_emulator):
    server = start_emulator(users=5, oauth_clients=NARROW)  # not strict: the spec's 403
    secret = NARROW["narrow"]["secret"]
    needs = {"users.read": ["users"], "schedule.read": ["schedulers", "shifts"]}
    client = ConnecteamClient(server.url, client_id="narrow", client_secret=secret, scopes=needs)
    with client, pytest.raises(OAuthScopeError) as caught:
        client.get(STREAMS["users"].path)
    assert caught.value.status == 403
    assert caught.value.refused == {"schedule.read": ["schedulers", "shifts"]}
    assert "needed by stream schedulers, shifts" in str(caught.value)


def test_a_token_without_an_endpoints_scope_is_refused_naming_the_scope(start_emulator):
    server = start_emulator(users=5, forms=1, oauth_clients=NARROW)
    secret = NARROW["narrow"]["secret"]
    with ConnecteamClient(
        server.url, client_id="narrow", client_secret=secret, scopes="users.read"
    ) as client:
        assert client.get(STREAMS["users"].path, {"limit": 1})["data"]["users"]
        with pytest.raises(ConnecteamAPIError) as caught:
            client.get("/forms/v1/forms")
    assert caught.value.status == 403
    assert "the access token lacks the scope forms.read" in str(caught.value)


def test_user_documents_alone_asks_for_no_scope(start_emulator, warehouse, monkeypatch):
    """No spec scope covers the beta listing: the token request carries no ``scope`` and the
    provider grants its default for the app."""
    server = start_emulator(users=40, oauth_strict_scopes=True)
    use_oauth(monkeypatch, server, "emulator-client", "emulator-secret")
    summary = run_sync(["user_documents"], project=resolve())
    assert summary.rows["user_documents"] == len(server.state.dataset.user_documents) > 0
    configured = set(server.state.options.oauth_clients["emulator-client"]["scopes"])
    assert granted(server) == [configured]


@pytest.mark.slow  # two CLI runs, each starting Prefect's temporary API
def test_cli_sync_of_users_with_a_users_read_client(start_emulator, tmp_path):
    import subprocess

    server = start_emulator(users=25, forms=2, oauth_clients=NARROW, oauth_strict_scopes=True)
    warehouse = tmp_path / "cli" / "warehouse.duckdb"
    env = cli_env(server, warehouse)
    del env["SOURCES__CONNECTEAM__API_KEY"]
    env.update(SOURCES__CONNECTEAM__CLIENT_ID="narrow",
               SOURCES__CONNECTEAM__CLIENT_SECRET=NARROW["narrow"]["secret"])  # fmt: skip

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*WFM_SYNC, *args], env=env, capture_output=True, text=True,
                              timeout=240)  # fmt: skip

    ok = cli("sync", "--streams", "users", "--steps", "sync")
    assert ok.returncode == 0, ok.stderr[-3000:]
    assert query(warehouse, "select count(*) from connecteam.users") == [(25,)]
    refused = cli("sync", "--streams", "users,forms", "--steps", "sync")
    assert refused.returncode != 0
    output = refused.stdout + refused.stderr
    assert "invalid_scope" in output
    assert "scope forms.read (needed by stream forms)" in " ".join(output.split())
    assert NARROW["narrow"]["secret"] not in output
