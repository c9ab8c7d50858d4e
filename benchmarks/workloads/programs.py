"""PROG (opt-in: ``--only PROG``): the real PyTorch programs of tests/programs, seconds each.

Every program runs as ``__main__`` on torch and on agdebug's engine (``torch_on_agdebug``) in
this worker, with the same seeds and data; the row's note says whether it ran on agdebug,
the largest relative difference between the numbers the two printed, or the error that
stopped it. The target is the issue's: a real program within 2x of torch at one thread.
Medians of up to 3 runs of each engine, taken in turn (1 with ``--quick`` or ``--smoke``;
``--smoke`` runs 2 programs; ``--programs`` picks some by name).
"""

from __future__ import annotations

import statistics

from ..harness import Row, within

THREAD_SENSITIVE = False


def measure(program, cfg) -> Row:
    from tests.programs.harness import Mismatch, compare, run
    repeats = 1 if cfg.mode != "full" else min(cfg.repeats, 3)
    torch_runs, ours = [], []
    for _ in range(repeats):   # interleaved, so that a shared machine's load falls on both
        torch_runs.append(run(program, "torch", threads=cfg.threads))
        ours.append(run(program, "agdebug", threads=cfg.threads))
    values = {"torch": statistics.median(r.seconds for r in torch_runs)}
    if torch_runs[0].error:
        return Row("PROG", program.name, "s", values, note=f"torch: {torch_runs[0].error}"[:200])
    if ours[0].error:
        return Row("PROG", program.name, "s", values, note=f"blocked: {ours[0].error}"[:200])
    values["agdebug"] = statistics.median(r.seconds for r in ours)
    try:
        worst = compare(torch_runs[0].stdout, ours[0].stdout, program.volatile)
    except Mismatch as exc:
        return Row("PROG", program.name, "s", values, within("torch", 2.0),
                   note=f"differs: {str(exc).splitlines()[0]}"[:200])
    return Row("PROG", program.name, "s", values, within("torch", 2.0),
               note=f"matches torch, max rel diff {worst:.1e}", extra={"max_rel_diff": worst})


def rows(cfg) -> list:
    if cfg.torch is None:
        return []
    from tests.programs.test_programs import PROGRAMS
    chosen = PROGRAMS[:2] if cfg.mode == "smoke" else PROGRAMS
    if cfg.programs:
        unknown = set(cfg.programs) - {program.name for program in PROGRAMS}
        if unknown:
            raise ValueError(f"unknown program(s) {', '.join(sorted(unknown))}")
        chosen = [program for program in chosen if program.name in cfg.programs]
    return [measure(program, cfg) for program in chosen]
