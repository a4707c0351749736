"""Document entry ids: what the bulk and ``documents put-entry`` accept before anything is sent
(``userId`` an integer >= 1, ``documentId`` an integer, from text or numbers)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("user_id", "document_id", "message"),
    [
        (0, 7001, "userId must be an integer >= 1"),
        (-3, 7001, "userId must be an integer >= 1"),
        ("12a", 7001, "userId must be an integer >= 1"),
        (1.5, 7001, "userId must be an integer >= 1"),
        (True, 7001, "userId must be an integer >= 1"),
        (1001, "7001.5", "documentId must be an integer"),
        (1001, None, "documentId must be an integer"),
    ],
)
def test_invalid_ids_are_refused_before_anything_is_sent(user_id, document_id, message):
    from sources.connecteam.documents import validate_ids

    with pytest.raises(ValueError, match=message):
        validate_ids(user_id, document_id)


@given(st.integers(min_value=1, max_value=2**70), st.integers(min_value=-(2**70), max_value=2**70))
def test_ids_read_the_same_from_text_and_numbers(user_id, document_id):
    from sources.connecteam.documents import validate_ids

    assert validate_ids(f" {user_id} ", str(document_id)) == (user_id, document_id)
    assert validate_ids(user_id, document_id) == (user_id, document_id)


@given(st.integers(max_value=0) | st.text().filter(lambda t: not t.strip().lstrip("+").isdigit()))
def test_a_user_id_below_1_or_not_an_integer_is_refused(user_id):
    from sources.connecteam.documents import validate_ids

    with pytest.raises(ValueError, match="userId must be an integer >= 1"):
        validate_ids(user_id, 7001)


def test_valid_ids_convert_from_text_and_integral_numbers():
    from decimal import Decimal

    from sources.connecteam.documents import validate_ids

    assert validate_ids(" 1001 ", "7001") == (1001, 7001)
    assert validate_ids(1001.0, Decimal("7001")) == (1001, 7001)
    assert validate_ids(1, -5) == (1, -5)  # the interface sets no minimum on documentId
