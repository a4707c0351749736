"""The provider's JSON schemas as hypothesis strategies, and seeded pools of values drawn from them.

The spec (``sources/connecteam/spec/connecteam-openapi.json``, OpenAPI 3.1) describes every record
and webhook payload with JSON Schema. :func:`resolved` inlines its ``$ref``s into self-contained
schemas; :func:`strategy` turns one into a hypothesis strategy: objects, arrays and
``anyOf``/``oneOf`` are composed here (``st.fixed_dictionaries``, ``st.lists``, ``st.one_of``:
built once, cheap to draw), every other schema (strings, numbers, enums, booleans, nulls, maps)
goes to hypothesis-jsonschema's
``from_schema``. Leaves whose value the spec data mode alters (dates, timezones, enums) come
wrapped in :class:`Leaf` so the caller knows what each value was drawn for.

Determinism: hypothesis's ``.example()`` cannot be seeded, and ``@given`` runs a whole engine per
draw. :func:`draw_pool` instead draws each value through a fresh ``ConjectureData`` whose choices
come from a ``random.Random`` seeded with the pool's name and seed, with a provider that ignores
the constants hypothesis collects from whatever modules the process has imported (so the draws
are the same in the emulator's own process, a test process or a benchmark). The same
``(name, seed, wide, size)`` always gives the same pool, whatever the hash seed.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPEC_DIR = Path(__file__).resolve().parent.parent / "sources" / "connecteam" / "spec"
"""The provider's reference (spec, interface description, notes): the product's data folder beside
this package, in the repository and in an installed wheel alike; read as files, never imported."""
SPEC_PATH = SPEC_DIR / "connecteam-openapi.json"
_DROP = {"discriminator", "format", "example", "examples", "title", "description", "default",
         "deprecated", "readOnly", "writeOnly", "pattern", "allOf", "$ref"}  # fmt: skip
"""Keywords :func:`resolved` leaves out: documentation, and formats and patterns (the spec data
mode sets dates itself; a ``uri`` is just a string here)."""
DATE_FORMATS = {"date", "date-time"}
MIXED_ITEMS = ((0, 3), (0, 2))
"""``(min, max)`` items of an outermost array, and of an array inside an array's items, in
``mixed`` width (the spec's own bounds narrow them)."""
WIDE_ITEMS = ((3, 5), (1, 2))
"""As :data:`MIXED_ITEMS`, ``wide``: nested arrays stay short, or records grow exponentially."""
WIDE_STRINGS = (24, 64)
"""``(minLength, maxLength)`` of a free string in ``wide`` width (within the spec's own)."""


GENERATOR_MODULES = ("hypothesis", "hypothesis_jsonschema")
"""What the spec data mode draws with: the ``emulator`` extra of the package (``pip install
'wfm-sync[emulator]'``; ``make install`` installs it), not needed by the emulator's own data."""
INSTALL_HINT = "pip install 'wfm-sync[emulator]' (or make install)"


def missing_generators() -> list[str]:
    """The modules of :data:`GENERATOR_MODULES` that cannot be imported (none imported here)."""
    return [name for name in GENERATOR_MODULES if importlib.util.find_spec(name) is None]


def require_generators() -> None:
    """Check the spec data mode can draw.

    Raises:
        ModuleNotFoundError: A module of :data:`GENERATOR_MODULES` is missing (the message names
            it and :data:`INSTALL_HINT`).
    """
    missing = missing_generators()
    if missing:
        raise ModuleNotFoundError(
            f"the emulator's spec data mode needs {', '.join(missing)}: {INSTALL_HINT}",
            name=missing[0],
        )


@functools.cache
def spec() -> dict[str, Any]:
    """The provider's OpenAPI document."""
    loaded: dict[str, Any] = json.loads(SPEC_PATH.read_text())
    return loaded


@functools.cache
def _path_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Every path of the spec as a pattern (a ``{placeholder}`` matches one segment), the paths
    with fewer placeholders first, so a literal path wins over a template that also matches."""
    paths = sorted(spec()["paths"], key=lambda template: template.count("{"))
    return tuple(
        (re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))), template)
        for template in paths
    )


@functools.lru_cache(maxsize=4096)
def path_template(path: str) -> str:
    """The spec's path template of a concrete request path
    (``/onboarding/v1/packs/5100/assignments`` -> ``/onboarding/v1/packs/{packId}/assignments``),
    or ``path`` itself when the spec has none (the beta ``/documents/v1/user-documents``)."""
    for pattern, template in _path_patterns():
        if pattern.fullmatch(path):
            return template
    return path


def component(name: str) -> dict[str, Any]:
    """A component schema as published (``$ref``s unresolved)."""
    schema: dict[str, Any] = spec()["components"]["schemas"][name]
    return schema


@functools.cache
def resolved(name: str) -> dict[str, Any]:
    """Component ``name`` with every ``$ref`` (and every one-element ``allOf``, the spec's only
    use of it) inlined, documentation keywords dropped, ``format`` moved to ``x-format``.

    A component that refers to itself (``BaseJobResponse.subJobs``) is cut at its second
    appearance: there the schema is ``{"type": "null"}``. The property a ``oneOf``'s
    ``discriminator`` names is made required in every branch that has it (as the provider sends
    it), so a drawn value matches one branch only, as plain JSON Schema's ``oneOf`` asks.
    """
    out: dict[str, Any] = _resolve(component(name), (name,))
    return out


def inline(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a parameter's, say) with its ``$ref``s inlined as :func:`resolved` does."""
    out: dict[str, Any] = _resolve(schema, ())
    return out


def _resolve(schema: Any, stack: tuple[str, ...]) -> Any:
    if isinstance(schema, list):
        return [_resolve(item, stack) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    ref = schema.get("$ref") or (schema["allOf"][0].get("$ref") if "allOf" in schema else None)
    if ref:
        target = ref.rsplit("/", 1)[-1]
        if target in stack:
            return {"type": "null"}
        out.update(_resolve(component(target), (*stack, target)))
    elif "allOf" in schema:
        out.update(_resolve(schema["allOf"][0], stack))
    for key, value in schema.items():
        if key in ("properties", "$defs"):
            out[key] = {name: _resolve(sub, stack) for name, sub in value.items()}
        elif key not in _DROP:
            out[key] = _resolve(value, stack)
    if "format" in schema:
        out["x-format"] = schema["format"]
    tag = schema.get("discriminator", {}).get("propertyName")
    for branch in out.get("oneOf", []) if tag else []:
        if tag in branch.get("properties", {}):
            branch["required"] = sorted({*branch.get("required", []), tag})
    return out


@dataclass(frozen=True)
class Leaf:
    """A drawn value the spec data mode may alter.

    Attributes:
        value: As hypothesis drew it.
        kind: ``date`` (a ``format: date`` string, or a string property named ``...date``),
            ``datetime`` (``format: date-time``), ``timezone`` (a string property named
            ``...timezone``), ``enum`` (a string with an ``enum``), ``epoch`` (an integer
            named like a time: :data:`EPOCH_NAME`), ``integer`` or ``number``.
        low: The schema's ``minimum`` of a number, if any.
        high: The schema's ``maximum`` of a number, if any.
    """

    value: Any
    kind: str
    low: float | None = None
    high: float | None = None


EPOCH_NAME = re.compile(r"^timestamp$|Timestamp$|At$|Time$|Date$|^lastLogin$")
"""Names of the integer properties the provider fills with epoch seconds (``createdAt``,
``startTime``, ``start.timestamp``, ``dueDate``, ``lastLogin``, ...)."""


def leaf_kind(schema: dict[str, Any], name: str) -> str | None:
    """What :class:`Leaf` kind a schema of property ``name`` is, if any."""
    if schema.get("type") == "integer" and EPOCH_NAME.search(name):
        return "epoch"
    if schema.get("type") in ("integer", "number"):
        return str(schema["type"])
    if schema.get("type") != "string":
        return None
    fmt, lowered = schema.get("x-format"), name.lower()
    if fmt == "date-time":
        return "datetime"
    if fmt == "date" or lowered.endswith("date"):
        return "date"
    if "timezone" in lowered:
        return "timezone"
    if "enum" in schema:
        return "enum"
    return None


def strategy(schema: dict[str, Any], wide: bool = False, name: str = "", depth: int = 0) -> Any:
    """A hypothesis strategy for values of the resolved ``schema`` (property ``name``).

    ``mixed`` (``wide=False``): optional properties present or not, arrays of 0..3 items.
    ``wide``: every property present, a non-null branch of every nullable, arrays of 3..5 items,
    free strings of 24..64 characters. ``depth`` counts the arrays around ``schema`` (see
    :data:`MIXED_ITEMS`). Objects never get properties the spec does not name here
    (the spec data mode adds its own). Leaves the spec data mode alters come as :class:`Leaf`.
    """
    from hypothesis import strategies as st

    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches:
        if wide and any(b.get("type") != "null" for b in branches):
            branches = [b for b in branches if b.get("type") != "null"]
        return st.one_of([strategy(b, wide, name, depth) for b in branches])
    if "properties" in schema:
        properties: dict[str, Any] = schema["properties"]
        required = set(properties) if wide else set(schema.get("required", ()))
        parts = {key: strategy(sub, wide, key, depth) for key, sub in properties.items()}
        return st.fixed_dictionaries(
            {k: s for k, s in parts.items() if k in required},
            optional={k: s for k, s in parts.items() if k not in required},
        )
    if schema.get("type") == "array":
        low, high = (WIDE_ITEMS if wide else MIXED_ITEMS)[min(depth, 1)]
        high = min(high, int(schema.get("maxItems", high)))
        low = min(max(low, int(schema.get("minItems", 0))), high)
        items = strategy(schema.get("items", {}), wide, name, depth + 1)
        return st.lists(items, min_size=low, max_size=high)
    return _leaf(json.dumps(schema, sort_keys=True), wide, name)


@functools.cache
def _leaf(schema_json: str, wide: bool, name: str) -> Any:
    from hypothesis_jsonschema import from_schema

    schema = json.loads(schema_json)
    kind = leaf_kind(schema, name)
    plain = {k: v for k, v in schema.items() if not k.startswith("x-")}
    if wide and plain.get("type") == "string" and "enum" not in plain and "const" not in plain:
        low, high = WIDE_STRINGS
        high = min(high, int(plain.get("maxLength", high)))
        plain["minLength"] = max(int(plain.get("minLength", 0)), min(low, high))
        plain["maxLength"] = max(high, plain["minLength"])
    drawn = from_schema(plain)
    if kind is None:
        return drawn
    bounds = {"low": schema.get("minimum"), "high": schema.get("maximum")}
    return drawn.map(functools.partial(Leaf, kind=kind, **bounds))


@functools.cache
def _provider() -> type:
    """hypothesis's own provider, drawing constants only from hypothesis's global list: the
    default one also draws constants found in the source of every local module the process has
    imported, which would make a pool depend on what else the process loaded."""
    from hypothesis.internal.conjecture.choice import choice_constraints_key, choice_permitted
    from hypothesis.internal.conjecture.providers import GLOBAL_CONSTANTS, HypothesisProvider

    cache: dict[Any, tuple[Any, ...]] = {}

    class GlobalConstantsProvider(HypothesisProvider):
        def _maybe_draw_constant(
            self, choice_type: Any, constraints: Any, *, p: float = 0.05
        ) -> Any:
            rnd = self._random
            assert rnd is not None
            if rnd.random() > p:
                return None
            key = (choice_type, choice_constraints_key(choice_type, constraints))
            if key not in cache:
                cache[key] = tuple(
                    c
                    for c in GLOBAL_CONSTANTS.set_for_type(choice_type)
                    if choice_permitted(c, constraints)
                )
            return rnd.choice(cache[key]) if cache[key] else None

    return GlobalConstantsProvider


def draw(strategy_: Any, rnd: random.Random) -> tuple[bool, Any]:
    """One value of ``strategy_`` with every choice taken from ``rnd``: ``(True, value)``, or
    ``(False, None)`` when hypothesis gave up on this draw (a filter rejected too often)."""
    from hypothesis.control import BuildContext
    from hypothesis.errors import StopTest
    from hypothesis.internal.conjecture.data import ConjectureData

    data = ConjectureData(random=rnd, provider=_provider())
    try:
        with BuildContext(data, is_final=False, wrapped_test=_no_test):
            return True, data.draw(strategy_)
    except StopTest:
        return False, None


def _no_test() -> None:
    """The "test" a :class:`~hypothesis.control.BuildContext` names (none: we only draw)."""


def draw_pool(name: str, seed: int, wide: bool, size: int) -> tuple[Any, ...]:
    """Up to ``size`` distinct values of component ``name`` (:func:`resolved`), drawn by
    hypothesis with choices from ``random.Random(f"{name}:{seed}:{wide}")``; cached per process.
    At least one value: ``{}`` if every draw failed.

    Raises:
        ModuleNotFoundError: hypothesis or hypothesis-jsonschema is not installed
            (:func:`require_generators`).
    """
    require_generators()
    return _draw_pool(name, seed, wide, size)


@functools.cache
def _draw_pool(name: str, seed: int, wide: bool, size: int) -> tuple[Any, ...]:
    rnd = random.Random(f"{name}:{seed}:{wide}")
    drawn = strategy(resolved(name), wide)
    pool: dict[str, Any] = {}
    for _ in range(size * 3):
        ok, value = draw(drawn, rnd)
        if ok:
            pool.setdefault(repr(value), value)
        if len(pool) >= size:
            break
    return tuple(pool.values()) or ({},)
