"""How far the warehouse's hours agree with the provider's own timesheet: one line for
``wfm-sync status`` and ``wfm-sync demo``.

Read from ``marts.fct_daily_hours``: a user-day counts when it has punches, break time or a
timesheet row (scheduled-only days have nothing to reconcile). It matches when
``variance_reason`` is null (``hours_variance`` within the models' tolerance); otherwise its
reason explains it (``not_in_timesheet_yet``, ``overlapping_punches``, ``webhook_only_day``,
``policy_unknown``, ``unapproved``) or it is ``unexplained``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

MATCH_SQL = (
    "select coalesce(variance_reason, 'match'), count(*) from marts.fct_daily_hours "
    "where punch_count > 0 or is_in_timesheet "
    "or paid_break_hours + unpaid_break_hours + unknown_policy_break_hours <> 0 "
    "group by 1 order by 1"
)
"""``(reason or 'match', user-days)`` rows: the query :func:`timesheet_match` reads."""


@dataclass
class TimesheetMatch:
    """User-days compared with the provider's timesheet.

    Attributes:
        user_days: User-days with punches, breaks or a timesheet row.
        matched: Those whose worked hours equal the timesheet's work hours (within tolerance).
        explained: Those that differ for a named reason.
        unexplained: Those that differ for no reason the models know.
        reasons: User-days per ``variance_reason`` (``unexplained`` included).
    """

    user_days: int = 0
    matched: int = 0
    explained: int = 0
    unexplained: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        """``hours match the provider's timesheet on N of M user-days (K explained, U
        unexplained)``, with the explained reasons' counts after it."""
        text = (
            f"hours match the provider's timesheet on {self.matched} of {self.user_days} "
            f"user-days ({self.explained} explained, {self.unexplained} unexplained)"
        )
        named = {r: n for r, n in self.reasons.items() if r != "unexplained"}
        if named:
            text += ": " + ", ".join(f"{reason} {n}" for reason, n in sorted(named.items()))
        return text

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def timesheet_match(rows: Iterable[tuple[Any, Any]]) -> TimesheetMatch:
    """A :class:`TimesheetMatch` from the rows of :data:`MATCH_SQL`."""
    result = TimesheetMatch()
    for reason, count in rows:
        n = int(count)
        result.user_days += n
        if reason == "match":
            result.matched += n
            continue
        result.reasons[str(reason)] = n
        if reason == "unexplained":
            result.unexplained += n
        else:
            result.explained += n
    return result


def read_timesheet_match(fetch: Callable[[str], list[tuple[Any, ...]]]) -> TimesheetMatch:
    """Run :data:`MATCH_SQL` through ``fetch`` (a DuckDB or dlt SQL client's query, returning
    every row) and count it."""
    return timesheet_match((row[0], row[1]) for row in fetch(MATCH_SQL))
