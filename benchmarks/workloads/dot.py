"""W7: DOT text for 1,000- and 10,000-node graphs, seconds.

agdebug: ``agdebug.render.dot.to_dot`` on the ``GraphState`` of a recorded W1 chain (forward
and backward), every node drawn (``max_nodes`` above the node count) as torchviz does; a
second row uses the default options, which collapse long chains. The torch column is
torchviz's ``make_dot(y).source`` on the same chain in torch ("n/a" without torchviz).
``--quick`` leaves out the default-options row at 10,000 nodes (seconds per run today).
"""

from __future__ import annotations

import sys

from ..harness import Row, interleave, optional, stopwatch, within
from . import chain

THREAD_SENSITIVE = False


def graph_state(n: int):
    import agdebug as ag
    from agdebug.debug import record
    x = ag.tensor(chain.start(), requires_grad=True)
    with record() as trace:
        chain.tensor_chain(x, n).sum().backward()
    return trace.state()


def agdebug_run(state, options):
    from agdebug.render.dot import to_dot

    def run() -> dict:
        lap = stopwatch()
        text = to_dot(state, options)
        return {"total": lap(), "chars": len(text)}
    return run


def torchviz_run(torch, torchviz, n: int):
    x = torch.tensor(chain.start(), requires_grad=True)
    y = chain.tensor_chain(x, n).sum()

    def run() -> dict:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * n + 1000))  # make_dot recurses
        lap = stopwatch()
        text = torchviz.make_dot(y, params={"x": x}).source
        return {"total": lap(), "chars": len(text)}
    return run


def rows(cfg) -> list:
    from agdebug.render.dot import DotOptions
    torchviz = optional("torchviz") if cfg.torch is not None else None
    result = []
    for n in cfg.size((1_000, 10_000), (1_000, 10_000), (100,)):
        state = graph_state(n)
        variants = {"agdebug": agdebug_run(state, DotOptions(max_nodes=4 * n + 100))}
        if torchviz is not None:
            variants["torch"] = torchviz_run(cfg.torch, torchviz, n)
        values = {lib: m["total"] for lib, m in interleave(variants, cfg).items()}
        note = "" if torchviz is not None else "torchviz n/a"
        target = within("torch", 1.0) if n >= 10_000 else None
        result.append(Row("W7", f"DOT, {n:,} nodes, all drawn (torch=torchviz)", "s", values,
                          target, note=note))
        if cfg.mode == "quick" and n >= 10_000:
            continue
        default = interleave({"agdebug": agdebug_run(state, DotOptions())}, cfg)
        result.append(Row("W7", f"DOT, {n:,} nodes, default options (chains collapsed)", "s",
                          {"agdebug": default["agdebug"]["total"]}))
    return result
