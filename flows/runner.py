"""Run a flow through Prefect's engine when a Prefect API is configured, directly otherwise.

With ``PREFECT_API_URL`` set (a ``prefect server start`` or Prefect Cloud, as deployments and
workers always have), a flow call goes through Prefect: flow and task runs are recorded, named and
retried by the engine. Without it, Prefect would start a temporary API server in a subprocess and
migrate its SQLite database under ``PREFECT_HOME`` before the first step, which on a fresh home and
a busy machine times out (docs/operations.md) and records nothing anyone will look at. So a
one-shot command run without an API calls the flow's own function, and each task's function with
the retries the task declares: the same code and the same retry policy, no server.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from prefect import Flow, Task, get_run_logger
from prefect.client.schemas.objects import TaskRun
from prefect.context import FlowRunContext, TaskRunContext
from prefect.exceptions import MissingContextError
from prefect.states import State

P = ParamSpec("P")
R = TypeVar("R")
logger = logging.getLogger("flows")


def prefect_api_url() -> str | None:
    """The configured Prefect API (``PREFECT_API_URL`` from the environment or the active Prefect
    profile), or ``None`` when runs have no server to report to."""
    from prefect.settings import PREFECT_API_URL

    return PREFECT_API_URL.value() or None


def run_flow(flow: Flow[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Call ``flow``: through Prefect's engine when :func:`prefect_api_url` is set, else its
    function directly (its tasks then run through :func:`call_task` without the engine).

    Raises:
        Whatever the flow raises.
    """
    if prefect_api_url():
        return flow(*args, **kwargs)
    logger.info(
        "flow %s: running without a Prefect server (set PREFECT_API_URL to record runs on one)",
        flow.name,
    )
    return flow.fn(*args, **kwargs)


def call_task(task: Task[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Call ``task`` inside a flow: through Prefect inside a flow run, else its function directly,
    retried as the task declares (``retries``, ``retry_delay_seconds``, and a retry condition made
    by :func:`retry_if`).

    Raises:
        The task's last exception once its retries are spent or its condition declines a retry.
    """
    if FlowRunContext.get() is not None or TaskRunContext.get() is not None:
        return task(*args, **kwargs)
    delays = _delays(task)
    predicate: Callable[[BaseException], bool] = getattr(
        task.retry_condition_fn, "exception_predicate", lambda _exc: True
    )
    for attempt in range(len(delays) + 1):
        try:
            return task.fn(*args, **kwargs)
        except Exception as exc:
            if attempt >= len(delays) or not predicate(exc):
                raise
            logger.warning(
                "task %s failed (%s: %s); retry %d of %d in %.0f s",
                task.name, type(exc).__name__, exc, attempt + 1, len(delays), delays[attempt],
            )  # fmt: skip
            time.sleep(delays[attempt])
    raise AssertionError("unreachable")  # pragma: no cover


def _delays(task: Task[Any, Any]) -> list[float]:
    """The seconds to wait before each retry the task declares."""
    retries = task.retries or 0
    declared = task.retry_delay_seconds
    if isinstance(declared, list | tuple):
        values = [float(d) for d in declared] or [0.0]
        return [values[min(i, len(values) - 1)] for i in range(retries)]
    return [float(declared or 0) if not callable(declared) else 0.0] * retries


RetryCondition = Callable[[Task[..., Any], TaskRun, State[Any]], bool]


def cause_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes, each once: ``__cause__``, else ``__context__`` unless
    ``raise ... from None`` hid it."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        hidden = current.__suppress_context__
        current = current.__cause__ or (None if hidden else current.__context__)
    return chain


def retry_if(predicate: Callable[[BaseException], bool]) -> RetryCondition:
    """A Prefect ``retry_condition_fn`` that retries a failed task run when ``predicate`` holds
    for its exception; :func:`call_task` applies the same predicate without the engine."""

    def condition(task: Task[..., Any], task_run: TaskRun, state: State[Any]) -> bool:
        try:
            state.result()
        except Exception as exc:  # noqa: BLE001 - classify whatever the task raised
            return predicate(exc)
        return True

    condition.exception_predicate = predicate  # type: ignore[attr-defined]
    return condition


def run_logger() -> logging.Logger | logging.LoggerAdapter[logging.Logger]:
    """Prefect's run logger inside a flow or task run (its lines reach the server), else the
    ``flows`` logger."""
    try:
        return get_run_logger()
    except MissingContextError:
        return logger
