"""What every resource of one source run is built from (:class:`Run`), and the shape of a domain
module's table of resources (:data:`Builders`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from dlt.sources import DltResource

from ..client import ConnecteamClient
from ..listing import complete_listing, once
from ..registry import STREAMS
from .common import Listing

T = TypeVar("T")

Records = Callable[[], list[dict[str, Any]]]
"""An unpaged parent listing's records, fetched once per run."""


@dataclass(frozen=True)
class Windows:
    """The source's windows (days) and start dates (epoch seconds, UTC; ``None``: the window's
    start), as :func:`sources.connecteam.connecteam_source` was given them.

    Attributes:
        shifts: ``(days_back, days_ahead, backfill_start)`` of shifts (and unavailabilities).
        activities: ``(days_back, backfill_start)`` of time activities, timesheets (and the
            first run of time off and pay rates).
        time_off: ``(days_back, days_ahead)`` of time-off requests.
        submissions_days_back: Days before the newest loaded form submission re-read per form.
        shifts_api_version: ``1`` (a row per assigned user) or ``2`` (a row per shift).
    """

    shifts: tuple[int, int, int | None]
    activities: tuple[int, int | None]
    time_off: tuple[int, int]
    submissions_days_back: int
    shifts_api_version: int = 1


@dataclass(frozen=True)
class Run:
    """One source run: the client every resource requests through, the windows, and the parent
    listings several streams share (each fetched at most once per run, when first asked; a fetch
    that raised is tried again by the next stream that asks).

    Attributes:
        client: The client (its ``now`` is the run's instant).
        windows: The source's windows.
    """

    client: ConnecteamClient
    windows: Windows
    _shared: dict[str, Callable[[], Any]] = field(default_factory=dict, compare=False, repr=False)

    def shared(self, name: str, fetch: Callable[[], T]) -> Callable[[], T]:
        """``fetch``, run at most once per run by the first stream that calls the result (those
        arriving meanwhile wait for it); every later ``shared(name, ...)`` gets that result."""
        return self._shared.setdefault(name, once(fetch))

    def listing(self, stream: str) -> Listing:
        """``stream``'s listing read to its end: ``(records, consistent)``, as
        :func:`~sources.connecteam.listing.complete_listing` gives it; the parents of another
        stream, fetched once per run."""
        return self.shared(stream, lambda: complete_listing(self.client.pages(STREAMS[stream])))

    def records(self, stream: str) -> Records:
        """The records of ``stream``'s unpaged listing (every page's), fetched once per run."""
        endpoint = STREAMS[stream]
        return self.shared(
            stream, lambda: [r for page in self.client.paginate(endpoint) for r in page]
        )

    @property
    def schedulers(self) -> Listing:
        """``GET /scheduler/v1/schedulers``, complete or not."""
        return self.listing("schedulers")

    @property
    def forms(self) -> Listing:
        """``GET /forms/v1/forms``, complete or not."""
        return self.listing("forms")

    @property
    def policy_types(self) -> Listing:
        """``GET /time-off/v1/policy-types``, complete or not."""
        return self.listing("time_off_policy_types")

    @property
    def definitions(self) -> Listing:
        """``GET /users/v1/custom-fields``, complete or not."""
        return self.listing("user_custom_field_definitions")

    @property
    def time_clocks(self) -> Records:
        """``GET /time-clock/v1/time-clocks`` (unpaged)."""
        return self.records("time_clocks")

    @property
    def task_boards(self) -> Records:
        """``GET /tasks/v1/taskboards`` (unpaged)."""
        return self.records("task_boards")


Builders = dict[str, Callable[[Run], DltResource]]
"""A domain module's resources (its ``RESOURCES``): the stream's name, and how to build its
resource for a run."""


def window_days(stream: str) -> tuple[int, int]:
    """``(days_back, days_ahead)`` of ``stream``'s window, as the registry declares it (streams
    whose window is not a setting of the source)."""
    window = STREAMS[stream].window
    assert window is not None, f"{stream} declares no window"
    return window.days_back, window.days_ahead
