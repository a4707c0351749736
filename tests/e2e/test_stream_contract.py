"""The stream contract, for every stream of the registry at once: what the sync owes the
warehouse when the provider's answer is not what the spec declares.

Each stream's answers are generated from the spec's own response schema (:mod:`stream_answers`,
hypothesis-jsonschema), then made hostile, one variant at a time, for every stream in the same
run: an item that is ``null``, a scalar or an empty object, a missing or ``null`` key, a key
repeated within a page and across pages, a key of another type or past 2^63, a non-key integer
sent as a string or past 2^63, an unknown enum value; an answer whose ``data`` is missing, HTML
with status 200, truncated JSON. The sync's extract and load run in-process against
``httpx.MockTransport`` (one run per variant, shared by the stream's cases), into a DuckDB file.

The contract (:mod:`sources.connecteam.contract`): every well-formed item loads once, each
malformed one is kept whole in ``connecteam.quarantine`` and counted in the run's summary, no
exception escapes outside the project's error classes, and an answer that cannot be read at all
fails that stream with one line naming the endpoint and the reason. A new stream in the registry
is covered the day it is declared.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import NOW, account_project, profile_examples, query
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from support.shared import once_per_run
from support.stream_answers import Answers, enum_fields, integer_fields, item_strategy

from sources.connecteam import answers
from sources.connecteam.contract import key_value, malformed
from sources.connecteam.registry import STREAMS, Stream

BASE_URL = "http://127.0.0.1:9"
"""Never dialled: every request goes to the in-process transport."""
NAMES = list(STREAMS)


def keyed(stream: Stream, item: dict[str, Any], n: int) -> dict[str, Any]:
    """``item`` with its top-level key field(s) set to the ``n``-th value of their declared type
    (a key inside a field, ``payRate.effectiveDate``, stays as drawn)."""
    out = copy.deepcopy(item)
    for name, kind in stream.item_keys:
        if "." not in name:
            out[name] = n if kind is int else f"k{n}"
    return out


def first_example(strategy: st.SearchStrategy[Any]) -> Any:
    """The first example Hypothesis draws from ``strategy`` (derandomized: the same every run;
    Hypothesis starts from its simplest examples)."""
    drawn: list[Any] = []

    @given(strategy)
    @settings(max_examples=1, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])  # fmt: skip
    def draw(example: Any) -> None:
        drawn.append(example)

    draw()
    return drawn[0]


PARENT_SHAPES: dict[str, dict[str, Any]] = {"user_custom_field_definitions": {"type": "dropdown"}}
"""What a parent item must hold for its children to be listed: options are listed for dropdown
fields only (``GET /users/v1/custom-fields/{customFieldId}/options``)."""


def base_items() -> dict[str, list[dict[str, Any]]]:
    """Two items per stream as the spec's schema allows them (:func:`first_example`), keyed 1
    and 2 (and shaped as :data:`PARENT_SHAPES` says)."""
    items = {}
    for name, stream in STREAMS.items():
        example = {**first_example(item_strategy(name)), **PARENT_SHAPES.get(name, {})}
        items[name] = [keyed(stream, example, 1), keyed(stream, example, 2)]
    return items


@dataclass(frozen=True)
class Variant:
    """One hostile change to every stream's answers.

    Attributes:
        name: The case's id.
        outcome: ``quarantined`` (one item quarantined, the rest loads), ``loaded`` (the
            item loads, nothing quarantined) or ``failed`` (the stream fails, named).
        items: The stream's items made hostile (``None``: as they are).
        body: An answer replacing the stream's pages (``None``: the items').
    """

    name: str
    outcome: str
    items: Callable[[Stream, list[Any]], list[Any]] | None = None
    body: Callable[[Stream], httpx.Response] | None = None


def _with(stream: Stream, items: list[Any], change: Callable[[dict[str, Any]], Any]) -> list[Any]:
    """``items`` plus a copy of the first, keyed 3, changed by ``change``."""
    extra = keyed(stream, items[0], 3)
    return [*items, change(extra)]


def _set(field: str, value: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda item: {**item, field: value}


def _first_key(stream: Stream) -> tuple[str, type]:
    return stream.item_keys[0]


def _across_pages(stream: Stream, items: list[Any]) -> list[Any]:
    """A full first page of distinct keys, then the first item again on the second page (an
    endpoint that is not paged answers once: the first item again at the end)."""
    if stream.max_limit is None:
        return [*items, copy.deepcopy(items[0])]
    full = [keyed(stream, items[0], n) for n in range(1, stream.max_limit + 1)]
    return [*full, copy.deepcopy(full[0])]


def _retyped_key(stream: Stream, items: list[Any]) -> list[Any]:
    name, kind = _first_key(stream)
    return _with(stream, items, lambda i: {**i, name: "1005" if kind is int else 1005})


def _past_int64(stream: Stream, items: list[Any]) -> list[Any]:
    name, kind = _first_key(stream)
    return _with(stream, items, _set(name, 2**63 + 5 if kind is int else [2**63 + 5]))


def _field_as_string(stream: Stream, items: list[Any]) -> list[Any]:
    keys = {name for name, _ in stream.item_keys}
    fields = [f for f in integer_fields(items[0]) if f not in keys]
    return _with(stream, items, lambda i: {**i, **{f: str(i[f]) for f in fields[:1]}})


def _field_past_int64(stream: Stream, items: list[Any]) -> list[Any]:
    keys = {name for name, _ in stream.item_keys}
    fields = [f for f in integer_fields(items[0]) if f not in keys]
    return _with(stream, items, lambda i: {**i, **{f: 2**63 + 5 for f in fields[:1]}})


def _unknown_enum(stream: Stream, items: list[Any]) -> list[Any]:
    fields = list(enum_fields(stream))
    return _with(stream, items, lambda i: {**i, **{f: "SOMETHING_NEW" for f in fields[:1]}})


def _answer(content: bytes, content_type: str = "application/json") -> httpx.Response:
    return httpx.Response(200, content=content, headers={"content-type": content_type})


VARIANTS = [
    Variant("null-item", "quarantined", lambda s, i: [*i, None]),
    Variant("scalar-item", "quarantined", lambda s, i: [*i, 42]),
    Variant("empty-object", "quarantined", lambda s, i: [*i, {}]),
    Variant("missing-key", "quarantined",
            lambda s, i: _with(s, i, lambda x: {k: v for k, v in x.items()
                                                if k != _first_key(s)[0]})),
    Variant("null-key", "quarantined", lambda s, i: _with(s, i, _set(_first_key(s)[0], None))),
    Variant("key-repeated-in-page", "quarantined", lambda s, i: [*i, copy.deepcopy(i[0])]),
    Variant("key-repeated-across-pages", "quarantined", _across_pages),
    Variant("key-of-another-type", "quarantined", _retyped_key),
    Variant("key-past-2^63", "quarantined", _past_int64),
    Variant("integer-field-as-string", "loaded", _field_as_string),
    Variant("integer-field-past-2^63", "loaded", _field_past_int64),
    Variant("unknown-enum-value", "loaded", _unknown_enum),
    Variant("data-missing", "failed", body=lambda s: _answer(b'{"data": {}}')),
    Variant("html-200", "failed",
            body=lambda s: _answer(b"<html><body>Not here</body></html>", "text/html")),
    Variant("truncated-json", "failed",
            body=lambda s: _answer(json.dumps({"data": {s.data_key: [{"id": 1}]}})[:-7].encode())),
]  # fmt: skip
BASELINE = Variant("baseline", "loaded")


@dataclass
class Outcome:
    """One in-process sync of every stream: rows loaded and items quarantined per stream, the
    failed streams and their reasons, the warehouse file, the paths asked per stream (each
    listing at one path serves the hostile item once), and what escaped (if anything)."""

    rows: dict[str, int]
    quarantined: dict[str, int]
    failed: dict[str, str]
    warehouse: Path
    paths: dict[str, set[str]]
    raised: str | None = None


def sync(
    items: dict[str, list[Any]], variant: Variant, where: Path, streams: list[str] = NAMES
) -> Outcome:
    """Sync ``streams`` (default every stream) from ``items`` made hostile by ``variant`` into
    ``where``."""
    from pipelines.sync import run_sync

    hostile = {n: variant.items(STREAMS[n], v) if variant.items else v for n, v in items.items()}
    body = (lambda s, offset: variant.body(s)) if variant.body else None
    answers = Answers(hostile, body)
    warehouse = where / "warehouse.duckdb"
    project = account_project(warehouse, BASE_URL, "contract-key")
    try:
        summary = run_sync(streams, project=project, transport=answers.transport(), max_in_flight=1)
    except Exception as exc:  # noqa: BLE001 - the contract says nothing escapes; kept to report
        return Outcome({}, {}, {}, warehouse, answers.paths, repr(exc))
    return Outcome(
        summary.rows, summary.quarantined, summary.failed_streams, warehouse, answers.paths
    )


def _every_variant(root: Path) -> dict[str, Outcome]:
    """Every variant's run (and a baseline's), each into a warehouse of its own under ``root``."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("WFM_SYNC_NOW", str(NOW))
        env.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
        env.setenv("SOURCES__CONNECTEAM__BACKOFF_BASE", "0.02")
        items = base_items()
        return {v.name: sync(items, v, root / v.name) for v in [BASELINE, *VARIANTS]}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Every variant's run (and a baseline's), once per test run (:func:`once_per_run`)."""
    return once_per_run(tmp_path_factory, "stream-contract", _every_variant)


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
@pytest.mark.parametrize("name", NAMES)
def test_every_stream_keeps_its_contract(outcomes, name, variant):
    base, run = outcomes[BASELINE.name], outcomes[variant.name]
    assert base.raised is None and not base.failed and not base.quarantined, base
    assert run.raised is None, f"{variant.name}: {run.raised!r} escaped the sync"
    stream = STREAMS[name]
    if variant.outcome == "failed":
        reason = run.failed.get(name, "")
        assert reason.startswith("ConnecteamAPIError: "), (name, reason)
        assert "\n" not in reason and "GET /" in reason, reason
        return
    assert name not in run.failed, (name, run.failed.get(name))
    assert run.paths.get(name), f"{name} was never listed: the base items do not reach it"
    expected = len(run.paths[name]) if variant.outcome == "quarantined" else 0
    assert run.quarantined.get(name, 0) == expected, (name, run.quarantined)
    across = variant.name == "key-repeated-across-pages" and stream.paged
    if variant.outcome == "quarantined" and not across:
        assert run.rows[name] == base.rows[name], (name, run.rows[name], base.rows[name])
        kept = query(
            run.warehouse,
            f"select reason, item from connecteam.quarantine where stream = '{name}'",
        )
        assert len(kept) == expected and all(reason for reason, _ in kept), kept
    else:
        assert run.rows[name] >= base.rows[name], (name, run.rows[name], base.rows[name])
    key = ", ".join(stream.key)
    ((total, distinct),) = query(
        run.warehouse, f"select count(*), count(distinct ({key})) from connecteam.{name}"
    ) if run.rows[name] else ((0, 0),)  # fmt: skip
    assert total == distinct, f"{name}: {total} rows but {distinct} keys"


UNPAGED = [name for name, stream in STREAMS.items() if stream.max_limit is None]
"""Streams answered once (no ``limit``/``offset``): the ones whose answer may be large enough
to be decoded as a stream (:func:`sources.connecteam.answers.body_records`)."""


def _every_variant_streamed(root: Path) -> dict[str, Outcome]:
    """Every variant's run again with every answer of the unpaged streams decoded as a stream
    (:mod:`sources.connecteam.json_stream`) in batches of two items, each batch a page to the
    contract."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("WFM_SYNC_NOW", str(NOW))
        env.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
        env.setenv("SOURCES__CONNECTEAM__BACKOFF_BASE", "0.02")
        env.setattr(answers, "STREAM_FROM_BYTES", 0)
        env.setattr(answers, "BATCH_ITEMS", 2)
        items = base_items()
        names = sorted({above for name in UNPAGED for above in lineage(name)}, key=NAMES.index)
        return {v.name: sync(items, v, root / v.name, names) for v in [BASELINE, *VARIANTS]}


@pytest.fixture(scope="module")
def streamed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """:func:`_every_variant_streamed`, once per test run (:func:`once_per_run`)."""
    return once_per_run(tmp_path_factory, "stream-contract-streamed", _every_variant_streamed)


@pytest.mark.parametrize("variant", [BASELINE, *VARIANTS], ids=lambda v: v.name)
def test_a_streamed_answer_keeps_the_same_contract(outcomes, streamed, variant):
    """Decoded as a stream, in batches, an unpaged answer loads the same rows, quarantines the
    same items and fails the same way as decoded whole, under every hostile variant."""
    whole, run = outcomes[variant.name], streamed[variant.name]
    assert run.raised is None, f"{variant.name}: {run.raised!r} escaped the sync"
    for name in UNPAGED:
        assert run.failed.get(name) == whole.failed.get(name), (name, run.failed, whole.failed)
        assert run.rows.get(name) == whole.rows.get(name), (name, run.rows, whole.rows)
        assert run.quarantined.get(name) == whole.quarantined.get(name), name
        if run.rows.get(name):
            table = f"select * exclude (_dlt_load_id) from connecteam.{name} order by all"
            assert query(run.warehouse, table) == query(whole.warehouse, table), name


def expected_quarantine(stream: Stream, items: list[Any]) -> int:
    """Items of one listing the contract refuses (malformed, or a key listed before), counted
    once per distinct item and reason (a copy quarantined twice is one row)."""
    seen: set[tuple[Any, ...]] = set()
    refused: set[tuple[str, str]] = set()
    for item in items:
        reason = malformed(item, stream.item_keys)
        if reason is None:
            key = tuple(key_value(item, name) for name, _ in stream.item_keys)
            if key not in seen:
                seen.add(key)
                continue
            reason = f"{key} again"
        refused.add((reason, json.dumps(item, sort_keys=True)))
    return len(refused)


SUITE_EXAMPLES = 2
"""Examples per stream of the generated-answers test in ``make test`` (one in-process sync of
the stream and the streams above it each, about a second); ``--hypothesis-profile thorough``
runs 500."""


def lineage(name: str) -> list[str]:
    """``name`` and the streams above it (its parent, the parent's parent), top first."""
    chain = [name]
    while STREAMS[chain[0]].parent:
        chain.insert(0, str(STREAMS[chain[0]].parent))
    return chain


@pytest.fixture(scope="module")
def base() -> dict[str, list[dict[str, Any]]]:
    return base_items()


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
@settings(max_examples=profile_examples(SUITE_EXAMPLES), deadline=None, database=None,
          derandomize=profile_examples(SUITE_EXAMPLES) == SUITE_EXAMPLES,
          suppress_health_check=list(HealthCheck))  # fmt: skip
def test_every_stream_loads_what_the_spec_allows(name, data, base, tmp_path_factory):
    """Answers of stream ``name`` as its spec schema allows them (its parents' as
    :func:`base_items`): nothing fails or escapes; each listing quarantines exactly the items
    the contract refuses (keys past 2^63, keys the generator repeated) and the rest loads."""
    items = data.draw(st.lists(item_strategy(name), min_size=1, max_size=4), label=name)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("WFM_SYNC_NOW", str(NOW))
        where = tmp_path_factory.mktemp("generated")
        run = sync({**base, name: items}, BASELINE, where, lineage(name))
    assert run.raised is None, f"{run.raised!r} escaped the sync"
    assert not run.failed, run.failed
    listings = len(run.paths.get(name, ()))
    refused = expected_quarantine(STREAMS[name], items)
    assert listings, f"{name} was never listed"
    assert run.quarantined.get(name, 0) == listings * refused, (listings, refused, run.quarantined)
