"""``wfm-sync documents``: record user document entries, one (``put-entry``) or in bulk from a
CSV file or a DuckDB query (``bulk``, :func:`pipelines.documents.run_bulk`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from .render import print_bulk
from .terminal import AllowInsecureOption, console, err, fail, setup_logging

if TYPE_CHECKING:
    from pipelines.documents import EntryRow

app = typer.Typer(help="Record user document entries (one, or in bulk from CSV/DuckDB).")


def _run_documents(
    rows: list[EntryRow],
    base_dir: Path | None,
    retry_unexpected: bool = False,
    resubmit_uncertain: bool = False,
    allow_insecure: bool = False,
) -> None:
    """Run the bulk on ``rows``, print what it did; exit 1 when a row failed or stays uncertain
    (or the bulk failed as a whole, with a clean message)."""
    try:
        _record_documents(rows, base_dir, retry_unexpected, resubmit_uncertain, allow_insecure)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
        fail(exc, "documents")


def _record_documents(
    rows: list[EntryRow],
    base_dir: Path | None,
    retry_unexpected: bool,
    resubmit_uncertain: bool,
    allow_insecure: bool,
) -> None:
    from rich.progress import Progress

    from pipelines.documents import run_bulk

    setup_logging(False)
    if console.is_terminal:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("recording entries", total=len(rows))
            summary = run_bulk(
                rows,
                base_dir=base_dir,
                on_progress=lambda done, total, _o: bar.update(task, completed=done, total=total),
                retry_unexpected=retry_unexpected,
                resubmit_uncertain=resubmit_uncertain,
                allow_insecure=allow_insecure,
            )
    else:

        def log_line(done: int, total: int, outcome: dict[str, Any]) -> None:
            if done % 10 == 0 or done == total or outcome["error"]:
                console.print(f"{done}/{total} entries: {outcome['status']}", highlight=False)

        summary = run_bulk(
            rows,
            base_dir=base_dir,
            on_progress=log_line,
            retry_unexpected=retry_unexpected,
            resubmit_uncertain=resubmit_uncertain,
            allow_insecure=allow_insecure,
        )
    print_bulk(summary)
    if summary.failures or summary.uncertain:
        raise typer.Exit(code=1)


@app.command("put-entry")
def documents_put_entry(
    user_id: Annotated[int, typer.Option(help="The user (integer >= 1).")],
    document_id: Annotated[int, typer.Option(help="The document.")],
    file: Annotated[str, typer.Option(help="The file to upload for the entry.")],
    field: Annotated[
        list[str] | None, typer.Option(help="Entry field as name=value (repeatable).")
    ] = None,
    note: Annotated[str, typer.Option(help="A note for the entry.")] = "",
    allow_insecure: AllowInsecureOption = False,
) -> None:
    """Upload a file and record one document entry (approved or pendingApproval, by your
    permission on the document's pack)."""
    from pipelines.documents import BulkInputError, EntryRow

    fields = dict(item.split("=", 1) for item in (field or []) if "=" in item)
    try:
        row = EntryRow(user_id, document_id, file, fields, note or None)
    except BulkInputError as exc:
        err.print(f"[bold red]invalid entry:[/] {escape(str(exc))}")
        raise typer.Exit(code=2) from None
    _run_documents([row], None, allow_insecure=allow_insecure)


@app.command("bulk")
def documents_bulk(
    csv_path: Annotated[
        str, typer.Option("--csv", help="CSV with user_id, document_id, file[, note, fields...].")
    ] = "",
    query: Annotated[
        str, typer.Option(help="DuckDB query returning the same columns (read-only warehouse).")
    ] = "",
    retry_unexpected: Annotated[
        bool,
        typer.Option(
            "--retry-unexpected",
            help="Submit again rows the provider answered with a status other than approved or "
            "pendingApproval (or none).",
        ),
    ] = False,
    resubmit_uncertain: Annotated[
        bool,
        typer.Option(
            "--resubmit-uncertain",
            help="Submit again rows whose PUT got no answer when no check with the provider can "
            "settle them (the PUT replaces the entry of the user and document).",
        ),
    ] = False,
    allow_insecure: AllowInsecureOption = False,
) -> None:
    """Record many entries; each row's outcome is kept as soon as it is known. Re-running skips
    recorded rows, checks with the provider the rows an interrupted run may have sent, and
    retries failed ones."""
    from pipelines.documents import BulkInputError, read_csv, read_query

    if bool(csv_path) == bool(query):
        err.print("give exactly one of --csv or --query")
        raise typer.Exit(code=2)
    try:
        rows = read_csv(Path(csv_path)) if csv_path else read_query(query)
    except BulkInputError as exc:
        err.print(f"[bold red]cannot read the rows:[/] {escape(str(exc))}")
        raise typer.Exit(code=2) from None
    _run_documents(
        rows,
        Path(csv_path).resolve().parent if csv_path else None,
        retry_unexpected=retry_unexpected,
        resubmit_uncertain=resubmit_uncertain,
        allow_insecure=allow_insecure,
    )
