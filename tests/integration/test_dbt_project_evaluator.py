"""dbt Labs' dbt-project-evaluator over ``sql/``: no finding, every model documented.

The evaluator (vendored in ``sql/vendor/``, enabled only by the dbt variable
``evaluate_project``) is built once on a scratch DuckDB file; each of its ``fct_*`` rule tables
(modeling, testing, documentation, structure, performance, governance) must be empty, the
findings kept on purpose being listed with their reason in
``sql/seeds/dbt_project_evaluator_exceptions.csv``. The sources' freshness is checked against
the stream registry here too.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import duckdb
import pytest
import yaml  # type: ignore[import-untyped, unused-ignore]

from pipelines.dbt_runner import project_dir, run_dbt
from sources.configuration import resolve
from sources.connecteam.registry import STREAMS

COVERAGE = ("fct_documentation_coverage", "fct_test_coverage")
"""The evaluator's summary tables (one row of figures), not rules."""


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scratch warehouse the evaluator's models were built in."""
    folder = tmp_path_factory.mktemp("evaluator")
    warehouse = folder / "evaluator.duckdb"
    paths = ["--target-path", str(folder / "target"), "--log-path", str(folder / "logs")]
    selected = ["--select", "package:dbt_project_evaluator", "dbt_project_evaluator_exceptions"]
    result = run_dbt(
        ["build", *selected, *paths], warehouse, {"evaluate_project": True}, project=resolve()
    )
    assert result.success, result.exception
    return warehouse


def test_the_evaluator_finds_nothing_and_every_model_is_documented(evaluated: Path) -> None:
    with duckdb.connect(str(evaluated), read_only=True) as con:
        rules = [
            name
            for (name,) in con.sql(
                "select table_name from information_schema.tables where table_name like 'fct_%'"
            ).fetchall()
            if name not in COVERAGE
        ]
        findings = {
            name: con.sql(f"select * from {name} limit 5").fetchall()
            for name in rules
            if con.sql(f"select count(*) from {name}").fetchall()[0][0]
        }
        (documented,) = con.sql(
            "select documentation_coverage_pct from fct_documentation_coverage"
        ).fetchall()[0]
        (tested,) = con.sql("select test_coverage_pct from fct_test_coverage").fetchall()[0]
    package = project_dir() / "vendor" / "dbt_project_evaluator" / "models"
    assert len(rules) == len(list(package.glob("**/fct_*.sql"))) - len(COVERAGE)  # every rule
    assert findings == {}
    assert documented == 100
    assert tested == 100


def test_every_kept_finding_says_why() -> None:
    path = project_dir() / "seeds" / "dbt_project_evaluator_exceptions.csv"
    with path.open(newline="") as rows:
        kept = list(csv.DictReader(rows))
    assert kept and all(len(row["comment"]) > 40 for row in kept)


def source_tables(source: str) -> tuple[dict, dict[str, dict]]:
    path = project_dir() / "models" / "staging" / source / f"_{source}__sources.yml"
    (declared,) = yaml.safe_load(path.read_text())["sources"]
    return declared, {table["name"]: table for table in declared["tables"]}


def test_the_sources_freshness_reads_the_registry_s_freshness_columns() -> None:
    declared, tables = source_tables("connecteam")
    assert set(STREAMS) <= set(tables)
    default = declared["config"]["loaded_at_field"]
    assert "_dlt_load_id" in default
    for name, stream in STREAMS.items():
        field = (tables[name].get("config") or {}).get("loaded_at_field", default)
        if stream.freshness:
            expected = stream.freshness[0]
            if len(stream.freshness) > 1:
                expected = f"coalesce({', '.join(stream.freshness)})"
            assert field == f"to_timestamp({expected})", name
        else:
            assert field == default, name
    for source in ("connecteam", "webhooks"):  # every table inherits both from its source
        declared, _ = source_tables(source)
        assert declared["config"]["loaded_at_field"]
        assert {"warn_after", "error_after"} <= set(declared["config"]["freshness"])


def test_every_staging_model_sits_in_its_source_s_folder() -> None:
    staging = project_dir() / "models" / "staging"
    for path in staging.glob("**/*.sql"):
        source = re.fullmatch(r"stg_(\w+?)__\w+", path.stem)
        assert source and path.parent.name == source.group(1), path
