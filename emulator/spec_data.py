"""The emulator's spec data mode: every record drawn from the provider's own JSON schemas.

Our tidy generated data (:mod:`emulator.data`) is our reading of the spec; the provider may send
anything the spec allows. In this mode (``EmulatorConfig(data="spec")``, ``wfm-sync emulator
--data spec``) each endpoint's records come from its response schema in
``tests/data/connecteam-openapi.json`` through hypothesis-jsonschema: optional fields absent,
nullable fields null, empty and non-ASCII strings, extreme integers and floats. On top of what the
schema allows, a seeded share of values is made wilder: unknown enum values, strings that are not
dates or timezones where those are expected, integers beyond 64 bits, and extra fields the spec
does not name (one of them an integer in some records and a string in others).

Only what the emulator itself needs to serve a record stays valid ("structural" fields): keys are
unique (and parents' ids match), the times the endpoints filter on lie inside the windows a sync
asks for, and time-off statuses are the ones the endpoint filters by.

Generation is deterministic for (seed, anchor, sizes, width): hypothesis draws a pool of records
per schema with a fixed seed (:data:`POOL_SEED`), then records are picked from the pool and
altered with a :class:`random.Random` of the account's seed. ``spec_width="wide"`` makes every
property of the schema present, with longer strings and lists, to measure memory on the widest
records.

:attr:`SpecData.manifest` lists every value made deliberately untypable: ``{"stream": <raw
table>, "key": <the record's key as the warehouse keys it>, "path": [<provider field names>],
"kind": "date" | "datetime" | "timezone" | "enum" | "int64_overflow"}``.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

SPEC_PATH = Path(__file__).resolve().parents[1] / "tests" / "data" / "connecteam-openapi.json"
DAY = 86_400
POOL = 12
"""Records hypothesis draws per record schema; records are picked from this pool and altered."""
WEBHOOK_POOL = 4
"""Bodies hypothesis draws per webhook payload schema (41 of them)."""
POOL_SEED = 20_261_123
"""hypothesis's seed for the pools: drawing is the slow part (about a minute for every schema),
so every account seed shares the pools of one process; the account's own seed picks from them
and alters each pick (:meth:`SpecData.record`)."""
ODD = 0.06
"""Share of eligible values made untypable (dates, timezones, enums, integers)."""
ZONES = ["America/New_York", "Europe/London", "Australia/Sydney", "Asia/Kolkata", "UTC"]
ODD_DATES = ["", "2026-13-45", "not a date", "31/12/2026"]
ODD_ZONES = ["", "Zoë", "Mars/Olympus_Mons", "GMT+25"]
BIG_INTS = [2**63, -(2**63) - 1, 10**30]
_DROP = {"discriminator", "format", "example", "examples", "title", "description", "default",
         "deprecated", "readOnly", "writeOnly", "pattern"}  # fmt: skip

SCHEMAS = {
    "users": "User",
    "forms": "FormResponse",
    "schedulers": "SchedulerResponse",
    "shifts": "v2__features__shiftscheduler__external_api__v1__schedulers__scheduler__shifts__"
    "models__shift_response__ShiftResponse",
    "time_clocks": "TimeClock",
    "shift_activity": "ShiftActivityResponse",
    "manual_break": "ManualBreakActivityResponse",
    "time_off_activity": "TimeOffActivityResponse",
    "timesheets": "UserHoursSummaryResponse",
    "form_submissions": "FormSubmissionResponse",
    "jobs": "BaseJobResponse",
    "time_off_requests": "TimeOffRequestCreateResponse",
    "task_boards": "TasksBoard",
    "tasks": "ResponseTask",
    "user_custom_field_definitions": "CustomFieldSettingsResponse",
}
"""Pool name to the spec component its records follow."""


@functools.cache
def spec() -> dict[str, Any]:
    """The provider's OpenAPI document."""
    loaded: dict[str, Any] = json.loads(SPEC_PATH.read_text())
    return loaded


def component(name: str) -> dict[str, Any]:
    """A component schema as published (``$ref``s unresolved)."""
    schema: dict[str, Any] = spec()["components"]["schemas"][name]
    return schema


def resolve(schema: Any, wide: bool = False, depth: int = 0) -> Any:
    """``schema`` with every ``$ref`` inlined (cut at depth 6), documentation keywords and
    ``format``/``pattern`` dropped (their values are set by :class:`SpecData`), no extra
    properties (added later, with readable names), arrays of at most 3 items (``wide``: all
    properties required, 3..5 items, strings of 24+ characters)."""
    if isinstance(schema, list):
        return [resolve(item, wide, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        if depth > 6:
            return {"type": "null"}
        return resolve(component(schema["$ref"].rsplit("/", 1)[-1]), wide, depth + 1)
    out = {k: resolve(v, wide, depth) for k, v in schema.items() if k not in _DROP}
    if "properties" in out:
        out["additionalProperties"] = False
        if wide:
            out["required"] = sorted(out["properties"])
    if out.get("type") == "array":
        out["maxItems"] = min(int(out.get("maxItems", 5 if wide else 3)), 5 if wide else 3)
        if wide:
            out["minItems"] = max(int(out.get("minItems", 0)), min(3, out["maxItems"]))
    if out.get("type") == "string" and wide and "enum" not in out and "const" not in out:
        out["minLength"] = max(int(out.get("minLength", 0)), 24)
        out["maxLength"] = max(int(out.get("maxLength", 0)), 64)
    return out


@functools.cache
def _resolved(name: str, wide: bool) -> dict[str, Any]:
    """The resolved schema of pool ``name`` (read only; shared)."""
    schema: dict[str, Any] = resolve(component(SCHEMAS.get(name, name)), wide)
    return schema


def draw_pool(name: str, seed: int, wide: bool, size: int = POOL) -> list[dict[str, Any]]:
    """``size`` records of schema ``SCHEMAS[name]`` (or of the component ``name``) drawn by
    hypothesis-jsonschema, the same for the same arguments (a fixed seed, no example
    database)."""
    return list(_draw_pool(name, seed, wide, size))


@functools.cache
def _draw_pool(name: str, seed: int, wide: bool, size: int) -> tuple[dict[str, Any], ...]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st
    from hypothesis_jsonschema import from_schema

    drawn: list[dict[str, Any]] = []
    schema = _resolved(name, wide)

    @settings(max_examples=size, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @hypothesis_seed(seed)
    @given(from_schema(schema).filter(lambda v: isinstance(v, dict)) | st.just({}))
    def collect(record: dict[str, Any]) -> None:
        if len(drawn) < size:
            drawn.append(record)

    collect()
    return tuple(drawn or [{}])


@dataclass
class SpecData:
    """Builds spec-generated records for one account.

    Args:
        seed: Seed of the draws.
        anchor: The emulator's "now" (UTC epoch seconds, a day's midnight).
        wide: Every property present (see :func:`resolve`).
    """

    seed: int
    anchor: int
    wide: bool = False
    manifest: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed * 104_729 + 7)

    def record(
        self, name: str, stream: str, structural: dict[str, Any], key: Any | None = None
    ) -> dict[str, Any]:
        """One record of pool ``name``: a pooled draw, altered (see the module doc), then the
        ``structural`` fields set over it. ``key`` (default the structural id) names the record
        in the manifest under ``stream``."""
        size = POOL if name in SCHEMAS else WEBHOOK_POOL
        base = copy.deepcopy(self.rng.choice(draw_pool(name, POOL_SEED, False, size)))
        schema = _resolved(name, False)
        if self.wide:
            _widen(base, schema, self.rng)
        entries: list[tuple[list[str], str]] = []
        self._alter(base, schema, [], entries, set(structural))
        base.update(structural)
        if key is None:
            key = next(iter(structural.values()), None)
        self.manifest += [{"stream": stream, "key": key, "path": p, "kind": k} for p, k in entries]
        return base

    # -- the wildness ----------------------------------------------------------------------------

    def _alter(
        self,
        value: Any,
        schema: dict[str, Any],
        path: list[str],
        entries: list[tuple[list[str], str]],
        skip: set[str],
    ) -> Any:
        """Make ``value`` (drawn from ``schema``) wilder in place; return the new value."""
        schema = _branch(schema, value)
        original = _original_schema(path, schema)
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            for name in list(value):
                if not path and name in skip:
                    continue
                value[name] = self._alter(
                    value[name], properties.get(name, {}), [*path, name], entries, skip
                )
            if not path:
                self._extra_fields(value)
            return value
        if isinstance(value, list):
            items = schema.get("items", {})
            return [self._alter(v, items, [*path, str(i)], entries, skip)
                    for i, v in enumerate(value)]  # fmt: skip
        name = path[-1].lower() if path else ""
        roll = self.rng.random()
        if isinstance(value, str) or schema.get("type") == "string":
            kind = original.get("format") or ("timezone" if "timezone" in name else None)
            if kind in ("date", "date-time") or name.endswith("date"):
                if roll < ODD:
                    entries.append((path, "datetime" if kind == "date-time" else "date"))
                    return self.rng.choice(ODD_DATES)
                return self._date(kind == "date-time")
            if kind == "timezone":
                if roll < ODD:
                    entries.append((path, "timezone"))
                    return self.rng.choice(ODD_ZONES)
                return self.rng.choice(ZONES)
            if "enum" in schema and roll < ODD:
                entries.append((path, "enum"))
                return "brandNewValue"
            return value
        if isinstance(value, int) and not isinstance(value, bool) and roll < ODD:
            entries.append((path, "int64_overflow"))
            return self.rng.choice(BIG_INTS)
        if isinstance(value, float) and roll < ODD:
            return self.rng.choice([1e308, -1e-308, 0.0])
        return value

    def _extra_fields(self, record: dict[str, Any]) -> None:
        """Fields the spec does not name; ``extraCode`` is an int or a string by the record."""
        if self.rng.random() < 0.5:
            record["extraCode"] = self.rng.choice([7, "B-7"])
        if self.rng.random() < 0.2:
            record["extraNote"] = self.rng.choice(["", "Grüße ☕", None, "x" * 200])

    def _date(self, with_time: bool) -> str:
        moment = datetime.fromtimestamp(self.anchor, UTC) + timedelta(
            days=self.rng.randint(-40, 60), seconds=self.rng.randint(0, DAY - 1)
        )
        return moment.isoformat() if with_time else moment.date().isoformat()

    # -- structural values -----------------------------------------------------------------------

    def moment(self, days_back: int, days_ahead: int) -> int:
        """A time within ``[anchor - days_back, anchor + days_ahead)`` days, epoch seconds."""
        return self.anchor + self.rng.randint(-days_back * DAY, days_ahead * DAY - 1)

    def day(self, days_back: int, days_ahead: int) -> date:
        """A UTC date within ``anchor - days_back .. anchor + days_ahead`` days."""
        return datetime.fromtimestamp(self.moment(days_back, days_ahead), UTC).date()


def _widen(value: Any, schema: dict[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """``value`` with every property its schema names present (filled by type: strings of 24 to
    64 characters, lists of 3 items), recursively: the widest record the spec allows, built
    without asking hypothesis for it (which takes minutes per schema)."""
    schema = _branch(schema, value)
    if isinstance(value, dict):
        for name, prop in (schema.get("properties") or {}).items():
            if name not in value or value[name] is None:
                value[name] = _filler(prop, rng, depth + 1)
            else:
                value[name] = _widen(value[name], prop, rng, depth + 1)
        return value
    if isinstance(value, list) and depth < 6:
        items = schema.get("items") or {}
        while len(value) < 3:
            value.append(_filler(items, rng, depth + 1))
        return [_widen(v, items, rng, depth + 1) for v in value]
    return value


def _filler(schema: dict[str, Any], rng: random.Random, depth: int) -> Any:
    """A value of ``schema``'s type for :func:`_widen`."""
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        typed = [o for o in options if o.get("type") != "null"] or options
        schema = typed[0]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return _widen({}, schema, rng, depth) if depth < 6 else {}
    if kind == "array":
        return _widen([], schema, rng, depth) if depth < 6 else []
    if kind == "integer":
        return rng.randint(0, 2**31)
    if kind == "number":
        return rng.random() * 1000
    if kind == "boolean":
        return rng.random() < 0.5
    return rng.choice(_FILLER_TEXT)


_FILLER_TEXT = [
    "".join(random.Random(n).choice("aäbçdéfğhıjkłmñoøpqrśtüvwxyz 日本語") for _ in range(24 + n))
    for n in range(41)
]
"""Strings of 24 to 64 characters (non-ASCII among them) that :func:`_filler` picks from."""


def _branch(schema: dict[str, Any], value: Any) -> dict[str, Any]:
    """The ``anyOf``/``oneOf`` branch of ``schema`` that ``value`` was drawn from (best guess
    by JSON type)."""
    for keyword in ("anyOf", "oneOf"):
        for option in schema.get(keyword, []):
            kind = option.get("type")
            if (
                (isinstance(value, dict) and (kind == "object" or "properties" in option))
                or (isinstance(value, list) and kind == "array")
                or (isinstance(value, str) and kind == "string")
                or (isinstance(value, bool) and kind == "boolean")
                or (isinstance(value, int | float) and kind in ("integer", "number"))
            ):
                return dict(option)
    return schema


def _original_schema(path: list[str], resolved: dict[str, Any]) -> dict[str, Any]:
    """The published schema of a leaf: only ``format`` is read from it, which :func:`resolve`
    drops; found by the field name among the components' properties."""
    if not path:
        return resolved
    return _formats().get(path[-1], resolved)


@functools.cache
def _formats() -> dict[str, dict[str, Any]]:
    """``{property name: {"format": ...}}`` for every property the spec gives a date, date-time
    or timezone format."""
    found: dict[str, dict[str, Any]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                if isinstance(prop, dict):
                    fmt = prop.get("format") or next(
                        (o.get("format") for o in prop.get("anyOf", []) if isinstance(o, dict)),
                        None,
                    )
                    if fmt in ("date", "date-time"):
                        found[name] = {"format": fmt}
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(spec()["components"]["schemas"])
    return found


def spec_dataset(config: Any) -> Any:
    """The :class:`~emulator.data.Dataset` of ``config`` (``data="spec"``), with
    :attr:`~emulator.data.Dataset.spec_manifest` filled."""
    from .data import Dataset
    from .operations_data import Operations

    anchor = config.resolved_anchor()
    gen = SpecData(config.seed, anchor, wide=config.spec_width == "wide")
    rng = gen.rng
    ds = Dataset(config=config, _rng=random.Random(config.seed + 1), _clock=anchor)
    for i in range(config.users):
        uid = 1000 + i
        ds.users[uid] = gen.record("users", "users", {
            "userId": uid, "isArchived": rng.random() < 0.08,
            "modifiedAt": anchor - rng.randint(DAY, 400 * DAY),
        })  # fmt: skip
    user_ids = list(ds.users) or [1]
    for i in range(config.forms):
        fid = 500 + i
        ds.forms[fid] = gen.record("forms", "forms", {
            "formId": fid, "lastUpdatedAt": anchor - rng.randint(DAY, 300 * DAY)})  # fmt: skip
    for i in range(config.schedulers):
        sid = 9000 + i
        ds.schedulers[sid] = gen.record("schedulers", "schedulers", {"schedulerId": sid})
        ds.shifts[sid] = []
    for n in range(config.shifts if ds.schedulers else 0):
        sid = 9000 + n % len(ds.schedulers)
        start = gen.moment(config.shift_days_back, config.shift_days_ahead)
        created = anchor - rng.randint(DAY, 60 * DAY)
        shift_id = f"{rng.getrandbits(96):024x}:{rng.getrandbits(64):016x}"
        ds.shifts[sid].append(gen.record("shifts", "shifts", {
            "id": shift_id, "startTime": start, "endTime": start + rng.randint(1, 12) * 3600,
            "creationTime": created, "updateTime": created + rng.randint(0, DAY),
        }))  # fmt: skip
    ds._clock = anchor
    for n in range(config.documents_fraction and config.users):
        doc: dict[str, Any] = {"id": 880_000 + n}
        extra = gen.record("users", "user_documents", {}, key=doc["id"]) if n % 3 == 0 else {}
        doc.update({k: v for k, v in extra.items() if rng.random() < 0.3})
        if n % 3 == 1:
            doc.update(userId=rng.choice(user_ids), documentId=7001, status="approved")
        ds.user_documents[doc["id"]] = doc
    ds.operations = _spec_operations(gen, config.operations, user_ids, list(ds.forms), Operations())
    ds.spec_manifest = gen.manifest
    return ds


def _spec_operations(
    gen: SpecData, config: Any, users: list[int], forms: list[int], ops: Any
) -> Any:
    """Fill ``ops`` (:class:`~emulator.operations_data.Operations`) from the spec's schemas."""
    rng, anchor = gen.rng, gen.anchor
    kinds = [("shifts", "shift_activity"), ("manualBreaks", "manual_break"),
             ("timeOffs", "time_off_activity")]  # fmt: skip
    for i in range(config.time_clocks):
        cid = 7100 + i
        ops.time_clocks[cid] = gen.record("time_clocks", "time_clocks", {"id": cid})
        ops.activities[cid] = []
        ops.spec_timesheets[cid] = []
    clocks = list(ops.time_clocks)
    for n in range(config.time_activities if clocks else 0):
        kind, pool = kinds[0] if n % 10 < 7 else kinds[1 + n % 2]
        activity_id = f"{rng.getrandbits(64):016x}"
        record = gen.record(pool, "time_activities", {"id": activity_id})
        start = record["start"] if isinstance(record.get("start"), dict) else {}
        record["start"] = {**start, "timestamp": gen.moment(30, 0)}
        ops.activities[clocks[n % len(clocks)]].append(
            {"userId": rng.choice(users), "kind": kind, "record": record}
        )
    for cid in clocks:
        for user in rng.sample(users, min(len(users), 6)):
            days = sorted({gen.day(30, 0).isoformat() for _ in range(rng.randint(1, 3))})
            summary = gen.record("timesheets", "timesheets", {"userId": user},
                                 key=f"{cid}:{user}")  # fmt: skip
            pooled = [r for r in summary.get("dailyRecords") or [] if isinstance(r, dict)]
            summary["dailyRecords"] = [
                {**(pooled[k % len(pooled)] if pooled else {}), "date": day}
                for k, day in enumerate(days)
            ]
            ops.spec_timesheets[cid].append(summary)
    for fid in forms:
        stamp = anchor - 200 * DAY
        ops.form_submissions[fid] = []
        for _ in range(config.form_submissions):
            stamp += rng.randint(60, DAY)
            sub_id = f"{rng.getrandbits(64):016x}"
            structural = {"formSubmissionId": sub_id, "formId": fid, "submissionTimestamp": stamp}
            ops.form_submissions[fid].append(
                gen.record("form_submissions", "form_submissions", structural)
            )
    for n in range(config.jobs):
        job = gen.record("jobs", "jobs", {"jobId": f"job-{n}"})
        subs = job["subJobs"] if isinstance(job.get("subJobs"), list) else []
        job["subJobs"] = [{**(s if isinstance(s, dict) else {}), "jobId": f"job-{n}-{k}"}
                          for k, s in enumerate(subs)]  # fmt: skip
        ops.jobs.append(job)
    for n in range(config.time_off_requests):
        first = gen.day(30, 150)
        ops.time_off_requests.append(gen.record("time_off_requests", "time_off_requests", {
            "id": f"to-{n}", "status": rng.choice(["approved", "pending", "denied"]),
            "startDate": first.isoformat(),
            "endDate": (first + timedelta(days=rng.randint(0, 5))).isoformat(),
        }))  # fmt: skip
    for b in range(config.task_boards):
        bid = 3100 + b
        ops.task_boards[bid] = gen.record("task_boards", "task_boards", {"id": bid})
        ops.tasks[bid] = [gen.record("tasks", "tasks", {"id": f"task-{bid}-{k}"})
                          for k in range(config.tasks)]  # fmt: skip
    ops.custom_fields = [
        gen.record(
            "user_custom_field_definitions", "user_custom_field_definitions", {"id": 900 + k}
        )
        for k in range(8 + config.extra_custom_fields)
    ]
    return ops


def webhook_components() -> list[str]:
    """The component schema of every webhook payload the spec publishes, in spec order."""
    names = []
    for operation in spec().get("webhooks", {}).values():
        answer = operation["post"]["responses"]["200"]["content"]["application/json"]["schema"]
        names.append(answer["$ref"].rsplit("/", 1)[-1])
    return names


def spec_webhook_bodies(
    count: int, seed: int, anchor: int | None = None
) -> list[tuple[bytes, str | None, str | None]]:
    """``count`` webhook bodies drawn from the spec's payload schemas (each of the 41 in turn),
    altered like the API's records, with a unique ``requestId`` each; one in twenty carries an
    unknown ``eventType`` and one in twenty an implausible ``eventTimestamp`` (negative, 1.5e18,
    beyond 64 bits). Returned as :func:`emulator.webhooks.send_burst` takes them:
    ``(body, requestId, None)``."""
    from sources.connecteam.arrow_rows import dumps

    gen = SpecData(seed, anchor if anchor is not None else 1_795_132_800)
    names = webhook_components()
    bodies: list[tuple[bytes, str | None, str | None]] = []
    for i in range(count):
        key = f"spec-{seed}-{i}"
        body = gen.record(names[i % len(names)], "webhooks", {"requestId": key})
        if gen.rng.random() < 0.05:
            body["eventType"] = "brand_new_event"
        if gen.rng.random() < 0.05:
            body["eventTimestamp"] = gen.rng.choice([-5, 1.5e18, *BIG_INTS])
        bodies.append((dumps(body).encode(), key, None))
    return bodies
