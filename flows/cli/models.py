"""``wfm-sync models``: build and test the dbt models in ``sql/`` (the ``build_models`` flow
once), publish the read-only snapshot, generate the docs."""

from __future__ import annotations

from typing import Annotated

import typer

from .live import live_progress
from .render import print_models
from .terminal import configured_project, console, fail, setup_logging

app = typer.Typer(help="The dbt models in sql/: build and test them, publish, document.")


@app.command("build")
def models_build(
    select: Annotated[
        str,
        typer.Option(help="dbt selection (default: what changed since the last whole build)."),
    ] = "",
    everything: Annotated[
        bool,
        typer.Option(
            "--all", help="Build and test every model, not only those whose inputs changed."
        ),
    ] = False,
    publish: Annotated[
        bool,
        typer.Option(help="Publish the read-only snapshot after a successful build (DuckDB only)."),
    ] = True,
    full_refresh: Annotated[
        bool,
        typer.Option(
            "--full-refresh",
            help="Rebuild the incremental marts from all their history (dbt's --full-refresh): a "
            "repair; an ordinary build already re-derives every changed day, at any age.",
        ),
    ] = False,
    unit_tests: Annotated[
        bool,
        typer.Option(
            "--unit-tests",
            help="Then run every dbt unit test (make test does; builds leave them out).",
        ),
    ] = False,
) -> None:
    """Run `dbt build` (models and their data tests) on the warehouse, then publish.

    Without --select or --all it rebuilds the models whose inputs changed since the last whole
    build and those computed against now (every model the first time, and after the dbt project
    changed). Unit tests are `make test`'s. On PostgreSQL (WFM_SYNC_DESTINATION=postgres) the
    models are built in the database of DESTINATION__POSTGRES__CREDENTIALS and publish is
    skipped with a note. A failing test is named with a sample of its offending rows, and the
    command exits 1.
    """
    import time

    if everything and select:
        raise typer.BadParameter(
            "--all builds every model; give it or --select, not both", param_hint="--all"
        )
    setup_logging(False)
    from flows.models import build_models_flow

    project = configured_project("models build")
    started = time.monotonic()
    try:
        with live_progress():
            result = build_models_flow(
                select=select or None,
                publish_after=publish,
                full_refresh=full_refresh,
                everything=everything,
                unit_tests=unit_tests,
                project=project,
            )
    except Exception as exc:  # noqa: BLE001
        fail(exc, "models build")
    print_models(result.models, result.publish, result.publish_note)
    console.print(f"time taken: {time.monotonic() - started:.1f} s")


@app.command("publish")
def models_publish() -> None:
    """Publish the warehouse as the read-only snapshot (default data/analytics.duckdb) and the
    marts as Parquet; DuckDB only."""
    from pipelines.publish import publish_skip_reason, publish_snapshot

    project = configured_project("publish")
    try:
        reason = publish_skip_reason(project)
        if reason is not None:
            raise ValueError(reason)
        print_models(published=publish_snapshot(project=project))
    except Exception as exc:  # noqa: BLE001
        fail(exc, "publish")


@app.command("docs")
def models_docs() -> None:
    """Generate the dbt docs offline as one HTML file (sql/target/static_index.html)."""
    from pipelines.models import generate_docs

    setup_logging(False)
    project = configured_project("docs")
    try:
        with live_progress():
            path = generate_docs(project)
    except Exception as exc:  # noqa: BLE001
        fail(exc, "docs")
    console.print(f"docs: {path} (open it in a browser; no server or internet needed)")
