"""The document bulk's warehouse table ``connecteam.document_entries``: the journal's outcomes
loaded into it (merged on ``entry_key``), and read back to start a journal new to a warehouse."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import dlt
import orjson

from core.project import Project

from .entry_journal import COLUMNS, EntryJournal
from .warehouse import loader_file_format
from .writers import writes_warehouse

TABLE = "document_entries"


def earlier_outcomes(pipeline: dlt.Pipeline) -> list[dict[str, Any]]:
    """Outcomes in the warehouse table (written by a version without the journal); none when
    the table does not exist yet.

    Raises:
        Exception: Any other failure to read it (a bulk must not forget recorded entries).
    """
    from dlt.destinations.exceptions import DatabaseUndefinedRelation

    try:
        with pipeline.sql_client() as client:
            table = client.make_qualified_table_name(TABLE)
            with client.execute_query(f"select * from {table}") as cursor:
                names = [d[0] for d in cursor.description]
                found = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    except DatabaseUndefinedRelation:
        return []
    rows = []
    for row in found:
        if not row.get("entry_key") or not row.get("status") or row.get("user_id") is None:
            continue
        fields = row.get("fields")
        rows.append({
            **{name: row.get(name) for name in COLUMNS},
            "fields": orjson.loads(fields) if isinstance(fields, str) and fields else fields,
        })  # fmt: skip
    return rows


@writes_warehouse("documents")
def load_outcomes(pipeline: dlt.Pipeline, book: EntryJournal, *, project: Project) -> None:
    """Load the journal's changed rows into ``connecteam.document_entries`` (merge on
    ``entry_key``) under ``project``'s writer lock, and clear their dirty mark."""
    rows = book.dirty()
    if not rows:
        return
    info = pipeline.run(outcomes_resource(rows), loader_file_format=loader_file_format(project))
    info.raise_on_failed_jobs()
    book.mark_loaded(rows)


def outcomes_resource(outcomes: list[dict[str, Any]]) -> Any:
    """The dlt resource of ``connecteam.document_entries``: ``outcomes`` (journal rows), merged
    on ``entry_key``, with the column types a first load of only nulls could not infer."""

    @dlt.resource(
        name=TABLE,
        primary_key="entry_key",
        write_disposition="merge",
        columns={
            "fields": {"data_type": "json"},
            "submitted_at": {"data_type": "bigint"},
            "recorded_at": {"data_type": "bigint"},
            "request_id": {"data_type": "text"},
            "error": {"data_type": "text"},
            "resolved_by": {"data_type": "text"},
            "file_id": {"data_type": "text"},
            "note": {"data_type": "text"},
        },
    )
    def document_entries() -> Iterator[list[dict[str, Any]]]:
        yield outcomes

    return document_entries
