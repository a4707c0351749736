"""Only what analysts need is published: the demo's chat message texts, its secrets (the API key;
a receiver token in any URL: the demo's token is random and never shown, so any ``token=`` value
counts) and its raw quarantined bodies are in no text column of any table of the snapshot or of
any Parquet mart (the small demo of :func:`conftest.small_demo`, whose burst sends chat events
and malformed bodies)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
from conftest import DemoRun, query

from sources.configuration import resolve

NOT_TEXT = re.compile(
    r"^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|U\w*INT|FLOAT|DOUBLE|DECIMAL.*|DATE|"
    r"TIME.*|INTERVAL)$"
)
DEMO_API_KEY = "demo-key"
"""The API key the demo's emulator accepts (``flows/cli/demo.py``): a secret never published."""
TOKEN_IN_URL = re.compile(r"token=(?!\*\*\*)[^&\s\"']+")
"""A receiver token in a URL's query, shown (the demo's token is random and printed as ***)."""


def private_values(warehouse: Path) -> tuple[set[str], set[str]]:
    """The chat message texts the demo's webhooks carried and the raw bodies it quarantined, as
    the warehouse's raw schema holds them."""
    texts = {
        text
        for (text,) in query(
            warehouse,
            "select distinct json_extract_string(payload, '$.data.text') from webhooks.events "
            "where family = 'chat'",
        )
        if text
    }
    bodies = {
        bytes(body).decode("utf-8", "replace").strip()
        for (body,) in query(warehouse, "select body from webhooks.quarantine")
    }
    return texts, {b for b in bodies if len(b) >= 4}


def text_values(con: duckdb.DuckDBPyConnection, relation: str) -> Iterator[tuple[str, str]]:
    """``(column, value)`` of every non-numeric, non-temporal column of ``relation``, each value
    cast to text (JSON, lists and structs included)."""
    for name, kind, *_ in con.execute(f"describe select * from {relation}").fetchall():
        if NOT_TEXT.match(kind):
            continue
        for (value,) in con.execute(
            f'select distinct cast("{name}" as varchar) from {relation} where "{name}" is not null'
        ).fetchall():
            yield name, value


def findings(snapshot: Path, marts: Path, needles: set[str]) -> list[str]:
    """Where any of ``needles`` or a shown token appears in the snapshot's tables and the
    Parquet marts: ``"<relation>.<column>: <needle>"``, one per hit."""
    hits: list[str] = []
    with duckdb.connect(str(snapshot), read_only=True) as con:
        relations = [
            f'"{schema}"."{table}"'
            for schema, table in con.execute(
                "select table_schema, table_name from information_schema.tables"
            ).fetchall()
        ]
        relations += [f"read_parquet('{path}')" for path in sorted(marts.glob("*.parquet"))]
        assert len(relations) > 20  # marts, staging, health, and the Parquet marts
        for relation in relations:
            for column, value in text_values(con, relation):
                hits += [f"{relation}.{column}: {n!r}" for n in needles if n in value]
                if TOKEN_IN_URL.search(value):
                    hits.append(f"{relation}.{column}: a token")
    return hits


def test_no_chat_text_token_or_raw_body_reaches_the_snapshot_or_the_parquet_marts(
    small_demo: DemoRun,
):
    warehouse = small_demo.warehouse
    texts, bodies = private_values(warehouse)
    assert texts and bodies  # the demo sent chat messages and malformed bodies
    marts = warehouse.parent / "marts"
    assert (marts / "fct_shifts.parquet").exists()

    assert findings(small_demo.snapshot, marts, texts | bodies | {DEMO_API_KEY}) == []
    schemas = {s for (s,) in query(small_demo.snapshot, "select schema_name from duckdb_schemas()")}
    assert {"marts", "staging", "health"} <= schemas and not schemas & {"connecteam", "webhooks"}
    # the dashboard's data health reads the summary instead: loads and counts, no value
    loads = dict(query(small_demo.snapshot, "select table_name, row_count from health.raw_tables"))
    events = query(warehouse, "select count(*) from webhooks.events")[0][0]
    assert loads["webhooks.events"] == events and loads["connecteam.shifts"] > 0
    quarantined = query(small_demo.snapshot, "select sum(bodies) from health.quarantine")[0][0]
    assert quarantined == query(warehouse, "select count(*) from webhooks.quarantine")[0][0]


def test_the_raw_schemas_are_published_only_when_asked(small_demo: DemoRun, warehouse: Path):
    """The scan above finds what it looks for: with ``raw_schemas`` on, the chat texts and the
    quarantined bodies are in the snapshot (in ``webhooks``), and only there."""
    from pipelines.publish import publish_snapshot

    warehouse.parent.mkdir(parents=True)
    shutil.copyfile(small_demo.warehouse, warehouse)
    texts, bodies = private_values(warehouse)

    summary = publish_snapshot(warehouse, raw_schemas=True, project=resolve())

    snapshot = Path(summary.snapshot)
    hits = findings(snapshot, Path(summary.parquet_dir), texts | bodies)
    assert any(repr(t) in hit for t in texts for hit in hits)
    assert any(repr(b) in hit for b in bodies for hit in hits)
    assert all(hit.startswith('"webhooks".') for hit in hits), hits
    assert "connecteam.shifts" in summary.tables and "health.raw_tables" in summary.tables


def test_the_health_summary_keeps_only_the_category_of_a_refusal_reason(
    small_demo: DemoRun, warehouse: Path
):
    """A refused body's reason can quote the body after its category (``the envelope could not
    be read: ...``): ``health.quarantine`` keeps the category alone."""
    from pipelines.publish import publish_snapshot

    warehouse.parent.mkdir(parents=True)
    shutil.copyfile(small_demo.warehouse, warehouse)
    fragment = "employee-note-4711"
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "update webhooks.quarantine set reason = "
            f"'the envelope could not be read: {fragment} at line 1'"
        )
        (refused,) = con.execute("select count(*) from webhooks.quarantine").fetchone()
    assert refused > 0

    summary = publish_snapshot(warehouse, project=resolve())

    snapshot = Path(summary.snapshot)
    assert findings(snapshot, Path(summary.parquet_dir), {fragment}) == []
    assert query(snapshot, "select reason, sum(bodies) from health.quarantine group by all") == [
        ("the envelope could not be read", refused)
    ]


def test_the_health_summary_counts_quarantined_items_without_their_values(
    small_demo: DemoRun, warehouse: Path
):
    """``health.stream_quarantine`` counts the API items the sync quarantined per stream and
    reason; neither an item nor a key value it names is published."""
    from pipelines.publish import publish_snapshot

    warehouse.parent.mkdir(parents=True)
    shutil.copyfile(small_demo.warehouse, warehouse)
    secret, key = "employee-phone-555-0199", "user-k-8812"
    reasons = [
        "the item is null where the spec declares an object",
        f"id '{key}' repeated in the listing (the first item with it was loaded)",
        "userId 9913 repeated in the listing (the first item with it was loaded)",
    ]
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "create or replace table connecteam.quarantine (quarantine_key text, stream text, "
            "reason text, item text, seen_at bigint, _dlt_load_id text)"
        )
        for n, reason in enumerate(reasons):
            con.execute(
                "insert into connecteam.quarantine values (?, ?, ?, ?, ?, '1795176000.5')",
                [f"k{n}", "users", reason, f'{{"phone": "{secret}"}}', 1_795_176_000 + n],
            )

    summary = publish_snapshot(warehouse, project=resolve())

    snapshot = Path(summary.snapshot)
    assert findings(snapshot, Path(summary.parquet_dir), {secret, key}) == []
    assert query(snapshot, "select * from health.stream_quarantine") == [
        ("users", "id … repeated in the listing (the first item with it was loaded)",
         1, 1_795_176_001),
        ("users", "the item is null where the spec declares an object", 1, 1_795_176_000),
        ("users", "userId … repeated in the listing (the first item with it was loaded)",
         1, 1_795_176_002),
    ]  # fmt: skip
