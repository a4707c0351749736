"""What every stream owes the warehouse when an answer is not what the spec declares
(``sources.connecteam.contract``): why an item is malformed (not an object; a key field missing,
``null``, of another type than the spec declares, past 64 bits), the check of a listing's items
page by page (repeated keys included), the quarantine that keeps them once each, and which
streams may then mark nothing deleted. Items are tiny literal dicts against the registry's own
streams; the test starts nothing (no client, no server)."""

from __future__ import annotations

import dataclasses
import json
import logging

import pytest

from sources.connecteam.contract import (
    QUARANTINE_COLUMNS,
    ItemCheck,
    Quarantine,
    QuarantinedItem,
    deletions_allowed,
    malformed,
)
from sources.connecteam.registry import STREAMS

USERS = STREAMS["users"].item_keys  # (("userId", int),): the spec's required integer
SHIFTS = STREAMS["shifts"].item_keys  # (("id", str),)
PAY_RATES = STREAMS["pay_rates"].item_keys  # userId:int, payRate.effectiveDate:str


def test_why_an_item_is_malformed() -> None:
    keys = {name: STREAMS[name].item_keys for name in ("users", "shifts", "pay_rates")}
    assert keys == {  # the spec's declared key fields these cases rely on
        "users": (("userId", int),),
        "shifts": (("id", str),),
        "pay_rates": (("userId", int), ("payRate.effectiveDate", str)),
    }
    table: list[tuple[object, tuple[tuple[str, type], ...], str | None]] = [
        ({"userId": 5, "extra": None}, USERS, None),
        ({"userId": 2**63 - 1}, USERS, None),  # the 64-bit range's ends are in it
        ({"userId": -(2**63)}, USERS, None),
        ([{"userId": 5}], USERS, "the item is a list where the spec declares an object"),
        (None, USERS, "the item is null where the spec declares an object"),
        ("5", USERS, "the item is a string where the spec declares an object"),
        ({}, USERS, "the item has no userId"),
        ({"userId": None}, USERS, "userId is null"),
        ({"userId": "5"}, USERS, "userId is a string where the spec declares an integer"),
        ({"userId": True}, USERS, "userId is a boolean where the spec declares an integer"),
        ({"userId": 5.0}, USERS, "userId is a number where the spec declares an integer"),
        ({"userId": 2**63}, USERS, "userId is an integer past the 64-bit range"),
        ({"userId": -(2**63) - 1}, USERS, "userId is an integer past the 64-bit range"),
        ({"id": "s1"}, SHIFTS, None),
        ({"id": ""}, SHIFTS, None),  # an empty string is still a string
        ({"id": 7}, SHIFTS, "id is an integer where the spec declares a string"),
        ({"id": {"x": 1}}, SHIFTS, "id is an object where the spec declares a string"),
        ({"userId": 1, "payRate": {"effectiveDate": "2024-01-01"}}, PAY_RATES, None),
        ({"userId": 1, "payRate": "2024-01-01"}, PAY_RATES,
         "the item has no payRate.effectiveDate"),
        ({"userId": 1, "payRate": {}}, PAY_RATES, "the item has no payRate.effectiveDate"),
        ({"payRate": {"effectiveDate": None}}, PAY_RATES, "the item has no userId"),
    ]  # fmt: skip
    wrong = [(item, malformed(item, keys), why) for item, keys, why in table
             if malformed(item, keys) != why]  # fmt: skip
    assert wrong == []


def test_a_page_keeps_its_good_items_in_order_and_quarantines_the_rest() -> None:
    quarantine = Quarantine()
    check = ItemCheck(STREAMS["users"], "/users/v1/users", quarantine)
    first = check([{"userId": 1, "n": "a"}, {"userId": None}, {"userId": 2}, "junk"])
    second = check([{"userId": 1, "n": "again"}, {"userId": 3}])  # key 1 listed on page one
    assert first == [{"userId": 1, "n": "a"}, {"userId": 2}]
    assert second == [{"userId": 3}]
    kept = quarantine.items()
    assert [item.reason for item in kept] == [
        "userId is null",
        "the item is a string where the spec declares an object",
        "userId 1 repeated in the listing (the first item with it was loaded)",
    ]
    assert [json.loads(item.item) for item in kept] == [{"userId": None}, "junk",
                                                       {"userId": 1, "n": "again"}]  # fmt: skip
    assert {(i.stream, i.endpoint, i.path) for i in kept} == {
        ("users", "/users/v1/users", "/users/v1/users")
    }
    assert quarantine.counts() == {"users": 3}
    assert check([]) == []


def test_a_repeated_composite_key_names_each_field() -> None:
    quarantine = Quarantine()
    check = ItemCheck(STREAMS["pay_rates"], "/pay-rates/v1/pay-rates", quarantine)
    rate = {"userId": 7, "payRate": {"effectiveDate": "2024-01-01", "rate": 10}}
    other_day = {"userId": 7, "payRate": {"effectiveDate": "2024-02-01"}}
    assert check([rate, other_day, {**rate, "payRate": {"effectiveDate": "2024-01-01"}}]) == [
        rate, other_day,
    ]  # fmt: skip
    assert [i.reason for i in quarantine.items()] == [
        "userId 7, payRate.effectiveDate '2024-01-01' repeated in the listing "
        "(the first item with it was loaded)"
    ]


def test_an_item_quarantined_twice_is_one_row_and_a_row_has_the_tables_columns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    quarantine = Quarantine()
    item = QuarantinedItem("users", "/users/v1/users", "/users/v1/users", "userId is null",
                           '{"userId":null,"secret":"s3cr3t"}')  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="sources.connecteam"):
        quarantine.add(item)
        quarantine.add(dataclasses.replace(item))  # an equal item, another object
    assert quarantine.items() == [item] and len(caplog.records) == 1
    assert "s3cr3t" not in caplog.text  # the log names the reason, never the values
    elsewhere = QuarantinedItem("users", "/users/v1/users", "/other", "userId is null", item.item)
    assert elsewhere.key != item.key  # the path is part of the key
    row = item.row(seen_at=1_700_000_000)
    assert set(row) == set(QUARANTINE_COLUMNS)
    assert (row["quarantine_key"], row["seen_at"]) == (item.key, 1_700_000_000)


def test_discarded_streams_forget_their_items() -> None:
    quarantine = Quarantine()
    for stream in ("users", "forms", "users"):
        quarantine.add(QuarantinedItem(stream, "/e", f"/p/{len(quarantine.items())}", "r", "{}"))
    assert quarantine.counts() == {"users": 2, "forms": 1}
    quarantine.discard({"users", "not_a_stream"})
    assert quarantine.counts() == {"forms": 1}


def test_a_quarantine_blocks_deletions_of_its_stream_and_every_stream_below_it() -> None:
    """``shift_layer_values`` is listed below ``shift_layers``, itself below ``schedulers``."""
    quarantine = Quarantine()
    assert not quarantine.blocks_deletions("shifts")
    quarantine.add(QuarantinedItem("schedulers", "/s", "/s", "schedulerId is null", "{}"))
    names = (
        "schedulers",
        "shifts",
        "shift_layers",
        "shift_layer_values",
        "users",
        "time_activities",
    )
    blocked = {name for name in names if quarantine.blocks_deletions(name)}
    assert blocked == {"schedulers", "shifts", "shift_layers", "shift_layer_values"}
    assert not quarantine.blocks_deletions("not_a_stream")


def test_deletions_keep_the_listings_consistency_unless_a_quarantine_blocks_them() -> None:
    clean = Quarantine()
    assert [deletions_allowed(clean, "users", c) for c in (True, None, False)] == [
        True, None, False,
    ]  # fmt: skip
    dirty = Quarantine()
    dirty.add(QuarantinedItem("forms", "/f", "/f", "formId is null", "{}"))
    assert [deletions_allowed(dirty, "form_submissions", c) for c in (True, None, False)] == [
        False, False, False,
    ]  # fmt: skip
    assert deletions_allowed(dirty, "users", True) is True
