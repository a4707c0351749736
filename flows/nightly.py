"""Job ``nightly_sync`` (a Prefect flow where a Prefect API is configured): sync -> fold ->
models -> publish -> report.

The API sync runs as one step per task group of the stream registry
(:data:`sources.connecteam.registry.TASK_GROUPS`: nine steps, streams sharing a parent listing in
one, so the listing is fetched once), with declared retries, one after another (DuckDB takes one
writer at a time). A step that fails on a transient problem is retried; one that
fails on credentials or a refused request is not, because retrying cannot fix it. Then the webhook
inbox is folded, the dbt models are built and tested, and the read-only snapshot is published
(on a PostgreSQL warehouse, where the models build too, publishing is skipped with a note).
Secrets are never job or step parameters (Prefect stores those as flow and task parameters): the
steps read them from dlt config. Importing this module imports neither Prefect nor the later
steps' libraries (:mod:`flows.runner`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.private import private_files
from core.progress import account_label
from core.project import DEFAULT_ACCOUNT, Project, account_dataset
from core.settings import FOLD_RETENTION_DAYS
from flows.accounts import failure_text, labelled, side_by_side
from flows.naming import rename_current_run, rows_text
from flows.runner import in_prefect_run, job, run_logger, step
from pipelines import STREAMS, SyncSummary, run_sync
from sources.connecteam import find_connecteam_error
from sources.connecteam.config import ConnecteamSourceConfiguration
from sources.connecteam.registry import TASK_GROUPS as REGISTRY_GROUPS
from sources.connecteam.transient import is_transient
from sources.connecteam.windows import shift_window

if TYPE_CHECKING:  # the later steps' modules load when their step runs, after the sync
    from dashboard.report import ReportSummary
    from pipelines.fold import FoldSummary
    from pipelines.models import ModelsSummary
    from pipelines.publish import PublishSummary

TASK_GROUPS: tuple[tuple[str, ...], ...] = REGISTRY_GROUPS
"""The sync's tasks, in order: the registry's task groups (each stream's ``group``)."""


@step(
    name="sync_streams",
    run_name="sync-{label}",
    retries=2,
    retry_delay_seconds=(10, 60),
    retry_if=is_transient,
)
def sync_streams(
    streams: tuple[str, ...], label: str, source_options: dict[str, Any], project: Project
) -> SyncSummary:
    """Load ``streams`` of ``project``'s account into its dataset of ``project``'s warehouse
    (``connecteam``, ``connecteam_<account>``); resumes an interrupted load on retry.

    Under Prefect the task run is renamed after what it did (rows per table, dataset, shift
    window); a failure is logged with the endpoint and status the provider answered.
    """
    logger = run_logger()
    try:
        summary = run_sync(streams, project=project, **source_options)
    except Exception as exc:
        cause = find_connecteam_error(exc) or exc
        logger.error("sync of %s failed: %s: %s", label, type(cause).__name__, cause)
        raise
    window = f", shift window {_window(source_options, project)}" if "shifts" in streams else ""
    rename_current_run(
        f"sync {label}: {rows_text(summary.rows)} into {summary.dataset}{window}", task=True
    )
    logger.info(
        "%s: %s rows loaded, %d requests, %.1f s",
        label,
        ", ".join(f"{t}={n}" for t, n in summary.rows.items()),
        summary.total_requests,
        summary.duration_seconds,
    )
    return summary


STEPS = ("sync", "fold", "models", "publish", "report")


@dataclass
class NightlyResult:
    """What each step of one ``nightly_sync`` run did (``None``: the step was not asked for)."""

    sync: SyncSummary
    """The sync of every account of the run, merged (rows per table summed)."""
    accounts: dict[str, SyncSummary] = field(default_factory=dict)
    """Each account's own sync, by account, when the run synced several."""
    failed_accounts: dict[str, str] = field(default_factory=dict)
    """The accounts whose sync failed, with why (the others loaded)."""
    fold: FoldSummary | None = None
    models: ModelsSummary | None = None
    publish: PublishSummary | None = None
    publish_note: str | None = None
    """Why the publish step was skipped (a PostgreSQL warehouse), else ``None``."""
    report: ReportSummary | None = None
    """The static report written after the publish (none when nothing was published)."""


class NothingLoadedError(RuntimeError):
    """Every stream the run asked for failed: nothing was loaded, and no later step ran, so the
    models, the snapshot, the Parquet marts and the report stay as the last good run left them.

    Attributes:
        result: The run's :class:`NightlyResult` (``result.sync.failed_streams``: each stream
            and why).
        setting: The setting every failure names (``SOURCES__CONNECTEAM__BASE_URL``, ...), when
            they all name the same one; else ``None``.
    """

    def __init__(self, result: NightlyResult, skipped: tuple[str, ...]) -> None:
        self.result = result
        self.skipped = skipped
        hints = {named_setting(why) for why in result.sync.failed_streams.values()}
        self.setting = hints.pop() if len(hints) == 1 else None
        first = next(iter(result.sync.failed_streams.values()), "")
        cause = (
            f"every stream failed alike ({first}): check {self.setting}"
            if self.setting
            else "every stream failed"
        )
        left = f"; {len(skipped)} other stream(s) not tried" if skipped else ""
        super().__init__(
            f"{cause}{left}; nothing was loaded, so the models, the snapshot and the report "
            "were left as they were"
        )


SETTING_HINT = re.compile(r"check (SOURCES__CONNECTEAM__[A-Z_]+)")
"""The setting a failure's hint names (``sources.connecteam.errors.status_hint``)."""
STATUS_SETTINGS = {404: "SOURCES__CONNECTEAM__BASE_URL", 403: "SOURCES__CONNECTEAM__API_KEY"}
"""The setting an answer's status points at when every endpoint answers it: no such path
(another host, a proxy's page), or credentials without the endpoints' scopes."""


def named_setting(reason: str) -> str | None:
    """The setting a stream's failure (``SyncSummary.failed_streams`` reason) points at: the
    one its hint names, else the one its HTTP status points at; ``None`` for any other."""
    found = SETTING_HINT.findall(reason)
    if found:
        return str(found[-1])
    status = re.search(r"answered HTTP (\d{3})", reason)
    return STATUS_SETTINGS.get(int(status.group(1))) if status else None


class StreamsFailedError(RuntimeError):
    """Some streams failed while the others loaded, and the later steps ran on what loaded.

    Attributes:
        result: The run's :class:`NightlyResult` (``result.sync.failed_streams`` says which and
            why).
    """

    def __init__(self, result: NightlyResult) -> None:
        self.result = result
        failed = ", ".join(sorted(result.sync.failed_streams))
        super().__init__(
            f"streams failed: {failed}; the other streams loaded and the later steps ran"
        )


class AccountsFailedError(RuntimeError):
    """The syncs of some accounts failed while the others loaded (the later steps ran on what
    loaded), or every account's failed (no later step ran).

    Attributes:
        result: The run's :class:`NightlyResult`; ``result.failed_accounts``
            says which and why, ``result.accounts`` what the others loaded.
        nothing_loaded: Every account failed.
    """

    def __init__(self, result: NightlyResult, nothing_loaded: bool = False) -> None:
        self.result = result
        self.nothing_loaded = nothing_loaded
        failed = ", ".join(result.failed_accounts)
        after = (
            "no account loaded, so the models, the snapshot and the report were left as they were"
            if nothing_loaded
            else "the other accounts loaded and the later steps ran"
        )
        super().__init__(f"the sync failed for account(s) {failed}; {after}")


@job(name="nightly_sync", run_name="nightly-sync-{streams_label}")
def nightly_sync(
    streams: tuple[str, ...] = STREAMS,
    streams_label: str = "all",
    source_options: dict[str, Any] | None = None,
    steps: tuple[str, ...] = STEPS,
    accounts: tuple[str, ...] | None = None,
    sync_on_workers: bool = False,
    *,
    project: Project,
) -> NightlyResult:
    """Sync the Connecteam account, fold the webhook inbox, build the models, publish, write the
    static report (the last two DuckDB only: skipped on PostgreSQL, ``publish_note`` says so).

    Args:
        streams: Streams to sync (default all of :data:`pipelines.sync.STREAMS`).
        streams_label: Shown in the flow run's name.
        source_options: Non-secret options for the source (e.g. ``shifts_days_back``;
            ``allow_insecure: true`` accepts a plain ``http://`` base URL to another machine).
        steps: Which of ``sync``, ``fold``, ``models``, ``publish``, ``report`` to run, in that
            order (``report`` follows a publish of this run only); a step that fails stops the
            run (nothing is published after a failed build). A stream that fails in the sync
            does not: the other streams load and the later steps run; when every stream
            fails (or every one of the first group), nothing later runs.
        accounts: The accounts to sync (default every configured one,
            :attr:`~core.project.Project.account_names`); several sync side by side, each into
            its own dataset within its own budget (:mod:`flows.accounts`).
        sync_on_workers: In a Prefect flow run, sync several accounts through their
            ``sync-<account>`` deployments, on the work pool's workers
            (:mod:`flows.fan_out`), instead of in this process's threads.
        project: What every step works with, resolved at the edge (the command line; a
            deployment's run: :mod:`flows.prefect_flows`). Prefect stores an account's key in
            it as ``**********``.

    Returns:
        A :class:`NightlyResult`.

    Raises:
        NothingLoadedError: Every stream failed (or every one of the first group): no later
            step ran, nothing was built or published over the last good run.
        StreamsFailedError: Some streams failed (after every asked-for step ran).
        AccountsFailedError: Of several accounts, some failed (after every asked-for step
            ran), or all did (no later step ran).
        KeyError: An account that is not configured.
    """
    private_files()  # a Prefect worker's run starts here: what it writes is private
    unknown = sorted(set(steps) - set(STEPS))
    if unknown:
        raise ValueError(f"unknown step(s) {unknown}; choose from {list(STEPS)}")
    result = NightlyResult(sync=SyncSummary())
    chosen = accounts or project.account_names
    if "sync" in steps:
        if len(chosen) == 1:
            _sync_groups(streams, source_options or {}, project.for_account(chosen[0]), result)
        elif sync_on_workers and in_prefect_run():
            _sync_on_workers(chosen, streams, source_options or {}, result)
        else:
            _sync_side_by_side(chosen, streams, source_options or {}, project, result)
    from flows.fold import fold_inbox  # each later step's libraries load when it runs
    from flows.models import dbt_build, publish_unless_skipped, report

    if "fold" in steps:
        result.fold = fold_inbox(100_000, FOLD_RETENTION_DAYS, project)
    if "models" in steps:
        result.models = dbt_build(project)
    if "publish" in steps:
        result.publish, result.publish_note = publish_unless_skipped(project)
    if "report" in steps and result.publish is not None:
        result.report = report(project)
    rename_current_run(_describe(result))
    if result.failed_accounts:
        raise AccountsFailedError(result)
    if result.sync.failed_streams:
        raise StreamsFailedError(result)
    return result


def _sync_on_workers(
    accounts: tuple[str, ...], streams: tuple[str, ...], source_options: dict[str, Any],
    result: NightlyResult,
) -> None:  # fmt: skip
    """Sync ``accounts`` through their deployments on the work pool's workers
    (:func:`flows.fan_out.sync_on_workers`), into ``result``: the accounts that failed (each
    account's rows are in its own run's name and log).

    Raises:
        AccountsFailedError: Every account failed (``nothing_loaded``).
    """
    from flows.fan_out import sync_on_workers

    parameters = {"streams": list(streams), "source_options": source_options}
    for name, why in sync_on_workers(nightly_sync.name, accounts, parameters).items():
        if why is None:
            result.accounts[name] = SyncSummary(dataset=account_dataset(name))
        else:
            result.failed_accounts[name] = why
            run_logger().error("account %s: its sync run ended %s", name, why)
    _after_accounts(accounts, result)


def _after_accounts(accounts: tuple[str, ...], result: NightlyResult) -> None:
    """Name the datasets the accounts loaded in ``result.sync``; when every account failed,
    stop the run.

    Raises:
        AccountsFailedError: Every account failed (``nothing_loaded``).
    """
    result.sync.dataset = ", ".join(s.dataset for s in result.accounts.values())
    if len(result.failed_accounts) == len(accounts):
        rename_current_run("nothing loaded: every account failed")
        raise AccountsFailedError(result, nothing_loaded=True)


def _sync_side_by_side(
    accounts: tuple[str, ...], streams: tuple[str, ...], source_options: dict[str, Any],
    project: Project, result: NightlyResult,
) -> None:  # fmt: skip
    """Sync ``accounts`` at once (:func:`flows.accounts.side_by_side`), each group by group
    (:func:`_sync_groups`), into ``result``: each account's summary, the merged one, and the
    accounts that failed.

    Raises:
        AccountsFailedError: Every account failed (``nothing_loaded``).
        KeyError: An account that is not configured (before any work).
    """
    projects = {name: project.for_account(name) for name in accounts}

    def sync_account(name: str) -> SyncSummary:
        part = NightlyResult(sync=SyncSummary(dataset=projects[name].dataset))
        with account_label(name):
            _sync_groups(streams, source_options, projects[name], part)
        return part.sync

    for name, outcome in side_by_side(accounts, sync_account).items():
        if isinstance(outcome, Exception):
            result.failed_accounts[name] = failure_text(outcome, name)
            run_logger().error("account %s: %s", name, result.failed_accounts[name])
            continue
        result.accounts[name] = outcome
        result.sync = result.sync.merge(labelled(outcome, name))
    _after_accounts(accounts, result)


def _sync_groups(
    streams: tuple[str, ...], source_options: dict[str, Any], project: Project,
    result: NightlyResult,
) -> None:  # fmt: skip
    """Sync ``streams`` group by group (:data:`TASK_GROUPS`) into ``result.sync``.

    Raises:
        NothingLoadedError: Every stream of the first group tried failed naming one setting
            (a wrong base URL, a missing scope: the others are not tried, they would fail
            alike), or every stream of the run failed.
    """
    groups = [g for g in (tuple(s for s in group if s in streams) for group in TASK_GROUPS) if g]
    named = "" if project.account == DEFAULT_ACCOUNT else f"{project.account}-"
    for number, selected in enumerate(groups):
        result.sync = result.sync.merge(
            sync_streams(
                selected, label=named + "+".join(selected), source_options=source_options,
                project=project,
            )
        )  # fmt: skip
        if number == 0 and set(selected) <= set(result.sync.failed_streams):
            hopeless = NothingLoadedError(result, tuple(s for g in groups[1:] for s in g))
            if hopeless.setting is not None:  # one cause, a setting: the rest would fail alike
                rename_current_run("nothing loaded: every stream of the first group failed")
                raise hopeless
    if groups and set(streams) <= set(result.sync.failed_streams):
        rename_current_run("nothing loaded: every stream failed")
        raise NothingLoadedError(result, ())


def _window(source_options: dict[str, Any], project: Project) -> str:
    """The shift window a sync of ``project`` with these options pulls (UTC), as in the
    source."""
    options = {**vars(ConnecteamSourceConfiguration()), **project.source.options, **source_options}
    return str(shift_window(project.now, options["shifts_days_back"], options["shifts_days_ahead"]))


def _describe(result: NightlyResult) -> str:
    """A flow run name that says what the run did."""
    parts = []
    if result.sync.warehouse:
        parts.append(f"{result.sync.dataset} {rows_text(result.sync.rows)}")
    if result.fold is not None:
        parts.append(f"webhooks {result.fold.events:,} events")
    if result.models is not None:
        parts.append(f"dbt {result.models.passed} passed")
    if result.publish is not None:
        parts.append("published" + (", report written" if result.report is not None else ""))
    elif result.publish_note is not None:
        parts.append("publish skipped (PostgreSQL)")
    return "nightly-sync: " + ("; ".join(parts) or "nothing to do")
