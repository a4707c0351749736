"""The dashboard (``wfm-sync dashboard``) and the static report (``report.html``) in a real
browser: Debian's Chromium (``/usr/bin/chromium``, installed by ``.ci/run``) driven by Playwright,
against the small demo's snapshot (:func:`conftest.small_demo`).

The KPI figures the pages show are compared with queries of the marts written here, from the
definitions in the notebook's docstring, not with the notebook's own SQL.
"""

from __future__ import annotations

import html
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import NOW, WFM_SYNC, DemoRun, query

from dashboard.views import label

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _measured() -> bool:
    """Whether coverage measures this run (``make coverage``): the app and the nightly it
    serves beside then run several times slower, and the waits below allow for it."""
    import coverage

    return coverage.Coverage.current() is not None


WAIT = 360.0 if _measured() else 120.0
"""Seconds to wait for the app to answer or draw (three times as long under coverage)."""

CHARTS = 17
"""Charts of the dashboard: 2 hours, 2 attendance, 3 cost, 2 labour % of sales, 1 schedule
changes, 3 timesheets, 4 data health."""
SECTIONS = (
    "hours",
    "attendance",
    "cost",
    "labour_vs_sales",
    "schedule_changes",
    "timesheets",
    "data_health",
)
KPIS = (
    "scheduled_hours",
    "worked_hours",
    "open_shift_hours",
    "no_shows",
    "labour_cost",
    "hours_without_rate",
    "salaried_hours",
)
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "report.png"
"""docs/dashboard.md's picture of the report; `UPDATE_SCREENSHOTS=1 pytest
tests/e2e/test_dashboard.py -k report` writes it anew."""

TODAY = datetime.fromtimestamp(NOW, UTC).date()
DEFAULT_RANGE = (TODAY - timedelta(days=13), TODAY)

COLOURED_PIXELS = """(canvas) => {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let coloured = 0;
    for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 40) coloured++;
    }
    return coloured;
}"""
"""Pixels of a chart's canvas that carry colour: marks (bars); axes and text are grey."""


def expected_kpis(
    snapshot: Path,
    start: date,
    end: date,
    scheduler_id: int | None = None,
    group_id: int | None = None,
    layer: tuple[str, str] | None = None,
) -> dict[str, float]:
    """The KPI figures for a range (and a scheduler, a group, a shift layer value), by queries of
    the marts: a group keeps the users who belonged to it on the figure's day (a span holds from
    its valid_from day to the day before its valid_to; one from the first sync that saw the user
    holds before it too), a layer value the shifts carrying it, their punches and their cost."""
    days = f"local_date between date '{start}' and date '{end}'"
    member = "" if group_id is None else (
        " and user_id in (select b.user_id from marts.bridge_user_groups as b where "
        f"b.group_id = {group_id} and (b.is_from_first_sync or "
        "cast(b.valid_from as date) <= local_date) and (b.valid_to is null or "
        "local_date < cast(b.valid_to as date)))"
    )  # fmt: skip

    def carrying(shift: str) -> str:
        if layer is None:
            return ""
        title, value = (part.replace("'", "''") for part in layer)
        return (
            f" and {shift} in (select shift_assignment_key from marts.fct_shift_layer_values"
            f" where layer_title = '{title}' and value_name = '{value}')"
        )

    scheduler = "" if scheduler_id is None else f" and scheduler_id = {scheduler_id}"
    rows = f"{days}{scheduler}{member}{carrying('shift_assignment_key')}"
    cost = f"{days}{member}"
    if scheduler_id is not None or layer is not None:
        of_scheduler = "" if scheduler_id is None else f" and a.scheduler_id = {scheduler_id}"
        cost += (
            f" and exists (select 1 from marts.fct_attendance as a where true{of_scheduler}"
            f"{carrying('a.shift_assignment_key')} and a.user_id = c.user_id"
            " and a.local_date = c.local_date and a.job_id is not distinct from c.job_id)"
        )
    (row,) = query(
        snapshot,
        f"""
        select
            -- assigned, published shifts over by the build's clock, and the worked hours of
            -- those and of clocked-out unscheduled punches: both sides stop at one instant
            (select coalesce(sum(scheduled_hours), 0) from marts.fct_attendance
                where has_ended and not is_unscheduled and {rows}),
            (select coalesce(sum(worked_hours), 0) from marts.fct_attendance
                where has_ended and {rows}),
            (select coalesce(sum(scheduled_hours), 0) from marts.fct_shifts
                where is_published and not is_deleted and user_id is null and has_ended
                and {rows}),
            (select count(*) from marts.fct_attendance where no_show and {rows}),
            (select coalesce(sum(labour_cost), 0) from marts.fct_labour_cost_daily as c
                where {cost}),
            (select coalesce(sum(worked_hours), 0) from marts.fct_labour_cost_daily as c
                where has_no_rate and {cost}),
            (select coalesce(sum(worked_hours), 0) from marts.fct_labour_cost_daily as c
                where rate_type in ('monthly', 'yearly') and labour_cost is null and {cost})
        """,
    )
    return dict(zip(KPIS, (float(v) for v in row), strict=True))


def shown_kpis(page: Any) -> dict[str, float]:
    """The KPI figures a page shows (each card's ``data-value``)."""
    cards = page.locator("[data-kpi]").evaluate_all(
        "cards => cards.map(c => [c.dataset.kpi, c.dataset.value])"
    )
    return {key: float(value) for key, value in cards}


def assert_same(shown: dict[str, float], expected: dict[str, float]) -> None:
    assert set(shown) == set(KPIS)
    for key in KPIS:
        assert shown[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-6), key


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's package) under Playwright."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), "no /usr/bin/chromium: `apt-get install chromium` (.ci/run does)"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
        )
        yield chromium
        chromium.close()


class Page:
    """A browser page that records console errors and uncaught exceptions."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page(viewport={"width": 1200, "height": 1400})
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(f"console error: {message.text}")

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *_: object) -> None:
        self.page.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(snapshot: Path, env: dict[str, str]) -> Iterator[str]:
    """``wfm-sync dashboard`` on ``snapshot`` (its run log beside it), as a real server on
    127.0.0.1; its URL."""
    port = free_port()
    command = [*WFM_SYNC, "dashboard", "--port", str(port), "--snapshot", str(snapshot)]
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + WAIT
    try:
        while True:
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"the dashboard did not start: {server.communicate()[0][-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
    # a stop signal stops the server itself: nothing keeps answering on the port afterwards
    deadline = time.monotonic() + 15
    while True:
        try:
            httpx.get(url, timeout=2)
        except httpx.HTTPError:
            break
        assert time.monotonic() < deadline, f"{url} still answers after the dashboard was stopped"
        time.sleep(0.3)


@pytest.fixture(scope="module")
def served_app(small_demo: DemoRun) -> Iterator[str]:
    """The dashboard on the demo's snapshot."""
    with serving(small_demo.snapshot, small_demo.env) as url:
        yield url


def eventually(check: Any, what: str, timeout: float = WAIT) -> Any:
    """Call ``check`` until it returns something true (the page renders in its own time); the
    app's parts live in shadow roots, which Playwright's locators pierce and page scripts'
    ``querySelector`` does not, so the waiting is done here."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.25)


def wait_for_app(page: Any, url: str) -> None:
    """Open the app and wait until all its charts are drawn and every section has marks (a
    chart whose rows are all empty for the range, such as an approval lag no period has yet,
    draws its axes only)."""
    page.goto(url)
    page.locator("[data-kpi=scheduled_hours]").wait_for(timeout=WAIT * 1000)
    eventually(lambda: page.locator("section.wfm-section canvas").count() == CHARTS, "the charts")
    for key in SECTIONS:
        eventually(lambda key=key: max(drawn_marks(page, key), default=0) > 0, f"marks in {key}")


def drawn_marks(page: Any, key: str) -> list[int]:
    """Coloured pixels of each chart canvas of a section of the app."""
    return [
        int(canvas.evaluate(COLOURED_PIXELS))
        for canvas in page.locator(f"section#{key} canvas").all()
    ]


def test_the_app_shows_every_section_and_the_marts_figures(
    browser: Any, served_app: str, small_demo: DemoRun
) -> None:
    with Page(browser) as tab:
        wait_for_app(tab.page, served_app)  # every section's charts have marks
        assert_same(shown_kpis(tab.page), expected_kpis(small_demo.snapshot, *DEFAULT_RANGE))
        # every chart has its table view
        tables = tab.page.locator("section.wfm-section [role=tab]", has_text="Table").count()
        assert tables == tab.page.locator("section.wfm-section canvas").count() == CHARTS
        assert tab.errors == []


def test_choosing_a_scheduler_changes_the_kpis_to_its_own(
    browser: Any, served_app: str, small_demo: DemoRun
) -> None:
    everyone = expected_kpis(small_demo.snapshot, *DEFAULT_RANGE)
    name, scheduler_id = query(
        small_demo.snapshot,
        "select max(scheduler_name), scheduler_id from marts.fct_shifts "
        f"where local_date between date '{DEFAULT_RANGE[0]}' and date '{DEFAULT_RANGE[1]}' "
        "group by scheduler_id order by 1 limit 1",
    )[0]
    own = expected_kpis(small_demo.snapshot, *DEFAULT_RANGE, scheduler_id=scheduler_id)
    assert own["scheduled_hours"] < everyone["scheduled_hours"]
    with Page(browser) as tab:
        wait_for_app(tab.page, served_app)
        assert_same(shown_kpis(tab.page), everyone)
        tab.page.locator("select").first.select_option(label=name)
        eventually(
            lambda: (
                shown_kpis(tab.page)["scheduled_hours"] == pytest.approx(own["scheduled_hours"])
            ),
            f"the KPIs of scheduler {name}",
        )
        assert_same(shown_kpis(tab.page), own)
        assert tab.errors == []


def filter_options(page: Any, first: str) -> list[str]:
    """The options of the filter dropdown whose first option is ``first`` ("All groups")."""
    select = page.locator("select", has=page.locator("option", has_text=first))
    return [text.strip() for text in select.locator("option").all_inner_texts()]


def choose(page: Any, first: str, option: str) -> None:
    """Choose ``option`` in the filter dropdown whose first option is ``first``."""
    page.locator("select", has=page.locator("option", has_text=first)).select_option(label=option)


def group_and_layer_choices(snapshot: Path) -> tuple[list[str], list[str]]:
    """What the group and layer filters should offer: every group a user belonged to, by its
    label, and every "layer title: value" a shift carries."""
    groups = [name for (name,) in query(
        snapshot,
        "select group_label from marts.dim_groups where group_id in "
        "(select group_id from marts.bridge_user_groups) order by 1",
    )]  # fmt: skip
    layers = [f"{title}: {value}" for title, value in query(
        snapshot,
        "select distinct layer_title, value_name from marts.fct_shift_layer_values "
        "where layer_title is not null and value_name is not null order by all",
    )]  # fmt: skip
    return groups, layers


def test_the_group_and_layer_filters_offer_their_choices(
    browser: Any, served_app: str, small_demo: DemoRun
) -> None:
    groups, layers = group_and_layer_choices(small_demo.snapshot)
    assert len(groups) >= 2 and len(layers) >= 2  # the demo's account has both
    with Page(browser) as tab:
        wait_for_app(tab.page, served_app)
        assert filter_options(tab.page, "All groups") == ["All groups", *groups]
        assert filter_options(tab.page, "All shift layers") == ["All shift layers", *layers]
        assert tab.errors == []


def busiest(snapshot: Path, sql: str) -> tuple[Any, ...]:
    """The first row of ``sql`` (a choice and its scheduled hours in the default range)."""
    start, end = DEFAULT_RANGE
    return query(snapshot, sql.format(days=f"between date '{start}' and date '{end}'"))[0]


def test_choosing_a_group_and_a_layer_value_changes_the_kpis_to_theirs(
    browser: Any, served_app: str, small_demo: DemoRun
) -> None:
    snapshot = small_demo.snapshot
    everyone = expected_kpis(snapshot, *DEFAULT_RANGE)
    # a group whose members have shifts in the range, and a layer value of shifts in it
    group, group_id = busiest(snapshot, """
        select groups.group_label, groups.group_id from marts.dim_groups as groups
        join marts.bridge_user_groups as b using (group_id)
        join marts.fct_shifts as s on s.user_id = b.user_id and s.local_date {days}
        group by all order by count(*) desc, 1 limit 1""")  # fmt: skip
    title, value = busiest(snapshot, """
        select layer_title, value_name from marts.fct_shift_layer_values
        join marts.fct_shifts as s using (shift_assignment_key)
        where s.local_date {days} and s.user_id is not null
        group by all order by count(*) desc, 1, 2 limit 1""")  # fmt: skip
    members = expected_kpis(snapshot, *DEFAULT_RANGE, group_id=group_id)
    carrying = expected_kpis(snapshot, *DEFAULT_RANGE, layer=(title, value))
    both = expected_kpis(snapshot, *DEFAULT_RANGE, group_id=group_id, layer=(title, value))
    for sliced in (members, carrying):
        assert 0 < sliced["scheduled_hours"] < everyone["scheduled_hours"]
        assert 0 < sliced["labour_cost"] < everyone["labour_cost"]
    assert both["scheduled_hours"] < min(members["scheduled_hours"], carrying["scheduled_hours"])
    with Page(browser) as tab:
        wait_for_app(tab.page, served_app)
        assert_same(shown_kpis(tab.page), everyone)
        for first, option, expected in (
            ("All groups", group, members),
            ("All shift layers", f"{title}: {value}", both),
            ("All groups", "All groups", carrying),
        ):
            choose(tab.page, first, option)
            eventually(
                lambda expected=expected: (
                    shown_kpis(tab.page)["scheduled_hours"]
                    == pytest.approx(expected["scheduled_hours"])
                ),
                f"the KPIs with {option}",
            )
            assert_same(shown_kpis(tab.page), expected)
        assert tab.errors == []


def expected_locations(snapshot: Path) -> dict[str, tuple[float, float | None, float | None]]:
    """Per location in the default range: labour cost, sales and labour % of sales over the
    days with sales, from fct_labour_vs_sales_daily."""
    start, end = DEFAULT_RANGE
    rows = query(snapshot, f"""
        select location_name, sum(labour_cost),
            sum(total_sales) filter (where total_sales > 0),
            100 * sum(labour_cost) filter (where total_sales > 0)
                / sum(total_sales) filter (where total_sales > 0)
        from marts.fct_labour_vs_sales_daily
        where local_date between date '{start}' and date '{end}'
        group by location_id, location_name""")  # fmt: skip
    return {name: (cost, sales, pct) for name, cost, sales, pct in rows}


def test_the_labour_pct_of_sales_shows_every_location(
    browser: Any, served_app: str, small_demo: DemoRun
) -> None:
    locations = expected_locations(small_demo.snapshot)
    assert len(locations) >= 2 and all(pct for _, _, pct in locations.values())
    report = (small_demo.warehouse.parent / "report.html").as_uri()
    with Page(browser) as tab:
        tab.page.goto(report)
        section = tab.page.locator("section#labour_vs_sales")
        assert section.locator("figure svg").count() == 2
        assert "Labour cost and sales (USD)" in section.inner_html()
        table = section.locator("details table").first
        shown = {}
        for cells in table.locator("tbody tr").all():
            name, cost, sales, pct, _ = cells.locator("td").all_text_contents()
            shown[name] = (float(cost.replace(",", "")), float(sales.replace(",", "")),
                           float(pct.replace(",", "")))  # fmt: skip
        assert set(shown) == set(locations)
        for name, (cost, sales, pct) in locations.items():
            assert shown[name] == pytest.approx((cost, sales, pct), abs=0.01), name
        for name in locations:  # each location a bar of both charts
            assert section.locator("svg text", has_text=name).count() >= 2, name
        # and the app draws the section, its table one tab away
        wait_for_app(tab.page, served_app)
        section = tab.page.locator("section#labour_vs_sales")
        assert section.locator("canvas").count() == 2
        section.locator("[role=tab]", has_text="Table").first.click()
        for name in locations:
            eventually(lambda name=name: section.get_by_text(name).count() > 0, name)
        assert tab.errors == []


def test_the_report_opens_offline_with_every_chart_and_the_marts_figures(
    browser: Any, small_demo: DemoRun, tmp_path: Path
) -> None:
    report = small_demo.warehouse.parent / "report.html"
    assert report.stat().st_size < 1_000_000  # small enough to mail
    requests: list[str] = []
    with Page(browser) as tab:
        tab.page.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith("file:")
                else (requests.append(route.request.url), route.abort())
            ),
        )
        tab.page.goto(report.as_uri())
        for key in SECTIONS:
            charts = tab.page.locator(f"section#{key} figure svg")
            assert charts.count() >= 1, key
            marks = [c.locator(".mark-rect.role-mark path").count() for c in charts.all()]
            assert max(marks) > 0, (key, marks)
        assert tab.page.locator("figure svg").count() == CHARTS
        assert_same(shown_kpis(tab.page), expected_kpis(small_demo.snapshot, *DEFAULT_RANGE))
        # money names its currency (the demo's account: USD), every job bar its job's name
        assert "USD" in tab.page.locator("[data-kpi=labour_cost]").inner_text()
        content = tab.page.content()
        assert "Labour cost (USD)" in content
        # today has not ended: its bars say so; yesterday's do not
        assert f"{TODAY} (partial)" in content
        assert f"{TODAY - timedelta(days=1)} (partial)" not in content
        start, end = DEFAULT_RANGE
        (labels,) = query(
            small_demo.snapshot,
            "select list(distinct coalesce(jobs.job_label, '(no job)')) "
            "from marts.fct_labour_cost_daily as cost left join marts.dim_jobs as jobs "
            f"using (job_id) where cost.local_date between date '{start}' and date '{end}'",
        )[0]
        assert labels and all(html.escape(label(name), quote=False) in content for name in labels)
        assert tab.page.locator("script").count() == 0
        assert requests == []  # nothing fetched: it opens offline
        assert tab.errors == []
        shot = tmp_path / "report.png"
        tab.page.set_viewport_size({"width": 900, "height": 1100})
        tab.page.screenshot(path=str(shot))
    if os.environ.get("UPDATE_SCREENSHOTS"):
        shutil.copyfile(shot, SCREENSHOT)
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert SCREENSHOT.stat().st_size < 300_000
    page = (SCREENSHOT.parent / "dashboard.md").read_text()
    assert f"]({SCREENSHOT.name})" in page


def test_the_app_keeps_answering_while_a_nightly_publishes(
    browser: Any, small_demo: DemoRun, tmp_path: Path
) -> None:
    # a copy of the demo's files: the other tests read the demo's warehouse meanwhile
    folder = tmp_path / "demo"
    shutil.copytree(small_demo.warehouse.parent, folder)
    snapshot = folder / "analytics.duckdb"
    env = dict(
        small_demo.env,
        DESTINATION__DUCKDB__CREDENTIALS=str(folder / "warehouse.duckdb"),
        WFM_SYNC_DBT_TARGET_DIR=str(tmp_path / "dbt-target"),
    )
    published = "select max(published_at) from main._published"
    before = query(snapshot, published)[0][0]
    expected = expected_kpis(snapshot, *DEFAULT_RANGE)
    with serving(snapshot, env) as app:
        nightly = subprocess.Popen(
            [*WFM_SYNC, "sync", "--steps", "models,publish,report"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        answered_during = 0
        try:
            while nightly.poll() is None:
                with Page(browser) as tab:
                    wait_for_app(tab.page, app)
                    # the same data is published again: the figures stay the marts' figures
                    assert_same(shown_kpis(tab.page), expected)
                    assert tab.errors == []
                    if nightly.poll() is None:
                        answered_during += 1
            output = nightly.communicate(timeout=600)[0]
        finally:
            if nightly.poll() is None:
                nightly.kill()
        assert nightly.returncode == 0, output[-3000:]
        assert "report: " in output
        assert answered_during >= 1
        assert query(snapshot, published)[0][0] > before
        with Page(browser) as tab:  # and it answers from the new snapshot afterwards
            wait_for_app(tab.page, app)
            assert_same(shown_kpis(tab.page), expected)
            assert tab.errors == []


def test_data_health_measures_ages_from_now(small_demo: DemoRun) -> None:
    """Hours since a table's last load run up to the dashboard's now (not to the end of the day
    shown): a load 7 minutes before now is 0.1 h old."""
    from dashboard.notebook import app

    newest = "select max(last_load_epoch) from health.raw_tables"
    (last_load,) = query(small_demo.snapshot, newest)[0]
    now = float(last_load) + 7 * 60
    _, defs = app.run(
        defs={
            "now": now,
            "snapshot_file": small_demo.snapshot,
            "runs_file": small_demo.warehouse.parent / "runs.jsonl",
            "today": TODAY,
        }
    )
    freshness = defs["freshness"]
    latest = freshness.loc[freshness["last_load_epoch"].idxmax()]
    assert latest["hours_since_load"] == pytest.approx(0.1)
