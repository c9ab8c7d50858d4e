"""What every workload shares: the run's configuration, result rows and targets, and timing.

Timing is interleaved: each repeat runs every library's variant once, in a rotating order,
so that the machine's drift (other processes, thermal state) falls on all libraries alike;
the reported figure is the median over the repeats, after warm-up runs.

>>> cfg = Config("smoke", threads=1, torch=None)
>>> medians = interleave({"a": lambda: {"t": 1.0}, "b": lambda: {"t": 2.0}}, cfg)
>>> medians["b"]["t"]
2.0
>>> row = Row("W0", "demo", "ms", {"agdebug": 3.0, "torch": 2.0}, within("torch", 1.5))
>>> row.verdict()
(True, '1.50x')
"""

from __future__ import annotations

import gc
import importlib
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

LIBS = ("agdebug", "numpy", "torch")

# (repeats, warm-up runs) per mode; "smoke" only proves the harness runs (tests).
MODES = {"full": (7, 1), "quick": (5, 1), "smoke": (1, 0)}


@dataclass(frozen=True)
class Config:
    """One worker's settings: the mode (sizes, repeats), its thread count, torch or None, and
    the PROG programs to run (empty: all)."""

    mode: str
    threads: int
    torch: object = None
    programs: tuple = ()

    @property
    def repeats(self) -> int:
        return MODES[self.mode][0]

    @property
    def warmup(self) -> int:
        return MODES[self.mode][1]

    def size(self, full, quick, smoke):
        """The size for this mode."""
        return {"full": full, "quick": quick, "smoke": smoke}[self.mode]


# ----------------------------------------------------------------------------- rows and targets

@dataclass(frozen=True)
class Target:
    """A goal: its text for the table and ``check(row) -> (met or None, observed text)``."""

    text: str
    check: Callable


@dataclass
class Row:
    """One line of the table: a value per library (in ``unit``), an optional target."""

    group: str
    name: str
    unit: str
    values: dict
    target: Target | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)
    compare: tuple = ("numpy", "torch")     # the libraries an agdebug/lib ratio makes sense for

    def ratio(self, lib: str) -> float | None:
        a, b = self.values.get("agdebug"), self.values.get(lib)
        return a / b if lib in self.compare and a is not None and b else None

    def verdict(self) -> tuple:
        if self.target is None:
            return None, ""
        try:
            return self.target.check(self)
        except (KeyError, TypeError, ZeroDivisionError):
            return None, "n/a"

    def to_dict(self) -> dict:
        met, observed = self.verdict()
        return {"group": self.group, "name": self.name, "unit": self.unit,
                "values": self.values, "ratio_torch": self.ratio("torch"),
                "ratio_numpy": self.ratio("numpy"), "extra": self.extra, "note": self.note,
                "target": self.target.text if self.target else "", "met": met,
                "observed": observed}


def within(lib: str, factor: float) -> Target:
    """agdebug at most ``factor`` times ``lib``."""
    def check(row: Row):
        ratio = row.values["agdebug"] / row.values[lib]
        return ratio <= factor, f"{ratio:.2f}x"
    return Target(f"<= {factor:g}x {lib}", check)


def at_most(limit: float, unit: str) -> Target:
    """agdebug's value at most ``limit`` (in the row's unit)."""
    def check(row: Row):
        value = row.values["agdebug"]
        return value <= limit, f"{value:.3g} {unit}"
    return Target(f"< {limit:g} {unit}", check)


def within_extra(key: str, factor: float, text: str) -> Target:
    """agdebug at most ``factor`` times ``row.extra[key]`` (a baseline that is not a library)."""
    def check(row: Row):
        ratio = row.values["agdebug"] / row.extra[key]
        return ratio <= factor, f"{ratio:.2f}x"
    return Target(text, check)


# ----------------------------------------------------------------------------- timing

# "wall": elapsed time. "cpu": the worker's CPU time, all its threads: on a machine shared
# with other work it leaves out the time spent waiting for a core, which wall time counts (at
# 2 threads it also counts the time BLAS and OpenMP threads spin while they wait for work).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = [time.perf_counter]


def use_clock(name: str) -> None:
    """Make ``stopwatch`` read the clock ``name`` (a key of ``CLOCKS``)."""
    _clock[0] = CLOCKS[name]


def stopwatch() -> Callable[[], float]:
    """``lap()`` returns the seconds since the previous lap (or since creation), on the
    clock that ``use_clock`` chose (wall time unless told)."""
    clock = _clock[0]
    last = [clock()]

    def lap() -> float:
        now = clock()
        elapsed, last[0] = now - last[0], now
        return elapsed
    return lap


def interleave(variants: dict, cfg: Config, warmup: int | None = None) -> dict:
    """Median phase times per variant; each variant returns ``{phase: seconds}``."""
    for _ in range(cfg.warmup if warmup is None else warmup):
        for fn in variants.values():
            fn()
    names = list(variants)
    samples: dict = {name: [] for name in names}
    for r in range(cfg.repeats):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            gc.collect()
            samples[name].append(variants[name]())
    return {name: {phase: statistics.median(s[phase] for s in runs) for phase in runs[0]}
            for name, runs in samples.items()}


def scaled(medians: dict, phase: str, factor: float) -> dict:
    """``{lib: medians[lib][phase] * factor}`` (seconds to the row's unit)."""
    return {lib: phases[phase] * factor for lib, phases in medians.items()}


# ----------------------------------------------------------------------------- environment

def optional(module: str):
    """The module, or None when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def limit_threads(threads: int, torch) -> dict:
    """Pin every thread pool to ``threads``; returns what is in effect (for the report)."""
    tpc = optional("threadpoolctl")
    if tpc is not None:
        tpc.threadpool_limits(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    return {"threadpoolctl": tpc is not None,
            "torch_threads": torch.get_num_threads() if torch is not None else None}


def blas_info(torch) -> list:
    """One line per BLAS/OpenMP library loaded, with its thread count."""
    tpc = optional("threadpoolctl")
    lines = []
    if tpc is not None:
        for pool in tpc.threadpool_info():
            lines.append(f"{pool['internal_api']} {pool.get('version') or ''} "
                         f"({pool['prefix']}) threads={pool['num_threads']}")
    else:
        import numpy
        blas = numpy.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
        lines.append(f"numpy blas: {blas.get('name', '?')} {blas.get('version', '')}")
    if torch is not None:
        config = torch.__config__.show()
        blas = [p.split("BLAS_INFO=")[1] for p in config.split(",") if "BLAS_INFO=" in p]
        lines.append(f"torch {torch.__version__}: BLAS {blas[0].strip() if blas else '?'}, "
                     f"threads={torch.get_num_threads()}")
    return lines
