"""Every example query in the README and ``docs/`` runs on the demo's published snapshot and its
answer holds: rows come back, no person is two people merged, no day lies in the future.

Queries are taken from ```` ```sql ```` blocks and from the double-quoted ``select``/``from``
strings of shell and Python blocks (``duckdb -readonly ... "from marts..."``,
``con.sql("...")``, ``--query "select ..."``). The demo's clock is pinned at
:data:`conftest.NOW`, so ``current_date`` in a query is read as that day.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest
from conftest import NOW, DemoRun

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TODAY = datetime.fromtimestamp(NOW, UTC).date()

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
QUOTED = re.compile(r'"((?:select|from|with)\s[^"]*)"', re.IGNORECASE)


def example_queries() -> dict[str, str]:
    """``{"<file>:<n>": sql}`` for every example query of the README and ``docs/``."""
    found: dict[str, str] = {}
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            language, body = match.groups()
            line = text.count("\n", 0, match.start()) + 1
            if language == "sql":
                found[f"{path.name}:{line}"] = body.strip().rstrip(";")
            elif language in ("sh", "python", ""):
                for n, quoted in enumerate(QUOTED.findall(body)):
                    found[f"{path.name}:{line}.{n}"] = quoted
    return found


QUERIES = example_queries()


def test_the_docs_hold_example_queries() -> None:
    # the "who worked over their schedule" and "approval lag" examples, the CLI and notebook
    # one-liners and the documents' bulk query at least
    assert len(QUERIES) >= 5, QUERIES
    assert not [name for name, sql in QUERIES.items() if "full_name" in sql], (
        "group people by dim_users.user_label: names repeat"
    )


def run(snapshot: Path, sql: str) -> tuple[list[str], list[tuple[object, ...]]]:
    """``sql`` on the snapshot with ``current_date`` read as the demo's day."""
    pinned = re.sub(r"\bcurrent_date\b", f"date '{TODAY}'", sql, flags=re.IGNORECASE)
    with duckdb.connect(str(snapshot), read_only=True) as con:
        result = con.execute(pinned)
        columns = [d[0] for d in result.description or []]
        return columns, result.fetchall()


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_every_docs_example_query_answers_on_the_demo(small_demo: DemoRun, name: str) -> None:
    columns, rows = run(small_demo.snapshot, QUERIES[name])
    assert rows, f"{name} answers nothing on the demo"
    for index, column in enumerate(columns):
        values = [row[index] for row in rows]
        if column in ("user_label", "person") and len(rows) > 1:
            # one row per person: two people of one name stay two rows
            assert len(set(values)) == len(values), (name, column)
        if column in ("local_date", "work_date"):
            days = [v for v in values if isinstance(v, date)]
            assert all(day <= TODAY for day in days), (name, max(days))


def test_the_over_schedule_example_reads_last_week_by_person(small_demo: DemoRun) -> None:
    """Its answer, by hand from the mart: each person's worked minus scheduled hours over the
    seven days before today, none of them in the future, some worked more than scheduled."""
    (name,) = [n for n, sql in QUERIES.items() if "hours_over_schedule" in sql]
    _, rows = run(small_demo.snapshot, QUERIES[name])
    first, last = TODAY - timedelta(days=7), TODAY - timedelta(days=1)
    with duckdb.connect(str(small_demo.snapshot), read_only=True) as con:
        by_hand = dict(
            con.execute(
                "select u.user_label, sum(d.worked_hours - d.scheduled_hours) "
                "from marts.fct_daily_hours d join marts.dim_users u using (user_id) "
                "where d.local_date >= ? and d.local_date <= ? group by 1",
                [first, last],
            ).fetchall()
        )
    assert len(rows) == 10
    for person, hours in rows:
        assert hours == pytest.approx(by_hand[person], abs=1e-6), person
    assert max(hours for _, hours in rows) > 0  # the future schedule no longer makes all negative
