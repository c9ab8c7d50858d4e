"""Linear chains: runs of op nodes each with one input edge and one output edge, no branch.

A long chain says little node by node (``SinBackward0 -> MulBackward0 -> ...``), so a
drawing may show it as one box. A chain is listed from its head (the consumer, nearest
the outputs) to its tail (nearest the leaves); AccumulateGrad nodes never join one.

>>> from agdebug.debug.state import NodeView
>>> nodes = {i: NodeView(i, "SinBackward0", edges=((i - 1, 0),)) for i in range(2, 7)}
>>> nodes[1] = NodeView(1, "AccumulateGrad")
>>> linear_chains(nodes)      # (6, the root, has no input edge: it is not linear)
[(5, 4, 3, 2)]
"""

from __future__ import annotations

__all__ = ["MIN_CHAIN", "linear_chains"]

MIN_CHAIN = 3   # shorter runs are drawn node by node


def linear_chains(nodes: dict, min_length: int = MIN_CHAIN) -> list[tuple[int, ...]]:
    """The chains of at least ``min_length`` nodes among ``nodes`` (id -> NodeView; edges
    to nodes not given are left out), each head first, heads in id order. Iterative."""
    children = {n: list(dict.fromkeys(c for c, _ in nodes[n].edges if c in nodes and c != n))
                for n in nodes}
    parents: dict = {}
    for n, kids in children.items():
        for k in kids:
            parents.setdefault(k, []).append(n)

    def linear(n) -> bool:
        return (not nodes[n].is_accumulator and len(children[n]) == 1
                and len(parents.get(n, ())) == 1)

    chains = []
    for head in sorted(nodes):
        if not linear(head) or linear(parents[head][0]):
            continue   # not linear, or not the head of its chain
        run, members = [head], {head}
        nxt = children[head][0]
        while linear(nxt) and nxt not in members:
            run.append(nxt)
            members.add(nxt)
            nxt = children[nxt][0]
        if len(run) >= min_length:
            chains.append(tuple(run))
    return chains
