"""Imports only point down the layers that ARCHITECTURE.md lists.

The table in ARCHITECTURE.md (between its ``layers:`` markers) is the contract: each row a
layer, top first, naming its packages and modules. This test reads every ``import`` in
agdebug/ and tui/ (those inside functions too: an import on first use is still a dependency)
and fails on each one that points up, naming the file and line, so the document and the code
cannot drift apart.
"""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
# ``agdebug.__version__`` is data the top package sets before it imports anything; reading it
# from below (the trace header) depends on no code above.
READS_ONLY_DATA = {("agdebug", "__version__")}


def layer_table() -> list[list[str]]:
    """The rows of ARCHITECTURE.md's layer table, top first: each a list of dotted names."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    block = re.search(r"<!-- layers: -->\n```\n(.*?)```\n<!-- :layers -->", text, re.S)
    assert block, "ARCHITECTURE.md lost its layer table (the <!-- layers: --> block)"
    rows = []
    for line in block.group(1).splitlines():
        if line.startswith(" "):   # a row's continuation
            names = line
        else:
            rows.append([])
            names = line.split("  ", 1)[1] if "  " in line else ""
        rows[-1] += [n.strip() for n in names.split(",") if n.strip()]
    return rows


def rank_of(rows: list[list[str]]):
    """``rank(module)``: the row of the longest listed name that is the module or above it."""
    ranks = {name: len(rows) - i for i, row in enumerate(rows) for name in row}

    def rank(module: str):
        # The bare top package names only its __init__ (the public face), so that a new
        # module must find its row in the table.
        parts = module.split(".")
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            if prefix in ranks and (prefix != "agdebug" or module == "agdebug"):
                return ranks[prefix]
        return None
    return rank


def source_files():
    """(shown path, dotted module, is a package, source text) of each file in the layers."""
    for top, name in (("agdebug", "agdebug"), ("tui", "agdebug_tui")):
        # tui/ is installed as the import package agdebug_tui (see pyproject.toml)
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = (name,) + path.relative_to(ROOT / top).with_suffix("").parts
            is_package = parts[-1] == "__init__"
            module = ".".join(parts[:-1] if is_package else parts)
            yield str(path.relative_to(ROOT)), module, is_package, path.read_text()


def is_module(dotted: str) -> bool:
    parts = dotted.split(".")
    top = ROOT / ("tui" if parts[0] == "agdebug_tui" else parts[0])
    path = top.joinpath(*parts[1:])
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def imported(node, module: str, is_package: bool):
    """(module, attribute or None) for each name an import statement loads."""
    if isinstance(node, ast.Import):
        return [(alias.name, None) for alias in node.names]
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
    source = ".".join(p for p in (base, node.module or "") if p)
    return [(f"{source}.{a.name}", None) if is_module(f"{source}.{a.name}") else (source, a.name)
            for a in node.names]


def upward_imports(files):
    rank = rank_of(layer_table())
    for shown, module, is_package, text in files:
        here = rank(module)
        assert here is not None, f"{shown} is in no layer of ARCHITECTURE.md"
        imports = [node for node in ast.walk(ast.parse(text, shown))
                   if isinstance(node, (ast.Import, ast.ImportFrom))]
        for node in sorted(imports, key=lambda node: node.lineno):
            for target, name in imported(node, module, is_package):
                there = rank(target)
                if there is not None and there > here and (target, name) not in READS_ONLY_DATA:
                    yield f"{shown}:{node.lineno} imports {target} (a layer up)"


def test_every_import_points_down_the_layers():
    assert list(upward_imports(source_files())) == []


def test_the_table_names_real_packages():
    for row in layer_table():
        for name in row:
            assert is_module(name), f"ARCHITECTURE.md names {name}, which does not exist"


def test_an_upward_import_is_caught():
    # The check can fail: the graph reaching the TUI, or the engine reaching the recorder on
    # first use inside a function, are reported with their file and line.
    source = ("from ..events import bus\n"
              "def f():\n    from ..debug import recorder\n"
              "import agdebug_tui.app\n")
    found = list(upward_imports([("agdebug/graph/node.py", "agdebug.graph.node", False,
                                  source)]))
    assert found == ["agdebug/graph/node.py:3 imports agdebug.debug.recorder (a layer up)",
                     "agdebug/graph/node.py:4 imports agdebug_tui.app (a layer up)"]
