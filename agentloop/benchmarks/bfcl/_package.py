"""Where BFCL's own package is (``bfcl-eval``, installed without its dependencies) and its
data files: found without importing the package, whose imports are heavy.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentloop._packages import data_package
from agentloop.errors import DatasetError

__all__ = ["BFCL_DATA_ENV", "BFCL_INSTALL", "BFCL_TARGET", "bfcl_data_dir", "bfcl_package"]

BFCL_DATA_ENV = "AGENTLOOP_BFCL_DATA"
BFCL_INSTALL = "pip install --no-deps 'bfcl-eval==2026.3.23'"
BFCL_TARGET = "bfcl-eval"
"""The folder, under the environment's prefix, where ``make`` installs bfcl-eval."""


def bfcl_data_dir(data_dir: str | Path | None = None) -> Path:
    """Where the BFCL files are: ``data_dir``, else ``$AGENTLOOP_BFCL_DATA``, else the
    installed ``bfcl_eval`` package (found without importing it: its imports are heavy)."""
    explicit = data_dir or os.environ.get(BFCL_DATA_ENV)
    if explicit:
        path = Path(explicit)
        if not path.is_dir():
            raise DatasetError(f"BFCL data directory not found: {path}")
        return path
    package = bfcl_package()
    if package is None:
        raise DatasetError(f"BFCL data: the bfcl-eval package is not installed; {BFCL_INSTALL}")
    return package / "data"


def bfcl_package() -> Path | None:
    """The folder of the installed ``bfcl_eval`` package, or None
    (``agentloop._packages``)."""
    return data_package("bfcl_eval", BFCL_TARGET)
