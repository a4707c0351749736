"""Documents resource: ``user_documents`` (beta ``GET /documents/v1/user-documents``), merged on
``id``. The write path (document entries) is :mod:`sources.connecteam.documents`."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import partial

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import hints
from ..client import ConnecteamClient
from ..listing import complete_listing, second_pass
from ..registry import STREAMS
from .common import DELETION_MARK, diff_listing, listing_tables
from .run import Builders

logger = logging.getLogger("sources.connecteam")


def user_documents(client: ConnecteamClient) -> DltResource:
    """``user_documents``: every user document (beta ``GET /documents/v1/user-documents``),
    merged on ``id``; only new or changed records are loaded (digests in the resource state);
    one a consistent listing no longer holds is marked deleted."""

    @dlt.resource(
        name="user_documents",
        primary_key="id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(DELETION_MARK),
    )
    def _user_documents() -> Iterator[pa.Table]:
        progress = Progress("user_documents", logger=logger)
        listing = partial(client.pages, STREAMS["user_documents"])
        listed, complete = complete_listing(listing(), progress.page)
        again = second_pass(listing, lambda r: str(r.get("id")))
        changed, gone = diff_listing(client, "user_documents", "id", listed, complete, reread=again)
        yield from listing_tables(client, "user_documents", DELETION_MARK, changed, gone)
        progress.done(f", {len(changed)} new or changed, {len(gone)} deleted")

    return _user_documents


RESOURCES: Builders = {"user_documents": lambda run: user_documents(run.client)}
"""This domain's streams and how each one's resource is built for a run."""
