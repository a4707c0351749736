"""Prefect deployments of wfm-sync: ``nightly_sync`` on a cron, ``fold_webhooks`` on an interval.

Two ways to run them, both against a Prefect server (``PREFECT_API_URL``; schedules live on the
server, so without one nothing is scheduled):

* :func:`serve_deployments` (``wfm-sync serve``): this process registers both deployments and
  runs their scheduled flow runs itself, as subprocesses. One machine, nothing else to install.
* :func:`deploy_to_work_pool` (``wfm-sync deploy --work-pool NAME``): registers both deployments
  on a work pool; any number of ``prefect worker start --pool NAME`` processes, on any machine
  with this project installed, pick the runs up.

Secrets are never deployment parameters: the runs read them from the environment or ``.dlt/``
of the process that executes them. The work-pool deployments carry the telemetry opt-outs
(:data:`TELEMETRY_OPT_OUTS`) in their job variables, so a flow run a worker starts sends no usage
data even though ``prefect worker start`` is not the ``wfm-sync`` command.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefect.schedules import Cron, Interval

from core.settings import Settings
from flows.fold import fold_webhooks
from flows.nightly import nightly_sync
from flows.runner import Job

DEFAULT_NIGHTLY_CRON: str = Settings.model_fields["nightly_cron"].default
DEFAULT_TIMEZONE: str = Settings.model_fields["timezone"].default
DEFAULT_FOLD_EVERY_SECONDS: int = Settings.model_fields["fold_every"].default
NIGHTLY_DEPLOYMENT = "nightly"
FOLD_DEPLOYMENT = "every-5-minutes"
PROJECT_DIR = Path(__file__).resolve().parent.parent
TELEMETRY_OPT_OUTS = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "RUNTIME__DLTHUB_TELEMETRY": "false",
}
"""Environment of every flow run of the work-pool deployments (job variable ``env``): Prefect's
client analytics and dbt's usage statistics honour ``DO_NOT_TRACK``, a Prefect server started in
the run sends none, dlt's telemetry is off; the same opt-outs the ``wfm-sync`` command sets for
itself."""


class SchedulerConfigError(RuntimeError):
    """No Prefect server configured, or a schedule that cannot be used."""


@dataclass(frozen=True)
class Schedules:
    """When the jobs run (``wfm-sync serve``/``deploy`` fill it from the settings and options).

    Attributes:
        nightly_cron: Cron expression of ``nightly_sync`` (default ``0 2 * * *``, 02:00).
        timezone: IANA timezone the cron is read in, e.g. ``Europe/Berlin`` (default UTC).
        fold_every_seconds: Interval of ``fold_webhooks`` in seconds (default 300).
    """

    nightly_cron: str = DEFAULT_NIGHTLY_CRON
    timezone: str = DEFAULT_TIMEZONE
    fold_every_seconds: int = DEFAULT_FOLD_EVERY_SECONDS

    def check(self) -> None:
        """Raise :class:`SchedulerConfigError` for an unknown timezone or a bad interval/cron."""
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise SchedulerConfigError(
                f"unknown timezone {self.timezone!r}: use an IANA name such as Europe/Berlin"
            ) from None
        if self.fold_every_seconds < 1:
            raise SchedulerConfigError("the fold interval must be at least 1 second")
        try:
            Cron(self.nightly_cron, timezone=self.timezone)
        except ValueError as exc:
            raise SchedulerConfigError(f"bad cron {self.nightly_cron!r}: {exc}") from None


def require_server() -> str:
    """The configured ``PREFECT_API_URL``.

    Raises:
        SchedulerConfigError: None is set, or the server there does not answer its health
            check (``GET <url>/health``) within 10 s; the message says how to start a server.
    """
    import httpx
    from prefect.settings import PREFECT_API_URL

    url = PREFECT_API_URL.value() or os.environ.get("PREFECT_API_URL")
    if not url:
        raise SchedulerConfigError(
            "schedules need a Prefect server: start one with `prefect server start` and "
            "export PREFECT_API_URL=http://127.0.0.1:4200/api, then run this again"
        )
    shown = str(url).split("@")[-1]  # never a user:password part
    try:
        answer = httpx.get(f"{str(url).rstrip('/')}/health", timeout=10.0)
    except httpx.HTTPError as exc:
        raise SchedulerConfigError(
            f"PREFECT_API_URL={shown} does not answer ({type(exc).__name__}): start the server "
            "with `prefect server start` or correct the URL (it ends in /api)"
        ) from None
    if answer.status_code != 200:
        raise SchedulerConfigError(
            f"PREFECT_API_URL={shown} answered HTTP {answer.status_code} to GET /health: is it "
            "a Prefect server's API URL (it ends in /api)?"
        )
    return str(url)


def _definitions(
    schedules: Schedules, allow_insecure: bool = False
) -> list[tuple[Job[..., Any], dict[str, Any]]]:
    description = "wfm-sync: {} (see docs/operations.md)."
    nightly_parameters = {"source_options": {"allow_insecure": True}} if allow_insecure else {}
    return [
        (
            nightly_sync,
            {
                "name": NIGHTLY_DEPLOYMENT,
                "schedule": Cron(schedules.nightly_cron, timezone=schedules.timezone),
                "description": description.format("sync the API, fold, build models, publish"),
                "parameters": nightly_parameters,
                "tags": ["wfm-sync"],
                "concurrency_limit": 1,
            },
        ),
        (
            fold_webhooks,
            {
                "name": FOLD_DEPLOYMENT,
                "schedule": Interval(schedules.fold_every_seconds, timezone=schedules.timezone),
                "description": description.format(
                    "fold received webhook events, rebuild the models that read them, publish"
                ),
                "parameters": {"models": True},
                "tags": ["wfm-sync"],
                "concurrency_limit": 1,
            },
        ),
    ]


def work_pool_definitions(
    schedules: Schedules, allow_insecure: bool = False, accounts: tuple[str, ...] = ()
) -> list[tuple[Job[..., Any], dict[str, Any]]]:
    """``(job, deployment options)`` of the deployments as :func:`deploy_to_work_pool`
    registers them: the options of ``Flow.deploy`` (name, schedule, parameters, ...) with job
    variable ``env`` :data:`TELEMETRY_OPT_OUTS`. With several ``accounts``, the nightly
    deployment syncs them on the workers (``sync_on_workers``) through one deployment per
    account (:func:`flows.fan_out.account_deployment`: unscheduled, one run at a time)."""
    definitions = _definitions(schedules, allow_insecure)
    if len(accounts) > 1:
        nightly, nightly_options = definitions[0]
        parameters = {**nightly_options["parameters"], "sync_on_workers": True}
        definitions[0] = (nightly, {**nightly_options, "parameters": parameters})
        definitions += [
            (nightly, _account_options(nightly_options, account)) for account in accounts
        ]
    return [
        (job, {**options, "job_variables": {"env": dict(TELEMETRY_OPT_OUTS)}})
        for job, options in definitions
    ]


def _account_options(nightly: dict[str, Any], account: str) -> dict[str, Any]:
    """The deployment options of ``account``'s sync: the nightly deployment's, unscheduled,
    for that account and the sync step alone."""
    from flows.fan_out import account_deployment

    return {
        **nightly,
        "name": account_deployment(account),
        "schedule": None,
        "description": f"wfm-sync: sync account {account} (the nightly run starts it).",
        "parameters": {**nightly["parameters"], "accounts": [account], "steps": ["sync"]},
    }


ENTRYPOINT_FILE = "flows/prefect_flows.py"
"""The file of the deployments' flows (:mod:`flows.prefect_flows`) from the project's root, the
file part of every deployment entrypoint."""


def deployed_flow(job: Job[..., Any]) -> Any:
    """The Prefect flow a deployment of ``job`` runs (:mod:`flows.prefect_flows`: the job with its
    project resolved as each run starts), typed ``Any``: Prefect's sync/async union is sync
    here. Imports Prefect."""
    from flows import prefect_flows

    return getattr(prefect_flows, job.fn.__name__)


def entrypoint(job: Job[..., Any], root: Path = PROJECT_DIR) -> str:
    """The entrypoint of ``job``'s Prefect flow (:mod:`flows.prefect_flows`), its file relative
    to ``root``: ``flows/prefect_flows.py:nightly_sync`` from the project's root."""
    path = os.path.relpath(PROJECT_DIR / ENTRYPOINT_FILE, root)
    return f"{Path(path).as_posix()}:{job.fn.__name__}"


def serve_deployments(schedules: Schedules, allow_insecure: bool = False) -> None:
    """Register both deployments on the Prefect server and run their scheduled runs here.

    ``allow_insecure`` becomes the nightly deployment's ``source_options`` (``--allow-insecure``:
    a plain ``http://`` base URL to another machine is accepted).

    Blocks until interrupted (Ctrl-C pauses the schedules of served deployments, as Prefect's
    ``serve`` does).

    Raises:
        SchedulerConfigError: No ``PREFECT_API_URL``, or a bad schedule.
    """
    from prefect import serve

    require_server()
    schedules.check()
    deployments = []
    for job, options in _definitions(schedules, allow_insecure):
        deployment = deployed_flow(job).to_deployment(**options)
        # the runner loads the flow from here (the job's own module holds the job, not a Flow)
        deployment.entrypoint = entrypoint(job, Path.cwd())
        deployments.append(deployment)
    serve(*deployments, print_starting_message=True)


def deploy_to_work_pool(
    schedules: Schedules,
    work_pool: str,
    source: Path = PROJECT_DIR,
    allow_insecure: bool = False,
    accounts: tuple[str, ...] = (),
) -> list[str]:
    """Register the deployments on ``work_pool``, with the code taken from ``source``
    (``allow_insecure`` as in :func:`serve_deployments`): the nightly and the fold, and with
    several ``accounts`` one sync deployment per account (:func:`work_pool_definitions`).

    Workers of the pool (``prefect worker start --pool NAME``; type ``process``) run them in a
    subprocess started in ``source``, so the machine running a worker needs this project
    installed at that path; the subprocess gets the telemetry opt-outs
    (:func:`work_pool_definitions`).

    Returns:
        The deployment names, ``<flow>/<deployment>``.

    Raises:
        SchedulerConfigError: No ``PREFECT_API_URL``, or a bad schedule.
    """
    require_server()
    schedules.check()
    names = []
    for job, options in work_pool_definitions(schedules, allow_insecure, accounts):
        remote = deployed_flow(job).from_source(source=str(source), entrypoint=entrypoint(job))
        remote.deploy(work_pool_name=work_pool, build=False, push=False, print_next_steps=False,
                      **options)  # fmt: skip
        names.append(f"{job.name}/{options['name']}")
    return names
