"""The items of one list inside a large JSON document, decoded one at a time from a file.

The standard library's decoder (its C scanner, ``json.JSONDecoder.raw_decode``) reads each item
from a window of the text: integers stay exact at any size (as :func:`json.loads` keeps them),
fractions are floats, and memory holds one window of about :data:`CHUNK_BYTES` plus the item
being read, whatever the document's size. Only the two levels of objects around the list are
walked by hand; every value is the decoder's.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

CHUNK_BYTES = 1 << 20
"""Bytes read from the file at a time (at least)."""
MAX_VALUE_CHARS = 64 << 20
"""Longest value read (an item, or a member's value on the way to the list), in characters: a
document that is not JSON fails once this much of it is unread, not after the whole file is in
memory."""

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER_GOES_ON = re.compile(r"[0-9.eE+-]*")
"""What the window may end with after a value that is cut there: only a number's characters."""


class NotJSONError(ValueError):
    """The document is not JSON (a syntax error, truncated, or not UTF-8)."""


class NotAnObjectError(ValueError):
    """The document is JSON but not an object."""


class NoListError(ValueError):
    """The document has no list at the path asked for."""


class ListReader:
    """Reads ``file`` (a JSON document as UTF-8 bytes) from its start.

    Use :meth:`open_list` with the keys leading to the list, then :meth:`items`; the items end
    with the check that the rest of the document is well formed.
    """

    def __init__(self, file: BinaryIO) -> None:
        file.seek(0)
        self._file = file
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._text = ""
        self._at = 0
        self._dropped = 0
        self._eof = False
        self._depth = 0

    def open_list(self, keys: tuple[str, ...]) -> None:
        """Walk the objects along ``keys`` (``("data", "users")``: the document's ``data``
        member, then its ``users``) and stop inside the list there.

        Raises:
            NotAnObjectError: The document is not an object.
            NoListError: An object on the way lacks the key, or the value there is not a list.
            NotJSONError: The text up to there is not JSON.
        """
        first = self._peek()
        if first != "{":  # not read further: a top-level list may be as large as the file
            raise NotAnObjectError if first and first in '["-0123456789tfn' else NotJSONError
        for key in keys:
            if self._peek() != "{" or not self._member(key):
                raise NoListError
        if self._peek() != "[":
            raise NoListError
        self._at += 1

    @property
    def read_chars(self) -> int:
        """Characters of the document read so far (up to the end of the last value read)."""
        return self._dropped + self._at

    def items(self) -> Iterator[Any]:
        """The list's items in order, then the rest of the document checked.

        Raises:
            NotJSONError: An item, the list or the rest of the document is not JSON.
        """
        if self._peek() == "]":
            self._at += 1
        else:
            while True:
                yield self._value()
                if self._peek() == "]":
                    self._at += 1
                    break
                self._expect(",")
        for _ in range(self._depth):
            self._close_object()
        if self._peek() != "":
            raise NotJSONError

    def _member(self, key: str) -> bool:
        """Read the object opening here up to member ``key`` (positioned at its value: True),
        or past its end (False)."""
        self._expect("{")
        self._depth += 1
        if self._peek() == "}":
            self._at += 1
            self._depth -= 1
            return False
        while True:
            name = self._value()
            if not isinstance(name, str):
                raise NotJSONError
            self._expect(":")
            if name == key:
                return True
            self._value()
            if self._peek() == "}":
                self._at += 1
                self._depth -= 1
                return False
            self._expect(",")

    def _close_object(self) -> None:
        """Read the rest of an object whose members were read up to a value."""
        while self._peek() != "}":
            self._expect(",")
            if not isinstance(self._value(), str):
                raise NotJSONError
            self._expect(":")
            self._value()
        self._at += 1

    def _value(self) -> Any:
        """The JSON value starting here (after white space), read whole."""
        self._peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._text, self._at)
            except json.JSONDecodeError:
                if len(self._text) - self._at > MAX_VALUE_CHARS or not self._more():
                    raise NotJSONError from None
                continue
            if _NUMBER_GOES_ON.fullmatch(self._text, end) and self._more():
                continue  # a number may go on in the next chunk ("1.5e" + "-7"): read it again
            self._at = end
            return value

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            raise NotJSONError
        self._at += 1

    def _peek(self) -> str:
        """The next character that is not white space ("" at the end of the document)."""
        while True:
            self._at = _SPACE.match(self._text, self._at).end()  # type: ignore[union-attr]
            if self._at < len(self._text) or not self._more():
                return self._text[self._at : self._at + 1]

    def _more(self) -> bool:
        """Append the next chunk of text to the window (dropping what was read); False at the
        end of the file. A chunk is at least as long as what the window holds unread, so a value
        longer than a chunk is decoded again a logarithmic number of times, not once per chunk."""
        if self._eof:
            return False
        chunk = self._file.read(max(CHUNK_BYTES, len(self._text) - self._at))
        try:
            text = self._utf8.decode(chunk, final=not chunk)
        except UnicodeDecodeError:
            raise NotJSONError from None
        self._eof = not chunk
        self._text = self._text[self._at :] + text
        self._dropped += self._at
        self._at = 0
        return True
