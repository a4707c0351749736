"""wfm-sync dashboard: a marimo notebook over the published snapshot (read-only).

Serve it with ``wfm-sync dashboard`` (``marimo run`` under the hood); ``wfm-sync report`` and the
nightly run it once and write the static report (:mod:`dashboard.report`). Arguments after
``--``: ``--snapshot PATH`` (the published snapshot), ``--runs PATH`` (the run log,
``runs.jsonl``), ``--today YYYY-MM-DD`` (the last day of the default range; default today, UTC,
by the project's clock ``WFM_SYNC_NOW``), ``--now EPOCH`` (what ages are measured up to:
freshness, waiting timesheets; default the project's clock).

Every query is in :mod:`dashboard.queries` (marts only), every section's charts in
:mod:`dashboard.sections`; the cells here wire the filters to them.

KPIs, per the filters (local days of the shifts and punches), worked against scheduled stopping at
the build's clock (``fct_attendance.has_ended``: shifts that have ended, punches clocked out):
scheduled hours = ``fct_attendance.scheduled_hours`` of assigned, published shifts; worked hours and
no-shows = ``fct_attendance`` (every shift punch, matched to its assignment or unscheduled); open
shift hours = ``fct_shifts`` open shifts on the schedule; salaried hours = hours a monthly or yearly
rate pays that nothing costs; labour cost = ``fct_labour_cost_daily.labour_cost`` (with a scheduler
or a layer value chosen: the user x day x job rows of that scheduler's attendance, or of the
attendance of shifts carrying that value).

A group (``dim_groups``) keeps the figures of the users who belonged to it on each figure's day
(``bridge_user_groups``); a layer value (``fct_shift_layer_values``: "Position: Cook") keeps the
shifts carrying it, and the punches and cost of those shifts.
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

    from core import clock
    from core.paths import paths_in
    from dashboard import queries, sections, views

    return (
        UTC,
        Path,
        alt,
        clock,
        date,
        datetime,
        mo,
        paths_in,
        pd,
        queries,
        sections,
        timedelta,
        views,
    )


@app.cell
def config(Path, UTC, clock, date, datetime, mo, paths_in):
    # The report (dashboard.report) replaces this cell's four names through app.run(defs=...);
    # `wfm-sync dashboard` passes --snapshot and --runs; opened by itself (`marimo edit`), the
    # notebook is its own edge and resolves the configured project once.
    _args = mo.cli_args()
    if _args.get("snapshot"):
        snapshot_file = Path(str(_args["snapshot"]))
    else:
        from sources.configuration import resolve as _resolve  # cell-local: `_`

        snapshot_file = _resolve().paths.snapshot
    runs_file = (
        Path(str(_args["runs"])) if _args.get("runs") else paths_in(snapshot_file.parent).run_log
    )
    now = float(_args["now"]) if _args.get("now") else clock.now()
    today = (
        date.fromisoformat(str(_args["today"]))
        if _args.get("today")
        else datetime.fromtimestamp(now, UTC).date()
    )
    return now, runs_file, snapshot_file, today


@app.cell
def options(mo, queries, snapshot_file, views):
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
        published_at = _con.execute(queries.PUBLISHED_AT).fetchall()[0][0]
        currency = _con.execute(queries.CURRENCY).fetchall()[0][0]
        scheduler_options = dict(_con.sql(queries.SCHEDULER_OPTIONS).fetchall())
        job_options = dict(_con.sql(queries.JOB_OPTIONS).fetchall())
        user_options = dict(_con.sql(queries.USER_OPTIONS).fetchall())
        group_options = dict(_con.sql(queries.GROUP_OPTIONS).fetchall())
        layer_options = {
            _label: (_title, _value)
            for _label, _title, _value in _con.sql(queries.LAYER_OPTIONS).fetchall()
        }
    return (
        currency,
        group_options,
        job_options,
        layer_options,
        published_at,
        scheduler_options,
        user_options,
    )


@app.cell
def controls(
    group_options,
    job_options,
    layer_options,
    mo,
    scheduler_options,
    timedelta,
    today,
    user_options,
    views,
):
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
    group = mo.ui.dropdown(
        {"All groups": views.ALL, **group_options}, value="All groups", label="Group"
    )
    layer = mo.ui.dropdown(
        {"All shift layers": views.ALL, **layer_options},
        value="All shift layers",
        label="Shift layer",
    )
    stack_by = mo.ui.radio(
        {"scheduler": "scheduler", "job": "job"},
        value="scheduler",
        label="Stack hours by",
        inline=True,
    )
    return date_range, group, job, layer, scheduler, stack_by, user


@app.cell
def header(
    date_range, group, job, layer, mo, published_at, scheduler, snapshot_file, stack_by, user
):
    mo.vstack(
        [
            mo.md(
                f"# Workforce dashboard\n"
                f"From the snapshot `{snapshot_file.name}`, "
                f"published {published_at:%Y-%m-%d %H:%M} UTC."
            ),
            mo.hstack(
                [date_range, scheduler, job, user, group, layer, stack_by],
                justify="start",
                wrap=True,
            ),
        ]
    )
    return


@app.cell
def filters(date_range, group, job, layer, scheduler, user, views):
    filters = views.Filters(
        start=date_range.value[0],
        end=date_range.value[1],
        scheduler_id=views.choice(scheduler.value),
        job_id=views.choice(job.value),
        user_id=views.choice(user.value),
        group_id=views.choice(group.value),
        layer=views.choice(layer.value),
    )
    return (filters,)


@app.cell
def connection(filters, snapshot_file, views):
    # Opened again whenever the filters change, so a new publish is picked up on the next change.
    _ = filters
    con = views.connect(snapshot_file)
    return (con,)


@app.cell
def kpi_query(con, filters, mo, queries):
    kpi_frame = mo.sql(queries.kpis(filters), engine=con, output=False)
    kpis = {_key: float(_value) for _key, _value in kpi_frame.iloc[0].items()}
    return (kpis,)


@app.cell
def kpi_cards(currency, kpis, mo, views):
    mo.Html(f"<style>{views.KPI_STYLE}</style>" + views.kpi_html(kpis, currency))
    return


@app.cell
def hours_query(con, filters, mo, queries, stack_by):
    hours_daily = mo.sql(queries.hours_daily(filters, stack_by.value), engine=con, output=False)
    variance_leaders = mo.sql(queries.variance_leaders(filters), engine=con, output=False)
    return hours_daily, variance_leaders


@app.cell
def hours_section(hours_daily, sections, stack_by, today, variance_leaders, views):
    hours_section = sections.hours(hours_daily, variance_leaders, stack_by.value, today)
    views.section_ui(hours_section)
    return (hours_section,)


@app.cell
def attendance_query(con, filters, mo, queries):
    attendance_daily = mo.sql(queries.attendance_daily(filters), engine=con, output=False)
    attendance_people = mo.sql(queries.attendance_people(filters), engine=con, output=False)
    return attendance_daily, attendance_people


@app.cell
def attendance_section(attendance_daily, attendance_people, sections, today, views):
    attendance_section = sections.attendance(attendance_daily, attendance_people, today)
    views.section_ui(attendance_section)
    return (attendance_section,)


@app.cell
def cost_query(con, filters, mo, queries):
    cost_daily = mo.sql(queries.cost_daily(filters), engine=con, output=False)
    cost_jobs = mo.sql(queries.cost_jobs(filters), engine=con, output=False)
    return cost_daily, cost_jobs


@app.cell
def cost_section(cost_daily, cost_jobs, currency, sections, today, views):
    cost_section = sections.cost(cost_daily, cost_jobs, currency, today)
    views.section_ui(cost_section)
    return (cost_section,)


@app.cell
def labour_vs_sales_query(con, filters, mo, queries):
    labour_vs_sales = mo.sql(queries.labour_vs_sales(filters), engine=con, output=False)
    return (labour_vs_sales,)


@app.cell
def labour_vs_sales_section(currency, labour_vs_sales, sections, views):
    labour_vs_sales_section = sections.labour_vs_sales(labour_vs_sales, currency)
    views.section_ui(labour_vs_sales_section)
    return (labour_vs_sales_section,)


@app.cell
def changes_query(con, filters, mo, queries):
    schedule_changes_weekly = mo.sql(
        queries.schedule_changes_weekly(filters), engine=con, output=False
    )
    return (schedule_changes_weekly,)


@app.cell
def changes_section(schedule_changes_weekly, sections, views):
    changes_section = sections.schedule_changes(schedule_changes_weekly)
    views.section_ui(changes_section)
    return (changes_section,)


@app.cell
def timesheets_query(con, filters, mo, now, queries):
    # Waiting for approval is a to-do list: every period still waiting, whatever its dates.
    timesheets_waiting = mo.sql(queries.timesheets_waiting(filters, now), engine=con, output=False)
    timesheet_periods = mo.sql(queries.timesheet_periods(filters), engine=con, output=False)
    return timesheet_periods, timesheets_waiting


@app.cell
def timesheets_section(sections, timesheet_periods, timesheets_waiting, views):
    timesheets_section = sections.timesheets(timesheet_periods, timesheets_waiting)
    views.section_ui(timesheets_section)
    return (timesheets_section,)


@app.cell
def health_query(con, filters, mo, now, pd, queries, runs_file, views):
    # schema health: the publish's summary of the raw tables (no raw value in the snapshot)
    _health = {_name for (_name,) in con.sql(queries.HEALTH_TABLES).fetchall()}
    freshness = (
        mo.sql(queries.FRESHNESS, engine=con, output=False)
        if "raw_tables" in _health
        else pd.DataFrame(columns=["table_name", "row_count", "last_load_epoch"])
    )
    # measured from now (the project's clock), not from the end of the day shown
    freshness["hours_since_load"] = ((now - freshness["last_load_epoch"]) / 3600).round(1)
    last_runs = views.read_runs(runs_file)
    reconciliation = mo.sql(queries.reconciliation(filters), engine=con, output=False)
    quarantine = (
        mo.sql(queries.quarantine(filters), engine=con, output=False)
        if "quarantine" in _health
        else pd.DataFrame(columns=["received_on", "reason", "bodies"])
    )
    return freshness, last_runs, quarantine, reconciliation


@app.cell
def health_section(freshness, last_runs, quarantine, reconciliation, sections, views):
    health_section = sections.data_health(freshness, last_runs, quarantine, reconciliation)
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
    labour_vs_sales_section,
    timesheets_section,
):
    # What the static report (dashboard.report) writes, in this order.
    report_sections = [
        hours_section,
        attendance_section,
        cost_section,
        labour_vs_sales_section,
        changes_section,
        timesheets_section,
        health_section,
    ]
    report_filters = filters
    return report_filters, report_sections


if __name__ == "__main__":
    app.run()
