"""The emulator checked by an outside tool: schemathesis runs the provider's spec against every
operation the emulator implements (status codes, content types, response schemas, no 5xx).

The operations are found by matching the emulator app's routes with the spec's paths, so a new
route is checked without touching this file. Beta routes the spec does not publish (documents,
attachments, ``/_emulator`` control endpoints) have nothing to be checked against.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from conftest import API_KEY, SPEC_FILE
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from emulator import create_app

SPEC = SPEC_FILE


@schemathesis.check
def documented_status(ctx: Any, response: Any, case: Any) -> bool | None:
    """status_code_conformance, except one narrow, documented emulator choice: an id in the path
    that names nothing (a generated scheduler, form, clock or file id) is answered 404, which
    the spec does not list (the provider's own answer there is not published either)."""
    if response.status_code == 404 and case.path_parameters:
        return None
    return status_code_conformance(ctx, response, case)


CHECKS = [not_a_server_error, documented_status, content_type_conformance,
          response_schema_conformance]  # fmt: skip


def implemented() -> list[tuple[str, str]]:
    """``(METHOD, path)`` of every spec operation the emulator app serves."""
    import json

    paths = json.loads(SPEC.read_text())["paths"]
    served = {
        (method, route.path)  # type: ignore[attr-defined]
        for route in create_app().routes
        for method in getattr(route, "methods", set())
    }
    return sorted(
        (method, path)
        for path, operations in paths.items()
        for method in operations
        if (method.upper(), path) in served
    )


OPERATIONS = implemented()
schema = schemathesis.openapi.from_path(str(SPEC)).include(
    lambda ctx: (ctx.operation.method.lower(), ctx.operation.path) in set(OPERATIONS)
)


def test_the_spec_s_operations_are_found_on_the_emulator():
    assert len(OPERATIONS) >= 13, OPERATIONS  # every list endpoint the sync reads, and more


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
def test_the_emulator_answers_as_the_spec_says(case, emulator_url):
    case.call_and_validate(base_url=emulator_url, headers={"X-API-KEY": API_KEY}, checks=CHECKS)
