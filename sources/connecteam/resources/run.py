"""What every resource of one source run is built from (:class:`Run`), and the shape of a domain
module's table of resources (:data:`Builders`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dlt.sources import DltResource

from ..client import ConnecteamClient
from ..registry import STREAMS
from .common import Listing

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
    listings several streams share (each fetched at most once per run, when first asked).

    Attributes:
        client: The client (its ``now`` is the run's instant).
        windows: The source's windows.
        schedulers: ``GET /scheduler/v1/schedulers``, complete or not.
        forms: ``GET /forms/v1/forms``, complete or not.
        time_clocks: ``GET /time-clock/v1/time-clocks`` (unpaged).
        task_boards: ``GET /tasks/v1/taskboards`` (unpaged).
        policy_types: ``GET /time-off/v1/policy-types``, complete or not.
        definitions: ``GET /users/v1/custom-fields``, complete or not.
        layers: Each scheduler's shift layers (:func:`.shift_layers.layers_by_scheduler`).
    """

    client: ConnecteamClient
    windows: Windows
    schedulers: Listing
    forms: Listing
    time_clocks: Records
    task_boards: Records
    policy_types: Listing
    definitions: Listing
    layers: Callable[[], Any]


Builders = dict[str, Callable[[Run], DltResource]]
"""A domain module's resources (its ``RESOURCES``): the stream's name, and how to build its
resource for a run."""


def window_days(stream: str) -> tuple[int, int]:
    """``(days_back, days_ahead)`` of ``stream``'s window, as the registry declares it (streams
    whose window is not a setting of the source)."""
    window = STREAMS[stream].window
    assert window is not None, f"{stream} declares no window"
    return window.days_back, window.days_ahead
