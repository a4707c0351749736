"""One resolved configuration of wfm-sync (:class:`Project`), worked out once at the edge and
passed down to every job as a required parameter.

The command line, the Prefect flows a deployment starts (:mod:`flows.prefect_flows`) and the
demo resolve it with :func:`sources.configuration.resolve`: the options, then the ``WFM_SYNC_*``
environment (:class:`core.settings.Settings`), then dlt's configuration (``.dlt/`` files and
``SOURCES__CONNECTEAM__*``, ``WEBHOOKS__INBOX_URL``, ``DESTINATION__DUCKDB__CREDENTIALS``), then
the defaults; every path beside the warehouse comes from :func:`core.paths.paths_beside`, and
the run's one instant from :func:`core.clock.now`. The jobs (``pipelines``), the flows and the
dashboard take the :class:`Project` and read nothing of the environment or of dlt's
configuration themselves.

Secrets (the account's key, a PostgreSQL inbox URL) are :class:`pydantic.SecretStr`, which
Prefect stores as ``**********`` when the project is a flow's parameter, and which no ``repr``
or log line shows. The warehouse's PostgreSQL credentials stay in dlt's providers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr

from .paths import ProjectPaths, paths_beside
from .settings import Settings


class SourceConfig(BaseModel):
    """The ``connecteam`` source's configuration, resolved once at the edge
    (:func:`sources.configuration.resolve`: dlt's ``sources.connecteam`` section, i.e.
    ``.dlt/config.toml``, ``.dlt/secrets.toml`` and ``SOURCES__CONNECTEAM__*``), or an account
    handed in over it (the demo's emulator, a test's).

    Attributes:
        options: The non-secret fields of
            :class:`sources.connecteam.config.ConnecteamSourceConfiguration` by name
            (``base_url``, ``timeout``, the windows in days, ...), as resolved; a field left
            unset keeps the source's default.
        secrets: Its secret fields (``api_key``, ``client_secret``) that are set.
    """

    model_config = ConfigDict(frozen=True)

    options: dict[str, Any] = {}
    secrets: dict[str, SecretStr] = {}

    @classmethod
    def account(cls, base_url: str, api_key: str) -> SourceConfig:
        """Only an account: ``base_url`` and ``api_key`` (the other fields keep the source's
        defaults)."""
        return cls(options={"base_url": base_url}, secrets={"api_key": SecretStr(api_key)})

    def with_account(self, base_url: str, api_key: str) -> SourceConfig:
        """This configuration with the account at ``base_url`` and ``api_key`` in place of the
        configured one (OAuth 2.0 client credentials dropped); every other field kept."""
        kept = {k: v for k, v in self.secrets.items() if k not in ("api_key", "client_secret")}
        options = {k: v for k, v in self.options.items() if k != "client_id"}
        return SourceConfig(
            options={**options, "base_url": base_url},
            secrets={**kept, "api_key": SecretStr(api_key)},
        )

    def arguments(self) -> dict[str, Any]:
        """Every field, secrets in clear: keyword arguments of
        :func:`sources.connecteam.connecteam_source` (and of its client's configuration)."""
        return {**self.options, **{k: v.get_secret_value() for k, v in self.secrets.items()}}

    @property
    def base_url(self) -> str | None:
        """The configured API host, ``None``: the source's default."""
        value = self.options.get("base_url")
        return str(value) if value else None


DEFAULT_ACCOUNT = "default"
"""The name of the one account configured the old way (``[sources.connecteam]`` itself)."""
DEFAULT_DATASET = "connecteam"
"""The dataset (and dlt pipeline) of the ``default`` account: what one account always had."""


def account_dataset(account: str) -> str:
    """The dataset (schema) and dlt pipeline name of ``account``'s raw tables and state:
    ``connecteam`` for ``default`` (a warehouse of one account keeps its tables where they
    were), ``connecteam_<account>`` for every other."""
    return DEFAULT_DATASET if account == DEFAULT_ACCOUNT else f"{DEFAULT_DATASET}_{account}"


class Account(BaseModel):
    """One Connecteam account of the warehouse: the old way's ``default``, or one of
    ``[sources.connecteam.accounts.<name>]`` (:func:`sources.configuration.resolve_accounts`).

    Attributes:
        name: Lower-case letters, digits and ``_``, starting with a letter, at most 32
            characters (it names the account's dataset and dlt pipeline); ``default`` for the
            account configured the old way.
        display_name: How dashboards label it (default: ``name``).
        currency: The ISO 4217 code its pay is in, when given (``None``: not stated).
        source: Its source configuration: its own credentials and ``base_url``, the other
            fields as ``[sources.connecteam]`` sets them unless its section sets its own.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    display_name: str
    currency: str | None = None
    source: SourceConfig


class WebhooksConfig(BaseModel):
    """The webhook inbox the fold and ``wfm-sync status`` read, resolved once at the edge
    (dlt's ``[webhooks] inbox_url``, ``WEBHOOKS__INBOX_URL``, or ``--inbox-url``).

    Attributes:
        inbox_url: The inbox's SQLAlchemy URL (secret: a PostgreSQL URL holds a password), a
            relative SQLite path made absolute from the project's home. Not yet checked for
            use: whoever opens the inbox checks it
            (:func:`sources.webhooks.config.check_inbox_url`).
    """

    model_config = ConfigDict(frozen=True)

    inbox_url: SecretStr

    @property
    def url(self) -> str:
        """:attr:`inbox_url` in clear."""
        return self.inbox_url.get_secret_value()


class Project(BaseModel):
    """Everything the jobs need to know about where they work and when, resolved once
    (:func:`sources.configuration.resolve`) and passed down as a required parameter.

    Attributes:
        settings: The project's ``WFM_SYNC_*`` settings.
        paths: The warehouse file and every path beside it (:func:`core.paths.paths_beside`).
        now: The run's one "as of" instant, epoch seconds (UTC): ``WFM_SYNC_NOW`` when set,
            else the time it was resolved (:func:`core.clock.now`). Every window, tombstone,
            pull stamp and staleness of the run is placed by it.
        source: The ``connecteam`` source's configuration: :attr:`account`'s.
        webhooks: The webhook inbox's configuration.
        account: The account the jobs work for (:meth:`for_account`): whose dataset the sync
            loads (:attr:`dataset`), whose writer lock it takes.
        accounts: Every configured account (:func:`sources.configuration.resolve_accounts`),
            :attr:`account` among them; empty when the source was handed in (a test's, the
            demo's emulator).
    """

    model_config = ConfigDict(frozen=True)

    settings: Settings
    paths: ProjectPaths
    now: float
    source: SourceConfig
    webhooks: WebhooksConfig
    account: str = DEFAULT_ACCOUNT
    accounts: tuple[Account, ...] = ()

    @property
    def dataset(self) -> str:
        """:attr:`account`'s dataset and dlt pipeline name (:func:`account_dataset`)."""
        return account_dataset(self.account)

    @property
    def account_names(self) -> tuple[str, ...]:
        """The names of :attr:`accounts` in their order, or ``(account,)`` when none are
        configured."""
        return tuple(a.name for a in self.accounts) or (self.account,)

    def for_account(self, name: str) -> Project:
        """This project working for the configured account ``name``: its source
        configuration, its dataset; everything else shared. For the account it already works
        for, itself: the source it was given stays (one handed in over the configured one).

        Raises:
            KeyError: No account of that name is configured (the message lists them).
        """
        if name == self.account:  # its source as given (the demo's, a test's account)
            return self
        for account in self.accounts:
            if account.name == name:
                return self.model_copy(update={"source": account.source, "account": name})
        raise KeyError(
            f"no account {name!r} is configured; configured: {', '.join(self.account_names)}"
        )

    @property
    def destination(self) -> str:
        """The raw warehouse's kind: ``duckdb`` or ``postgres`` (setting ``destination``)."""
        return self.settings.destination

    @property
    def warehouse(self) -> Path:
        """The DuckDB warehouse file (not used on PostgreSQL but to place the other paths)."""
        return self.paths.warehouse

    def at(self, warehouse: Path) -> Project:
        """This project with its warehouse at ``warehouse``: the paths the settings leave unset
        move beside it (:func:`core.paths.paths_beside`)."""
        path = warehouse.expanduser().resolve()
        return self.model_copy(update={"paths": paths_beside(path, self.settings)})

    def with_settings(self, **changes: Any) -> Project:
        """This project with ``changes`` to its settings (validated as the environment's would
        be), the paths worked out again from them.

        Raises:
            pydantic.ValidationError: A change is of the wrong kind (the message names it).
        """
        changed = Settings(**{**self.settings.model_dump(exclude_unset=True), **changes})
        return self.model_copy(
            update={"settings": changed, "paths": paths_beside(self.warehouse, changed)}
        )


def given(arguments: dict[str, Any], job: str) -> Project:
    """The :class:`Project` a job was called with as keyword ``project`` (for a decorator
    wrapping the job).

    Raises:
        TypeError: No project was given: every job takes one, resolved at the edge
            (:func:`sources.configuration.resolve`).
    """
    project = arguments.get("project")
    if not isinstance(project, Project):
        raise TypeError(
            f"{job} takes project=, a core.project.Project resolved at the edge "
            "(sources.configuration.resolve()), got "
            f"{type(project).__name__ if project is not None else 'none'}"
        )
    return project
