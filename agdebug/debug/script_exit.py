"""How a user's script ends, as ``python script.py`` reports it: the exit status of
``sys.exit(code)`` and the traceback of an uncaught exception from the script's first frame on.
Shared by ``agdebug record`` (cli) and ``agdebug run`` (the TUI's live session)."""

from __future__ import annotations

import os
import traceback


def exit_status(code, write) -> int:
    """The exit status of ``sys.exit(code)``, as Python gives it: a code that is not an int
    or None is written (``write(text)``) and gives 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    write(f"{code}\n")
    return 1


def user_traceback(exc: BaseException, script: str, hidden: tuple = ()) -> str:
    """``exc``'s traceback as Python prints it for ``script``: the runner's frames before the
    script's first one dropped, and so are frames from the files in ``hidden`` (stand-ins of
    the debugger's, such as its stdin, which Python itself has no frame for)."""
    target = os.path.abspath(script)
    report = traceback.TracebackException.from_exception(exc)
    frames = list(report.stack)
    start = next((i for i, f in enumerate(frames) if os.path.abspath(f.filename) == target), 0)
    hide = {os.path.abspath(path) for path in hidden}
    report.stack = traceback.StackSummary.from_list(
        [f for f in frames[start:] if os.path.abspath(f.filename) not in hide])
    return "".join(report.format())
