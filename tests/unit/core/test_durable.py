"""Write-then-rename, durably (:mod:`core.durable`): the file (every file of a folder) and its
folder are flushed before the rename, the folder after it. Observed on real files: each real
``os.fsync`` call is recorded by the inode it flushed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.durable import replace_durably


@pytest.fixture
def flushed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """``(inode, event)`` in call order: ``fsync`` for each real ``os.fsync``, ``rename`` for
    the ``os.replace`` (both still done)."""
    calls: list[tuple[int, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        calls.append((os.fstat(fd).st_ino, "fsync"))
        real_fsync(fd)

    def replace(source: str, target: str) -> None:
        calls.append((os.lstat(source).st_ino, "rename"))
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return calls


def test_a_file_and_its_folder_are_flushed_before_the_rename(tmp_path: Path, flushed):
    target = tmp_path / "analytics.duckdb"
    target.write_bytes(b"old")
    temporary = tmp_path / ".analytics.duckdb.tmp"
    temporary.write_bytes(b"new snapshot")
    file, folder = temporary.stat().st_ino, tmp_path.stat().st_ino

    replace_durably(temporary, target)

    assert target.read_bytes() == b"new snapshot" and not temporary.exists()
    rename = flushed.index((file, "rename"))
    assert (file, "fsync") in flushed[:rename] and (folder, "fsync") in flushed[:rename]
    assert (folder, "fsync") in flushed[rename:]  # the rename itself on disk


def test_a_folder_is_flushed_file_by_file_and_a_link_by_its_folder(tmp_path: Path, flushed):
    folder = tmp_path / "versions" / "20261124T180000Z"
    folder.mkdir(parents=True)
    files = [folder / "fct_shifts.parquet", folder / "_published.json"]
    for path in files:
        path.write_text(path.name)
    aside = tmp_path / "marts.before"
    replace_durably(folder, aside)
    assert {(p.stat().st_ino, "fsync") for p in (aside / f.name for f in files)} <= set(flushed)
    assert (aside.stat().st_ino, "fsync") in flushed

    flushed.clear()
    link = tmp_path / ".marts.link"
    os.symlink("marts.before", link)
    replace_durably(link, tmp_path / "marts")
    assert (tmp_path / "marts" / "_published.json").read_text() == "_published.json"
    parent = tmp_path.stat().st_ino
    assert [event for _, event in flushed] == ["fsync", "rename", "fsync"]
    assert flushed[0][0] == flushed[2][0] == parent  # the link lives in its folder's entry
