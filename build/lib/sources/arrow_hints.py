"""Silence one dlt warning that our Arrow resources trigger by design, once per table.

Our resources hand dlt Arrow tables whose nested values are JSON text (``pa.string()``) and
declare those columns ``json`` (and keys non-nullable) in their hints, so the warehouse gets
JSON columns. dlt logs a WARNING for *every* Arrow table whose field types differ from the
declared hints ("several column hints were different ... It is up to destination to coerce"),
which would print hundreds of identical lines on a large sync. The per-column INFO lines dlt
logs next to it are left alone.
"""

from __future__ import annotations

import logging

_MESSAGE = "when merging arrow schema with dlt schema, several column hints were different"


class ArrowHintWarningFilter(logging.Filter):
    """Drops dlt's arrow-vs-hint warning for the named resources only.

    Args:
        resources: Resource names whose declared hints are intentional.
    """

    def __init__(self, resources: set[str]) -> None:
        super().__init__()
        self.resources = resources

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if _MESSAGE not in message:
            return True
        return not any(message.startswith(f"In resource: {r},") for r in self.resources)


def quiet_arrow_hint_warnings(*resources: str, logger_name: str = "dlt") -> None:
    """Install :class:`ArrowHintWarningFilter` for ``resources`` on dlt's logger (idempotent)."""
    logger = logging.getLogger(logger_name)
    for existing in logger.filters:
        if isinstance(existing, ArrowHintWarningFilter):
            existing.resources.update(resources)
            return
    logger.addFilter(ArrowHintWarningFilter(set(resources)))
