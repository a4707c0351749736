"""The emulator's spec data mode (``data="spec"``), served by a real emulator on 127.0.0.1.

What is checked, for three seeds (and one with ``spec_width="wide"``):

* every endpoint the sync reads answers 200 to the requests a sync with default settings makes
  (same parameters and windows around the anchor), and a full listing (all pages, small pages to
  page often) returns every record the account holds exactly once: every stream of the registry
  is walked from its parent's records, and what the account holds is its core records and each
  emulator domain's ``listed``;
* every answer validates against the spec's 200 response schema of its operation (envelope
  included; ``jsonschema``, draft 2020-12, formats not asserted), except for errors *excused* by
  the manifest: an error is excused when one of the manifest entries of the record it falls in
  lies at or below the error's location (a ``oneOf`` error on a form question holding an unknown
  enum value deep inside is excused; the same error on a record without entries there is not).
  Extra fields need no excuse: the spec's schemas allow them. The beta user-documents endpoint has
  no schema: only its unique integer ``id`` is checked;
* every manifest entry points at a value of a record the API serves, of the kind it names;
* the same seed gives the same records and manifest, also in another process with another hash
  seed; another seed gives others; webhook bodies likewise, with unique ``requestId``s.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from conftest import ANCHOR, API_KEY
from jsonschema import Draft202012Validator

from emulator.data import Dataset, EmulatorConfig
from emulator.domains import DOMAINS
from emulator.operations_data import OperationsConfig
from emulator.spec_data import spec_webhooks, webhook_components
from emulator.spec_records import EPOCHS, INT64, ODD_VALUES
from emulator.spec_schemas import path_template, spec
from emulator.webhooks import build_burst
from sources.connecteam.registry import STREAMS
from sources.connecteam.stream import Stream

SEEDS = [11, 12, 13]
SIZES = {"users": 60, "forms": 3, "schedulers": 2, "shifts": 120}
OPERATIONS = OperationsConfig(time_clocks=2, time_activities=60, form_submissions=6, jobs=8,
                              time_off_requests=20, task_boards=2, tasks=9,
                              extra_custom_fields=2)  # fmt: skip
TODAY = datetime.fromtimestamp(ANCHOR, UTC).date()
ACTIVITY_WINDOW = {"startDate": str(TODAY - timedelta(days=35)),
                   "endDate": str(TODAY + timedelta(days=1))}  # fmt: skip
PAGE = 7


def dataset_digest(ds: Dataset) -> str:
    """A digest of every record and the manifest."""
    ops = ds.operations
    parts = [ds.users, ds.forms, ds.schedulers, ds.shifts, ds.user_documents, ops.time_clocks,
             ops.activities, ops.spec_timesheets, ops.form_submissions, ops.jobs,
             ops.policy_types, ops.time_off_requests, ops.task_boards, ops.tasks,
             ops.custom_fields, ds.spec_manifest]  # fmt: skip
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def config(seed: int, **overrides: Any) -> EmulatorConfig:
    return EmulatorConfig(seed=seed, anchor=ANCHOR, data="spec", operations=OPERATIONS,
                          **{**SIZES, **overrides})  # fmt: skip


# -- determinism -----------------------------------------------------------------------------------

DIGEST_SCRIPT = """
import sys
sys.path[:0] = sys.argv[2:4]  # this test's folder, then tests/ (conftest)
from test_emulator_spec_data import Dataset, config, dataset_digest
print(dataset_digest(Dataset.generate(config(int(sys.argv[1])))))
"""


def test_the_same_seed_gives_the_same_records_in_any_process() -> None:
    first = dataset_digest(Dataset.generate(config(SEEDS[0])))
    assert dataset_digest(Dataset.generate(config(SEEDS[0]))) == first
    assert dataset_digest(Dataset.generate(config(SEEDS[1]))) != first
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    here = Path(__file__).resolve().parent
    script = [sys.executable, "-c", DIGEST_SCRIPT, str(SEEDS[0]), str(here), str(here.parent)]
    other = subprocess.run(script, env=env, cwd=here.parents[1], capture_output=True, text=True,
                           timeout=120, check=True)  # fmt: skip
    assert other.stdout.strip() == first


def test_emulator_mode_has_no_manifest() -> None:
    ds = Dataset.generate(EmulatorConfig(anchor=ANCHOR, users=5, shifts=10))
    assert ds.spec_manifest == [] and ds.spec is None


# -- served by a real emulator ---------------------------------------------------------------------


class Account:
    """Listings of one spec-data emulator, made as the sync makes them."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, headers={"X-API-KEY": API_KEY}, timeout=60)
        self.answers: list[tuple[str, dict[str, Any]]] = []

    def get(
        self, path: str, params: dict[str, Any] | None = None, absent: bool = False
    ) -> dict[str, Any] | None:
        """The answer's body; with ``absent``, ``None`` for a 404 (a parent without such a
        listing)."""
        response = self.http.get(path, params=params)
        if absent and response.status_code == 404:
            return None
        assert response.status_code == 200, (path, response.text[:500])
        body: dict[str, Any] = json.loads(response.content)
        self.answers.append((path, body))
        return body

    def listing(
        self, path: str, key: str, params: dict[str, Any] | None = None, absent: bool = False
    ) -> list[Any]:
        """Every record of a paged listing, ``PAGE`` at a time, until a short page (none when
        ``absent`` and the first page is a 404)."""
        out: list[Any] = []
        while True:
            body = self.get(path, {**(params or {}), "limit": PAGE, "offset": len(out)}, absent)
            if body is None:
                return out
            page = body["data"][key]
            out += page
            if len(page) < PAGE:
                return out


def validator(path: str) -> Draft202012Validator:
    """A validator of the spec's 200 answer of ``GET path``, its ``$ref``s resolved."""
    document = spec()
    answer = document["paths"][path_template(path)]["get"]["responses"]["200"]
    schema = {**answer["content"]["application/json"]["schema"],
              "components": document["components"]}  # fmt: skip
    return Draft202012Validator(schema)


NESTED = ("time_activities", "timesheets", "jobs")
"""Streams whose records sit deeper than the answer's list (activities by user and kind, days
by user, sub-jobs inside a job): :func:`served_nested` reads them by hand, the test's own
oracle of those shapes."""
INNER = {"pay_rates": "payRate"}
"""The field of a listed item that holds the record, where the item wraps it (pay rates: the
manifest's paths start inside ``payRate``)."""
WIDER = {
    "time_off_requests": {"statuses": ["approved", "pending", "denied"]},
    "pay_rates": {"startDate": str(TODAY - timedelta(days=300)), "endDate": str(TODAY)},
    "daily_sales": {"startDate": "2000-01-01", "endDate": "2099-12-31"},
}  # fmt: skip
"""Query parameters beyond a default sync's, where the account holds records outside its window
(every status of time off, pay rates' history, every day of sales)."""


def params_of(stream: Stream) -> dict[str, Any]:
    """The query a default sync sends to ``stream``'s listing (the registry's fixed
    ``?name=value`` query and its window around the anchor: epoch seconds for a window anchored
    at now, UTC dates for one anchored at today), with :data:`WIDER`'s parameters over it."""
    out: dict[str, Any] = dict(parse_qsl(stream.query[1:])) if stream.query[:1] == "?" else {}
    if (window := stream.window) is not None and window.anchor == "now":
        out.update(startTime=ANCHOR - window.days_back * 86_400,
                   endTime=ANCHOR + window.days_ahead * 86_400)  # fmt: skip
    elif window is not None:
        out.update(startDate=str(TODAY - timedelta(days=window.days_back)),
                   endDate=str(TODAY + timedelta(days=window.days_ahead)))  # fmt: skip
    return {**out, **WIDER.get(stream.name, {})}


def key_of(stream: Stream, record: dict[str, Any], params: dict[str, Any]) -> Any:
    """The warehouse key of ``record`` as the manifest spells it: its primary key fields (from
    the record, dotted into it, else from the path ``params``) joined by ``:`` where the table
    keeps them in one ``…_key`` column, else the record's own id."""
    values = []
    for name in stream.primary_key:
        value: Any = record
        for part in name.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        values.append(params[name] if value is None else value)
    if len(stream.key) == 1 and stream.key[0].endswith("_key"):
        return ":".join(str(v) for v in values)
    return values[-1]


def listed(account: Account, stream: Stream, path: str) -> list[Any]:
    """Every item of ``stream``'s listing at ``path`` (all pages when it is paged); none when a
    child's parent has no such listing (404: a custom field that is no dropdown)."""
    params, child = params_of(stream), stream.parent is not None
    if stream.max_limit:
        return account.listing(path, stream.data_key, params, absent=child)
    body = account.get(path, params, absent=child)
    return [] if body is None else list(body["data"][stream.data_key])


def served(account: Account) -> dict[str, dict[Any, Any]]:
    """``{stream: {warehouse key: record}}`` of every record a default sync is served, every
    stream of the registry walked from its parent's records (the registry's ``parent``, whose
    last id field fills the child's path), with (the test's own checks) no key served twice."""
    out: dict[str, dict[Any, Any]] = {}
    under: dict[str, list[tuple[dict[str, Any], Any]]] = {}  # (path parameters, own id)

    def walk(stream: Stream) -> None:
        if stream.name in out:
            return
        out[stream.name], under[stream.name] = {}, []
        places = [({}, stream.path)]
        if stream.parent is not None:
            parent = STREAMS[stream.parent]
            walk(parent)
            rest = stream.path[len(parent.path) :]  # "/{packId}/assignments"
            name = rest.split("}")[0].removeprefix("/{")
            places = [({**params, name: own}, path_with(stream.path, {**params, name: own}))
                      for params, own in under[parent.name]]  # fmt: skip
        for params, path in places:
            for item in listed(account, stream, path):
                key = key_of(stream, item, params)
                assert key not in out[stream.name], (stream.name, key)
                out[stream.name][key] = (
                    item.get(INNER[stream.name]) if stream.name in INNER else item
                )
                under[stream.name].append((params, item.get(stream.primary_key[-1])))

    for stream in STREAMS.values():
        if stream.name not in NESTED:
            walk(stream)
    return {**{k: v for k, v in out.items() if k not in NESTED}, **served_nested(account)}


def path_with(template: str, params: dict[str, Any]) -> str:
    """``template`` with its ``{name}`` placeholders filled from ``params``."""
    for name, value in params.items():
        template = template.replace("{" + name + "}", str(value))
    return template


def served_nested(account: Account) -> dict[str, dict[Any, Any]]:
    """The :data:`NESTED` streams' records, read by hand (time activities by user and kind,
    timesheet days by user, sub-jobs as rows of their own)."""
    out: dict[str, dict[Any, Any]] = {"time_activities": {}, "timesheets": {}, "jobs": {}}

    def add(stream: str, key: Any, record: Any) -> None:
        assert key not in out[stream], (stream, key)
        out[stream][key] = record

    for clock in account.get("/time-clock/v1/time-clocks")["data"]["timeClocks"]:
        base = f"/time-clock/v1/time-clocks/{clock['id']}"
        users = account.get(f"{base}/time-activities", ACTIVITY_WINDOW)["data"]
        for user in users["timeActivitiesByUsers"]:
            for kind in ("shifts", "manualBreaks", "timeOffs"):
                for activity in user.get(kind) or []:
                    add("time_activities", activity["id"], activity)
        sheet = account.get(f"{base}/timesheet", ACTIVITY_WINDOW)["data"]
        for user in sheet["users"]:
            for day in user["dailyRecords"]:
                add("timesheets", f"{clock['id']}:{user['userId']}:{day['date']}", day)
    for job in account.listing("/jobs/v1/jobs", "jobs", {"includeDeleted": "true"}):
        add("jobs", job["jobId"], job)
        for sub in job.get("subJobs") or []:
            add("jobs", sub["jobId"], sub)
    return out


def held(ds: Dataset) -> dict[str, set[Any]]:
    """The warehouse keys of every record the account holds, by stream: the core records read
    here, each domain's from its :attr:`~emulator.domains.domain.Domain.listed`."""
    ops = ds.operations
    out = {
        "users": set(ds.users), "forms": set(ds.forms), "schedulers": set(ds.schedulers),
        "shifts": {r["id"] for rows in ds.shifts.values() for r in rows},
        "user_documents": set(ds.user_documents), "time_clocks": set(ops.time_clocks),
        "time_activities": {a["record"]["id"] for items in ops.activities.values()
                            for a in items},
        "timesheets": {f"{clock}:{user['userId']}:{day['date']}"
                       for clock, users in ops.spec_timesheets.items() for user in users
                       for day in user["dailyRecords"]},
        "manual_breaks": {p["id"] for policies in ops.manual_breaks.values() for p in policies},
        "form_submissions": {s["formSubmissionId"] for subs in ops.form_submissions.values()
                             for s in subs},
        "jobs": {j["jobId"] for job in ops.jobs for j in [job, *(job.get("subJobs") or [])]},
        "time_off_requests": {r["id"] for r in ops.time_off_requests},
        "time_off_policy_types": {p["id"] for p in ops.policy_types},
        "task_boards": set(ops.task_boards),
        "tasks": {t["id"] for tasks in ops.tasks.values() for t in tasks},
        "user_custom_field_definitions": {f["id"] for f in ops.custom_fields},
    }  # fmt: skip
    for domain in DOMAINS:
        for name, rows in (domain.listed(ds) if domain.listed else {}).items():
            assert name not in out, (domain.name, name)
            out[name] = {key_of(STREAMS[name], row, row) for row in rows}
    return out


def records_at(
    path: str, body: dict[str, Any], where: list[Any]
) -> list[tuple[str, Any, list[str]]]:
    """``(stream, warehouse key, path inside the record)`` of the records an error location in
    an answer falls in (several where it is a job's ``subJobs`` list: each sub-job is a row)."""
    if not where or where[0] != "data" or len(where) < 3:
        return [("", None, [str(p) for p in where])]
    data_key, index, rest = where[1], where[2], [str(p) for p in where[3:]]
    item = body["data"][data_key][index]
    template = path_template(path)
    stream = next(s for s in STREAMS.values() if s.path == template)
    if stream.name == "time_activities":
        activity = item[where[3]][where[4]] if len(where) > 4 else {}
        return [("time_activities", activity.get("id"), [str(p) for p in where[5:]])]
    if stream.name == "timesheets":
        clock = path.split("/")[4]
        day = item["dailyRecords"][where[4]] if len(where) > 4 else {}
        return [("timesheets", f"{clock}:{item['userId']}:{day.get('date')}", rest[2:])]
    if stream.name == "jobs":
        subs = item.get("subJobs") or []
        if rest[:1] == ["subJobs"] and len(rest) > 1:
            return [("jobs", subs[int(rest[1])]["jobId"], rest[2:])]
        if rest == ["subJobs"]:
            return [("jobs", sub["jobId"], []) for sub in subs]
        return [("jobs", item["jobId"], rest)]
    params = dict(zip(template.split("/"), path.split("/"), strict=True))
    named = {p[1:-1]: v for p, v in params.items() if p.startswith("{")}
    inner = 1 if stream.name in INNER else 0
    return [(stream.name, key_of(stream, item, named), rest[inner:])]


def unexcused_errors(account: Account, ds: Dataset) -> list[str]:
    """Schema errors of the answers that no manifest entry excuses (see the module doc)."""
    odd: dict[tuple[str, Any], list[list[str]]] = {}
    for entry in ds.spec_manifest:
        odd.setdefault((entry["stream"], entry["key"]), []).append(entry["path"])
    left: list[str] = []
    for path, body in account.answers:
        if path_template(path) == "/documents/v1/user-documents":
            continue
        for error in validator(path).iter_errors(body):
            places = records_at(path, body, list(error.absolute_path))
            if not any(
                p[: len(inner)] == inner
                for stream, key, inner in places
                for p in odd.get((stream, key), [])
            ):
                left.append(f"{path} {places}: {error.message[:200]}")
    return left


def value_at(record: Any, path: list[str]) -> Any:
    for part in path:
        record = record[int(part)] if isinstance(record, list) else record[part]
    return record


def check_manifest(ds: Dataset, records: dict[str, dict[Any, Any]]) -> Counter[str]:
    """Every entry names a served record and a value of its kind there; returns kinds."""
    kinds: Counter[str] = Counter()
    for entry in ds.spec_manifest:
        assert entry["stream"] in records or entry["stream"] == "policy_types", entry
        if entry["stream"] == "policy_types":
            continue
        value = value_at(records[entry["stream"]][entry["key"]], entry["path"])
        kind = entry["kind"]
        if kind in ODD_VALUES:
            assert value in ODD_VALUES[kind], entry
        elif kind == "int64_overflow":
            assert isinstance(value, int) and not INT64[0] <= value <= INT64[1], entry
        elif kind == "epoch":
            assert isinstance(value, int) and not EPOCHS[0] <= value <= EPOCHS[1], entry
        elif kind == "type_varies":
            assert entry["path"] == ["extraCode"] and value in (7, "B-7"), entry
        else:
            assert kind == "out_of_range" and isinstance(value, int | float), entry
        kinds[kind] += 1
    return kinds


@pytest.mark.parametrize(("seed", "width"), [(s, "mixed") for s in SEEDS] + [(SEEDS[0], "wide")])
def test_every_record_is_served_once_and_fits_the_spec_but_for_the_manifest(
    seed: int, width: str, start_emulator: Any
) -> None:
    server = start_emulator(data="spec", seed=seed, spec_width=width, operations=OPERATIONS,
                            **SIZES)  # fmt: skip
    ds: Dataset = server.state.dataset
    account = Account(server.url)
    records = served(account)
    assert {stream: set(keys) for stream, keys in records.items()} == held(ds)
    if width == "wide":
        user_props = set(spec()["components"]["schemas"]["User"]["properties"])
        assert all(user_props <= set(user) for user in records["users"].values())
    kinds = check_manifest(ds, records)
    assert {"enum", "int64_overflow", "type_varies"} <= set(kinds), kinds
    assert not unexcused_errors(account, ds)
    # negative control: a value broken outside the manifest is caught
    users = next(body for path, body in account.answers if path == "/users/v1/users")
    users["data"]["users"][0]["firstName"] = 12345
    assert len(unexcused_errors(account, ds)) == 1


# -- webhooks --------------------------------------------------------------------------------------


def test_spec_webhook_bodies_are_seeded_unique_and_fit_their_schemas_but_for_the_manifest() -> None:
    bodies, manifest = spec_webhooks(123, seed=5, anchor=ANCHOR)
    assert spec_webhooks(123, seed=5, anchor=ANCHOR) == (bodies, manifest)
    assert spec_webhooks(123, seed=6, anchor=ANCHOR)[0] != bodies
    keys = [key for _, key, _ in bodies]
    assert len(set(keys)) == len(keys) == 123
    odd: dict[Any, list[list[str]]] = {}
    for entry in manifest:
        odd.setdefault(entry["key"], []).append(entry["path"])
    components = webhook_components()
    document = spec()
    left = []
    for i, (raw, key, _) in enumerate(bodies):
        body = json.loads(raw)
        assert body["requestId"] == key
        name = components[i % len(components)]
        schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
        for error in Draft202012Validator(schema).iter_errors(body):
            inner = [str(p) for p in error.absolute_path]
            if not any(p[: len(inner)] == inner for p in odd.get(key, [])):
                left.append(f"{name} {key} {inner}: {error.message[:200]}")
    assert not left


def test_build_burst_sends_spec_bodies_with_duplicates_only_when_asked() -> None:
    plain = build_burst(60, seed=3, data="spec")
    assert len({key for _, key, _ in plain}) == len(plain) == 60
    doubled = build_burst(60, seed=3, data="spec", duplicate_rate=0.5)
    keys = [key for _, key, _ in doubled]
    assert len(set(keys)) == 60 < len(keys)
    assert build_burst(60, seed=3) != plain  # emulator mode unchanged by the option
