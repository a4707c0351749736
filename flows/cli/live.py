"""The live display of long commands: one line per stream on a terminal.

Sources and jobs count their work with :class:`core.progress.Progress`, which logs plain lines
(what a scheduler's log or a CI job wants). On a terminal, :func:`live_progress` subscribes to
those counts (:func:`core.progress.progress_sink`) and draws them with rich instead; the
closing line per stream is logged either way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.progress import TaskID

from .terminal import err


@contextmanager
def live_progress() -> Iterator[None]:
    """On a terminal, one live line per stream (pages, rows or events, elapsed time) while the block
    runs; elsewhere nothing extra: :class:`core.progress.Progress` logs plain lines."""
    if not err.is_terminal:
        yield
        return
    from rich.progress import Progress as Bars
    from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

    from core.progress import progress_sink

    columns = (
        SpinnerColumn(finished_text="[green]✓[/]"),
        TextColumn("{task.description}"),
        TextColumn("{task.fields[counts]}"),
        TimeElapsedColumn(),
    )
    with Bars(*columns, console=err) as bars:
        tasks: dict[str, TaskID] = {}

        def sink(stream: str, counts: str, finished: bool) -> None:
            if stream not in tasks:
                tasks[stream] = bars.add_task(stream, total=None, counts="")
            bars.update(tasks[stream], counts=counts)
            if finished:
                bars.update(tasks[stream], total=1, completed=1)

        with progress_sink(sink):
            yield
