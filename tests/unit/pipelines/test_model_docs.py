"""The marts table of docs/models.md is generated from the marts' YAML (``pipelines.model_docs``):
every mart declares its grain and its unique key, and docs/models.md holds exactly the generated
table."""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT

from pipelines.model_docs import MartDocError, mart_docs, marts_table


def test_the_docs_hold_the_generated_marts_table():
    page = (ROOT / "docs" / "models.md").read_text()
    assert marts_table() in page, (
        "docs/models.md's marts table differs from pipelines.model_docs.marts_table(); paste:\n"
        + marts_table()
    )


def test_every_mart_model_is_in_the_table():
    sql_files = {p.stem for p in (ROOT / "sql" / "models" / "marts").glob("*.sql")}
    assert {d.name for d in mart_docs()} == sql_files


def test_a_mart_without_a_grain_is_named(tmp_path):
    marts = tmp_path / "models" / "marts"
    marts.mkdir(parents=True)
    model = {
        "name": "fct_x",
        "description": "X.",
        "columns": [{"name": "k", "data_tests": ["unique"]}],
    }
    (marts / "fct_x.yml").write_text(yaml.safe_dump({"version": 2, "models": [model]}))
    with pytest.raises(MartDocError, match=r"fct_x\.yml: model fct_x needs config\.meta\.grain"):
        mart_docs(tmp_path)
    model["config"] = {"meta": {"grain": "x"}}
    model["columns"] = [{"name": "k"}]
    (marts / "fct_x.yml").write_text(yaml.safe_dump({"version": 2, "models": [model]}))
    with pytest.raises(MartDocError, match="a column tested `primary_key`"):
        mart_docs(tmp_path)


def test_the_key_is_the_column_tested_primary_key_never_one_tested_unique_alone(tmp_path):
    marts = tmp_path / "models" / "marts"
    marts.mkdir(parents=True)
    columns = [
        {"name": "label", "data_tests": [{"unique": {"config": {"severity": "warn"}}}]},
        {"name": "k", "data_tests": ["primary_key"]},
    ]
    model = {"name": "dim_x", "description": "X.", "config": {"meta": {"grain": "x"}},
             "columns": columns}  # fmt: skip
    (marts / "dim_x.yml").write_text(yaml.safe_dump({"version": 2, "models": [model]}))
    assert [d.key for d in mart_docs(tmp_path)] == ["k"]
    model["columns"] = columns[:1]  # a label tested unique is not a key
    (marts / "dim_x.yml").write_text(yaml.safe_dump({"version": 2, "models": [model]}))
    with pytest.raises(MartDocError, match="a column tested `primary_key`"):
        mart_docs(tmp_path)
