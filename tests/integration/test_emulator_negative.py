"""The emulator refuses what the provider's spec refuses: every parameter of every served GET is
checked against the spec's type, enum, bounds and ``required`` (answer 422 ``{"detail": [{loc,
msg, type}]}``), so the emulator and the spec cannot drift apart again.

Three views of it:

* the hand-written probes the emulator once answered 200 (``isPublished=maybe`` and others);
* schemathesis's coverage phase in negative mode: every invalid value it derives for every
  parameter of every served GET (deterministic), sent one by one; the test lists every probe the
  emulator accepted (2xx) though the spec refuses it;
* schemathesis's fuzzing in negative mode (``negative_data_rejection``), a few examples per
  operation.

The operations are the spec's GETs the emulator app serves (beta routes and ``/_emulator``
control endpoints are not in the spec, and are not checked).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import schemathesis
from conftest import API_KEY, SPEC_FILE
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import negative_data_rejection

from emulator import create_app

SPEC = SPEC_FILE
HEADERS = {"X-API-KEY": API_KEY}


def served_gets() -> set[str]:
    """The spec paths whose GET the emulator app serves."""
    paths = json.loads(SPEC.read_text())["paths"]
    routes = {
        route.path  # type: ignore[attr-defined]
        for route in create_app().routes
        if "GET" in getattr(route, "methods", set())
    }
    return {path for path, operations in paths.items() if "get" in operations and path in routes}


SERVED = served_gets()
schema = schemathesis.openapi.from_path(str(SPEC)).include(
    lambda ctx: ctx.operation.method.lower() == "get" and ctx.operation.path in SERVED
)
schema.config.generation.update(modes=[GenerationMode.NEGATIVE])
schema.config.phases.update(phases=["fuzzing"])


PROBES = [
    ("/scheduler/v1/schedulers/{schedulerId}/shifts", "isPublished", "maybe"),
    ("/scheduler/v2/schedulers/{schedulerId}/shifts", "isPublished", "maybe"),
    ("/time-clock/v1/time-clocks/{timeClockId}/timesheet", "isApproved", "maybe"),
    ("/users/v1/custom-fields/{customFieldId}/options", "isDeleted", "maybe"),
    ("/jobs/v1/jobs", "sort", "nonsense"),
    ("/jobs/v1/jobs", "order", "sideways"),
    ("/users/v1/custom-fields", "sort", "nonsense"),
    ("/users/v1/custom-fields", "order", "sideways"),
    ("/users/v1/custom-field-categories", "sort", "nonsense"),
    ("/users/v1/custom-field-categories", "order", "sideways"),
    ("/users/v1/users", "createdAt", "abc"),
]
"""``(path, parameter, value)``: values the spec refuses that the emulator once answered 200."""

REQUIRED = {
    "/scheduler/v1/schedulers/{schedulerId}/shifts": {"startTime": "0", "endTime": "2000000000"},
    "/scheduler/v2/schedulers/{schedulerId}/shifts": {"startTime": "0", "endTime": "2000000000"},
    "/time-clock/v1/time-clocks/{timeClockId}/timesheet": {"startDate": "2024-01-01",
                                                 "endDate": "2024-01-31"},
}  # fmt: skip
"""Valid values of the required parameters of the probed paths, so only the probe is wrong."""


@pytest.fixture(scope="module")
def real_ids(emulator_url) -> dict[str, Any]:
    """Path parameter name -> an id the emulated account holds (a scheduler, its first shift
    layer, a time clock, a form, a dropdown custom field, a policy type, a task board)."""
    with httpx.Client(base_url=emulator_url, headers=HEADERS) as client:

        def first(path: str, key: str) -> dict[str, Any]:
            return client.get(path, params={"limit": 100}).json()["data"][key][0]

        scheduler = first("/scheduler/v1/schedulers", "schedulers")["schedulerId"]
        fields = client.get("/users/v1/custom-fields", params={"limit": 100}).json()
        return {
            "schedulerId": scheduler,
            "layerId": first(f"/scheduler/v1/schedulers/{scheduler}/shift-layers",
                             "shiftLayers")["id"],
            "timeClockId": first("/time-clock/v1/time-clocks", "timeClocks")["id"],
            "formId": first("/forms/v1/forms", "forms")["formId"],
            "customFieldId": next(f["id"] for f in fields["data"]["customFields"]
                                  if f.get("type") == "dropdown"),
            "policyTypeId": first("/time-off/v1/policy-types", "policyTypes")["id"],
            "taskBoardId": str(first("/tasks/v1/taskboards", "taskBoards")["id"]),
        }  # fmt: skip


def real_path(case: Any, ids: dict[str, Any]) -> None:
    """Point ``case`` at records the account holds, unless its path is the invalid part: an
    unknown id is answered 404, which would hide how the emulator treats the other parameters."""
    if case.path_parameters and not case.meta.is_negative_at(ParameterLocation.PATH):
        case.path_parameters = {k: ids.get(k, v) for k, v in case.path_parameters.items()}


@pytest.mark.parametrize(("path", "name", "value"), PROBES)
def test_a_value_the_spec_refuses_is_answered_422(emulator_url, real_ids, path, name, value):
    url = path.format(**real_ids)
    params = {**REQUIRED.get(path, {}), name: value}
    with httpx.Client(base_url=emulator_url, headers=HEADERS) as client:
        valid = client.get(url, params=REQUIRED.get(path, {}))
        answer = client.get(url, params=params)
    assert valid.status_code == 200, valid.text[:300]  # served without the probe
    assert answer.status_code == 422, answer.text[:300]
    detail = answer.json()["detail"]
    assert [item["loc"] for item in detail] == [["query", name]], detail
    assert all(isinstance(item["msg"], str) and item["type"] for item in detail)


def _description(case: Any) -> str:
    """What a case made invalid (``GET /users/v1/users: createdAt: Incorrect type``)."""
    data = case.meta.phase.data
    return f"{case.operation.label}: {data.parameter}: {data.description}"


CHECKS = [not_a_server_error, negative_data_rejection]


def test_every_negative_coverage_probe_is_refused(emulator_url, real_ids):
    accepted: list[str] = []
    probes = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        cases = schema.iter_coverage_cases(
            operation,
            generation_modes=[GenerationMode.NEGATIVE],
            generation_config=schema.config.generation_for(operation=operation, phase="coverage"),
        )
        for case in cases:
            probes += 1
            real_path(case, real_ids)
            response = case.call(base_url=emulator_url, headers=HEADERS)
            try:
                case.validate_response(response, checks=CHECKS)
            except FailureGroup:
                accepted.append(f"{response.status_code} {_description(case)}")
    kinds = sorted(set(accepted))
    summary = f"{len(accepted)} of {probes} negative probes accepted ({len(kinds)} distinct)"
    print(summary)
    assert not accepted, summary + ":\n" + "\n".join(kinds)


def _free_text() -> dict[str, set[str]]:
    """GET path -> its query parameters any text is valid for: a string or an array of strings
    (maybe or null), with no enum. Schemathesis's negative values for them (``jobId=true``, a
    stringified object) are still valid text once sent, so they prove nothing."""
    found: dict[str, set[str]] = {}
    paths = json.loads(SPEC.read_text())["paths"]
    for path in SERVED:
        for param in paths[path]["get"].get("parameters", []):
            schema = param["schema"]
            branches = [b for b in schema.get("anyOf", [schema]) if b.get("type") != "null"]
            leaves = [b.get("items", {}) if b.get("type") == "array" else b for b in branches]
            if param["in"] == "query" and all(
                leaf.get("type") == "string" and "enum" not in leaf for leaf in leaves
            ):
                found.setdefault(path, set()).add(param["name"])
    return found


FREE_TEXT = _free_text()


@schemathesis.check
def refused_unless_free_text(ctx: Any, response: Any, case: Any) -> bool | None:
    """``negative_data_rejection``, unless every invalid part of ``case`` is a free-text query
    parameter (:func:`_free_text`)."""
    data = case.meta.phase.data
    names = ({m.parameter for m in data.mutations} | {data.parameter}) - {None}
    if names and names <= FREE_TEXT.get(case.operation.path, set()):
        return None
    return negative_data_rejection(ctx, response, case)


@schema.parametrize()
@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
def test_negative_fuzzing_is_refused(case, emulator_url, real_ids):
    real_path(case, real_ids)
    checks = [not_a_server_error, refused_unless_free_text]
    case.call_and_validate(base_url=emulator_url, headers=HEADERS, checks=checks)


def test_users_created_after_created_at_only_are_listed(emulator_url):
    with httpx.Client(base_url=emulator_url, headers=HEADERS) as client:
        every = client.get("/users/v1/users", params={"limit": 500, "userStatus": "all"})
        users = every.json()["data"]["users"]
        middle = sorted(u["createdAt"] for u in users)[len(users) // 2]
        params = {"limit": 500, "userStatus": "all", "createdAt": middle}
        after = client.get("/users/v1/users", params=params).json()["data"]["users"]
    assert {u["userId"] for u in after} == {u["userId"] for u in users if u["createdAt"] > middle}
    assert 0 < len(after) < len(users)
