"""An emulator that can disagree with the product: its webhook events come from the provider's
documents (``sources/connecteam/spec``), read here by the test itself, it imports nothing of the
product, and the product's catalogue is held against it, so a wrong event name in either fails a
test instead of being echoed back."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import SPEC_DIR
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from core import clock
from emulator import config as emulator_config
from emulator.spec_webhooks import catalogue, feature_event_types, feature_families
from inbox.events import CATALOGUE, FEATURE_FAMILIES
from inbox.events import feature_event_types as product_event_types

ROOT = Path(__file__).resolve().parents[2]
DATA = SPEC_DIR
PRODUCT = ("sources", "pipelines", "flows", "receiver", "dashboard")


def spec_webhooks() -> list[tuple[str, str, str | None]]:
    """``(title, payload schema, eventType default or None)`` of every webhook of the spec."""
    document = json.loads((DATA / "connecteam-openapi.json").read_text())
    schemas = document["components"]["schemas"]
    out = []
    for title, item in document["webhooks"].items():
        ref = item["post"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        schema = ref.split("/")[-1]
        default = schemas[schema]["properties"].get("eventType", {}).get("default")
        out.append((title, schema, default))
    return out


def interface_schemas() -> list[str]:
    """The payload schemas the Events table of service-interface.md names, braces expanded."""
    text = (DATA / "service-interface.md").read_text()
    table = text.split("## Events", 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for row in (line for line in table.splitlines() if line.startswith("| ")):
        schema_cell = row.strip("|").split("|")[1]
        for token in re.findall(r"[A-Za-z{},]+WebhookResponse", schema_cell):
            expanded = [token]
            while any("{" in name for name in expanded):
                expanded = [name.replace(group, option, 1) for name in expanded
                            for group in re.findall(r"\{[^}]*\}", name)[:1]
                            for option in group[1:-1].split(",")]  # fmt: skip
            names += [name for name in expanded if name not in names]
    return names


def spelled(schema: str) -> str:
    """``TimeActivityClockInWebhookResponse`` -> ``clock_in``: the words after the family prefix."""
    words = re.sub(r"^(TimeActivity|TimesheetPeriod)|WebhookResponse$", "", schema)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", words).lower()


def test_the_spec_webhooks_are_the_emulators_with_their_stated_event_types() -> None:
    webhooks = spec_webhooks()
    assert len(webhooks) == 41
    emulated = {e.title: e for e in catalogue().values() if e.in_spec}
    assert sorted(emulated) == sorted(title for title, _, _ in webhooks)
    stated = 0
    for title, schema, default in webhooks:
        event = emulated[title]
        assert event.schema == schema, title
        if default is not None:
            stated += 1
            assert event.event_type == default, title
        else:  # the spec leaves it open: the name is the title's last words, in snake case
            words = title.lower().split()
            assert event.event_type in {"_".join(words[i:]) for i in range(len(words))}, title
    assert stated == 22


def test_the_interfaces_newer_events_are_the_emulators_named_as_the_spec_names_its_own() -> None:
    spec = spec_webhooks()
    time_activity = [(schema, d) for _, schema, d in spec if schema.startswith("TimeActivity")]
    assert len(time_activity) == 17 and all(spelled(s) == d for s, d in time_activity)
    in_spec = {schema for _, schema, _ in spec}
    newer = [schema for schema in interface_schemas() if schema not in in_spec]
    assert len(newer) == 12
    emulated = {e.schema: e.event_type for e in catalogue().values() if not e.in_spec}
    assert emulated == {schema: spelled(schema) for schema in newer}
    notes = (DATA / "provider-notes.md").read_text()
    named = set(re.findall(r"`((?:admin|user)_[a-z_]+)`", notes))
    assert named and named <= set(emulated.values())


def test_the_emulators_event_types_are_exactly_those_of_the_documents() -> None:
    """Every event type the emulator sends is a spec ``eventType`` default, the last words of a
    spec webhook's title that states none (one per title), or spelled by a payload schema of
    the interface description the spec lacks; and nothing else."""
    spec = spec_webhooks()
    in_spec = {schema for _, schema, _ in spec}
    expected = {default for _, _, default in spec if default is not None}
    expected |= {spelled(s) for s in interface_schemas() if s not in in_spec}
    for title, _, default in spec:
        if default is None:
            words = title.lower().split()
            chosen = {"_".join(words[i:]) for i in range(len(words))} & set(catalogue())
            assert len(chosen) == 1, (title, chosen)
            expected |= chosen
    assert set(catalogue()) == expected
    assert len(expected) == 41 + 12


def test_the_products_catalogue_agrees_with_the_emulators() -> None:
    """The product reads the same documents on its own (:mod:`inbox.events`): names,
    families, payload schemas and titles must agree with the emulator's reading."""
    ours, theirs = catalogue(), CATALOGUE
    assert sorted(theirs) == sorted(ours), (
        f"only in the product: {sorted(set(theirs) - set(ours))}; "
        f"only in the emulator: {sorted(set(ours) - set(theirs))}"
    )
    differing = []
    for name, event in ours.items():
        known = theirs[name]
        schema = event.schema if event.in_spec else None
        if (known.family, known.schema) != (event.family, schema):
            differing.append((name, (known.family, known.schema), (event.family, schema)))
        if event.in_spec and known.title != event.title:
            differing.append((name, known.title, event.title))
    assert not differing
    assert feature_families() == FEATURE_FAMILIES
    for feature_type in feature_families():
        assert feature_event_types(feature_type) == product_event_types(feature_type)


def test_the_feature_types_the_spec_names_come_first() -> None:
    document = json.loads((DATA / "connecteam-openapi.json").read_text())
    request = document["components"]["schemas"]["WebhookCreateRequest"]
    text = request["properties"]["featureType"]["description"]
    named = [n.strip() for n in text.split("options are:")[1].split(",")]
    assert named == ["users", "forms", "time_activity", "tasks"]
    assert list(feature_families())[: len(named)] == named


def test_the_emulator_imports_nothing_of_the_product() -> None:
    modules = sorted(p.stem for p in (ROOT / "emulator").glob("*.py") if p.stem != "__init__")
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module('emulator.' + name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {PRODUCT!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=True)  # fmt: skip
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("value", ["1795132800", "1795132800.5", "2026-11-20T00:00:00Z",
                                   "2026-11-20", "2026-11-20T01:00:00+01:00", ""])  # fmt: skip
def test_the_emulators_clock_reads_wfm_sync_now_as_the_product_does(value, monkeypatch) -> None:
    monkeypatch.setenv("WFM_SYNC_NOW", value)
    assert emulator_config.now() == pytest.approx(clock.now(), abs=2)


def test_an_unreadable_now_is_named(monkeypatch) -> None:
    monkeypatch.setenv("WFM_SYNC_NOW", "next tuesday")
    with pytest.raises(ValueError, match="WFM_SYNC_NOW='next tuesday'"):
        emulator_config.now()


def test_the_emulator_extra_is_locked_and_no_product_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = [Requirement(r) for r in project["optional-dependencies"]["emulator"]]
    assert {canonicalize_name(r.name) for r in extra} == {"hypothesis", "hypothesis-jsonschema"}
    assert not {canonicalize_name(Requirement(r).name) for r in project["dependencies"]} & {
        canonicalize_name(r.name) for r in extra
    }
    pins = dict(re.findall(r"(?m)^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^\s\\]+)",
                           (ROOT / "requirements.lock").read_text()))  # fmt: skip
    pins = {canonicalize_name(name): version for name, version in pins.items()}
    for requirement in extra:
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned and requirement.specifier.contains(pinned), (str(requirement), pinned)


def cli(*args: str, block: str) -> subprocess.CompletedProcess[str]:
    """``wfm-sync *args`` in a child where module ``block`` cannot be imported."""
    code = (f"import sys; sys.modules[{block!r}] = None; sys.argv = ['wfm-sync', *{args!r}]; "
            "from flows.cli import main; main()")  # fmt: skip
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "block"),
    [(("emulator", "--data", "spec", "--port", "0"), "hypothesis_jsonschema"),
     (("emulator", "send-webhooks", "--url", "http://127.0.0.1:9/x", "--data", "spec"),
      "hypothesis")],
)  # fmt: skip
def test_the_spec_data_mode_without_the_extra_names_the_install(args, block) -> None:
    done = cli(*args, block=block)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "pip install 'wfm-sync[emulator]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_importing_the_cli_imports_no_generator() -> None:
    code = ("import sys, flows.cli, flows.cli.emulator; "
            "print(sorted(m for m in sys.modules if m.startswith('hypothesis')))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=True)  # fmt: skip
    assert done.stdout.strip() == "[]"


def test_the_emulator_on_a_taken_port_exits_2_with_one_line_before_claiming_it_listens() -> None:
    """A second emulator on the port of a running one: one line naming the address and the
    cause, exit 2 (usage or configuration), and never "emulator on ..." first."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = cli("emulator", "--port", str(port), "--users", "5", block="_no_such_module")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"emulator: cannot listen on 127.0.0.1:{port}: Address already in use (is another "
        "emulator running there? choose another with --port)"
    ], done.stderr
