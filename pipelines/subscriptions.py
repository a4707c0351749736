"""The webhook subscriptions wfm-sync keeps at the provider: which are needed, how they differ
from what is registered, and the writes that close the gap.

One subscription per feature type (:data:`inbox.events.FEATURE_FAMILIES`), and per
entity where the provider scopes the feature (each time clock, each scheduler:
:data:`~inbox.events.ENTITY_SCOPED`), asking for every catalogued event type of that
feature. wfm-sync recognises its own by name: ``wfm-sync:<featureType>`` or
``wfm-sync:<featureType>:<entityId>`` (:data:`NAME_PREFIX`); it never changes or removes another.

The receiver's token travels in the URL's query (``?token=...``, which the receiver accepts);
everything shown to a person passes through :func:`redact` first.

A rotation (``subscribe --rotate-secret``) sends the new token and secret once the receiver
already accepts both the new and the previous ones (:func:`rotation_steps`): no delivery is
refused between the two ends' changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from inbox.events import ENTITY_SCOPED, FEATURE_FAMILIES, feature_event_types
from sources.connecteam.client import ConnecteamClient
from sources.connecteam.errors import ConnecteamAPIError
from sources.connecteam.webhook_settings import (
    create_webhook,
    delete_webhook,
    entity_ids,
    list_webhooks,
    update_webhook,
)

NAME_PREFIX = "wfm-sync:"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
Action = Literal["create", "update", "delete", "keep"]


class SubscriptionError(ValueError):
    """The subscription request cannot be made (a bad URL, an unknown feature type, no token)."""


@dataclass(frozen=True)
class Wanted:
    """One subscription wfm-sync needs.

    Attributes:
        name: ``wfm-sync:<featureType>[:<entityId>]``.
        feature_type: The provider's ``featureType``.
        entity_id: The time clock or scheduler id (a string), or ``None`` for the account.
        event_types: Every catalogued event type of the feature.
        webhook_version: The payload version (2 only matters to shift events).
    """

    name: str
    feature_type: str
    entity_id: str | None
    event_types: tuple[str, ...]
    webhook_version: int

    def request(self, url: str, secret: str | None) -> dict[str, Any]:
        """The ``WebhookCreateRequest`` (also a full ``WebhookUpdateRequest``) for ``url``."""
        body: dict[str, Any] = {
            "name": self.name,
            "url": url,
            "featureType": self.feature_type,
            "entityId": self.entity_id,
            "eventTypes": list(self.event_types),
            "isDisabled": False,
            "webhookVersion": self.webhook_version,
        }
        if secret:
            body["secretKey"] = secret
        return body


@dataclass
class Step:
    """What to do about one subscription.

    Attributes:
        action: ``create`` (missing), ``update`` (registered but different: the fields that
            differ are in ``changes``), ``delete`` (ours but no longer needed, or
            unsubscribing), ``keep`` (as needed).
        name: The subscription's name.
        wanted: What is needed (``None`` for a delete).
        existing: The registered ``WebhookResponse`` (``None`` for a create).
        changes: Field names that differ, for an update.
    """

    action: Action
    name: str
    wanted: Wanted | None = None
    existing: dict[str, Any] | None = None
    changes: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """What :func:`apply` did: the steps and how many writes each action took."""

    steps: list[Step]
    written: dict[str, int] = field(default_factory=lambda: {"create": 0, "update": 0,
                                                             "delete": 0})  # fmt: skip


def rotation_steps(
    token: str | None,
    previous_token: str | None,
    signing_secret: str | None,
    previous_signing_secret: str | None,
    grace_seconds: float,
) -> list[str]:
    """What happens after ``subscribe --rotate-secret``, in words, once the receiver's settings
    say a rotation is under way (the values are never shown).

    Args:
        token, signing_secret: The new ones (``WEBHOOKS__TOKEN``, ``WEBHOOKS__SIGNING_SECRET``).
        previous_token, previous_signing_secret: The ones being replaced
            (``WEBHOOKS__PREVIOUS_TOKEN``, ``WEBHOOKS__PREVIOUS_SIGNING_SECRET``).
        grace_seconds: ``WEBHOOKS__ROTATION_GRACE_SECONDS``.

    Raises:
        SubscriptionError: Neither a previous token nor a previous secret is set, or one equals
            its new value: sending the new one now would have the receiver refuse deliveries
            made with the old one (the message says which settings to set first).
    """
    first = (
        "set WEBHOOKS__PREVIOUS_TOKEN to the old token and WEBHOOKS__TOKEN to the new one "
        "(likewise WEBHOOKS__PREVIOUS_SIGNING_SECRET and WEBHOOKS__SIGNING_SECRET), restart the "
        "receiver with them, then run subscribe --rotate-secret with the same settings"
    )
    if not previous_token and not previous_signing_secret:
        raise SubscriptionError(
            f"--rotate-secret needs the old token kept valid on the receiver first: {first}"
        )
    pairs = (("TOKEN", previous_token, token),
             ("SIGNING_SECRET", previous_signing_secret, signing_secret))  # fmt: skip
    for name, old, new in pairs:
        if old and old == new:
            raise SubscriptionError(
                f"WEBHOOKS__PREVIOUS_{name} equals WEBHOOKS__{name}: nothing to rotate; {first}"
            )
    rotated = [name for name, old, _ in pairs if old]
    what = {"TOKEN": "token", "SIGNING_SECRET": "signing secret"}
    return [
        "the provider now sends the new " + " and ".join(what[name] for name in rotated),
        "the receiver accepts the previous one until it has seen the new one and the previous "
        f"one has gone unused for {grace_seconds:g} s (WEBHOOKS__ROTATION_GRACE_SECONDS: the "
        "provider's retries of older deliveries, and any subscription still sending it), then "
        "refuses it, counted as retired",
        "after that, remove "
        + " and ".join(f"WEBHOOKS__PREVIOUS_{name}" for name in rotated)
        + " from the receiver's settings and restart it; `wfm-sync status` lists any delivery "
        "refused meanwhile",
    ]


def receiver_url(url: str, token: str | None) -> str:
    """``url`` with the receiver's ``token`` in its query (replacing any ``token`` there).

    Raises:
        SubscriptionError: ``url`` is not ``https://`` (the provider's rule; ``http://`` is
            allowed on a loopback host, for the emulator), or has no host.
    """
    parts = urlsplit(url)
    loopback = parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
    if not parts.hostname or not (parts.scheme == "https" or loopback):
        raise SubscriptionError(
            f"--url must be an https:// URL of the receiver (http:// only on 127.0.0.1), got "
            f"{redact(url)!r}"
        )
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "token"]
    if token:
        query.append(("token", token))
    return urlunsplit(parts._replace(query=urlencode(query)))


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every ``token=<value>`` query value and each of ``secrets`` shown as
    ``***``."""
    out = re.sub(r"(token=)[^&\s'\"]+", r"\1***", text)
    for secret in secrets:
        if secret:
            out = out.replace(secret, "***")
    return out


def wanted_subscriptions(
    features: list[str], entities: dict[str, list[str]], shift_version: int = 1
) -> list[Wanted]:
    """The subscriptions needed for ``features``: one per feature type, one per distinct entity of
    an entity-scoped feature (``entities``:
    :func:`~sources.connecteam.webhook_settings.entity_ids`).

    Raises:
        SubscriptionError: An unknown feature type, or a shift version other than 1 and 2.
    """
    features = list(dict.fromkeys(features))
    unknown = [f for f in features if f not in FEATURE_FAMILIES]
    if unknown:
        raise SubscriptionError(
            f"unknown feature types {unknown}; choose from {', '.join(FEATURE_FAMILIES)}"
        )
    if shift_version not in (1, 2):
        raise SubscriptionError(f"--shift-version must be 1 or 2, got {shift_version}")
    out: list[Wanted] = []
    for feature in features:
        events = tuple(feature_event_types(feature))
        version = shift_version if feature == "shift_scheduler" else 1
        if feature in ENTITY_SCOPED:
            for entity in sorted(set(entities.get(feature, [])), key=lambda e: (len(e), e)):
                out.append(Wanted(f"{NAME_PREFIX}{feature}:{entity}", feature, entity, events,
                                  version))  # fmt: skip
        else:
            out.append(Wanted(f"{NAME_PREFIX}{feature}", feature, None, events, version))
    return out


def is_ours(webhook: dict[str, Any]) -> bool:
    """Whether wfm-sync created ``webhook`` (its name starts with :data:`NAME_PREFIX`)."""
    return str(webhook.get("name") or "").startswith(NAME_PREFIX)


def _differences(wanted: Wanted, existing: dict[str, Any], url: str | None) -> list[str]:
    """The fields of ``existing`` that differ from ``wanted`` (a value of a type the spec does not
    allow counts as different)."""
    changes = []
    if url is not None and existing.get("url") != url:
        changes.append("url")
    if existing.get("featureType") != wanted.feature_type:
        changes.append("featureType")
    entity = existing.get("entityId")
    if (None if entity in (None, "") else str(entity)) != wanted.entity_id:
        changes.append("entityId")
    events = existing.get("eventTypes")
    if not isinstance(events, list) or sorted(str(e) for e in events) != sorted(wanted.event_types):
        changes.append("eventTypes")
    version = existing.get("webhookVersion", 1)
    if version is None:
        version = 1
    if isinstance(version, bool) or version != wanted.webhook_version:
        changes.append("webhookVersion")
    if existing.get("isDisabled"):
        changes.append("isDisabled")
    return changes


def webhook_id(webhook: dict[str, Any]) -> int:
    """The provider's id of ``webhook``.

    Raises:
        SubscriptionError: It has none that is an integer (the spec's type), so it cannot be
            updated or deleted through the API.
    """
    value = webhook.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise SubscriptionError(
        f"webhook {str(webhook.get('name'))[:80]!r} has no usable id ({value!r}); remove it in "
        "the provider's webhook settings and run subscribe again"
    )


def _id_order(webhook: dict[str, Any]) -> tuple[bool, int]:
    value = webhook.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return (False, value)
    return (True, 0)


def plan(
    wanted: list[Wanted],
    registered: list[dict[str, Any]],
    url: str | None,
    *,
    only_features: list[str] | None = None,
    rotate_secret: bool = False,
) -> list[Step]:
    """The steps from ``registered`` to ``wanted``: create what is missing, update what differs
    (``url`` ``None``: the URL is not compared, as when only listing), keep what matches,
    delete wfm-sync's own that are no longer needed (another's is never touched). Two of ours
    with one name: the first is kept or updated, the others deleted.

    Args:
        only_features: Feature types the caller chose (``--features``): wfm-sync's own of other
            feature types are left as they are, not deleted.
        rotate_secret: Update every one of ours that would be kept (the provider never answers
            a ``secretKey``, so a new secret cannot be told from the old one).
    """
    ours: dict[str, list[dict[str, Any]]] = {}
    for webhook in registered:
        if isinstance(webhook, dict) and is_ours(webhook):
            ours.setdefault(str(webhook["name"]), []).append(webhook)
    steps: list[Step] = []
    for need in wanted:
        found = ours.pop(need.name, [])
        if not found:
            steps.append(Step("create", need.name, need))
            continue
        first, *spare = sorted(found, key=_id_order)
        changes = _differences(need, first, url)
        if rotate_secret and not changes:
            changes = ["secretKey"]
        steps.append(Step("update" if changes else "keep", need.name, need, first, changes))
        steps.extend(Step("delete", need.name, None, w) for w in spare)
    for name, left in sorted(ours.items()):
        feature = name[len(NAME_PREFIX) :].split(":")[0]
        if only_features is not None and feature not in only_features:
            continue
        steps.extend(Step("delete", name, None, w) for w in left)
    return steps


def unsubscribe_plan(registered: list[dict[str, Any]]) -> list[Step]:
    """A delete step for each of wfm-sync's own subscriptions (no other)."""
    return [
        Step("delete", str(w["name"]), None, w)
        for w in registered
        if isinstance(w, dict) and is_ours(w)
    ]


def apply(client: ConnecteamClient, steps: list[Step], url: str, secret: str | None) -> Outcome:
    """Carry out ``steps`` at the provider: POST creates, PUT updates, DELETE deletes; keeps
    write nothing. A create or delete whose answer was lost is settled by listing again (a
    webhook of that name now exists / is gone), so no write is sent twice.

    Raises:
        ConnecteamAPIError: The provider refused a write (its message passes through
            :func:`redact`: no token or secret in it).
    """
    outcome = Outcome(steps)
    for step in steps:
        try:
            if step.action == "create" and step.wanted is not None:
                request = step.wanted.request(url, secret)
                _settled(client, step, partial(create_webhook, client, request))
            elif step.action == "update" and step.wanted is not None and step.existing:
                update_webhook(client, webhook_id(step.existing), step.wanted.request(url, secret))
            elif step.action == "delete" and step.existing:
                _settled(client, step, partial(delete_webhook, client, webhook_id(step.existing)))
            else:
                continue
        except ConnecteamAPIError as exc:
            token = dict(parse_qsl(urlsplit(url).query)).get("token")
            detail = redact(exc.detail, secret, token)
            if secret and "secretKey" in detail:  # an echoed request, perhaps cut mid-secret
                detail = "(the provider's message repeats the request; not shown)"
            raise ConnecteamAPIError(exc.endpoint, exc.status, detail, method=exc.method) from None
        outcome.written[step.action] += 1
    return outcome


def _settled(client: ConnecteamClient, step: Step, write: Any) -> None:
    """Send ``write`` once; when its answer is lost (no status), list again and accept the write
    if it evidently took effect."""
    try:
        write()
    except ConnecteamAPIError as exc:
        if exc.status is not None and exc.status < 500:
            raise
        names = {str(w.get("name")): w for w in list_webhooks(client)}
        landed = (step.name in names) if step.action == "create" else (
            step.existing is not None
            and not any(w.get("id") == step.existing.get("id") for w in names.values())
        )  # fmt: skip
        if not landed:
            raise


def current(
    client: ConnecteamClient, features: list[str], shift_version: int
) -> tuple[list[Wanted], list[dict[str, Any]]]:
    """What is needed for ``features`` and what is registered now (read-only: GET requests).

    Raises:
        SubscriptionError: As :func:`wanted_subscriptions`.
        ConnecteamAPIError: As :func:`~sources.connecteam.webhook_settings.list_webhooks`.
    """
    scoped = [f for f in features if f in ENTITY_SCOPED]
    entities = entity_ids(client) if scoped else {}
    return wanted_subscriptions(features, entities, shift_version), list_webhooks(client)
