"""The jobs of wfm-sync, each a plain function returning a small summary (no Prefect here)."""

from .sync import STREAMS, SyncSummary, run_sync
from .warehouse import build_pipeline, finish_pending_loads, warehouse_path

__all__ = [
    "STREAMS",
    "SyncSummary",
    "build_pipeline",
    "finish_pending_loads",
    "run_sync",
    "warehouse_path",
]
