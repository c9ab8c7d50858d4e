"""REC: what watching costs on W1 (a 1,000-op chain, forward+backward) and W2 (a train step).

Attached: the same work inside ``agdebug.debug.record()`` (an in-memory trace), timed
interleaved with the plain run; the target is a ratio to the plain ("detached") run.

Detached: with nobody listening the engine's only extra work is testing ``WATCH.on`` before
each event it would publish. That cost is below the timing noise of a direct comparison, so it
is computed: the number of flag tests per run (counted by swapping ``WATCH``'s class for a
counting subclass during one run) times the measured cost of one test, over the plain run.
"""

from __future__ import annotations

import timeit

from ..harness import Row, at_most, interleave, stopwatch, within_extra
from . import chain, mlp

THREAD_SENSITIVE = False


def count_flag_reads(fn) -> int:
    """How many times ``WATCH.on`` is read while ``fn()`` runs."""
    from agdebug.events.bus import WATCH
    base = type(WATCH)
    slot = base.__dict__["on"]
    reads = [0]

    class Counting(base):
        __slots__ = ()

        @property
        def on(self):
            reads[0] += 1
            return slot.__get__(self, base)

        @on.setter
        def on(self, value):
            slot.__set__(self, value)

    WATCH.__class__ = Counting
    try:
        fn()
    finally:
        WATCH.__class__ = base
    return reads[0]


def flag_test_seconds() -> float:
    """Seconds for one ``if WATCH.on:`` on a module global, net of the loop."""
    from agdebug.events.bus import WATCH
    scope = {"WATCH": WATCH}            # a global, as in the engine's modules
    test = min(timeit.repeat("if WATCH.on: pass", number=200_000, repeat=5, globals=scope))
    empty = min(timeit.repeat("pass", number=200_000, repeat=5, globals=scope))
    return max(test - empty, 0.0) / 200_000


def plain_and_recorded(run):
    from agdebug.debug import record

    def recorded() -> dict:
        with record():
            return run()
    return {"plain": run, "attached": recorded}


def chain_run(n: int) -> dict:
    import agdebug as ag
    run = chain.tensor_run(ag, n)

    def forward_backward() -> dict:
        phases = run()
        return {"t": phases["fwd"] + phases["bwd"]}
    return forward_backward


def mlp_run(steps: int):
    import agdebug as ag
    step = mlp.tensor_model(ag)

    def run() -> dict:
        lap = stopwatch()
        for _ in range(steps):
            step()
        return {"t": lap() / steps}
    return run


def rows(cfg) -> list:
    steps, n = cfg.size((10, 1_000), (3, 1_000), (1, 100))
    work = {"W1": (chain_run(n), 1e6 / n, "us/op", f"{n:,}-op chain", 3.0),
            "W2": (mlp_run(steps), 1e3, "ms", "MLP step", 1.3)}
    flag = flag_test_seconds()
    result = []
    for name, (run, scale, unit, what, factor) in work.items():
        medians = interleave(plain_and_recorded(run), cfg)
        plain, attached = medians["plain"]["t"] * scale, medians["attached"]["t"] * scale
        result.append(Row("REC", f"{name} {what}, recorder attached", unit,
                          {"agdebug": attached}, within_extra("detached", factor,
                                                              f"<= {factor:g}x detached"),
                          extra={"detached": plain}))
        reads = count_flag_reads(run)
        cost = 100.0 * reads * flag / (medians["plain"]["t"] * (1 if name == "W1" else steps))
        result.append(Row("REC", f"{name} {what}, recorder detached (flag tests)", "% extra",
                          {"agdebug": cost}, at_most(3.0, "%"),
                          extra={"flag_reads": reads, "ns_per_read": flag * 1e9}))
    return result
