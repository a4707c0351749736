"""The demo's answers stay whole at 80 columns (no value cut to ``…``, no column cropped)."""

from __future__ import annotations

import duckdb
from rich.console import Console

from flows.cli.demo_show import show_on

WIDE = (
    "create table answer as select 'Oskar Søndergaard (2230)' as person, "
    "date '2026-11-23' as period_start, 'submitted' as status, 28957.56 as labour_cost, "
    "231 as provider_pay, 12 as at_job_rate, 27 as salaried, 95 as without_rate, "
    "1 as unscheduled_punches"
)


def _shown(create: str) -> tuple[list[str], str]:
    """The values of ``create``'s one row and what ``show_on`` printed of them at 80 columns."""
    console = Console(width=80, record=True, force_terminal=False, color_system=None)
    with duckdb.connect() as con:
        con.execute(create)
        show_on(con, console, "title", "select * from answer")
        values = [str(v) for v in con.sql("from answer").fetchall()[0]]
    text = console.export_text()
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines()), text
    return values, text


def test_a_table_wider_than_the_console_keeps_every_value_and_header_word():
    values, text = _shown(WIDE)
    assert [value for value in values if value not in text] == []
    headers = ("person", "period", "labour", "cost", "without", "rate", "unscheduled", "punches")
    assert [word for word in headers if word not in text] == []


def test_a_narrow_table_keeps_its_column_names_whole():
    values, text = _shown("create table answer as select 'active' as status, 1.5 as paid_hours")
    assert any("status" in line and "paid_hours" in line for line in text.splitlines()), text
    assert all(value in text for value in values)
