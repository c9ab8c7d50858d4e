"""Make the ``tui/`` folder importable as ``agdebug_tui`` when it is not installed yet."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "tui"


def _install() -> None:
    try:
        import agdebug_tui  # noqa: F401
        return
    except ImportError:
        pass
    spec = importlib.util.spec_from_file_location("agdebug_tui", TUI / "__init__.py",
                                                  submodule_search_locations=[str(TUI)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["agdebug_tui"] = module
    spec.loader.exec_module(module)


_install()

