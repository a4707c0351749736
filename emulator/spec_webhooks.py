"""The provider's webhook events as the emulator knows them: read from the provider's documents
(``sources/connecteam/spec``, read as files), never from the product's own catalogue, so a wrong
event name in the product is not echoed back by the emulator.

* The spec's ``webhooks`` section (41 webhooks): each webhook's title and payload schema; 22 of
  the payload schemas state their ``eventType`` (its ``default``).
* The Events table of ``service-interface.md``: the payload schemas of the newer events the spec
  file lacks (``TimeActivityUser{Add,Edit,Delete}RequestWebhookResponse``,
  ``TimeActivityAdminDeclined...``, ``TimesheetPeriod...``). Their ``eventType`` is the schema's
  name between its family prefix and ``WebhookResponse`` in snake case
  (:func:`event_type_of_schema`), the rule every time-activity default of the spec follows
  (``TimeActivityClockInWebhookResponse`` -> ``clock_in``).
* The feature types of the webhook settings API: the spec's ``WebhookCreateRequest.featureType``
  ("Current options are: users, forms, time_activity, tasks").

What the documents do not state, the emulator declares here, each constant saying so:
:data:`OPEN_EVENT_TYPES` (the ``eventType`` of the 19 webhooks whose payload schema gives none),
:data:`FAMILY_PREFIXES` (which family a payload schema belongs to), :data:`FEATURE_TYPE_FAMILIES`
and :data:`UNNAMED_FEATURE_TYPES` (which families each feature type takes).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from .spec_schemas import SPEC_PATH, spec

INTERFACE_PATH = SPEC_PATH.parent / "service-interface.md"
"""The interface description: its Events table names the payload schemas of every event."""

FAMILIES = ("time_activity", "timesheet_period", "availability", "shift", "user", "task", "form",
            "chat")  # fmt: skip
"""The emulator's event families, in catalogue order. The spec does not group its webhooks; the
families follow its payload schemas' names (:data:`FAMILY_PREFIXES`)."""

FAMILY_PREFIXES = (
    ("TimeActivity", "time_activity"),
    ("TimesheetPeriod", "timesheet_period"),
    ("Availability", "availability"),
    ("Shift", "shift"),
    ("User", "user"),
    ("Task", "task"),
    ("FormSubmission", "form"),
    ("ManagerField", "form"),
    ("Chat", "chat"),
)
"""Payload schema name prefix -> family. The spec does not state the grouping: the emulator's
own, by the schema names (``UsersChangedWebhookResponse`` and ``UserIdWebhookResponse`` are
``user``; form submissions and their manager fields are ``form``)."""

OPEN_EVENT_TYPES = {
    "User created": "user_created",
    "User updated": "user_updated",
    "User deleted": "user_deleted",
    "User archived": "user_archived",
    "User restored": "user_restored",
    "User promoted": "user_promoted",
    "User demoted": "user_demoted",
    "Task Published": "task_published",
    "Task Completed": "task_completed",
    "Pending User Request Fulfilled": "pending_user_request_fulfilled",
    "Form Submission": "form_submission",
    "Form submission Edited": "form_submission_edited",
    "Manager Field Updated": "manager_field_updated",
    "Chat message created": "message_created",
    "Chat message updated": "message_updated",
    "Chat message deleted": "message_deleted",
    "Chat conversation created": "conversation_created",
    "Chat conversation updated": "conversation_updated",
    "Chat conversation deleted": "conversation_deleted",
}
"""Spec webhook title -> ``eventType``, for the webhooks whose payload schema leaves
``eventType`` a free string (no ``default``). The spec does not state these names: they are the
provider's published ones (developer.connecteam.com webhook guides; the chat events drop the
title's "Chat")."""

FEATURE_TYPE_FAMILIES = {
    "users": ("user",),
    "forms": ("form",),
    "time_activity": ("time_activity", "timesheet_period"),
    "tasks": ("task",),
}
"""Families of each feature type the spec names. The spec names the feature types but not the
events each one takes: this is the emulator's reading (``provider-notes.md`` counts the
timesheet-period events among the time-activity ones)."""

UNNAMED_FEATURE_TYPES = {"shift_scheduler": ("shift", "availability"), "chat": ("chat",)}
"""Feature types the spec does not name (its ``entityId`` text scopes webhooks by "shift
scheduler" and chat entities): the emulator's own names and families."""

_SCHEMA = re.compile(r"\b[A-Z][A-Za-z]*(?:\{[A-Za-z,]+\}[A-Za-z]*)*WebhookResponse\b")
_SUFFIX = "WebhookResponse"


@dataclass(frozen=True)
class WebhookEvent:
    """One event the emulator can send.

    Attributes:
        event_type: The payload's ``eventType``.
        family: One of :data:`FAMILIES`.
        schema: The payload schema's name: a component of the spec, or for an event the spec
            file lacks, as the interface description names it.
        title: The spec's title of the webhook, or (an event the spec lacks) the schema's words.
        in_spec: Whether the spec file publishes the webhook (its payloads still carry the
            deprecated ``evnetTimestamp``; the newer events carry only ``eventTimestamp``).
    """

    event_type: str
    family: str
    schema: str
    title: str
    in_spec: bool


def spec_webhook_payloads() -> list[tuple[str, str]]:
    """``(title, payload schema)`` of every webhook the spec publishes (41), in spec order."""
    out = []
    for title, operation in spec().get("webhooks", {}).items():
        answer = operation["post"]["responses"]["200"]["content"]["application/json"]["schema"]
        out.append((title, answer["$ref"].rsplit("/", 1)[-1]))
    return out


def family_of_schema(schema: str) -> str:
    """The family of a payload schema (:data:`FAMILY_PREFIXES`).

    Raises:
        ValueError: No prefix of :data:`FAMILY_PREFIXES` starts ``schema``.
    """
    return _prefix(schema)[1]


def event_type_of_schema(schema: str) -> str:
    """The ``eventType`` a payload schema's name spells: the words between its family prefix and
    ``WebhookResponse``, in snake case (``TimesheetPeriodAdminDayLockedWebhookResponse`` ->
    ``admin_day_locked``).

    Raises:
        ValueError: ``schema`` belongs to no family, or spells nothing between prefix and suffix.
    """
    words = schema.removeprefix(_prefix(schema)[0]).removesuffix(_SUFFIX)
    if not words or not schema.endswith(_SUFFIX):
        raise ValueError(f"payload schema {schema!r} spells no event type")
    return _snake(words)


def _prefix(schema: str) -> tuple[str, str]:
    """``(prefix, family)`` of :data:`FAMILY_PREFIXES` that starts ``schema``.

    Raises:
        ValueError: None does.
    """
    for prefix, family in FAMILY_PREFIXES:
        if schema.startswith(prefix):
            return prefix, family
    raise ValueError(f"payload schema {schema!r} belongs to no family of the emulator")


def interface_schemas(text: str) -> list[str]:
    """Every payload schema the Events table of an interface description (``text``, Markdown)
    names, braces expanded (``A{B,C}WebhookResponse`` -> ``ABWebhookResponse``,
    ``ACWebhookResponse``), in table order, each once. Abbreviations such as ``...AdminEdit...``
    are skipped."""
    section = text.split("\n## Events", 1)[-1].split("\n## ", 1)[0]
    names: list[str] = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or len(cells) < 2:
            continue
        for token in _SCHEMA.findall(cells[1]):
            names += [name for name in _expand(token) if name not in names]
    return names


def _expand(token: str) -> list[str]:
    """``token`` with its first ``{a,b}`` group replaced by each option, recursively."""
    match = re.search(r"\{([^{}]*)\}", token)
    if match is None:
        return [token]
    head, tail = token[: match.start()], token[match.end() :]
    return [name for option in match.group(1).split(",") for name in _expand(head + option + tail)]


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def _title(schema: str) -> str:
    """``TimeActivityUserAddRequestWebhookResponse`` -> ``Time activity user add request``."""
    return _snake(schema.removesuffix(_SUFFIX)).replace("_", " ").capitalize()


def _spec_event(title: str, schema: str, components: dict[str, Any]) -> WebhookEvent:
    """The event of one spec webhook: its ``eventType`` default, else :data:`OPEN_EVENT_TYPES`.

    Raises:
        KeyError: The schema states no ``eventType`` and :data:`OPEN_EVENT_TYPES` has no name
            for ``title``.
    """
    declared = components[schema].get("properties", {}).get("eventType", {}).get("default")
    if declared is None and title not in OPEN_EVENT_TYPES:
        raise KeyError(f"spec webhook {title!r} states no eventType and the emulator names none")
    event_type = declared if declared is not None else OPEN_EVENT_TYPES[title]
    return WebhookEvent(event_type, family_of_schema(schema), schema, title, in_spec=True)


@functools.cache
def catalogue() -> dict[str, WebhookEvent]:
    """Every event the emulator can send, by ``eventType``: the spec's 41 webhooks and the
    interface description's newer events, grouped by family (:data:`FAMILIES` order), then by
    payload schema, each in the documents' order.

    Raises:
        KeyError, ValueError: The documents hold a webhook the emulator cannot name or place
            (:func:`_spec_event`, :func:`family_of_schema`).
    """
    components = spec()["components"]["schemas"]
    events = [_spec_event(title, schema, components) for title, schema in spec_webhook_payloads()]
    for schema in interface_schemas(INTERFACE_PATH.read_text(encoding="utf-8")):
        if schema not in components:
            events.append(WebhookEvent(event_type_of_schema(schema), family_of_schema(schema),
                                       schema, _title(schema), in_spec=False))  # fmt: skip
    first_of_schema: dict[str, int] = {}
    for position, event in enumerate(events):
        first_of_schema.setdefault(event.schema, position)
    ordered = sorted(
        events, key=lambda e: (FAMILIES.index(e.family), first_of_schema[e.schema])
    )  # a stable sort: the documents' order within one schema
    return {event.event_type: event for event in ordered}


def spec_feature_types() -> list[str]:
    """The feature types the spec names (``WebhookCreateRequest.featureType``: "Current options
    are: users, forms, time_activity, tasks"), in its order; empty when it names none."""
    schema = spec()["components"]["schemas"]["WebhookCreateRequest"]["properties"]["featureType"]
    found = re.search(r"options are:\s*(.+)$", str(schema.get("description", "")))
    return [name.strip(" .") for name in found.group(1).split(",")] if found else []


@functools.cache
def feature_families() -> dict[str, tuple[str, ...]]:
    """The webhook settings API's feature types (``featureType``) -> the families of the events a
    subscription of that type may ask for: the spec's feature types
    (:func:`spec_feature_types`, families from :data:`FEATURE_TYPE_FAMILIES`), then
    :data:`UNNAMED_FEATURE_TYPES`.

    Raises:
        KeyError: The spec names a feature type :data:`FEATURE_TYPE_FAMILIES` does not place.
    """
    named = {name: FEATURE_TYPE_FAMILIES[name] for name in spec_feature_types()}
    return {**named, **UNNAMED_FEATURE_TYPES}


def feature_event_types(feature_type: str) -> list[str]:
    """Every ``eventType`` of ``feature_type`` (:func:`feature_families`), in catalogue order.

    Raises:
        KeyError: ``feature_type`` is not one of :func:`feature_families`.
    """
    families = feature_families()[feature_type]
    return [e.event_type for e in catalogue().values() if e.family in families]
