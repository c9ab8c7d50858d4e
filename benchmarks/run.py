"""Run every workload for agdebug, hand-written NumPy and PyTorch (CPU); print a table, write JSON.

    python benchmarks/run.py [--quick] [--threads 1,2] [--only W1,W2] [--clock wall|cpu]
                             [--json out.json] [--programs P1,P2]

Each thread count runs in its own process, with OMP/OpenBLAS/MKL thread variables set before
NumPy or torch is imported, then pinned with threadpoolctl (when installed) and
``torch.set_num_threads``; the libraries in use are reported. Inside a process the three
libraries run interleaved (one run of each per repeat, rotating the order) after warm-up,
and the table shows medians: 7 repeats, or 5 with ``--quick``.

``--quick`` (under two minutes on 2 cores) shrinks W3 to 100,000 nodes, W5 to 512x512 and
20 iterations, the trace to 10,000 events, leaves out the slowest DOT row, and runs the
groups whose tensors are too small for BLAS threads to matter (all but W2 and W5) at the
first thread count only.
The worker imports agdebug, NumPy and torch, then ``gc.freeze()``s what they allocated, so
neither the collection before each timed run nor agdebug's own GC passes walk torch's
objects (an agdebug user without torch loaded would not pay for them).
``--clock cpu`` times the workloads that use the harness's stopwatch by the worker's CPU
time instead of wall time: on a machine shared with other jobs it leaves out the waits for a
core (at 2 threads it counts spinning BLAS/OpenMP threads too). The table says which clock.
``--programs mnist,regression`` runs only those programs of PROG (names as in
tests/programs/test_programs.py).
``--smoke`` runs tiny sizes once: it proves the harness works, its numbers mean nothing.

Groups: W1 elementwise chain, W2 MLP step, W3 long chain, W4 fan-in, W5 memory, W6
grad-of-grad, W7 DOT text, REC recorder cost, TUI step latency, TRACE load and seek;
opt-in (named in ``--only``, not run by default): PROG real PyTorch programs on both engines.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks import report
from benchmarks.harness import CLOCKS, Config, Row, blas_info, limit_threads, optional, use_clock
from benchmarks.workloads import MODULES, OPT_IN, group

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_const", const="quick", dest="mode")
    mode.add_argument("--smoke", action="store_const", const="smoke", dest="mode")
    parser.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2")
    parser.add_argument("--only", default=",".join(MODULES), help="groups, e.g. W1,W2")
    parser.add_argument("--clock", default="wall", choices=sorted(CLOCKS),
                        help="wall time (default) or the worker's CPU time")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--programs", default="", help="PROG only: these programs, e.g. mnist")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.mode = args.mode or "full"
    args.threads = [int(t) for t in args.threads.split(",") if t]
    args.only = [g.strip().upper() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in args.only if g not in MODULES and g not in OPT_IN]
    if unknown:
        parser.error(f"unknown group(s) {', '.join(unknown)}; known: "
                     f"{', '.join([*MODULES, *OPT_IN])}")
    return args


# ----------------------------------------------------------------------------- the worker

def failed(name: str, exc: BaseException) -> Row:
    return Row(name, "failed", "", {}, note=f"error: {type(exc).__name__}: {exc}"[:200])


def work(args) -> dict:
    """Runs the groups at one thread count (in this process); returns its part of the JSON."""
    import numpy  # noqa: F401 - load the BLAS before pinning its threads

    import agdebug  # noqa: F401
    torch = optional("torch")
    optional("torchviz")
    threads = args.threads[0]
    limits = limit_threads(threads, torch)
    use_clock(args.clock)
    gc.freeze()     # the libraries' own objects: no GC pass (ours or agdebug's) walks them
    programs = tuple(p.strip() for p in args.programs.split(",") if p.strip())
    cfg = Config(args.mode, threads, torch, programs)
    rows, errors = [], 0
    for name in args.only:
        start = time.perf_counter()
        print(f"[{threads} thread(s)] {name} ...", file=sys.stderr, flush=True)
        try:
            rows += group(name).rows(cfg)
        except Exception as exc:  # noqa: BLE001 - a broken workload is a result too; the others still run
            traceback.print_exc()
            rows.append(failed(name, exc))
            errors += 1
        print(f"[{threads} thread(s)] {name} done in {time.perf_counter() - start:.1f} s",
              file=sys.stderr, flush=True)
    return {"threads": threads, "limits": limits, "blas": blas_info(torch),
            "torch": getattr(torch, "__version__", None), "errors": errors,
            "rows": [row.to_dict() for row in rows], "table": report.table(rows)}


# ----------------------------------------------------------------------------- the parent

def groups_for(args, index: int) -> list:
    if args.mode == "full" or index == 0:
        return args.only
    return [name for name in args.only if group(name).THREAD_SENSITIVE]


def spawn(args, threads: int, names: list) -> dict:
    """One worker process with every thread pool sized ``threads`` from the start."""
    env = dict(os.environ, **{var: str(threads) for var in THREAD_VARIABLES})
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "part.json")
        command = [sys.executable, os.path.abspath(__file__), "--worker", "--threads",
                   str(threads), "--only", ",".join(names), "--clock", args.clock,
                   "--json", out, "--programs", args.programs]
        if args.mode != "full":
            command.append(f"--{args.mode}")
        done = subprocess.run(command, env=env, cwd=ROOT, check=False)
        if done.returncode != 0 or not os.path.exists(out):
            raise SystemExit(f"the {threads}-thread worker failed (exit {done.returncode})")
        with open(out) as f:
            return json.load(f)


def header(args) -> dict:
    import numpy
    torchviz = optional("torchviz")
    return {"command": " ".join(["python benchmarks/run.py", *sys.argv[1:]]),
            "mode": args.mode, "clock": args.clock, "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
            "python": platform.python_version(), "numpy": numpy.__version__,
            "torchviz": getattr(torchviz, "__version__", "installed" if torchviz else None)}


def show(meta: dict, part: dict) -> None:
    print(f"\n== {part['threads']} thread(s), {meta['mode']} mode, {meta['clock']} clock, "
          f"{meta['machine']}, "
          f"python {meta['python']}, numpy {meta['numpy']}, torch {part['torch'] or 'n/a'}")
    for line in part["blas"]:
        print(f"   {line}")
    print(part["table"])


def main(argv=None) -> int:
    args = parse(argv)
    if args.worker:
        part = work(args)
        with open(args.json, "w") as f:
            json.dump(part, f, indent=1)
        return 0
    meta = header(args)
    start = time.perf_counter()
    runs = []
    for index, threads in enumerate(args.threads):
        names = groups_for(args, index)
        if names:
            runs.append(spawn(args, threads, names))
            show(meta, runs[-1])
    meta["seconds"] = round(time.perf_counter() - start, 1)
    print(f"\n{meta['seconds']} s in all; medians of {Config(args.mode, 1).repeats} repeats")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**meta, "runs": runs}, f, indent=1)
        print(f"wrote {args.json}")
    return 1 if any(run["errors"] for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
