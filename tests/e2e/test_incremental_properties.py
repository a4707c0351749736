"""Property: whatever sequence of changes reaches the warehouse, the day-grain incremental marts
(fct_daily_hours, fct_labour_cost_daily) hold, after every build, exactly the rows a full build
derives from the same warehouse, compared both ways with EXCEPT ALL.

Hypothesis draws sequences of nightly steps. A step is a batch of the provider's changes:
webhook events that create, edit (in place or to another day), or delete punches, manual breaks
and time off at any age (0 to 400 days, across both of 2026's DST changes and midnight), and now
and then an API sync after the same kind of change at the provider (the emulator), whose clock
counts overnight hours on the next day: once a synced overnight punch shows it in the timesheet,
the models split every overnight punch of the clock at midnight (each moves). Each step is
folded (the real inbox and fold) and built incrementally (``dbt run`` of the marts and the
tables they read); the full build is the marts' own SQL compiled with ``--full-refresh``, run on
that same warehouse. A failing example is shrunk; keep it as a regular test beside
``test_incremental_marts.py``.

Cost: one sync and one build of the account per run, then per step a fold and one dbt run
(about 5 s on an idle machine). ``make test`` runs :data:`SUITE_EXAMPLES` examples (derandomized,
the same every run); ``pytest tests/e2e/test_incremental_properties.py --hypothesis-profile
thorough`` runs the ``thorough`` profile (tests/conftest.py: 500 examples, random)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import duckdb
import orjson
import pytest
from conftest import NOW, point_at, profile_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_operations import CLOCK

from emulator.config import OperationsConfig
from inbox import Inbox, read_envelope
from inbox.store import ReceivedEvent
from pipelines import run_sync
from pipelines.dbt_runner import run_dbt, target_dir
from pipelines.fold import run_fold
from sources.configuration import resolve
from sources.webhooks.config import inbox_url_from_config

DAY = 86_400
MARTS = ("fct_daily_hours", "fct_labour_cost_daily")
UPSTREAM = ["--select", *(f"+{mart}" for mart in MARTS)]
"""The incremental marts and everything they read."""
SELECTION = [*UPSTREAM, "--exclude", "config.materialized:view"]
"""On DuckDB, the incremental marts and the tables they read (the views stay as the first build
made them). PostgreSQL drops the views on a table rebuilt under them (dbt's drop ... cascade),
so there they are built too (:data:`UPSTREAM`)."""
SUITE_EXAMPLES = 4
"""Examples on DuckDB in ``make test`` (the default profile); the ``thorough`` profile's own
otherwise. On PostgreSQL a tenth of them (at least 2)."""
TODAY = datetime.fromtimestamp(NOW, UTC).date()
DST_DAYS = (date(2026, 3, 29), date(2026, 10, 25), date(2025, 10, 26))
"""Europe/London's changes within 400 days of the suite's today: a punch across one is a day
of 23 or 25 hours."""
ZONES = ("Europe/London", "America/New_York", "Asia/Kolkata")
KINDS = ("shift", "manual_break", "time_off")
API_KINDS = {"shift": "shifts", "manual_break": "manualBreaks", "time_off": "timeOffs"}


def _profile_examples() -> int:
    """Examples of this run: the ``thorough`` profile's when it is loaded, else the suite's."""
    return profile_examples(SUITE_EXAMPLES)


PROPERTY = settings(
    max_examples=_profile_examples(),
    derandomize=_profile_examples() == SUITE_EXAMPLES,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
POSTGRES_PROPERTY = settings(PROPERTY, max_examples=max(2, _profile_examples() // 10))


@dataclass(frozen=True)
class Change:
    """One change at the provider: ``action`` create, edit or delete of activity ``activity``
    (of ``kind``, held by user number ``user``), starting ``age`` days before today (or on a DST
    day) at ``minute`` past local midnight of ``zone``, lasting ``minutes``; ``via`` webhook or
    api (the emulator's data, seen by the next sync)."""

    action: str
    activity: int
    kind: str
    user: int
    day: date
    minute: int
    minutes: int
    zone: str
    via: str


days = st.one_of(
    st.integers(0, 400).map(lambda age: TODAY - timedelta(days=age)), st.sampled_from(DST_DAYS)
)
changes = st.builds(
    Change,
    action=st.sampled_from(("create", "edit", "delete")),
    activity=st.integers(0, 7),
    kind=st.sampled_from(KINDS),
    user=st.integers(0, 2),
    day=days,
    minute=st.sampled_from((0, 8 * 60, 12 * 60, 22 * 60, 23 * 60 + 30)),
    minutes=st.sampled_from((30, 4 * 60, 8 * 60 + 15, 9 * 60)),
    zone=st.sampled_from(ZONES),
    via=st.sampled_from(("webhook", "webhook", "webhook", "api")),
)
steps = st.lists(st.lists(changes, min_size=1, max_size=4), min_size=1, max_size=3)


def record(change: Change, activity_id: str, modified_at: int) -> dict[str, Any]:
    """The provider's activity record of ``change`` (spec: TimeActivity; times in epoch seconds,
    the start at local ``minute`` of ``day`` in ``zone``)."""
    day = change.day
    local = datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(change.zone))
    start = int((local + timedelta(minutes=change.minute)).timestamp())
    found: dict[str, Any] = {
        "id": activity_id,
        "start": {"timestamp": start, "timezone": change.zone},
        "end": {"timestamp": start + change.minutes * 60, "timezone": change.zone},
        "createdAt": start,
        "modifiedAt": modified_at,
    }
    if change.kind == "shift":
        found["jobId"] = "job-001"
    elif change.kind == "manual_break":
        found["manualBreakId"] = "mb-lunch"
    else:
        found.update(policyTypeId="pt-vacation", duration={"value": change.minutes / 60,
                                                           "units": "hours"})  # fmt: skip
    return found


def event_for(user: int, kind: str, found: dict[str, Any], event: str) -> ReceivedEvent:
    """The provider's webhook of ``event`` (a time activity event: clock_out, admin_add,
    admin_edit, admin_delete) for activity record ``found`` of ``user``, sent a minute after its
    modifiedAt, as the inbox receives it; its requestId is the event's own."""
    payload = {
        "requestId": f"req-{found['id']}-{event}-{found['modifiedAt']}",
        "company": "emulated-company",
        "eventType": event,
        "eventTimestamp": found["modifiedAt"] + 60,
        "activityType": kind,
        "userId": user,
        "timeClockId": CLOCK,
        "timeActivity": found,
        "timeActivityId": found["id"],
    }
    body = orjson.dumps(payload)
    return ReceivedEvent(read_envelope(payload, body), body, found["modifiedAt"] + 60)


@dataclass
class Account:
    """The emulated account and the warehouse of its first sync and build (the template): a
    DuckDB file, or (``postgres`` set: the server's URL) a PostgreSQL database of that name."""

    server: Any
    users: list[int]
    template: str
    full_sql: dict[str, str]
    postgres: str | None = None


def postgres_url(server: str, database: str) -> str:
    """The URL of ``database`` on the PostgreSQL server of URL ``server``."""
    return server.rsplit("/", 1)[0] + f"/{database}"


def seed_account(server: Any) -> list[int]:
    """Five punches of three users 1 to 399 days back at the emulator; the users."""
    users = sorted(u for u, r in server.state.dataset.users.items() if not r["isArchived"])[:3]
    seed = [
        Change("create", i, "shift", i % 3, TODAY - timedelta(days=age), 8 * 60, 8 * 60, ZONES[0],
               "api")
        for i, age in enumerate((1, 3, 40, 200, 399))
    ]  # fmt: skip
    server.state.dataset.operations.activities[CLOCK] = [
        {"userId": users[c.user], "kind": "shifts", "record": record(c, f"P{c.activity}", NOW)}
        for c in seed
    ]
    return users


@pytest.fixture(params=["duckdb", "postgres"])
def account(request, start_emulator, monkeypatch, tmp_path) -> Iterator[Account]:
    """Three users' punches on a few days up to 400 days back, synced and built once, in a
    DuckDB file or a PostgreSQL database; the marts' full-build SQL compiled for it."""
    server = start_emulator(
        users=6, forms=1, schedulers=1, shifts=1, anchor=NOW // DAY * DAY,
        operations=OperationsConfig(time_clocks=1, time_activities=0),
    )  # fmt: skip
    point_at(monkeypatch, server)
    monkeypatch.setenv("SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START", str(NOW - 420 * DAY))
    # the clock counts overnight hours on the next day: its timesheet tells the models so once
    # an overnight punch reaches it, and every overnight punch of the clock moves
    server.state.dataset.operations.overnight_split_clocks.add(CLOCK)
    users = seed_account(server)
    postgres = None
    if request.param == "postgres":
        from support.servers import fresh_database

        postgres = request.getfixturevalue("postgres")
        template = "incremental_template"
        monkeypatch.setenv("WFM_SYNC_DESTINATION", "postgres")
        monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", fresh_database(postgres, template))
        monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(tmp_path / "unused.duckdb"))
        path = None
    else:
        path = tmp_path / "template" / "warehouse.duckdb"
        template = str(path)
        monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", template)
    run_sync(project=resolve())
    run_dbt(["run", *UPSTREAM], path, project=resolve())
    run_dbt(["compile", "--select", " ".join(MARTS), "--full-refresh"], path, project=resolve())
    compiled = target_dir(resolve().settings) / "compiled" / "wfm_sync" / "models" / "marts"
    full_sql = {mart: (compiled / f"{mart}.sql").read_text() for mart in MARTS}
    original = list(server.state.dataset.operations.activities[CLOCK])
    yield Account(server, users, template, full_sql, postgres)
    server.state.dataset.operations.activities[CLOCK] = original
    server.state.dataset.operations.overnight_split_clocks.discard(CLOCK)


def fresh_copy(account: Account, folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A copy of the template warehouse for one example, set as the destination: the DuckDB
    file's path, or the PostgreSQL database's name."""
    if account.postgres is None:
        warehouse = folder / "warehouse.duckdb"
        shutil.copy(account.template, warehouse)
        monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(warehouse))
        return str(warehouse)
    import psycopg2

    name = f"incremental_{folder.name.replace('-', '_')}"
    connection = psycopg2.connect(account.postgres)
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(
            "select pg_terminate_backend(pid) from pg_stat_activity "
            "where datname = %s and pid <> pg_backend_pid()",
            (account.template,),
        )
        cursor.execute(f"create database {name} template {account.template}")
    connection.close()
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", postgres_url(account.postgres, name))
    return name


def apply(account: Account, step: list[Change], clock: int) -> bool:
    """Send ``step``'s webhook events to the inbox and make its API changes at the emulator;
    whether a sync is due. Event times count up from ``clock`` (newer than anything before)."""
    events = []
    activities = account.server.state.dataset.operations.activities[CLOCK]
    synced = False
    for offset, change in enumerate(step):
        activity_id = f"G{change.activity}" if change.activity > 4 else f"P{change.activity}"
        user = account.users[change.user]
        modified_at = clock + offset * 60
        found = record(change, activity_id, modified_at)
        if change.via == "webhook":
            event = {"create": "clock_out", "edit": "admin_edit", "delete": "admin_delete"}
            name = event[change.action]
            name = "admin_add" if (change.kind, name) == ("time_off", "clock_out") else name
            events.append(event_for(user, change.kind, found, name))
            continue
        synced = True
        activities[:] = [a for a in activities if a["record"]["id"] != activity_id]
        if change.action != "delete":
            activities.append({"userId": user, "kind": API_KINDS[change.kind], "record": found})
    account.server.state.dataset.version += 1
    if events:
        inbox = Inbox(inbox_url_from_config())
        inbox.insert_events(events)
        inbox.close()
    return synced


def differences(account: Account, warehouse: str) -> dict[str, tuple[int, int]]:
    """Per mart whose rows differ from its full derivation on the same warehouse (the DuckDB
    file or PostgreSQL database ``warehouse``): ``(rows only in the incremental table, rows only
    in the full derivation)``."""
    found = {}
    if account.postgres is None:
        connection: Any = duckdb.connect(warehouse, read_only=True)
    else:
        import psycopg2

        connection = psycopg2.connect(postgres_url(account.postgres, warehouse))
    cursor = connection.cursor()
    for mart, sql in account.full_sql.items():
        if account.postgres is not None:  # the compiled SQL names the template's database
            sql = sql.replace(f'"{account.template}".', f'"{warehouse}".')
        cursor.execute(f"create temp table full_build as {sql}")
        counts = []
        for ours, theirs in ((f"marts.{mart}", "full_build"), ("full_build", f"marts.{mart}")):
            cursor.execute(
                f"select count(*) from (select * from {ours} except all select * from {theirs})"
                " as only_here"
            )
            counts.append(cursor.fetchone()[0])
        cursor.execute("drop table full_build")
        if any(counts):
            found[mart] = (counts[0], counts[1])
    connection.close()
    return found


def run_sequence(
    account: Account, folder: Path, monkeypatch: pytest.MonkeyPatch, sequence: list[list[Change]]
) -> None:
    """Apply ``sequence`` step by step to a fresh copy of the template, each step folded and
    built incrementally; after every build both marts equal their full derivation."""
    warehouse = fresh_copy(account, folder, monkeypatch)
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", f"sqlite:///{folder / 'inbox.sqlite3'}")
    activities = account.server.state.dataset.operations.activities
    before = list(activities[CLOCK])
    activities[CLOCK] = list(before)
    duckdb_file = Path(warehouse) if account.postgres is None else None
    try:
        for number, step in enumerate(sequence):
            clock = NOW + (number + 1) * 3600
            monkeypatch.setenv("WFM_SYNC_NOW", str(clock))
            if apply(account, step, clock - 1800):
                run_sync(["time_clocks", "time_activities", "timesheets"], project=resolve())
            run_fold(project=resolve())
            run_dbt(
                ["run", *(SELECTION if duckdb_file else UPSTREAM)], duckdb_file, project=resolve()
            )
            assert differences(account, warehouse) == {}, f"after step {number + 1}"
    finally:
        activities[CLOCK] = before
        account.server.state.dataset.version += 1


@pytest.mark.slow
@pytest.mark.parametrize("account", ["duckdb"], indirect=True)
@PROPERTY
@given(sequence=steps)
def test_incremental_marts_equal_a_full_build_after_any_changes(
    account, monkeypatch, tmp_path_factory, sequence
):
    run_sequence(account, tmp_path_factory.mktemp("example"), monkeypatch, sequence)


@pytest.mark.slow
@pytest.mark.parametrize("account", ["postgres"], indirect=True)
@POSTGRES_PROPERTY
@given(sequence=steps)
def test_incremental_marts_equal_a_full_build_after_any_changes_on_postgresql(
    account, monkeypatch, tmp_path_factory, sequence
):
    run_sequence(account, tmp_path_factory.mktemp("example"), monkeypatch, sequence)
