"""Settings in one typed place: the settings table of docs/configuration.md is
``core.settings.markdown_table()``, and no module but ``core/settings.py`` reads a
``WFM_SYNC_*`` variable from the environment."""

from __future__ import annotations

import ast

from conftest import ROOT

from core import settings

PACKAGES = ("sources", "pipelines", "flows", "emulator", "receiver", "benchmarks")


def test_the_docs_settings_table_is_the_generated_one():
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert settings.markdown_table() in page, (
        "docs/configuration.md's settings table differs from core.settings.markdown_table(); "
        "paste:\n" + settings.markdown_table()
    )


def test_every_setting_has_a_description():
    for name, field in settings.Settings.model_fields.items():
        assert field.description and "\n" not in field.description, name


def environment_reads(source: str) -> list[tuple[int, str]]:
    """``(line, variable)`` of every ``os.environ.get(X)``, ``os.getenv(X)`` and ``os.environ[X]``
    read in ``source`` whose ``X`` is a ``WFM_SYNC_*`` literal or a module constant holding one."""
    tree = ast.parse(source)
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name) and isinstance(node.value.value, str)
    }

    def named(expression: ast.expr) -> str:
        if isinstance(expression, ast.Constant) and isinstance(expression.value, str):
            return expression.value
        if isinstance(expression, ast.Name):
            return constants.get(expression.id, "")
        return ""

    found = []
    for node in ast.walk(tree):
        key: ast.expr | None = None
        if isinstance(node, ast.Call) and node.args:
            function = ast.unparse(node.func)
            if function in ("os.environ.get", "os.getenv", "environ.get", "getenv"):
                key = node.args[0]
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and ast.unparse(node.value) in ("os.environ", "environ")
        ):
            key = node.slice
        if key is not None and named(key).startswith(settings.ENV_PREFIX):
            found.append((node.lineno, named(key)))
    return found


EMULATOR_EDGE = ("emulator/config.py", "WFM_SYNC_NOW")
"""The emulator is a program of its own that imports nothing of the product; its configuration
module reads the one variable it shares with the product, the pinned clock."""


def test_only_the_settings_module_reads_the_projects_variables():
    offenders = [
        f"{path.relative_to(ROOT)}:{line} reads {variable}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != ROOT / "sources" / "settings.py"
        for line, variable in environment_reads(path.read_text())
        if (str(path.relative_to(ROOT)), variable) != EMULATOR_EDGE
    ]
    assert offenders == []


def test_a_variable_is_read_when_the_settings_are_asked_for(monkeypatch):
    monkeypatch.setenv("WFM_SYNC_WRITER_TIMEOUT", "12.5")
    assert settings.current().writer_timeout == 12.5
    monkeypatch.delenv("WFM_SYNC_WRITER_TIMEOUT")
    assert settings.current().writer_timeout == 3600.0
