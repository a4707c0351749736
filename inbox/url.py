"""The inbox's URL: an SQLAlchemy URL of SQLite or PostgreSQL, checked before any work, an
SQLite file's relative path made absolute from the project's home."""

from __future__ import annotations

import tempfile
from pathlib import Path

import sqlalchemy as sa

from core.settings import in_project

from .defaults import DEFAULT_INBOX_URL

__all__ = ["DEFAULT_INBOX_URL", "InboxURLError", "absolute_inbox_url", "check_inbox_url"]


def absolute_inbox_url(url: str) -> str:
    """``url`` with an SQLite file's relative path made absolute from the project's home
    (:func:`core.settings.in_project`), never from the current directory; any other URL (or
    one that does not parse) unchanged."""
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        return url
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return url
    if parsed.database == ":memory:":
        return url
    return parsed.set(database=str(in_project(parsed.database))).render_as_string(
        hide_password=False
    )


class InboxURLError(ValueError):
    """The inbox URL is not usable: not an SQLAlchemy URL of SQLite or PostgreSQL, or an SQLite
    file that cannot be written. A setting to fix; retrying cannot help."""

    transient = False
    """For :func:`sources.connecteam.transient.is_transient`."""


def _can_write(path: Path, folder: Path) -> bool:
    """Whether ``path`` (if it exists) can be opened for writing and ``folder`` can take a new
    file: tried, not inferred from permission bits (root, read-only file systems)."""
    try:
        if path.exists():
            with path.open("ab"):
                pass
        elif not folder.is_dir():
            return False
        else:
            with tempfile.TemporaryFile(dir=folder):
                pass
    except OSError:
        return False
    return True


def check_inbox_url(url: str, setting: str = "WEBHOOKS__INBOX_URL") -> str:
    """``url`` when it names an inbox the receiver and the fold can use, before any work; a
    relative SQLite path is made absolute from the project's home
    (:func:`core.settings.in_project`), never from the current directory.

    Args:
        url: An SQLAlchemy URL (``sqlite:///path`` or ``postgresql://user:password@host/db``).
        setting: What the user set it with, named in the message (``--inbox-url``).

    Returns:
        ``url``, with an SQLite file's relative path made absolute.

    Raises:
        InboxURLError: Not a database URL, not SQLite or PostgreSQL, or an SQLite file whose
            folder (or the file itself) cannot be written. The message names ``setting`` and
            never shows a password.
    """
    shown = repr(url) if "@" not in url else "(a value holding credentials, not shown)"
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise InboxURLError(
            f"{setting}={shown} is not a database URL; use sqlite:///data/inbox.sqlite3 or "
            "postgresql://user:password@host:5432/database"
        ) from None
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql", "postgres"):
        raise InboxURLError(
            f"{setting} names a {backend!r} database; the inbox is SQLite (sqlite:///path) or "
            "PostgreSQL (postgresql://...)"
        )
    if backend == "sqlite" and parsed.database and parsed.database != ":memory:":
        path = in_project(parsed.database)
        url = parsed.set(database=str(path)).render_as_string(hide_password=False)
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent  # the folder the inbox's folders would be made in
        if not _can_write(path, folder):
            raise InboxURLError(
                f"{setting}: the inbox {path} cannot be written ({folder} is not a folder "
                "this user can write); choose a path it can write, or fix the permissions"
            )
    return url
