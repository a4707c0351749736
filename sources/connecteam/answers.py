"""One answer's body, held within a bound of memory, and the records in it.

A body is read from the wire into a :class:`Body`: in memory up to :data:`IN_MEMORY_BYTES`,
beyond that in a temporary file, so the requests in flight hold at most that many bytes each
whatever the provider sends. Its records (the list at ``data.<data_key>``) are decoded whole
when the body is small (orjson, :func:`decode_json`) and as a stream of batches of at most
:data:`BATCH_ITEMS` items when it is larger than :data:`STREAM_FROM_BYTES`, the same bound
(ijson's C parser over the file): an unpaged answer of tens of thousands of time activities
never exists as one Python object, and a page of a paged listing never touches the disk. Both
ways give the same records; integers stay exact, fractions are floats.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

import ijson
import orjson

from .errors import ConnecteamAPIError
from .registry import Stream

IN_MEMORY_BYTES = 8 << 20
"""A body's bytes held in memory at most (8 MiB: a page of 500 of the widest shifts the spec
allows is about 4.5 MB); the rest goes to a temporary file."""
STREAM_FROM_BYTES = IN_MEMORY_BYTES
"""Bodies larger than this (those kept on disk) are decoded as a stream of record batches."""
BATCH_ITEMS = 500
"""Records per batch of a streamed body."""

_LONG_DIGITS = re.compile(rb"[0-9]{19,}")


class Body:
    """One answer's bytes and HTTP status: the bytes in memory up to :data:`IN_MEMORY_BYTES`,
    then in a temporary file (deleted when the body is closed or collected)."""

    def __init__(self, chunks: Iterable[bytes], status: int = 200) -> None:
        self.status = status
        self.file: BinaryIO = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)  # type: ignore[assignment]  # noqa: SIM115 - closed by close()
        for chunk in chunks:
            self.file.write(chunk)
        self.size = self.file.tell()
        self.file.seek(0)

    def read(self) -> bytes:
        """The whole body (for small ones: the caller checked :attr:`size`)."""
        self.file.seek(0)
        return self.file.read()

    def close(self) -> None:
        """Free the memory or the temporary file."""
        self.file.close()

    def __enter__(self) -> Body:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def decode_json(content: bytes) -> Any:
    """Decode a JSON answer; integers beyond 64 bits stay exact integers.

    orjson (fast) reads such integers as floats, losing digits; an answer holding a run of 19 or
    more digits is therefore decoded by the standard library instead.

    Raises:
        ValueError: The content is not JSON.
    """
    if _LONG_DIGITS.search(content):
        return json.loads(content)
    return orjson.loads(content)


def decode_object(body: Body, template: str, method: str = "GET") -> dict[str, Any]:
    """``body`` decoded whole, which must be a JSON object (``template``: the endpoint's path,
    for the message).

    Raises:
        ConnecteamAPIError: The body is not JSON, or not a JSON object.
    """
    try:
        decoded = decode_json(body.read())
    except ValueError:
        decoded = None
        problem = "the answer is not JSON"
    else:
        problem = "the answer is not a JSON object"
    if not isinstance(decoded, dict):
        raise ConnecteamAPIError(template, body.status, problem, method=method)
    return decoded


def page_records(body: dict[str, Any], endpoint: Stream) -> list[dict[str, Any]]:
    """The records of one decoded answer of ``endpoint``: its list at ``data.<data_key>``.

    Raises:
        ConnecteamAPIError: The answer holds no list there (status 200, the endpoint's path).
    """
    data = body.get("data")
    records = data.get(endpoint.data_key) if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise no_list(endpoint)
    return records


def no_list(endpoint: Stream) -> ConnecteamAPIError:
    """The error of an answer without a list at ``data.<data_key>``."""
    return ConnecteamAPIError(
        endpoint.path,
        200,
        f"the answer has no list at data.{endpoint.data_key}",
        "is SOURCES__CONNECTEAM__BASE_URL a Connecteam API host?",
    )


def body_records(body: Body, endpoint: Stream) -> Iterator[list[Any]]:
    """The records at ``data.<data_key>`` of one answer of ``endpoint``, as they were sent: one
    list for a body up to :data:`STREAM_FROM_BYTES`, else batches of :data:`BATCH_ITEMS`
    decoded as the file is read.

    Raises:
        ConnecteamAPIError: The body is not a JSON object with a list at ``data.<data_key>``
            (a streamed body is checked before its first batch is yielded).
    """
    if body.size <= STREAM_FROM_BYTES:
        yield page_records(decode_object(body, endpoint.path), endpoint)
        return
    prefix = f"data.{endpoint.data_key}"
    # yajl (ijson's C parser) refuses integers past 64 bits: such a body takes ijson's own
    # parser, exact and slower, as decode_json takes the standard library's
    parser = ijson.get_backend("python") if _has_long_digits(body.file) else ijson
    try:
        _expect_list(parser, body.file, prefix, endpoint)
        body.file.seek(0)
        batch: list[Any] = []
        for item in parser.items(body.file, prefix + ".item", use_float=True):
            batch.append(item)
            if len(batch) >= BATCH_ITEMS:
                yield batch
                batch = []
        yield batch
    except ijson.JSONError:
        raise ConnecteamAPIError(endpoint.path, body.status, "the answer is not JSON") from None


def _has_long_digits(file: BinaryIO, chunk_bytes: int = 1 << 20) -> bool:
    """Whether ``file`` holds a run of 19 or more digits (read in chunks that overlap by 18
    bytes, so a run across two chunks is found)."""
    file.seek(0)
    tail = b""
    while chunk := file.read(chunk_bytes):
        if _LONG_DIGITS.search(tail + chunk):
            return True
        tail = chunk[-18:]
    return False


def _expect_list(parser: Any, file: BinaryIO, prefix: str, endpoint: Stream) -> None:
    """Read ``file``'s JSON events (``parser``: an ijson backend) up to ``prefix``, which must
    open a list in an object."""
    file.seek(0)
    for index, (path, event, _value) in enumerate(parser.parse(file)):
        if index == 0 and event != "start_map":
            raise ConnecteamAPIError(endpoint.path, 200, "the answer is not a JSON object")
        if path == prefix and event in {"start_array", "start_map", "string", "number",
                                        "boolean", "null"}:  # fmt: skip
            if event != "start_array":
                raise no_list(endpoint)
            return
    raise no_list(endpoint)
