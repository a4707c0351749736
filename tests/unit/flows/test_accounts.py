"""Several accounts side by side (:mod:`flows.accounts`): each in its own thread at once, a
failure kept to its account, messages naming the account's own settings."""

from __future__ import annotations

import threading

import pytest

from flows.accounts import failure_text, labelled, own_settings, side_by_side
from pipelines.sync import SyncSummary


def test_accounts_run_at_once_and_a_failure_stays_with_its_account() -> None:
    together = threading.Barrier(3, timeout=10)

    def work(account: str) -> str:
        together.wait()  # all three started before any finished
        if account == "south":
            raise ConnectionError("south is down")
        return account.upper()

    outcomes = side_by_side(("north", "south", "east"), work)
    assert list(outcomes) == ["north", "south", "east"]
    assert outcomes["north"] == "NORTH" and outcomes["east"] == "EAST"
    assert isinstance(outcomes["south"], ConnectionError)


def test_an_interrupt_stops_every_account() -> None:
    def work(account: str) -> str:
        if account == "south":
            raise KeyboardInterrupt
        return account

    with pytest.raises(KeyboardInterrupt):
        side_by_side(("north", "south"), work)


def test_a_named_account_s_failure_names_its_own_settings() -> None:
    text = (
        "cannot connect (SOURCES__CONNECTEAM__BASE_URL=http://x); check "
        "SOURCES__CONNECTEAM__API_KEY"
    )
    assert own_settings(text, "default") == text
    assert own_settings(text, "south") == (
        "cannot connect (SOURCES__CONNECTEAM__ACCOUNTS__SOUTH__BASE_URL=http://x); check "
        "SOURCES__CONNECTEAM__ACCOUNTS__SOUTH__API_KEY"
    )
    assert own_settings("raise SOURCES__CONNECTEAM__MAX_PAGES", "south") == (
        "raise SOURCES__CONNECTEAM__MAX_PAGES"  # a shared setting keeps its name
    )
    assert failure_text(ValueError("bad SOURCES__CONNECTEAM__CLIENT_ID\nmore"), "north") == (
        "ValueError: bad SOURCES__CONNECTEAM__ACCOUNTS__NORTH__CLIENT_ID"
    )


def test_merged_summaries_keep_each_account_s_failed_streams_apart() -> None:
    north = SyncSummary(rows={"users": 3}, failed_streams={"shifts": "HTTP 500"})
    south = SyncSummary(rows={"users": 2}, failed_streams={"shifts": "HTTP 404"})
    merged = labelled(north, "north").merge(labelled(south, "south"))
    assert merged.rows == {"users": 5}
    assert merged.failed_streams == {"north: shifts": "HTTP 500", "south: shifts": "HTTP 404"}
