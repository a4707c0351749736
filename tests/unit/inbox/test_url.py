"""The inbox URL (``inbox.url``): a relative SQLite path from the project's home, every other
URL as given; a URL that names no usable inbox refused, naming the setting, never a password."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import in_project
from inbox.url import InboxURLError, absolute_inbox_url, check_inbox_url


def test_a_relative_sqlite_path_is_made_absolute_from_the_project_not_the_folder() -> None:
    assert absolute_inbox_url("sqlite:///data/inbox.sqlite3") == (
        f"sqlite:///{in_project('data/inbox.sqlite3')}"
    )
    for unchanged in ("sqlite:////abs/inbox.sqlite3", "sqlite://", "sqlite:///:memory:",
                      "postgresql://u:pw@h:5432/db", "not a url"):  # fmt: skip
        assert absolute_inbox_url(unchanged) == unchanged


def test_an_unusable_url_is_refused_naming_the_setting_and_hiding_the_password(
    tmp_path: Path,
) -> None:
    with pytest.raises(InboxURLError, match="names a 'mysql' database"):
        check_inbox_url("mysql://u:pw@h/db")
    with pytest.raises(InboxURLError, match=r"--inbox-url=.*not a database URL"):
        check_inbox_url("notaurl", "--inbox-url")
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with pytest.raises(InboxURLError, match="cannot be written") as refused:
        check_inbox_url(f"sqlite:///{blocked}/inbox.sqlite3")
    assert "pw" not in str(refused.value)
    assert check_inbox_url(f"sqlite:///{tmp_path}/ok.sqlite3") == f"sqlite:///{tmp_path}/ok.sqlite3"
