"""Every SQL query the dashboard and its static report run, over the published snapshot's marts.

Each function returns one DuckDB query as text; the notebook (:mod:`dashboard.notebook`) runs it
with ``mo.sql``. They read the ``marts`` schema only (the snapshot's ``health`` summary and the
``_published`` manifest besides): names come from the dimensions (``dim_jobs.job_label``,
``dim_schedulers.scheduler_label``, ``dim_users.user_label``), rules such as "on the schedule"
from mart columns (``fct_shifts.is_scheduled``, ``fct_attendance.has_ended``), so the dbt
project defines each figure once and its ``exposures`` list what the dashboard reads.
``tests/unit/dashboard/test_dashboard_queries.py`` parses every query and fails on any staging,
intermediate or raw reference.

Filters arrive as a :class:`dashboard.filtering.Filters`; its values are quoted by
:func:`dashboard.filtering.sql_literal`; its conditions read ``bridge_user_groups`` (the group
filter) and ``fct_shift_layer_values`` (the layer filter).
"""

from __future__ import annotations

from .views import Filters, timestamp_sql

PUBLISHED_AT = "select max(published_at) from main._published"
"""When the snapshot was published (UTC), from its manifest."""

SCHEDULER_OPTIONS = """
    select schedulers.scheduler_label, schedulers.scheduler_id
    from marts.dim_schedulers as schedulers
    where schedulers.scheduler_id in (
        select scheduler_id from marts.fct_shifts where scheduler_id is not null
    )
    order by 1
"""
"""The scheduler filter's choices: ``(label, scheduler_id)`` of every scheduler with shifts."""

JOB_OPTIONS = """
    with used as (
        select job_id from marts.fct_shifts
        union select job_id from marts.fct_attendance
        union select job_id from marts.fct_labour_cost_daily
    )
    select jobs.job_label, jobs.job_id
    from marts.dim_jobs as jobs
    where jobs.job_id in (select job_id from used)
    order by 1
"""
"""The job filter's choices: ``(label, job_id)`` of every job a shift, punch or cost names."""

USER_OPTIONS = """
    select
        case
            when user_label like '% (' || user_id || ')' then user_label
            else user_label || ' (' || user_id || ')'
        end,
        user_id
    from marts.dim_users order by user_label, user_id
"""
"""The user filter's choices: ``(label (id), user_id)``, the id once (``user_label`` already
carries it where two people share a name)."""

GROUP_OPTIONS = """
    select
        case
            when count(*) over (partition by groups.group_label) > 1
                then groups.group_label || ' (' || groups.group_id || ')'
            else groups.group_label
        end as choice,
        groups.group_id
    from marts.dim_groups as groups
    where groups.group_id in (select group_id from marts.bridge_user_groups)
    order by 1
"""
"""The group filter's choices: ``(label, group_id)`` of every smart group a user belonged to,
by ``dim_groups.group_label`` (with the id where two groups share a label)."""

LAYER_OPTIONS = """
    select layer_title || ': ' || value_name as choice, layer_title, value_name
    from marts.fct_shift_layer_values
    where layer_title is not null and value_name is not null
    group by layer_title, value_name
    order by layer_title, value_name
"""
"""The layer filter's choices: ``("title: value", layer_title, value_name)`` of every shift
layer value a shift carries (the same title and value across schedulers are one choice)."""

CURRENCY = "select max(currency) from marts.fct_labour_cost_daily"
"""The account's currency (ISO 4217) labour cost is in, or null when not named."""


def cost_where(filters: Filters) -> str:
    """The filters as a condition on ``marts.fct_labour_cost_daily as cost``. Labour cost has no
    scheduler and no shift: with a scheduler or a layer value chosen, the cost rows of the
    attendance of that scheduler or of shifts carrying that value (same user, local day and
    job)."""
    condition = filters.where(scheduler=None, shift=None)
    if filters.scheduler_id is None and filters.layer is None:
        return condition
    attendance = filters.where(
        day=None,
        scheduler="attendance.scheduler_id",
        job=None,
        user=None,
        shift="attendance.shift_assignment_key",
    )
    return f"""{condition}
        and exists (
            select 1 from marts.fct_attendance as attendance
            where {attendance}
                and attendance.user_id = cost.user_id
                and attendance.local_date = cost.local_date
                and attendance.job_id is not distinct from cost.job_id
        )"""


SALARIED = (
    "cost.cost_source = 'estimate' and cost.rate_type in ('monthly', 'yearly')"
    " and cost.hourly_rate is null"
)
"""Rows of ``fct_labour_cost_daily`` whose hours a monthly or yearly rate pays and nothing
costs: no timesheet pay that day, and no ``labour_cost_hours_per_month`` / ``_per_year`` var
turning the rate into an hourly one. Shown as "salaried hours", never as a cheap day."""


def kpis(filters: Filters) -> str:
    """One row within the filters: ``scheduled_hours`` (assigned, published shifts that have
    ended by the build's clock), ``worked_hours`` (of those shifts and of unscheduled punches
    that have clocked out: ``fct_attendance.has_ended``, so both sides stop at the same
    instant), ``open_shift_hours`` (published open shifts that have ended, nobody assigned),
    ``no_shows``, ``labour_cost``, ``hours_without_rate`` and ``salaried_hours`` (hours paid
    by a monthly or yearly rate that nothing costs: :data:`SALARIED`)."""
    return f"""
        select
            (select coalesce(sum(scheduled_hours) filter (where not is_unscheduled), 0)
                from marts.fct_attendance
                where has_ended and {filters.where()}) as scheduled_hours,
            (select coalesce(sum(worked_hours), 0) from marts.fct_attendance
                where has_ended and {filters.where()}) as worked_hours,
            (select coalesce(sum(scheduled_hours), 0) from marts.fct_shifts
                where is_scheduled and is_open_shift and has_ended and {filters.where()})
                as open_shift_hours,
            (select count(*) filter (where no_show) from marts.fct_attendance
                where {filters.where()}) as no_shows,
            (select coalesce(sum(labour_cost), 0) from marts.fct_labour_cost_daily as cost
                where {cost_where(filters)}) as labour_cost,
            (select coalesce(sum(worked_hours) filter (where has_no_rate), 0)
                from marts.fct_labour_cost_daily as cost where {cost_where(filters)})
                as hours_without_rate,
            (select coalesce(sum(worked_hours) filter (where {SALARIED}), 0)
                from marts.fct_labour_cost_daily as cost where {cost_where(filters)})
                as salaried_hours
    """


def hours_daily(filters: Filters, stack_by: str) -> str:
    """Scheduled and worked hours per local day, both of the shifts and punches that have ended
    by the build's clock (``fct_attendance.has_ended``: assigned, published shifts and their
    punches, and unscheduled punches): ``local_date``, ``measure`` (scheduled | worked),
    ``stacked_by`` (the scheduler's or, with ``stack_by="job"``, the job's label) and
    ``hours``."""
    label = (
        "coalesce(jobs.job_label, '(no job)')"
        if stack_by == "job"
        else "coalesce(schedulers.scheduler_label, '(unscheduled)')"
    )
    return f"""
        with scheduled as (
            select local_date, scheduler_id, job_id, sum(scheduled_hours) as hours
            from marts.fct_attendance
            where has_ended and not is_unscheduled and {filters.where()}
            group by all
        ),
        worked as (
            select local_date, scheduler_id, job_id, sum(worked_hours) as hours
            from marts.fct_attendance
            where has_ended and {filters.where()}
            group by all
        ),
        measures as (
            select 'scheduled' as measure, * from scheduled
            union all
            select 'worked' as measure, * from worked
        )
        select
            measures.local_date,
            measures.measure,
            {label} as stacked_by,
            round(sum(measures.hours), 2) as hours
        from measures
        left join marts.dim_schedulers as schedulers
            on schedulers.scheduler_id = measures.scheduler_id
        left join marts.dim_jobs as jobs on jobs.job_id = measures.job_id
        group by all
        order by local_date, measure, stacked_by
    """


def variance_leaders(filters: Filters) -> str:
    """The ten people furthest from their schedule, over the shifts and punches that have ended
    (``fct_attendance.has_ended``): ``person`` (``dim_users.user_label``), ``scheduled_hours``,
    ``worked_hours``, ``variance_hours`` (worked minus scheduled)."""
    return f"""
        with scheduled as (
            select user_id, sum(scheduled_hours) as scheduled_hours
            from marts.fct_attendance
            where has_ended and not is_unscheduled and user_id is not null
                and {filters.where()}
            group by user_id
        ),
        worked as (
            select user_id, sum(worked_hours) as worked_hours
            from marts.fct_attendance
            where has_ended and user_id is not null and {filters.where()}
            group by user_id
        )
        select
            coalesce(users.user_label, 'user ' || user_id) as person,
            round(coalesce(scheduled.scheduled_hours, 0), 2) as scheduled_hours,
            round(coalesce(worked.worked_hours, 0), 2) as worked_hours,
            round(coalesce(worked.worked_hours, 0) - coalesce(scheduled.scheduled_hours, 0), 2)
                as variance_hours
        from scheduled
        full join worked using (user_id)
        left join marts.dim_users as users using (user_id)
        order by abs(variance_hours) desc, person
        limit 10
    """


def attendance_daily(filters: Filters) -> str:
    """Per local day: ``late_arrivals``, ``no_shows``, ``unscheduled_punches`` (counts)."""
    return f"""
        select
            local_date,
            count(*) filter (where is_late) as late_arrivals,
            count(*) filter (where no_show) as no_shows,
            count(*) filter (where is_unscheduled) as unscheduled_punches
        from marts.fct_attendance
        where {filters.where()}
        group by local_date
        order by local_date
    """


def attendance_people(filters: Filters) -> str:
    """The ten people with the most incidents: ``person``, the three counts and ``incidents``."""
    return f"""
        select
            coalesce(users.user_label, 'user ' || attendance.user_id) as person,
            count(*) filter (where is_late) as late_arrivals,
            count(*) filter (where no_show) as no_shows,
            count(*) filter (where is_unscheduled) as unscheduled_punches,
            late_arrivals + no_shows + unscheduled_punches as incidents
        from marts.fct_attendance as attendance
        left join marts.dim_users as users using (user_id)
        where {filters.where(user="attendance.user_id")} and attendance.user_id is not null
        group by all
        having incidents > 0
        order by incidents desc, person
        limit 10
    """


def cost_daily(filters: Filters) -> str:
    """Per local day: ``labour_cost``, ``hours_with_rate`` (costed), ``salaried_hours``
    (:data:`SALARIED`), ``hours_without_rate``."""
    return f"""
        select
            local_date,
            round(coalesce(sum(labour_cost), 0), 2) as labour_cost,
            round(coalesce(sum(worked_hours) filter (where not has_no_rate and not ({SALARIED})),
                0), 2) as hours_with_rate,
            round(coalesce(sum(worked_hours) filter (where {SALARIED}), 0), 2) as salaried_hours,
            round(coalesce(sum(worked_hours) filter (where has_no_rate), 0), 2)
                as hours_without_rate
        from marts.fct_labour_cost_daily as cost
        where {cost_where(filters)}
        group by local_date
        order by local_date
    """


def cost_jobs(filters: Filters) -> str:
    """Per job (sub-jobs under their job): ``job`` (its label), ``labour_cost``,
    ``worked_hours``, ``hours_without_rate``."""
    return f"""
        select
            coalesce(jobs.job_label, '(no job)') as job,
            round(coalesce(sum(cost.labour_cost), 0), 2) as labour_cost,
            round(sum(cost.worked_hours), 2) as worked_hours,
            round(coalesce(sum(cost.worked_hours) filter (where cost.has_no_rate), 0), 2)
                as hours_without_rate
        from marts.fct_labour_cost_daily as cost
        left join marts.dim_jobs as jobs on jobs.job_id = cost.job_id
        where {cost_where(filters)}
        group by cost.job_id, jobs.job_label
        order by labour_cost desc, job
    """


def schedule_changes_weekly(filters: Filters) -> str:
    """Per ISO week of the change and scheduler: ``week_start``, ``scheduler`` (its label),
    ``changes``, ``inside_notice_window``, ``inside_24h``."""
    where = filters.where(
        day="cast(changes.changed_at as date)",
        scheduler="changes.scheduler_id",
        job="shifts.job_id",
        user="changes.user_id",
        shift="changes.shift_assignment_key",
    )
    return f"""
        with shifts as (
            select shift_assignment_key, max(job_id) as job_id
            from marts.fct_shifts group by shift_assignment_key
        )
        select
            cast(date_trunc('week', changes.changed_at) as date) as week_start,
            coalesce(schedulers.scheduler_label, '(none)') as scheduler,
            count(*) as changes,
            count(*) filter (where is_inside_notice_window) as inside_notice_window,
            count(*) filter (where is_inside_24h) as inside_24h
        from marts.fct_schedule_changes as changes
        left join shifts using (shift_assignment_key)
        left join marts.dim_schedulers as schedulers
            on schedulers.scheduler_id = changes.scheduler_id
        where {where}
        group by all
        order by week_start, scheduler
    """


def timesheets_waiting(filters: Filters, now: float) -> str:
    """Every period still waiting for approval, whatever its dates: ``period_start``,
    ``waiting_for_approval``, ``longest_wait_hours`` (up to ``now``, epoch seconds)."""
    return f"""
        select
            period_start,
            count(*) as waiting_for_approval,
            round(max(date_diff('minute', submitted_at, {timestamp_sql(now)}) / 60.0), 1)
                as longest_wait_hours
        from marts.fct_timesheet_periods
        where status = 'submitted'
            and {filters.where(day=None, scheduler=None, job=None, shift=None)}
        group by period_start
        order by period_start
    """


def timesheet_periods(filters: Filters) -> str:
    """Periods overlapping the range: ``period_start``, counts ``open``,
    ``waiting_for_approval``, ``approved``, and ``mean_approval_lag_hours`` (null when no period
    states both its submission and its approval)."""
    return f"""
        select
            period_start,
            count(*) filter (where status = 'open') as open,
            count(*) filter (where status = 'submitted') as waiting_for_approval,
            count(*) filter (where status = 'approved') as approved,
            round(avg(approval_lag_hours), 2) as mean_approval_lag_hours
        from marts.fct_timesheet_periods
        where period_end >= date '{filters.start}' and period_start <= date '{filters.end}'
            and {filters.where(day=None, scheduler=None, job=None, shift=None)}
        group by period_start
        order by period_start
    """


def labour_vs_sales(filters: Filters) -> str:
    """Per sales location over the range (the local days only: the mart ties labour to a
    location by the users' location groups, not by scheduler, job, user, group or layer):
    ``location`` (its name, with the id where two share one), ``labour_cost`` (every day),
    ``sales``, ``labour_pct_of_sales`` (100 x labour cost / sales over the days with sales; null
    without sales) and ``days_without_sales`` (days with labour but no sales, left out of the
    percentage)."""
    return f"""
        select
            case
                when count(*) over (partition by location_name) > 1 or location_name is null
                    then coalesce(location_name, 'location') || ' (' || location_id || ')'
                else location_name
            end as location,
            round(coalesce(sum(labour_cost), 0), 2) as labour_cost,
            round(sum(total_sales) filter (where total_sales > 0), 2) as sales,
            round(
                100 * sum(labour_cost) filter (where total_sales > 0)
                / sum(total_sales) filter (where total_sales > 0),
                2
            ) as labour_pct_of_sales,
            count(*) filter (where coalesce(total_sales, 0) = 0) as days_without_sales
        from marts.fct_labour_vs_sales_daily
        where {filters.where(scheduler=None, job=None, user=None, shift=None)}
        group by location_id, location_name
        order by location
    """


HEALTH_TABLES = "select table_name from information_schema.tables where table_schema = 'health'"
"""The tables of the snapshot's ``health`` summary (present when the publish wrote them)."""

FRESHNESS = """
    select table_name, row_count, last_load_epoch
    from health.raw_tables
    order by table_name
"""
"""Each raw table's row count and last load (epoch seconds), from the publish's summary."""


def reconciliation(filters: Filters) -> str:
    """Time activities the API and the webhooks disagree on: ``data_source``, ``activities``."""
    return f"""
        select data_source, coalesce(sum(activity_count), 0) as activities
        from marts.fct_time_activity_reconciliation
        where {filters.where(scheduler=None, job=None, shift=None)}
        group by data_source
        order by data_source
    """


def quarantine(filters: Filters) -> str:
    """Quarantined webhook bodies per day received (UTC) and reason: ``received_on``,
    ``reason``, ``bodies``."""
    return f"""
        select received_on, reason, cast(sum(bodies) as bigint) as bodies
        from health.quarantine
        where received_on between date '{filters.start}' and date '{filters.end}'
        group by all
        order by received_on, reason
    """
