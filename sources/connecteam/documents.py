"""The provider's write path for user documents: upload a file, record a document entry.

Follows ``shared/reference/service-interface.md`` (``PUT /documents/v1/users/{userId}/documents/
{documentId}/entry``) and the spec's attachments endpoints (``POST /attachments/v1/files/
generate-upload-url``, the pre-signed upload, ``PUT /attachments/v1/files/complete-upload/
{fileId}``). The entry's request body is "not shown" in the interface; this client sends
``{fileId, fields?, note?}`` (see ``emulator/documents.py``).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

from .client import ConnecteamAPIError, ConnecteamClient

GENERATE_UPLOAD_URL = "/attachments/v1/files/generate-upload-url"
COMPLETE_UPLOAD = "/attachments/v1/files/complete-upload/{fileId}"
DOCUMENT_ENTRY = "/documents/v1/users/{userId}/documents/{documentId}/entry"
WRITE_SCOPES = "attachments.write documents.write"
"""OAuth 2.0 scopes the write path needs."""
ENTRY_STATUSES = ("approved", "pendingApproval")
"""What the provider answers for a recorded entry: ``approved`` when the caller holds approve
permission on the document's pack, ``pendingApproval`` when it holds only upload permission."""


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
    """Record a document entry for a user (idempotent: the entry of (user, document) is replaced).

    Args:
        client: An authenticated client (scope ``documents.write`` with OAuth).
        user_id: The user, integer ≥ 1.
        document_id: The document.
        file_id: A file uploaded with :func:`upload_file` (``featureType`` ``documents``).
        fields: Entry fields, if the document has any.
        note: A note for the entry.

    Returns:
        The answer ``{requestId, data}``; ``data["status"]`` is ``approved`` or
        ``pendingApproval``.

    Raises:
        ConnecteamAPIError: 422 (bad ids, file not uploaded), 403 (no permission or scope),
            404 (unknown user or document), ...
    """
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
