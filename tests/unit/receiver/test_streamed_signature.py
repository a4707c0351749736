"""The streamed signature check (``receiver.signature.StreamedSignature``) gives the verdict the
``standardwebhooks`` package gives on the same headers, whatever the order and shape of the
presented entries; no server."""

from __future__ import annotations

import itertools
import time

import pytest

from emulator.webhook_sender import signature_headers
from receiver.signature import StreamedSignature, key_bytes, signature_problem, verifier

SECRET = "whsec_" + "c2VjcmV0LWtleS1mb3ItdGVzdHM="
OTHER = "another plain-text secret"
BODY = b'{"eventType": "clock_in", "requestId": "r-1"}'

ENTRIES = {
    "good": None,  # filled in per test: the body's v1 signature under SECRET
    "other": None,  # its v1 signature under OTHER
    "bare v1": "v1",
    "empty v1": "v1,",
    "three parts": "v1,abc,def",
    "not base64": "v1,abc",
    "v2": "v2,c2lnbmF0dXJl",
}


def _headers(entries: tuple[str, ...]) -> dict[str, str]:
    stamp = int(time.time())
    good = signature_headers(SECRET, "msg-1", stamp, BODY)
    other = signature_headers(OTHER, "msg-1", stamp, BODY)["webhook-signature"]
    known = {**ENTRIES, "good": good["webhook-signature"], "other": other}
    return {**good, "webhook-signature": " ".join(str(known[name]) for name in entries)}


def _streamed(headers: dict[str, str], secrets: tuple[str, ...]) -> int | None:
    streamed = StreamedSignature([key_bytes(secret) for secret in secrets], headers)
    for start in range(0, len(BODY), 7):
        streamed.update(BODY[start : start + 7])
    return streamed.matching_key()


@pytest.mark.parametrize(
    "entries",
    [order for n in (1, 2, 3) for order in itertools.permutations(ENTRIES, n)],
    ids="+".join,
)
def test_streamed_verdict_is_the_package_verdict(entries: tuple[str, ...]) -> None:
    headers = _headers(entries)
    for secret in (SECRET, OTHER):
        package_accepts = signature_problem(verifier(secret), headers, BODY) is None
        assert (_streamed(headers, (secret,)) == 0) is package_accepts, (secret, entries)


def test_a_good_entry_before_a_malformed_one_verifies_and_after_it_does_not() -> None:
    good_then_malformed = _headers(("good", "bare v1"))
    assert signature_problem(verifier(SECRET), good_then_malformed, BODY) is None
    assert _streamed(good_then_malformed, (SECRET,)) == 0

    malformed_then_good = _headers(("bare v1", "good"))
    assert signature_problem(verifier(SECRET), malformed_then_good, BODY) is not None
    assert _streamed(malformed_then_good, (SECRET,)) is None


def test_the_first_key_that_signed_is_named() -> None:
    both = _headers(("other", "good"))
    assert _streamed(both, (SECRET, OTHER)) == 0
    assert _streamed(both, (OTHER, SECRET)) == 0
    assert _streamed(_headers(("other",)), (SECRET, OTHER)) == 1
    assert _streamed(_headers(("v2", "empty v1")), (SECRET, OTHER)) is None
