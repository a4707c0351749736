"""Which failures of a sync step the flow retries (``flows.nightly.is_transient``): what may heal
(the provider's 429 and 5xx, an answer that never came, a dropped connection, a warehouse locked
for a moment), never what cannot (a data error, refused credentials or parameters, a setting)."""

from __future__ import annotations

import httpx
import pytest

from flows.nightly import is_transient
from sources.connecteam import ConnecteamAPIError, ConnecteamConfigError


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
    ],
)
def test_only_what_may_heal_is_retried(inner: BaseException, retried: bool) -> None:
    assert is_transient(wrapped(inner)) is retried
