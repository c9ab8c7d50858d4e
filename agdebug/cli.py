"""The ``agdebug`` command: record a script's trace, export diagrams.

    agdebug record SCRIPT [ARGS...] -o TRACE
    agdebug export TRACE_OR_SCRIPT --format dot|svg|png|pdf|gif|html [--step N | --all] -o PATH
    agdebug run SCRIPT [ARGS...]      the terminal debugger, live
    agdebug replay TRACE              the terminal debugger on a recording
    agdebug demo [NAME] [--live]      the classroom demos

Errors in the user's script are reported as the script's own traceback (the
trace up to that point is kept); unreadable traces and impossible renders get
one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    from . import __version__
    parser = argparse.ArgumentParser(
        prog="agdebug", description="Watch a PyTorch-style autograd engine work, step by step.")
    parser.add_argument("--version", action="version", version=f"agdebug {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run a script headless and write its trace")
    rec.add_argument("-o", "--output", help="the trace file to write (may follow the script's "
                     "arguments: record SCRIPT ARGS... -o TRACE)")
    rec.add_argument("--values", action="store_true",
                     help="record value previews and statistics of every tensor")
    rec.add_argument("--force", action="store_true",
                     help="overwrite an existing file that is not a trace")
    rec.add_argument("--limit-events", type=_count, metavar="N",
                     help="stop recording after N events (the script runs on to its end)")
    rec.add_argument("--only-backward", action="store_true",
                     help="keep backward passes and what they need: the graph each one "
                     "runs, and what happens to its nodes after (not a forward whose "
                     "nodes are freed unused, GC passes, or output between backwards)")
    _engine_option(rec)
    rec.add_argument("script")
    rec.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    exp = sub.add_parser("export", help="draw a trace (or a script's run) with Graphviz")
    exp.add_argument("source", help="a trace file, or a .py script to run and record")
    exp.add_argument("--format", "-f", required=True,
                     choices=("dot", "svg", "png", "pdf", "gif", "html"))
    which = exp.add_mutually_exclusive_group()
    which.add_argument("--step", type=int, help="draw the graph after this many events "
                       "(default: the first error, else the first cycle, else the last "
                       "backward's end)")
    which.add_argument("--all", action="store_true", help="every step (one file per step)")
    exp.add_argument("--values", action="store_true", help="show gradient statistics")
    exp.add_argument("--no-saved", action="store_true", help="hide saved tensors")
    exp.add_argument("--attrs", action="store_true", help="show node attributes")
    exp.add_argument("--dpi", type=int, help="PNG resolution (default 96)")
    exp.add_argument("--focus", type=int, help="only the neighbourhood of this node id")
    exp.add_argument("--radius", type=int, default=2, help="neighbourhood radius for --focus")
    exp.add_argument("--expand", action="append", default=[], metavar="PATH",
                     help="draw this group of a big graph open: a module path (layers.0), "
                     "a source line number, or 'all' (repeatable)")
    exp.add_argument("-o", "--output", required=True)
    _engine_option(exp)
    _debugger_commands(sub)
    return parser


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _engine_option(command) -> None:
    command.add_argument("--engine", choices=("torch", "agdebug"),
                         help="the autograd engine the script runs on: real PyTorch, watched "
                         "(default when the script imports torch and torch is installed), "
                         "or agdebug's own")


def _debugger_commands(sub) -> None:
    """``run``, ``replay`` and ``demo``: the terminal debugger (``agdebug_tui``)."""
    run = sub.add_parser("run", help="run a script under the terminal debugger (live stepping)")
    _engine_option(run)
    run.add_argument("script")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    rep = sub.add_parser("replay", help="open a trace file in the terminal debugger")
    rep.add_argument("trace")
    demo = sub.add_parser("demo", help="list the classroom demos, or open one")
    demo.add_argument("name", nargs="?", help="the demo to open (omit to list them)")
    demo.add_argument("--live", action="store_true",
                      help="run it live (pausing the engine) instead of recording it first")


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "record":
        return _record(args)
    if args.command in ("run", "replay", "demo"):
        return _DEBUGGER[args.command](args)
    return _export(args)


def _fail(message: str, code: int = 2) -> int:
    print(f"agdebug: {message}", file=sys.stderr)
    return code


def run_script(script: str, args: list, trace_path=None, values: bool = False,
               engine: str = "agdebug", limit: int | None = None, only_backward: bool = False):
    """Run ``script`` recorded; returns ``(trace, exit code)``, printing its own traceback.
    With ``engine="torch"`` it runs on real PyTorch, watched (``agdebug.watch``);
    ``limit`` and ``only_backward`` are ``record``'s."""
    from .debug.recorder import record
    from .debug.script_exit import exit_status, user_traceback
    from .events import probe
    from .engines import engine_context
    saved_argv, saved_path, streams = sys.argv[:], sys.path[:], (sys.stdout, sys.stderr)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code = 0

    def limited(count: int) -> None:
        print(f"agdebug: --limit-events {count} reached: recording stopped, the script runs "
              "on", file=streams[1], flush=True)
    with record(trace_path, values=values, limit=limit, only_backward=only_backward,
                on_limit=limited) as trace:
        sys.stdout, sys.stderr = (_Echo(stream, name) for stream, name in
                                  zip(streams, ("stdout", "stderr")))
        try:
            with engine_context(engine):
                runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            code = exit_status(exc.code, sys.stderr.write)
        except BaseException as exc:   # the user's error: report it as theirs, keep the trace
            probe.script_error(exc)
            sys.stderr.write(user_traceback(exc, script))
            code = 130 if isinstance(exc, KeyboardInterrupt) else 1   # as python exits
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
            sys.stdout.lines.flush()
            sys.stderr.lines.flush()
            sys.stdout, sys.stderr = streams
    return trace, code


def choose_engine(script: str, engine: str | None) -> tuple[str, str]:
    """``(engine, "")`` for ``script``, or ``("", why not)``: the default is torch when the
    script imports torch and torch is installed, else agdebug (whose engine then answers the
    script's ``import torch``: a note on stderr says so)."""
    import importlib.util
    installed = importlib.util.find_spec("torch") is not None
    if engine == "torch" and not installed:
        return "", "--engine torch needs PyTorch (pip install torch)"
    if engine is None and _imports_torch(script):
        if installed:
            return "torch", ""
        print(f"agdebug: torch is not installed here, so {script} runs on agdebug's engine "
              "(its `import torch` gives agdebug)", file=sys.stderr)
    return engine or "agdebug", ""


def _imports_torch(script: str) -> bool:
    import re
    try:
        with open(script, encoding="utf-8", errors="replace") as file:
            source = file.read()
    except OSError:
        return False
    return re.search(r"^\s*(import\s+torch\b|from\s+torch\b)", source, re.M) is not None


class _Echo:
    """``stream``, whose writes are also events of the trace (``printed``, at their step)."""

    def __init__(self, stream, name: str):
        from .events.probe import PrintedLines
        self.stream, self.lines = stream, PrintedLines(name)

    def write(self, text: str) -> int:
        self.lines.write(text)
        return self.stream.write(text)

    def __getattr__(self, attr):
        return getattr(self.stream, attr)


def _record(args) -> int:
    for _ in range(2):   # -o TRACE and --force may follow the script's arguments
        if len(args.args) >= 2 and args.args[-2] in ("-o", "--output"):
            args.output, args.args = args.args[-1], args.args[:-2]
        if args.args[-1:] == ["--force"]:
            args.force, args.args = True, args.args[:-1]
    if args.args[:1] == ["--"]:
        args.args = args.args[1:]
    if not args.output:
        return _fail("record needs -o TRACE (the trace file to write)")
    if not os.path.isfile(args.script):
        return _fail(f"no such script: {args.script}")
    refusal = _output_refusal(args.output, args.script, args.force)
    if refusal:
        return _fail(refusal)
    engine, why = choose_engine(args.script, args.engine)
    if why:
        return _fail(why)
    pid = os.getpid()
    try:
        trace, code = run_script(args.script, args.args, args.output, args.values, engine,
                                 args.limit_events, args.only_backward)
    except OSError as exc:   # opening the trace file (the script's own errors are caught)
        return _fail(f"cannot write {args.output}: {exc.strerror or exc}")
    if os.getpid() == pid:   # a forked child that ran on to the end says nothing
        print(f"agdebug: wrote {len(trace)} events to {args.output}", file=sys.stderr)
        _index(args.output)
    return code


def _index(path: str) -> None:
    """Index a long trace now, so that its first opening makes no pass over it."""
    from .debug.index import LAZY_BYTES
    from .debug.recorder import TraceError, load_trace
    try:
        if os.path.getsize(path) >= LAZY_BYTES:
            load_trace(path, progress=Progress(f"indexing {path}"))
    except (OSError, TraceError):
        pass   # (a trace cut short, say: opening it will tell what is wrong)


def _output_refusal(output: str, script: str, force: bool) -> str:
    """Why ``record`` must not write ``output`` ("" when it may)."""
    folder = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(folder):
        return f"cannot write {output}: no such folder {folder}"
    if os.path.isdir(output):
        return f"cannot write {output}: it is a folder"
    if os.path.exists(output) and os.path.samefile(output, script):
        return f"the trace would overwrite the script {script}: choose another -o"
    if not force and os.path.isfile(output) and not _is_trace(output):
        return f"{output} exists and is not an agdebug trace: use --force to overwrite it"
    return ""


def _is_trace(path: str) -> bool:
    """An empty file, or one whose first line is a trace header."""
    from .debug.recorder import FORMAT
    try:
        with open(path, "rb") as f:
            first = f.readline(4096)
    except OSError:
        return False
    return not first or f'"format":"{FORMAT}"'.encode() in first


def _load(source: str, values: bool, engine: str | None = None):
    from .debug.recorder import TraceError, load_trace
    if source.endswith(".py"):
        if not os.path.isfile(source):
            raise TraceError(f"no such script: {source}")
        engine, why = choose_engine(source, engine)
        if why:
            raise TraceError(why)
        trace, _ = run_script(source, [], None, values, engine)
        return trace
    return load_trace(source, progress=Progress(f"reading {source}"))


class Progress:
    """``progress(done, total)`` for long loads: a line on stderr that counts up, shown on
    a terminal, or elsewhere once the load has taken over a second (a log gets few lines)."""

    def __init__(self, what: str, stream=None):
        import time
        self.what, self.stream, self.clock = what, stream or sys.stderr, time.monotonic
        self.start = self.said = self.clock()
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if done >= total:
            if self.shown:   # (a load that ended before anything was said stays silent)
                self._say(done, total, now, "\n")
            return
        if not self.tty and now - self.start <= 1.0:
            return
        if not self.shown or now - self.said >= (0.2 if self.tty else 5.0):
            self._say(done, total, now, "" if self.tty else "\n")

    def _say(self, done: int, total: int, now: float, end: str) -> None:
        self.said, self.shown = now, True
        start = "\r" if self.tty else ""
        self.stream.write(f"{start}agdebug: {self.what}: {100 * done // max(total, 1)}% "
                          f"({now - self.start:.0f} s){end}")
        self.stream.flush()


def _export(args) -> int:
    from .debug.recorder import TraceError
    from .render.dot import DotOptions
    from .render.export import RenderError, export
    from .render.summary import TooLarge
    try:
        trace = _load(args.source, args.values, args.engine)
    except TraceError as exc:
        return _fail(str(exc))
    if args.step is not None and not 0 <= args.step <= len(trace):
        return _fail(f"--step {args.step} is out of range: {args.source} has steps 0 to "
                     f"{len(trace)}")
    if args.dpi is not None and not 1 <= args.dpi <= 1200:
        return _fail(f"--dpi {args.dpi} is out of range: choose 1 to 1200")
    options = DotOptions(values=args.values, saved=not args.no_saved, attrs=args.attrs,
                         focus=args.focus, radius=args.radius, dpi=args.dpi,
                         expand=tuple(args.expand))
    try:
        written = export(trace.timeline(), args.format, args.output, step=args.step,
                         all_steps=args.all, options=options)
    except (RenderError, TooLarge) as exc:
        return _fail(str(exc), 1)
    except TraceError as exc:   # a long trace's line read late, changed since it was indexed
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot write {args.output}: {exc.strerror or exc}", 1)
    shown = written[0] if len(written) == 1 else f"{len(written)} files ({written[0]} ...)"
    print(f"agdebug: wrote {shown}", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------- the debugger

def _tui():
    """The ``agdebug_tui`` package; from a source checkout, the ``tui/`` folder beside us."""
    try:
        import agdebug_tui
        return agdebug_tui
    except ImportError:
        pass
    import importlib.util
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tui")
    init = os.path.join(folder, "__init__.py")
    if not os.path.isfile(init):
        raise ImportError("the terminal debugger (agdebug_tui) is not installed")
    spec = importlib.util.spec_from_file_location("agdebug_tui", init,
                                                  submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules["agdebug_tui"] = module
    spec.loader.exec_module(module)
    return module


def _app(**kwargs):
    try:
        return _tui().AgDebugApp(**kwargs)
    except ImportError as exc:
        raise SystemExit(f"agdebug: {exc} (pip install textual)") from None


def _run_live(args) -> int:
    if args.args[:1] == ["--"]:
        args.args = args.args[1:]
    if not os.path.isfile(args.script):
        return _fail(f"no such script: {args.script}")
    if _syntax_error(args.script):
        return 1
    engine, why = choose_engine(args.script, getattr(args, "engine", "agdebug"))
    if why:
        return _fail(why)
    app = _app(script=args.script, args=args.args, engine=engine)
    outcome = app.run()
    for stream, text in app.live.output if app.live else ():
        getattr(sys, stream).write(text)   # the script's own output stays on the terminal
    if outcome is None or outcome.stopped:
        return 0
    return app.live.exit_code or (0 if outcome.ok else 1)


def _syntax_error(script: str) -> bool:
    """Whether ``script`` does not compile; if so, Python's report is on stderr (as
    ``python script.py`` gives it, before anything runs)."""
    with open(script, "rb") as file:
        source = file.read()
    try:
        compile(source, script, "exec", dont_inherit=True)
    except SyntaxError as exc:
        traceback.print_exception(type(exc), exc, None, file=sys.stderr)
        return True
    return False


def _replay(args) -> int:
    if not os.path.isfile(args.trace):
        return _fail(f"no such trace file: {args.trace}")
    app = _app(trace_path=args.trace)
    app.run()
    if app.error:
        return _fail(app.error)
    return app.return_code or 0


def _demo(args) -> int:
    from .demos import demos, find
    if not args.name:
        table = demos()
        width = max(map(len, table), default=0)
        print("agdebug demos (open one with: agdebug demo NAME):")
        for demo in table.values():
            print(f"  {demo.name:<{width}}  {demo.title}")
        return 0
    try:
        demo = find(args.name)
    except KeyError as exc:
        return _fail(exc.args[0])
    if args.live:
        args.script, args.args = str(demo.path), []
        return _run_live(args)
    import contextlib
    import io
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        trace, _ = run_script(str(demo.path), [], None, values=True)
    app = _app(trace=trace, title=f"demo {demo.name}", output=printed.getvalue(),
               source_dirs=[demo.path.parent])
    app.run()
    return app.return_code or 0


_DEBUGGER = {"run": _run_live, "replay": _replay, "demo": _demo}


if __name__ == "__main__":
    sys.exit(main())
