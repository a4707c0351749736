"""What a resolved project carries (``core.project``): the source's configuration with secrets
apart, an account handed in over it, the inbox URL, and the job's demand for a project."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from core.project import Project, SourceConfig, WebhooksConfig, given


def test_secrets_stay_apart_and_come_out_in_clear_only_as_arguments() -> None:
    config = SourceConfig(
        options={"base_url": "https://api.connecteam.com", "timeout": 12.5, "client_id": "c"},
        secrets={"client_secret": SecretStr("s3"), "api_key": SecretStr("k1")},
    )
    assert config.arguments() == {
        "base_url": "https://api.connecteam.com", "timeout": 12.5, "client_id": "c",
        "client_secret": "s3", "api_key": "k1",
    }  # fmt: skip
    assert "k1" not in repr(config) and "s3" not in config.model_dump_json()
    assert config.base_url == "https://api.connecteam.com"
    assert SourceConfig().base_url is None and SourceConfig().arguments() == {}


def test_an_account_handed_in_replaces_the_credentials_and_keeps_every_other_option() -> None:
    configured = SourceConfig(
        options={"base_url": "https://api.connecteam.com", "shifts_days_back": 9, "client_id": "c"},
        secrets={"client_secret": SecretStr("s3")},
    )
    handed = configured.with_account("http://127.0.0.1:8000", "emulator-key")
    assert handed.arguments() == {
        "base_url": "http://127.0.0.1:8000", "shifts_days_back": 9, "api_key": "emulator-key",
    }  # fmt: skip
    assert configured.arguments()["client_secret"] == "s3"  # the configured one is unchanged
    assert SourceConfig.account("http://h", "k").arguments() == {
        "base_url": "http://h",
        "api_key": "k",
    }


def test_a_job_without_a_project_is_told_what_to_pass() -> None:
    with pytest.raises(TypeError, match=r"sync takes project=.*got none"):
        given({}, "sync")
    with pytest.raises(TypeError, match="got str"):
        given({"project": "warehouse.duckdb"}, "fold")


def test_the_inbox_url_is_kept_secret() -> None:
    webhooks = WebhooksConfig(inbox_url=SecretStr("postgresql://u:pw@h/db"))
    assert webhooks.url == "postgresql://u:pw@h/db" and "pw" not in repr(webhooks)
    assert "now" in Project.model_fields and Project.model_fields["now"].is_required()
