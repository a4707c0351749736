"""The emulator's spec data mode: every record drawn from the provider's own JSON schemas.

Our tidy generated data (:mod:`emulator.data`) is our reading of the spec; the provider may send
anything the spec allows. In this mode (``EmulatorConfig(data="spec")``, ``wfm-sync emulator
--data spec``) every record of every endpoint the sync reads, and every webhook body, comes from
its schema in ``tests/data/connecteam-openapi.json`` through hypothesis-jsonschema
(:mod:`emulator.spec_schemas`): optional fields absent, nullable fields null, empty and non-ASCII
strings, any integer or float the schema allows. On top of that a seeded share of values is made
wilder than the spec (:class:`SpecData` ``_wild``): unknown enum values, strings that are not
dates or not timezones where those are expected (``""`` included), integers beyond 64 bits, below
the spec's ``minimum`` or extreme floats, and extra fields the spec does not name (``extraCode``
is an integer in some records and a string in others).

Only what the emulator itself needs to serve a record, and the sync to load it, stays valid
("structural" fields): keys are unique and parents' ids match, the times the endpoints filter or
sort on lie inside the windows a sync with default settings asks for (relative to the anchor),
time-off statuses are the ones the endpoint filters by. See
:func:`emulator.spec_account.spec_account`.

Speed: hypothesis draws a pool of distinct values per schema (:func:`pool_size` of them, once per
process and seed); each pooled value is made wild once (a :class:`Template`), and the N records
of a stream are assembled from templates: a random base template's properties, each property
taken from another random template now and then, structural fields set over them. Records share
the nested values of their templates (never mutated: :meth:`Dataset.mutate
<emulator.data.Dataset.mutate>` only sets top-level fields).

Determinism: the same ``(seed, anchor, sizes, spec_width)`` always gives the same records and
manifest, in any process: pools are drawn with choices from a ``random.Random`` seeded by the
pool's name and the account's seed (:func:`emulator.spec_schemas.draw_pool`), everything else
comes from ``random.Random`` instances seeded by the account's seed.

The manifest (:attr:`SpecData.manifest`, served as ``Dataset.spec_manifest``): one entry per value
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
  1..9999 (:data:`EPOCHS`), so no timestamp (hypothesis draws any integer there);
* ``type_varies``: the extra field ``extraCode``, an integer in some records and a string in
  others (one entry per record that has it);
* ``out_of_range``: a number of the declared type below the spec's ``minimum`` or above its
  ``maximum`` (typable; listed so a validation against the spec can leave it out);
* ``missing`` (webhook bodies only, :func:`spec_webhooks`): a field the schema requires, left
  out.

Valid values of every other kind (dates near the anchor, IANA timezones, enum members, integers
in int64, any float) are never listed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from .responses import json_bytes
from .spec_schemas import Leaf, draw_pool, resolved
from .spec_webhooks import catalogue, spec_webhook_payloads

DAY = 86_400
INT64 = (-(2**63), 2**63 - 1)
EPOCHS = (-62_135_596_800, 253_402_300_799)
"""Epoch seconds of 0001-01-01 and 9999-12-31 23:59:59 UTC: the times a timestamp can hold."""
POOL_MAX = {False: 160, True: 40}
"""Most values hypothesis draws per schema, by ``wide``: a wide record costs ~20 times more."""
POOL_MIN = 8
ODD = 0.06
"""Chance that an eligible value (date, timezone, enum, number) is made wild."""
MIX = 0.3
"""Chance that a record takes a property from another template than its base one."""
ZONES = ["America/New_York", "Europe/London", "Australia/Sydney", "Asia/Kolkata", "UTC"]
ODD_VALUES = {
    "date": ["", "2026-13-45", "not a date", "31/12/2026"],
    "datetime": ["", "2026-02-30T25:61:00Z", "yesterday"],
    "timezone": ["", "Zoë", "Mars/Olympus_Mons", "GMT+25"],
    "enum": ["brandNewValue", "", "nouveauStatut-é"],
}
BIG_INTS = [2**63, -(2**63) - 1, 10**30]
SMALL_INTS = [0, -1, -(2**31)]
ODD_FLOATS = [1e308, -1e-308, 0.0, -1e308]
EXTRA_NOTES = ["", "Grüße ☕", None, "x" * 200, "日本語のメモ"]

RECORDS = {
    "users": "User",
    "forms": "FormResponse",
    "schedulers": "SchedulerResponse",
    "shifts": "v2__features__shiftscheduler__external_api__v1__schedulers__scheduler__shifts__"
    "models__shift_response__ShiftResponse",
    "time_clocks": "TimeClock",
    "shifts_activity": "ShiftActivityResponse",
    "manual_breaks_activity": "ManualBreakActivityResponse",
    "time_offs_activity": "TimeOffActivityResponse",
    "timesheet_days": "DailyRecordResponse",
    "manual_breaks": "ManualBreakResponse",
    "form_submissions": "FormSubmissionResponse",
    "jobs": "BaseJobResponse",
    "policy_types": "TimeOffPolicyType",
    "time_off_requests": "TimeOffRequestCreateResponse",
    "task_boards": "TasksBoard",
    "tasks": "ResponseTask",
    "user_custom_field_definitions": "CustomFieldSettingsResponse",
    "pay_rates": "PayRateResponse",
    "pay_rule_policies": "PayRulePolicy",
    "balances": "TimeOffUserBalance",
    "unavailabilities": "SchedulerUnavailabilityResponse",
}
"""Record kind to the spec component its records follow (a timesheet answer's ``users[]`` item
is ``UserHoursSummaryResponse`` = ``{userId, dailyRecords: [DailyRecordResponse]}``; its days
are drawn, the summary is assembled)."""


def pool_size(needed: int, wide: bool) -> int:
    """Values to draw for a stream of ``needed`` records: all distinct while ``needed`` is
    small, at most :data:`POOL_MAX`."""
    return max(POOL_MIN, min(POOL_MAX[wide], needed))


@dataclass(frozen=True)
class Template:
    """A pooled value made wild once, ready to be copied into records.

    Attributes:
        value: The record (nested values shared by every record made from it: never mutate).
        odd: By top-level property: ``(path, kind)`` of each manifest-worthy value under it.
    """

    value: dict[str, Any]
    odd: dict[str, list[tuple[list[str], str]]]


@dataclass
class SpecData:
    """Builds spec-generated records of one account and their manifest.

    Args:
        seed: The account's seed.
        anchor: The emulator's "now" (UTC epoch seconds, a day's midnight).
        wide: Every property present, long strings and lists (:func:`strategy
            <emulator.spec_schemas.strategy>`).
    """

    seed: int
    anchor: int
    wide: bool = False
    manifest: list[dict[str, Any]] = field(default_factory=list)
    shifts_made: int = 0
    _templates: dict[str, list[Template]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"records:{self.seed}")
        self._wild_rng = random.Random(f"wild:{self.seed}")

    # -- records ---------------------------------------------------------------------------------

    def templates(self, kind: str, needed: int) -> list[Template]:
        """The templates of record kind ``kind`` (a :data:`RECORDS` key or a component name),
        drawn and made wild on first use."""
        if kind not in self._templates:
            component = RECORDS.get(kind, kind)
            pool = draw_pool(component, self.seed, self.wide, pool_size(needed, self.wide))
            self._templates[kind] = [self._template(v) for v in pool]
        return self._templates[kind]

    def record(
        self,
        kind: str,
        stream: str,
        key: Any,
        structural: dict[str, Any],
        needed: int = POOL_MIN,
        nested: dict[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """One record of ``kind`` assembled from templates, with the ``structural`` fields (and
        the ``nested`` ones: ``{"start": {"timestamp": ...}}``) set over it and the extra
        fields added; its wild values go to the manifest under ``stream`` and ``key``.
        ``needed`` sizes the pool (the records of this kind the account holds)."""
        rng, templates = self.rng, self.templates(kind, needed)
        base = templates[rng.randrange(len(templates))]
        nested = nested or {}
        record: dict[str, Any] = {}
        for prop, value in base.value.items():
            if prop in structural:
                continue
            source = base
            if rng.random() < MIX:
                other = templates[rng.randrange(len(templates))]
                if prop in other.value:
                    source, value = other, other.value[prop]
            inner = nested.get(prop)
            if inner is not None:
                value = {**(value if isinstance(value, dict) else {}), **inner}
            for path, odd_kind in source.odd.get(prop, ()):
                if inner is None or len(path) < 2 or path[1] not in inner:
                    self.note(stream, key, path, odd_kind)
            record[prop] = value
        for prop, inner in nested.items():
            record.setdefault(prop, dict(inner))
        record.update(structural)
        self._extra_fields(record, stream, key)
        return record

    def note(self, stream: str, key: Any, path: list[str], kind: str) -> None:
        """Add a manifest entry."""
        self.manifest.append({"stream": stream, "key": key, "path": path, "kind": kind})

    def _extra_fields(self, record: dict[str, Any], stream: str, key: Any) -> None:
        """Fields the spec does not name: ``extraCode`` (an int or a string by the record) and
        ``extraNote``."""
        rng = self.rng
        if rng.random() < 0.5:
            record["extraCode"] = rng.choice([7, "B-7"])
            self.note(stream, key, ["extraCode"], "type_varies")
        if rng.random() < 0.2:
            record["extraNote"] = rng.choice(EXTRA_NOTES)

    # -- the wildness ----------------------------------------------------------------------------

    def _template(self, drawn: Any) -> Template:
        odd: list[tuple[list[str], str]] = []
        value = self._wild(drawn, [], odd)
        if not isinstance(value, dict):
            value = {}
        by_prop: dict[str, list[tuple[list[str], str]]] = {}
        for path, kind in odd:
            by_prop.setdefault(path[0], []).append((path, kind))
        return Template(value, by_prop)

    def _wild(self, value: Any, path: list[str], odd: list[tuple[list[str], str]]) -> Any:
        """``value`` as drawn (with :class:`~emulator.spec_schemas.Leaf` markers), made wilder;
        each manifest-worthy value's ``(path, kind)`` appended to ``odd``."""
        if isinstance(value, Leaf):
            return self._wild_leaf(value, path, odd)
        if isinstance(value, dict):
            return {k: self._wild(v, [*path, k], odd) for k, v in value.items()}
        if isinstance(value, list):
            return [self._wild(v, [*path, str(i)], odd) for i, v in enumerate(value)]
        if _overflows(value):
            odd.append((path, "int64_overflow"))
        return value

    def _wild_leaf(self, leaf: Leaf, path: list[str], odd: list[tuple[list[str], str]]) -> Any:
        rng, kind = self._wild_rng, leaf.kind
        roll = rng.random()
        if kind in ("integer", "number", "epoch"):
            return self._wild_number(leaf, path, odd, roll)
        if roll < ODD:
            odd.append((path, kind))
            return rng.choice(ODD_VALUES[kind])
        if kind == "timezone":
            return rng.choice(ZONES)
        if kind in ("date", "datetime"):
            moment = datetime.fromtimestamp(self.anchor, UTC) + timedelta(
                days=rng.randint(-40, 60), seconds=rng.randint(0, DAY - 1)
            )
            return moment.isoformat() if kind == "datetime" else moment.date().isoformat()
        return leaf.value

    def _wild_number(
        self, leaf: Leaf, path: list[str], odd: list[tuple[list[str], str]], roll: float
    ) -> Any:
        value, rng = leaf.value, self._wild_rng
        if leaf.kind in ("integer", "epoch") and isinstance(value, int):
            if roll < ODD:
                value = rng.choice(BIG_INTS)
            elif roll < 2 * ODD:
                value = rng.choice(SMALL_INTS)
            if _overflows(value):
                odd.append((path, "int64_overflow"))
                return value
            if leaf.kind == "epoch" and not EPOCHS[0] <= value <= EPOCHS[1]:
                odd.append((path, "epoch"))
                return value
        elif roll < ODD:
            value = rng.choice(ODD_FLOATS)
        if (leaf.low is not None and value < leaf.low) or (
            leaf.high is not None and value > leaf.high
        ):
            odd.append((path, "out_of_range"))
        return value

    # -- structural values -----------------------------------------------------------------------

    def slot_id(self) -> str:
        """A new V1 shift slot id ``<24 hex>:<uuid>``, the hex part counting the ids made."""
        self.shifts_made += 1
        return f"{0x6784DACB0000000000000000 + self.shifts_made:024x}:{_uuid(self.rng)}"

    def moment(self, days_back: int, days_ahead: int) -> int:
        """A time in ``[anchor - days_back days, anchor + days_ahead days)``, epoch seconds."""
        return self.anchor + self.rng.randint(-days_back * DAY, days_ahead * DAY - 1)

    def day(self, days_back: int, days_ahead: int) -> date:
        """A UTC date within ``anchor - days_back .. anchor + days_ahead`` days."""
        return datetime.fromtimestamp(self.moment(days_back, days_ahead), UTC).date()

    def shift(self, start: int, created: int, needed: int) -> dict[str, Any]:
        """A new V1 shift row (a new :meth:`slot_id`) starting at ``start``, created at
        ``created`` (epoch seconds)."""
        rng, slot = self.rng, self.slot_id()
        end, updated = start + rng.randint(1, 12) * 3600, created + rng.randint(0, DAY)
        structural = {"id": slot, "startTime": start, "endTime": end, "creationTime": created,
                      "updateTime": updated}  # fmt: skip
        return self.record("shifts", "shifts", slot, structural, needed)


def _overflows(value: Any) -> bool:
    """Whether ``value`` is an integer outside int64."""
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not (INT64[0] <= value <= INT64[1])
    )


def _uuid(rng: random.Random) -> str:
    hexed = f"{rng.getrandbits(128):032x}"
    return f"{hexed[:8]}-{hexed[8:12]}-4{hexed[13:16]}-a{hexed[17:20]}-{hexed[20:]}"


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
            if _overflows(stamp):
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
