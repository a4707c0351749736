"""The emulator's spec data mode, the account: every record of every endpoint the sync reads,
drawn from its schema by :class:`~emulator.spec_records.SpecData` (see :mod:`emulator.spec_data` for
how values are drawn, made wild, and listed in the manifest). Only the structural fields (keys,
parents' ids, the times the endpoints filter on) are set here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from .config import DAY, EmulatorConfig, OperationsConfig
from .domains import DOMAINS
from .operations_data import TASK_BOARD_BASE, TIME_CLOCK_BASE, Operations
from .spec_records import SpecData
from .timesheet import daily_records
from .vocabulary import DOCUMENT_STATUSES, DOCUMENTS

ACTIVITY_KINDS = [("shifts", "shifts_activity"), ("manualBreaks", "manual_breaks_activity"),
                  ("timeOffs", "time_offs_activity")]  # fmt: skip
"""``timeActivitiesByUsers`` lists (``UserTimeActivity``) and the record kind of each."""


@dataclass
class SpecAccount:
    """The records of one spec-data account, as :class:`~emulator.data.Dataset` holds them.

    Attributes:
        config: The account's size and seed.
        users: By ``userId``.
        forms: By ``formId``.
        schedulers: By ``schedulerId``.
        shifts: By ``schedulerId``: V1 shift rows.
        user_documents: By ``id``.
        operations: The operations records.
        domains: By domain name (:data:`emulator.domains.DOMAINS`): that domain's records.
        generator: The :class:`~emulator.spec_records.SpecData` that drew them; its ``manifest``
            lists the values made unfit on purpose.
    """

    config: EmulatorConfig
    users: dict[int, dict[str, Any]]
    forms: dict[int, dict[str, Any]]
    schedulers: dict[int, dict[str, Any]]
    shifts: dict[int, list[dict[str, Any]]]
    user_documents: dict[int, dict[str, Any]]
    operations: Operations
    generator: SpecData
    domains: dict[str, Any] = field(default_factory=dict)

    def active_users(self) -> list[int]:
        """The ids of the users not archived, in id order."""
        return [u for u, rec in self.users.items() if not rec["isArchived"]]


def spec_account(config: EmulatorConfig) -> SpecAccount:
    """The records of ``config`` (``data="spec"``), drawn from the spec's schemas. Structural
    fields (all times UTC epoch seconds):

    * users ``userId`` 1000.., ``isArchived`` (8%), ``modifiedAt`` 1..400 days before the anchor;
    * forms ``formId`` 500..; schedulers ``schedulerId`` 9000..;
    * shifts: ``config.shifts`` rows spread round-robin over the schedulers, unique slot ``id``,
      ``startTime`` in ``[anchor - shift_days_back days, anchor + shift_days_ahead days)``,
      ``endTime`` 1..12 h later, ``creationTime``/``updateTime`` in the 60 days before;
    * user documents (beta, no schema): unique ``id`` 880000.. (:func:`_user_document`);
    * operations: :func:`_spec_operations`;
    * each domain's records: its ``spec`` step, in :data:`~emulator.domains.DOMAINS` order
      (they draw from one random stream).
    """
    anchor = config.resolved_anchor()
    gen = SpecData(config.seed, anchor, wide=config.spec_width == "wide")
    rng = gen.rng
    users: dict[int, dict[str, Any]] = {}
    forms: dict[int, dict[str, Any]] = {}
    schedulers: dict[int, dict[str, Any]] = {}
    shifts: dict[int, list[dict[str, Any]]] = {}
    for i in range(config.users):
        uid = 1000 + i
        structural = {"userId": uid, "isArchived": rng.random() < config.archived_fraction,
                      "modifiedAt": anchor - rng.randint(DAY, 400 * DAY)}  # fmt: skip
        users[uid] = gen.record("users", "users", uid, structural, config.users)
    for i in range(config.forms):
        fid = 500 + i
        forms[fid] = gen.record("forms", "forms", fid, {"formId": fid}, config.forms)
    for i in range(config.schedulers):
        sid = 9000 + i
        schedulers[sid] = gen.record(
            "schedulers", "schedulers", sid, {"schedulerId": sid}, config.schedulers
        )
        shifts[sid] = []
    scheduler_ids = list(schedulers)
    for n in range(config.shifts if scheduler_ids else 0):
        sid = scheduler_ids[n % len(scheduler_ids)]
        start = gen.moment(config.shift_days_back, config.shift_days_ahead)
        created = anchor - rng.randint(DAY, 60 * DAY)
        shifts[sid].append(gen.shift(start, created, config.shifts))
    user_ids = list(users) or [1]
    documents = round(config.users * config.documents_fraction * 1.5)
    user_documents: dict[int, dict[str, Any]] = {}
    for n in range(documents):
        doc = _user_document(gen, 880_000 + n, user_ids, documents)
        user_documents[doc["id"]] = doc
    operations = _spec_operations(gen, config.operations, user_ids, list(forms))
    account = SpecAccount(config, users, forms, schedulers, shifts, user_documents, operations, gen)
    for domain in DOMAINS:
        if domain.spec is not None:
            account.domains[domain.name] = domain.spec(gen, account)
    return account


def _user_document(gen: SpecData, doc_id: int, users: list[int], needed: int) -> dict[str, Any]:
    """A record of the beta ``GET /documents/v1/user-documents`` (no schema in the spec): a
    unique ``id`` and, by turns, the emulator's fields (some missing or null), none, or fields
    of a spec ``User``."""
    rng = gen.rng
    doc: dict[str, Any] = {"id": doc_id}
    turn = doc_id % 3
    if turn == 0:
        document_id, name, kind, pack = rng.choice(DOCUMENTS)
        created = gen.moment(300, 0)
        updated = created + rng.randint(0, 20) * DAY
        fields = {"userId": rng.choice(users), "documentId": document_id, "documentName": name,
                  "documentType": kind, "packId": pack, "status": rng.choice(DOCUMENT_STATUSES),
                  "createdAt": created, "updatedAt": updated}  # fmt: skip
        doc.update({k: v if rng.random() < 0.9 else None for k, v in fields.items()
                    if rng.random() < 0.9})  # fmt: skip
    elif turn == 2:
        mark = len(gen.manifest)
        other = gen.record("users", "user_documents", doc_id, {}, needed)
        doc.update({k: v for k, v in other.items() if k != "id" and rng.random() < 0.3})
        gen.manifest[mark:] = [e for e in gen.manifest[mark:] if e["path"][0] in doc]
    return doc


def _spec_operations(
    gen: SpecData, config: OperationsConfig, users: list[int], forms: list[int]
) -> Operations:
    """:class:`~emulator.operations_data.Operations` from the spec's schemas. Structural fields:

    * time clocks ``id`` 7100..; task boards ``id`` 3100..; custom fields ``id`` 900..;
    * time activities: ``config.time_activities`` round-robin over the clocks (70% shifts,
      manual breaks, time offs), unique ``id``, ``start.timestamp`` in the 30 days before the
      anchor, ``userId`` one of the users;
    * manual-break policies: two per clock, ``id`` ``mb-<clock>-<k>``;
    * timesheets: per clock, one drawn day per user and local day its activities fill, with
      the totals the provider's rule gives over them (:mod:`emulator.timesheet`), served by
      :meth:`Operations.timesheet <emulator.operations_data.Operations.timesheet>` filtered to
      the asked window;
    * form submissions: per form, unique ``formSubmissionId``, ``formId`` of the form,
      ``submissionTimestamp`` increasing within the 200 days before the anchor;
    * jobs ``jobId`` ``job-<n>``, sub-jobs ``job-<n>-<k>``;
    * time-off requests: ``id``, ``status`` approved|pending|denied, ``startDate``/``endDate``
      within 30 days before to 155 days after the anchor;
    * tasks ``id`` ``task-<board>-<k>``; policy types ``id`` ``pt-<k>``.
    """
    ops = Operations()
    _spec_time_clocks(gen, config, users, ops)
    for fid in forms:
        ops.form_submissions[fid] = _submissions(gen, fid, config.form_submissions)
    for n in range(config.jobs):
        ops.jobs.append(_job(gen, n, config.jobs))
    ops.policy_types = [
        gen.record("policy_types", "policy_types", f"pt-{k}", {"id": f"pt-{k}"}) for k in range(3)
    ]
    for n in range(config.time_off_requests):
        ops.time_off_requests.append(_time_off(gen, n, config.time_off_requests))
    for b in range(config.task_boards):
        bid = TASK_BOARD_BASE + b
        ops.task_boards[bid] = gen.record(
            "task_boards", "task_boards", bid, {"id": bid}, config.task_boards
        )
        ops.tasks[bid] = [
            gen.record("tasks", "tasks", f"task-{bid}-{k}", {"id": f"task-{bid}-{k}"},
                       config.tasks * config.task_boards)
            for k in range(config.tasks)
        ]  # fmt: skip
    fields = 8 + config.extra_custom_fields
    # every third one a dropdown (structural): its options are listed per field
    ops.custom_fields = [
        gen.record("user_custom_field_definitions", "user_custom_field_definitions", 900 + k,
                   {"id": 900 + k, **({"type": "dropdown"} if k % 3 == 0 else {})}, fields)
        for k in range(fields)
    ]  # fmt: skip
    return ops


def _spec_time_clocks(
    gen: SpecData, config: OperationsConfig, users: list[int], ops: Operations
) -> None:
    """The time clocks of ``ops`` with their activities, manual-break policies and timesheets
    (see :func:`_spec_operations`)."""
    for i in range(config.time_clocks):
        cid = TIME_CLOCK_BASE + i
        ops.time_clocks[cid] = gen.record(
            "time_clocks", "time_clocks", cid, {"id": cid}, config.time_clocks
        )
        ops.activities[cid], ops.spec_timesheets[cid] = [], []
    clocks = list(ops.time_clocks)
    for n in range(config.time_activities if clocks else 0):
        ops.activities[clocks[n % len(clocks)]].append(
            _activity(gen, n, users, config.time_activities)
        )
    for cid in clocks:
        ops.manual_breaks[cid] = _manual_breaks(gen, cid, len(clocks))
        ops.spec_timesheets[cid] = _timesheets(gen, cid, ops)


def _activity(gen: SpecData, n: int, users: list[int], needed: int) -> dict[str, Any]:
    """``{"userId", "kind", "record"}`` of the ``n``-th time activity (see
    :func:`_spec_operations`)."""
    kind, record_kind = ACTIVITY_KINDS[0 if n % 10 < 7 else 1 + n % 2]
    activity_id = f"{0x65A0C0DE0000000000000000 + n:024x}"
    record = gen.record(record_kind, "time_activities", activity_id, {"id": activity_id}, needed,
                        nested={"start": {"timestamp": gen.moment(30, 0)}})  # fmt: skip
    return {"userId": gen.rng.choice(users), "kind": kind, "record": record}


def _manual_breaks(gen: SpecData, clock_id: int, clocks: int) -> list[dict[str, Any]]:
    """The clock's two manual-break policies, drawn ``ManualBreakResponse`` records with ``id``
    ``mb-<clock>-<k>``."""
    return [
        gen.record("manual_breaks", "manual_breaks", f"mb-{clock_id}-{k}",
                   {"id": f"mb-{clock_id}-{k}"}, 2 * clocks)
        for k in range(2)
    ]  # fmt: skip


def _timesheets(gen: SpecData, clock_id: int, ops: Operations) -> list[dict[str, Any]]:
    """``UserHoursSummaryResponse`` items of the clock: one drawn ``DailyRecordResponse`` per user
    and local day the clock's activities fill, whose totals (``dailyTotal*``) are the provider's
    rule over those activities (:mod:`emulator.timesheet`); every other field (approval flags,
    ``payItems``, ``records``, ``dailyScheduledDetails``) as drawn."""
    paid = {str(p.get("id")): p.get("isPaid") is True for p in ops.manual_breaks[clock_id]}
    computed = daily_records(ops.activities[clock_id], paid, lambda user, day: None,
                             date.min, date.max)  # fmt: skip
    needed = sum(len(user["dailyRecords"]) for user in computed) or 1
    totals = ("date", "dailyTotalHours", "dailyTotalWorkHours", "dailyTotalPaidBreakHours",
              "dailyTotalUnpaidBreakHours")  # fmt: skip
    return [
        {"userId": user["userId"], "dailyRecords": [
            gen.record("timesheet_days", "timesheets", f"{clock_id}:{user['userId']}:{day['date']}",
                       {name: day[name] for name in totals}, needed)
            for day in user["dailyRecords"]]}
        for user in computed
    ]  # fmt: skip


def _submissions(gen: SpecData, form_id: int, count: int) -> list[dict[str, Any]]:
    """The form's submissions, oldest first (see :func:`_spec_operations`)."""
    span = 200 * DAY
    step = max(1, span // (count + 1))
    out = []
    for k in range(count):
        stamp = gen.anchor - span + k * step + gen.rng.randint(0, step - 1)
        sub_id = f"{0x5B0B0000000000000000 + form_id * 1_000_000 + k:024x}"
        structural = {"formSubmissionId": sub_id, "formId": form_id, "submissionTimestamp": stamp}
        out.append(gen.record("form_submissions", "form_submissions", sub_id, structural, count))
    return out


def _job(gen: SpecData, n: int, needed: int) -> dict[str, Any]:
    """Job ``job-<n>`` with none, an empty list or 1..2 sub-jobs (themselves without
    sub-jobs); every job is a drawn ``BaseJobResponse``."""
    rng = gen.rng
    roll = rng.random()
    subs: list[dict[str, Any]] | None = None if roll < 0.3 else []
    for k in range(0 if roll < 0.5 else rng.randint(1, 2)):
        sub_id = f"job-{n}-{k}"
        structural: dict[str, Any] = {"jobId": sub_id, "subJobs": rng.choice([None, []])}
        subs = [*(subs or []), gen.record("jobs", "jobs", sub_id, structural, needed)]
    return gen.record("jobs", "jobs", f"job-{n}", {"jobId": f"job-{n}", "subJobs": subs}, needed)


def _time_off(gen: SpecData, n: int, needed: int) -> dict[str, Any]:
    """Time-off request ``to-<n>`` (see :func:`_spec_operations`)."""
    rng = gen.rng
    first = gen.day(30, 150)
    structural = {"id": f"to-{n}", "status": rng.choice(["approved", "pending", "denied"]),
                  "startDate": first.isoformat(),
                  "endDate": (first + timedelta(days=rng.randint(0, 5))).isoformat()}  # fmt: skip
    return gen.record("time_off_requests", "time_off_requests", f"to-{n}", structural, needed)
