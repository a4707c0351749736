"""The emulated account's fixed values: the names, time zones, titles and colours records are
drawn from, the account's document templates and its user custom fields."""

from __future__ import annotations

import random
import uuid

FIRST_NAMES = [
    "José", "Zoë", "Łukasz", "Ana", "Mia", "Noah", "Søren", "Chloé", "Björn", "Aiyana",
    "Mei", "Ngọc", "Olu", "Priya", "Renée", "Siobhán", "Tomás", "Ülkü", "Yusuf", "Émile",
    "Дмитрий", "さくら", "محمد", "Anaïs", "Kwame", "Laila", "Mateo", "Nadia", "Oskar", "Paulo",
]  # fmt: skip
LAST_NAMES = [
    "García", "Müller", "Nowak", "O'Brien", "Smith", "Kowalczyk", "Nguyễn", "Søndergaard",
    "Johansson", "Dubois", "Ivanova", "Tanaka", "Haddad", "Okafor", "Patel", "Rossi",
    "Fernández", "Çelik", "Kim", "Lefèvre", "Brontë", "Zieliński", "Costa", "Weiß",
]  # fmt: skip
TIMEZONES = [
    "America/New_York",
    "Europe/London",
    "Australia/Sydney",
    "America/Los_Angeles",
    "Europe/Berlin",
    "Asia/Jerusalem",
]
SCHEDULER_NAMES = ["Kitchen", "Front of house", "Warehouse", "Delivery", "Support", "Café Süd"]
SHIFT_TITLES = ["Opening", "Morning", "Mid", "Closing", "Night", "Inventory", "Cover"]
COLORS = ["#4B7AC5", "#E0A53B", "#2E9E6A", "#C0392B", "#8E44AD"]
DEPARTMENTS = [(1, "Operations"), (2, "Kitchen"), (3, "Logistics"), (4, "Service")]

# (documentId, name, ApiDocumentType, packId): the account's document templates.
DOCUMENTS = [
    (7001, "Employment contract", "eSign", 1),
    (7002, "Passport copy", "governmentDocument", 2),
    (7003, "Food hygiene certificate", "document", 3),
    (7004, "Arbeitsvertrag Zusatz", "eSign", 1),
]
DOCUMENT_STATUSES = [
    "pendingUserUpload", "pendingUserFilling", "pendingAdminFilling", "pendingYourCompletion",
    "pendingApproval", "approved", "rejected",
]  # fmt: skip

# (customFieldId, name, type): one of each kind a real account typically has.
CUSTOM_FIELDS = [
    (101, "Employee number", "number"),
    (102, "Department", "dropdown"),
    (103, "Start date", "date"),
    (104, "Birthday", "birthday"),
    (105, "Personal email", "email"),
    (106, "Emergency phone", "phone"),
    (107, "Notes", "str"),
    (108, "Profile link", "link"),
]


def uuid_of(rng: random.Random) -> str:
    """A UUID4-shaped string drawn from ``rng`` (deterministic, unlike :func:`uuid.uuid4`)."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))
