"""Change detection by digest (``sources.connecteam.loaded.only_changed``): a slot per key, short
in the state however long the provider's key text is, and a state written before slots still
read right. Runs a dlt pipeline in-process into a DuckDB file of the test's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dlt
import pytest

from sources.connecteam.listing import content_hash
from sources.connecteam.loaded import DIGEST_SLOT_MAX, digest_slot, forget_digests, only_changed

LONG = "1000:2026-09-16:" + "ú\U000a07d8 long pay rate type " * 12


def test_a_short_key_is_its_own_slot_and_a_long_one_a_short_digest():
    assert digest_slot("1000:2026-09-16:default") == "1000:2026-09-16:default"
    slot = digest_slot(LONG)
    assert slot.startswith("#") and len(slot) == 25 <= DIGEST_SLOT_MAX
    assert digest_slot(LONG) == slot and digest_slot(LONG + "x") != slot
    assert digest_slot("\ud800" * 50).startswith("#")  # a lone surrogate from JSON is kept too


def run(pipeline: Any, records: list[dict[str, Any]], gone: set[str] = frozenset()) -> list:
    """One extract of a resource passing ``records`` through :func:`only_changed` (after
    forgetting ``gone``); the records it let through."""
    passed: list[dict[str, Any]] = []

    @dlt.resource(name="rates", primary_key="key", write_disposition="merge")
    def rates() -> Any:
        forget_digests(set(gone))
        changed = only_changed(records, "key")
        passed.extend(changed)
        yield changed

    pipeline.run(rates())
    return passed


@pytest.fixture
def pipeline(tmp_path: Path) -> Any:
    return dlt.pipeline(
        pipeline_name="digests", pipelines_dir=str(tmp_path / "pipelines"),
        destination=dlt.destinations.duckdb(str(tmp_path / "warehouse.duckdb")),
        dataset_name="raw",
    )  # fmt: skip


def digests(pipeline: Any) -> dict[str, str]:
    return pipeline.state["sources"]["digests"]["resources"]["rates"]["digests"]


def test_only_changed_records_pass_and_the_state_keeps_no_long_key(pipeline):
    records = [{"key": LONG, "rate": 10}, {"key": "short", "rate": 5}]
    assert run(pipeline, records) == records
    assert run(pipeline, records) == []
    assert set(digests(pipeline)) == {digest_slot(LONG), "short"}
    changed = [{"key": LONG, "rate": 11}, {"key": "short", "rate": 5}]
    assert run(pipeline, changed) == [changed[0]]
    # a record that vanished and comes back loads again, live
    assert run(pipeline, changed, gone={LONG}) == [changed[0]]


def test_a_state_written_before_slots_loads_each_long_key_once_then_keeps_only_its_slot(pipeline):
    records = [{"key": LONG, "rate": 10}]

    @dlt.resource(name="rates", primary_key="key", write_disposition="merge")
    def earlier() -> Any:  # the layout of earlier versions: the key itself, however long
        dlt.current.resource_state()["digests"] = {LONG: content_hash(records[0])}
        yield records

    pipeline.run(earlier())
    assert set(digests(pipeline)) == {LONG}
    assert run(pipeline, records) == records
    assert set(digests(pipeline)) == {digest_slot(LONG)}
    assert run(pipeline, records) == []
