"""``wfm-sync demo`` end to end, smaller than the default so the suite stays quick."""

from __future__ import annotations

import re

from conftest import DemoRun, query

from sources.configuration import resolve


def test_demo_syncs_twice_and_shows_counts_and_queries(small_demo: DemoRun):
    warehouse = small_demo.warehouse
    out = small_demo.stdout
    assert "run 1: nightly_sync" in out and "run 2: nightly_sync" in out
    assert re.search(r"users\s+\S+\s+400\b", out)  # run 1 loads every user
    assert re.search(r"users\s+\S+\s+25\b", out)  # run 2 picks up exactly the 25 edited users
    # 3000 + 10 added rows + 1 slot for a user added to a shift (the one taken off stays, deleted)
    assert re.search(r"connecteam\.shifts\s+\S+\s+3,011\b", out)
    assert str(warehouse.resolve()) in out
    assert out.count("select ") >= 3  # the example queries, printed with their answers
    assert query(warehouse, "select count(*) from connecteam.shifts where is_deleted")[0][0] == 6
    punches = int(re.search(r"last 7 days' punches \((\d+);", out).group(1))  # type: ignore[union-attr]
    assert punches > 0
    total = 300 + punches
    assert re.search(rf"all\s+\S+\s+{total:,}\b", out)  # run 1: the burst and the punches
    # subscribed at the emulator, which delivers the day's changes; the token never shown
    assert "webhooks subscribe" in out and "wfm-sync:shift" in out
    assert set(re.findall(r"token=([^&\s]+)", out)) == {"***"}
    delivered = int(re.search(r"delivered ([\d,]+) events", out).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert delivered > 40  # users, shift slots (V2: per shift), submissions
    # the fold during the day takes the deliveries and the second burst
    assert re.search(rf"all\s+\S+\s+{delivered + 30:,}\b", out)
    assert query(warehouse, "select count(distinct family) from webhooks.events")[0][0] == 8
    assert query(warehouse, "select count(*) from webhooks.events")[0][0] == total + 30 + delivered
    # the operations streams and the reconciliation of the punches against the API
    assert re.search(r"time_activities\s+\S+\s+[1-9]", out)
    assert "Reconciliation: time activities" in out
    reconciled = dict(query(
        warehouse.parent / "analytics.duckdb",
        "select data_source, sum(activity_count) from marts.fct_time_activity_reconciliation "
        "group by 1",
    ))  # fmt: skip
    assert reconciled["webhooks_only"] == 2 and reconciled["api_only"] >= 1
    assert out.count("dbt build: ") == 2 and out.count("tables to ") == 2  # the two nightlies
    assert "fct_daily_hours" in out and "fct_timesheet_periods" in out  # the closing lines
    for title in ("fct_attendance: who came late", "fct_labour_cost_daily: what the paid",
                  "fct_schedule_changes_weekly: schedule changes",
                  "fct_labour_vs_sales_daily: labour cost as a share of sales"):  # fmt: skip
        assert title in out
    # labour % of sales for each of the demo's three sales locations, tied by their groups
    shares = query(warehouse.parent / "analytics.duckdb",
                   "select location_name, round(100 * sum(labour_cost) / sum(total_sales), 2) "
                   "from marts.fct_labour_vs_sales_daily where total_sales > 0 "
                   "group by 1 having sum(labour_cost) > 0 order by 1")  # fmt: skip
    assert [name for name, _ in shares] == ["Airport", "Downtown", "Harbour"]
    assert all(0 < share < 100 for _, share in shares), shares
    # the webhook burst's shift events add assignments between the syncs (the suite pins the
    # clock, so both syncs share one second: changes only a sync saw are
    # tests/e2e/test_history.py's)
    by_webhook = "select count(*) from marts.fct_schedule_changes where detected_by = 'webhook'"
    assert query(warehouse.parent / "analytics.duckdb", by_webhook)[0][0] > 0
    assert "marts as Parquet" in out
    # our hours agree with the provider's own timesheet on every day it covers, or say why not
    from pipelines.timesheet_match import read_timesheet_match

    match = read_timesheet_match(lambda sql: query(warehouse.parent / "analytics.duckdb", sql))
    assert match.unexplained == 0 and match.matched > 0.8 * match.user_days, match.line()
    assert re.search(r"hours match the provider's timesheet on \d+ of \d+ user-days "
                     r"\(\d+ explained, 0 unexplained\)", out)  # fmt: skip
    manifest = (warehouse.parent / "marts" / "_published.json").read_text()
    assert '"fct_shifts"' in manifest
    snapshot = warehouse.parent / "analytics.duckdb"
    # the API's 3011 assignments; the burst's random shift events add shifts the API never held
    of_the_api = ("select count(*) from marts.fct_shifts where shift_id in "
                  "(select split_part(id, ':', 1) from connecteam.shifts)")  # fmt: skip
    assert query(warehouse, of_the_api)[0][0] == 3011  # the raw schemas are not published
    # the moved shift showed from the webhook before run 2
    before_run_2 = out[
        out.index("from the webhook (before run 2)") : out.index("run 2: nightly_sync")
    ]
    assert "webhook" in before_run_2.split("\n", 3)[3]
    # the demo ends with the report written by run 2's nightly and how to open the app
    report = warehouse.parent / "report.html"
    assert report.exists() and str(report.resolve()) in out
    # each nightly writes it after its publish: run 1's, then run 2's in its place
    assert len(re.findall(r"^report: .*report\.html \(17 charts", out, re.MULTILINE)) == 2
    assert f"wfm-sync dashboard --snapshot {snapshot}" in out
    # the closing lines' marts path is the stable one, not a version folder a later publish drops
    assert f"always the latest publish: {warehouse.parent / 'marts'}/" in out
    assert ".marts-versions" not in out
    assert "…" not in out  # every table whole at the 80 columns of a captured run


def test_the_closing_lines_status_command_reads_the_demo_s_own_files(small_demo: DemoRun, tmp_path):
    """``wfm-sync --project-dir <demo folder> status``, as the demo's closing lines give it, run
    from another directory: the demo's warehouse, inbox and run log, its syncs seen."""
    import json
    import subprocess

    from conftest import WFM_SYNC

    folder = small_demo.warehouse.parent
    assert f"wfm-sync --project-dir {folder} status" in small_demo.stdout
    env = {k: v for k, v in small_demo.env.items()
           if not k.startswith(("DESTINATION__", "WEBHOOKS__"))}  # fmt: skip
    command = [*WFM_SYNC, "--project-dir", str(folder), "status", "--json"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    report = json.loads(done.stdout)
    assert report["warehouse"] == f"duckdb:{small_demo.warehouse}"
    assert report["inbox"]["inbox"] == f"sqlite:///{folder / 'inbox.sqlite3'}"
    assert report["run_log"] == str(folder / "runs.jsonl")
    assert not [p for p in report["problems"] if "never" in p], report["problems"]
    assert {j["job"]: j["outcome"] for j in report["jobs"]}["sync"] == "succeeded"


def test_every_punch_the_emulator_made_for_an_assignment_matches_it_by_api_and_webhook(
    small_demo: DemoRun,
):
    """The emulator's own record of which published assignment each shift punch was for
    (``Operations.punch_assignments``) is the truth attendance is checked against."""
    from emulator.config import demo_config
    from emulator.data import Dataset

    # the account the demo emulated: the suite's clock (NOW) is the demo's, as in its run
    operations = Dataset.generate(demo_config(400, 3000)).operations
    truth = operations.punch_assignments
    assert len(truth) > 100
    snapshot = small_demo.snapshot
    live = {
        (scheduler, shift, user)
        for scheduler, shift, user in query(
            snapshot,
            "select scheduler_id, shift_id, user_id from marts.fct_shifts "
            "where not is_deleted and is_published",
        )
    }
    # the demo's day of changes may delete or move an assignment: only those still as made count
    held = {punch: slot for punch, slot in truth.items() if slot in live}
    assert len(held) > 0.9 * len(truth)
    unscheduled = {
        punch
        for (punch,) in query(
            snapshot, "select time_activity_id from marts.fct_attendance where is_unscheduled"
        )
    }
    assert set(held) & unscheduled == set()
    # and every unscheduled punch is one the emulator made (or one of the 2 it deleted since):
    # the demo's drawn bursts send no punches for nobody's shift
    made = {a["record"]["id"] for items in operations.activities.values() for a in items}
    assert unscheduled <= made | {"deleted-0001", "deleted-0002"}
    attended = {
        (scheduler, shift, user): (no_show, punches)
        for scheduler, shift, user, no_show, punches in query(
            snapshot,
            "select scheduler_id, shift_id, user_id, no_show, punch_count "
            "from marts.fct_attendance where not is_unscheduled",
        )
    }
    assert all(attended[slot] == (False, attended[slot][1]) for slot in held.values())
    assert all(attended[slot][1] >= 1 for slot in held.values())
    # the webhook path names the same shift as the API path for every punch it delivered
    by_webhook = dict(
        query(
            snapshot,
            "select time_activity_id, scheduler_shift_id "
            "from staging.stg_webhooks__time_activities "
            "where activity_type = 'shift'",
        )
    )
    delivered = [punch for punch in held if punch in by_webhook]
    assert len(delivered) > 50
    assert all(by_webhook[punch] == held[punch][1] for punch in delivered)
    # nobody is both a no-show and an unscheduled punch for the same assignment
    both = query(
        snapshot,
        "select count(*) from marts.fct_attendance as shift "
        "inner join marts.fct_attendance as punch "
        "on punch.user_id = shift.user_id and punch.is_unscheduled and shift.no_show "
        "and punch.clock_in_at < shift.ends_at "
        "and coalesce(punch.clock_out_at, punch.clock_in_at) >= shift.starts_at",
    )
    assert both == [(0,)]


def test_the_dbt_unit_tests_pass_on_the_demo_s_warehouse(small_demo: DemoRun, tmp_path):
    """Builds leave the dbt unit tests out (``--exclude-resource-type unit_test``): they are
    run here, every one of the project's, on a copy of the demo's built warehouse (a unit test
    needs its model's parents to exist)."""
    import shutil

    from pipelines.dbt_runner import project_dir, run_dbt
    from pipelines.dbt_yaml import read_yaml

    declared = {
        test["name"]
        for path in (project_dir() / "models").rglob("*.yml")
        for test in (read_yaml(path) or {}).get("unit_tests") or []
    }
    copy = tmp_path / "warehouse.duckdb"
    shutil.copy(small_demo.warehouse, copy)
    result = run_dbt(["test", "--select", "test_type:unit"], copy, project=resolve())
    ran = {r.node.name: str(r.status) for r in result.result.results
           if str(r.node.resource_type).endswith("unit_test")}  # fmt: skip
    assert len(declared) >= 30 and set(ran) == declared
    assert {name for name, status in ran.items() if status != "pass"} == set()
