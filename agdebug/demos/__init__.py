"""The built-in classroom demos: short scripts in ``agdebug/demos/scripts/``.

A demo's name is its file name with hyphens (``retain_graph.py`` is
``retain-graph``); its title is the first line of its docstring. Demos ship
inside the package, so ``agdebug demo retain-graph`` works from a plain
``pip install``; ``examples/demos/`` points here.

>>> "retain-graph" in demos()
True
>>> find("retain_graph").path.name
'retain_graph.py'
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SCRIPTS", "Demo", "demos", "find"]

SCRIPTS = Path(__file__).resolve().parent / "scripts"


@dataclass(frozen=True)
class Demo:
    """One demo: its name, its script and the first line of its docstring."""

    name: str
    path: Path
    title: str


def _title(path: Path) -> str:
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError, ValueError):
        return ""
    line = (doc or "").strip().splitlines()[0] if doc and doc.strip() else ""
    return line.removeprefix("Demo: ")


def demos() -> dict[str, Demo]:
    """Every demo, by name, in name order (the scripts are read, never imported)."""
    found = {}
    for path in sorted(SCRIPTS.glob("*.py")):
        if path.name.startswith("_"):
            continue
        name = path.stem.replace("_", "-")
        found[name] = Demo(name, path, _title(path).removeprefix(f"{name}. "))
    return found


def find(name: str) -> Demo:
    """The demo called ``name`` (hyphens or underscores); ``KeyError`` names the choices."""
    table = demos()
    key = name.strip().lower().replace("_", "-").removesuffix(".py")
    if key not in table:
        raise KeyError(f"no demo called {name!r}; the demos are: {', '.join(table) or 'none'}")
    return table[key]
