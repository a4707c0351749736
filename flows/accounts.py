"""Several accounts' syncs side by side in one process, each within its own budget.

Each account's sync runs in a thread of its own (:func:`side_by_side`), with its own client,
rate-limit budget and in-flight cap (the source builds them per run from the account's
configuration), its own dlt pipeline and dataset (:func:`core.project.account_dataset`), and
its own writer lock on PostgreSQL (:func:`pipelines.writers.writer_job`). On DuckDB the threads
share the process's turn at the file and load one at a time
(:func:`pipelines.writers.load_turn`); their requests and extracts overlap, which is where a
sync spends its time. A failing account fails its own part only: the others load, and
:class:`flows.nightly.AccountsFailedError` names it after the later steps ran.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from core.project import DEFAULT_ACCOUNT

if TYPE_CHECKING:
    from pipelines.sync import SyncSummary

T = TypeVar("T")


def side_by_side(accounts: Sequence[str], work: Callable[[str], T]) -> dict[str, T | Exception]:
    """``work(account)`` for every account at once, each in a thread of its own that runs in a
    copy of the caller's context (a Prefect flow run's: the steps it calls are recorded as the
    flow's tasks).

    Returns:
        ``{account: what work returned, or the exception it raised}``, in ``accounts``' order.
    """
    with ThreadPoolExecutor(len(accounts), thread_name_prefix="account") as pool:
        futures = {
            name: pool.submit(contextvars.copy_context().run, work, name) for name in accounts
        }
    outcomes: dict[str, T | Exception] = {}
    for name, future in futures.items():
        error = future.exception()
        if error is not None and not isinstance(error, Exception):
            raise error  # KeyboardInterrupt, SystemExit: the whole run stops
        outcomes[name] = error if error is not None else future.result()
    return outcomes


OWN_SETTING = re.compile(r"\bSOURCES__CONNECTEAM__(API_KEY|CLIENT_ID|CLIENT_SECRET|BASE_URL)\b")
"""The settings the source's messages name that a named account sets in its own section
(:data:`sources.configuration.OWN_FIELDS`)."""


def own_settings(text: str, account: str) -> str:
    """``text`` (a failure's message) with the settings an account sets itself named as
    ``account`` sets them: ``SOURCES__CONNECTEAM__ACCOUNTS__<ACCOUNT>__BASE_URL`` for
    ``SOURCES__CONNECTEAM__BASE_URL``; unchanged for the ``default`` account."""
    if account == DEFAULT_ACCOUNT:
        return text
    return OWN_SETTING.sub(rf"SOURCES__CONNECTEAM__ACCOUNTS__{account.upper()}__\1", text)


def labelled(summary: SyncSummary, account: str) -> SyncSummary:
    """``summary`` of ``account`` with its failed streams and skipped parents named
    ``<account>: <stream>`` (and the settings the reasons name, :func:`own_settings`), to merge
    with other accounts' without mixing them."""
    return replace(
        summary,
        failed_streams={
            f"{account}: {s}": own_settings(why, account)
            for s, why in summary.failed_streams.items()
        },
        skipped_parents=[f"{account}: {p}" for p in summary.skipped_parents],
    )


def failure_text(exc: Exception, account: str) -> str:
    """One line saying why ``account``'s sync failed, naming the account's own settings
    (:func:`own_settings`; never a secret: the project's messages carry none)."""
    from sources.connecteam import find_connecteam_error

    cause = find_connecteam_error(exc) or exc
    return own_settings(f"{type(cause).__name__}: {cause}".splitlines()[0][:500], account)
