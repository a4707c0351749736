"""Records drawn from the provider's JSON schemas and made wilder than the spec: the machinery
of the spec data mode (:mod:`emulator.spec_data`, which says what the mode does, how fast and
how repeatable it is, and what its manifest lists).

:class:`SpecData` draws a pool of values per schema (:func:`emulator.spec_schemas.draw_pool`),
makes each wild once (a :class:`Template`: unknown enum values, strings that are not dates or
timezones, integers beyond 64 bits or below the spec's ``minimum``, extreme floats) and
assembles records from the templates with the caller's structural fields set over them; every
deliberately unfit value goes to its manifest. Times are UTC epoch seconds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from .spec_schemas import Leaf, draw_pool

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
}
"""Record kind to the spec component its records follow, for the core streams (a timesheet
answer's ``users[]`` item is ``UserHoursSummaryResponse`` = ``{userId, dailyRecords:
[DailyRecordResponse]}``; its days are drawn, the summary is assembled). The stream domains
(:mod:`emulator.domains`) name their components as the kind instead."""


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
        if overflows(value):
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
            if overflows(value):
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


def overflows(value: Any) -> bool:
    """Whether ``value`` is an integer outside int64."""
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not (INT64[0] <= value <= INT64[1])
    )


def _uuid(rng: random.Random) -> str:
    hexed = f"{rng.getrandbits(128):032x}"
    return f"{hexed[:8]}-{hexed[8:12]}-4{hexed[13:16]}-a{hexed[17:20]}-{hexed[20:]}"
