"""A script's end as ``python script.py`` reports it: exit statuses and tracebacks without the
runner's frames or the debugger's stand-ins."""

from __future__ import annotations

import runpy
import sys

from agdebug.debug.script_exit import exit_status, user_traceback


def test_exit_statuses_are_pythons():
    written = []
    assert exit_status(None, written.append) == 0
    assert exit_status(3, written.append) == 3
    assert exit_status("bye now", written.append) == 1
    assert written == ["bye now\n"]


def test_the_traceback_starts_at_the_script_and_hides_stand_ins(tmp_path):
    helper = tmp_path / "stand_in.py"
    helper.write_text("def read():\n    raise EOFError('no stdin here')\n")
    script = tmp_path / "script.py"
    script.write_text("import stand_in\nvalue = stand_in.read()\n")
    sys.path.insert(0, str(tmp_path))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except EOFError as exc:
        shown = user_traceback(exc, str(script), hidden=(str(helper),))
        full = user_traceback(exc, str(script))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("stand_in", None)
    assert shown.startswith("Traceback (most recent call last):\n")
    assert f'File "{script}", line 2' in shown and "runpy" not in shown
    assert "stand_in.py" not in shown and "stand_in.py" in full
    assert shown.endswith("EOFError: no stdin here\n")
