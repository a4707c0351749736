"""Where the project's files are: the warehouse file and every path derived from it, worked out in
one function (:func:`paths_beside`).

A job's files sit beside the warehouse unless a setting moves one: dlt's working folder
(``pipelines/``), the snapshot for BI (``analytics.duckdb``), the static report
(``report.html``), the marts as Parquet (``marts/``) and the run log (``runs.jsonl``). Moving
the data folder is moving the warehouse (``DESTINATION__DUCKDB__CREDENTIALS``); every default
follows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .settings import Settings, in_project

DEFAULT_WAREHOUSE = "data/warehouse.duckdb"
"""The DuckDB warehouse file when ``DESTINATION__DUCKDB__CREDENTIALS`` does not name one,
relative to the project's home."""

BESIDE_THE_WAREHOUSE = {
    "pipelines_dir": "pipelines",
    "snapshot": "analytics.duckdb",
    "report": "report.html",
    "parquet_dir": "marts",
    "run_log": "runs.jsonl",
}
"""Each derived path's name beside the warehouse file, by the setting that can move it."""


@dataclass(frozen=True)
class ProjectPaths:
    """The files of one project (one warehouse), all absolute.

    Attributes:
        warehouse: The DuckDB warehouse file.
        pipelines_dir: dlt's working folder (state, pending load packages).
        snapshot: The read-only snapshot for BI the publish writes.
        report: The static HTML report.
        parquet_dir: Where each publish writes every mart as ``<mart>.parquet``.
        run_log: One JSON line per job run (``wfm-sync status`` reads it).
    """

    warehouse: Path
    pipelines_dir: Path
    snapshot: Path
    report: Path
    parquet_dir: Path
    run_log: Path


def paths_beside(warehouse: Path, configured: Settings | None = None) -> ProjectPaths:
    """Every path of the project whose warehouse is ``warehouse``: each one the setting of its
    name in ``configured`` when set there, else its name of :data:`BESIDE_THE_WAREHOUSE` in the
    warehouse's folder. ``configured=None`` takes no setting (a demo's or a named snapshot's own
    folder)."""
    folder = warehouse.parent
    derived: dict[str, Path] = {}
    for name, default in BESIDE_THE_WAREHOUSE.items():
        chosen = getattr(configured, name) if configured is not None else None
        derived[name] = chosen if chosen else folder / default
    return ProjectPaths(warehouse=warehouse, **derived)


def paths_in(folder: Path) -> ProjectPaths:
    """The paths of a project whose files are all in ``folder`` by their default names (no
    setting applies): the run log beside a snapshot named on the command line, a demo's data."""
    return paths_beside(folder / Path(DEFAULT_WAREHOUSE).name)


def warehouse_file() -> Path:
    """The DuckDB warehouse file: ``DESTINATION__DUCKDB__CREDENTIALS`` (or ``[destination.duckdb]
    credentials`` in ``.dlt/secrets.toml``: dlt refuses a destination's credentials in
    ``config.toml``), default :data:`DEFAULT_WAREHOUSE`; a ``duckdb:///`` prefix is dropped and
    a relative path is taken from the project's home (:func:`core.settings.project_dir`), never
    from the current directory."""
    import dlt
    from dlt.common.configuration.exceptions import ConfigFieldMissingException

    try:
        configured = dlt.config.get("destination.duckdb.credentials", str)
    except ConfigFieldMissingException:
        configured = None
    value = str(configured or DEFAULT_WAREHOUSE)
    if value.startswith("duckdb:///"):
        value = value[len("duckdb:///") :]
    return in_project(value)
