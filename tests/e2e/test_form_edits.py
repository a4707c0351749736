"""Edited form submissions reach the warehouse: the API path (every run re-reads the last
``form_submissions_days_back`` days per form and loads what changed, as the provider's timestamps
do not show an edit) and the webhook path (``form_submission_edited``, delivered by the emulator
to the subscribed receiver and folded), with real parts: the emulator and the receiver as HTTP
servers, DuckDB, SQLite, dbt."""

from __future__ import annotations

import orjson
import pytest
from conftest import NOW, point_at, query
from test_operations import ops_server

from emulator.server import BackgroundServer
from pipelines import run_sync
from pipelines.fold import run_fold
from pipelines.models import build_models
from pipelines.subscriptions import apply, current, plan, receiver_url
from receiver import PATH, ReceiverConfig, create_app
from sources.configuration import resolve
from sources.connecteam.config import client_from_config
from sources.connecteam.webhook_settings import SUBSCRIPTION_SCOPES

TOKEN = "form-edits-token"


def answers_of(warehouse, table: str, submission_id: str) -> list[dict]:
    ((raw,),) = query(
        warehouse, f"select answers from {table} where form_submission_id = '{submission_id}'"
    )
    return orjson.loads(raw) if isinstance(raw, str) else raw


def test_an_edited_submission_is_loaded_again_by_the_next_sync(
    start_emulator, monkeypatch, warehouse
):
    server = ops_server(start_emulator, form_submissions=40)
    point_at(monkeypatch, server)
    first = run_sync(("forms", "form_submissions"), project=resolve())
    assert first.rows["form_submissions"] == 40
    changed = server.control("mutate", {"edit_submissions": 1})
    ((_form_id, submission_id),) = changed["edited_submissions"]
    second = run_sync(("forms", "form_submissions"), project=resolve())
    assert second.rows["form_submissions"] == 1  # the edited one, nothing else
    values = [a.get("value") for a in answers_of(warehouse, "connecteam.form_submissions",
                                                 submission_id)]  # fmt: skip
    assert f"edited at {changed['at']}" in values
    assert run_sync(("forms", "form_submissions"), project=resolve()).rows["form_submissions"] == 0


def test_an_edit_older_than_the_re_read_span_is_not_seen_by_the_sync(
    start_emulator, monkeypatch, warehouse
):
    """With no re-read span the sync cannot see an edit: the webhook path is what carries it."""
    monkeypatch.setenv("SOURCES__CONNECTEAM__FORM_SUBMISSIONS_DAYS_BACK", "0")
    server = ops_server(start_emulator, form_submissions=40)
    point_at(monkeypatch, server)
    run_sync(("forms", "form_submissions"), project=resolve())
    changed = server.control("mutate", {"edit_submissions": 3})
    assert len(changed["edited_submissions"]) == 3
    # only the newest, at the cursor instant, is read again
    assert run_sync(("forms", "form_submissions"), project=resolve()).rows["form_submissions"] == 1


@pytest.mark.slow
def test_an_edit_delivered_by_webhook_is_in_fct_form_submissions_after_the_fold(
    start_emulator, monkeypatch, warehouse, tmp_path
):
    monkeypatch.setenv("SOURCES__CONNECTEAM__FORM_SUBMISSIONS_DAYS_BACK", "0")
    server = ops_server(start_emulator, form_submissions=40)
    point_at(monkeypatch, server)
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", inbox_url)
    run_sync(("users", "forms", "form_submissions"), project=resolve())
    receiver = create_app(ReceiverConfig(token=TOKEN, inbox_url=inbox_url))
    with BackgroundServer(receiver) as hooks:
        url = receiver_url(hooks.url + PATH, TOKEN)
        with client_from_config(resolve().source.arguments(), SUBSCRIPTION_SCOPES) as client:
            wanted, registered = current(client, ["forms"], 1)
            apply(client, plan(wanted, registered, url), url, None)
        monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + 3600))  # edited an hour after the sync
        changed = server.control("mutate", {"edit_submissions": 2})
        assert server.state.deliverer.wait(60)
        assert server.state.deliverer.stats["delivered"] == 2
    run_fold(project=resolve(inbox_url=inbox_url))
    build_models(warehouse, select="+fct_form_submissions", project=resolve())
    # the selection only (dim_users among it): the relationship tests to dim_users from marts
    # not built were left out (dbt's cautious indirect selection), not failed on their tables
    built = query(warehouse, "select table_name from information_schema.tables "
                             "where table_schema = 'marts'")  # fmt: skip
    assert ("dim_users",) in built and ("fct_shifts",) not in built
    for _form_id, submission_id in changed["edited_submissions"]:
        values = [a.get("value") for a in answers_of(warehouse, "marts.fct_form_submissions",
                                                     submission_id)]  # fmt: skip
        assert f"edited at {changed['at']}" in values
        ((source,),) = query(
            warehouse, "select answers_source from marts.fct_form_submissions "
            f"where form_submission_id = '{submission_id}'",
        )  # fmt: skip
        assert source == "webhook"
