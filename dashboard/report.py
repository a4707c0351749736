"""The static report: the dashboard notebook run once, written as one self-contained HTML file.

``marimo export html`` writes a page that loads marimo's front end from a CDN (187 URLs on
cdn.jsdelivr.net for marimo 0.25, benchmarks/dashboard_report.py): it needs the network to
show anything. The report must open offline and be small enough to mail, so it runs the same
notebook with marimo (``app.run``, the default filters: the last 14 days, everything) and
writes what its cells built: the KPI cards, each section's charts as inline SVG (rendered by
vl-convert, the Vega-Lite project's converter, with no browser and no network) and the table
behind each chart. No script, no external resource.
"""

from __future__ import annotations

import html
import logging
import os
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import pandas as pd

from core.durable import replace_durably
from core.paths import paths_in

from . import views

logger = logging.getLogger("dashboard.report")

TABLE_ROWS = 200
"""Rows of each table written into the report; a longer table says how many were left out."""

CHART_WIDTH = 760
"""Chart width in the report (pixels); the served app fits charts to the window instead."""

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px auto;
       max-width: 860px; color: #1f2328; padding: 0 16px; }
h1 { margin-bottom: 4px; } .wfm-meta { color: #57606a; margin-top: 0; }
section { margin-top: 32px; border-top: 1px solid #d0d7de; }
figure { margin: 16px 0; } figure svg { max-width: 100%; height: auto; }
details { margin: 4px 0 16px; } summary { cursor: pointer; color: #0969da; }
table { border-collapse: collapse; font-size: 12px; margin-top: 6px; }
th, td { border: 1px solid #d0d7de; padding: 2px 6px; text-align: right; }
th { background: #f6f8fa; }
"""


@dataclass
class ReportSummary:
    """What one report run wrote.

    Attributes:
        path: The HTML file.
        bytes: Its size.
        charts: Charts rendered.
        kpis: The KPI figures shown (key -> value), per :data:`dashboard.views.KPI_LABELS`.
        duration_seconds: Wall time.
    """

    path: str
    bytes: int
    charts: int
    kpis: dict[str, float]
    duration_seconds: float


def write_report(
    snapshot: Path,
    output: Path,
    *,
    runs: Path | None = None,
    now: float,
    today: date | None = None,
) -> ReportSummary:
    """Run the dashboard notebook on ``snapshot`` and write the report to ``output`` (a temporary
    file beside it, flushed to disk, then one durable ``rename``,
    :func:`core.durable.replace_durably`: a reader never sees half a report).

    Args:
        snapshot: The published snapshot (read-only).
        output: Where to write the HTML.
        runs: The run log (``runs.jsonl``) for the data-health section; ``None``: beside the
            snapshot.
        now: What ages (freshness, waiting timesheets) are measured up to, epoch seconds (UTC):
            the project's instant (:attr:`core.project.Project.now`).
        today: The last day of the range (14 days); ``None``: the day of ``now`` (UTC).

    Raises:
        FileNotFoundError: No snapshot at ``snapshot`` (the message says how to make one).
    """
    from .notebook import app

    started = time.monotonic()
    if not snapshot.exists():
        raise FileNotFoundError(
            f"no snapshot at {snapshot}: run `wfm-sync sync` (or `wfm-sync models publish`) first"
        )
    instant = now
    day = today or datetime.fromtimestamp(instant, UTC).date()
    _, defs = app.run(
        defs={
            "now": instant,
            "snapshot_file": snapshot,
            "runs_file": runs if runs is not None else paths_in(snapshot.parent).run_log,
            "today": day,
        }
    )
    sections: list[views.Section] = list(defs["report_sections"])
    kpis: dict[str, float] = dict(defs["kpis"])
    filters: views.Filters = defs["report_filters"]
    published_at = defs["published_at"]
    page, charts = render(sections, kpis, filters, published_at, defs["currency"])
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    partial.write_text(page, encoding="utf-8")
    replace_durably(partial, output)
    summary = ReportSummary(
        path=str(output),
        bytes=output.stat().st_size,
        charts=charts,
        kpis=kpis,
        duration_seconds=round(time.monotonic() - started, 2),
    )
    logger.info("report: %s (%d charts, %.0f kB)", output, charts, summary.bytes / 1000)
    return summary


def render(
    sections: list[views.Section],
    kpis: dict[str, float],
    filters: views.Filters,
    published_at: datetime | None,
    currency: str | None = None,
) -> tuple[str, int]:
    """The report page and the number of charts in it; labour cost in ``currency`` (ISO 4217)
    when the account's currency is named."""
    import vl_convert  # its JavaScript engine loads with it: only when a report is drawn

    published = f"{published_at:%Y-%m-%d %H:%M} UTC" if published_at else "unknown"
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<title>wfm-sync report</title>",
        f"<style>{STYLE}{views.KPI_STYLE}</style></head><body>",
        "<h1>Workforce report</h1>",
        f"<p class='wfm-meta'>{html.escape(filters.describe({}))}; snapshot published "
        f"{html.escape(published)}. Made by wfm-sync from the dashboard notebook.</p>",
        views.kpi_html(kpis, currency),
    ]
    charts = 0
    for section in sections:
        parts.append(f"<section id='{section.key}'><h2>{html.escape(section.title)}</h2>")
        parts.append(f"<p>{html.escape(section.summary)}</p>")
        for view in section.views:
            svg = vl_convert.vegalite_to_svg(view.chart.properties(width=CHART_WIDTH).to_json())
            charts += 1
            parts.append(f"<figure class='wfm-chart'>{svg}</figure>")
            parts.append(table_html(view.title, view.table))
        parts.append("</section>")
    parts.append("</body></html>")
    return "".join(parts), charts


def table_html(title: str, frame: pd.DataFrame) -> str:
    """The table view of a chart: a collapsed ``<details>`` holding at most :data:`TABLE_ROWS`
    rows."""
    shown = frame.head(TABLE_ROWS)
    note = "" if len(frame) <= TABLE_ROWS else f" (first {TABLE_ROWS} of {len(frame):,})"
    table = shown.to_html(index=False, border=0, na_rep="", float_format=lambda v: f"{v:,.2f}")
    return (
        f"<details><summary>Table: {html.escape(title)}, {len(frame):,} rows{note}</summary>"
        f"{table}</details>"
    )
