"""What each staging model reads from its raw table and casts, as its YAML declares it.

The ``config.meta`` of every model in ``sql/models/staging/<source>/stg_<source>__<entity>.yml``
(``raw_table``, ``raw_columns``, ``json_fields``) drives the ``typed_source`` macro, so reading
it here gives exactly what the models read and cast: the tests check it against the provider's
spec, and the spec-data tests ask which models cast a field (:func:`models_casting`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .dbt_runner import project_dir
from .dbt_yaml import read_yaml

STAGING_MODELS_YAML = "models/staging/*/stg_*.yml"
"""Where the staging models' YAML is, relative to the project: one file per source folder."""


@dataclass(frozen=True)
class DeclaredColumn:
    """One provider value a staging model reads (``config.meta`` in its
    ``stg_<source>__<entity>.yml``).

    Attributes:
        name: The raw column, or for a value inside a JSON raw column the name the model gives it.
        type: What it is cast to (``bigint``, ``double``, ``boolean``, ``date``, ``epoch``,
            ``timezone``, ``json``, ...); ``varchar`` is read as sent, not a cast.
        column: The raw column it is read from (``name`` itself for a raw column).
        field: The provider's field path it holds, dotted, ``[*]`` for the items of an array
            (``start.timezone``, ``customFields[*].customFieldId``); ``None`` for a column our
            source adds (keys, deletion marks, ...).
    """

    name: str
    type: str
    column: str
    field: str | None

    @property
    def is_cast(self) -> bool:
        """Whether the model casts it (and counts it in ``untypable_value_count``)."""
        return self.type != "varchar"


@dataclass(frozen=True)
class StagingDeclaration:
    """What one staging model reads from its raw table, as its YAML ``meta`` declares it.

    Attributes:
        model: The staging model, e.g. ``stg_connecteam__time_off_requests``.
        raw_table: ``<dataset>.<table>``, e.g. ``connecteam.time_off_requests``.
        columns: Every raw column it reads, then every value it reads inside a JSON column.
    """

    model: str
    raw_table: str
    columns: tuple[DeclaredColumn, ...]

    @property
    def casts(self) -> tuple[DeclaredColumn, ...]:
        """The values the model casts: a present (not null, not empty) value that cannot be
        typed is null and makes the row count in the model's untypable-row count."""
        return tuple(c for c in self.columns if c.is_cast)

    @property
    def raw_columns(self) -> tuple[str, ...]:
        """The raw columns the model reads (it reads no other)."""
        return tuple(c.name for c in self.columns if c.name == c.column)


def staging_declarations(project: Path | None = None) -> dict[str, StagingDeclaration]:
    """Every staging model's declaration, by model name, from the YAML of each source's staging
    folder (``models/staging/<source>/stg_<source>__<entity>.yml``).

    The same ``meta`` drives the ``typed_source`` macro, so this is exactly what the models read
    and cast.
    """
    found = {}
    for entry in (
        model
        for path in sorted((project or project_dir()).glob(STAGING_MODELS_YAML))
        for model in read_yaml(path)["models"]
    ):
        meta = (entry.get("config") or {}).get("meta") or {}
        if "raw_table" not in meta:
            continue
        raw = meta.get("raw_columns") or {}
        columns = [
            DeclaredColumn(name, spec["type"], name, spec.get("field"))
            for name, spec in raw.items()
        ]
        for name, spec in (meta.get("json_fields") or {}).items():
            base = raw[spec["column"]].get("field")
            path_in = spec["path"] if spec["path"].startswith("[") else "." + spec["path"]
            field_path = f"{base}{path_in}" if base else path_in.lstrip(".")
            columns.append(DeclaredColumn(name, spec["type"], spec["column"], field_path))
        found[entry["name"]] = StagingDeclaration(entry["name"], meta["raw_table"], tuple(columns))
    return found


def models_casting(raw_table: str, field_path: str | list[str]) -> list[str]:
    """The staging models that cast the provider field ``field_path`` of ``raw_table``.

    Args:
        raw_table: ``time_off_requests`` or ``connecteam.time_off_requests`` (a bare name is
            taken in dataset ``connecteam``).
        field_path: Dotted (``start.timezone``) or a list of parts as a record is walked
            (``["customFields", 0, "value"]``; list positions become ``[*]``).

    Returns:
        Model names, sorted; empty when no model casts that field.
    """
    table = raw_table if "." in raw_table else f"connecteam.{raw_table}"
    if isinstance(field_path, str):
        wanted = field_path
    else:
        wanted = ""
        for part in field_path:
            text = str(part)
            wanted += "[*]" if text.isdigit() else ("." if wanted else "") + text
    return sorted(
        d.model
        for d in staging_declarations().values()
        if d.raw_table == table and any(c.field == wanted for c in d.casts)
    )
