"""The stream registry is the one list of streams: the source's resources, the sync's and the
flow's stream lists, the OAuth scopes and the stream table of docs/streams.md all follow it, and its
page maxima are the spec's."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, SPEC_FILE

from flows.nightly import TASK_GROUPS as FLOW_GROUPS
from pipelines.sync import STREAMS as SYNC_STREAMS
from sources.connecteam import connecteam_source
from sources.connecteam.registry import (
    OAUTH_SCOPES,
    STREAMS,
    TASK_GROUPS,
    Incremental,
    markdown_table,
)

SPEC = json.loads(SPEC_FILE.read_text())


def test_every_stream_has_exactly_one_resource() -> None:
    source = connecteam_source(0.0, api_key="registry-test", base_url="http://127.0.0.1:9")
    assert list(source.resources) == list(STREAMS)
    for name, resource in source.resources.items():
        key = resource.compute_table_schema()["columns"]
        primary = tuple(c for c, spec in key.items() if spec.get("primary_key"))
        assert set(primary) == set(STREAMS[name].key), name


def test_names_are_unique_and_everything_derives_from_the_registry() -> None:
    names = [s.name for s in STREAMS.values()]
    assert len(names) == len(set(names)) and names == list(STREAMS)
    assert tuple(SYNC_STREAMS) == tuple(STREAMS)
    assert FLOW_GROUPS == TASK_GROUPS
    assert sorted(s for group in TASK_GROUPS for s in group) == sorted(STREAMS)
    assert {s for streams in OAUTH_SCOPES.values() for s in streams} == {
        s.name for s in STREAMS.values() if s.scope
    }
    for stream in STREAMS.values():
        assert stream.parent is None or stream.parent in STREAMS, stream.name
        if stream.parent is not None:
            assert STREAMS[stream.parent].group == stream.group, stream.name
        assert (stream.window is not None) == (
            stream.incremental is Incremental.WINDOW_DIFFED
            or stream.name in ("time_off_requests", "pay_rates")
        ), stream.name


def test_docs_stream_table_is_the_registrys() -> None:
    page = (ROOT / "docs" / "streams.md").read_text()
    assert markdown_table() in page, (
        "docs/streams.md's stream table differs from sources.connecteam.registry.markdown_table(); "
        "paste:\n" + markdown_table()
    )


def test_page_maxima_are_the_specs() -> None:
    for stream in STREAMS.values():
        if not stream.in_spec:
            assert stream.path not in SPEC["paths"], f"{stream.name} is in the spec now"
            continue
        parameters = SPEC["paths"][stream.path]["get"].get("parameters", [])
        limits = [p["schema"]["maximum"] for p in parameters if p["name"] == "limit"]
        assert stream.max_limit == (limits[0] if limits else None), stream.name


def test_freshness_columns() -> None:
    fresh = {s.name: s.freshness for s in STREAMS.values() if s.freshness}
    assert fresh == {
        "users": ("modified_at",),
        "forms": ("last_updated_at",),
        "shifts": ("update_time", "creation_time"),
        "user_documents": ("updated_at",),
        "time_activities": ("modified_at",),
        "form_submissions": ("submission_timestamp",),
        "pay_rates": ("modified_at", "created_at"),
    }


def test_item_keys_are_the_specs_required_fields_of_the_declared_type() -> None:
    """Each stream's ``item_key`` (what the contract checks on every listed item) names
    required fields of the spec's item schema, of the type the spec declares (a union's every
    member agrees); the beta ``user_documents`` is not in the spec."""
    from support.stream_answers import item_schema

    kinds = {"integer": int, "string": str}
    for stream in STREAMS.values():
        assert stream.item_keys, stream.name
        if not stream.in_spec:
            continue
        schema = item_schema(stream)
        members = schema.get("anyOf") or [schema]
        for name, kind in stream.item_keys:
            for member in members:
                *outer, field = name.split(".")  # payRate.effectiveDate: a field of a field
                for part in outer:
                    assert part in member.get("required", []), (stream.name, name)
                    member = member["properties"][part]
                    member = member["allOf"][0] if "allOf" in member else member
                assert field in member.get("required", []), (stream.name, name)
                assert kinds[member["properties"][field]["type"]] is kind, (stream.name, name)


def test_every_stream_is_built_by_exactly_one_domain_table() -> None:
    from sources.connecteam.registry import STREAMS
    from sources.connecteam.resources import RESOURCES, _collect
    from sources.connecteam.resources import users as users_domain

    assert set(RESOURCES) == set(STREAMS)
    with pytest.raises(AssertionError, match=r"two domains: \['users'"):
        _collect(users_domain.RESOURCES, {"users": users_domain.RESOURCES["users"]})
    with pytest.raises(AssertionError, match=r"no resource for .*'forms'"):
        _collect(users_domain.RESOURCES)
