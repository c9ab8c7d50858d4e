"""The installed distribution contains every package of the source tree."""

import pathlib
import pytest

tomllib = pytest.importorskip("tomllib")   # Python 3.11+

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_pyproject_lists_every_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for p in (ROOT / "agdebug").rglob("__init__.py")}
    assert found | {"agdebug_tui"} == listed
    assert config["package-dir"] == {"agdebug_tui": "tui"}
    assert (ROOT / "tui" / "__init__.py").exists()


def test_import_agdebug_stays_light():
    import subprocess
    import sys
    code = ("import sys, agdebug; heavy = [m for m in ('textual', 'graphviz', 'cupy', 'PIL', "
            "'agdebug_tui') if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)
