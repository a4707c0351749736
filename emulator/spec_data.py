"""The emulator's spec data mode: every record drawn from the provider's own JSON schemas.

Our tidy generated data (:mod:`emulator.data`) is our reading of the spec; the provider may send
anything the spec allows. In this mode (``EmulatorConfig(data="spec")``, ``wfm-sync emulator
--data spec``) every record of every endpoint the sync reads, and every webhook body, comes from
its schema in ``sources/connecteam/spec/connecteam-openapi.json`` through hypothesis-jsonschema
(:mod:`emulator.spec_schemas`): optional fields absent, nullable fields null, empty and non-ASCII
strings, any integer or float the schema allows. On top of that a seeded share of values is made
wilder than the spec (:class:`~emulator.spec_records.SpecData`): unknown enum values, strings
that are not dates or not timezones where those are expected (``""`` included), integers beyond
64 bits, below the spec's ``minimum`` or extreme floats, and extra fields the spec does not name
(``extraCode`` is an integer in some records and a string in others).

Only what the emulator itself needs to serve a record, and the sync to load it, stays valid
("structural" fields): keys are unique and parents' ids match, the times the endpoints filter or
sort on lie inside the windows a sync with default settings asks for (relative to the anchor),
time-off statuses are the ones the endpoint filters by. See
:func:`emulator.spec_account.spec_account`.

Speed: hypothesis draws a pool of distinct values per schema
(:func:`~emulator.spec_records.pool_size` of them, once per process and seed); each pooled value
is made wild once (a :class:`~emulator.spec_records.Template`), and the N records
of a stream are assembled from templates: a random base template's properties, each property
taken from another random template now and then, structural fields set over them. Records share
the nested values of their templates (never mutated: :meth:`Dataset.mutate
<emulator.data.Dataset.mutate>` only sets top-level fields).

Determinism: the same ``(seed, anchor, sizes, spec_width)`` always gives the same records and
manifest, in any process: pools are drawn with choices from a ``random.Random`` seeded by the
pool's name and the account's seed (:func:`emulator.spec_schemas.draw_pool`), everything else
comes from ``random.Random`` instances seeded by the account's seed.

The manifest (:attr:`SpecData.manifest <emulator.spec_records.SpecData.manifest>`, served as
``Dataset.spec_manifest``): one entry per value
the generator deliberately made unfit for what the spec declares for it, ``{"stream": <warehouse
table in dataset connecteam: users, forms, schedulers, shifts, user_documents, time_clocks,
time_activities, timesheets, form_submissions, jobs, time_off_requests, task_boards, tasks,
user_custom_field_definitions; or policy_types, which the sync does not read>, "key": <the
record's key as the warehouse keys it: userId, formId, schedulerId, the shift slot id, the
activity id, ``"<timeClockId>:<userId>:<date>"`` for a timesheet day, formSubmissionId, jobId (a
sub-job's own jobId, as sub-jobs are rows of their own), the time-off request id, the task,
board, clock or custom field id>, "path": [<provider field names from the record (the timesheet
day, the sub-job) down to the value; list positions as decimal strings>], "kind": <kind>}``.
Kinds, the first six untypable for the declared type or format:

* ``date``: a ``format: date`` string, or a string property named ``...Date``/``date``, that is
  not a ``YYYY-MM-DD`` date (``""``, ``"2026-13-45"``, ``"not a date"``, ``"31/12/2026"``);
* ``datetime``: the same for ``format: date-time`` (the spec has none today);
* ``timezone``: a string property named ``...timezone`` that is not an IANA name (``""``,
  ``"Zoë"``, ``"Mars/Olympus_Mons"``, ``"GMT+25"``);
* ``enum``: a string outside its ``enum``;
* ``int64_overflow``: an integer outside ``[-2**63, 2**63 - 1]`` (set on purpose or drawn);
* ``epoch``: an integer property the provider fills with epoch seconds (named like
  ``createdAt``, ``startTime``, ``timestamp``, ``dueDate``, ``lastLogin``:
  :data:`emulator.spec_schemas.EPOCH_NAME`) holding a value within int64 but outside years
  1..9999 (:data:`~emulator.spec_records.EPOCHS`), so no timestamp (hypothesis draws any
  integer there);
* ``type_varies``: the extra field ``extraCode``, an integer in some records and a string in
  others (one entry per record that has it);
* ``out_of_range``: a number of the declared type below the spec's ``minimum`` or above its
  ``maximum`` (typable; listed so a validation against the spec can leave it out);
* ``missing`` (webhook bodies only, :func:`spec_webhooks`): a field the schema requires, left
  out.

Valid values of every other kind (dates near the anchor, IANA timezones, enum members, integers
in int64, any float) are never listed.

This module draws the webhook bodies (:func:`spec_webhooks`); the records come from
:mod:`emulator.spec_records`, assembled into an account by :mod:`emulator.spec_account`.
"""

from __future__ import annotations

import math
from typing import Any

from .responses import json_bytes
from .spec_records import BIG_INTS, SpecData, overflows
from .spec_schemas import resolved
from .spec_webhooks import catalogue, spec_webhook_payloads

__all__ = ["spec_webhook_bodies", "spec_webhooks", "webhook_components"]


# -- webhooks --------------------------------------------------------------------------------------


def webhook_components() -> list[str]:
    """The payload component of every webhook the spec publishes, in spec order."""
    return [component for _, component in spec_webhook_payloads()]


def spec_webhooks(
    count: int, seed: int, anchor: int | None = None
) -> tuple[list[tuple[bytes, str | None, str | None]], list[dict[str, Any]]]:
    """``count`` webhook bodies drawn from the spec's 41 payload schemas (each in turn), made
    wild like the API's records, each with a unique ``requestId`` (``spec-<seed>-<i>``). The spec
    leaves ``eventType`` a free string: 85% of bodies carry the ``eventType`` of their webhook
    (:func:`emulator.spec_webhooks.catalogue`, by title), 5% ``brand_new_event``, the
    rest whatever was drawn (absent included). One in twenty has an implausible
    ``eventTimestamp`` (negative, 1.5e18, beyond 64 bits), one in twenty lacks a field its
    schema requires. ``anchor`` (UTC epoch seconds) places the dates.

    Returns:
        The bodies as :func:`emulator.webhooks.send_burst` takes them: ``(body, requestId,
        family)``, the family of a catalogued ``eventType``, else ``None``; and their manifest
        (as :mod:`this module's <emulator.spec_data>`, stream ``webhooks``, key the
        ``requestId``; an ``eventType`` the catalogue does not know is listed as ``enum``, a
        required field left out as ``missing``).
    """
    gen = SpecData(seed, anchor if anchor is not None else 1_795_132_800)
    rng = gen.rng
    payloads = spec_webhook_payloads()
    events = catalogue()
    by_title = {event.title: event.event_type for event in events.values()}
    per_schema = math.ceil(count / len(payloads)) if payloads else 0
    bodies: list[tuple[bytes, str | None, str | None]] = []
    for i in range(count):
        key = f"spec-{seed}-{i}"
        title, component = payloads[i % len(payloads)]
        mark = len(gen.manifest)
        body = gen.record(component, "webhooks", key, {"requestId": key}, per_schema)
        _unique_item_keys(gen, body, mark)
        roll = rng.random()
        if roll < 0.05:
            body["eventType"] = "brand_new_event"
        elif roll < 0.9 and title in by_title:
            body["eventType"] = by_title[title]
        if body.get("eventType") not in events:
            gen.note("webhooks", key, ["eventType"], "enum")
        if rng.random() < 0.05:
            body["eventTimestamp"] = stamp = rng.choice([-5, 1.5e18, *BIG_INTS])
            if overflows(stamp):
                gen.note("webhooks", key, ["eventTimestamp"], "int64_overflow")
        required = [f for f in resolved(component).get("required", []) if f != "requestId"]
        if required and rng.random() < 0.05:
            missing = rng.choice(required)
            body.pop(missing, None)
            gen.manifest[mark:] = [e for e in gen.manifest[mark:] if e["path"][0] != missing]
            gen.note("webhooks", key, [missing], "missing")
        event = events.get(body["eventType"]) if isinstance(body.get("eventType"), str) else None
        bodies.append((json_bytes(body), key, event.family if event else None))
    return bodies, gen.manifest


def _unique_item_keys(gen: SpecData, body: dict[str, Any], mark: int) -> None:
    """Make the keys of the items one webhook body lists unique, as the provider's are (the spec
    leaves them free strings or integers): ``data.shifts[].id`` and ``data.ids[]`` become new
    slot ids, ``data[].userId`` 1000, 1001, ...; manifest entries (from ``mark`` on) about the
    replaced values are dropped. Nested values are shared with templates: copied, not changed."""
    data, replaced = body.get("data"), set[tuple[str, ...]]()
    if isinstance(data, dict):
        data = dict(data)
        if isinstance(data.get("shifts"), list):
            data["shifts"] = [{**item, "id": gen.slot_id()} if isinstance(item, dict) else item
                              for item in data["shifts"]]  # fmt: skip
            replaced |= {("data", "shifts", str(i), "id") for i in range(len(data["shifts"]))}
        if isinstance(data.get("ids"), list):
            data["ids"] = [gen.slot_id() for _ in data["ids"]]
            replaced |= {("data", "ids", str(i)) for i in range(len(data["ids"]))}
    elif isinstance(data, list):
        data = [{**item, "userId": 1000 + i} if isinstance(item, dict) and "userId" in item
                else item for i, item in enumerate(data)]  # fmt: skip
        replaced |= {("data", str(i), "userId") for i in range(len(data))}
    if "data" in body:
        body["data"] = data
    gen.manifest[mark:] = [e for e in gen.manifest[mark:] if tuple(e["path"]) not in replaced]


def spec_webhook_bodies(
    count: int, seed: int, anchor: int | None = None
) -> list[tuple[bytes, str | None, str | None]]:
    """The bodies of :func:`spec_webhooks` (without their manifest)."""
    return spec_webhooks(count, seed, anchor)[0]
