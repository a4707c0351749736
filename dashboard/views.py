"""What the dashboard's sections share: the filters (from :mod:`dashboard.filtering`), the KPIs,
charts and tables.

The SQL is in :mod:`dashboard.queries`, the sections in :mod:`dashboard.sections`; this module
holds the parts every section uses, declared once, so the served app and the static report
(:mod:`dashboard.report`) show the same thing.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import altair as alt
import duckdb
import pandas as pd

# the filters (dashboard.filtering), re-exported: the notebook and the queries name them here
from .filtering import ALL as ALL
from .filtering import Filters as Filters
from .filtering import choice as choice
from .filtering import sql_literal as sql_literal


def connect(snapshot: Path) -> duckdb.DuckDBPyConnection:
    """Open the snapshot read-only. Each refresh opens it anew, so the app shows the latest
    publish (the publish swaps the file with one ``rename``; an open connection keeps the old
    file until it closes).

    Raises:
        FileNotFoundError: No snapshot at ``snapshot`` (the message says how to make one).
    """
    if not snapshot.exists():
        raise FileNotFoundError(
            f"no snapshot at {snapshot}: run `wfm-sync sync` (or `wfm-sync models publish`) "
            "first, or point --snapshot at one"
        )
    con = duckdb.connect(str(snapshot), read_only=True)
    con.execute("set TimeZone = 'UTC'")  # dates of timestamps (weeks, received days) in UTC
    return con


KPI_LABELS = {
    "scheduled_hours": ("Scheduled hours (ended shifts)", "h"),
    "worked_hours": ("Worked hours (same shifts and punches)", "h"),
    "open_shift_hours": ("Open shift hours (nobody assigned)", "h"),
    "no_shows": ("No-shows", ""),
    "labour_cost": ("Labour cost", ""),
    "hours_without_rate": ("Worked hours without a rate", "h"),
    "salaried_hours": ("Salaried hours (monthly or yearly rate, not costed)", "h"),
}
"""The KPI cards, in order: key -> (label, unit). Scheduled and worked hours stop at the
build's clock (shifts that have ended, punches clocked out), so a shift not yet due never
counts as hours missing."""


def money_title(measure: str, currency: str | None) -> str:
    """An axis title for money: ``"Labour cost (EUR)"``, or, when the account's currency is not
    named (``WFM_SYNC_CURRENCY``; the provider's API states none), says so."""
    return f"{measure} ({currency or 'currency not named: set WFM_SYNC_CURRENCY'})"


def kpi_html(kpis: dict[str, float], currency: str | None = None) -> str:
    """The KPI cards as HTML, labour cost with ``currency`` (ISO 4217) beside it when named.
    Each card carries ``data-kpi`` (its key) and ``data-value`` (the unrounded figure) so a
    reader (or a browser test) can take the number as computed."""
    cards = []
    for key, (label, unit) in KPI_LABELS.items():
        if key == "labour_cost":
            unit = currency or ""
        value = float(kpis.get(key) or 0)
        shown = f"{value:,.0f}" if key == "no_shows" else f"{value:,.1f}"
        if key == "labour_cost":
            shown = f"{value:,.2f}"
        cards.append(
            f'<div class="wfm-kpi" data-kpi="{key}" data-value="{value!r}">'
            f'<div class="wfm-kpi-label">{html.escape(label)}</div>'
            f'<div class="wfm-kpi-value">{shown}{(" " + unit) if unit else ""}</div></div>'
        )
    return '<div class="wfm-kpis">' + "".join(cards) + "</div>"


KPI_STYLE = """
.wfm-kpis { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0 16px; }
.wfm-kpi { border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 16px; min-width: 150px; }
.wfm-kpi-label { font-size: 12px; color: #57606a; }
.wfm-kpi-value { font-size: 24px; font-weight: 600; }
"""


@dataclass
class View:
    """One chart of a section and the table behind it.

    Attributes:
        title: The chart's title (also the table's caption).
        chart: The altair chart (titled, axes labelled with units).
        table: The rows the chart draws, as shown in the table view.
    """

    title: str
    chart: alt.TopLevelMixin
    table: pd.DataFrame


@dataclass
class Section:
    """A titled group of views (hours, attendance, cost, ...).

    Attributes:
        key: A short identifier (``hours``), used as the HTML id.
        title: The heading.
        summary: One or two sentences under the heading: what it shows and where from.
        views: Its charts, in order.
    """

    key: str
    title: str
    summary: str
    views: Sequence[View]


NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 (and so SVG) cannot hold; provider names may carry them."""


LABEL_CHARACTERS = 40
"""Longest label a chart shows; a longer one keeps its start and end (the id in parentheses)."""


def label(value: str) -> str:
    """``value`` fit for a chart label: characters XML cannot hold replaced by U+FFFD and, past
    :data:`LABEL_CHARACTERS`, the middle cut out (whole characters, so an emoji is never split:
    vega's own cut by pixel width can split one, and vl-convert then fails on the half)."""
    value = NOT_XML.sub("\ufffd", value)
    if len(value) <= LABEL_CHARACTERS:
        return value
    return value[: LABEL_CHARACTERS - 13] + "…" + value[-12:]


def printable(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text value made a :func:`label`, so a chart of it renders as SVG
    (vl-convert aborts the process on a control character in a label)."""
    frame = frame.copy()
    for column in frame.columns:
        if frame[column].dtype == object or pd.api.types.is_string_dtype(frame[column]):
            frame[column] = frame[column].map(lambda v: label(v) if isinstance(v, str) else v)
    return frame


def bar_chart(
    frame: pd.DataFrame,
    *,
    title: str,
    x: str,
    x_title: str,
    y: str,
    y_title: str,
    color: str | None = None,
    color_title: str | None = None,
    x_offset: str | None = None,
    horizontal: bool = False,
    x_type: str = "O",
) -> alt.Chart:
    """A titled bar chart of ``frame``: ``x`` against the sum of ``y``, stacked by ``color``
    and, with ``x_offset``, grouped side by side (scheduled beside worked). ``horizontal`` puts
    the categories on the y axis (leader boards). A frame with no value of ``y`` (no rows, or
    every ``y`` null) gives :func:`no_data_chart` instead of an empty axis."""
    if frame.empty or frame[y].isna().all():
        return no_data_chart(title)
    encoding: dict[str, Any]
    if horizontal:
        encoding = {
            "y": alt.Y(f"{x}:{x_type}", title=x_title, sort="-x"),
            "x": alt.X(f"sum({y}):Q", title=y_title),
        }
    else:
        encoding = {
            "x": alt.X(f"{x}:{x_type}", title=x_title, sort=None),
            "y": alt.Y(f"sum({y}):Q", title=y_title),
        }
    tooltip = [
        alt.Tooltip(f"{x}:{x_type}", title=x_title),
        alt.Tooltip(f"sum({y}):Q", title=y_title, format=",.2f"),
    ]
    if color is not None:
        encoding["color"] = alt.Color(f"{color}:N", title=color_title or color)
        tooltip.append(alt.Tooltip(f"{color}:N", title=color_title or color))
    if x_offset is not None:
        encoding["xOffset"] = alt.XOffset(f"{x_offset}:N", title=None)
    if x_offset is not None and x_offset != color:  # grouped by its colour: no second legend
        encoding["opacity"] = alt.Opacity(
            f"{x_offset}:O",
            title=None,
            scale=alt.Scale(range=[1.0, 0.55]),
            legend=alt.Legend(title="Measure"),
        )
        tooltip.append(alt.Tooltip(f"{x_offset}:N", title="Measure"))
    encoding["tooltip"] = tooltip
    return (
        alt.Chart(printable(frame), title=title)
        .mark_bar()
        .encode(**encoding)
        .properties(width="container", height=260)
        # labels are already cut to LABEL_CHARACTERS: no second cut by pixel width
        .configure_axis(labelLimit=0)
        .configure_legend(labelLimit=0)
    )


NO_DATA = "No data in this range"
"""What a chart with nothing to draw says."""


def no_data_chart(title: str) -> alt.Chart:
    """A chart of the same size as :func:`bar_chart` that says :data:`NO_DATA` under ``title``."""
    return (
        alt.Chart(pd.DataFrame({"message": [NO_DATA]}), title=title)
        .mark_text(fontSize=14, color="#57606a")
        .encode(text="message:N")
        .properties(width="container", height=260)
    )


PARTIAL = " (partial)"
"""What a day that has not ended carries after its date in charts and tables."""


def days_label(
    frame: pd.DataFrame, column: str = "local_date", partial_from: date | None = None
) -> pd.DataFrame:
    """``frame`` with ``column`` (dates) as ``YYYY-MM-DD`` text, for an ordinal axis that shows
    every day once (bars of a temporal axis would straddle midnight); a day on or after
    ``partial_from`` (today, UTC, by the dashboard's clock) has not ended and is marked
    :data:`PARTIAL`."""
    frame = frame.copy()
    days = pd.to_datetime(frame[column])
    frame[column] = days.dt.strftime("%Y-%m-%d")
    if partial_from is not None:
        unfinished = days.dt.date >= partial_from
        frame.loc[unfinished, column] = frame.loc[unfinished, column] + PARTIAL
    return frame


def read_runs(path: Path | None, limit: int = 20) -> pd.DataFrame:
    """The last ``limit`` runs of the run log (``runs.jsonl``, :mod:`pipelines.runs`): job,
    outcome, started (UTC), duration (seconds) and error. A line that is not a JSON object is
    skipped (the log is append-only; a line cut by a crash must not hide the others); no file
    gives no rows."""
    columns = ["job", "outcome", "started_at", "duration_seconds", "error"]
    if path is None or not path.exists():
        return pd.DataFrame(columns=columns)
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[-limit * 5 :]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        rows.append(
            {
                "job": str(record.get("job") or "?"),
                "outcome": str(record.get("outcome") or "?"),
                "started_at": pd.to_datetime(
                    record.get("started_at"), unit="s", utc=True, errors="coerce"
                ),
                "duration_seconds": pd.to_numeric(record.get("duration_seconds"), errors="coerce"),
                "error": record.get("error") or "",
            }
        )
    frame = pd.DataFrame(rows[-limit:], columns=columns)
    frame["run"] = [f"{i + 1:02d} {job}" for i, job in enumerate(frame["job"])]
    return frame


def timestamp_sql(epoch: float) -> str:
    """``epoch`` (seconds, UTC) as a DuckDB ``timestamptz`` literal: ages (hours since a load,
    hours a timesheet waits) are measured up to the dashboard's now."""
    moment = datetime.fromtimestamp(epoch, UTC)
    return f"timestamptz '{moment:%Y-%m-%d %H:%M:%S}+00'"


def section_ui(section: Section) -> Any:
    """A section as marimo shows it: its heading and summary, then each view as two tabs, the
    chart and the table behind it."""
    import marimo as mo

    parts: list[Any] = [mo.md(f"## {section.title}\n{section.summary}")]
    for view in section.views:
        parts.append(
            mo.ui.tabs(
                {
                    "Chart": view.chart,
                    "Table": mo.ui.table(view.table, selection=None, page_size=10),
                }
            )
        )
    return mo.Html(
        f'<section id="{section.key}" class="wfm-section">{mo.vstack(parts).text}</section>'
    )


def bar_view(table: pd.DataFrame, *, rows: pd.DataFrame | None = None, **chart: Any) -> View:
    """A :class:`View` of a :func:`bar_chart`: ``table`` is what the table view shows, ``rows``
    what the chart draws (default ``table``; a long form of it for stacked measures), ``chart``
    the chart's keyword arguments (``title`` names the view too)."""
    return View(chart["title"], bar_chart(table if rows is None else rows, **chart), table)
