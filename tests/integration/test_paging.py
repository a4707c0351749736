"""Request counts of the provider's paging rule, measured at the emulator (a real HTTP server)."""

from __future__ import annotations

import math

import pytest
from conftest import API_KEY

from sources.connecteam import ConnecteamClient
from sources.connecteam.registry import STREAMS, Stream

USERS, FORMS, SHIFTS = STREAMS["users"], STREAMS["forms"], STREAMS["shifts"]

CASES = [(USERS, "users"), (FORMS, "forms"), (SHIFTS, "shifts")]


def sizes(limit: int) -> list[int]:
    return [0, limit - 1, limit, limit + 1, 2 * limit]


def fetch_all(url: str, endpoint: Stream) -> tuple[int, int]:
    """(records, requests) of one full listing through the client."""
    params: dict[str, object] = {}
    path_params: dict[str, object] = {}
    if endpoint is USERS:
        params = {"userStatus": "all"}
    if endpoint is SHIFTS:
        params = {"startTime": 1, "endTime": 4_000_000_000}
        path_params = {"schedulerId": 9000}
    with ConnecteamClient(url, api_key=API_KEY) as client:
        records = sum(len(p) for p in client.paginate(endpoint, params, path_params))
        return records, client.stats.total_requests


def config_for(endpoint: Stream, n: int) -> dict[str, int]:
    return {
        "users": n if endpoint is USERS else 5,
        "forms": n if endpoint is FORMS else 1,
        "schedulers": 1,
        "shifts": n if endpoint is SHIFTS else 0,
    }


@pytest.mark.parametrize(("endpoint", "name"), CASES)
def test_requests_equal_floor_n_over_l_plus_one(start_emulator, endpoint, name):
    limit = endpoint.max_limit
    for n in sizes(limit):
        server = start_emulator(**config_for(endpoint, n))
        records, requests = fetch_all(server.url, endpoint)
        assert records == n
        assert requests == n // limit + 1, f"{name}: N={n} L={limit}"
        assert server.stats()["total"] == requests  # counted by the server, not only the client


@pytest.mark.parametrize(("endpoint", "name"), CASES)
def test_total_saves_the_last_request(start_emulator, endpoint, name):
    limit = endpoint.max_limit
    for n in sizes(limit):
        server = start_emulator(paging_total=True, **config_for(endpoint, n))
        records, requests = fetch_all(server.url, endpoint)
        assert records == n
        assert requests == max(1, math.ceil(n / limit)), f"{name}: N={n} L={limit}"
        assert server.stats()["total"] == requests
        if n and n % limit == 0:
            assert requests < n // limit + 1


def test_page_size_is_the_spec_maximum(start_emulator):
    server = start_emulator(users=1200)
    with ConnecteamClient(server.url, api_key=API_KEY) as client:
        pages = [len(p) for p in client.paginate(USERS, {"userStatus": "all"})]
    assert pages == [500, 500, 200]
