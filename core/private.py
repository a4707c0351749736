"""What the project writes is its user's alone: files 0600, folders 0700.

The warehouse, the snapshot, the inbox, dlt's pipeline folders, Prefect's home and the run log
can hold personal data (names, chat texts, quarantined bodies) and, before this was set, dlt's
traces held settings; other users of a shared machine have no business reading them.
"""

from __future__ import annotations

import os

PRIVATE_UMASK = 0o077
"""The process's umask: no permission for group or others on anything it creates."""


def private_files() -> None:
    """Make every file and folder this process creates from now on its user's alone (umask
    ``077``: files ``0600``, folders ``0700``). Called at each edge where a process of the
    project starts: the ``wfm-sync`` command, and each run of the jobs ``nightly_sync`` and
    ``fold_webhooks`` (a Prefect worker's process starts there)."""
    os.umask(PRIVATE_UMASK)
