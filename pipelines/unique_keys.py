"""Each merge table's key at most once per extract, so DuckDB's merge need not de-duplicate.

dlt merges a table's staged rows into it on the primary key, and unless the table says its
staged rows are already unique (``x-stage-data-deduplicated``) it first ranks every staged row
by key with ``ROW_NUMBER() OVER (PARTITION BY key)`` over all of the table's columns: on a wide
account that window holds the whole staging table in DuckDB's memory, and the load of a
10,000-user wide account fails inside a 256 MB limit (benchmarks/README.md, "Memory").

:func:`guard_unique_keys` makes the promise true instead of assuming it: a step on each
resource keeps the first row of each key per table (the resource's own table and the
variants it writes with ``dlt.mark.with_hints``) and drops later ones, counting them per table
and logging each table once; then it marks the resource's tables as de-duplicated. The listings'
own repeats are quarantined before this (:mod:`sources.connecteam.contract`); rows dropped here
are ones the source derived twice, which the count makes visible.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import pyarrow as pa
from dlt.common.schema.utils import get_columns_names_with_prop
from dlt.extract.resource import DltResource

logger = logging.getLogger("pipelines.unique_keys")

DEDUPLICATED_HINT = "x-stage-data-deduplicated"
"""dlt's table hint: the staged rows hold each primary key once, so the merge skips ranking
them (``write_disposition={"disposition": "merge", "deduplicated": True}``)."""


class UniqueKeys:
    """The keys one resource has yielded so far, per table.

    Args:
        resource: The resource whose items pass (its primary key is its own table's key; a
            variant's key comes with the variant's hints).
        normalize: The schema's naming convention (``userId`` and ``user_id`` are one column).
        repeated: Per table, rows dropped because their key came earlier (added to).
    """

    def __init__(
        self, resource: DltResource, normalize: Callable[[str], str], repeated: Counter[str]
    ) -> None:
        self.resource = resource
        self.normalize = normalize
        self.repeated = repeated
        self.seen: dict[str, set[tuple[Hashable, ...]]] = {}
        own = None if resource.has_dynamic_table_name else resource.compute_table_schema()
        self.own_table = str(own["name"]) if own else resource.name
        self.own_key: tuple[str, ...] = (
            tuple(get_columns_names_with_prop(own, "primary_key", include_incomplete=True))
            if own
            else ()
        )

    def arrow(self, item: Any, meta: Any = None) -> Any:
        """A map step: an Arrow table without the rows whose key came earlier (``None`` when
        none is left); any other item unchanged."""
        if not isinstance(item, pa.Table):
            return item
        table, key = self._table_and_key(meta)
        names = {self.normalize(name): name for name in item.column_names}
        if not key or any(k not in names for k in key):
            return item
        columns = [item.column(names[k]).to_pylist() for k in key]
        keep = [self._first(table, values) for values in zip(*columns, strict=True)]
        if all(keep):
            return item
        return item.filter(pa.array(keep)) if any(keep) else None

    def row(self, item: Any, meta: Any = None) -> bool:
        """A filter step: whether a row (a dict) holds the first of its key; ``True`` for
        anything else."""
        if not isinstance(item, dict):
            return True
        table, key = self._table_and_key(meta)
        if not key:
            return True
        names = {self.normalize(name): name for name in item}
        if any(k not in names for k in key):
            return True
        return self._first(table, tuple(item[names[k]] for k in key))

    def _table_and_key(self, meta: Any) -> tuple[str, Sequence[str]]:
        hints = getattr(meta, "hints", None)
        if hints and hints.get("table_name"):
            key = hints.get("primary_key") or ()
            return str(hints["table_name"]), [key] if isinstance(key, str) else list(key)
        return self.own_table, self.own_key

    def _first(self, table: str, values: tuple[Any, ...]) -> bool:
        # as text: a key column typed int in Arrow and str in a tombstone dict is one key
        key = tuple(None if v is None else str(v) for v in values)
        seen = self.seen.setdefault(table, set())
        if key in seen:
            if not self.repeated[table]:
                logger.warning(
                    "%s: key %s came twice within one sync; its first row is loaded, later "
                    "ones are dropped and counted", table, key,
                )  # fmt: skip
            self.repeated[table] += 1
            return False
        seen.add(key)
        return True


def guard_unique_keys(
    resource: DltResource, normalize: Callable[[str], str], repeated: Counter[str]
) -> None:
    """Add :class:`UniqueKeys`'s steps to ``resource`` (a merge resource) and mark its tables
    de-duplicated (:data:`DEDUPLICATED_HINT`, inherited by the variants it creates later).
    Does nothing for a resource that is not merged on a key.

    Args:
        resource: A resource of the ``connecteam`` source, before the extract.
        normalize: The schema's ``naming.normalize_identifier``.
        repeated: Per table, rows dropped as repeats (added to).
    """
    guard = UniqueKeys(resource, normalize, repeated)
    disposition = resource.write_disposition
    if isinstance(disposition, dict):
        disposition = disposition.get("disposition")
    if disposition != "merge" or not guard.own_key:
        return
    resource.add_map(guard.arrow)
    resource.add_filter(guard.row)
    resource.apply_hints(additional_table_hints={DEDUPLICATED_HINT: True})
