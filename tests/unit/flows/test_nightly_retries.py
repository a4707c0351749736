"""Which failures the jobs' steps retry (``sources.connecteam.transient.is_transient``, the one
answer the sync's and the fold's steps and the client share): what may heal (the provider's 429
and 5xx, an answer that never came, a dropped connection, a warehouse or inbox locked or
unreachable for a moment), never what cannot (a data error, refused credentials or parameters, a
setting, a provider down past the outage budget)."""

from __future__ import annotations

import httpx
import pytest
from dlt.common.configuration.exceptions import ConfigurationValueError

from flows import fold, nightly
from inbox.url import InboxURLError
from inbox.writes import InboxRaceError
from pipelines.warehouse import WarehouseConfigError
from pipelines.writer_lock import WarehouseUnreachableError
from sources.connecteam import (
    ConnecteamAPIError,
    ConnecteamConfigError,
    ProviderUnavailableError,
    RateLimitExhaustedError,
)
from sources.connecteam.transient import is_transient


def wrapped(inner: BaseException) -> BaseException:
    """``inner`` as the cause of a step failure, as dlt raises it."""
    try:
        try:
            raise inner
        except BaseException as exc:
            raise RuntimeError("Pipeline execution failed at stage extract") from exc
    except RuntimeError as outer:
        return outer


class OperationalError(Exception):
    """Named like psycopg2's and SQLAlchemy's: the database was unreachable."""


@pytest.mark.parametrize(
    ("inner", "retried"),
    [
        (ConnecteamAPIError("/users/v1/users", 503, "busy"), True),
        (ConnecteamAPIError("/users/v1/users", 429, "slow down"), True),
        (ConnecteamAPIError("/users/v1/users", None, "no answer"), True),
        (httpx.ReadTimeout("read timed out"), True),
        (ConnectionResetError("reset by peer"), True),
        (OperationalError("could not connect"), True),
        # data errors: the same values fail the same way again
        (ValueError("Column 'user_id' is declared non-nullable but contains nulls"), False),
        (TypeError("'NoneType' object is not subscriptable"), False),
        (KeyError("userId"), False),
        (ConnecteamAPIError("/users/v1/users", 200, "not the documented envelope"), False),
        (ConnecteamAPIError("/users/v1/users", 422, "isPublished: not a boolean"), False),
        (ConnecteamAPIError("/users/v1/users", 404, "<!DOCTYPE html>"), False),
        (ConnecteamConfigError("No Connecteam credentials"), False),
        (RateLimitExhaustedError("spent for 3600 s"), False),
        (ProviderUnavailableError("/users/v1/users", 503, 700.0, "GET"), False),
        (WarehouseConfigError("no credentials"), False),
        (InboxURLError("not an SQLAlchemy URL"), False),
        (ConfigurationValueError("max_in_flight: not an integer"), False),
        (WarehouseUnreachableError("connection refused"), True),
        (InboxRaceError("keys taken"), True),
    ],
)
def test_only_what_may_heal_is_retried(inner: BaseException, retried: bool) -> None:
    assert is_transient(wrapped(inner)) is retried


def test_a_permanent_cause_wins_over_a_transient_one() -> None:
    """A setting behind a dropped connection is still a setting: retrying cannot fix it."""
    try:
        try:
            raise ConnectionResetError("reset")
        except ConnectionResetError as exc:
            raise WarehouseConfigError("no credentials") from exc
    except WarehouseConfigError as outer:
        assert is_transient(wrapped(outer)) is False


def test_every_step_asks_the_one_answer() -> None:
    assert nightly.sync_streams.retry_if is is_transient
    assert fold.fold_inbox.retry_if is is_transient
