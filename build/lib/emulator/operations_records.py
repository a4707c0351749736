"""Single records of the emulator's operations data, as the provider's schemas shape them: a
time activity's start or end point, a job, a form submission, a time-off request, a task and a
user custom field definition; and the fixed values they are drawn from. Timestamps are UTC epoch
seconds; dates ``YYYY-MM-DD``."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from .config import DAY

TIME_CLOCK_BASE = 7100
"""Id of the first time clock (the next ones count up)."""
TASK_BOARD_BASE = 3100
"""Id of the first task board (the next ones count up)."""
POLICY_TYPES = [("pt-vacation", "Vacation"), ("pt-sick", "Sick leave"), ("pt-personal", "Personal")]
MANUAL_BREAKS: list[dict[str, Any]] = [
    {"id": "mb-lunch", "name": "Lunch", "isPaid": False, "duration": 30},
    {"id": "mb-rest", "name": "Rest", "isPaid": True, "duration": 15},
]
"""Every time clock's manual-break policies (``ManualBreakResponse``; ``duration`` in minutes)."""
AUTO_CLOCK_OUT_MODES = ["dailyLimit", "hourLimit", "schedulerShiftEnded", "geofenceExit"]
ACTIVITY_ZONES = ["America/New_York", "Europe/London", "Australia/Sydney"]
TIME_OFF_STATUSES = ["approved", "approved", "approved", "pending", "denied"]
TASK_STATUSES = ["draft", "published", "published", "completed", "completed"]


def activity_point(timestamp: int, zone: str) -> dict[str, Any]:
    """A time activity's ``start``/``end``: ``{timestamp, timezone, source: {type: mobile}}``."""
    return {"timestamp": timestamp, "timezone": zone, "source": {"type": "mobile"}}


def job_record(
    rng: random.Random, job_id: str, title: str, parent: str | None = None
) -> dict[str, Any]:
    """A ``BaseJobResponse`` (a sub-job of ``parent`` when given), not deleted, no sub-jobs."""
    return {
        "jobId": job_id,
        "title": title,
        "code": job_id.upper().replace("-", ""),
        "color": rng.choice(["#4B7AC5", "#E0A53B", "#2E9E6A"]),
        "description": "",
        "customFields": [],
        "isDeleted": False,
        "assign": {"type": "both", "userIds": [], "groupIds": []},
        "useParentData": parent is not None,
        "parentId": parent,
        "subJobs": None,
        "instanceIds": [TIME_CLOCK_BASE],
    }


ANSWER_MAKERS = {
    "openEnded": lambda rng: {"value": rng.choice(["North gate", "Café", "Lager 3"])},
    "number": lambda rng: {"inputValue": round(rng.uniform(1, 8), 1)},
    "datetime": lambda rng: {
        "timestamp": 1_790_000_000,
        "timezone": "Europe/London",
        "isTimeSubmitted": True,
        "isDateSubmitted": True,
    },
    "yesNo": lambda rng: {"selectedIndex": rng.randint(0, 1)},
    "multipleChoice": lambda rng: {"selectedAnswers": []},
}


def form_submission(
    rng: random.Random,
    form_id: int,
    entry: int,
    anchor: int,
    users: list[int],
    form: dict[str, Any],
) -> dict[str, Any]:
    """Submission ``entry`` of ``form`` (a ``FormSubmissionResponse``): one answer per question,
    submitted 1..120 days before ``anchor`` by one of ``users``."""
    submitted = anchor - rng.randint(1, 120 * DAY)
    answers = []
    for question in form.get("questions", []):
        kind = question["questionType"]
        answer = {
            "questionId": question["questionId"],
            "questionType": kind,
            "wasSubmittedEmpty": False,
            "submissionTimestamp": submitted,
            **ANSWER_MAKERS.get(kind, lambda rng: {})(rng),
        }
        if kind == "multipleChoice" and question.get("allAnswers"):
            option = rng.choice(question["allAnswers"])
            answer["selectedAnswers"] = [
                {"multipleChoiceOptionId": option["multipleChoiceOptionId"], "text": option["text"]}
            ]
        answers.append(answer)
    return {
        "formSubmissionId": f"fs-{form_id}-{entry:05d}",
        "formId": form_id,
        "entryNum": entry,
        "submissionTimestamp": submitted,
        "submissionTimezone": rng.choice(ACTIVITY_ZONES),
        "submissionStartTimestamp": submitted - rng.randint(30, 900),
        "submittingUserId": rng.choice(users),
        "isAnonymous": False,
        "managerFields": [],
        "answers": answers,
    }


def time_off_request(rng: random.Random, k: int, anchor: int, users: list[int]) -> dict[str, Any]:
    """Time-off request ``tor-<k + 1>``: 1..5 all-day dates within 150 days before to 120 days
    after ``anchor``, a random status; approved ones carry their ``duration``."""
    first = datetime.fromtimestamp(anchor, UTC).date() + timedelta(days=rng.randint(-150, 120))
    days = rng.randint(1, 5)
    last = first + timedelta(days=days - 1)
    status = rng.choice(TIME_OFF_STATUSES)
    request: dict[str, Any] = {
        "id": f"tor-{k + 1:05d}",
        "policyTypeId": rng.choice(POLICY_TYPES)[0],
        "userId": rng.choice(users),
        "isAllDay": True,
        "timeClockId": TIME_CLOCK_BASE,
        "startDate": first.isoformat(),
        "endDate": last.isoformat(),
        "startTime": "00:00",
        "endTime": "23:59",
        "timezone": rng.choice(ACTIVITY_ZONES),
        "status": status,
        "employeeNote": "",
        "managerNote": "",
    }
    if status == "approved":
        request["duration"] = {"units": "days", "amount": days}
    return request


def task_record(
    rng: random.Random, board_id: int, k: int, anchor: int, users: list[int]
) -> dict[str, Any]:
    """Task ``task-<board>-<k + 1>`` (a ``ResponseTask``), starting within 70 days before
    ``anchor``; drafts are assigned to nobody."""
    status = rng.choice(TASK_STATUSES)
    start = anchor - rng.randint(0, 70) * DAY + 9 * 3600
    return {
        "id": f"task-{board_id}-{k + 1:04d}",
        "title": rng.choice(["Restock", "Deep clean", "Audit"]),
        "userIds": []
        if status == "draft"
        else sorted(rng.sample(users, min(len(users), rng.randint(1, 2)))),
        "status": status,
        "startTime": start,
        "dueDate": start + rng.randint(0, 6) * DAY,
        "labelIds": [],
        "type": rng.choice(["oneTime", "recurring"]),
        "isArchived": False,
        "subTasks": [],
        "description": [{"type": "html", "html": "<p>See checklist</p>"}],
    }


def custom_field_definition(cid: int, name: str, kind: str) -> dict[str, Any]:
    """A ``CustomFieldSettingsResponse`` (dropdowns with the account's four departments)."""
    record: dict[str, Any] = {
        "id": cid,
        "name": name,
        "type": kind,
        "categoryId": 1,
        "isRequired": cid in (101, 102),
        "isVisibleToAllAdmins": True,
        "isEditableForAllAdmins": True,
        "isVisibleToUsers": True,
        "isEditableForUsers": False,
    }
    if kind == "dropdown":
        record["isMultiSelect"] = False
        record["dropdownOptions"] = [
            {"id": i, "value": v, "isDisabled": False, "isDeleted": False}
            for i, v in ((1, "Operations"), (2, "Kitchen"), (3, "Logistics"), (4, "Service"))
        ]
    return record
