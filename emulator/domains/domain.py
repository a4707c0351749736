"""The one object each domain package exports (:class:`Domain`), and :func:`records_of`, the
typed read of a domain's records from an account."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import FastAPI

from ..protocols import Account, Server
from ..spec_records import SpecData

T = TypeVar("T")


@dataclass(frozen=True)
class Domain:
    """A stream domain of the emulator: its routes, and how its records are made.

    Attributes:
        name: The package's name (``emulator/domains/<name>/``); the key of its records in
            ``account.domains``.
        order: Place among the domains (ties by name): the app registers their routes, and the
            spec data mode draws their records, in this order. The spec steps share one random
            stream, so the order is part of what a seed gives; a new domain takes a number
            after the others'.
        add_routes: Registers the domain's endpoints on the app, reading the running
            emulator's state (``add_routes(app, state)``); what it returns is ignored.
        tidy: The tidy account's records of the domain, made from the account's core records
            and ``anchor`` (UTC epoch seconds, a day's midnight): ``tidy(account, anchor)``;
            ``None``: the domain holds no records.
        spec: The spec data mode's records of the domain, drawn by ``gen`` from the spec's
            schemas over the account's core records: ``spec(gen, account)``; ``None``: the
            domain holds no records.
        listed: What the domain's listings hold, ``listed(account) -> {stream: [record]}``:
            by stream (the name the sync gives the endpoint's table), every record a full
            listing serves, as served, with the path parameters it is listed under added
            (``{"packId": 5100, **assignment}``). The tests check that the routes serve each
            exactly once; ``None``: the domain lists nothing.
    """

    name: str
    order: int
    add_routes: Callable[[FastAPI, Server], object]
    tidy: Callable[[Account, int], object] | None = None
    spec: Callable[[SpecData, Account], object] | None = None
    listed: Callable[[Account], dict[str, list[dict[str, Any]]]] | None = None


def records_of(account: Account, name: str, kind: type[T]) -> T:
    """The records of domain ``name`` in ``account``, of type ``kind``.

    Raises:
        KeyError: The account holds no records of ``name``.
        TypeError: Its records are not a ``kind``.
    """
    found = account.domains[name]
    if not isinstance(found, kind):
        raise TypeError(f"domain {name!r} holds a {type(found).__name__}, not a {kind.__name__}")
    return found
