"""The webhook inbox as ``wfm-sync status`` shows it: backlog, quarantine, refused deliveries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inbox.refusals import RefusalSummary, refusal_summary
from inbox.store import Inbox
from inbox.url import check_inbox_url


def inbox_status(now: float, inbox_url: str) -> tuple[dict[str, Any], RefusalSummary | None]:
    """Backlog and quarantine of the webhook inbox at ``inbox_url``, and its refusals.

    Args:
        now: The current time, epoch seconds (the refusals of the hour before it are counted).
        inbox_url: The inbox's SQLAlchemy URL (:attr:`core.project.Project.webhooks`), checked
            here (:func:`~sources.webhooks.config.check_inbox_url`).

    Returns:
        ``(counts, refusals)``: ``counts`` holds ``inbox`` (the URL without its password),
        ``backlog``, ``quarantine``, ``quarantine_dropped`` and ``events`` (and ``full``, why
        an SQLite inbox's disk is too full to store events: :meth:`Inbox.space_problem`), or
        ``error`` (a
        setting to fix, an inbox that cannot be read: reported, never raised); ``refusals`` is
        the :class:`~inbox.refusals.RefusalSummary`, or ``None`` without an inbox.
        A missing SQLite inbox is not created.
    """
    try:
        url = check_inbox_url(inbox_url)
    except Exception as exc:  # noqa: BLE001 - reported, not raised (a setting to fix)
        return {"error": str(exc).splitlines()[0]}, None
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///") :]).exists():
        note = {"inbox": url, "backlog": 0, "quarantine": 0, "events": 0, "note": "no inbox yet"}
        return note, None
    try:
        inbox = Inbox(url)
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return {"error": str(exc).splitlines()[0]}, None
    try:
        counts = inbox.counts()
        state = {
            "inbox": inbox.describe(),
            "backlog": counts["unfolded"],
            "quarantine": counts["quarantine"],
            "quarantine_dropped": counts["quarantine_dropped"],
            "events": counts["events"],
        }
        full = inbox.space_problem()
        if full is not None:
            state["full"] = full
        return state, refusal_summary(inbox.engine, now)
    except Exception as exc:  # noqa: BLE001
        return {"inbox": inbox.describe(), "error": str(exc).splitlines()[0]}, None
    finally:
        inbox.close()
