"""The edge's one resolution of a :class:`core.project.Project`: settings, paths, the run's
instant, and dlt's configuration of the ``connecteam`` source and the webhook inbox.

Called by the command line, the Prefect flows a deployment starts, the demo, benchmarks and
tests; never by a job (``pipelines``), the dashboard or a resource: they take the
:class:`~core.project.Project` they are given (``tests/e2e/test_project.py`` and the import
contracts keep it so).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dlt.common.configuration import resolve_configuration
from dlt.common.configuration.exceptions import ConfigValueCannotBeCoercedException
from dlt.common.configuration.specs.base_configuration import is_secret_hint
from pydantic import SecretStr

from core import clock
from core.paths import paths_beside, warehouse_file
from core.project import Project, SourceConfig, WebhooksConfig
from core.settings import Settings, current

from .connecteam.config import SECTIONS, ConnecteamSourceConfiguration
from .connecteam.errors import ConnecteamConfigError
from .webhooks.config import absolute_inbox_url, configured_inbox_url


def resolve(
    warehouse: Path | None = None, *, inbox_url: str | None = None, **setting_options: Any
) -> Project:
    """The configured project, resolved now.

    Args:
        warehouse: The DuckDB warehouse file; default dlt's ``DESTINATION__DUCKDB__CREDENTIALS``
            (or ``.dlt/``), else ``data/warehouse.duckdb`` in the project's home
            (:func:`core.paths.warehouse_file`).
        inbox_url: The webhook inbox's SQLAlchemy URL (``--inbox-url``); default
            ``WEBHOOKS__INBOX_URL`` / ``[webhooks] inbox_url``, else
            ``sqlite:///data/inbox.sqlite3``.
        setting_options: The command line's options by setting name (``None`` values are not
            given), over the ``WFM_SYNC_*`` environment and the defaults.

    Returns:
        A :class:`~core.project.Project` whose ``now`` is ``WFM_SYNC_NOW`` (or the option
        ``now``) when set, else this instant.

    Raises:
        pydantic.ValidationError: A ``WFM_SYNC_*`` variable or an option holds a value of the
            wrong kind (the message names the variable).
        ValueError: ``WFM_SYNC_NOW`` is not an instant.
        ConnecteamConfigError: A ``SOURCES__CONNECTEAM__*`` value of the wrong kind.
        InboxURLError: ``[webhooks] inbox_url`` is in ``.dlt/config.toml``.
    """
    given = {name: value for name, value in setting_options.items() if value is not None}
    configured = Settings(**given) if given else current()
    path = warehouse.expanduser().resolve() if warehouse is not None else warehouse_file()
    url = absolute_inbox_url(inbox_url) if inbox_url else configured_inbox_url()
    return Project(
        settings=configured,
        paths=paths_beside(path, configured),
        now=clock.instant(configured.now),
        source=source_config(),
        webhooks=WebhooksConfig(inbox_url=SecretStr(url)),
    )


def source_config() -> SourceConfig:
    """dlt's ``sources.connecteam`` configuration as it stands (``.dlt/config.toml``,
    ``.dlt/secrets.toml``, ``SOURCES__CONNECTEAM__*``): the fields that are set, secrets apart.
    Missing credentials are no error here; the source reports them when it is built.

    Raises:
        ConnecteamConfigError: A value of the wrong kind (the message names the variable).
    """
    try:
        config = resolve_configuration(
            ConnecteamSourceConfiguration(), sections=SECTIONS, accept_partial=True
        )
    except ConfigValueCannotBeCoercedException as exc:
        name = f"{'__'.join(SECTIONS).upper()}__{exc.field_name.upper()}"
        raise ConnecteamConfigError(
            f"{name} cannot be read as {getattr(exc.hint, '__name__', exc.hint)}; correct or "
            "unset it"
        ) from None
    options: dict[str, Any] = {}
    secrets: dict[str, SecretStr] = {}
    for name, hint in config.get_resolvable_fields().items():
        value = getattr(config, name, None)
        if value is None:
            continue
        if is_secret_hint(hint):
            secrets[name] = SecretStr(str(value))
        else:
            options[name] = value
    return SourceConfig(options=options, secrets=secrets)
