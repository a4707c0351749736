"""The marts table of docs/models.md, generated from the marts' YAML
(``sql/models/marts/<mart>.yml``).

Each mart's YAML declares its grain (``config.meta.grain``: what one row is), its key (the column
whose ``data_tests`` include ``primary_key``) and its description (or a shorter
``config.meta.summary``); :func:`marts_table` renders them, and
``tests/unit/pipelines/test_model_docs.py`` checks that docs/models.md holds exactly that table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .dbt_runner import project_dir
from .dbt_yaml import read_yaml


@dataclass(frozen=True)
class MartDoc:
    """What docs/models.md says of one mart.

    Attributes:
        name: The model (``dim_*`` / ``fct_*``), a table in schema ``marts``.
        grain: What one row is (``config.meta.grain``).
        key: The column tested ``primary_key``.
        summary: ``config.meta.summary``, else the description's first sentence.
    """

    name: str
    grain: str
    key: str
    summary: str


class MartDocError(ValueError):
    """A mart's YAML lacks what docs/models.md needs (its grain or its key)."""


def _summary(description: str) -> str:
    """The first sentence of a description, whitespace collapsed."""
    text = " ".join(description.split())
    match = re.match(r"(.+?[.;])(\s|$)", text)
    return (match.group(1) if match else text).rstrip(";.") + "."


def _key(model: dict[str, Any]) -> str | None:
    """The model's key: its column tested ``primary_key`` (``sql/tests/generic/primary_key.sql``);
    ``None`` without one (a column tested ``unique`` alone may be a label, never the key)."""
    for column in model.get("columns") or []:
        if "primary_key" in _column_tests(column):
            return str(column["name"])
    return None


def _column_tests(column: dict[str, Any]) -> list[str]:
    """The names of a YAML column's data tests (``unique``, ``{"unique": {config}}`` both name
    ``unique``)."""
    return [t if isinstance(t, str) else next(iter(t)) for t in column.get("data_tests") or []]


def mart_docs(project: Path | None = None) -> list[MartDoc]:
    """Every mart of ``<project>/models/marts``, dimensions first, then facts, by name.

    Raises:
        MartDocError: A mart without ``config.meta.grain`` or without a column tested
            ``primary_key`` (the message names the YAML file and what to add).
    """
    marts = (project or project_dir()) / "models" / "marts"
    docs = []
    for path in sorted(marts.glob("*.yml")):
        for model in (read_yaml(path) or {}).get("models") or []:
            name = model["name"]
            meta = (model.get("config") or {}).get("meta") or {}
            grain, key = meta.get("grain"), _key(model)
            if not grain or not key:
                missing = "config.meta.grain" if not grain else "a column tested `primary_key`"
                raise MartDocError(f"{path.name}: model {name} needs {missing} for docs/models.md")
            summary = " ".join(
                str(meta.get("summary") or _summary(model.get("description") or "")).split()
            )
            docs.append(MartDoc(name, str(grain), key, summary))
    return sorted(docs, key=lambda d: (not d.name.startswith("dim_"), d.name))


def marts_table(project: Path | None = None) -> str:
    """The marts table of docs/models.md (GitHub Markdown): mart, one row per, key, what it
    holds."""
    lines = ["| mart | one row per | key | what it holds |", "|---|---|---|---|"]
    for doc in mart_docs(project):
        summary = doc.summary.replace("|", "\\|")
        lines.append(f"| `{doc.name}` | {doc.grain} | `{doc.key}` | {summary} |")
    return "\n".join(lines) + "\n"
