"""The ``connecteam`` source's resources, one module per domain, each with its table of
streams (``RESOURCES``: stream name -> how to build its resource for a :class:`~.run.Run`);
:func:`build_resources` builds them in registry order. The domain modules are found, not listed:
every module of this package that defines ``RESOURCES`` is one (its docstring names its
streams and endpoints). Adding a domain is adding its module.

Every table is merged on the provider's own id (balances: on policy type, policy, user and the
sync's day), so re-running never duplicates a row. Nested
objects and lists are kept as JSON columns; the dbt staging models unnest them. How each stream
loads only what changed is its :class:`~sources.connecteam.stream.Incremental` rule; a row the
provider no longer returns is merged again with ``is_deleted = true`` and ``deleted_at`` (epoch
seconds, UTC), its data kept, and only after a complete listing (or window).
"""

from __future__ import annotations

import importlib
import pkgutil

from dlt.sources import DltResource

from ...arrow_hints import quiet_arrow_hint_warnings
from ..client import ConnecteamClient
from ..registry import COVERAGE_TABLE, FORM_SUBMISSIONS_DAYS_BACK, STREAMS
from .run import Builders, Run, Windows

# JSON columns travel as JSON text in Arrow, declared ``json`` in the hints: intentional
quiet_arrow_hint_warnings(*STREAMS)


def build_resources(
    client: ConnecteamClient,
    shifts_window: tuple[int, int, int | None],
    activities_window: tuple[int, int | None],
    time_off_window: tuple[int, int],
    submissions_days_back: int = FORM_SUBMISSIONS_DAYS_BACK,
    shifts_api_version: int = 1,
) -> list[DltResource]:
    """One resource per stream of :data:`~sources.connecteam.registry.STREAMS`, in its order,
    each built by its domain module's table (:data:`RESOURCES`) for one :class:`~.run.Run`,
    whose parent listings (schedulers, forms, time clocks, ...) are fetched once and shared.

    Args:
        client: The client every resource requests through.
        shifts_window: ``(days_back, days_ahead, backfill_start)`` of shifts.
        activities_window: ``(days_back, backfill_start)`` of time activities, timesheets (and
            the first run of time off).
        time_off_window: ``(days_back, days_ahead)`` of time-off requests.
        submissions_days_back: Days before the newest loaded form submission re-read per form.
        shifts_api_version: ``1`` (one row per assigned user) or ``2`` (one row per shift,
            ``GET /scheduler/v2/schedulers/{schedulerId}/shifts``) for ``shifts``.
    """
    windows = Windows(
        shifts_window, activities_window, time_off_window, submissions_days_back,
        shifts_api_version,
    )  # fmt: skip
    run = Run(client, windows)
    return [RESOURCES[name](run) for name in STREAMS]


def _collect(*tables: Builders) -> Builders:
    """The domain modules' tables as one, each stream in exactly one of them.

    Raises:
        AssertionError: A stream of the registry without its resource, a resource without its
            stream, or a stream in two domains (the message names them).
    """
    merged: Builders = {}
    for table in tables:
        twice = sorted(set(merged) & set(table))
        assert not twice, f"streams built by two domains: {twice}"
        merged.update(table)
    missing, unknown = sorted(set(STREAMS) - set(merged)), sorted(set(merged) - set(STREAMS))
    assert not missing and not unknown, f"no resource for {missing}; no stream for {unknown}"
    return merged


def _domain_tables() -> list[Builders]:
    """The ``RESOURCES`` table of every module of this package that has one, by module name."""
    names = sorted(info.name for info in pkgutil.iter_modules(__path__))
    modules = (importlib.import_module(f"{__name__}.{name}") for name in names)
    return [module.RESOURCES for module in modules if hasattr(module, "RESOURCES")]


RESOURCES = _collect(*_domain_tables())
"""Every stream's resource builder, from the domain modules' tables (:data:`.run.Builders`)."""


__all__ = ["COVERAGE_TABLE", "RESOURCES", "build_resources"]
