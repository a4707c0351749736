"""The edge's one resolution of a :class:`core.project.Project`: settings, paths, the run's
instant, and dlt's configuration of the ``connecteam`` source and the webhook inbox.

Called by the command line, the Prefect flows a deployment starts, the demo, benchmarks and
tests; never by a job (``pipelines``), the dashboard or a resource: they take the
:class:`~core.project.Project` they are given (``tests/e2e/test_project.py`` and the import
contracts keep it so).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import dlt
from dlt.common.configuration import resolve_configuration
from dlt.common.configuration.exceptions import ConfigValueCannotBeCoercedException
from dlt.common.configuration.specs.base_configuration import is_secret_hint
from dlt.common.typing import TSecretStrValue
from pydantic import SecretStr

from core import clock
from core.paths import paths_beside, warehouse_file
from core.project import DEFAULT_ACCOUNT, Account, Project, SourceConfig, WebhooksConfig
from core.settings import Settings, currency_code, current

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
        ``now``) when set, else this instant, with every configured account
        (:func:`resolve_accounts`), working for the first (``default`` when configured).

    Raises:
        pydantic.ValidationError: A ``WFM_SYNC_*`` variable or an option holds a value of the
            wrong kind (the message names the variable).
        ValueError: ``WFM_SYNC_NOW`` is not an instant.
        ConnecteamConfigError: A ``SOURCES__CONNECTEAM__*`` value of the wrong kind, or an
            account configured wrongly (:func:`resolve_accounts`).
        InboxURLError: ``[webhooks] inbox_url`` is in ``.dlt/config.toml``.
    """
    given = {name: value for name, value in setting_options.items() if value is not None}
    configured = Settings(**given) if given else current()
    path = warehouse.expanduser().resolve() if warehouse is not None else warehouse_file()
    url = absolute_inbox_url(inbox_url) if inbox_url else configured_inbox_url()
    accounts = resolve_accounts()
    return Project(
        settings=configured,
        paths=paths_beside(path, configured),
        now=clock.instant(configured.now),
        source=accounts[0].source,
        webhooks=WebhooksConfig(inbox_url=SecretStr(url)),
        account=accounts[0].name,
        accounts=accounts,
    )


def source_config() -> SourceConfig:
    """dlt's ``sources.connecteam`` configuration as it stands (``.dlt/config.toml``,
    ``.dlt/secrets.toml``, ``SOURCES__CONNECTEAM__*``): the fields that are set, secrets apart.
    Missing credentials are no error here; the source reports them when it is built.

    Raises:
        ConnecteamConfigError: A value of the wrong kind (the message names the variable).
    """
    return _configured(SECTIONS)


def _configured(sections: tuple[str, ...]) -> SourceConfig:
    """:func:`source_config` of the section ``sections`` (dlt's lookup: a field the section
    does not set is looked for in the sections above it)."""
    try:
        config = resolve_configuration(
            ConnecteamSourceConfiguration(), sections=sections, accept_partial=True
        )
    except ConfigValueCannotBeCoercedException as exc:
        name = f"{'__'.join(sections).upper()}__{exc.field_name.upper()}"
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


ACCOUNT_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
"""An account's name: it names the account's dataset and dlt pipeline."""
ACCOUNTS_SECTIONS = (*SECTIONS, "accounts")
"""``[sources.connecteam.accounts.<name>]``, ``SOURCES__CONNECTEAM__ACCOUNTS__<NAME>__*``."""
OWN_FIELDS = ("api_key", "client_id", "client_secret", "base_url")
"""What an account never takes from ``[sources.connecteam]``: whose data it reads, and where."""
SECRET_FIELDS = ("api_key", "client_secret")


def resolve_accounts() -> tuple[Account, ...]:
    """Every configured account: ``default`` (``[sources.connecteam]`` itself) first when its
    credentials are set or no other account is named, then each
    ``[sources.connecteam.accounts.<name>]`` by name.

    A named account's credentials (``api_key``, or ``client_id`` and ``client_secret``) and
    ``base_url`` are its section's own (``base_url`` defaults to the provider's host, never to
    ``[sources.connecteam]``'s); its other fields (timeouts, windows, ...) are its section's
    when set, else ``[sources.connecteam]``'s. ``display_name`` and ``currency`` are optional.

    Raises:
        ConnecteamConfigError: A name that is not lower-case letters, digits and ``_``
            (at most 32, starting with a letter); a named account without credentials of its
            own; ``default`` configured both ways; a currency that is not three letters; a
            value of the wrong kind. Each message names the section or variable.
    """
    names = account_names()
    top = source_config()
    accounts = []
    if _has_credentials(top.secrets, top.options) or not names:
        if DEFAULT_ACCOUNT in names:
            raise ConnecteamConfigError(
                "the default account is configured twice, in [sources.connecteam] and in "
                "[sources.connecteam.accounts.default]: keep one"
            )
        accounts.append(Account(name=DEFAULT_ACCOUNT, display_name=DEFAULT_ACCOUNT, source=top))
    accounts += [_named_account(name) for name in sorted(names)]
    return tuple(accounts)


def account_names() -> set[str]:
    """The names of the ``[sources.connecteam.accounts.<name>]`` tables of dlt's TOML files
    (``.dlt/config.toml``, ``.dlt/secrets.toml``) and of the
    ``SOURCES__CONNECTEAM__ACCOUNTS__<NAME>__<FIELD>`` variables (a vault provider can hold an
    account's secrets, not name it).

    Raises:
        ConnecteamConfigError: A name that is not an account name (:data:`ACCOUNT_NAME`).
    """
    names: set[str] = set()
    for provider in dlt.config.config_providers:
        value, _ = provider.get_value("accounts", dict, None, *SECTIONS)
        if isinstance(value, dict):  # a table per account; other keys are shared settings
            names |= {str(name) for name, table in value.items() if isinstance(table, dict)}
    prefix = "__".join(ACCOUNTS_SECTIONS).upper() + "__"
    for variable in os.environ:
        if variable.startswith(prefix):
            name, separator, _ = variable.removeprefix(prefix).partition("__")
            if separator:  # <NAME>__<FIELD>
                names.add(name.lower())
    wrong = sorted(name for name in names if not ACCOUNT_NAME.fullmatch(name))
    if wrong:
        raise ConnecteamConfigError(
            f"account name(s) {wrong} in [sources.connecteam.accounts]: use lower-case letters, "
            "digits and _, starting with a letter, at most 32 characters"
        )
    return names


def _named_account(name: str) -> Account:
    """The account of ``[sources.connecteam.accounts.<name>]`` (see :func:`resolve_accounts`)."""
    sections = (*ACCOUNTS_SECTIONS, name)
    resolved = _configured(sections)
    own = {field: _own_value(field, sections) for field in (*OWN_FIELDS, "display_name")}
    given = str(_own_value("currency", sections) or "").strip()
    currency = currency_code(given) if given else None
    secrets = {k: v for k, v in resolved.secrets.items() if k not in OWN_FIELDS}
    secrets |= {k: SecretStr(str(own[k])) for k in SECRET_FIELDS if own[k]}
    options = {k: v for k, v in resolved.options.items() if k not in OWN_FIELDS}
    options |= {k: str(own[k]) for k in ("client_id", "base_url") if own[k]}
    if not _has_credentials(secrets, options):
        variable = "__".join(sections).upper()
        raise ConnecteamConfigError(
            f"account {name}: no credentials of its own: set api_key (or client_id and "
            f"client_secret) in [sources.connecteam.accounts.{name}] or {variable}__API_KEY; "
            "an account never uses another's"
        )
    if given and currency is None:
        raise ConnecteamConfigError(
            f"account {name}: currency {given!r} is not an ISO 4217 code (three letters, such "
            "as EUR)"
        )
    return Account(
        name=name,
        display_name=str(own["display_name"] or name),
        currency=currency,
        source=SourceConfig(options=options, secrets=secrets),
    )


def _own_value(field: str, sections: tuple[str, ...]) -> Any:
    """``field`` as the first dlt provider sets it in exactly ``sections`` (no lookup in the
    sections above); ``None`` when none does. Secret fields are asked for as secrets, which
    vault providers answer only for."""
    hint: Any = TSecretStrValue if field in SECRET_FIELDS else str
    for provider in dlt.config.config_providers:
        value, _ = provider.get_value(field, hint, None, *sections)
        if value is not None:
            return value
    return None


def _has_credentials(secrets: dict[str, SecretStr], options: dict[str, Any]) -> bool:
    """An API key, or an OAuth 2.0 client id and secret."""
    return "api_key" in secrets or ("client_id" in options and "client_secret" in secrets)
