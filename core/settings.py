"""Every ``WFM_SYNC_*`` setting of the project, typed, with its default and a one-line description.

This is the one module that reads the project's environment variables (pydantic-settings, prefix
``WFM_SYNC_``); every other module asks :func:`current`. Settings that belong to dlt keep dlt's
own names and providers (``.dlt/config.toml``, ``.dlt/secrets.toml``, ``SOURCES__CONNECTEAM__*``,
``DESTINATION__*``, ``WEBHOOKS__*``). The settings table of docs/configuration.md is
:func:`markdown_table` (``tests/unit/core/test_settings.py`` compares them).

It lives at the bottom of the import layers (``flows → pipelines → sources``) because the
source's clock reads :attr:`Settings.now`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "WFM_SYNC_"


class Settings(BaseSettings):
    """The project's settings, read from ``WFM_SYNC_<NAME>`` environment variables.

    Paths left unset are placed beside the warehouse file by the job that uses them.

    Raises:
        pydantic.ValidationError: A variable holds a value of the wrong kind (the message names
            the variable); raised when the settings are read.
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", frozen=True)

    now: str | None = Field(
        None,
        description=(
            "the instant the sync's windows and the emulator's data are placed around (epoch "
            "seconds or ISO, e.g. `2026-12-20T00:00:00Z`), for tests and replays; default the "
            "real time"
        ),
    )
    destination: str = Field(
        "duckdb",
        description="the raw warehouse: `duckdb` or `postgres` (dlt's `DESTINATION__POSTGRES__*`)",
    )
    pipelines_dir: Path | None = Field(
        None,
        description="dlt's working folder (state, pending packages); default "
        "`<warehouse dir>/pipelines`",
    )
    duckdb_memory_limit: str | None = Field(
        None,
        description="DuckDB's memory during loads (e.g. `2GB`); default a quarter of the "
        "available memory (256 MB..8 GB); beyond it DuckDB spills to `<warehouse>.tmp`. On a "
        "worker of 1-2 GiB set `256MB` and dlt's `LOAD__WORKERS=1` (one load job at a time): a "
        "sync of 20,000 wide users then peaks at 574-614 MiB per stream group "
        "(benchmarks/README.md)",
    )
    writer_timeout: float = Field(
        3600.0,
        description=(
            "seconds a job waits for the warehouse's writer lock (DuckDB: any other job; "
            "PostgreSQL: another job of its kind)"
        ),
    )
    snapshot: Path | None = Field(
        None,
        description="the read-only snapshot for BI; default `<warehouse dir>/analytics.duckdb`",
    )
    report: Path | None = Field(
        None,
        description="the static HTML report the nightly writes after each publish (and `wfm-sync "
        "report` on demand); default `<warehouse dir>/report.html`",
    )
    parquet_dir: Path | None = Field(
        None,
        description="where every publish also writes each mart as `<mart>.parquet` (a link to "
        "the latest complete folder, with a `_published.json` manifest); default "
        "`<warehouse dir>/marts`",
    )
    publish_raw_schemas: bool = Field(
        False,
        description="`1` also copies the raw schemas `connecteam` and `webhooks` (webhook "
        "payloads with chat message text, quarantined bodies) into the snapshot; default only "
        "`staging`, `marts` and the `health` summary",
    )
    run_log: Path | None = Field(
        None,
        description="one JSON line per job run, read by `wfm-sync status`; default "
        "`<warehouse dir>/runs.jsonl`",
    )
    dbt_project_dir: Path | None = Field(
        None, description="the dbt project; default the repository's `sql/` folder"
    )
    dbt_target_dir: Path | None = Field(
        None,
        description="where dbt writes its artifacts (manifest, run results, docs) and its log; "
        "default the dbt project's `target/` and `logs/`. Its `parse_caches/` keeps dbt's parse "
        "cache of the configurations used last (warehouse name, target, variables): going back "
        "to one does not parse the whole project again",
    )
    currency: str | None = Field(
        None,
        description="the account's currency (ISO 4217, e.g. `EUR`), named beside labour cost in "
        "`fct_labour_cost_daily.currency`, the dashboard and the report (the provider's API "
        "states none); default unnamed",
    )
    dbt_verbose: bool = Field(
        False,
        description="`1` prints dbt's log per model and test, and writes its `debug` file log"
        " (every statement; `info` otherwise)",
    )
    nightly_cron: str = Field("0 2 * * *", description="cron of the `nightly_sync` deployment")
    timezone: str = Field("UTC", description="IANA timezone of the nightly cron")
    fold_every: int = Field(300, description="seconds between `fold_webhooks` runs when served")
    max_age: str = Field(
        "26h",
        description="`wfm-sync status`: API tables and the sync/models/publish jobs are stale "
        "after this",
    )
    fold_max_age: str = Field(
        "1h", description="`wfm-sync status`: the webhook fold is stale after this"
    )

    @field_validator("destination")
    @classmethod
    def _known_destination(cls, value: str) -> str:
        name = value.strip().lower() or "duckdb"
        if name not in DESTINATIONS:
            raise ValueError(
                f"{ENV_PREFIX}DESTINATION={value!r} is not supported; "
                f"use one of {list(DESTINATIONS)}"
            )
        return name

    @field_validator(
        "pipelines_dir", "snapshot", "report", "parquet_dir", "run_log", "dbt_project_dir",
        "dbt_target_dir",
    )  # fmt: skip
    @classmethod
    def _from_the_project(cls, value: Path | None) -> Path | None:
        return None if value is None else in_project(value)

    @field_validator("now")
    @classmethod
    def _an_instant(cls, value: str | None) -> str | None:
        if value and value.strip():
            instant_of(value.strip())  # raises naming WFM_SYNC_NOW and the value
        return value

    @field_validator("currency")
    @classmethod
    def _currency_code(cls, value: str | None) -> str | None:
        if value is None:
            return None
        code = currency_code(value)
        if code is None:
            raise ValueError(
                f"{ENV_PREFIX}CURRENCY={value!r} is not an ISO 4217 code; "
                "use three letters, e.g. EUR"
            )
        return code

    @field_validator("now", "duckdb_memory_limit", "currency", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value


def currency_code(value: str) -> str | None:
    """``value`` as an ISO 4217 code (three ASCII letters, upper-cased, spaces around ignored),
    ``None`` when it is not one."""
    code = value.strip().upper()
    return code if len(code) == 3 and code.isalpha() and code.isascii() else None


DESTINATIONS = ("duckdb", "postgres")
"""The raw warehouses the jobs can load into."""

FOLD_RETENTION_DAYS = 7.0
"""Days a folded inbox row is kept before a fold prunes it, unless the fold is told otherwise."""

PROJECT_DIR_VARIABLE = "DLT_PROJECT_DIR"
"""dlt's own name for the project's home (its run directory): ``.dlt/`` is read from there and
every relative path of the project resolves from there. ``wfm-sync --project-dir`` sets it."""


def project_dir() -> Path:
    """The project's home: dlt's run directory, ``DLT_PROJECT_DIR`` when set, else the directory
    the process started in. ``.dlt/config.toml`` and ``.dlt/secrets.toml`` are read from its
    ``.dlt/``; :func:`in_project` resolves relative paths from it."""
    from dlt.common.runtime.run_context import active

    return Path(active().run_dir).expanduser().resolve()


def in_project(path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute: ``~`` expanded, a relative path taken from :func:`project_dir`
    (never from the current directory of a later ``cd``)."""
    value = Path(path).expanduser()
    return value if value.is_absolute() else project_dir() / value


def current() -> Settings:
    """The settings as the environment holds them now: a test or the demo that sets a variable is
    seen at the next call. Validating takes about a millisecond, so the (frozen) result is kept
    per distinct set of ``WFM_SYNC_*`` variables; the clock asks on every call.

    Raises:
        pydantic.ValidationError: A ``WFM_SYNC_*`` variable holds a value of the wrong kind.
    """
    variables = tuple(
        sorted(
            (k, v)
            for k, v in os.environ.items()
            if k.upper().startswith(ENV_PREFIX) or k == PROJECT_DIR_VARIABLE
        )
    )
    return _validated(variables)


@functools.lru_cache(maxsize=16)
def _validated(variables: tuple[tuple[str, str], ...]) -> Settings:
    """:class:`Settings` read while the environment's ``WFM_SYNC_*`` variables are
    ``variables`` (the cache key; pydantic-settings reads them from the environment itself)."""
    return Settings()


def markdown_table() -> str:
    """The settings table of docs/configuration.md: ``| variable | default | what it sets |``,
    one row per field."""
    lines = ["| variable | default | what it sets |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = "unset" if field.default is None else f"`{field.default}`"
        lines.append(f"| `{ENV_PREFIX}{name.upper()}` | {default} | {field.description} |")
    return "\n".join(lines) + "\n"


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Set ``values`` in the process environment for the block, then restore each variable to
    what it was (unset if it was unset), whatever the block raised."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def instant_of(raw: str) -> float:
    """Epoch seconds (UTC) of ``raw``, the value of ``WFM_SYNC_NOW``: epoch seconds, or an ISO
    8601 date or datetime (UTC when it names no zone).

    Raises:
        ValueError: ``raw`` is neither (the message names ``WFM_SYNC_NOW`` and the value).
    """
    try:
        return float(raw)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{ENV_PREFIX}NOW={raw!r} is not epoch seconds or an ISO date/datetime such as "
            "2026-12-20T00:00:00Z; unset it to use the real clock"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
