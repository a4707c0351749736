"""The emulator answers as the provider's OpenAPI spec says: schemas, maxima, required parameters,
authentication and scopes, rate-limit headers and 429s."""

from __future__ import annotations

import json

import httpx
import pytest
from conftest import API_KEY, SPEC_FILE
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from sources.connecteam.registry import STREAMS as ENDPOINTS

SPEC = json.loads(SPEC_FILE.read_text())
REGISTRY = Registry().with_resource(
    "spec", Resource.from_contents(SPEC, default_specification=DRAFT202012)
)
RATE_HEADERS = [
    f"x-ratelimit-{w}-{k}" for w in ("minute", "day") for k in ("limit", "remaining", "reset")
]
WINDOW = {"startTime": 1_700_000_000, "endTime": 1_900_000_000}


def response_schema(path: str, method: str = "get", status: str = "200") -> dict:
    content = SPEC["paths"][path][method]["responses"][status]["content"]
    ref = content["application/json"]["schema"]["$ref"]
    return {"$ref": "spec" + ref}


def validate(instance: object, schema: dict) -> None:
    validator = Draft202012Validator(schema, registry=REGISTRY)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def spec_maximum(path: str) -> int | None:
    for param in SPEC["paths"][path]["get"].get("parameters", []):
        if param["name"] == "limit":
            return param["schema"]["maximum"]
    return None


@pytest.fixture
def server(start_emulator):
    return start_emulator(users=700, forms=12, schedulers=3, shifts=1500, paging_total=False)


def get(server, path, params=None, headers=None):
    return httpx.get(
        server.url + path,
        params=params,
        headers={"X-API-KEY": API_KEY} if headers is None else headers,
    )


def test_source_settings_match_the_spec():
    for name, endpoint in ENDPOINTS.items():
        if not endpoint.in_spec:
            assert endpoint.path not in SPEC["paths"], f"{name} is in the spec now"
            continue
        assert endpoint.path in SPEC["paths"], name
        assert endpoint.max_limit == spec_maximum(endpoint.path), name
        security = SPEC["paths"][endpoint.path]["get"]["security"]
        assert {"OAuth2": [endpoint.scope]} in security, name


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/users/v1/users", {"limit": 500}),
        ("/users/v1/users", {"limit": 500, "userStatus": "archived"}),
        ("/users/v1/users", {"limit": 500, "userStatus": "all", "offset": 500}),
        ("/users/v1/users", {"userIds": [1000, 1001], "modifiedAt": 1}),
        ("/forms/v1/forms", {"limit": 300}),
        ("/scheduler/v1/schedulers", {}),
        ("/scheduler/v1/schedulers/9000/shifts", {**WINDOW, "limit": 500}),
        ("/scheduler/v1/schedulers/9001/shifts", {**WINDOW, "sort": "updated_at", "order": "desc"}),
    ],
)
def test_answers_validate_against_the_spec(server, path, params):
    response = get(server, path, params)
    assert response.status_code == 200, response.text
    template = path.replace("/9000/", "/{schedulerId}/").replace("/9001/", "/{schedulerId}/")
    body = response.json()
    validate(body, response_schema(template))
    for header in RATE_HEADERS:
        assert header in response.headers


def test_paged_answers_carry_the_envelope_and_total_when_configured(start_emulator):
    server = start_emulator(users=30, paging_total=True)
    body = get(server, "/users/v1/users", {"limit": 10, "userStatus": "all"}).json()
    assert set(body) == {"requestId", "data", "paging"}
    assert body["paging"] == {"offset": 10, "total": 30}
    validate(body, response_schema("/users/v1/users"))


def test_user_status_filter_and_modified_after(server):
    everyone = get(server, "/users/v1/users", {"limit": 500, "userStatus": "all"}).json()
    users = everyone["data"]["users"]
    assert len(users) == 500
    active = get(server, "/users/v1/users", {"limit": 500}).json()["data"]["users"]
    assert all(not u["isArchived"] for u in active)
    archived = get(server, "/users/v1/users", {"limit": 500, "userStatus": "archived"}).json()
    assert archived["data"]["users"] and all(u["isArchived"] for u in archived["data"]["users"])
    pivot = sorted(u["modifiedAt"] for u in users)[250]
    newer = get(server, "/users/v1/users", {"limit": 500, "userStatus": "all", "modifiedAt": pivot})
    assert all(u["modifiedAt"] > pivot for u in newer.json()["data"]["users"])
    names = {u["firstName"] + u["lastName"] for u in users}
    assert any(not n.isascii() for n in names)  # realistic, non-ASCII names
    kinds = {f["type"] for u in users for f in u["customFields"]}
    assert {"number", "dropdown", "date", "str"} <= kinds


def test_shifts_one_row_per_assignee_with_open_and_multi_user_shifts(server):
    rows = []
    for sid in (9000, 9001, 9002):
        params = {**WINDOW, "limit": 500}
        offset = 0
        while True:
            page = get(
                server, f"/scheduler/v1/schedulers/{sid}/shifts", {**params, "offset": offset}
            )
            batch = page.json()["data"]["shifts"]
            rows += batch
            offset += 500
            if len(batch) < 500:
                break
    assert len(rows) == 1500
    open_rows = [r for r in rows if r["isOpenShift"]]
    assert open_rows and all(r["assignedUserIds"] == [] for r in open_rows)
    assigned = [r for r in rows if not r["isOpenShift"]]
    assert all(len(r["assignedUserIds"]) == 1 and ":" in r["id"] for r in assigned)
    bases: dict[str, int] = {}
    for r in assigned:
        bases[r["id"].split(":")[0]] = bases.get(r["id"].split(":")[0], 0) + 1
    assert max(bases.values()) > 1  # multi-user shifts: several rows share a base shift id
    assert len({r["timezone"] for r in rows}) == 3


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/users/v1/users", {"limit": 501}),
        ("/users/v1/users", {"limit": 0}),
        ("/users/v1/users", {"userStatus": "gone"}),
        ("/forms/v1/forms", {"limit": 301}),
        ("/documents/v1/user-documents", {"limit": 101}),
        ("/scheduler/v1/schedulers/9000/shifts", {"limit": 10}),
        ("/scheduler/v1/schedulers/9000/shifts", {"startTime": 1}),
        ("/scheduler/v1/schedulers/9000/shifts", {**WINDOW, "limit": 501}),
        ("/scheduler/v1/schedulers/9000/shifts", {**WINDOW, "sort": "title"}),
    ],
)
def test_invalid_parameters_are_422_validation_errors(server, path, params):
    response = get(server, path, params)
    assert response.status_code == 422
    validate(response.json(), {"$ref": "spec#/components/schemas/HTTPValidationError"})


DATES = {"startDate": "2026-11-01", "endDate": "2026-11-20"}


def query_of(path: str) -> dict[str, str | int]:
    """The required window of a listing: times for shifts and unavailabilities, dates for time
    clocks, time off, pay rates and daily sales."""
    params: dict[str, str | int] = (
        {**WINDOW} if "shifts" in path or "unavailabilities" in path else {}
    )
    if any(p in path for p in ("time-clocks/", "time-off", "pay-rates", "daily-sales")):
        params.update(DATES)
    return params


def concrete_paths(server, name: str) -> list[str]:
    """``name``'s path with its placeholders filled, once per record of its parent's listing
    (the registry's ``parent``, whose path the child's extends; the parent's last id field names
    the record), parents first."""
    stream = ENDPOINTS[name]
    if stream.parent is None:
        return [stream.path]
    parent = ENDPOINTS[stream.parent]
    assert stream.path.startswith(parent.path + "/{"), (name, stream.path, parent.path)
    rest = stream.path[len(parent.path) :]  # "/{packId}/assignments"
    placeholder = rest.split("}")[0] + "}"  # "/{packId}"
    out = []
    for parent_path in concrete_paths(server, stream.parent):
        listed = get(server, parent_path, query_of(parent_path)).json()["data"][parent.data_key]
        for record in listed:
            own = "/" + str(record[parent.primary_key[-1]])
            out.append(parent_path + rest.replace(placeholder, own, 1))
    return out


def test_limit_at_the_maximum_is_accepted(server):
    """Every listing answers its page maximum (``limit``) with 200, under one of its parents
    whose listing answers at all (a custom field that is no dropdown has no options)."""
    for name, endpoint in ENDPOINTS.items():
        answers = []
        for path in concrete_paths(server, name):
            params = {**query_of(path)}
            if endpoint.max_limit:
                params["limit"] = endpoint.max_limit
            answers.append(get(server, path, params).status_code)
            if answers[-1] == 200:
                break
        assert answers and answers[-1] == 200, (name, answers)


def test_authentication_api_key_and_oauth_scopes(server):
    assert get(server, "/users/v1/users", headers={}).status_code == 401
    assert get(server, "/users/v1/users", headers={"X-API-KEY": "wrong"}).status_code == 401
    token_url = server.url + "/oauth/v1/token"
    bad = httpx.post(
        token_url, auth=("emulator-client", "nope"), data={"grant_type": "client_credentials"}
    )
    assert bad.status_code == 401
    wide = httpx.post(
        token_url,
        auth=("emulator-client", "emulator-secret"),
        data={"grant_type": "client_credentials", "scope": "users.read chat.write"},
    )
    assert wide.status_code == 403
    narrow = httpx.post(
        token_url,
        auth=("emulator-client", "emulator-secret"),
        data={"grant_type": "client_credentials", "scope": "users.read"},
    )
    assert narrow.status_code == 200
    token = narrow.json()
    validate(token, response_schema("/oauth/v1/token", "post"))
    assert token["token_type"] == "Bearer" and token["expires_in"] == 86_400
    bearer = {"Authorization": f"Bearer {token['access_token']}"}
    assert get(server, "/users/v1/users", headers=bearer).status_code == 200
    assert get(server, "/forms/v1/forms", headers=bearer).status_code == 403
    assert (
        get(server, "/forms/v1/forms", headers={"Authorization": "Bearer nope"}).status_code == 401
    )


def test_budget_exceeded_answers_429_with_headers(start_emulator):
    server = start_emulator(users=5, minute_limit=3, window_seconds=30)
    answers = [get(server, "/users/v1/users") for _ in range(7)]
    # grouped by the window each answer says it counts in (a burst may straddle a boundary)
    windows: dict[str, list[int]] = {}
    for answer in answers:
        windows.setdefault(answer.headers["x-ratelimit-minute-reset"], []).append(
            answer.status_code
        )
    assert len(windows) <= 2
    for statuses in windows.values():
        assert statuses[:3] == [200] * len(statuses[:3])  # the budget first...
        assert set(statuses[3:]) <= {429}  # ...then 429 for the rest of the window
    assert any(429 in statuses for statuses in windows.values())  # 7 > 2 x 3
    last = next(a for a in reversed(answers) if a.status_code == 429)
    assert last.headers["x-ratelimit-minute-remaining"] == "0"
    assert int(last.headers["x-ratelimit-minute-reset"]) % 30 == 0


def test_latency_option_delays_answers(start_emulator):
    server = start_emulator(users=5, latency=0.2)
    response = get(server, "/users/v1/users")
    assert response.status_code == 200
    assert response.elapsed.total_seconds() >= 0.2


def test_fault_mode_gives_each_kind_of_fault(start_emulator):
    server = start_emulator(users=5, fault_rate=0.6, fault_seed=3)
    outcomes = set()
    with httpx.Client() as client:
        for _ in range(60):
            try:
                outcomes.add(
                    client.get(
                        server.url + "/users/v1/users", headers={"X-API-KEY": API_KEY}
                    ).status_code
                )
            except httpx.TransportError:
                outcomes.add("dropped")
    assert {200, 429, 500, 503, "dropped"} <= outcomes
