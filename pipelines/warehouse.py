"""Build the dlt pipeline for the configured warehouse, and finish interrupted loads."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import dlt
from dlt.common.destination import TLoaderFileFormat

from core.project import DEFAULT_DATASET, Project

from .writer_lock import WarehouseBusyError as WarehouseBusyError  # the writer locks raise it
from .writer_lock import WarehouseUnreachableError as WarehouseUnreachableError
from .writer_lock import WriterLockLostError as WriterLockLostError

logger = logging.getLogger("pipelines.warehouse")

DATASET_CONNECTEAM = DEFAULT_DATASET
"""The ``default`` account's dataset (another's: :func:`core.project.account_dataset`)."""


def loader_file_format(project: Project) -> TLoaderFileFormat:
    """The load file format: Parquet for DuckDB (its native reader), dlt's default
    ``insert_values`` for PostgreSQL."""
    return "parquet" if project.destination == "duckdb" else "insert_values"


def build_pipeline(
    pipeline_name: str | None = None,
    dataset_name: str | None = None,
    pipelines_dir: str | os.PathLike[str] | None = None,
    *,
    project: Project,
) -> dlt.Pipeline:
    """The dlt pipeline that loads into ``project``'s warehouse (DuckDB, or PostgreSQL from
    dlt's ``DESTINATION__POSTGRES__CREDENTIALS`` with ``WFM_SYNC_DESTINATION=postgres``).

    The pipeline's working directory (state, pending load packages) lives beside the warehouse
    file in ``<warehouse dir>/pipelines`` unless ``pipelines_dir`` (the argument, else the
    project's path of that name) says otherwise, so removing the warehouse folder resets both
    together.

    Args:
        pipeline_name: dlt pipeline name (one per dataset); default ``project``'s account's
            (:attr:`~core.project.Project.dataset`: ``connecteam``, ``connecteam_<account>``).
        dataset_name: Target dataset (DuckDB schema); default the account's, as above.
        pipelines_dir: dlt working directory.
        project: Where and how to load.

    Returns:
        The pipeline (not yet run).
    """
    path = project.warehouse
    warehouse_folder(path.parent)
    # Arrow tables get dlt's _dlt_load_id like rows do, so every raw row says which load wrote it.
    dlt.config["normalize.parquet_normalizer.add_dlt_load_id"] = True
    working = pipelines_dir or project.paths.pipelines_dir
    limit = project.settings.duckdb_memory_limit
    credentials = {"database": str(path), "global_config": duckdb_load_settings(path, limit)}
    destination = (
        dlt.destinations.duckdb(credentials)
        if project.destination == "duckdb"
        else dlt.destinations.postgres()
    )
    return dlt.pipeline(
        pipeline_name=pipeline_name or project.dataset,
        destination=destination,
        dataset_name=dataset_name or project.dataset,
        pipelines_dir=str(working),
    )


def duckdb_load_settings(path: Path, memory_limit: str | None = None) -> dict[str, str]:
    """DuckDB's memory limit and spill folder for loads into ``path``.

    ``memory_limit`` (setting ``duckdb_memory_limit``, e.g. ``2GB``) when given; otherwise a
    quarter of the memory available when the pipeline is built (at least 256 MB, at most 8 GB),
    so wide records get the room a merge needs while other processes keep theirs. Beyond the
    limit DuckDB spills to ``<warehouse>.tmp`` beside the file. What keeps the sync's own process
    small is the streaming in the source (Arrow batches, page-by-page diffs), not this limit
    (benchmarks/README.md).
    """
    if memory_limit:
        limit = memory_limit.strip()
    else:
        quarter_mib = available_memory_bytes() // 4 // 2**20
        limit = f"{min(max(quarter_mib, 256), 8192)}MB"
    # rows need no order while they are merged: DuckDB then streams inserts instead of holding
    # them in order (its documented way to load large tables in little memory)
    return {
        "memory_limit": limit,
        "temp_directory": f"{path}.tmp",
        "preserve_insertion_order": "false",
    }


def available_memory_bytes() -> int:
    """Memory available to new work (Linux ``MemAvailable``; elsewhere free physical pages),
    in bytes; 2 GiB when the system does not say."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2 * 2**30


def warehouse_folder(folder: Path) -> None:
    """Create the warehouse's folder (and its parents) when missing.

    Raises:
        WarehouseConfigError: It cannot be created (a file in the way, no permission): the
            message names the folder and ``DESTINATION__DUCKDB__CREDENTIALS``.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WarehouseConfigError(
            f"cannot create the warehouse folder {folder} ({exc.strerror or exc}); set "
            "DESTINATION__DUCKDB__CREDENTIALS (or --project-dir) to a path this user can write"
        ) from None


def discard_unloaded_warehouse(project: Project) -> None:
    """Remove the DuckDB warehouse file, and its write-ahead log, that a run made without
    loading anything into it (dlt opens the destination, making the file, before the extract),
    so a run that fails before its load leaves no warehouse behind. Callers call it only for a
    file that did not exist when the run started."""
    warehouse = project.warehouse
    for path in (warehouse, warehouse.with_name(f"{warehouse.name}.wal")):
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:  # never hides the run's own failure
            logger.warning("could not remove %s, which the run made and left empty: %s", path, exc)


def finish_pending_loads(pipeline: dlt.Pipeline) -> int:
    """Normalize and load what an interrupted run left in the pipeline's working directory.

    ``Pipeline.run`` would load pending packages and then *skip* the new extract, so jobs call
    this first and then run normally.

    Returns:
        The number of load packages finished.
    """
    if not pipeline.has_pending_data:
        return 0
    _drop_committed_extracts(pipeline)
    extracted = len(pipeline.list_extracted_load_packages())
    normalized = len(pipeline.list_normalized_load_packages())
    logger.warning(
        "finishing %d load package(s) left by an interrupted run", extracted + normalized
    )
    if extracted:
        pipeline.normalize()
    _rank_staged_rows_again(pipeline)
    info = pipeline.load()
    info.raise_on_failed_jobs()
    return max(len(info.loads_ids), extracted + normalized)


def _rank_staged_rows_again(pipeline: dlt.Pipeline) -> None:
    """Take the "staged rows are unique" hint off every table of the normalized packages an
    interrupted run left, so their merges rank the staged rows by key again (dlt's default).

    The sync promises each key once per package (:mod:`pipelines.unique_keys`) so that the
    merge can skip that ranking. A process killed after a load job's rows were committed to the
    staging table, but before dlt marked the job completed, breaks the promise: the next run
    executes the job again and the staging table holds those rows twice, which a merge that
    trusts the hint would insert twice. The ranking costs memory only on such a resume.
    """
    from .unique_keys import DEDUPLICATED_HINT

    packages = pipeline._get_load_storage().normalized_packages  # dlt's own package storage
    for load_id in pipeline.list_normalized_load_packages():
        schema = packages.load_schema(load_id)
        hinted = [t for t in schema.tables.values() if t.get(DEDUPLICATED_HINT)]
        for table in hinted:
            table.pop(DEDUPLICATED_HINT, None)  # type: ignore[misc]
        if hinted:
            packages.save_schema(load_id, schema)
            logger.warning(
                "load package %s: staged rows of %d merge table(s) ranked by key again, as a "
                "job the interruption cut short may have staged its rows twice", load_id,
                len(hinted),
            )  # fmt: skip


def _drop_committed_extracts(pipeline: dlt.Pipeline) -> None:
    """Delete extracted packages whose normalized twin was already committed.

    dlt's normalize step commits a package by renaming it into ``load/normalized`` (atomic) and
    *then* deletes the extracted copy; a process killed between the two leaves both, and the next
    normalize fails with "Directory not empty". The committed twin is complete, so the extracted
    copy is removed, as dlt would have done next.
    """
    twins = set(pipeline.list_extracted_load_packages()) & set(
        pipeline.list_normalized_load_packages()
    )
    if not twins:
        return
    storage = pipeline._get_normalize_storage()  # dlt's own storage: knows the folder layout
    for load_id in sorted(twins):
        logger.warning(
            "load package %s was normalized before the interruption; reusing it", load_id
        )
        storage.extracted_packages.delete_package(load_id)


def warehouse_location(pipeline: dlt.Pipeline, project: Project) -> str:
    """Where the pipeline loads, without credentials: ``duckdb:<path>`` (``project``'s
    warehouse) or the destination type."""
    destination = pipeline.destination
    if destination is None:
        return "none"
    if destination.destination_name == "duckdb":
        return f"duckdb:{project.warehouse}"
    return str(destination.destination_name)


@dataclass(frozen=True)
class PostgresTarget:
    """The PostgreSQL warehouse dlt loads into (``WFM_SYNC_DESTINATION=postgres``).

    Attributes:
        host, port, user, database: Where it is (``DESTINATION__POSTGRES__CREDENTIALS``).
        password: The password; never logged or shown (see :attr:`display_url`).
        query: The libpq parameters of the credentials' query (``sslmode``, ``sslrootcert``,
            ``sslcert``, ``sslkey``, ``options``, ...), passed to every connection of ours.
    """

    host: str
    port: int
    user: str
    database: str
    password: str = field(repr=False)
    query: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def display_url(self) -> str:
        """``postgresql://user:***@host:port/database``: the password hidden."""
        return f"postgresql://{self.user}:***@{self.host}:{self.port}/{self.database}"


class WarehouseConfigError(ValueError):
    """The warehouse's settings are missing or incomplete (a setting to fix: exit 2)."""

    transient = False
    """For :func:`sources.connecteam.transient.is_transient`."""


def postgres_target() -> PostgresTarget:
    """The PostgreSQL warehouse from dlt's ``DESTINATION__POSTGRES__CREDENTIALS`` (a
    ``postgresql://user:password@host:port/database`` URL, or its parts in
    ``.dlt/secrets.toml`` under ``[destination.postgres.credentials]``).

    Raises:
        WarehouseConfigError: The credentials are missing or incomplete; the message names the
            setting and never holds a password.
    """
    from dlt.common.configuration import resolve_configuration
    from dlt.common.configuration.exceptions import ConfigurationException
    from dlt.destinations.impl.postgres.configuration import PostgresCredentials

    try:
        found = resolve_configuration(PostgresCredentials(), sections=("destination", "postgres"))
    except (ConfigurationException, ValueError) as exc:
        raise WarehouseConfigError(
            "WFM_SYNC_DESTINATION=postgres needs DESTINATION__POSTGRES__CREDENTIALS "
            "(postgresql://user:password@host:5432/database) or "
            f"[destination.postgres.credentials] in .dlt/secrets.toml ({type(exc).__name__})"
        ) from None
    return PostgresTarget(
        host=str(found.host), port=int(found.port or 5432), user=str(found.username),
        database=str(found.database), password=str(found.password or ""),
        query={str(k): str(v) for k, v in (found.query or {}).items()},
    )  # fmt: skip


def write_each_batch(pipeline: dlt.Pipeline, source: str) -> None:
    """Have dlt write each batch the source named ``source`` yields (extract) and each batch of
    ``pipeline``'s normalize out as it comes, instead of gathering 5,000 rows per table first
    (its default ``data_writer.buffer_max_items``): our sources already size their batches by
    rows and bytes (the webhook fold's bodies, the Connecteam source's Arrow tables), so dlt's
    buffer would only hold more of them, per table, in memory. Set in dlt's configuration,
    scoped to that source and pipeline."""
    dlt.config[f"sources.{source}.data_writer.buffer_max_items"] = 1
    dlt.config[f"{pipeline.pipeline_name}.normalize.data_writer.buffer_max_items"] = 1
