"""The provider's write path for user documents: upload a file, record a document entry, and
find out afterwards whether an entry was recorded.

Follows ``spec/service-interface.md`` (``PUT /documents/v1/users/{userId}/documents/
{documentId}/entry``: ``userId`` integer ≥ 1, ``documentId`` integer, 422 answered with
``HTTPValidationError``) and the spec's attachments endpoints (``POST /attachments/v1/files/
generate-upload-url``, the pre-signed upload, ``PUT /attachments/v1/files/complete-upload/
{fileId}``). The entry's request body is "not shown" in the interface; this client sends
``{fileId, fields?, note?}`` (see ``emulator/domains/documents/routes.py``). Whether an entry
was recorded is checked with ``GET /documents/v1/user-documents`` (beta; the emulator's
documented shape).
"""

from __future__ import annotations

import logging
import mimetypes
import time
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from .client import ConnecteamClient
from .errors import ConnecteamAPIError, ConnecteamError
from .registry import STREAMS

logger = logging.getLogger(__name__)

GENERATE_UPLOAD_URL = "/attachments/v1/files/generate-upload-url"
COMPLETE_UPLOAD = "/attachments/v1/files/complete-upload/{fileId}"
DOCUMENT_ENTRY = "/documents/v1/users/{userId}/documents/{documentId}/entry"
WRITE_SCOPES = "attachments.write documents.write"
"""OAuth 2.0 scopes the write path needs."""
ENTRY_STATUSES = ("approved", "pendingApproval")
"""What the provider answers for a recorded entry: ``approved`` when the caller holds approve
permission on the document's pack, ``pendingApproval`` when it holds only upload permission."""
CHECK_BATCH = 50
"""User ids per ``GET /documents/v1/user-documents`` request of a check."""


class EntryUncertainError(ConnecteamError):
    """The entry's PUT may have reached the provider, but no answer said what happened and the
    check could not settle it (the provider kept failing, or the check itself failed). Submitting
    again blindly could record the entry twice; the next bulk run checks first."""


class EntryUntoldError(EntryUncertainError):
    """The entry's PUT may have reached the provider and the check listed the user's document,
    but the listing cannot tell whether it holds this entry (no ``fileId``, no ``updatedAt``:
    :func:`is_our_entry` is ``None``). Checking again tells no more: the entry must not be sent
    again until someone settles it."""


@dataclass(frozen=True)
class EntryResult:
    """How a PUT of an entry ended.

    Attributes:
        status: The provider's status as it came (``approved``, ``pendingApproval``, any other
            string), or ``unknown`` when the answer had none.
        request_id: The answer's ``requestId`` (``None`` when settled by a check).
        user_document_id: ``data.id`` of the answer, or ``id`` of the listed user document.
        resolved_by: ``answer`` (the PUT's own answer) or ``check`` (the PUT's answer was lost and
            the user's documents were listed to find the entry).
    """

    status: str
    request_id: str | None
    user_document_id: Any
    resolved_by: str


def validate_ids(user_id: Any, document_id: Any) -> tuple[int, int]:
    """Check and convert the entry's path parameters as the interface types them.

    Accepts integers, integral floats or decimals, and strings of digits (``" 1001 "``).

    Returns:
        ``(userId, documentId)`` as integers.

    Raises:
        ValueError: ``userId`` is not an integer ≥ 1 or ``documentId`` is not an integer; the
            message names the parameter and the value.
    """
    user = _as_integer(user_id)
    document = _as_integer(document_id)
    if user is None or user < 1:
        raise ValueError(
            f"userId must be an integer >= 1 (the interface's minimum), got {user_id!r}"
        )
    if document is None:
        raise ValueError(f"documentId must be an integer, got {document_id!r}")
    return user, document


def _as_integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float | Decimal):
        return int(value) if value == value and value % 1 == 0 else None  # NaN != NaN
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text[:1] in "+-" else text
        return int(text) if digits.isascii() and digits.isdigit() else None
    return None


def upload_file(client: ConnecteamClient, path: Path, feature_type: str = "documents") -> str:
    """Upload one file through the attachments endpoints and return its ``fileId``.

    Args:
        client: An authenticated client (scope ``attachments.write`` with OAuth).
        path: The local file.
        feature_type: The attachment's feature; document entries need ``documents``.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ConnecteamAPIError: The provider refused a step (named in the message).
    """
    content = path.read_bytes()
    content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    answer = client.request(
        "POST",
        GENERATE_UPLOAD_URL,
        json={"fileName": path.name, "fileTypeHint": content_type, "featureType": feature_type},
    )
    data = answer.get("data") or {}
    file_id, upload_url = data.get("fileId"), data.get("uploadFileUrl")
    if not isinstance(file_id, str) or not isinstance(upload_url, str):
        raise ConnecteamAPIError(GENERATE_UPLOAD_URL, 200, "no fileId/uploadFileUrl", method="POST")
    client.upload(upload_url, content, content_type)
    client.request("PUT", COMPLETE_UPLOAD.format(fileId=file_id), endpoint=COMPLETE_UPLOAD)
    return file_id


def put_entry(
    client: ConnecteamClient,
    user_id: int,
    document_id: int,
    file_id: str,
    fields: dict[str, Any] | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """Record a document entry for a user (the entry of (user, document) is replaced), with the
    client's retry policy.

    Args:
        client: An authenticated client (scope ``documents.write`` with OAuth).
        user_id: The user, integer ≥ 1.
        document_id: The document.
        file_id: A file uploaded with :func:`upload_file` (``featureType`` ``documents``).
        fields: Entry fields, if the document has any.
        note: A note for the entry.

    Returns:
        The answer ``{requestId, data}``; ``data["status"]`` is ``approved`` or
        ``pendingApproval`` as documented (the provider may answer others).

    Raises:
        ValueError: ``user_id`` or ``document_id`` is invalid (nothing is sent).
        ConnecteamAPIError: 422 (the message names each refused field, e.g.
            ``body.fileId: field required``), 403 (no permission or scope), 404 (unknown user
            or document), ...
    """
    user_id, document_id = validate_ids(user_id, document_id)
    body: dict[str, Any] = {"fileId": file_id}
    if fields:
        body["fields"] = fields
    if note:
        body["note"] = note
    return client.request(
        "PUT",
        DOCUMENT_ENTRY.format(userId=user_id, documentId=document_id),
        json=body,
        endpoint=DOCUMENT_ENTRY,
    )


def record_entry(
    client: ConnecteamClient,
    user_id: int,
    document_id: int,
    file_id: str,
    fields: dict[str, Any] | None = None,
    note: str | None = None,
    *,
    sent_at: int,
    attempts: int = 3,
) -> EntryResult:
    """Record a document entry without ever sending its PUT again blindly.

    Each attempt is one PUT. A 429 means the provider did not take the request: the next
    attempt waits for the budget (the client's pacing). A 5xx or a lost connection leaves the
    outcome open: the user's documents are listed (:func:`find_entries`) and, if the entry is
    there (:func:`is_our_entry`), that is the outcome; only if it is not is the PUT sent again
    (never when the listing cannot tell).

    Args:
        client: An authenticated client (``documents.write``; checks list user documents, which
            an API key reads and an OAuth token reads when the app's grant covers the listing).
        user_id, document_id, file_id, fields, note: As :func:`put_entry`.
        sent_at: Epoch seconds (UTC, :func:`core.clock.now`) at or before the first PUT;
            the caller recorded its intent with this time.
        attempts: PUTs at most.

    Returns:
        An :class:`EntryResult`.

    Raises:
        ValueError: Invalid ids (nothing is sent).
        ConnecteamAPIError: The provider refused the entry (a 4xx other than 429): it is not
            recorded.
        EntryUncertainError: No attempt was answered and the check did not find the entry or
            could not run; the caller must not submit again before a check says it is absent.
        EntryUntoldError: No attempt was answered and the listed document cannot tell whether
            it holds the entry; the caller must not submit again unless told to.
    """
    user_id, document_id = validate_ids(user_id, document_id)
    uncertain: ConnecteamError | None = None
    for attempt in range(1, max(1, attempts) + 1):
        try:
            with client.sent_once():
                answer = put_entry(client, user_id, document_id, file_id, fields, note)
            return answer_result(answer)
        except ConnecteamError as exc:
            uncertain, step = unanswered(exc, uncertain, last=not attempt < attempts)
        if step == "stop":
            break
        if step == "check":
            found = checked_entry(client, user_id, document_id, file_id, sent_at, uncertain)
            if found is not None:
                return found
            if attempt < attempts:
                time.sleep(min(client.backoff_max, client.backoff_base * 2 ** (attempt - 1)))
    raise EntryUncertainError(
        f"PUT {DOCUMENT_ENTRY} for userId {user_id}, documentId {document_id} got no answer "
        f"({uncertain}) and the entry is not listed; the next run checks again"
    )


def unanswered(
    exc: ConnecteamError, uncertain: ConnecteamError | None, last: bool
) -> tuple[ConnecteamError | None, str]:
    """What :func:`record_entry` does after a PUT of an entry raised ``exc``: the error that
    leaves the entry's outcome open so far (``uncertain`` before this PUT, after it) and the
    step: ``"retry"`` (a 429 with attempts left: not taken, the client's pacing waits for the
    budget), ``"check"`` (a 5xx or a lost connection: the entry may be recorded) or ``"stop"``
    (a 429 on the ``last`` attempt, or a request not sent, e.g. the rate-limit budget spent,
    after an earlier PUT went unanswered).

    Raises:
        ConnecteamError: ``exc`` itself when the provider refused the entry (a 4xx other than
            429: not recorded), or when it was not taken and no earlier PUT is in doubt.
    """
    if isinstance(exc, ConnecteamAPIError):
        if exc.status is not None and exc.status < 500 and exc.status != 429:
            raise exc  # refused: not recorded
        if exc.status != 429:
            return exc, "check"
        if not last:
            return uncertain, "retry"
    if uncertain is None:
        raise exc
    return (uncertain if isinstance(exc, ConnecteamAPIError) else exc), "stop"


def checked_entry(
    client: ConnecteamClient,
    user_id: int,
    document_id: int,
    file_id: str,
    sent_at: int,
    uncertain: ConnecteamError | None,
) -> EntryResult | None:
    """After a PUT that got no answer (``uncertain``): the entry as the user's documents list it
    (:func:`find_entries`, ``GET /documents/v1/user-documents``) when it is ours
    (:func:`is_our_entry` with ``file_id`` and ``sent_at``, epoch seconds), ``None`` when the
    user's document is not listed or holds another entry.

    Raises:
        EntryUncertainError: The listing failed.
        EntryUntoldError: The listed document cannot tell whether it holds the entry.
    """
    try:
        found = find_entries(client, [user_id]).get((user_id, document_id))
    except ConnecteamError as exc:
        raise EntryUncertainError(
            f"PUT {DOCUMENT_ENTRY} for userId {user_id}, documentId {document_id} got no "
            f"answer ({uncertain}) and the check failed ({exc}); the next run checks again"
        ) from None
    ours = None if found is None else is_our_entry(found, file_id, sent_at)
    if found is not None and ours:
        return listed_result(found)
    if found is not None and ours is None:
        raise EntryUntoldError(
            f"PUT {DOCUMENT_ENTRY} for userId {user_id}, documentId {document_id} got no "
            f"answer ({uncertain}) and the listed document shows neither fileId nor "
            "updatedAt, so whether it holds this entry cannot be told; not sent again"
        )
    return None


def answer_result(answer: dict[str, Any]) -> EntryResult:
    """The :class:`EntryResult` of a PUT's answer ``{requestId, data}``; a missing or empty
    ``data.status`` is ``unknown``."""
    data = answer.get("data") if isinstance(answer.get("data"), dict) else {}
    status = data.get("status") if isinstance(data, dict) else None
    request_id = answer.get("requestId")
    return EntryResult(
        status=str(status) if status not in (None, "") else "unknown",
        request_id=str(request_id) if request_id is not None else None,
        user_document_id=data.get("id") if isinstance(data, dict) else None,
        resolved_by="answer",
    )


def listed_result(record: dict[str, Any]) -> EntryResult:
    """The :class:`EntryResult` of a user document found by a check."""
    status = record.get("status")
    return EntryResult(
        status=str(status) if status not in (None, "") else "unknown",
        request_id=None,
        user_document_id=record.get("id"),
        resolved_by="check",
    )


def find_entries(
    client: ConnecteamClient, user_ids: Iterable[int]
) -> dict[tuple[int, int], dict[str, Any]]:
    """The user documents of some users, by ``(userId, documentId)``.

    Pages through ``GET /documents/v1/user-documents`` (beta, at most 100 per page) with
    ``userIds``, :data:`CHECK_BATCH` users per request.

    Raises:
        ConnecteamAPIError: As :meth:`ConnecteamClient.paginate` (403 when an OAuth token's
            grant does not reach the listing).
    """
    wanted = sorted(set(user_ids))
    found: dict[tuple[int, int], dict[str, Any]] = {}
    for start in range(0, len(wanted), CHECK_BATCH):
        batch = wanted[start : start + CHECK_BATCH]
        for page in client.paginate(STREAMS["user_documents"], {"userIds": batch}):
            for record in page:
                user, document = record.get("userId"), record.get("documentId")
                if isinstance(user, int) and isinstance(document, int) and user in batch:
                    found[(user, document)] = record
    return found


def is_our_entry(record: dict[str, Any], file_id: str, sent_at: int) -> bool | None:
    """Whether a listed user document holds the entry we sent with ``file_id`` at ``sent_at``:
    ``True``, ``False``, or ``None`` when the record cannot tell.

    When the listing carries ``fileId`` (the emulator's does), it decides. The interface does not
    show the record's fields; without ``fileId``, an ``updatedAt`` (epoch seconds) at or after
    ``sent_at`` counts as ours, an earlier one as not ours. A provider clock behind ours makes
    the check miss an entry, which is then sent again: the PUT replaces the entry of (user,
    document), so that costs a request, never a second entry; an entry updated by someone else
    at or after ``sent_at`` is taken for ours. With neither field the answer is ``None``.
    """
    if "fileId" in record:
        return record.get("fileId") == file_id
    updated = record.get("updatedAt")
    if not isinstance(updated, int) or isinstance(updated, bool):
        return None
    return updated >= sent_at
