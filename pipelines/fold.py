"""The ``fold`` job: move webhook events from the inbox into the warehouse dataset ``webhooks``.

The whole job holds the warehouse's writer lock for job ``fold``
(:func:`pipelines.writers.writes_warehouse`): on DuckDB the file lock every job takes turns
through, on PostgreSQL the advisory lock of the folds on that database, so two folds (the
scheduled one and the nightly's, from any machine) never load or mark the same events at once.
Memory follows ``batch_bytes`` and ``round_bytes``, not the backlog: the inbox is read in
batches bounded by rows and by bytes of bodies (events and refused bodies alike), dlt writes each
batch out before the next is read, and a backlog of more than ``round_bytes`` is folded in rounds
(each one load, then its rows marked folded). A fold is safe to kill: a re-run re-reads what
was not marked and the insert-only load skips keys already in the warehouse. No value of a
stored event fails it: an implausible event time or a body the warehouse cannot hold as JSON
loads as NULL with a flag (:func:`sources.webhooks.source.event_batch`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

import dlt

from core.project import Project
from core.settings import FOLD_RETENTION_DAYS
from inbox import DEFAULT_BATCH_BYTES, DEFAULT_ROUND_BYTES, Inbox, RoundBudget
from inbox.url import check_inbox_url
from sources.webhooks.source import FoldLedger, max_unfolded_quarantine_id, webhooks_source

from .runs import records_run
from .warehouse import (
    build_pipeline,
    finish_pending_loads,
    loader_file_format,
    warehouse_location,
    write_each_batch,
)
from .writers import confirm_writer, writes_warehouse

logger = logging.getLogger("pipelines.fold")

DATASET_WEBHOOKS = "webhooks"


@dataclass
class FoldSummary:
    """What one fold did.

    Attributes:
        events: Inbox events read and loaded (insert-only: already loaded keys are skipped).
        families: Events per family.
        quarantined: Refused bodies moved to ``webhooks.quarantine``.
        key_conflicts: Events loaded that were stored under a conflict key (a delivery whose
            key was taken by a different body: ``conflict_of`` names that key).
        implausible_times: Events loaded with an implausible event time (``event_timestamp``
            NULL, ``is_event_time_implausible``).
        unreadable_payloads: Events loaded without ``payload`` because the warehouse cannot hold
            their body as JSON (``is_payload_unreadable``; the text is in ``payload_text``).
        pruned: Folded inbox rows deleted after the retention.
        backlog: Events still unfolded after this fold (arrived while it ran).
        resumed_packages: Load packages of an interrupted fold finished first.
        duration_seconds: Wall time.
        warehouse: Where the data went (no credentials).
        inbox: The inbox URL (no password).
    """

    events: int = 0
    families: dict[str, int] = field(default_factory=dict)
    quarantined: int = 0
    key_conflicts: int = 0
    implausible_times: int = 0
    unreadable_payloads: int = 0
    pruned: int = 0
    backlog: int = 0
    resumed_packages: int = 0
    duration_seconds: float = 0.0
    warehouse: str = ""
    inbox: str = ""


class FoldError(RuntimeError):
    """The load of a fold failed. The message names the inbox events it was loading (id range,
    count, families) and the cause; none of them was marked folded, so the next fold retries
    exactly these."""

    def __init__(self, ledger: FoldLedger, upto: int | None, cause: BaseException) -> None:
        ids = ledger.inbox_ids
        families = ", ".join(f"{f} {n}" for f, n in sorted(ledger.families.items()))
        what = (
            f"inbox ids {min(ids)}..{max(ids)} ({len(ids)} events: {families})"
            if ids
            else f"inbox events up to id {upto}"
        )
        reason = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
        super().__init__(
            f"fold of {what} failed: {type(cause).__name__}: {reason}; none of them was marked "
            "folded, the next fold retries them"
        )


@records_run(
    "fold",
    lambda s: {"events": s.events, "families": s.families, "quarantined": s.quarantined,
               "key_conflicts": s.key_conflicts, "implausible_times": s.implausible_times,
               "unreadable_payloads": s.unreadable_payloads, "backlog": s.backlog},
)  # fmt: skip
@writes_warehouse("fold")
def run_fold(
    *,
    batch_size: int = 100_000,
    retention_days: float = FOLD_RETENTION_DAYS,
    pipeline: dlt.Pipeline | None = None,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    round_bytes: int = DEFAULT_ROUND_BYTES,
    project: Project,
) -> FoldSummary:
    """Load every unfolded inbox event into ``webhooks.events`` exactly once.

    Reads events and refused bodies up to the newest of each present when the fold starts (rows
    arriving meanwhile wait for the next fold), loads them insert-only on ``event_key``, then
    marks them folded in the inbox and prunes rows folded more than ``retention_days`` ago.
    Safe to run while the receiver takes traffic, and to kill (the module's docstring says why,
    and how the writer lock and memory bounds hold).

    Args:
        batch_size: Most inbox events per Arrow batch.
        retention_days: Days a folded row stays in the inbox before it is pruned.
        pipeline: The dlt pipeline (default: the warehouse, dataset ``webhooks``).
        batch_bytes: Most bytes of bodies per batch (a larger body is a batch of its own).
        round_bytes: Bytes of bodies per round (one batch per table past it at most).
        project: The project: its warehouse, and its inbox
            (:attr:`~core.project.Project.webhooks`, checked here:
            :func:`~sources.webhooks.config.check_inbox_url`).

    Returns:
        A :class:`FoldSummary`.

    Raises:
        FoldError: A round's load failed (the message names its inbox ids and families); none
            of them was marked folded (earlier rounds were), so running again loses nothing.
        WarehouseBusyError: Another fold (PostgreSQL) or any other job (DuckDB) held the
            warehouse for the whole ``writer_timeout``; or (``WriterLockLostError``) the
            PostgreSQL writer lock went away mid-fold, and the fold stopped before marking
            (or pruning) anything more.
    """
    started = time.monotonic()
    inbox = Inbox(check_inbox_url(project.webhooks.url))
    try:
        pipeline = pipeline or build_pipeline(
            pipeline_name="webhooks", dataset_name=DATASET_WEBHOOKS, project=project
        )
        write_each_batch(pipeline, "webhooks")
        resumed = finish_pending_loads(pipeline)
        sizes = (batch_size, batch_bytes, round_bytes)
        ledger = _fold_rounds(pipeline, project, inbox, sizes)
        confirm_writer("fold", project)
        pruned = inbox.prune(retention_days * 86_400)
        return FoldSummary(
            **_ledger_counts(ledger), pruned=pruned, backlog=inbox.counts()["unfolded"],
            resumed_packages=resumed, duration_seconds=round(time.monotonic() - started, 2),
            warehouse=warehouse_location(pipeline, project), inbox=inbox.describe(),
        )  # fmt: skip
    finally:
        inbox.close()


def _fold_rounds(
    pipeline: dlt.Pipeline, project: Project, inbox: Inbox, sizes: tuple[int, int, int]
) -> FoldLedger:
    """Fold, in rounds of at most ``round_bytes`` of bodies (each loaded, then marked; ``sizes``
    is ``(batch_size, batch_bytes, round_bytes)`` of :func:`run_fold`), the events and refused
    bodies up to the newest of each present now; what they added up to."""
    upto = (inbox.max_unfolded_id(), max_unfolded_quarantine_id(inbox))
    logger.info(
        "folding inbox events up to id %s and refused bodies up to id %s from %s",
        *upto, inbox.describe(),
    )  # fmt: skip
    ledger = FoldLedger()
    while True:
        part = _fold_round(pipeline, project, inbox, upto, sizes)
        ledger.add(part)
        if not part.budget.cut_short:
            return ledger


def _ledger_counts(ledger: FoldLedger) -> dict[str, Any]:
    """What the fold's rounds added up to, as :class:`FoldSummary`'s fields of the same names."""
    return {
        "events": len(ledger.inbox_ids),
        "families": dict(sorted(ledger.families.items())),
        "quarantined": len(ledger.quarantine_ids),
        "key_conflicts": ledger.key_conflicts,
        "implausible_times": ledger.implausible_times,
        "unreadable_payloads": ledger.unreadable_payloads,
    }


def _fold_round(
    pipeline: dlt.Pipeline, project: Project, inbox: Inbox, upto: tuple[int | None, int | None],
    sizes: tuple[int, int, int],
) -> FoldLedger:  # fmt: skip
    """Load unfolded events and refused bodies up to ``upto`` (``(inbox_id, quarantine_id)``
    bounds taken once per fold), at most about ``round_bytes`` of bodies, in one dlt run, then
    mark them folded once the writer lock is confirmed; what was read (``budget.cut_short``:
    more may be waiting).

    Raises:
        FoldError: The load failed; nothing of this round was marked folded.
        WriterLockLostError: The PostgreSQL writer lock went away during the load; nothing of
            this round was marked folded.
    """
    batch_size, batch_bytes, round_bytes = sizes
    ledger = FoldLedger(budget=RoundBudget(round_bytes))
    source = webhooks_source(
        inbox=inbox,
        batch_size=batch_size,
        upto_id=upto[0],
        quarantine_upto_id=upto[1],
        ledger=ledger,
        json_holds_nul=project.destination != "postgres",  # jsonb refuses U+0000
        batch_bytes=batch_bytes,
    )
    try:
        info = pipeline.run(source, loader_file_format=loader_file_format(project))
        info.raise_on_failed_jobs()
    except Exception as exc:
        raise FoldError(ledger, upto[0], exc) from exc
    confirm_writer("fold", project)
    inbox.mark_folded(ledger.inbox_ids, ledger.quarantine_ids)
    return ledger
