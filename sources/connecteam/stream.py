"""What a stream of the ``connecteam`` source is (:class:`Stream`): its table, endpoint, paging,
key, how each run loads it (:class:`Incremental`) and its window (:class:`Window`). The streams
themselves are declared in :mod:`sources.connecteam.registry`."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Incremental(enum.Enum):
    """How a stream loads only what changed."""

    MODIFIED_SINCE = "modified since"
    """The provider filters by a modification or submission time (users, form submissions)."""
    LISTING_DIFFED = "full listing diffed"
    """Listed in full every run; records whose digest changed load, vanished ones are marked
    deleted (only after a complete listing)."""
    WINDOW_DIFFED = "window diffed"
    """A time window re-pulled every run, compared row by row with the loaded rows; rows that
    vanished from the window are marked deleted."""
    SNAPSHOT = "snapshot per sync day"
    """Every record each run, as rows of the run's UTC day (a later run that day replaces
    them): values that hold "as of" a day, such as balances."""


@dataclass(frozen=True)
class Window:
    """The time window a windowed stream re-pulls every run.

    Attributes:
        days_back: Default days before the anchor (``now`` or today's UTC date).
        days_ahead: Default days after it.
        anchor: ``now`` (epoch seconds, floored/ceiled to the hour) or ``today`` (UTC dates).
        max_days: Widest window one request may ask for (days inclusive), ``None``: no limit.
        note: Shown after the span in the stream table.
    """

    days_back: int
    days_ahead: int
    anchor: str = "today"
    max_days: int | None = None
    note: str = ""

    def describe(self) -> str:
        """The window as the stream table of docs/streams.md shows it, e.g.
        ``now - 30 d .. now + 90 d`` (with a minus sign, U+2212)."""
        if self.anchor == "today" and self.days_ahead == 1:
            ahead = "tomorrow"
        else:
            ahead = f"{self.anchor} + {self.days_ahead} d"
        text = f"{self.anchor} − {self.days_back} d .. {ahead}{self.note}"
        if self.max_days is not None:
            text += f", requests of ≤ {self.max_days} days"
        return text


@dataclass(frozen=True)
class Stream:
    """One stream: a warehouse table of dataset ``connecteam`` and the list endpoint behind it.

    Attributes:
        name: The stream, the dlt resource and the warehouse table (snake_case).
        path: Path below the base URL; ``{schedulerId}`` style placeholders are filled per parent.
        data_key: Key under the answer's ``data`` object that holds the list of records.
        max_limit: The spec's ``maximum`` for the ``limit`` query parameter; ``None`` when the
            endpoint is not paged.
        primary_key: The provider's id field(s) of one record, as the provider spells them.
        key: The table's primary key column(s), as loaded (snake_case).
        incremental: How a run loads only what changed (:class:`Incremental`).
        group: The nightly flow's task group the stream is synced in (streams sharing a parent
            listing share a group).
        scope: The OAuth 2.0 scope the endpoint requires (the operation's ``security`` in the
            spec), or ``None`` when the spec defines none for it (``user_documents``).
        freshness: The raw columns holding the provider's time of a record (epoch seconds, UTC;
            the first one present and filled wins); empty when the records carry none.
        window: The window re-pulled every run, for windowed streams.
        parent: The stream whose listing gives this one's path parameter, if any.
        in_spec: Whether the published OpenAPI spec has the endpoint (beta endpoints do not).
        query: Fixed query parameters, as shown in the stream table (``?userStatus=all``).
        sort: The spec's ``sort`` key that gives the listing a stable order (sent with
            ``order=asc`` unless the caller sorts itself), so a record added or changed while
            paging does not move the others; empty when the endpoint offers none stable.
        loads: What each run loads, as the stream table of docs/streams.md says it.
        key_note: Shown after the key in the stream table.
        item_key: The field(s) naming one item of the answer's list, with the type the spec
            declares for each (``"userId:int"``, ``"policyId:str,userId:int"``): an item
            without them, or with another type, is quarantined (:mod:`.contract`).
    """

    name: str
    path: str
    data_key: str
    max_limit: int | None
    primary_key: tuple[str, ...]
    key: tuple[str, ...]
    incremental: Incremental
    group: str
    scope: str | None
    freshness: tuple[str, ...] = ()
    window: Window | None = None
    parent: str | None = None
    in_spec: bool = True
    query: str = ""
    sort: str = ""
    loads: str = ""
    key_note: str = ""
    item_key: str = ""

    @property
    def item_keys(self) -> tuple[tuple[str, type], ...]:
        """:attr:`item_key` parsed: ``((field, int or str), ...)``."""
        kinds = {"int": int, "str": str}
        pairs = (part.split(":") for part in self.item_key.split(",") if part)
        return tuple((name, kinds[kind]) for name, kind in pairs)

    @property
    def paged(self) -> bool:
        """Whether the endpoint takes ``limit``/``offset``."""
        return self.max_limit is not None


DIGEST = Incremental.LISTING_DIFFED
WINDOW = Incremental.WINDOW_DIFFED
SINCE = Incremental.MODIFIED_SINCE
SNAPSHOT = Incremental.SNAPSHOT
