"""The project's notion of "now": the real clock, or the instant ``WFM_SYNC_NOW`` names.

Every window the sync pulls (shifts, time activities, timesheets, time off) and the emulator's
generated data are placed relative to :func:`now`, so a test (or a replay of a past night) can move
both to the same instant: ``WFM_SYNC_NOW=2026-12-20T00:00:00Z`` or epoch seconds. Rate-limit
pacing, token expiry and timeouts always use the real clock.
"""

from __future__ import annotations

import time

from core import settings


def now() -> float:
    """Epoch seconds (UTC): ``WFM_SYNC_NOW`` (:attr:`core.settings.Settings.now`) when set,
    else the real time (:func:`instant`). Asked once per run, where the run's
    :class:`core.project.Project` is resolved, and by the edges that have none (the dashboard).

    Raises:
        ValueError: ``WFM_SYNC_NOW`` is neither epoch seconds nor an ISO 8601 date or datetime
            (the message names the variable and the value).
    """
    return instant(settings.current().now)


def instant(raw: str | None) -> float:
    """Epoch seconds (UTC) of ``raw`` (:func:`core.settings.instant_of`); the real time when
    ``raw`` is empty or ``None``.

    Raises:
        ValueError: ``raw`` is neither epoch seconds nor an ISO date or datetime (the message
            names ``WFM_SYNC_NOW`` and the value).
    """
    raw = (raw or "").strip()
    return settings.instant_of(raw) if raw else time.time()
