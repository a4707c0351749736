"""Provider records as Arrow tables whose column types hold, whatever values the provider sends.

dlt loads Arrow tables without its row-by-row normalizer (several times faster on this data), but
an Arrow column has one type: a field that is an integer in one record and a string in the next,
or an integer beyond 64 bits, would stop the extract (``ArrowInvalid``, or dlt's "incompatible
schemas" between batches), and a column whose type changes between runs would fail the load.

:class:`ArrowRows` therefore fixes each column's type once per table: the type the resource
declares, else the type the warehouse already has (dlt's schema), else the kind of the first value
seen (``bool``, ``bigint``, ``double``, ``text``; objects and lists become ``json`` text). A value
that does not fit its column's type is never dropped and never fails the run: the column gets
NULL and the value is kept as it came, in the row's ``untyped_values`` JSON column
(``{"<provider field>": <value>}``), and counted in :attr:`ArrowRows.untyped`; so is every
value of a field whose name makes no column (empty) or the column of another field of the
record (``userId`` beside ``user_id``): the stream's key field (the registry's ``item_key``,
which the item check read) keeps its column, else a name already in the warehouse's spelling
(the sync's own marks). Lossless widenings
are not counted: an integer in a ``double`` column, an integral float in a ``bigint`` column.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import orjson
import pyarrow as pa
from dlt.common.normalizers.naming.snake_case import NamingConvention
from dlt.common.schema.typing import TColumnSchema

from .registry import STREAMS

logger = logging.getLogger("sources.connecteam")

BATCH_ROWS = 5_000
"""Rows per Arrow table handed to dlt: bounds the records held in memory between pages."""
BATCH_BYTES = 4 * 2**20
"""JSON bytes per Arrow table handed to dlt (estimated from sampled records): on wide records
(a shift as wide as the spec allows is ~9 KB) a batch ends here, well before ``BATCH_ROWS``."""

UNTYPED_COLUMN = "untyped_values"
"""The JSON column holding, per row, the values that did not fit their column's type."""

TEXT, BIGINT, BOOL, DOUBLE, JSON = "text", "bigint", "bool", "double", "json"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_KIND_OF_TYPE: dict[type, str] = {
    bool: "bool", int: "bigint", float: "double", str: "text", dict: "json", list: "json",
}  # fmt: skip
_ARROW_TYPES: dict[str, pa.DataType] = {
    "bool": pa.bool_(), "bigint": pa.int64(), "double": pa.float64(), "text": pa.string(),
    "json": pa.string(),
}  # fmt: skip


def hints(types: Mapping[str, str]) -> dict[str, TColumnSchema]:
    """dlt column hints from ``{column: data type}`` (``"bigint!"``: not nullable), plus the
    ``untyped_values`` JSON column; built fresh on every call: dlt writes into the hint dicts it
    is given, so they must not be shared."""
    columns: dict[str, TColumnSchema] = {
        name: {"data_type": kind.rstrip("!"), "nullable": False}  # type: ignore[typeddict-item]
        if kind.endswith("!")
        else {"data_type": kind}  # type: ignore[typeddict-item]
        for name, kind in types.items()
    }
    columns[UNTYPED_COLUMN] = {"data_type": "json"}
    return columns


def dumps(value: Any) -> str:
    """JSON text of any decoded JSON value (integers beyond 64 bits included)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson refuses integers beyond 64 bits; the standard library does not
        return json.dumps(value, ensure_ascii=False)


def estimated_bytes(records: list[dict[str, Any]]) -> int:
    """About how many bytes of JSON ``records`` take: the mean size of the first, middle and last
    record, times their number (records of one page are alike in width; measuring every one would
    cost a serialization of the whole page)."""
    if not records:
        return 0
    sample = {0, len(records) // 2, len(records) - 1}
    return sum(len(dumps(records[i])) for i in sample) * len(records) // len(sample)


class ArrowRows:
    """Turns batches of one table's records into Arrow tables with stable column types.

    Args:
        table: The warehouse table (dlt resource) the batches go to.
        declared: ``{column: dlt data type}`` the resource declares (snake_case names, as given
            to :func:`hints`); ``json`` columns take any value as JSON text.
        counter: Where to add the values kept in ``untyped_values``, by table (e.g.
            :attr:`ClientStats.untyped_values`).
    """

    def __init__(
        self,
        table: str,
        declared: Mapping[str, str] | None = None,
        counter: dict[str, int] | None = None,
    ) -> None:
        self.table = table
        self.untyped = 0
        """Values kept in ``untyped_values`` because they did not fit their column's type."""
        self._counter = counter
        self._declared = {name: kind.rstrip("!") for name, kind in (declared or {}).items()}
        stream = STREAMS.get(table)
        self._key_fields = {k for k, _ in stream.item_keys if "." not in k} if stream else set()
        self._kinds: dict[str, str] | None = None
        self._normalize: Any = None
        self._lock = threading.Lock()

    def to_arrow(self, records: list[dict[str, Any]]) -> pa.Table:
        """One batch of records (provider field names) as an Arrow table; see the module doc.
        Thread-safe: the workers of a fan-out share one instance (one batch at a time)."""
        with self._lock:
            return self._to_arrow(records)

    def _to_arrow(self, records: list[dict[str, Any]]) -> pa.Table:
        self._load_known_kinds()
        names: dict[str, None] = {}
        for record in records:
            names.update(dict.fromkeys(record))
        untyped: dict[int, dict[str, Any]] = {}
        arrays, fields = [], []
        taken: set[str] = {UNTYPED_COLUMN}
        # the stream's key field keeps its column first (the item check read the key there),
        # then a name already in the warehouse's spelling (the sync's own marks)
        first = lambda name: (name not in self._key_fields, self._column(name) != name)  # noqa: E731
        for name in sorted(names, key=first):
            values = [record.get(name) for record in records]
            column = self._column(name)
            if column is None or column in taken:  # no name, or another field's column
                for i, value in enumerate(values):
                    if name in records[i]:
                        untyped.setdefault(i, {})[name] = value
                continue
            taken.add(column)
            kind = self._kind_of(name, values)
            if kind is None:  # all null, type not known yet: decided when a value arrives
                arrays.append(pa.nulls(len(records)))
            else:
                arrays.append(pa.array(self._fit(name, kind, values, untyped), _ARROW_TYPES[kind]))
            fields.append(name)
        if untyped:
            kept_json = [dumps(untyped[i]) if i in untyped else None for i in range(len(records))]
            arrays.append(pa.array(kept_json, pa.string()))
            fields.append(UNTYPED_COLUMN)
            kept = sum(len(values) for values in untyped.values())
            self.untyped += kept
            if self._counter is not None:
                self._counter[self.table] = self._counter.get(self.table, 0) + kept
        return pa.Table.from_arrays(arrays, names=fields)

    def batches(
        self,
        pages: Iterable[list[dict[str, Any]]],
        rows: int = BATCH_ROWS,
        max_bytes: int = BATCH_BYTES,
    ) -> Iterator[pa.Table]:
        """Pages of records regrouped as Arrow tables of about ``rows`` rows or ``max_bytes``
        bytes of JSON, whichever comes first (a page's size is estimated from up to three of its
        records).

        Memory stays at one batch however many pages there are, and however wide the records;
        fewer, larger tables also mean fewer Parquet row groups and less per-table work in dlt's
        extract.
        """
        batch: list[dict[str, Any]] = []
        size = 0
        for page in pages:
            batch.extend(page)
            size += estimated_bytes(page)
            if len(batch) >= rows or size >= max_bytes:
                yield self.to_arrow(batch)
                batch, size = [], 0
        if batch:
            yield self.to_arrow(batch)

    # -- internals -------------------------------------------------------------------------------

    def _load_known_kinds(self) -> None:
        """Column kinds the warehouse already has (dlt's schema of the running pipeline) and the
        resource declares, read once per run."""
        if self._kinds is not None:
            return
        self._kinds = {}
        try:
            import dlt

            schema = dlt.current.source_schema()
            self._normalize = schema.naming.normalize_identifier
            if self.table in schema.tables:
                for column, spec in schema.get_table_columns(self.table).items():
                    kind = spec.get("data_type")
                    if kind in _ARROW_TYPES:
                        self._kinds[column] = str(kind)
        except Exception:  # noqa: BLE001 - outside a running pipeline: nothing is known yet
            self._normalize = None
        self._kinds.update({k: v for k, v in self._declared.items() if v in _ARROW_TYPES})

    def _column(self, name: Any) -> str | None:
        """The warehouse column of provider field ``name`` (the schema's naming convention,
        dlt's ``snake_case`` outside a running pipeline); ``None`` for a name that makes no
        column (empty, or only characters the convention drops)."""
        normalize = self._normalize or _SNAKE_CASE.normalize_identifier
        try:
            return str(normalize(str(name))) or None
        except ValueError:
            return None

    def _kind_of(self, name: str, values: list[Any]) -> str | None:
        """The column's kind: known, or the first value's (``None`` while every value is null)."""
        assert self._kinds is not None
        column = self._column(name) or name
        kind = self._kinds.get(column)
        if kind is None:
            first = next((v for v in values if v is not None), None)
            if first is None:
                return None
            kind = _KIND_OF_TYPE.get(type(first), "text")
            self._kinds[column] = kind
        return kind

    def _fit(
        self, name: str, kind: str, values: list[Any], untyped: dict[int, dict[str, Any]]
    ) -> list[Any]:
        """``values`` fitted to ``kind``; misfits become None and are recorded in ``untyped``."""
        if kind == "json":
            return [None if v is None else dumps(v) for v in values]
        fitted = []
        for i, value in enumerate(values):
            if value is not None:
                value = _fit_value(kind, value)
                if value is _MISFIT:
                    untyped.setdefault(i, {})[name] = values[i]
                    value = None
            fitted.append(value)
        return fitted


_MISFIT = object()
_SNAKE_CASE = NamingConvention()


def _fit_value(kind: str, value: Any) -> Any:
    """``value`` as ``kind`` when that loses nothing, else :data:`_MISFIT`."""
    vtype = type(value)
    if kind == "bigint":
        if vtype is int:
            return value if INT64_MIN <= value <= INT64_MAX else _MISFIT
        if vtype is float and value.is_integer() and INT64_MIN <= value <= INT64_MAX:
            return int(value)
        return _MISFIT
    if kind == "double":
        if vtype is float:
            return value
        if vtype is int and abs(value) <= 2**53:
            return float(value)
        return _MISFIT
    if kind == "text":
        return value if vtype is str else _MISFIT
    if kind == "bool":
        return value if vtype is bool else _MISFIT
    return _MISFIT


NUL, REPLACEMENT_CHARACTER = "\x00", "\ufffd"
_NUL_ESCAPE = "\\u0000"


def without_nul(item: Any) -> tuple[Any, int]:
    """``item`` (an Arrow table, a row dict, or a list of rows) with U+0000 in every string
    replaced by U+FFFD, inside JSON text too (its ``\\u0000`` escapes), and how many strings
    changed. PostgreSQL's ``text`` and ``jsonb`` refuse U+0000, so one such value in a provider
    record would fail the whole load there; DuckDB keeps it (this is applied for PostgreSQL only,
    see ``pipelines.sync``). Text that is valid JSON holding a ``\\u0000`` escape is re-encoded
    with U+FFFD in its place, whatever the column's type."""
    if isinstance(item, pa.Table):
        return _table_without_nul(item)
    if isinstance(item, list):
        cleaned_rows = [without_nul(row) for row in item]
        return [row for row, _ in cleaned_rows], sum(n for _, n in cleaned_rows)
    if isinstance(item, dict):
        changed = 0
        out = {}
        for key, value in item.items():
            cleaned, n = _value_without_nul(value)
            out[key] = cleaned
            changed += n
        return out, changed
    return item, 0


def _table_without_nul(table: pa.Table) -> tuple[pa.Table, int]:
    import pyarrow.compute as pc

    changed = 0
    for index, column in enumerate(table.columns):
        if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
            continue
        suspect = pc.or_(pc.match_substring(column, NUL), pc.match_substring(column, _NUL_ESCAPE))
        if not pc.any(suspect).as_py():
            continue
        values = []
        for value in column.to_pylist():
            cleaned, n = _text_without_nul(value)
            values.append(cleaned)
            changed += n
        table = table.set_column(index, table.field(index), pa.array(values, column.type))
    return table, changed


def _text_without_nul(text: str | None) -> tuple[str | None, int]:
    """One string: its U+0000 replaced; JSON text's ``\\u0000`` escapes too."""
    if text is None:
        return None, 0
    original = text
    if _NUL_ESCAPE in text:
        try:
            decoded = json.loads(text)
        except (ValueError, RecursionError):
            decoded = None
        else:
            cleaned, n = _value_without_nul(decoded)
            if n:
                text = dumps(cleaned)
    text = text.replace(NUL, REPLACEMENT_CHARACTER)
    return text, int(text != original)


def _value_without_nul(value: Any) -> tuple[Any, int]:
    """A decoded JSON value (or a row's value) with U+0000 replaced in its strings and keys."""
    if isinstance(value, str):
        return _text_without_nul(value)
    if isinstance(value, list):
        items = [_value_without_nul(v) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    if isinstance(value, dict):
        changed, out = 0, {}
        for key, inner in value.items():
            clean_key = key.replace(NUL, REPLACEMENT_CHARACTER) if isinstance(key, str) else key
            cleaned, n = _value_without_nul(inner)
            out[clean_key] = cleaned
            changed += n + int(clean_key != key)
        return out, changed
    return value, 0
