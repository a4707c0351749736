"""One resolved configuration of wfm-sync (:class:`Project`), worked out once at the edge and
passed down to every job.

The command line (and a Prefect flow started without one, e.g. by a deployment) resolves it
with :func:`resolve`: its options, then the ``WFM_SYNC_*`` environment
(:class:`core.settings.Settings`), then dlt's ``.dlt/`` files for the warehouse, then the
defaults; every path beside the warehouse comes from :func:`core.paths.paths_beside`. The jobs
(``pipelines``), the flows and the dashboard take the :class:`Project` as a parameter and read
nothing of the environment themselves.

Secrets stay in dlt's providers (``.dlt/secrets.toml``, ``SOURCES__CONNECTEAM__*``,
``DESTINATION__POSTGRES__CREDENTIALS``) unless a caller hands an account in (the demo hands its
emulator's): such values are :class:`pydantic.SecretStr`, which Prefect stores as ``**********``
when the project is a flow's parameter, and which no ``repr`` or log line shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr

from .paths import ProjectPaths, paths_beside, warehouse_file
from .settings import Settings, current


class ConnecteamAccount(BaseModel):
    """A Connecteam account handed to the jobs directly instead of through dlt's
    ``sources.connecteam`` configuration.

    Attributes:
        base_url: The API host (``https://api.connecteam.com``, or the emulator's URL).
        api_key: The account's API key (secret).
    """

    model_config = ConfigDict(frozen=True)

    base_url: str
    api_key: SecretStr

    def source_options(self) -> dict[str, Any]:
        """``base_url`` and ``api_key`` (in clear) as arguments of
        :func:`sources.connecteam.connecteam_source`."""
        return {"base_url": self.base_url, "api_key": self.api_key.get_secret_value()}


class Project(BaseModel):
    """Everything the jobs need to know about where they work, resolved once.

    Attributes:
        settings: The project's ``WFM_SYNC_*`` settings.
        paths: The warehouse file and every path beside it (:func:`core.paths.paths_beside`).
        account: The account to sync, when handed in; ``None``: dlt's ``sources.connecteam``
            configuration (``.dlt/secrets.toml``, ``SOURCES__CONNECTEAM__*``).
        inbox_url: The webhook inbox's SQLAlchemy URL, when handed in (a PostgreSQL URL holds a
            password, hence secret); ``None``: dlt's ``[webhooks] inbox_url``.
    """

    model_config = ConfigDict(frozen=True)

    settings: Settings
    paths: ProjectPaths
    account: ConnecteamAccount | None = None
    inbox_url: SecretStr | None = None

    @property
    def destination(self) -> str:
        """The raw warehouse's kind: ``duckdb`` or ``postgres`` (setting ``destination``)."""
        return self.settings.destination

    @property
    def given_inbox_url(self) -> str | None:
        """The inbox URL handed in, in clear; ``None``: dlt's ``[webhooks] inbox_url``."""
        return self.inbox_url.get_secret_value() if self.inbox_url is not None else None

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


def resolve(warehouse: Path | None = None, **setting_options: Any) -> Project:
    """The configured project: ``setting_options`` (the command line's, by setting name; ``None``
    values are not given), then the ``WFM_SYNC_*`` environment, then the defaults; the warehouse
    ``warehouse`` when given, else dlt's ``DESTINATION__DUCKDB__CREDENTIALS`` (or ``.dlt/``),
    else ``data/warehouse.duckdb`` in the project's home (:func:`core.paths.warehouse_file`).

    Raises:
        pydantic.ValidationError: A ``WFM_SYNC_*`` variable or an option holds a value of the
            wrong kind (the message names the variable).
    """
    given = {name: value for name, value in setting_options.items() if value is not None}
    configured = Settings(**given) if given else current()
    path = warehouse.expanduser().resolve() if warehouse is not None else warehouse_file()
    return Project(settings=configured, paths=paths_beside(path, configured))


def given_or_resolved(project: Project | None) -> Project:
    """``project``, or when a caller gave none (a test, a notebook, a script calling a job
    directly) the configured one (:func:`resolve`)."""
    return project if project is not None else resolve()
