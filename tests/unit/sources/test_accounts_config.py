"""Several accounts in one configuration (:func:`sources.configuration.resolve_accounts`),
named by ``SOURCES__CONNECTEAM__ACCOUNTS__<NAME>__*`` variables; the old way's one account is
``default``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sources.configuration import resolve_accounts
from sources.connecteam import ConnecteamConfigError

PREFIX = "SOURCES__CONNECTEAM__ACCOUNTS__"


def secrets_of(account) -> dict[str, str]:
    return {k: v.get_secret_value() for k, v in account.source.secrets.items()}


def test_the_old_way_alone_is_the_default_account(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCES__CONNECTEAM__API_KEY", "old-key")
    (account,) = resolve_accounts()
    assert (account.name, account.display_name, account.currency) == ("default", "default", None)
    assert secrets_of(account) == {"api_key": "old-key"}


def test_nothing_configured_is_a_default_account_without_credentials() -> None:
    (account,) = resolve_accounts()  # the source says what is missing when it is built
    assert account.name == "default" and "api_key" not in account.source.secrets


def test_named_accounts_follow_the_default_and_never_take_its_credentials_or_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOURCES__CONNECTEAM__API_KEY", "old-key")
    monkeypatch.setenv("SOURCES__CONNECTEAM__BASE_URL", "https://api-au.connecteam.com")
    monkeypatch.setenv("SOURCES__CONNECTEAM__TIMEOUT", "12")
    monkeypatch.setenv(PREFIX + "EAST__API_KEY", "east-key")
    monkeypatch.setenv(PREFIX + "EAST__DISPLAY_NAME", "East region")
    monkeypatch.setenv(PREFIX + "EAST__CURRENCY", "usd")
    monkeypatch.setenv(PREFIX + "WEST__CLIENT_ID", "west-client")
    monkeypatch.setenv(PREFIX + "WEST__CLIENT_SECRET", "west-secret")
    monkeypatch.setenv(PREFIX + "WEST__BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv(PREFIX + "WEST__TIMEOUT", "5")
    default, east, west = resolve_accounts()
    assert [a.name for a in (default, east, west)] == ["default", "east", "west"]
    assert default.source.base_url == "https://api-au.connecteam.com"
    assert (east.display_name, east.currency) == ("East region", "USD")
    assert secrets_of(east) == {"api_key": "east-key"}
    assert east.source.base_url is None  # the provider's default host, not the default's
    assert east.source.options["timeout"] == 12  # the shared settings are shared
    assert secrets_of(west) == {"client_secret": "west-secret"}  # no api_key of another
    assert west.source.options["client_id"] == "west-client"
    assert (west.source.base_url, west.source.options["timeout"]) == ("http://127.0.0.1:9", 5)


def test_without_the_old_way_only_the_named_accounts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PREFIX + "NORTH__API_KEY", "north-key")
    assert [a.name for a in resolve_accounts()] == ["north"]


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({PREFIX + "EAST__DISPLAY_NAME": "East"}, "account east: no credentials of its own"),
        ({PREFIX + "EAST__CLIENT_ID": "c"}, "account east: no credentials of its own"),
        ({PREFIX + "9LIVES__API_KEY": "k"}, r"account name\(s\) \['9lives'\]"),
        ({PREFIX + "EAST__API_KEY": "k", PREFIX + "EAST__CURRENCY": "euro"}, "ISO 4217"),
        (
            {"SOURCES__CONNECTEAM__API_KEY": "k", PREFIX + "DEFAULT__API_KEY": "k2"},
            "configured twice",
        ),
    ],
)
def test_a_wrong_account_names_its_section_and_what_to_do(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], message: str
) -> None:
    monkeypatch.setenv("SOURCES__CONNECTEAM__API_KEY", "old-key")
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConnecteamConfigError, match=message) as raised:
        resolve_accounts()
    assert "old-key" not in str(raised.value) and "k2" not in str(raised.value)


@pytest.fixture
def dlt_files(tmp_path: Path) -> Iterator[Callable[[str, str], None]]:
    """``write(secrets_toml, config_toml)``: the test's working directory becomes a project
    whose ``.dlt/`` holds them, and dlt reads them (its providers reloaded); undone after."""
    from dlt.common.configuration.container import Container
    from dlt.common.configuration.specs.pluggable_run_context import PluggableRunContext

    before = os.getcwd()

    def write(secrets: str, config: str) -> None:
        (tmp_path / ".dlt").mkdir(exist_ok=True)
        (tmp_path / ".dlt" / "secrets.toml").write_text(secrets)
        (tmp_path / ".dlt" / "config.toml").write_text(config)
        os.chdir(tmp_path)
        Container()[PluggableRunContext].reload()

    try:
        yield write
    finally:
        os.chdir(before)
        Container()[PluggableRunContext].reload()


def test_accounts_are_tables_of_the_toml_files(dlt_files: Callable[[str, str], None]) -> None:
    dlt_files(
        '[sources.connecteam]\napi_key = "old-key"\n\n'
        "[sources.connecteam.accounts]\ntimeout = 5\n\n"  # a shared setting, not an account
        '[sources.connecteam.accounts.east]\napi_key = "east-key"\n',
        '[sources.connecteam.accounts.east]\ndisplay_name = "East region"\ncurrency = "eur"\n',
    )
    default, east = resolve_accounts()
    assert (default.name, secrets_of(default)) == ("default", {"api_key": "old-key"})
    assert (east.name, east.display_name, east.currency) == ("east", "East region", "EUR")
    assert secrets_of(east) == {"api_key": "east-key"}
    assert east.source.options["timeout"] == 5


def test_the_resolved_project_works_for_each_account_in_its_own_dataset(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from sources.configuration import resolve

    monkeypatch.setenv(PREFIX + "NORTH__API_KEY", "north-key")
    monkeypatch.setenv(PREFIX + "SOUTH__API_KEY", "south-key")
    monkeypatch.setenv(PREFIX + "SOUTH__BASE_URL", "https://api-au.connecteam.com")
    project = resolve(tmp_path / "warehouse.duckdb")
    assert project.account_names == ("north", "south")
    assert (project.account, project.dataset) == ("north", "connecteam_north")
    south = project.for_account("south")
    assert (south.dataset, south.source.base_url) == (
        "connecteam_south",
        "https://api-au.connecteam.com",
    )
    assert south.source.secrets["api_key"].get_secret_value() == "south-key"
    assert (south.warehouse, south.now) == (project.warehouse, project.now)
    with pytest.raises(KeyError, match=r"'west'.*north, south"):
        project.for_account("west")


def test_the_default_account_keeps_its_dataset_and_pipeline_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from core.project import account_dataset
    from sources.configuration import resolve

    monkeypatch.setenv("SOURCES__CONNECTEAM__API_KEY", "old-key")
    project = resolve(tmp_path / "warehouse.duckdb")
    assert (project.account_names, project.dataset) == (("default",), "connecteam")
    assert account_dataset("east") == "connecteam_east"


def test_a_source_handed_in_stays_for_the_account_the_project_works_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The demo and the tests hand their emulator's account in over the configured one: the
    project working for its own account keeps it."""
    from sources.configuration import resolve

    project = resolve(tmp_path / "warehouse.duckdb")  # nothing configured: default, no key
    given = project.model_copy(
        update={"source": project.source.with_account("http://127.0.0.1:9", "demo-key")}
    )
    chosen = given.for_account("default")
    assert chosen.source.secrets["api_key"].get_secret_value() == "demo-key"
    assert chosen.source.base_url == "http://127.0.0.1:9"
