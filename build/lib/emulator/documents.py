"""The emulator's write path: file attachments and document entries.

Follows ``tests/data/service-interface.md`` (document entry) and the spec's attachments
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

from .auth import identify, requirement
from .responses import CONTROL_PREFIX, envelope, invalid, json_response
from .state import EmulatorState
from .vocabulary import DOCUMENTS

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


def add_document_routes(app: FastAPI, state: EmulatorState) -> DocumentControls:
    """Register the attachment and document-entry routes and their control endpoints on
    ``app``; return the controls (also at ``app.state.documents``)."""
    controls = DocumentControls()
    app.state.documents = controls

    @app.get(CONTROL_PREFIX + "/documents")
    async def documents_stats() -> Response:
        with state.lock:
            puts = sum(n for path, n in state.requests.items() if ENTRY_PATH.match(path))
            slots = state.requests.get(GENERATE_UPLOAD_URL, 0)
            accepted = len(state.entries)
        return json_response({"entry_puts": puts, "accepted": accepted, "upload_slots": slots,
                      "uploads": controls.uploads, "held": controls.held})  # fmt: skip

    @app.post(CONTROL_PREFIX + "/documents")
    async def documents_control(request: Request) -> Response:
        body = orjson.loads(await request.body() or b"{}")
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

    @app.post(
        "/attachments/v1/files/generate-upload-url",
        dependencies=[requirement(state, "attachments.write")],
    )
    async def generate_upload_url(request: Request) -> Response:
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return invalid(["body"], "a JSON body is required")
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
        base = str(request.base_url).rstrip("/")
        url = f"{base}/_emulator/storage/{file_id}?signature={uuid.uuid4().hex}"
        return envelope({"fileId": file_id, "uploadFileUrl": url})

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

    @app.put("/documents/v1/users/{userId}/documents/{documentId}/entry")
    async def put_entry(
        userId: Annotated[int, Path(ge=1)],  # noqa: N803
        documentId: Annotated[int, Path()],  # noqa: N803
        body: Annotated[dict[str, Any], Body()],
        caller: str = Depends(identify(state, "documents.write")),
    ) -> Response:
        if controls.refuse_with is not None:
            return json_response({"detail": controls.refuse_with}, 422)
        documents = {d[0]: d for d in DOCUMENTS}
        if userId not in state.dataset.users:
            return json_response({"detail": f"User {userId} not found"}, 404)
        if documentId not in documents:
            return json_response({"detail": f"Document {documentId} not found"}, 404)
        file_id = body.get("fileId")
        record = state.files.get(file_id) if isinstance(file_id, str) else None
        if record is None or not record["completed"] or record["featureType"] != "documents":
            return invalid(
                ["body", "fileId"],
                "the file must be uploaded first through the attachments endpoints with "
                "featureType documents",
            )
        _, name, kind, pack = documents[documentId]
        permissions = (
            state.options.document_permissions
            if caller == "api-key"
            else state.options.oauth_clients.get(caller, {}).get("document_permissions", {})
        )
        permission = permissions.get(str(pack))
        if permission not in ("approve", "upload"):
            raise HTTPException(403, f"No upload or approve permission on document pack {pack}")
        status = "approved" if permission == "approve" else "pendingApproval"
        override = controls.answer_status.get(str(documentId), status)
        now = state.dataset.tick()
        with state.lock:
            existing = next(
                (d for d in state.dataset.user_documents.values()
                 if d.get("userId") == userId and d.get("documentId") == documentId),
                None,
            )  # fmt: skip
            if existing is None:
                new_id = max(state.dataset.user_documents, default=879_999) + 1
                existing = state.dataset.user_documents[new_id] = {
                    "id": new_id, "userId": userId, "documentId": documentId,
                    "documentName": name, "documentType": kind, "packId": pack,
                    "createdAt": now,
                }  # fmt: skip
            existing.update(
                status=override or status, updatedAt=now, fileId=file_id,
                fields=body.get("fields") or {}, note=body.get("note"),
            )  # fmt: skip
            state.dataset.version += 1
            state.entries.append({"userId": userId, "documentId": documentId, "at": time.time()})
            hold = controls.hold_at is not None and len(state.entries) == controls.hold_at
            fail = controls.fail_after_recording > 0
            if fail:
                controls.fail_after_recording -= 1
        if fail:
            return json_response({"detail": "Internal server error"}, 500)
        answer = dict(existing)
        if override is None:
            answer.pop("status")
        if hold:
            controls.held = True
            try:
                await asyncio.to_thread(controls.release.wait, HOLD_LIMIT_SECONDS)
            finally:
                controls.held = False
        return envelope(answer)

    return controls
