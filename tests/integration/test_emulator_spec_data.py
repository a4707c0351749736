"""The emulator's spec data mode (``data="spec"``), served by a real emulator on 127.0.0.1.

What is checked, for three seeds (and one with ``spec_width="wide"``):

* every endpoint the sync reads answers 200 to the requests a sync with default settings makes
  (same parameters and windows around the anchor), and a full listing (all pages, small pages to
  page often) returns every record the account holds exactly once;
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

import httpx
import pytest
from conftest import ANCHOR, API_KEY
from jsonschema import Draft202012Validator

from emulator.data import Dataset, EmulatorConfig
from emulator.domains.groups.data import groups_of
from emulator.domains.onboarding import onboarding_of
from emulator.domains.pay_leave.data import pay_leave_of
from emulator.domains.sales.data import sales_of
from emulator.domains.shift_layers.data import shift_settings_of
from emulator.operations_data import OperationsConfig
from emulator.spec_data import spec_webhooks, webhook_components
from emulator.spec_records import EPOCHS, INT64, ODD_VALUES
from emulator.spec_schemas import path_template, spec
from emulator.webhooks import build_burst

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

    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.http.get(path, params=params)
        assert response.status_code == 200, (path, response.text[:500])
        body: dict[str, Any] = json.loads(response.content)
        self.answers.append((path, body))
        return body

    def listing(self, path: str, key: str, params: dict[str, Any] | None = None) -> list[Any]:
        """Every record of a paged listing, ``PAGE`` at a time, until a short page."""
        out: list[Any] = []
        while True:
            body = self.get(path, {**(params or {}), "limit": PAGE, "offset": len(out)})
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


def served(account: Account, ds: Dataset) -> dict[str, dict[Any, Any]]:
    """``{stream: {warehouse key: record}}`` of every record a default sync is served, with
    (the test's own checks) no key served twice."""
    out: dict[str, dict[Any, Any]] = {}

    def add(stream: str, key: Any, record: Any) -> None:
        assert key not in out.setdefault(stream, {}), (stream, key)
        out[stream][key] = record

    for user in account.listing("/users/v1/users", "users", {"userStatus": "all"}):
        add("users", user["userId"], user)
    for form in account.listing("/forms/v1/forms", "forms"):
        add("forms", form["formId"], form)
        path = f"/forms/v1/forms/{form['formId']}/form-submissions"
        for sub in account.listing(path, "formSubmissions"):
            assert sub["formId"] == form["formId"]
            add("form_submissions", sub["formSubmissionId"], sub)
    window = {"startTime": ANCHOR - 30 * 86_400, "endTime": ANCHOR + 90 * 86_400}
    for scheduler in account.get("/scheduler/v1/schedulers")["data"]["schedulers"]:
        add("schedulers", scheduler["schedulerId"], scheduler)
        path = f"/scheduler/v1/schedulers/{scheduler['schedulerId']}/shifts"
        for shift in account.listing(path, "shifts", window):
            add("shifts", shift["id"], shift)
    for doc in account.listing("/documents/v1/user-documents", "userDocuments"):
        assert isinstance(doc["id"], int)
        add("user_documents", doc["id"], doc)
    for clock in account.get("/time-clock/v1/time-clocks")["data"]["timeClocks"]:
        add("time_clocks", clock["id"], clock)
        base = f"/time-clock/v1/time-clocks/{clock['id']}"
        users = account.get(f"{base}/time-activities", ACTIVITY_WINDOW)["data"]
        for user in users["timeActivitiesByUsers"]:
            for kind in ("shifts", "manualBreaks", "timeOffs"):
                for activity in user.get(kind) or []:
                    add("time_activities", activity["id"], activity)
        for policy in account.get(f"{base}/manual-breaks")["data"]["manualBreaks"]:
            add("manual_breaks", policy["id"], policy)
        sheet = account.get(f"{base}/timesheet", ACTIVITY_WINDOW)["data"]
        for user in sheet["users"]:
            for day in user["dailyRecords"]:
                add("timesheets", f"{clock['id']}:{user['userId']}:{day['date']}", day)
    for job in account.listing("/jobs/v1/jobs", "jobs", {"includeDeleted": "true"}):
        add("jobs", job["jobId"], job)
        for sub in job.get("subJobs") or []:
            add("jobs", sub["jobId"], sub)
    time_off = {"startDate": str(TODAY - timedelta(days=35)),
                "endDate": str(TODAY + timedelta(days=180)),
                "statuses": ["approved", "pending", "denied"]}  # fmt: skip
    for request in account.listing("/time-off/v1/requests", "requests", time_off):
        add("time_off_requests", request["id"], request)
    for board in account.get("/tasks/v1/taskboards")["data"]["taskBoards"]:
        add("task_boards", board["id"], board)
        path = f"/tasks/v1/taskboards/{board['id']}/tasks"
        for task in account.listing(path, "tasks", {"status": "all"}):
            add("tasks", task["id"], task)
    for field in account.listing("/users/v1/custom-fields", "customFields"):
        add("user_custom_field_definitions", field["id"], field)
    for scheduler in out["schedulers"]:
        path = f"/scheduler/v1/schedulers/{scheduler}/unavailabilities"
        for unavailable in account.listing(path, "unavailabilities", window):
            add("scheduler_unavailabilities", unavailable["id"], unavailable)
    rates = {"startDate": str(TODAY - timedelta(days=300)), "endDate": str(TODAY),
             "isIncludeHistory": "true"}  # fmt: skip
    for item in account.listing("/pay-rates/v1/pay-rates", "payRatesByUsers", rates):
        add("pay_rates", f"{item['userId']}:{item['payRate']['effectiveDate']}", item["payRate"])
    policies = account.get("/company-policies/v1/pay-rule-policies")["data"]["payRulesPolicies"]
    for policy in policies:
        add("pay_rule_policies", policy["id"], policy)
    for policy_type in account.get("/time-off/v1/policy-types")["data"]["policyTypes"]:
        path = f"/time-off/v1/policy-types/{policy_type['id']}/balances"
        for balance in account.listing(path, "balances"):
            add("time_off_balances", f"{balance['policyId']}:{balance['userId']}", balance)
    for location in account.listing("/sales/v1/locations", "locations"):
        add("sales_locations", location["id"], location)
    every_day = {"startDate": "2000-01-01", "endDate": "2099-12-31"}
    for entry in account.get("/sales/v1/daily-sales", every_day)["data"]["dailySales"]:
        add("daily_sales", f"{entry['locationId']}:{entry['date']}", entry)
    for group in account.get("/users/v1/smart-groups")["data"]["groups"]:
        add("smart_groups", group["id"], group)
    for segment in account.get("/users/v1/smart-group-segments")["data"]["segments"]:
        add("smart_group_segments", segment["id"], segment)
    for category in account.listing("/users/v1/custom-field-categories", "categories"):
        add("user_custom_field_categories", category["id"], category)
    for pack in account.get("/onboarding/v1/packs")["data"]["packs"]:
        add("onboarding_packs", pack["id"], pack)
        path = f"/onboarding/v1/packs/{pack['id']}/assignments"
        for item in account.get(path)["data"]["assignments"]:
            add("onboarding_pack_assignments", f"{pack['id']}:{item['id']}", item)
    for scheduler in out["schedulers"]:
        base = f"/scheduler/v1/schedulers/{scheduler}"
        for layer in account.get(f"{base}/shift-layers")["data"]["shiftLayers"]:
            add("shift_layers", f"{scheduler}:{layer['id']}", layer)
            path = f"{base}/shift-layers/{layer['id']}/values"
            for value in account.listing(path, "values"):
                add("shift_layer_values", f"{scheduler}:{layer['id']}:{value['id']}", value)
        for field in account.listing(f"{base}/custom-fields", "customFields"):
            add("shift_custom_fields", f"{scheduler}:{field['id']}", field)
    return out


def held(ds: Dataset) -> dict[str, set[Any]]:
    """The warehouse keys of every record the account holds, by stream."""
    ops = ds.operations
    pay_leave, sales = pay_leave_of(ds), sales_of(ds)
    groups, settings = groups_of(ds), shift_settings_of(ds)
    return {
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
        "task_boards": set(ops.task_boards),
        "tasks": {t["id"] for tasks in ops.tasks.values() for t in tasks},
        "user_custom_field_definitions": {f["id"] for f in ops.custom_fields},
        "scheduler_unavailabilities": {u["id"] for rows in pay_leave.unavailabilities.values()
                                       for u in rows},
        "pay_rates": {f"{r['userId']}:{r['payRate']['effectiveDate']}"
                      for r in pay_leave.pay_rates},
        "pay_rule_policies": {p["id"] for p in pay_leave.pay_rule_policies},
        "time_off_balances": {f"{b['policyId']}:{b['userId']}"
                              for rows in pay_leave.balances.values() for b in rows},
        "sales_locations": {loc["id"] for loc in sales.locations},
        "daily_sales": {f"{e['locationId']}:{e['date']}" for e in sales.daily_sales},
        "smart_groups": {g["id"] for g in groups.groups},
        "onboarding_packs": {p["id"] for p in onboarding_of(ds).packs},
        "onboarding_pack_assignments": {f"{pid}:{a['id']}" for pid, rows
                                        in onboarding_of(ds).assignments.items() for a in rows},
        "smart_group_segments": {s["id"] for s in groups.segments},
        "user_custom_field_categories": {c["id"] for c in settings.categories},
        "shift_layers": {f"{sid}:{x['id']}" for sid, layers in settings.layers.items()
                         for x in layers},
        "shift_layer_values": {f"{sid}:{x['id']}:{v['id']}"
                               for sid, layers in settings.layers.items()
                               for x in layers for v in settings.values[x["id"]]},
        "shift_custom_fields": {f"{sid}:{f['id']}"
                                for sid, fields in settings.custom_fields.items()
                                for f in fields},
    }  # fmt: skip


RECORD_LISTS = {
    # data key of an answer: how far down an error's location the record starts, its stream
    "users": (1, "users"), "forms": (1, "forms"), "schedulers": (1, "schedulers"),
    "shifts": (1, "shifts"), "timeClocks": (1, "time_clocks"),
    "formSubmissions": (1, "form_submissions"), "requests": (1, "time_off_requests"),
    "taskBoards": (1, "task_boards"), "tasks": (1, "tasks"),
    "customFields": (1, "user_custom_field_definitions"),
    "unavailabilities": (1, "scheduler_unavailabilities"),
    "payRulesPolicies": (1, "pay_rule_policies"), "manualBreaks": (1, "manual_breaks"),
    "locations": (1, "sales_locations"), "dailySales": (1, "daily_sales"),
    "groups": (1, "smart_groups"), "segments": (1, "smart_group_segments"),
    "categories": (1, "user_custom_field_categories"), "packs": (1, "onboarding_packs"),
}  # fmt: skip


def records_at(
    path: str, body: dict[str, Any], where: list[Any]
) -> list[tuple[str, Any, list[str]]]:
    """``(stream, warehouse key, path inside the record)`` of the records an error location in
    an answer falls in (several where it is a job's ``subJobs`` list: each sub-job is a row)."""
    if not where or where[0] != "data" or len(where) < 3:
        return [("", None, [str(p) for p in where])]
    data_key, index, rest = where[1], where[2], [str(p) for p in where[3:]]
    item = body["data"][data_key][index]
    if data_key == "timeActivitiesByUsers":
        activity = item[where[3]][where[4]] if len(where) > 4 else {}
        return [("time_activities", activity.get("id"), [str(p) for p in where[5:]])]
    if data_key == "users" and "timesheet" in path:
        clock = path.split("/")[4]
        day = item["dailyRecords"][where[4]] if len(where) > 4 else {}
        return [("timesheets", f"{clock}:{item['userId']}:{day.get('date')}", rest[2:])]
    if data_key == "payRatesByUsers":
        rate = item.get("payRate") or {}
        return [("pay_rates", f"{item['userId']}:{rate.get('effectiveDate')}", rest[1:])]
    if data_key == "balances":
        return [("time_off_balances", f"{item['policyId']}:{item['userId']}", rest)]
    if data_key == "jobs":
        subs = item.get("subJobs") or []
        if rest[:1] == ["subJobs"] and len(rest) > 1:
            return [("jobs", subs[int(rest[1])]["jobId"], rest[2:])]
        if rest == ["subJobs"]:
            return [("jobs", sub["jobId"], []) for sub in subs]
        return [("jobs", item["jobId"], rest)]
    if data_key in ("shiftLayers", "values") or (
        "scheduler" in path and data_key == "customFields"
    ):
        parts = path.split("/")  # /scheduler/v1/schedulers/{sid}/shift-layers/{layer}/values
        stream = {"shiftLayers": "shift_layers", "values": "shift_layer_values",
                  "customFields": "shift_custom_fields"}[data_key]  # fmt: skip
        return [(stream, ":".join([*parts[4:5], *parts[6:7], str(item["id"])]), rest)]
    if data_key == "assignments":  # /onboarding/v1/packs/{packId}/assignments
        return [("onboarding_pack_assignments", f"{path.split('/')[4]}:{item['id']}", rest)]
    stream = RECORD_LISTS[data_key][1]
    key_field = {"users": "userId", "forms": "formId", "schedulers": "schedulerId",
                 "formSubmissions": "formSubmissionId"}.get(data_key, "id")  # fmt: skip
    return [(stream, item[key_field], rest)]


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
    records = served(account, ds)
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
