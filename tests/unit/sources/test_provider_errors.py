"""The Connecteam client's error vocabulary (``sources.connecteam.errors``) and the provider's
outage clock (``sources.connecteam.transient``): which HTTP statuses may heal, the messages and
``transient`` flags of the errors, the spec's 422 ``HTTPValidationError`` read field by field
(malformed bodies give ``None``, never a crash), what a failed connect most likely means, and the
outage clock driven by explicit times. ``is_transient`` itself is covered by
``tests/unit/flows/test_nightly_retries.py``. Exceptions are built in memory: the test starts
nothing (no server, no socket)."""

from __future__ import annotations

import json

import httpx

from sources.connecteam.errors import (
    ConnecteamAPIError,
    ParentNotFoundError,
    ProviderUnavailableError,
    find_connecteam_error,
    likely_cause,
    status_hint,
    validation_detail,
)
from sources.connecteam.transient import Outage, is_transient_status


def test_which_statuses_may_heal() -> None:
    """429, every 5xx and no answer at all may heal; every other status cannot."""
    table = {None: True, 429: True, 500: True, 501: True, 504: True, 599: True,
             200: False, 400: False, 401: False, 404: False, 408: False, 422: False}  # fmt: skip
    assert {status: is_transient_status(status) for status in table} == table
    flags = {status: ConnecteamAPIError("/users/v1/users", status, "x").transient
             for status in table}  # fmt: skip
    assert flags == table


def test_an_api_error_names_method_endpoint_status_and_hint() -> None:
    exc = ConnecteamAPIError("/users/v1/users", 404, "gone", status_hint(404))
    assert str(exc) == (
        "GET /users/v1/users answered HTTP 404: gone (check SOURCES__CONNECTEAM__BASE_URL)"
    )
    assert str(ConnecteamAPIError("/x", None, "ReadTimeout", method="POST")) == (
        "POST /x failed: ReadTimeout"
    )
    assert status_hint(418) == ""
    gone = ParentNotFoundError(
        "/scheduler/v1/schedulers/{schedulerId}/shifts", "nope", "schedulerId 9001"
    )
    assert (gone.status, gone.parent, gone.transient) == (404, "schedulerId 9001", False)
    assert str(gone).endswith("(schedulerId 9001 no longer exists at the provider)")


def test_a_provider_down_past_its_outage_budget_is_never_retried() -> None:
    down = ProviderUnavailableError("/users/v1/users", 503, 699.6, "GET")
    assert down.transient is False and down.status == 503 and down.lasted == 699.6
    assert "nothing for 700 s (last: HTTP 503)" in str(down)
    silent = ProviderUnavailableError("/users/v1/users", None, 601.0, "GET")
    assert silent.transient is False and "(last: no answer)" in str(silent)


def test_the_connecteam_error_is_found_behind_wrappers_and_cycles() -> None:
    inner = ConnecteamAPIError("/x", 500, "boom")
    outer = RuntimeError("Pipeline execution failed")
    outer.__cause__ = inner
    assert find_connecteam_error(outer) is inner
    a, b = ValueError("a"), ValueError("b")
    a.__context__, b.__context__ = b, a
    assert find_connecteam_error(a) is None
    assert find_connecteam_error(None) is None


def validation(*items: object) -> bytes:
    return json.dumps({"detail": list(items)}).encode()


def test_a_422_body_is_read_field_by_field_and_any_other_body_gives_none() -> None:
    body = validation(
        {"loc": ["body", "fileId"], "msg": "field required", "type": "value_error.missing"},
        {"loc": ["path", "userId", 0], "type": "type_error.integer"},
        {"loc": [], "msg": None},
    )
    assert validation_detail(body) == (
        "body.fileId: field required; path.userId.0: type_error.integer; (request): invalid"
    )
    # any other body gives no field detail
    others = [
        b"<html>Bad Gateway</html>",
        b"",
        b'["detail"]',
        b'{"detail": "Not Found"}',
        b'{"detail": []}',
        b'{"detail": ["not an object"]}',
        b'{"detail": [{"loc": "body.fileId", "msg": "loc is not a list"}]}',
        b'{"message": "no detail at all"}',
    ]
    assert {body: validation_detail(body) for body in others} == dict.fromkeys(others)


def test_a_body_nested_too_deep_gives_no_field_detail_instead_of_raising() -> None:
    """Any body that is not an ``HTTPValidationError`` gives ``None`` (the docstring): the
    client's error path (``ConnecteamClient.detail``) must not raise on what a proxy sends."""
    assert validation_detail(b"[" * 100_000) is None


def test_a_long_422_body_is_cut_to_twenty_fields_of_two_hundred_characters() -> None:
    items = [{"loc": ["query", f"f{i}"], "msg": "m" * 300} for i in range(22)]
    detail = validation_detail(validation(*items))
    assert detail is not None
    fields = detail.split("; ")
    assert len(fields) == 21 and fields[-1] == "and 2 more"
    assert fields[0] == "query.f0: " + "m" * 200 and fields[19].startswith("query.f19: ")
    exactly = validation_detail(validation(*items[:20]))
    assert exactly is not None
    assert len(exactly.split("; ")) == 20 and "more" not in exactly


def test_a_failed_connect_is_explained() -> None:
    table: list[tuple[BaseException, str]] = [
        (httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"),
         "the TLS handshake failed"),
        (httpx.ConnectError("[Errno -2] Name or service not known"), "does not resolve"),
        (httpx.ConnectError("[Errno -3] Temporary failure in name resolution"),
         "does not resolve"),
        (httpx.ConnectError("[Errno 111] Connection refused"), "nothing listens there"),
        (httpx.ConnectTimeout(""), "the connection timed out"),
        (OSError("host down"), "OSError (check the URL and the network)"),
    ]  # fmt: skip
    explained = [(str(exc), likely_cause(exc)) for exc, _ in table]
    assert [cause for (_, cause), (_, why) in zip(table, explained, strict=True)
            if cause not in why] == []  # fmt: skip


def test_the_outage_clock_runs_from_the_first_failure_until_an_answer_or_a_gap() -> None:
    clock = Outage(gap=120.0)
    url = "https://api.example"
    assert clock.lasted(url, at=100.0) == 0.0  # no outage yet
    assert clock.failed(url, at=100.0) == 0.0
    assert clock.failed(url, at=160.0) == 60.0
    assert clock.failed(url, at=280.0) == 180.0  # 120 s after the previous failure: same run
    assert clock.lasted(url, at=300.0) == 200.0
    assert clock.lasted("https://other.example", at=300.0) == 0.0  # per base URL
    clock.answered(url)
    assert clock.lasted(url, at=300.0) == 0.0
    assert clock.failed(url, at=310.0) == 0.0  # a new run after an answer
    # a failure more than ``gap`` seconds after the previous one starts a new run
    clock = Outage(gap=120.0)
    url = "https://api.example"
    clock.failed(url, at=1_000.0)
    clock.failed(url, at=1_100.0)
    assert clock.lasted(url, at=1_220.0) == 220.0  # 120 s since the last failure: still on
    assert clock.lasted(url, at=1_220.5) == 0.0  # past the gap: over
    assert clock.failed(url, at=1_500.0) == 0.0  # a later sync is not held to the old one
    clock.answered("https://never-failed.example")  # nothing to clear: no error
