"""Runs a real PyTorch program as ``__main__`` on real torch or on agdebug's engine and
compares what the two printed.

A program is a file in this folder, copied from its repository with every change marked
``# agdebug:``. Each run gets a fresh folder as its working directory (with the data files
the program reads), the stand-ins of ``fakes`` for torchvision, gymnasium and matplotlib,
the same seeds, and its stdout captured. ``compare`` then checks the two outputs token by
token: the text must be the same and every number within float32 tolerance of torch's, as
printed (a printed value may also differ by one unit in its last digit: rounding).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import random
import re
import runpy
import signal
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from . import fakes

HERE = os.path.dirname(os.path.abspath(__file__))
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])"
                    r"|\b(?:nan|inf)\b")


@dataclass(frozen=True)
class Program:
    """``file`` run with ``argv`` (its folder first on sys.path, as ``python file`` does);
    ``files`` (path, text or bytes) are written into its working folder first; ``volatile``
    patterns match printed values that differ from run to run (timings)."""

    name: str
    file: str
    argv: tuple = ()
    files: tuple = ()
    volatile: tuple = ()


@dataclass(frozen=True)
class Run:
    """What one run printed, how long it took, and the error that ended it, if any."""

    stdout: str
    seconds: float
    error: str | None = None


class Mismatch(AssertionError):
    """The two outputs differ; the message names the first place they do."""


def run(program: Program, engine: str, threads: int | None = None, limit_s: int = 120) -> Run:
    """Runs ``program`` on ``engine`` ("torch" or "agdebug") in this process."""
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as folder, _world(program, folder, engine, threads):
        start = time.perf_counter()
        error = _execute(os.path.join(HERE, program.file), out, limit_s)
        seconds = time.perf_counter() - start
    return Run(out.getvalue(), seconds, error)


def _execute(path: str, out: io.StringIO, limit_s: int) -> str | None:
    """Runs the file as ``__main__``; returns its error as one line, or None."""
    def too_long(signum, frame):
        raise TimeoutError(f"still running after {limit_s} s")
    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(limit_s)
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
    except fakes.ProgramDone:
        return None
    except SystemExit as exc:
        return None if exc.code in (None, 0) else f"SystemExit: {exc.code}"
    except Exception as exc:  # noqa: BLE001 - the program's own error is the result
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return None


@contextlib.contextmanager
def _world(program: Program, folder: str, engine: str, threads: int | None):
    """The program's folder, argv, stand-in modules, seeds and engine, undone afterwards."""
    import torch

    from agdebug.engines import torch_on_agdebug
    _write(folder, program.files)
    stand_ins = fakes.modules()
    saved = {name: sys.modules.get(name) for name in stand_ins}
    argv, path, cwd = sys.argv, list(sys.path), os.getcwd()
    torch_threads = torch.get_num_threads()
    sys.modules.update(stand_ins)
    sys.argv = [program.file, *program.argv]
    source = os.path.dirname(os.path.join(HERE, program.file))
    sys.path.insert(0, source)
    os.chdir(folder)
    _seed(torch)
    if threads:
        torch.set_num_threads(threads)
    try:
        with _flags_kept(torch), \
                torch_on_agdebug() if engine == "agdebug" else contextlib.nullcontext():
            yield
    finally:
        torch.set_num_threads(torch_threads)
        os.chdir(cwd)
        sys.argv, sys.path[:] = argv, path
        _forget(source)
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


# the switches programs flip (dcgan's cudnn.benchmark, nanogpt's TF32), on both engines
FLAGS = (("cudnn", "benchmark"), ("cudnn", "allow_tf32"), ("cudnn", "deterministic"),
         ("cuda.matmul", "allow_tf32"))


@contextlib.contextmanager
def _flags_kept(torch):
    """Puts torch's and agdebug's backend flags back as they were before the program
    (entered before ``torch_on_agdebug``, so ``torch`` here is PyTorch)."""
    import importlib
    import operator

    import agdebug
    importlib.import_module("torch.backends.cudnn")   # torch loads its backends lazily
    owners = [operator.attrgetter(path)(lib.backends) for lib in (torch, agdebug)
              for path, _ in FLAGS]
    names = [name for _ in (torch, agdebug) for _, name in FLAGS]
    before = [getattr(owner, name) for owner, name in zip(owners, names)]
    try:
        yield
    finally:
        for owner, name, value in zip(owners, names, before):
            setattr(owner, name, value)


def _write(folder: str, files) -> None:
    for relative, data in files:
        target = os.path.join(folder, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)


def _forget(source: str) -> None:
    """Drops the program's own modules (bound to the run's torch) from sys.modules."""
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if source != HERE and isinstance(file, str) and file.startswith(source):
            del sys.modules[name]


def _seed(torch) -> None:
    import agdebug
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    agdebug.manual_seed(0)


# ------------------------------------------------------------------ comparing outputs

def compare(want: str, got: str, volatile=(), rtol: float = 1e-4, atol: float = 1e-6) -> float:
    """The largest relative difference between the numbers torch printed (``want``) and
    agdebug printed (``got``); raises Mismatch where the text or a number differs."""
    want_lines, got_lines = _masked(want, volatile), _masked(got, volatile)
    worst = 0.0
    for number, (w, g) in enumerate(zip(want_lines, got_lines), 1):
        if NUMBER.sub("#", w) != NUMBER.sub("#", g):
            raise Mismatch(f"line {number} differs:\n  torch:   {w}\n  agdebug: {g}")
        for a, b in zip(NUMBER.findall(g), NUMBER.findall(w)):
            if not _close(a, b, rtol, atol):
                raise Mismatch(f"line {number}: {a} where torch printed {b}:\n  {w}")
            worst = max(worst, _relative(float(a), float(b)))
    if len(want_lines) != len(got_lines):
        raise Mismatch(f"torch printed {len(want_lines)} lines, agdebug {len(got_lines)}")
    return worst


def _masked(text: str, volatile) -> list:
    for pattern in volatile:
        text = re.sub(pattern, "<volatile>", text)
    return text.splitlines()


def _close(a: str, b: str, rtol: float, atol: float) -> bool:
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
        return a == b
    return abs(x - y) <= atol + rtol * abs(y) + max(_last_digit(a), _last_digit(b))


def _last_digit(token: str) -> float:
    """One unit in the last printed place of a float token (0 for an integer)."""
    mantissa, _, exponent = token.lower().partition("e")
    if "." not in mantissa and not exponent:
        return 0.0
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def _relative(x: float, y: float) -> float:
    if not (math.isfinite(x) and math.isfinite(y)) or x == y:
        return 0.0
    return abs(x - y) / max(abs(y), 1e-12)
