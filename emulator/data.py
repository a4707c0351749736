"""Seeded, realistic account data for the emulator, and the changes made to it between runs.

All records follow the provider's OpenAPI schemas (``User``, ``FormResponse``, ``SchedulerResponse``
and the V1 ``ShiftResponse``). Timestamps are UTC epoch seconds. Generation is deterministic for a
given ``seed`` and ``anchor`` (the emulator's notion of "now" at start-up, floored to the day).
The records come from :mod:`emulator.account_data` and :mod:`emulator.operations_data`, each
stream domain's from its ``tidy`` step (:data:`emulator.domains.DOMAINS`), the changes from
:mod:`emulator.account_changes`; with ``data="spec"`` every record is drawn from the spec's
schemas instead (:mod:`emulator.spec_account`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from . import account_changes as changes
from . import account_data
from .account_changes import Changes
from .attendance import tie_punches_to_shifts
from .config import DAY, EmulatorConfig
from .config import now as clock_now
from .domains import DOMAINS
from .operations_data import REMOVABLE_OPERATIONS, Operations
from .spec_account import spec_account
from .spec_records import SpecData
from .vocabulary import CUSTOM_FIELDS

__all__ = ["REMOVABLE", "Dataset", "EmulatorConfig"]

REMOVABLE = ("forms", "schedulers", "user_documents", *REMOVABLE_OPERATIONS)
"""Streams :meth:`Dataset.mutate` can remove records from (``remove``)."""


@dataclass
class Dataset:
    """The emulated account's records, mutable between runs.

    Attributes:
        users: By ``userId``, in id order.
        forms: By ``formId``.
        schedulers: By ``schedulerId``.
        shifts: By ``schedulerId``: V1 shift rows in creation order.
        domains: By domain name (:data:`emulator.domains.DOMAINS`): that domain's records.
        version: Increases with every change (cache key of filtered listings).
    """

    config: EmulatorConfig
    users: dict[int, dict[str, Any]] = field(default_factory=dict)
    forms: dict[int, dict[str, Any]] = field(default_factory=dict)
    user_documents: dict[int, dict[str, Any]] = field(default_factory=dict)
    schedulers: dict[int, dict[str, Any]] = field(default_factory=dict)
    shifts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    operations: Operations = field(default_factory=Operations)
    domains: dict[str, Any] = field(default_factory=dict)
    version: int = 0
    spec_manifest: list[dict[str, Any]] = field(default_factory=list)
    """With ``data="spec"``: one ``{"stream", "key", "path", "kind"}`` per value the generator
    made deliberately unfit for its declared type or format (a date that is not a date, a
    timezone that is not one, an enum value outside the enum, an integer beyond 64 bits, ...);
    empty with ``data="emulator"``. Kinds and keys: :mod:`emulator.spec_data`."""
    spec: SpecData | None = None
    """With ``data="spec"``: the :class:`~emulator.spec_records.SpecData` that drew the records
    (new shifts of :meth:`mutate` come from it)."""
    _clock: int = 0
    _rng: random.Random = field(default_factory=random.Random)

    # -- generation ------------------------------------------------------------------------------

    @classmethod
    def generate(cls, config: EmulatorConfig) -> Dataset:
        """Build the account for ``config``; the same config always gives the same records.

        Raises:
            ValueError: ``config.data`` is neither ``emulator`` nor ``spec``.
        """
        if config.data == "spec":
            return cls._drawn(config)
        if config.data != "emulator":
            raise ValueError(f"data={config.data!r}: choose 'emulator' or 'spec'")
        rng = random.Random(config.seed)
        anchor = config.resolved_anchor()
        ds = cls(config=config, _rng=random.Random(config.seed + 1), _clock=anchor)
        for i in range(config.users):
            user_id = account_data.FIRST_USER_ID + i
            ds.users[user_id] = account_data.user(rng, user_id, anchor, config.archived_fraction)
        for i in range(config.forms):
            form_id = account_data.FIRST_FORM_ID + i
            ds.forms[form_id] = account_data.form(rng, form_id, anchor)
        ds.user_documents = account_data.user_documents(
            random.Random(config.seed + 2), list(ds.users), anchor, config.documents_fraction
        )
        for i in range(config.schedulers):
            record = account_data.scheduler(i)
            ds.schedulers[record["schedulerId"]] = record
            ds.shifts[record["schedulerId"]] = []
        active = ds.active_users()
        created = account_data.spread_shifts(
            rng, config, ds.schedulers, ds.shifts, active or [1], anchor
        )
        ds._clock = max(ds._clock, created)
        ds._add_operations(active, anchor)
        return ds

    @classmethod
    def _drawn(cls, config: EmulatorConfig) -> Dataset:
        """The account of ``config`` with every record drawn from the spec's schemas."""
        drawn = spec_account(config)
        return cls(
            config=config,
            users=drawn.users,
            forms=drawn.forms,
            user_documents=drawn.user_documents,
            schedulers=drawn.schedulers,
            shifts=drawn.shifts,
            operations=drawn.operations,
            domains=drawn.domains,
            spec_manifest=drawn.generator.manifest,
            spec=drawn.generator,
            _clock=config.resolved_anchor(),
            _rng=random.Random(config.seed + 1),
        )

    def _add_operations(self, active: list[int], anchor: int) -> None:
        """The operations records over the ``active`` users, punches tied to the shifts, then
        each domain's records (its ``tidy`` step, in :data:`~emulator.domains.DOMAINS`
        order)."""
        config = self.config
        self.operations = ops = Operations.generate(
            config.operations, config.seed, anchor, active, self.forms, CUSTOM_FIELDS
        )
        # punches for every shift that has ended: by the anchor when one is set (repeatable),
        # else by the clock at start-up, so a shift that ended this morning is no false no-show
        ended_by = anchor if config.anchor is not None else max(anchor, int(clock_now()))
        tie_punches_to_shifts(ops, self.shifts, ended_by, config.operations.attendance_share,
                              config.seed)  # fmt: skip
        for domain in DOMAINS:
            if domain.tidy is not None:
                self.domains[domain.name] = domain.tidy(self, anchor)

    def active_users(self) -> list[int]:
        """The ids of the users not archived, in id order."""
        return [u for u, rec in self.users.items() if not rec["isArchived"]]

    # -- changes between runs --------------------------------------------------------------------

    def tick(self) -> int:
        """A change time, epoch seconds: now, or one second past the last change (never
        earlier than the last change). With ``config.same_second_changes`` a change within the
        second of the last one gets the same second."""
        step = 0 if self.config.same_second_changes else 1
        self._clock = max(int(clock_now()), self._clock + step)
        return self._clock

    def mutate(
        self,
        users: int = 0,
        shifts: int = 0,
        delete_shifts: int = 0,
        new_shifts: int = 0,
        documents: int = 0,
        user_ids: list[int] | None = None,
        remove: dict[str, int] | None = None,
        move_shifts: int = 0,
        reassign_shifts: int = 0,
        add_shift_users: int = 0,
        unassign_shift_users: int = 0,
        edit_submissions: int = 0,
    ) -> dict[str, list[Any]]:
        """Change records as an admin would between two syncs: the arguments are the
        attributes of :class:`~emulator.account_changes.Changes` (what each one changes).

        Returns:
            The ids touched: ``{"users": [...], "shifts": [[schedulerId, id], ...],
            "deleted_shifts": [...], "new_shifts": [...], "documents": [...],
            "moved_shifts": [...], "reassigned_shifts": [...], "added_shift_users": [...],
            "unassigned_shift_users": [...] (all ``[schedulerId, slot id]``),
            "edited_submissions": [[formId, formSubmissionId], ...], "removed_<stream>": [...],
            "at": <the change time, epoch seconds>}``.

        Raises:
            ValueError: A count that is not a non-negative integer, an unknown user id, or a
                stream that cannot be removed from (:meth:`Changes.check
                <emulator.account_changes.Changes.check>`).
        """
        wanted = Changes(
            users=users, shifts=shifts, delete_shifts=delete_shifts, new_shifts=new_shifts,
            documents=documents, user_ids=user_ids, remove=remove, move_shifts=move_shifts,
            reassign_shifts=reassign_shifts, add_shift_users=add_shift_users,
            unassign_shift_users=unassign_shift_users, edit_submissions=edit_submissions,
        )  # fmt: skip
        wanted.check(self.users, REMOVABLE)
        return self.apply(wanted)

    def apply(self, wanted: Changes) -> dict[str, list[Any]]:
        """Make the (checked) changes ``wanted`` at the next :meth:`tick`; the ids touched, as
        :meth:`mutate` answers them."""
        rng = self._rng
        now = self.tick()
        touched: dict[str, list[Any]] = {"users": [], "shifts": [], "deleted_shifts": [],
                                         "new_shifts": []}  # fmt: skip
        touched["documents"] = changes.edit_documents(
            self.user_documents, rng, wanted.documents, now
        )
        touched["users"] = changes.edit_users(
            self.users, rng, wanted.user_ids or [], wanted.users, now
        )
        touched["shifts"], touched["deleted_shifts"] = changes.edit_shifts(
            self.shifts, rng, wanted.shifts, wanted.delete_shifts, now
        )
        if self.spec is not None:
            gone = {shift_id for _, shift_id in touched["deleted_shifts"]}
            self.spec_manifest[:] = [
                e for e in self.spec_manifest if e["stream"] != "shifts" or e["key"] not in gone
            ]
        touched["new_shifts"] = [self._new_shift(now) for _ in range(wanted.new_shifts)]
        for stream, count in sorted((wanted.remove or {}).items()):
            touched[f"removed_{stream}"] = self._remove(stream, count)
        touched.update(changes.reschedule(self.shifts, self.users, rng, now, wanted))
        touched["edited_submissions"] = changes.edit_submissions(
            self.operations.form_submissions, now, wanted.edit_submissions
        )
        touched["at"] = now  # type: ignore[assignment]
        self.version += 1
        return touched

    def _new_shift(self, now: int) -> list[Any]:
        """Add one single-user V1 shift row starting within the next 30 days (drawn from the
        spec's schemas in spec data mode) to a random scheduler; ``[schedulerId, slot id]``."""
        rng = self._rng
        sid = rng.choice(sorted(self.shifts))
        if self.spec is not None:
            start = now // 3600 * 3600 + rng.randint(0, 29) * DAY
            row = self.spec.shift(start, now, self.config.shifts)
        else:
            timezone = self.schedulers[sid]["timezone"]
            users = self.active_users() or [1]
            anchor = self.config.resolved_anchor()
            row = account_data.shift_rows(rng, self.config, timezone, anchor, now, 1, False, users)[
                0
            ]
            shift_day = rng.randint(0, 29)
            row["startTime"] = now // 3600 * 3600 + shift_day * DAY
            row["endTime"] = row["startTime"] + 8 * 3600
        self.shifts[sid].append(row)
        return [sid, row["id"]]

    def _remove(self, stream: str, count: int) -> list[Any]:
        """Delete ``count`` records of ``stream`` (drawn from the seeded generator); their ids."""
        rng = self._rng
        own: dict[str, dict[int, Any]] = {
            "forms": self.forms, "schedulers": self.schedulers,
            "user_documents": self.user_documents,
        }  # fmt: skip
        if stream not in own:
            return self.operations.remove(stream, count, rng)
        records = own[stream]
        gone = rng.sample(sorted(records), min(count, len(records)))
        for key in gone:
            del records[key]
            if stream == "forms":
                self.operations.form_submissions.pop(key, None)
            if stream == "schedulers":
                self.shifts.pop(key, None)
        return gone
