"""The emulated provider's behaviour beyond its data (:class:`ServerOptions`) and the shift
listings' sort parameters (:class:`ShiftSort`, :class:`SortOrder`): plain values, imported by
:mod:`emulator.state` and by the routes that read them without the state itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


@dataclass
class ServerOptions:
    """Behaviour of the emulated provider beyond its data.

    Attributes:
        api_key: The account's API key (``X-API-KEY``).
        oauth_clients: OAuth 2.0 clients: ``{client_id: {"secret": ..., "scopes": [...],
            "document_permissions": {...}}}``; ``scopes`` are what the client may be granted.
        oauth_strict_scopes: Refuse token requests naming an unknown scope or one beyond the
            client's with RFC 6749 ``invalid_scope`` (400) instead of the spec's 403.
        document_permissions: What the API key may do per document pack id:
            ``{"<packId>": "approve" | "upload"}``; a pack not listed is refused (403).
        minute_limit: Requests per rate-limit window (the provider's "per minute" budget).
        day_limit: Requests per UTC day.
        window_seconds: Length of the "minute" window in seconds (60 like the provider).
        latency: Seconds added to every API answer (``wfm-sync emulator --latency-ms`` / 1000).
        fault_rate: Fraction (0..1) of API requests answered with a fault.
        fault_seed: Seed of the fault draw.
        paging_total: Whether paged answers carry ``paging.total``.
        failing_paths: Requests answered with a fixed status instead, as an outage of one
            listing would be: ``{"/jobs/v1/jobs?offset=500": 503}``. A key is a request path,
            optionally with query parameters the request must carry too (so a listing can
            fail after its first pages).
        delete_while_paging: Listings (``shifts``, ``user_documents``) that lose the first
            record of a first page they serve, right after serving it, and how many times: a
            deletion between two pages, which shifts the later pages' offsets by one.
        webhook_retries: Further deliveries of an event whose delivery failed (the
            provider: 3), also answered as every webhook's ``retryLimit``.
        webhook_retry_seconds: Seconds between deliveries of one event (the provider: 60).
        webhook_timeout: Seconds a delivery waits for the receiver's answer (the provider: 30).
        user_documents_untold: List user documents without ``fileId`` and ``updatedAt``, as a
            provider whose listing cannot tell whose entry a document holds.
    """

    api_key: str = "emulator-key"
    oauth_clients: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "emulator-client": {
                "secret": "emulator-secret",
                "scopes": [
                    "users.read",
                    "forms.read",
                    "schedule.read",
                    "documents.write",
                    "attachments.write",
                    "attachments.read",
                    "time_clock.read",
                    "jobs.read",
                    "time_off.read",
                    "quick_tasks.read",
                    "pay_rates.read",
                    "company_policies.read",
                    "sales_data.read",
                    "onboarding.read",
                    "settings.read",
                    "settings.write",
                    "settings.delete",
                ],
                "document_permissions": {"1": "approve", "2": "upload", "3": "upload"},
            }
        }
    )
    oauth_strict_scopes: bool = False
    document_permissions: dict[str, str] = field(
        default_factory=lambda: {"1": "approve", "2": "upload", "3": "upload"}
    )
    minute_limit: int = 100
    day_limit: int = 10_000
    window_seconds: float = 60.0
    latency: float = 0.0
    fault_rate: float = 0.0
    fault_seed: int = 7
    paging_total: bool = False
    failing_paths: dict[str, int] = field(default_factory=dict)
    delete_while_paging: dict[str, int] = field(default_factory=dict)
    webhook_retries: int = 3
    webhook_retry_seconds: float = 60.0
    webhook_timeout: float = 30.0
    user_documents_untold: bool = False


class ShiftSort(StrEnum):
    """The shifts listing's ``sort`` parameter."""

    created_at = "created_at"
    updated_at = "updated_at"


class SortOrder(StrEnum):
    """The shifts listing's ``order`` parameter."""

    asc = "asc"
    desc = "desc"
