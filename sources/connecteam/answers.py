"""One answer's body, held within a bound of memory, and the records in it.

A body is read from the wire into a :class:`Body`: in memory up to :data:`IN_MEMORY_BYTES`,
beyond that in a temporary file, so the requests in flight hold at most that many bytes each
whatever the provider sends. Its records (the list at ``data.<data_key>``) are decoded whole
when the body is small (orjson, :func:`decode_json`) and as a stream of batches of at most
:data:`BATCH_ITEMS` items and about :data:`BATCH_CHARS` characters of JSON when it is larger
than :data:`STREAM_FROM_BYTES`, the same bound
(the standard library's decoder item by item over the file, :mod:`.json_stream`): an
unpaged answer of tens of thousands of time activities never exists as one Python object, and
a page of a paged listing never touches the disk. Both ways give the same records; integers
stay exact, fractions are floats.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

import orjson

from .errors import ConnecteamAPIError
from .json_stream import ListReader, NoListError, NotAnObjectError, NotJSONError
from .registry import Stream

IN_MEMORY_BYTES = 8 << 20
"""A body's bytes held in memory at most (8 MiB: a page of 500 of the widest shifts the spec
allows is about 4.5 MB); the rest goes to a temporary file."""
STREAM_FROM_BYTES = IN_MEMORY_BYTES
"""Bodies larger than this (those kept on disk) are decoded as a stream of record batches."""
BATCH_ITEMS = 500
"""Records per batch of a streamed body, at most."""
BATCH_CHARS = 1 << 20
"""Characters of JSON a batch of a streamed body holds, about: a batch ends with the record
that reaches it. Wide records (a user's timesheet of 45 days) fill it long before 500, so a
batch's memory does not depend on how wide the provider's records are."""

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
        ValueError: The content is not JSON, or nests deeper than the decoder goes (orjson stops
            at 1,024 levels; the standard library's recursion ends sooner).
    """
    if _LONG_DIGITS.search(content):
        try:
            return json.loads(content)
        except RecursionError as exc:
            raise ValueError("the answer nests too deep to decode") from exc
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
    list for a body up to :data:`STREAM_FROM_BYTES`, else batches of at most
    :data:`BATCH_ITEMS` records and about :data:`BATCH_CHARS` characters, decoded as the file is
    read (:class:`~.json_stream.ListReader`).

    Raises:
        ConnecteamAPIError: The body is not a JSON object with a list at ``data.<data_key>``
            (a streamed body is checked before its first batch is yielded).
    """
    if body.size <= STREAM_FROM_BYTES:
        yield page_records(decode_object(body, endpoint.path), endpoint)
        return
    reader = ListReader(body.file)
    try:
        reader.open_list(("data", endpoint.data_key))
        batch: list[Any] = []
        began = reader.read_chars
        for item in reader.items():
            batch.append(item)
            if len(batch) >= BATCH_ITEMS or reader.read_chars - began >= BATCH_CHARS:
                yield batch
                batch = []
                began = reader.read_chars
        yield batch
    except NoListError:
        raise no_list(endpoint) from None
    except NotAnObjectError:
        raise ConnecteamAPIError(
            endpoint.path, body.status, "the answer is not a JSON object"
        ) from None
    except NotJSONError:
        raise ConnecteamAPIError(endpoint.path, body.status, "the answer is not JSON") from None
