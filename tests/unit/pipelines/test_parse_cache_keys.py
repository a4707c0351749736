"""Which parse cache dbt finds in its target folder (:mod:`pipelines.dbt_parse_cache`): the one
written for the configuration about to run, the others kept aside under their keys."""

from __future__ import annotations

from pathlib import Path

from pipelines.dbt_parse_cache import CACHE, KEPT, OWNER, parse_key, use_parse_cache


def test_the_key_follows_variables_target_and_project_not_the_command() -> None:
    build = ["--quiet", "build", "--select", "a+", "--vars", '{"warehouse": "w.duckdb"}',
             "--project-dir", "/p", "--profiles-dir", "/p"]  # fmt: skip
    parse = ["parse", "--vars", '{"warehouse": "w.duckdb"}', "--project-dir", "/p",
             "--profiles-dir", "/p"]  # fmt: skip
    assert parse_key(build) == parse_key(parse)
    other_vars = [*parse[:2], '{"warehouse": "x.duckdb"}', *parse[3:]]
    assert parse_key(other_vars) != parse_key(parse)
    assert parse_key([*parse, "--target", "postgres"]) != parse_key(parse)
    assert len(parse_key(parse)) == 16


def test_caches_change_places_by_configuration(tmp_path: Path) -> None:
    target = tmp_path / "target"
    use_parse_cache(target, "a")  # nothing yet: dbt parses and writes a's cache
    (target / CACHE).write_bytes(b"cache of a")
    use_parse_cache(target, "b")
    assert not (target / CACHE).exists()  # dbt parses b whole
    assert (target / KEPT / "a.msgpack").read_bytes() == b"cache of a"
    (target / CACHE).write_bytes(b"cache of b")
    use_parse_cache(target, "a")
    assert (target / CACHE).read_bytes() == b"cache of a"
    assert (target / OWNER).read_text() == "a"
    assert [p.name for p in (target / KEPT).iterdir()] == ["b.msgpack"]
    use_parse_cache(target, "a")  # the same configuration again: nothing moves
    assert (target / CACHE).read_bytes() == b"cache of a"


def test_a_cache_of_unknown_configuration_is_left_for_dbt_to_judge(tmp_path: Path) -> None:
    (tmp_path / CACHE).write_bytes(b"written before the key was kept")
    use_parse_cache(tmp_path, "a")
    assert (tmp_path / CACHE).read_bytes() == b"written before the key was kept"
    assert (tmp_path / OWNER).read_text() == "a"
    assert not (tmp_path / KEPT).exists()
