"""Each API table's newest provider time and its freshness verdict, read by SQL from the
warehouse with the rules dbt's ``source freshness`` uses, without starting dbt.

The rules are declared once, in the source's YAML
(``models/staging/connecteam/_connecteam__sources.yml``): a table's ``loaded_at_field`` and
``freshness`` (``warn_after``, ``error_after``), its own ``config`` over the source's, and an
optional ``filter``. The newest time is ``max(<loaded_at_field>)`` over the table's rows; the
verdict is dbt's: ``error`` when older than ``error_after``, else ``warn`` when older than
``warn_after``, else ``pass``. A table whose query fails (a missing column, a column that is not a
number) has the verdict ``runtime error`` and no time, as under dbt; a table without rows has
neither (dbt would call it an error: there is nothing to judge yet).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .dbt_yaml import read_yaml

SOURCES_YAML = "models/staging/{source}/_{source}__sources.yml"
"""A source's YAML, relative to the dbt project (``source="*"``: every source's, as a glob)."""
PERIODS = {"minute": 60, "hour": 3600, "day": 86_400}
"""dbt's freshness periods, in seconds."""


@dataclass(frozen=True)
class FreshnessRule:
    """How one source table's freshness is judged.

    Attributes:
        table: The table's name (in the source's schema).
        loaded_at_field: A SQL expression giving a row's time (a timestamp).
        warn_after: Seconds after which the newest row is a warning; ``None``: never.
        error_after: Seconds after which it is an error; ``None``: never.
        filter: A SQL condition the rows considered must meet; ``None``: every row.
    """

    table: str
    loaded_at_field: str
    warn_after: float | None
    error_after: float | None
    filter: str | None = None

    def verdict(self, newest: float, now: float) -> str:
        """``pass``, ``warn`` or ``error`` for a newest row at ``newest`` seen at ``now``
        (epoch seconds)."""
        age = now - newest
        if self.error_after is not None and age > self.error_after:
            return "error"
        if self.warn_after is not None and age > self.warn_after:
            return "warn"
        return "pass"


def _seconds(threshold: Any) -> float | None:
    """``{count: 26, period: hour}`` in seconds; ``None`` when not set."""
    if not isinstance(threshold, dict) or threshold.get("count") is None:
        return None
    return float(threshold["count"]) * PERIODS[str(threshold.get("period", "hour"))]


def freshness_rules(dbt_project: Path, source: str) -> dict[str, FreshnessRule]:
    """Table -> its :class:`FreshnessRule`, from ``source``'s YAML in ``dbt_project``; tables
    without a ``loaded_at_field`` or with ``freshness: null`` left out.

    Raises:
        OSError: The source's YAML cannot be read.
        KeyError: The YAML has no source named ``source``.
    """
    document = read_yaml(dbt_project / SOURCES_YAML.format(source=source)) or {}
    declared = next(s for s in document.get("sources") or [] if s["name"] == source)
    defaults = declared.get("config") or {}
    rules = {}
    for table in declared.get("tables") or []:
        config = {**defaults, **(table.get("config") or {})}
        freshness = config.get("freshness")
        if not config.get("loaded_at_field") or freshness is None:
            continue
        rules[table["name"]] = FreshnessRule(
            table=table["name"],
            loaded_at_field=str(config["loaded_at_field"]),
            warn_after=_seconds(freshness.get("warn_after")),
            error_after=_seconds(freshness.get("error_after")),
            filter=freshness.get("filter") or config.get("filter"),
        )
    return rules


def source_freshness(
    client: Any, schema: str, rules: dict[str, FreshnessRule], now: float
) -> dict[str, tuple[str | None, float | None]]:
    """Per table of ``rules``: ``(verdict, newest)``, ``newest`` in epoch seconds (UTC), read
    through a dlt SQL ``client`` (DuckDB or PostgreSQL) from ``schema``.

    ``(None, None)`` for a table without rows; ``("runtime error", None)`` for one whose query
    failed (the error is not raised: the other tables are still read).
    """
    found: dict[str, tuple[str | None, float | None]] = {}
    for table, rule in rules.items():
        qualified = f"{client.escape_column_name(schema)}.{client.escape_column_name(table)}"
        where = f" where {rule.filter}" if rule.filter else ""
        sql = f"select extract(epoch from max({rule.loaded_at_field})) from {qualified}{where}"
        try:
            with client.execute_query(sql) as cursor:
                (newest,) = cursor.fetchone()
        except Exception:  # noqa: BLE001 - dbt's runtime error: this table only
            found[table] = ("runtime error", None)
            continue
        if newest is None:
            found[table] = (None, None)
        else:
            found[table] = (rule.verdict(float(newest), now), float(newest))
    return found
