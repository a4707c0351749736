"""``wfm-sync documents``: record user document entries, one (``put-entry``) or in bulk from a
CSV file or a DuckDB query (``bulk``, :func:`pipelines.documents.run_bulk`); list the entries
whose outcome is not known (``status``) and settle them (``resolve``,
:mod:`pipelines.entry_resolve`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from .render import print_bulk
from .terminal import (
    EXIT_CONFIGURATION,
    AllowInsecureOption,
    configured_project,
    console,
    err,
    fail,
    setup_logging,
)

if TYPE_CHECKING:
    from core.project import Project
    from pipelines.documents import EntryRow

app = typer.Typer(help="Record user document entries (one, or in bulk from CSV/DuckDB).")

AccountOption = Annotated[
    str,
    typer.Option(
        "--account",
        help="The Connecteam account to record for (default: the first configured; see "
        "docs/accounts.md); its outcomes go to its dataset's document_entries.",
    ),
]


def account_project(what: str, account: str | None) -> Project:
    """The command's project (:func:`~.terminal.configured_project`) working for ``account``
    (``None``: the first configured); exits 2 naming the configured accounts for an unknown
    one."""
    project = configured_project(what)
    if account is None:
        return project
    try:
        return project.for_account(account)
    except KeyError as exc:
        err.print(f"[bold red]{what} failed:[/] --account: {escape(str(exc.args[0]))}")
        raise typer.Exit(code=EXIT_CONFIGURATION) from None


def _run_documents(
    project: Project,
    rows: list[EntryRow],
    base_dir: Path | None,
    retry_unexpected: bool = False,
    files_under: Path | None = None,
    allow_insecure: bool = False,
) -> None:
    """Run the bulk on ``rows`` in ``project``, print what it did; exit 1 when a row failed or
    stays uncertain (or the bulk failed as a whole, with a clean message)."""
    try:
        _record_documents(project, rows, base_dir, retry_unexpected, files_under, allow_insecure)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
        fail(exc, "documents")


def _record_documents(
    project: Project,
    rows: list[EntryRow],
    base_dir: Path | None,
    retry_unexpected: bool,
    files_under: Path | None,
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
                files_under=files_under,
                allow_insecure=allow_insecure,
                project=project,
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
            files_under=files_under,
            allow_insecure=allow_insecure,
            project=project,
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
    account: AccountOption = "",
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
    project = account_project("documents", account or None)
    _run_documents(project, [row], None, allow_insecure=allow_insecure)


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
    allow_any_path: Annotated[
        bool,
        typer.Option(
            "--allow-any-path",
            help="Upload the CSV's files wherever they are; by default a file outside the CSV's "
            "folder (absolute, ../) fails its row.",
        ),
    ] = False,
    allow_insecure: AllowInsecureOption = False,
    account: AccountOption = "",
) -> None:
    """Record many entries; each row's outcome is kept as soon as it is known. Re-running skips
    recorded rows, checks with the provider the rows an interrupted run may have sent, and
    retries failed ones; a row whose outcome cannot be told is never sent again (see `status`
    and `resolve`)."""
    from pipelines.documents import BulkInputError, read_csv, read_query

    if bool(csv_path) == bool(query):
        err.print("give exactly one of --csv or --query")
        raise typer.Exit(code=2)
    project = account_project("documents bulk", account or None)
    try:
        rows = read_csv(Path(csv_path)) if csv_path else read_query(query, project.warehouse)
    except BulkInputError as exc:
        err.print(f"[bold red]cannot read the rows:[/] {escape(str(exc))}")
        raise typer.Exit(code=2) from None
    folder = Path(csv_path).resolve().parent if csv_path else None
    _run_documents(
        project,
        rows,
        folder,
        retry_unexpected=retry_unexpected,
        files_under=None if allow_any_path else folder,
        allow_insecure=allow_insecure,
    )


@app.command("status")
def documents_status(account: AccountOption = "") -> None:
    """List the entries whose PUT may have reached the provider without a known outcome:
    `sending` (the next bulk checks them) and `uncertain` (no check can tell; settle them with
    `resolve`)."""
    import time

    from pipelines.entry_resolve import unsettled_entries

    try:
        rows = unsettled_entries(project=account_project("documents status", account or None))
    except Exception as exc:  # noqa: BLE001
        fail(exc, "documents status")
    if not rows:
        console.print("no document entry waiting to be settled")
        return
    for row in rows:  # one line per entry, never wrapped: the key stays whole for `resolve`
        sent = row["submitted_at"]
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(sent)) if sent else "-"
        console.print(
            f"{row['entry_key']}  {row['status']}  user_id {row['user_id']}  document_id "
            f"{row['document_id']}  file {escape(str(row['file']))}  sent {when}: "
            f"{escape(row['error'] or 'not checked yet')}",
            highlight=False,
            soft_wrap=True,
        )
    console.print(
        f"{len(rows)} entries waiting: `wfm-sync documents resolve KEY... --sent` if the "
        "provider's app shows them recorded, `--resend` to send them once more (--all for every "
        "one)",
        highlight=False,
    )


@app.command("resolve")
def documents_resolve(
    keys: Annotated[
        list[str] | None,
        typer.Argument(help="Entry keys (or prefixes of 8+ characters) from `documents status`."),
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Every entry `documents status` lists.")
    ] = False,
    sent: Annotated[
        bool, typer.Option("--sent", help="Mark them recorded, without any request.")
    ] = False,
    resend: Annotated[
        bool,
        typer.Option(
            "--resend",
            help="Send each uncertain entry's PUT once more (a sending one is checked with "
            "the provider first, and sent only if named and found absent).",
        ),
    ] = False,
    account: AccountOption = "",
) -> None:
    """Settle entries whose outcome is not known: as recorded (--sent) or by sending them once
    more (--resend); the outcomes land in the account's document_entries
    (connecteam.document_entries for the default account)."""
    from pipelines.entry_resolve import ResolveInputError, resolve_entries

    if sent == resend:
        err.print("give exactly one of --sent or --resend")
        raise typer.Exit(code=EXIT_CONFIGURATION)
    if bool(keys) == every:
        err.print("give entry keys (see `wfm-sync documents status`) or --all, not both")
        raise typer.Exit(code=EXIT_CONFIGURATION)
    setup_logging(False)
    try:
        project = account_project("documents resolve", account or None)
        summary = resolve_entries(None if every else keys, resend=resend, project=project)
    except ResolveInputError as exc:
        err.print(f"[bold red]cannot resolve:[/] {escape(str(exc))}")
        raise typer.Exit(code=EXIT_CONFIGURATION) from None
    except Exception as exc:  # noqa: BLE001
        fail(exc, "documents resolve")
    for row in summary.rows:
        console.print(f"{row['entry_key']}: {row['status']}", highlight=False)
    outcomes = ", ".join(f"{status} {n}" for status, n in sorted(summary.settled.items()))
    console.print(
        f"{len(summary.rows)} entries settled ({outcomes or 'none waiting'}); "
        f"{summary.requests} requests; outcomes in connecteam.document_entries",
        highlight=False,
    )
    if any(row["status"] in ("failed", "sending", "uncertain") for row in summary.rows):
        raise typer.Exit(code=1)
