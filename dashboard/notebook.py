"""wfm-sync dashboard: a marimo notebook over the published snapshot (read-only).

Serve it with ``wfm-sync dashboard`` (``marimo run`` under the hood); ``wfm-sync report`` and the
nightly run it once and write the static report (:mod:`dashboard.report`). Arguments after
``--``: ``--snapshot PATH`` (the published snapshot), ``--runs PATH`` (the run log,
``runs.jsonl``), ``--today YYYY-MM-DD`` (the last day of the default range; default today, UTC,
by the project's clock ``WFM_SYNC_NOW``).

KPIs, per the filters (local days of the shifts and punches):
scheduled hours = ``fct_shifts.scheduled_hours`` of published, not deleted assignments;
worked hours and no-shows = ``fct_attendance`` (every shift punch, matched to its assignment or
unscheduled); labour cost = ``fct_labour_cost_daily.labour_cost`` (with a scheduler chosen: the
user x day x job rows of that scheduler's attendance).
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="wfm-sync dashboard")


@app.cell
def imports():
    from datetime import UTC, date, datetime, timedelta
    from pathlib import Path

    import altair as alt
    import marimo as mo
    import pandas as pd

    from dashboard import views
    from sources import clock

    return UTC, Path, alt, clock, date, datetime, mo, pd, timedelta, views


@app.cell
def config(Path, UTC, clock, date, datetime, mo):
    # The report (dashboard.report) replaces this cell's three names through app.run(defs=...).
    _args = mo.cli_args()
    snapshot_file = Path(str(_args.get("snapshot") or "data/analytics.duckdb"))
    runs_file = (
        Path(str(_args["runs"])) if _args.get("runs") else snapshot_file.parent / "runs.jsonl"
    )
    today = (
        date.fromisoformat(str(_args["today"]))
        if _args.get("today")
        else datetime.fromtimestamp(clock.now(), UTC).date()
    )
    return runs_file, snapshot_file, today


@app.cell
def options(mo, snapshot_file, views):
    mo.stop(
        not snapshot_file.exists(),
        mo.callout(
            mo.md(
                f"No snapshot at `{snapshot_file}`. Run `wfm-sync sync` (or `make demo`) first, "
                "or start the dashboard with `--snapshot PATH`."
            ),
            kind="danger",
        ),
    )
    with views.connect(snapshot_file) as _con:
        published_at = _con.execute("select max(published_at) from main._published").fetchall()[0][
            0
        ]
        scheduler_options = dict(
            _con.sql(
                """
                with named as (
                    select scheduler_id,
                        coalesce(max(scheduler_name), 'scheduler ' || scheduler_id) as label
                    from marts.fct_shifts where scheduler_id is not null
                    group by scheduler_id
                )
                select
                    case when count(*) over (partition by label) > 1
                        then label || ' (' || scheduler_id || ')' else label end,
                    scheduler_id
                from named order by 1
                """
            ).fetchall()
        )
        job_options = dict(
            _con.sql(
                """
                with used as (
                    select job_id from marts.fct_shifts
                    union select job_id from marts.fct_attendance
                    union select job_id from marts.fct_labour_cost_daily
                )
                select coalesce(max(jobs.job_title), used.job_id) || ' (' || used.job_id || ')',
                    used.job_id
                from used left join staging.stg_connecteam__jobs as jobs using (job_id)
                where used.job_id is not null
                group by used.job_id order by 1
                """
            ).fetchall()
        )
        user_options = dict(
            _con.sql(
                """
                select coalesce(full_name, 'user') || ' (' || user_id || ')', user_id
                from marts.dim_users order by full_name, user_id
                """
            ).fetchall()
        )
    return job_options, published_at, scheduler_options, user_options


@app.cell
def controls(job_options, mo, scheduler_options, timedelta, today, user_options, views):
    date_range = mo.ui.date_range(value=(today - timedelta(days=13), today), label="Local days")
    scheduler = mo.ui.dropdown(
        {"All schedulers": views.ALL, **scheduler_options},
        value="All schedulers",
        label="Scheduler",
    )
    job = mo.ui.dropdown(
        {"All jobs": views.ALL, **job_options}, value="All jobs", label="Job", searchable=True
    )
    user = mo.ui.dropdown(
        {"All users": views.ALL, **user_options}, value="All users", label="User", searchable=True
    )
    stack_by = mo.ui.radio(
        {"scheduler": "scheduler", "job": "job"},
        value="scheduler",
        label="Stack hours by",
        inline=True,
    )
    return date_range, job, scheduler, stack_by, user


@app.cell
def header(date_range, job, mo, published_at, scheduler, snapshot_file, stack_by, user):
    mo.vstack(
        [
            mo.md(
                f"# Workforce dashboard\n"
                f"From the snapshot `{snapshot_file.name}`, "
                f"published {published_at:%Y-%m-%d %H:%M} UTC."
            ),
            mo.hstack([date_range, scheduler, job, user, stack_by], justify="start", wrap=True),
        ]
    )
    return


@app.cell
def filters(date_range, job, scheduler, user, views):
    filters = views.Filters(
        start=date_range.value[0],
        end=date_range.value[1],
        scheduler_id=views.choice(scheduler.value),
        job_id=views.choice(job.value),
        user_id=views.choice(user.value),
    )
    # Labour cost has no scheduler: with one chosen, the rows of that scheduler's attendance.
    cost_where = filters.where(scheduler=None)
    if filters.scheduler_id is not None:
        cost_where += f"""
            and exists (
                select 1 from marts.fct_attendance as attendance
                where attendance.scheduler_id = {filters.scheduler_id}
                    and attendance.user_id = cost.user_id
                    and attendance.local_date = cost.local_date
                    and attendance.job_id is not distinct from cost.job_id
            )"""
    return cost_where, filters


@app.cell
def connection(filters, snapshot_file, views):
    # Opened again whenever the filters change, so a new publish is picked up on the next change.
    _ = filters
    con = views.connect(snapshot_file)
    return (con,)


@app.cell
def kpi_query(con, cost_where, filters, mo):
    kpi_frame = mo.sql(
        f"""
        select
            (select coalesce(sum(scheduled_hours), 0) from marts.fct_shifts
                where is_published and not is_deleted and {filters.where()}) as scheduled_hours,
            (select coalesce(sum(worked_hours), 0) from marts.fct_attendance
                where {filters.where()}) as worked_hours,
            (select count(*) filter (where no_show) from marts.fct_attendance
                where {filters.where()}) as no_shows,
            (select coalesce(sum(labour_cost), 0) from marts.fct_labour_cost_daily as cost
                where {cost_where}) as labour_cost,
            (select coalesce(sum(worked_hours) filter (where has_no_rate), 0)
                from marts.fct_labour_cost_daily as cost where {cost_where}) as hours_without_rate
        """,
        engine=con,
        output=False,
    )
    kpis = {_key: float(_value) for _key, _value in kpi_frame.iloc[0].items()}
    return (kpis,)


@app.cell
def kpi_cards(kpis, mo, views):
    mo.Html(f"<style>{views.KPI_STYLE}</style>" + views.kpi_html(kpis))
    return


@app.cell
def hours_query(con, filters, mo, stack_by):
    _label = (
        "coalesce(jobs.job_title, measures.job_id, '(no job)')"
        if stack_by.value == "job"
        else "coalesce(schedulers.scheduler_name, cast(measures.scheduler_id as varchar), "
        "'(unscheduled)')"
    )
    hours_daily = mo.sql(
        f"""
        with scheduled as (
            select local_date, scheduler_id, job_id, sum(scheduled_hours) as hours
            from marts.fct_shifts
            where is_published and not is_deleted and {filters.where()}
            group by all
        ),
        worked as (
            select local_date, scheduler_id, job_id, sum(worked_hours) as hours
            from marts.fct_attendance
            where {filters.where()}
            group by all
        ),
        measures as (
            select 'scheduled' as measure, * from scheduled
            union all
            select 'worked' as measure, * from worked
        ),
        schedulers as (
            select scheduler_id, max(scheduler_name) as scheduler_name
            from staging.stg_connecteam__schedulers group by scheduler_id
        ),
        jobs as (
            select job_id, max(job_title) as job_title
            from staging.stg_connecteam__jobs group by job_id
        )
        select
            measures.local_date,
            measures.measure,
            {_label} as stacked_by,
            round(sum(measures.hours), 2) as hours
        from measures
        left join schedulers on schedulers.scheduler_id = measures.scheduler_id
        left join jobs on jobs.job_id = measures.job_id
        group by all
        order by local_date, measure, stacked_by
        """,
        engine=con,
        output=False,
    )
    variance_leaders = mo.sql(
        f"""
        with scheduled as (
            select user_id, sum(scheduled_hours) as scheduled_hours
            from marts.fct_shifts
            where is_published and not is_deleted and user_id is not null and {filters.where()}
            group by user_id
        ),
        worked as (
            select user_id, sum(worked_hours) as worked_hours
            from marts.fct_attendance
            where user_id is not null and {filters.where()}
            group by user_id
        )
        select
            coalesce(users.full_name, 'user') || ' (' || user_id || ')' as person,
            round(coalesce(scheduled.scheduled_hours, 0), 2) as scheduled_hours,
            round(coalesce(worked.worked_hours, 0), 2) as worked_hours,
            round(coalesce(worked.worked_hours, 0) - coalesce(scheduled.scheduled_hours, 0), 2)
                as variance_hours
        from scheduled
        full join worked using (user_id)
        left join marts.dim_users as users using (user_id)
        order by abs(variance_hours) desc, person
        limit 10
        """,
        engine=con,
        output=False,
    )
    return hours_daily, variance_leaders


@app.cell
def hours_section(hours_daily, stack_by, variance_leaders, views):
    hours_section = views.Section(
        key="hours",
        title="Hours",
        summary=(
            "Scheduled hours (published assignments) beside worked hours (shift punches) per "
            f"local day, stacked by {stack_by.value}; and the ten people furthest from their "
            "schedule."
        ),
        views=[
            views.bar_view(
                hours_daily,
                rows=views.days_label(hours_daily),
                title="Scheduled vs worked hours per local day",
                x="local_date",
                x_title="Local day",
                y="hours",
                y_title="Hours (h)",
                color="stacked_by",
                color_title=stack_by.value.capitalize(),
                x_offset="measure",
            ),
            views.bar_view(
                variance_leaders,
                title="Variance leaders: worked minus scheduled hours",
                x="person",
                x_title="Person",
                y="variance_hours",
                y_title="Worked - scheduled (h)",
                horizontal=True,
            ),
        ],
    )
    views.section_ui(hours_section)
    return (hours_section,)


@app.cell
def attendance_query(con, filters, mo):
    attendance_daily = mo.sql(
        f"""
        select
            local_date,
            count(*) filter (where is_late) as late_arrivals,
            count(*) filter (where no_show) as no_shows,
            count(*) filter (where is_unscheduled) as unscheduled_punches
        from marts.fct_attendance
        where {filters.where()}
        group by local_date
        order by local_date
        """,
        engine=con,
        output=False,
    )
    attendance_people = mo.sql(
        f"""
        select
            coalesce(users.full_name, 'user') || ' (' || attendance.user_id || ')' as person,
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
        """,
        engine=con,
        output=False,
    )
    return attendance_daily, attendance_people


@app.cell
def attendance_section(attendance_daily, attendance_people, views):
    _kinds = ["late_arrivals", "no_shows", "unscheduled_punches"]
    attendance_section = views.Section(
        key="attendance",
        title="Attendance",
        summary=(
            "Late arrivals, no-shows and shift punches no published assignment explains "
            "(fct_attendance), per local day and for the ten people with the most."
        ),
        views=[
            views.bar_view(
                attendance_daily,
                rows=views.days_label(attendance_daily).melt(
                    id_vars="local_date",
                    value_vars=_kinds,
                    var_name="incident",
                    value_name="count",
                ),
                title="Attendance incidents per local day",
                x="local_date",
                x_title="Local day",
                y="count",
                y_title="Incidents (count)",
                color="incident",
                color_title="Incident",
            ),
            views.bar_view(
                attendance_people,
                rows=attendance_people.melt(
                    id_vars="person", value_vars=_kinds, var_name="incident", value_name="count"
                ),
                title="Attendance incidents per person (top 10)",
                x="person",
                x_title="Person",
                y="count",
                y_title="Incidents (count)",
                color="incident",
                color_title="Incident",
                horizontal=True,
            ),
        ],
    )
    views.section_ui(attendance_section)
    return (attendance_section,)


@app.cell
def cost_query(con, cost_where, mo):
    cost_daily = mo.sql(
        f"""
        select
            local_date,
            round(coalesce(sum(labour_cost), 0), 2) as labour_cost,
            round(coalesce(sum(worked_hours) filter (where not has_no_rate), 0), 2)
                as hours_with_rate,
            round(coalesce(sum(worked_hours) filter (where has_no_rate), 0), 2)
                as hours_without_rate
        from marts.fct_labour_cost_daily as cost
        where {cost_where}
        group by local_date
        order by local_date
        """,
        engine=con,
        output=False,
    )
    cost_jobs = mo.sql(
        f"""
        with jobs as (
            select job_id, max(job_title) as job_title
            from staging.stg_connecteam__jobs group by job_id
        )
        select
            coalesce(jobs.job_title, cost.job_id, '(no job)') as job,
            round(coalesce(sum(labour_cost), 0), 2) as labour_cost,
            round(sum(worked_hours), 2) as worked_hours,
            round(coalesce(sum(worked_hours) filter (where has_no_rate), 0), 2)
                as hours_without_rate
        from marts.fct_labour_cost_daily as cost
        left join jobs on jobs.job_id = cost.job_id
        where {cost_where}
        group by all
        order by labour_cost desc, job
        """,
        engine=con,
        output=False,
    )
    return cost_daily, cost_jobs


@app.cell
def cost_section(cost_daily, cost_jobs, views):
    cost_section = views.Section(
        key="cost",
        title="Labour cost",
        summary=(
            "Worked hours times the rate in effect that day (fct_labour_cost_daily), per local day "
            "and per job, in the account's currency. Hours worked without a rate have no cost: "
            "they are counted apart, so a missing rate never looks like a cheap day."
        ),
        views=[
            views.bar_view(
                cost_daily,
                rows=views.days_label(cost_daily),
                title="Labour cost per local day",
                x="local_date",
                x_title="Local day",
                y="labour_cost",
                y_title="Labour cost (account currency)",
            ),
            views.bar_view(
                cost_daily,
                rows=views.days_label(cost_daily).melt(
                    id_vars="local_date",
                    value_vars=["hours_with_rate", "hours_without_rate"],
                    var_name="rate",
                    value_name="hours",
                ),
                title="Worked hours with and without a rate",
                x="local_date",
                x_title="Local day",
                y="hours",
                y_title="Worked hours (h)",
                color="rate",
                color_title="Rate",
            ),
            views.bar_view(
                cost_jobs,
                title="Labour cost per job",
                x="job",
                x_title="Job",
                y="labour_cost",
                y_title="Labour cost (account currency)",
                horizontal=True,
            ),
        ],
    )
    views.section_ui(cost_section)
    return (cost_section,)


@app.cell
def changes_query(con, filters, mo):
    schedule_changes_weekly = mo.sql(
        f"""
        with shifts as (
            select shift_assignment_key, max(job_id) as job_id
            from marts.fct_shifts group by shift_assignment_key
        ),
        schedulers as (
            select scheduler_id, max(scheduler_name) as scheduler_name
            from staging.stg_connecteam__schedulers group by scheduler_id
        )
        select
            cast(date_trunc('week', changes.changed_at) as date) as week_start,
            coalesce(schedulers.scheduler_name, cast(changes.scheduler_id as varchar), '(none)')
                as scheduler,
            count(*) as changes,
            count(*) filter (where is_inside_notice_window) as inside_notice_window,
            count(*) filter (where is_inside_24h) as inside_24h
        from marts.fct_schedule_changes as changes
        left join shifts using (shift_assignment_key)
        left join schedulers on schedulers.scheduler_id = changes.scheduler_id
        where {
            filters.where(
                day="cast(changes.changed_at as date)",
                scheduler="changes.scheduler_id",
                job="shifts.job_id",
                user="changes.user_id",
            )
        }
        group by all
        order by week_start, scheduler
        """,
        engine=con,
        output=False,
    )
    return (schedule_changes_weekly,)


@app.cell
def changes_section(schedule_changes_weekly, views):
    changes_section = views.Section(
        key="schedule_changes",
        title="Schedule changes",
        summary=(
            "Changes to assignments made inside the notice window before the shift "
            "(fct_schedule_changes), per ISO week (Monday, UTC) of the change and scheduler."
        ),
        views=[
            views.bar_view(
                schedule_changes_weekly,
                rows=views.days_label(schedule_changes_weekly, "week_start"),
                title="Changes inside the notice window per week",
                x="week_start",
                x_title="Week starting (Monday, UTC)",
                y="inside_notice_window",
                y_title="Changes inside the notice window (count)",
                color="scheduler",
                color_title="Scheduler",
            ),
        ],
    )
    views.section_ui(changes_section)
    return (changes_section,)


@app.cell
def timesheets_query(con, filters, mo, today, views):
    # Waiting for approval is a to-do list: every period still waiting, whatever its dates.
    timesheets_waiting = mo.sql(
        f"""
        select
            period_start,
            count(*) as waiting_for_approval,
            round(max(date_diff('minute', submitted_at, {views.end_of_day_sql(today)}) / 60.0), 1)
                as longest_wait_hours
        from marts.fct_timesheet_periods
        where status = 'submitted' and {filters.where(day=None, scheduler=None, job=None)}
        group by period_start
        order by period_start
        """,
        engine=con,
        output=False,
    )
    timesheet_periods = mo.sql(
        f"""
        select
            period_start,
            count(*) filter (where status = 'open') as open,
            count(*) filter (where status = 'submitted') as waiting_for_approval,
            count(*) filter (where status = 'approved') as approved,
            round(avg(approval_lag_hours), 2) as mean_approval_lag_hours
        from marts.fct_timesheet_periods
        where period_end >= date '{filters.start}' and period_start <= date '{filters.end}'
            and {filters.where(day=None, scheduler=None, job=None)}
        group by period_start
        order by period_start
        """,
        engine=con,
        output=False,
    )
    return timesheet_periods, timesheets_waiting


@app.cell
def timesheets_section(timesheet_periods, timesheets_waiting, views):
    timesheets_section = views.Section(
        key="timesheets",
        title="Timesheets",
        summary=(
            "Every timesheet period still waiting for approval, whatever its dates; the periods "
            "overlapping the range by status, and how long approvals took (submission to "
            "approval), from fct_timesheet_periods. The scheduler and job filters do not apply: "
            "a timesheet is a user's."
        ),
        views=[
            views.bar_view(
                timesheets_waiting,
                rows=views.days_label(timesheets_waiting, "period_start"),
                title="Periods waiting for approval",
                x="period_start",
                x_title="Period starting",
                y="waiting_for_approval",
                y_title="Periods waiting (count)",
            ),
            views.bar_view(
                timesheet_periods,
                rows=views.days_label(timesheet_periods, "period_start").melt(
                    id_vars="period_start",
                    value_vars=["open", "waiting_for_approval", "approved"],
                    var_name="status",
                    value_name="periods",
                ),
                title="Timesheet periods in the range by status",
                x="period_start",
                x_title="Period starting",
                y="periods",
                y_title="Periods (count)",
                color="status",
                color_title="Status",
            ),
            views.bar_view(
                timesheet_periods,
                rows=views.days_label(timesheet_periods, "period_start").fillna(
                    {"mean_approval_lag_hours": 0}
                ),
                title="Mean approval lag per period",
                x="period_start",
                x_title="Period starting",
                y="mean_approval_lag_hours",
                y_title="Submission to approval (h)",
            ),
        ],
    )
    views.section_ui(timesheets_section)
    return (timesheets_section,)


@app.cell
def health_query(con, filters, mo, pd, runs_file, today, views):
    # schema health: the publish's summary of the raw tables (no raw value in the snapshot)
    _health = {
        _name
        for (_name,) in con.sql(
            "select table_name from information_schema.tables where table_schema = 'health'"
        ).fetchall()
    }
    freshness = (
        mo.sql(
            """
            select table_name, row_count, last_load_epoch
            from health.raw_tables
            order by table_name
            """,
            engine=con,
            output=False,
        )
        if "raw_tables" in _health
        else pd.DataFrame(columns=["table_name", "row_count", "last_load_epoch"])
    )
    _end = views.end_of_day_epoch(today)
    freshness["hours_since_load"] = ((_end - freshness["last_load_epoch"]) / 3600).round(1)
    last_runs = views.read_runs(runs_file)
    reconciliation = mo.sql(
        f"""
        select data_source, coalesce(sum(activity_count), 0) as activities
        from marts.fct_time_activity_reconciliation
        where {filters.where(scheduler=None, job=None)}
        group by data_source
        order by data_source
        """,
        engine=con,
        output=False,
    )
    quarantine = (
        mo.sql(
            f"""
            select received_on, reason, cast(sum(bodies) as bigint) as bodies
            from health.quarantine
            where received_on between date '{filters.start}' and date '{filters.end}'
            group by all
            order by received_on, reason
            """,
            engine=con,
            output=False,
        )
        if "quarantine" in _health
        else pd.DataFrame(columns=["received_on", "reason", "bodies"])
    )
    return freshness, last_runs, quarantine, reconciliation


@app.cell
def health_section(freshness, last_runs, quarantine, reconciliation, views):
    health_section = views.Section(
        key="data_health",
        title="Data health",
        summary=(
            "How old each raw table's last load is, the last runs (runs.jsonl), activities the "
            "API and the webhooks disagree on (fct_time_activity_reconciliation), and webhook "
            "bodies kept in quarantine."
        ),
        views=[
            views.bar_view(
                freshness,
                title="Hours since each table's last load",
                x="table_name",
                x_title="Table",
                y="hours_since_load",
                y_title="Hours since last load (h)",
                horizontal=True,
            ),
            views.bar_view(
                last_runs,
                title="Last runs",
                x="run",
                x_title="Run (oldest first)",
                y="duration_seconds",
                y_title="Duration (s)",
                color="outcome",
                color_title="Outcome",
            ),
            views.bar_view(
                reconciliation,
                title="Webhook/API reconciliation",
                x="data_source",
                x_title="Disagreement",
                y="activities",
                y_title="Time activities (count)",
            ),
            views.bar_view(
                quarantine,
                rows=views.days_label(quarantine, "received_on"),
                title="Quarantined webhook bodies",
                x="received_on",
                x_title="Received on (UTC)",
                y="bodies",
                y_title="Bodies (count)",
                color="reason",
                color_title="Reason",
            ),
        ],
    )
    views.section_ui(health_section)
    return (health_section,)


@app.cell
def report_parts(
    attendance_section,
    changes_section,
    cost_section,
    filters,
    health_section,
    hours_section,
    timesheets_section,
):
    # What the static report (dashboard.report) writes, in this order.
    sections = [
        hours_section,
        attendance_section,
        cost_section,
        changes_section,
        timesheets_section,
        health_section,
    ]
    report_filters = filters
    return report_filters, sections


if __name__ == "__main__":
    app.run()
