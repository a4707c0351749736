"""The stream sets the benchmarks measure, declared once and checked against the stream registry
(:data:`sources.connecteam.registry.STREAMS`): a renamed or removed stream fails on import."""

from __future__ import annotations

from sources.connecteam.registry import STREAMS as REGISTRY

FOUNDATION: tuple[str, ...] = ("users", "forms", "schedulers", "shifts")
"""The dataset issue 6 defines the throughput targets on; the paging benchmark's first table."""

OPERATIONS: tuple[str, ...] = (
    "time_clocks", "time_activities", "timesheets", "form_submissions", "jobs",
    "time_off_requests", "task_boards", "tasks", "user_custom_field_definitions",
)  # fmt: skip
"""The operations streams: time clocks and their activities and timesheets, form submissions,
jobs, time off, tasks, custom field definitions."""

_unknown = [name for name in (*FOUNDATION, *OPERATIONS) if name not in REGISTRY]
if _unknown:
    raise ImportError(f"benchmarks.streams names streams the registry does not hold: {_unknown}")
