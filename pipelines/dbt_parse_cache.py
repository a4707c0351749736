"""dbt's parse cache kept for each configuration it is run with, in one target folder.

dbt keeps one parse cache per target folder (``partial_parse.msgpack``) and parses the whole
project again (about 10 s, against 1-2 s) whenever the variables, the profile's target or the
project differ from the run that wrote it. ``wfm-sync`` runs dbt with more than one
configuration in the same folder: DuckDB warehouses of other names, PostgreSQL beside DuckDB,
the project evaluator's variable, a pinned clock. Each of them would throw the other's cache
away. :func:`use_parse_cache` sets the cache of the configuration about to run in place and puts
the one it replaces aside under its own configuration's key (``parse_caches/<key>.msgpack``),
keeping the :data:`KEEP` most recently used. dbt still checks every cache it reads (files,
variables, profile, version) and parses again what changed: a cache set in place wrongly costs a
parse, never a stale model.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

CACHE = "partial_parse.msgpack"
"""dbt's parse cache in its target folder."""

OWNER = "partial_parse.key"
"""Beside it: the key of the configuration it was written for (:func:`parse_key`)."""

KEPT = "parse_caches"
"""The folder of the target folder in which the caches of other configurations wait."""

KEEP = 4
"""How many caches of other configurations are kept (each about 3 MB); the least recently used
goes first."""

PARSE_FLAGS = ("--vars", "--target", "--project-dir", "--profiles-dir")
"""The options of dbt's command line that decide whether a parse cache can be used again."""


def parse_key(arguments: list[str]) -> str:
    """A digest (16 hex digits) of the options of ``arguments`` (dbt's command line) that decide
    whether dbt can use a parse cache again (:data:`PARSE_FLAGS`, with their values); the same
    for ``build`` and ``parse`` with the same configuration."""
    chosen = [
        f"{flag}={arguments[i + 1]}" for i, flag in enumerate(arguments[:-1]) if flag in PARSE_FLAGS
    ]
    return hashlib.blake2b("\0".join(chosen).encode(), digest_size=8).hexdigest()


def use_parse_cache(target: Path, key: str) -> None:
    """Make ``target/partial_parse.msgpack`` the cache last written for configuration ``key``.

    The cache in place, when written for another configuration, is moved aside under that one's
    key; the one of ``key`` is moved in when kept (else dbt parses the whole project and writes
    it); ``target/partial_parse.key`` names ``key`` from then on. A cache whose configuration is
    unknown (written before this file was kept) stays where it is for dbt to judge. One dbt run
    at a time per target folder, as dbt itself requires.

    Raises:
        OSError: ``target`` cannot be written.
    """
    current, owner, kept = target / CACHE, target / OWNER, target / KEPT
    held = owner.read_text(encoding="utf-8").strip() if owner.is_file() else ""
    if held == key:
        return
    target.mkdir(parents=True, exist_ok=True)
    if held and current.is_file():
        kept.mkdir(exist_ok=True)
        os.replace(current, kept / f"{held}.msgpack")
        os.utime(kept / f"{held}.msgpack")  # last used now: pruned last
    waiting = kept / f"{key}.msgpack"
    if waiting.is_file():
        os.replace(waiting, current)
    owner.write_text(key, encoding="utf-8")
    _prune(kept)


def _prune(kept: Path) -> None:
    """Delete all but the :data:`KEEP` most recently used caches in ``kept``."""
    if not kept.is_dir():
        return
    caches = sorted(kept.glob("*.msgpack"), key=lambda path: path.stat().st_mtime, reverse=True)
    for path in caches[KEEP:]:
        path.unlink(missing_ok=True)
