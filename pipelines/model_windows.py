"""How far back the incremental marts re-derive: the dbt variable ``incremental_lookback_days``
(``sql/macros/incremental.sql``), which :func:`pipelines.models.build_models` passes to dbt.

The marts that grow with history (``int_time_activities__paid_time``, ``fct_daily_hours``,
``fct_attendance``, ``fct_labour_cost_daily``, ``fct_timesheet_days``) are dbt incremental
models: a build re-derives the days from the look-back (plus two days) before the newest past
day they hold, and keeps the older ones. The look-back is the widest window the API sync
re-pulls on every run, as configured for the ``connecteam`` source (dlt config or
environment): ``activities_days_back`` (time activities and timesheets, default 35 days) and
``shifts_days_back`` (shifts, default 30). A late edit or a deletion the syncs since the last
build loaded therefore always falls on a re-derived day.
"""

from __future__ import annotations

import dlt

from sources.connecteam.registry import STREAMS

WINDOW_SETTINGS = {"activities_days_back": "time_activities", "shifts_days_back": "shifts"}
"""The source's settings (``sources.connecteam.<name>``) of the re-pulled windows a build must
cover, each with the stream whose registry window gives its default."""


def incremental_lookback_days() -> int:
    """Days before the newest past day an incremental build re-derives (the dbt variable
    ``incremental_lookback_days``): the largest of the source's configured re-pull windows
    (:data:`WINDOW_SETTINGS`, e.g. ``SOURCES__CONNECTEAM__ACTIVITIES_DAYS_BACK``), each
    defaulting to its stream's registry window.

    Raises:
        ValueError: A configured window that is not a non-negative whole number of days; the
            message names the setting.
    """
    days = []
    for name, stream in WINDOW_SETTINGS.items():
        configured: object = dlt.config.get(f"sources.connecteam.{name}")
        if configured is None:
            window = STREAMS[stream].window
            days.append(window.days_back if window is not None else 0)
            continue
        try:
            value = int(str(configured))
        except ValueError:
            value = -1
        if value < 0:
            raise ValueError(
                f"SOURCES__CONNECTEAM__{name.upper()}={configured!r} is not a whole number of "
                "days: set it to the days the sync re-pulls (e.g. 35)"
            )
        days.append(value)
    return max(days)
