"""The query and path parameters of every GET the spec declares, checked as the provider checks
them: the emulator refuses what the spec refuses.

The rules come from the spec itself (``sources/connecteam/spec/connecteam-openapi.json``), read once
(:func:`rules`): for each GET path template, each declared parameter's location (``query`` or
``path``), whether it is required, and its schema with ``$ref``s and one-element ``allOf``s
inlined. A schema holds ``type`` (``integer``, ``number``, ``boolean``, ``string`` or ``array``,
whose ``items`` are checked one by one), ``enum``, ``minimum``/``maximum`` (and their exclusive
forms), ``minItems``/``maxItems``, or ``anyOf`` of such schemas (``{"type": "null"}`` among them
only means the parameter may be left out). On the wire:

* an integer is ``-?[0-9]+``, a number a finite decimal, a boolean exactly ``true`` or ``false``;
* an array is the parameter repeated (``userIds=1&userIds=2``); a scalar sent more than once is
  read from its last value, as FastAPI reads it;
* an ``enum`` value is compared as text with the enum's values.

:func:`errors` answers the list FastAPI puts in a 422 ``HTTPValidationError``: ``[{"type",
"loc": ["query" | "path", name], "msg", "input"}]`` (the spec's ``ValidationError``), empty when
the request is valid. Paths the spec does not declare (beta routes, ``/_emulator``) have no
rules and are not checked.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .spec_schemas import inline, spec

Rule = tuple[str, str, bool, dict[str, Any]]
"""``(location, name, required, schema)`` of one declared parameter."""
Error = dict[str, Any]
"""``{"type", "loc", "msg", "input"}``: one item of an ``HTTPValidationError``'s ``detail``."""

_INTEGER = re.compile(r"-?[0-9]+")
_BOUNDS = (
    ("minimum", lambda v, b: v >= b, "greater_than_equal", "greater than or equal to"),
    ("maximum", lambda v, b: v <= b, "less_than_equal", "less than or equal to"),
    ("exclusiveMinimum", lambda v, b: v > b, "greater_than", "greater than"),
    ("exclusiveMaximum", lambda v, b: v < b, "less_than", "less than"),
)
"""``(keyword, holds(value, bound), error type, message words)`` of the numeric bounds."""


@functools.cache
def rules() -> dict[str, tuple[Rule, ...]]:
    """GET path template (``/users/v1/users``) -> the rules of its query and path parameters,
    as the spec declares them (path-level and operation-level parameters, ``$ref``s inlined)."""
    document = spec()
    out: dict[str, tuple[Rule, ...]] = {}
    for path, item in document["paths"].items():
        if "get" not in item:
            continue
        declared = [*item.get("parameters", []), *item["get"].get("parameters", [])]
        out[path] = tuple(
            (param["in"], param["name"], bool(param.get("required")), inline(param["schema"]))
            for param in map(_parameter, declared)
            if param["in"] in ("query", "path")
        )
    return out


def _parameter(param: dict[str, Any]) -> dict[str, Any]:
    """``param`` itself, or the component a ``{"$ref": "#/components/parameters/..."}`` names."""
    ref = param.get("$ref")
    if not ref:
        return param
    found: dict[str, Any] = spec()["components"]["parameters"][ref.rsplit("/", 1)[-1]]
    return found


def errors(
    template: str, query: Sequence[tuple[str, str]], path_params: Mapping[str, Any]
) -> list[Error]:
    """The validation errors of one GET of ``template``: ``query`` as sent (``(name, value)``
    pairs, repeated names kept), ``path_params`` as routed (``{"schedulerId": "9000"}``).
    Empty when valid, or when the spec declares no GET at ``template``."""
    found: list[Error] = []
    for location, name, required, schema in rules().get(template, ()):
        if location == "path":
            values = [str(path_params[name])] if name in path_params else []
        else:
            values = [value for key, value in query if key == name]
        if not values:
            if required:
                found.append(_error("missing", [location, name], "Field required", None))
            continue
        problem = _check(schema, values)
        if problem is not None:
            kind, msg, bad = problem
            found.append(_error(kind, [location, name], msg, bad))
    return found


def _error(kind: str, loc: list[str], msg: str, value: Any) -> Error:
    return {"type": kind, "loc": loc, "msg": msg, "input": value}


Problem = tuple[str, str, Any]
"""``(error type, message, the value refused)``."""


def _check(schema: dict[str, Any], values: list[str]) -> Problem | None:
    """The first problem of ``values`` (the texts sent for one parameter) under ``schema``;
    ``None`` when they are valid. An ``anyOf`` is valid when one of its branches is."""
    branches = [b for b in schema.get("anyOf", [schema]) if b.get("type") != "null"]
    first: Problem | None = None
    for branch in branches:
        problem = _check_branch(branch, values)
        if problem is None:
            return None
        first = first or problem
    return first


def _check_branch(schema: dict[str, Any], values: list[str]) -> Problem | None:
    """As :func:`_check`, for a schema without ``anyOf``."""
    if "anyOf" in schema:
        return _check(schema, values)
    if schema.get("type") != "array":
        return _scalar(schema, values[-1])
    for keyword, holds, word in (("minItems", int.__ge__, "at least"),
                                 ("maxItems", int.__le__, "at most")):  # fmt: skip
        if keyword in schema and not holds(len(values), schema[keyword]):
            kind = "too_short" if keyword == "minItems" else "too_long"
            return kind, f"List should have {word} {schema[keyword]} items", values
    items = schema.get("items", {})
    for value in values:
        problem = _check(items, [value])
        if problem is not None:
            return problem
    return None


def _scalar(schema: dict[str, Any], value: str) -> Problem | None:
    """The problem of one text ``value`` under a scalar ``schema`` (type, enum, bounds)."""
    kind = schema.get("type")
    number: float | int | None = None
    if kind == "integer":
        if not _INTEGER.fullmatch(value):
            return "int_parsing", "Input should be a valid integer", value
        number = int(value)
    elif kind == "number":
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            return "float_parsing", "Input should be a valid number", value
    elif kind == "boolean" and value not in ("true", "false"):
        return "bool_parsing", "Input should be a valid boolean, true or false", value
    if "enum" in schema and value not in [str(option) for option in schema["enum"]]:
        wanted = " or ".join(repr(str(option)) for option in schema["enum"])
        return "enum", f"Input should be {wanted}", value
    for keyword, holds, error, words in _BOUNDS:
        if number is not None and keyword in schema and not holds(number, schema[keyword]):
            return error, f"Input should be {words} {schema[keyword]}", value
    return None
