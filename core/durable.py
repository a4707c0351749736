"""Write-then-rename that survives a power cut: the new file's bytes and its folder's entry are on
disk before the rename, and the rename itself is on disk after it.

A ``rename`` alone is atomic for readers but not durable: after a crash the file system may hold
the new name pointing at a file whose bytes never reached the disk (an empty or partial
snapshot), or the old name again. :func:`replace_durably` fsyncs the file (every file of a
folder) and the folder holding it before the rename, and the target's folder after it. Every
write-then-rename of the project goes through it: the published snapshot and the Parquet marts'
link (:mod:`pipelines.publish`, :mod:`pipelines.parquet`) and the static report
(:mod:`dashboard.report`).

It lives at the bottom of the import layers so that ``pipelines``, ``dashboard`` and
``receiver`` may all use it.
"""

from __future__ import annotations

import os
from pathlib import Path


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flush ``path`` (a regular file or a folder; a symbolic link is not followed and is left
    to its folder's fsync) to disk.

    Raises:
        OSError: ``path`` cannot be opened or flushed.
    """
    if os.path.islink(path):
        return
    directory = getattr(os, "O_DIRECTORY", 0) if os.path.isdir(path) else 0
    flags = os.O_RDONLY | directory
    descriptor = os.open(path, flags)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def fsync_tree(folder: str | os.PathLike[str]) -> None:
    """Flush every file and folder under ``folder``, then ``folder`` itself, to disk.

    Raises:
        OSError: A file or folder cannot be opened or flushed.
    """
    for root, folders, files in os.walk(folder, topdown=False):
        for name in (*files, *folders):
            fsync_path(os.path.join(root, name))
    fsync_path(folder)


def replace_durably(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Move ``source`` onto ``target`` with one atomic ``rename`` (:func:`os.replace`), durably:
    ``source`` (a file, or a folder with everything in it) and its folder are flushed to disk
    first, ``target``'s folder after.

    Args:
        source: The finished file, folder or symbolic link.
        target: Its final name, on the same file system (replaced if it exists; a folder only
            replaces an empty folder or nothing).

    Raises:
        OSError: A flush or the rename failed; ``target`` is then as it was, ``source`` stays.
    """
    source, target = Path(source), Path(target)
    if source.is_dir() and not source.is_symlink():
        fsync_tree(source)
    else:
        fsync_path(source)
    fsync_path(source.parent)
    os.replace(source, target)
    fsync_path(target.parent)
    if source.parent != target.parent:
        fsync_path(source.parent)
