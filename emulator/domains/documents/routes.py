"""The documents domain's routes: the emulator's write path, file attachments and document
entries. (The user documents these entries change are the account's core records, listed by
:mod:`emulator.listings`.)

Follows ``sources/connecteam/spec/service-interface.md`` (document entry) and the spec's attachments
endpoints. Where the interface says "not shown", the emulator's choices are:

* ``POST /attachments/v1/files/generate-upload-url`` (scope ``attachments.write``): body
  ``{fileName, fileTypeHint?, featureType}``; ``featureType`` accepts the spec's values plus
  ``documents`` (which the interface requires and the spec snapshot predates). Answers
  ``{requestId, data: {fileId, uploadFileUrl}}``; the pre-signed URL points at this server
  (``/_emulator/storage/{fileId}``, like cloud storage: no API key, no rate limit).
* ``PUT <uploadFileUrl>`` stores the bytes; ``PUT /attachments/v1/files/complete-upload/{fileId}``
  (404 for an unknown file, 422 when no bytes arrived) marks it complete;
  ``GET /attachments/v1/files/{fileId}`` describes it.
* ``PUT /documents/v1/users/{userId}/documents/{documentId}/entry``: ``userId`` integer ≥ 1,
  ``documentId`` integer (else 422 ``HTTPValidationError``); a required JSON body
  ``UserDocumentEntryPutRequest`` = ``{fileId: str, fields?: object, note?: str}``; API key, or a
  Bearer token with ``documents.write`` (401/403). 404 for an unknown user or document. The file
  must have been uploaded and completed with ``featureType`` = ``documents``, else 422 with
  ``loc: ["body", "fileId"]``. The caller's permission on the document's pack decides the
  status: approve -> ``approved``, upload only -> ``pendingApproval``, none -> 403. PUT is
  idempotent: the entry of (user, document) is replaced. Answer
  ``APIResponseV2[UserDocumentResponse]`` = ``{requestId, data}``, ``data`` being the user
  document as ``GET /documents/v1/user-documents`` lists it plus ``fileId``, ``fields``, ``note``.

Control endpoints (not the provider's; no authentication), for tests and demos of the bulk:

* ``GET /_emulator/documents``: ``{entry_puts, accepted, upload_slots, uploads, held}``:
  entry PUTs received (every request to the entry path, refused ones too; since the last
  ``stats/reset``), entries accepted, upload URLs handed out (since the last ``stats/reset``),
  files stored through them, and whether an answer is being held.
* ``POST /_emulator/documents`` with any of:
  ``answer_status`` ``{"<documentId>": "<status>" | null}`` (the status a PUT of that document
  records and answers; ``null`` records the usual one and answers without ``status``),
  ``refuse_with`` (an ``HTTPValidationError`` ``detail`` list every entry PUT is answered 422
  with; ``null`` stops), ``hold_at`` (the accepted-entry count whose PUT answer is withheld
  until ``release``: the entry is recorded, the caller gets no answer), ``release`` (true),
  ``fail_after_recording`` (the next so many accepted entry PUTs are answered 500 although the
  entry was recorded).
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Annotated, Any

import orjson
from fastapi import Body, Depends, FastAPI, HTTPException, Path, Request
from fastapi.responses import Response
from starlette.requests import ClientDisconnect

from ...auth import identify, requirement
from ...protocols import Server
from ...responses import CONTROL_PREFIX, envelope, invalid, json_response
from ...vocabulary import DOCUMENTS

FEATURE_TYPES = {"chat", "shiftscheduler", "users", "quicktasks", "documents"}
ENTRY_PATH = re.compile(r"^/documents/v1/users/[^/]+/documents/[^/]+/entry$")
GENERATE_UPLOAD_URL = "/attachments/v1/files/generate-upload-url"
HOLD_LIMIT_SECONDS = 300.0
"""Longest a held answer waits for ``release``."""


@dataclass
class DocumentControls:
    """Test hooks of the document write path (see the module's control endpoints).

    Attributes:
        answer_status: Per document id (text), the status a PUT records and answers; ``None``
            answers without a status.
        refuse_with: A ``detail`` list every entry PUT is answered 422 with, or ``None``.
        hold_at: The accepted-entry count whose answer is withheld until :attr:`release`.
        held: Whether an answer is withheld now.
        release: Set to let a withheld answer go.
        uploads: Files stored through upload URLs.
        fail_after_recording: How many more accepted entry PUTs are answered 500 after the entry
            was recorded.
    """

    answer_status: dict[str, str | None] = field(default_factory=dict)
    refuse_with: list[Any] | None = None
    hold_at: int | None = None
    held: bool = False
    release: threading.Event = field(default_factory=threading.Event)
    uploads: int = 0
    fail_after_recording: int = 0


def add_routes(app: FastAPI, state: Server) -> DocumentControls:
    """Register the attachment and document-entry routes and their control endpoints on
    ``app``; return the controls (also at ``app.state.documents``)."""
    controls = DocumentControls()
    app.state.documents = controls
    _add_control_routes(app, state, controls)
    _add_attachment_routes(app, state, controls)

    @app.put("/documents/v1/users/{userId}/documents/{documentId}/entry")
    async def put_entry(
        userId: Annotated[int, Path(ge=1)],  # noqa: N803
        documentId: Annotated[int, Path()],  # noqa: N803
        body: Annotated[dict[str, Any], Body()],
        caller: str = Depends(identify(state, "documents.write")),
    ) -> Response:
        outcome = enter_document(state, controls, userId, documentId, body, caller)
        if isinstance(outcome, Response):
            return outcome
        answer, hold = outcome
        if hold:
            controls.held = True
            try:
                await asyncio.to_thread(controls.release.wait, HOLD_LIMIT_SECONDS)
            finally:
                controls.held = False
        return envelope(answer)

    return controls


def _add_control_routes(app: FastAPI, state: Server, controls: DocumentControls) -> None:
    """``GET`` and ``POST /_emulator/documents`` (see the module docstring)."""

    @app.get(CONTROL_PREFIX + "/documents")
    async def documents_stats() -> Response:
        return json_response(documents_stats_answer(state, controls))

    @app.post(CONTROL_PREFIX + "/documents")
    async def documents_control(request: Request) -> Response:
        return set_controls(controls, orjson.loads(await request.body() or b"{}"))


def documents_stats_answer(state: Server, controls: DocumentControls) -> dict[str, Any]:
    """``GET /_emulator/documents``: ``{entry_puts, accepted, upload_slots, uploads, held}``."""
    with state.lock:
        puts = sum(n for path, n in state.requests.items() if ENTRY_PATH.match(path))
        slots = state.requests.get(GENERATE_UPLOAD_URL, 0)
        accepted = len(state.entries)
    return {"entry_puts": puts, "accepted": accepted, "upload_slots": slots,
            "uploads": controls.uploads, "held": controls.held}  # fmt: skip


def set_controls(controls: DocumentControls, body: dict[str, Any]) -> Response:
    """``POST /_emulator/documents``: set the controls ``body`` names; ``{"ok": true}``, or 422
    naming unknown settings (then nothing is set)."""
    unknown = set(body) - {
        "answer_status", "refuse_with", "hold_at", "release", "fail_after_recording"
    }  # fmt: skip
    if unknown:
        return json_response({"detail": f"unknown settings {sorted(unknown)}"}, 422)
    if "answer_status" in body:
        controls.answer_status = {str(k): v for k, v in (body["answer_status"] or {}).items()}
    if "refuse_with" in body:
        controls.refuse_with = body["refuse_with"]
    if "hold_at" in body:
        controls.release.clear()
        controls.hold_at = body["hold_at"]
    if "fail_after_recording" in body:
        controls.fail_after_recording = int(body["fail_after_recording"])
    if body.get("release"):
        controls.hold_at = None
        controls.release.set()
    return json_response({"ok": True})


def _add_attachment_routes(app: FastAPI, state: Server, controls: DocumentControls) -> None:
    """The attachments endpoints and the upload URLs' storage (see the module docstring)."""

    @app.post(GENERATE_UPLOAD_URL, dependencies=[requirement(state, "attachments.write")])
    async def generate_upload_url(request: Request) -> Response:
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return invalid(["body"], "a JSON body is required")
        return new_upload(state, body, str(request.base_url).rstrip("/"))

    @app.put("/_emulator/storage/{file_id}")
    async def storage_put(file_id: str, request: Request) -> Response:
        record = state.files.get(file_id)
        if record is None:
            return json_response({"detail": "no such upload"}, 404)
        try:
            record["size"] = len(await request.body())
        except ClientDisconnect:  # the uploader went away mid-body (e.g. a killed bulk)
            return Response(status_code=400)
        controls.uploads += 1
        return Response(status_code=200)

    @app.put(
        "/attachments/v1/files/complete-upload/{fileId}",
        dependencies=[requirement(state, "attachments.write")],
    )
    async def complete_upload(fileId: str) -> Response:  # noqa: N803 - the provider's name
        record = state.files.get(fileId)
        if record is None:
            return json_response({"detail": f"File {fileId} not found"}, 404)
        if record["size"] is None:
            return invalid(["path", "fileId"], "nothing was uploaded to the upload URL")
        record["completed"] = True
        return envelope({"fileId": fileId})

    @app.get(
        "/attachments/v1/files/{fileId}", dependencies=[requirement(state, "attachments.read")]
    )
    async def get_file(fileId: str, request: Request) -> Response:  # noqa: N803
        record = state.files.get(fileId)
        if record is None:
            return json_response({"detail": f"File {fileId} not found"}, 404)
        url = f"{str(request.base_url).rstrip('/')}/_emulator/storage/{fileId}"
        return envelope(
            {"fileId": fileId, "fileUrl": url, "uploadCompleted": record["completed"],
             "fileType": record["fileType"], "featureType": record["featureType"]}
        )  # fmt: skip


def new_upload(state: Server, body: Any, base_url: str) -> Response:
    """``POST generate-upload-url`` with the decoded ``body``: a new file slot and its upload
    URL under ``base_url`` (this server), or 422 for a missing ``fileName`` or an unknown
    ``featureType``."""
    if not isinstance(body, dict) or not isinstance(body.get("fileName"), str):
        return invalid(["body", "fileName"], "field required")
    if not isinstance(body.get("featureType"), str) or body["featureType"] not in FEATURE_TYPES:
        return invalid(["body", "featureType"], f"must be one of {sorted(FEATURE_TYPES)}")
    file_id = uuid.uuid4().hex
    state.files[file_id] = {
        "fileName": body["fileName"],
        "fileType": body.get("fileTypeHint") or "application/octet-stream",
        "featureType": body["featureType"],
        "size": None,
        "completed": False,
    }
    url = f"{base_url}/_emulator/storage/{file_id}?signature={uuid.uuid4().hex}"
    return envelope({"fileId": file_id, "uploadFileUrl": url})


def enter_document(
    state: Server,
    controls: DocumentControls,
    user_id: int,
    document_id: int,
    body: dict[str, Any],
    caller: str,
) -> Response | tuple[dict[str, Any], bool]:
    """The entry PUT of ``document_id`` for ``user_id`` by ``caller`` (``api-key`` or an OAuth
    client id): the refusal (422, 404, 500 by :attr:`DocumentControls.fail_after_recording`),
    or the user document answered and whether to hold the answer (:attr:`DocumentControls.hold_at`).

    Raises:
        HTTPException: 403, the caller holds no upload or approve permission on the pack.
    """
    if controls.refuse_with is not None:
        return json_response({"detail": controls.refuse_with}, 422)
    documents = {d[0]: d for d in DOCUMENTS}
    if user_id not in state.dataset.users:
        return json_response({"detail": f"User {user_id} not found"}, 404)
    if document_id not in documents:
        return json_response({"detail": f"Document {document_id} not found"}, 404)
    file_id = body.get("fileId")
    record = state.files.get(file_id) if isinstance(file_id, str) else None
    if record is None or not record["completed"] or record["featureType"] != "documents":
        return invalid(
            ["body", "fileId"],
            "the file must be uploaded first through the attachments endpoints with "
            "featureType documents",
        )
    status = entry_status(state, caller, documents[document_id][3])
    override = controls.answer_status.get(str(document_id), status)
    with state.lock:
        existing = record_entry(state, user_id, documents[document_id], override or status, body)
        hold = controls.hold_at is not None and len(state.entries) == controls.hold_at
        fail = controls.fail_after_recording > 0
        if fail:
            controls.fail_after_recording -= 1
    if fail:
        return json_response({"detail": "Internal server error"}, 500)
    answer = dict(existing)
    if override is None:
        answer.pop("status")
    return answer, hold


def entry_status(state: Server, caller: str, pack: int) -> str:
    """The status an entry of document pack ``pack`` by ``caller`` gets: ``approved`` with the
    approve permission, ``pendingApproval`` with the upload one.

    Raises:
        HTTPException: 403, neither permission.
    """
    permissions = (
        state.options.document_permissions
        if caller == "api-key"
        else state.options.oauth_clients.get(caller, {}).get("document_permissions", {})
    )
    permission = permissions.get(str(pack))
    if permission not in ("approve", "upload"):
        raise HTTPException(403, f"No upload or approve permission on document pack {pack}")
    return "approved" if permission == "approve" else "pendingApproval"


def record_entry(
    state: Server,
    user_id: int,
    document: tuple[int, str, str, int],
    status: str,
    body: dict[str, Any],
) -> dict[str, Any]:
    """Replace the entry of ``document`` (``(documentId, name, type, pack)``) for ``user_id``
    in the account (a new user document when there is none) at the next tick, with
    ``status`` and ``body``'s ``fileId``, ``fields`` and ``note``; count it in
    ``state.entries``. The caller holds ``state.lock``. Returns the user document."""
    document_id, name, kind, pack = document
    now = state.dataset.tick()
    existing = next(
        (d for d in state.dataset.user_documents.values()
         if d.get("userId") == user_id and d.get("documentId") == document_id),
        None,
    )  # fmt: skip
    if existing is None:
        new_id = max(state.dataset.user_documents, default=879_999) + 1
        existing = state.dataset.user_documents[new_id] = {
            "id": new_id, "userId": user_id, "documentId": document_id,
            "documentName": name, "documentType": kind, "packId": pack,
            "createdAt": now,
        }  # fmt: skip
    existing.update(
        status=status, updatedAt=now, fileId=body.get("fileId"),
        fields=body.get("fields") or {}, note=body.get("note"),
    )  # fmt: skip
    state.dataset.version += 1
    state.entries.append({"userId": user_id, "documentId": document_id, "at": time.time()})
    return existing
