"""The dbt project's YAML files as Python data, read with libyaml's C loader where PyYAML has it
(the staging YAML is parsed in about a tenth of the pure-Python loader's time), each file once
per process while it is unchanged."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped, unused-ignore]  # (PyYAML, a dbt dependency; no stubs here)

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path) -> Any:
    """The document of the YAML file ``path`` (``None`` for an empty file), parsed safely.

    The result is shared between callers while the file's modification time and size stay the
    same: treat it as read-only.

    Raises:
        OSError: The file cannot be read.
        yaml.YAMLError: It is not YAML.
    """
    stat = path.stat()
    return _parsed(path.resolve(), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _parsed(path: Path, _mtime_ns: int, _size: int) -> Any:
    return yaml.load(path.read_text(), Loader=_LOADER)
