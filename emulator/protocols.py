"""What the domains (:mod:`emulator.domains`) and the credential check (:mod:`emulator.auth`)
use of the account and of the running emulator, as Protocols.

:class:`~emulator.data.Dataset` and :class:`~emulator.state.EmulatorState` satisfy them; the
domains and :mod:`emulator.auth` read them through these types instead of importing those
modules, because :mod:`emulator.data` loops over the domains (importing it back from a domain
would be an import cycle).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from .config import EmulatorConfig
from .operations_data import Operations
from .options import ServerOptions, ShiftSort, SortOrder


class Account(Protocol):
    """The records a domain's data step reads: a :class:`~emulator.data.Dataset` being
    generated, or the spec account being drawn (:class:`~emulator.spec_account.SpecAccount`)."""

    @property
    def config(self) -> EmulatorConfig:
        """Size and seed of the account."""
        ...

    @property
    def users(self) -> dict[int, dict[str, Any]]:
        """By ``userId``, in id order."""
        ...

    @property
    def schedulers(self) -> dict[int, dict[str, Any]]:
        """By ``schedulerId``."""
        ...

    @property
    def operations(self) -> Operations:
        """The core operations records (jobs, policy types, ...)."""
        ...

    @property
    def domains(self) -> dict[str, Any]:
        """By domain name: that domain's records (the type of its ``data`` module)."""
        ...

    def active_users(self) -> list[int]:
        """The ids of the users not archived, in id order."""
        ...


class LiveAccount(Account, Protocol):
    """The account a running emulator serves (:class:`~emulator.data.Dataset`), as routes read
    and change it."""

    version: int
    """Increases with every change (cache key of filtered listings)."""

    @property
    def user_documents(self) -> dict[int, dict[str, Any]]:
        """By ``id``."""
        ...

    def tick(self) -> int:
        """A change time, epoch seconds (UTC), never earlier than the last change."""
        ...


class Server(Protocol):
    """What routes use of the running emulator (:class:`~emulator.state.EmulatorState`)."""

    @property
    def options(self) -> ServerOptions:
        """Credentials, rate limits, paging and the other provider behaviour."""
        ...

    @property
    def dataset(self) -> LiveAccount:
        """The account's records."""
        ...

    @property
    def tokens(self) -> dict[str, tuple[set[str], float, str]]:
        """Access tokens: ``{token: (granted scopes, expiry epoch seconds, client id)}``."""
        ...

    @property
    def files(self) -> dict[str, dict[str, Any]]:
        """Uploads by file id: ``{fileName, fileType, featureType, size, completed}``."""
        ...

    @property
    def entries(self) -> list[dict[str, Any]]:
        """Every accepted document-entry PUT: ``{userId, documentId, at}``."""
        ...

    @property
    def requests(self) -> Counter[str]:
        """Requests per spec path template (since the last counter reset)."""
        ...

    @property
    def lock(self) -> AbstractContextManager[Any]:
        """Guards the counters and the dataset against concurrent requests."""
        ...

    def shift_listing(
        self, scheduler_id: int, start: int, end: int, sort: ShiftSort, order: SortOrder
    ) -> list[dict[str, Any]]:
        """V1 shift rows of one scheduler overlapping ``[start, end)`` (epoch seconds), sorted."""
        ...

    def cached_listing(
        self, key: tuple[Any, ...], build: Callable[[], list[dict[str, Any]]]
    ) -> list[dict[str, Any]]:
        """``build()``'s records, built once per dataset version and ``key``; not to be changed."""
        ...
