"""Reading an exception's story (``core.errors``): its chain of causes (explicit, implicit,
hidden by ``from None``, cyclic) and whether a full disk is among them, in any of the shapes the
drivers report it, never the provider's words; and the one-line message. Exceptions are built
in memory and the free space is stubbed: the test starts nothing and fills no disk."""

from __future__ import annotations

import errno
import sqlite3
from collections import namedtuple
from pathlib import Path

import pytest

from core import errors
from core.errors import DiskFull, cause_chain, disk_full


def chained(outer: BaseException, inner: BaseException, *, explicit: bool = True) -> BaseException:
    """``outer`` raised while handling ``inner`` (``from inner`` when ``explicit``)."""
    try:
        try:
            raise inner
        except BaseException as exc:
            if explicit:
                raise outer from exc
            raise outer  # noqa: B904 - the implicit context is what this builds
    except BaseException as caught:  # noqa: BLE001 - returned for the test to read
        return caught


def driver_error(module: str, text: str) -> Exception:
    """An exception whose class lives in ``module`` (as a database driver's would)."""
    kind = type("IOException", (Exception,), {"__module__": module})
    return kind(text)


def test_the_chain_follows_causes_and_contexts_unless_hidden() -> None:
    inner, outer = ValueError("inner"), RuntimeError("outer")
    assert cause_chain(chained(outer, inner)) == [outer, inner]
    inner2, outer2 = KeyError("k"), TypeError("t")
    assert cause_chain(chained(outer2, inner2, explicit=False)) == [outer2, inner2]
    hidden = RuntimeError("hidden")
    try:
        try:
            raise ValueError("unseen")
        except ValueError:
            raise hidden from None
    except RuntimeError:
        pass
    assert cause_chain(hidden) == [hidden]
    alone = OSError("alone")
    assert cause_chain(alone) == [alone]
    a, b = ValueError("a"), ValueError("b")
    a.__cause__, b.__cause__ = b, a  # a cycle: each listed once
    assert cause_chain(a) == [a, b]


def test_an_oserror_of_a_full_disk_names_its_file() -> None:
    """A full disk, a spent quota, a file-size limit: each is a full disk."""
    for number in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        exc = OSError(number, "no room", "/data/load/part-1.parquet")
        got = disk_full(chained(RuntimeError("load failed"), exc))
        assert got == DiskFull("/data/load/part-1.parquet"), number
        assert disk_full(OSError(number, "no room")) == DiskFull(None), number


def test_a_drivers_words_say_it_and_nothing_else_does() -> None:
    duck = driver_error("duckdb", 'IO Error: Could not write file "/w/wh.duckdb.wal": No space '
                        "left on device")  # fmt: skip
    assert disk_full(chained(RuntimeError("sync failed"), duck)) == DiskFull("/w/wh.duckdb.wal")
    assert disk_full(sqlite3.OperationalError("database or disk is full")) == DiskFull(None)
    postgres = driver_error("psycopg2.errors", "could not extend file base/1/2: wrote only 4096")
    assert disk_full(postgres) == DiskFull(None)
    assert disk_full(driver_error("duckdb", "Catalog Error: table x does not exist")) is None
    # other OSErrors and plain errors are not a full disk
    assert disk_full(OSError(errno.ENOENT, "No such file", "/x")) is None
    assert disk_full(ValueError("bad value")) is None
    # the provider's answer quoting the words is not our disk
    assert disk_full(RuntimeError('Could not write file "/w/x": No space left on device')) is None


def test_the_deepest_cause_speaks_first() -> None:
    """An outer driver error may quote another path; the root OSError names the real file."""
    root = OSError(errno.ENOSPC, "No space left on device", "/real/file")
    outer = driver_error("dlt.common", 'failed: "/quoted/elsewhere": No space left on device')
    assert disk_full(chained(outer, root)) == DiskFull("/real/file")


def test_the_message_names_the_disk_and_the_space_free_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[Path] = []
    usage = namedtuple("usage", "total used free")

    def disk_usage(folder: Path) -> usage:
        asked.append(Path(folder))
        return usage(0, 0, 3 * 1024 * 1024 // 2)

    monkeypatch.setattr(errors.shutil, "disk_usage", disk_usage)
    missing = tmp_path / "not" / "yet" / "made.parquet"
    full = DiskFull(str(missing))
    assert full.free_bytes() == 1_572_864
    assert asked == [tmp_path]  # the nearest folder that exists
    assert full.message() == (
        f"the disk is full: no space left on the disk of {missing} (1.5 MiB free there now); "
        "free some space and run again (nothing half-written is kept: the run resumes or "
        "starts clean)"
    )
    assert DiskFull(None).free_bytes() is None
    assert DiskFull(None).message().startswith("the disk is full: no space left; free some")


def test_a_disk_that_cannot_be_asked_leaves_the_space_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(_folder: Path) -> None:
        raise PermissionError("denied")

    monkeypatch.setattr(errors.shutil, "disk_usage", refuse)
    full = DiskFull(str(tmp_path / "f"))
    assert full.free_bytes() is None
    assert "MiB" not in full.message() and f"on the disk of {tmp_path / 'f'};" in full.message()
