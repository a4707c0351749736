"""The jobs of wfm-sync, each a plain function returning a small summary (no Prefect here).

The names below are imported on first use, so a command that needs one job (``wfm-sync
status`` reads :mod:`pipelines.status`) does not pay for the sync's dlt source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_attributes

if TYPE_CHECKING:
    from .sync import STREAMS, SyncSummary, run_sync
    from .warehouse import build_pipeline, finish_pending_loads

__all__ = [
    "STREAMS",
    "SyncSummary",
    "build_pipeline",
    "finish_pending_loads",
    "run_sync",
]

_HOMES = {
    "STREAMS": ".sync",
    "SyncSummary": ".sync",
    "run_sync": ".sync",
    "build_pipeline": ".warehouse",
    "finish_pending_loads": ".warehouse",
}

__getattr__ = lazy_attributes(__name__, _HOMES)
