"""Steps and jobs, declared once without Prefect; run through Prefect only where it records them.

A :class:`Step` is a function with its retry policy (what Prefect calls a task's options); a
:class:`Job` is a function made of steps, with its run name (a flow's options). Declaring them
(:func:`step`, :func:`job`) imports nothing of Prefect.

With a Prefect API configured (:func:`prefect_api_url`: a ``prefect server start`` or Prefect
Cloud, as deployments and workers always have), calling a job runs it through Prefect's engine as
the flow :attr:`Job.prefect_flow`, and its steps as the tasks :attr:`Step.prefect_task`, built
from the same declarations: runs are recorded, named and retried by the engine. Without one,
Prefect would start a temporary API server in a subprocess and migrate its SQLite database under
``PREFECT_HOME`` before the first step, which on a fresh home and a busy machine times out
(docs/operations.md) and records nothing anyone will look at; so a job calls its own function,
each step retries as declared, and Prefect is never imported: a one-shot command reaches its
first request without Prefect's import or server.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar

from core.errors import cause_chain as cause_chain  # the jobs' classifiers import it from here
from core.errors import disk_full

if TYPE_CHECKING:
    from prefect import Flow, Task

P = ParamSpec("P")
R = TypeVar("R")
logger = logging.getLogger("flows")


def prefect_api_url() -> str | None:
    """The configured Prefect API (``PREFECT_API_URL`` from the environment, the active Prefect
    profile, ``prefect.toml``, ``pyproject.toml``'s ``[tool.prefect]`` or ``.env``), or ``None``
    when runs have no server to report to.

    Prefect's settings are asked (importing Prefect, ~0.7 s) only when one of those places could
    set it; with none of them there is no API and Prefect is not imported.
    """
    url = os.environ.get("PREFECT_API_URL")
    if url:
        return url
    if not _may_set_api_url():
        return None
    from prefect.settings import PREFECT_API_URL

    return PREFECT_API_URL.value() or None


def _may_set_api_url() -> bool:
    """Whether a Prefect settings source other than the environment may set the API URL."""
    home = Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    profiles = Path(os.environ.get("PREFECT_PROFILES_PATH") or home / "profiles.toml")
    places = {
        profiles.expanduser(): "PREFECT_API_URL",
        Path("prefect.toml"): "",
        Path("pyproject.toml"): "tool.prefect",
        Path(".env"): "PREFECT_API_URL",
    }
    for path, marker in places.items():
        try:
            if marker in path.read_text(errors="replace"):
                return True
        except OSError:  # absent or unreadable: Prefect reads nothing there either
            continue
    return False


def in_prefect_run() -> bool:
    """Whether this code runs inside a Prefect flow or task run (never, unless Prefect is
    imported)."""
    if "prefect.context" not in sys.modules:
        return False
    from prefect.context import FlowRunContext, TaskRunContext

    return FlowRunContext.get() is not None or TaskRunContext.get() is not None


class Step(Generic[P, R]):
    """A function with its retry policy; calling the step runs it.

    Inside a Prefect flow run it runs as the Prefect task :attr:`prefect_task` (recorded,
    retried by the engine); otherwise directly, retried ``retries`` times after the delays
    ``retry_delay_seconds`` (the last delay repeats) while ``retry_if(exception)`` holds.

    Raises:
        The function's last exception once its retries are spent or ``retry_if`` declines.
    """

    def __init__(
        self,
        fn: Callable[P, R],
        *,
        name: str,
        run_name: str,
        retries: int = 0,
        retry_delay_seconds: tuple[float, ...] = (),
        retry_if: Callable[[BaseException], bool] | None = None,
    ) -> None:
        self.fn = fn
        self.name = name
        self.run_name = run_name
        self.retries = retries
        self.retry_delay_seconds = retry_delay_seconds or (0.0,)
        self.retry_if = retry_if or (lambda _exc: True)
        functools.update_wrapper(self, fn)

    def should_retry(self, exc: BaseException) -> bool:
        """Whether ``exc`` is worth another attempt: never a full disk
        (:func:`core.errors.disk_full`: the next attempt would trip over the same want of
        space, and on the half-written files of the first), else as ``retry_if`` says."""
        return disk_full(exc) is None and self.retry_if(exc)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if in_prefect_run():
            return self.prefect_task(*args, **kwargs)
        for attempt in range(self.retries + 1):
            try:
                return self.fn(*args, **kwargs)
            except Exception as exc:
                if attempt >= self.retries or not self.should_retry(exc):
                    raise
                delay = self.delay(attempt)
                logger.warning(
                    "step %s failed (%s: %s); retry %d of %d in %.0f s",
                    self.name, type(exc).__name__, exc, attempt + 1, self.retries, delay,
                )  # fmt: skip
                time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry ``attempt + 1`` (the last declared delay repeats)."""
        delays = self.retry_delay_seconds
        return float(delays[min(attempt, len(delays) - 1)])

    @functools.cached_property
    def prefect_task(self) -> Task[P, R]:
        """The Prefect task of this step: same function, name, retries, delays and condition."""
        from prefect import task

        predicate = self.should_retry

        def condition(_task: Any, _task_run: Any, state: Any) -> bool:
            try:
                state.result()
            except Exception as exc:  # noqa: BLE001 - classify whatever the task raised
                return predicate(exc)
            return True

        return task(
            name=self.name,
            task_run_name=self.run_name,
            retries=self.retries,
            retry_delay_seconds=[self.delay(i) for i in range(self.retries)] or 0,
            retry_condition_fn=condition,
        )(self.fn)


class Job(Generic[P, R]):
    """A function made of steps (a Prefect flow's body); calling the job runs it once.

    With :func:`prefect_api_url` set it runs through Prefect's engine as :attr:`prefect_flow`;
    otherwise it calls its function directly (its steps then retry without the engine).

    Raises:
        Whatever the function raises.
    """

    def __init__(self, fn: Callable[P, R], *, name: str, run_name: str) -> None:
        self.fn = fn
        self.name = name
        self.run_name = run_name
        functools.update_wrapper(self, fn)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if prefect_api_url() or in_prefect_run():
            return self.prefect_flow(*args, **kwargs)
        logger.info(
            "flow %s: running without a Prefect server (set PREFECT_API_URL to record runs on one)",
            self.name,
        )
        return self.fn(*args, **kwargs)

    @functools.cached_property
    def prefect_flow(self) -> Flow[P, R]:
        """The Prefect flow of this job: same function, name and run name, prints logged."""
        from prefect import flow

        return flow(name=self.name, flow_run_name=self.run_name, log_prints=True)(self.fn)


def step(
    *,
    name: str,
    run_name: str,
    retries: int = 0,
    retry_delay_seconds: tuple[float, ...] = (),
    retry_if: Callable[[BaseException], bool] | None = None,
) -> Callable[[Callable[P, R]], Step[P, R]]:
    """Declare a :class:`Step` (the options are Prefect's task options of the same names)."""

    def declare(fn: Callable[P, R]) -> Step[P, R]:
        return Step(fn, name=name, run_name=run_name, retries=retries,
                    retry_delay_seconds=retry_delay_seconds, retry_if=retry_if)  # fmt: skip

    return declare


def job(*, name: str, run_name: str) -> Callable[[Callable[P, R]], Job[P, R]]:
    """Declare a :class:`Job` (``name`` and ``run_name`` are the Prefect flow's ``name`` and
    ``flow_run_name``)."""

    def declare(fn: Callable[P, R]) -> Job[P, R]:
        return Job(fn, name=name, run_name=run_name)

    return declare


def run_logger() -> logging.Logger | logging.LoggerAdapter[logging.Logger]:
    """Prefect's run logger inside a flow or task run (its lines reach the server), else the
    ``flows`` logger."""
    if not in_prefect_run():
        return logger
    from prefect import get_run_logger

    return get_run_logger()
