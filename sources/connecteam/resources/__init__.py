"""The ``connecteam`` source's resources, one module per domain, in registry order.

===================== ==========================================================================
module                streams
===================== ==========================================================================
:mod:`.users`         ``users``, ``user_custom_field_definitions``,
                      ``user_custom_field_categories``
:mod:`.groups`        ``smart_groups``, ``smart_group_segments``
:mod:`.forms`         ``forms``, ``form_submissions``
:mod:`.scheduling`    ``schedulers``, ``shifts``
:mod:`.time_clock`    ``time_clocks``, ``time_activities`` (+ ``time_activity_coverage``),
                      ``timesheets``, ``manual_breaks``
:mod:`.jobs`          ``jobs``
:mod:`.time_off`      ``time_off_requests``, ``time_off_policy_types``, ``time_off_balances``
:mod:`.tasks`         ``task_boards``, ``tasks``
:mod:`.documents`     ``user_documents``
:mod:`.availability`  ``scheduler_unavailabilities``
:mod:`.pay`           ``pay_rates``, ``pay_rule_policies``
:mod:`.sales`         ``sales_locations``, ``daily_sales``
:mod:`.shift_layers`  ``shift_layers``, ``shift_layer_values``, ``shift_custom_fields``,
                      ``user_custom_field_options``
===================== ==========================================================================

Every table is merged on the provider's own id (balances: on policy type, policy, user and the
sync's day), so re-running never duplicates a row. Nested
objects and lists are kept as JSON columns; the dbt staging models unnest them. How each stream
loads only what changed is its :class:`~sources.connecteam.stream.Incremental` rule; a row the
provider no longer returns is merged again with ``is_deleted = true`` and ``deleted_at`` (epoch
seconds, UTC), its data kept, and only after a complete listing (or window).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dlt.sources import DltResource

from ...arrow_hints import quiet_arrow_hint_warnings
from ..client import ConnecteamClient
from ..listing import complete_listing, once
from ..registry import COVERAGE_TABLE, FORM_SUBMISSIONS_DAYS_BACK, STREAMS
from . import (
    availability,
    documents,
    forms,
    groups,
    jobs,
    manual_breaks,
    pay,
    sales,
    scheduling,
    shift_layers,
    tasks,
    time_clock,
    time_off,
    users,
)
from .common import named_listing

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
    """One resource per stream of :data:`~sources.connecteam.registry.STREAMS`, in its order;
    parent listings (schedulers, forms, time clocks, task boards) fetched once per run, shared.

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
    scheduler_list = once(lambda: complete_listing(client.pages(STREAMS["schedulers"])))
    form_list = once(lambda: complete_listing(client.pages(STREAMS["forms"])))
    time_clock_list = _records_once(client, "time_clocks")
    board_list = _records_once(client, "task_boards")
    policy_type_list = once(
        lambda: complete_listing(client.pages(STREAMS["time_off_policy_types"]))
    )
    definitions = once(
        lambda: complete_listing(client.pages(STREAMS["user_custom_field_definitions"]))
    )
    layers = shift_layers.layers_by_scheduler(client, scheduler_list)
    rates, sales_window = STREAMS["pay_rates"].window, STREAMS["daily_sales"].window
    assert rates is not None and sales_window is not None
    days_back, days_ahead, backfill = shifts_window
    activities_back, activities_backfill = activities_window
    built = [
        users.users(client),
        forms.forms(client, form_list),
        scheduling.schedulers(client, scheduler_list),
        scheduling.shifts(
            client, scheduler_list, days_back, days_ahead, backfill, shifts_api_version
        ),
        documents.user_documents(client),
        named_listing(client, "time_clocks", time_clock_list),
        time_clock.time_activities(client, time_clock_list, activities_back, activities_backfill),
        time_clock.timesheets(client, time_clock_list, activities_back, activities_backfill),
        manual_breaks.manual_breaks(client, time_clock_list),
        forms.form_submissions(client, form_list, submissions_days_back),
        jobs.jobs(client),
        time_off.time_off_requests(client, *time_off_window, activities_backfill),
        named_listing(client, "task_boards", board_list),
        tasks.tasks(client, board_list),
        users.user_custom_field_definitions(client, definitions),
        groups.smart_groups(client),
        groups.smart_group_segments(client),
        users.user_custom_field_categories(client),
        shift_layers.user_custom_field_options(client, definitions),
        shift_layers.shift_layers(client, layers),
        shift_layers.shift_layer_values(client, layers),
        shift_layers.shift_custom_fields(client, scheduler_list),
        availability.scheduler_unavailabilities(
            client, scheduler_list, days_back, days_ahead, backfill
        ),
        pay.pay_rates(client, rates.days_back, rates.days_ahead, activities_backfill),
        pay.pay_rule_policies(client),
        time_off.time_off_policy_types(client, policy_type_list),
        time_off.time_off_balances(client, policy_type_list),
        sales.sales_locations(client),
        sales.daily_sales(client, sales_window.days_back, sales_window.days_ahead),
    ]
    assert [r.name for r in built] == list(STREAMS), "a stream without its resource"
    return built


def _records_once(client: ConnecteamClient, stream: str) -> Callable[[], list[dict[str, Any]]]:
    """The records of an unpaged parent listing, fetched once per run."""
    return once(lambda: [r for page in client.paginate(STREAMS[stream]) for r in page])


__all__ = ["COVERAGE_TABLE", "build_resources"]
