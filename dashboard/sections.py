"""The dashboard's sections: each one's heading, summary and charts, built from its query
results (:mod:`dashboard.queries`). The notebook (:mod:`dashboard.notebook`) shows them; the
static report (:mod:`dashboard.report`) writes them in the same order.
"""

from __future__ import annotations

from datetime import date

import pandas as pd

from . import views
from .views import Section


def hours(
    hours_daily: pd.DataFrame,
    variance_leaders: pd.DataFrame,
    stack_by: str,
    today: date | None = None,
) -> Section:
    """Scheduled beside worked hours per local day (stacked by ``stack_by``: ``scheduler`` or
    ``job``) and the ten people furthest from their schedule; days from ``today`` on are
    marked partial."""
    return Section(
        key="hours",
        title="Hours",
        summary=(
            "Scheduled hours (published, assigned shifts) beside worked hours (shift punches) "
            f"per local day, stacked by {stack_by}; and the ten people furthest from their "
            "schedule. Both stop at the build's clock: only shifts that have ended and punches "
            "clocked out count, and a day not over yet is marked partial."
        ),
        views=[
            views.bar_view(
                views.days_label(hours_daily, partial_from=today),
                title="Scheduled vs worked hours per local day",
                x="local_date",
                x_title="Local day",
                y="hours",
                y_title="Hours (h)",
                color="stacked_by",
                color_title=stack_by.capitalize(),
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


def attendance(
    attendance_daily: pd.DataFrame, attendance_people: pd.DataFrame, today: date | None = None
) -> Section:
    """Late arrivals, no-shows and unscheduled punches per local day (days from ``today`` on
    marked partial) and per person."""
    kinds = ["late_arrivals", "no_shows", "unscheduled_punches"]
    return Section(
        key="attendance",
        title="Attendance",
        summary=(
            "Late arrivals, no-shows and shift punches no published assignment explains "
            "(fct_attendance), per local day and for the ten people with the most."
        ),
        views=[
            views.bar_view(
                attendance_daily,
                rows=views.days_label(attendance_daily, partial_from=today).melt(
                    id_vars="local_date",
                    value_vars=kinds,
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
                    id_vars="person", value_vars=kinds, var_name="incident", value_name="count"
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


def cost(
    cost_daily: pd.DataFrame,
    cost_jobs: pd.DataFrame,
    currency: str | None,
    today: date | None = None,
) -> Section:
    """Labour cost per local day (days from ``today`` on marked partial) and per job in
    ``currency`` (ISO 4217, ``None`` when the account's currency is not named), and worked
    hours with a rate, salaried (a monthly or yearly rate nothing costs) and without a rate."""
    return Section(
        key="cost",
        title="Labour cost",
        summary=(
            "Worked hours times the rate in effect that day (fct_labour_cost_daily), per local "
            "day and per job (sub-jobs under their job), in the account's currency. Hours worked "
            "without a rate, and salaried hours (a monthly or yearly rate no timesheet pay or "
            "hours-per-month setting turns into a cost), are counted apart, so neither looks "
            "like a cheap day."
        ),
        views=[
            views.bar_view(
                cost_daily,
                rows=views.days_label(cost_daily, partial_from=today),
                title="Labour cost per local day",
                x="local_date",
                x_title="Local day",
                y="labour_cost",
                y_title=views.money_title("Labour cost", currency),
            ),
            views.bar_view(
                cost_daily,
                rows=views.days_label(cost_daily, partial_from=today).melt(
                    id_vars="local_date",
                    value_vars=["hours_with_rate", "salaried_hours", "hours_without_rate"],
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
                y_title=views.money_title("Labour cost", currency),
                horizontal=True,
            ),
        ],
    )


def labour_vs_sales(locations: pd.DataFrame, currency: str | None) -> Section:
    """Per sales location over the range: labour cost as a percentage of sales, and labour
    cost beside sales in ``currency`` (ISO 4217, ``None`` when the account's is not named)."""
    return Section(
        key="labour_vs_sales",
        title="Labour % of sales",
        summary=(
            "Labour cost as a percentage of sales per sales location over the local days "
            "(fct_labour_vs_sales_daily: a user's labour counts at the location whose name their "
            "location group carries that day, split equally between several). The percentage "
            "takes the days with sales; labour on days without sales is in the cost, counted "
            "apart. The scheduler, job, user, group and layer filters do not apply: a location's "
            "figures are all its people's."
        ),
        views=[
            views.bar_view(
                locations,
                title="Labour % of sales per location",
                x="location",
                x_title="Location",
                y="labour_pct_of_sales",
                y_title="Labour cost / sales (%)",
            ),
            views.bar_view(
                locations,
                rows=locations.rename(columns={"labour_cost": "labour cost"}).melt(
                    id_vars="location",
                    value_vars=["labour cost", "sales"],
                    var_name="measure",
                    value_name="amount",
                ),
                title="Labour cost and sales per location",
                x="location",
                x_title="Location",
                y="amount",
                y_title=views.money_title("Labour cost and sales", currency),
                color="measure",
                color_title="Measure",
                x_offset="measure",
            ),
        ],
    )


def schedule_changes(schedule_changes_weekly: pd.DataFrame) -> Section:
    """Changes inside the notice window per ISO week and scheduler."""
    return Section(
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


def timesheets(timesheet_periods: pd.DataFrame, timesheets_waiting: pd.DataFrame) -> Section:
    """Periods waiting for approval, periods in the range by status, the mean approval lag."""
    return Section(
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
                rows=views.days_label(timesheet_periods, "period_start"),
                title="Mean approval lag per period",
                x="period_start",
                x_title="Period starting",
                y="mean_approval_lag_hours",
                y_title="Submission to approval (h)",
            ),
        ],
    )


def data_health(
    freshness: pd.DataFrame,
    last_runs: pd.DataFrame,
    quarantine: pd.DataFrame,
    reconciliation: pd.DataFrame,
) -> Section:
    """Freshness of the raw tables, the last runs, the webhook/API reconciliation and the
    quarantine."""
    return Section(
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
