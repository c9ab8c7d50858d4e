"""Backward passes of real torch, observed: around ``torch.autograd.backward``/``grad``
(patched only while watching) and through node hooks registered as a backward begins.

Torch runs a node's post-hooks, then releases its saved tensors; agdebug's engine
releases them before the node finishes. So a node's ``node_finished`` (and the
``buffer_accumulated`` of what it sent) is published at the next step the watcher sees,
after the releases: the stream has agdebug's order.
"""

from __future__ import annotations

import inspect

from ..events import probe
from ..events import records as r
from ..events.bus import WATCH
from ..graph.node import next_id
from . import naming, nodes
from .saved import publish_releases
from .state import LOCAL, STATE, Run
from .tensors import summaries, summarize, tensor_id, user_line

__all__ = ["accumulated_once", "flush", "start", "wrap_backward", "wrap_grad"]

_PlannedNode = r.builder(r.PlannedNode)
_NodeStarted = r.builder(r.NodeStarted)
_NodeFinished = r.builder(r.NodeFinished)
_BufferAccumulated = r.builder(r.BufferAccumulated)


def _as_tuple(value) -> tuple:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def wrap_backward(original):
    """``torch.autograd.backward`` while watching."""
    signature = inspect.signature(original)

    def backward(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs).arguments
        except TypeError:
            return original(*args, **kwargs)   # torch's own error
        grads = bound.get("grad_tensors", bound.get("grad_variables"))
        create = bool(bound.get("create_graph", False))
        keep = bound.get("retain_graph")
        _run(original, args, kwargs, "backward", _as_tuple(bound["tensors"]),
             _as_tuple(grads), _as_tuple(bound.get("inputs")) or None,
             create if keep is None else bool(keep), create)
    backward.__wrapped__ = original
    return backward


def wrap_grad(original):
    """``torch.autograd.grad`` while watching."""
    signature = inspect.signature(original)

    def grad(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs).arguments
        except TypeError:
            return original(*args, **kwargs)
        create = bool(bound.get("create_graph", False))
        keep = bound.get("retain_graph")
        return _run(original, args, kwargs, "grad", _as_tuple(bound["outputs"]),
                    _as_tuple(bound.get("grad_outputs")), _as_tuple(bound["inputs"]),
                    create if keep is None else bool(keep), create)
    grad.__wrapped__ = original
    return grad


def _run(original, args, kwargs, api, roots, grads, inputs, keep, create):
    if not WATCH.on or not STATE.session:
        return original(*args, **kwargs)
    LOCAL.busy += 1
    try:
        run = _start(api, roots, grads, inputs, keep, create)
    finally:
        LOCAL.busy -= 1
    try:
        result = original(*args, **kwargs)
    except BaseException as exc:
        _end(run, exc)
        raise
    _end(run, None)
    return result


def _edge(t):
    from torch.autograd.graph import get_gradient_edge
    try:
        return get_gradient_edge(t)
    except RuntimeError:   # no grad_fn and not requiring grad: torch's error comes later
        return None


def _start(api, roots, grads, inputs, keep, create) -> Run:
    naming.name_pending()   # (the user's code went on: the call's last op is its value)
    root_edges = [_edge(t) if hasattr(t, "grad_fn") else None for t in roots]
    input_edges = None if inputs is None else [_edge(t) for t in inputs]
    firsts = [e.node for e in root_edges if e is not None]
    nodes.walk_new(firsts, "")   # nodes made before watching, or by C++ unseen
    run = Run(api, keep, {}, create)
    LOCAL.runs.append(run)
    inputs_ids = None if input_edges is None else tuple(
        nodes.node_id(e.node) if e is not None else 0 for e in input_edges)
    root_grads = [_root_grad(t, grads[i] if i < len(grads) else None)
                  for i, t in enumerate(roots)]
    probe.send(r.BackwardStarted(0, api, tuple(nodes.node_id(n) for n in firsts),
                                  tuple(root_grads), inputs_ids, keep, create, user_line()))
    _plan(run, firsts, input_edges, api)
    source = next_id()   # the GraphRoot: agdebug's engine names it too
    for edge, grad in zip(root_edges, root_grads):
        if edge is not None:
            _arrive(run, nodes.node_id(edge.node), edge.output_nr, source, grad)
    return run


def _root_grad(t, grad):
    if grad is not None or not hasattr(t, "shape"):
        return summarize(grad)
    # torch makes ones_like(t) inside backward(): described, with an id of its own
    return r.TensorSummary(probe.new_tensor_id(), tuple(t.shape),
                           str(t.dtype).removeprefix("torch."), str(t.device), t.nbytes)


def _reachable(firsts) -> tuple[list, dict]:
    """The nodes reachable from ``firsts`` in discovery order, and edges into each."""
    deps: dict = {}
    order, stack = [], []
    for fn in firsts:
        key = id(fn)
        deps[key] = deps.get(key, 0) + 1
        if deps[key] == 1:
            stack.append(fn)
            order.append(fn)
    while stack:
        fn = stack.pop()
        for nxt, _ in fn.next_functions:
            if nxt is None:
                continue
            key = id(nxt)
            count = deps.get(key)
            deps[key] = 1 if count is None else count + 1
            if count is None:
                order.append(nxt)
                stack.append(nxt)
    return order, deps


def _topological(order, deps: dict) -> list:
    """Every node after all the nodes with an edge into it (Kahn's algorithm)."""
    remaining = dict(deps)
    ready = [fn for fn in order if remaining[id(fn)] == 0]
    out = []
    while ready:
        fn = ready.pop()
        out.append(fn)
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                remaining[id(nxt)] -= 1
                if remaining[id(nxt)] == 0:
                    ready.append(nxt)
    return out


def _needed(order, deps: dict, targets: set, captures: set) -> set:
    """Ids of nodes on a path to a target or a capture (children decided first)."""
    needed: set = set()
    for fn in reversed(_topological(order, deps)):
        key = id(fn)
        if key in targets:
            needed.add(key)
            continue
        for nxt, _ in fn.next_functions:
            if nxt is not None and (id(nxt) in needed or id(nxt) in captures):
                needed.add(key)
                break
    return needed


def _plan(run: Run, firsts, input_edges, api: str) -> None:
    order, deps = _reachable(firsts)
    for fn in firsts:   # (the GraphRoot's edges are not counted in a topological order)
        deps[id(fn)] -= 1
    targets, captures = set(), set()
    for edge in input_edges or ():
        if edge is not None:
            (captures if api == "grad" else targets).add(id(edge.node))
    needed = None if input_edges is None else _needed(order, deps, targets, captures)
    planned = []
    for fn in order:
        key = id(fn)
        runs = needed is None or key in needed
        tag = nodes.tag_of(fn)
        node, name, edges = tag.node, tag.name, tag.edges
        run.deps[node] = deps[key] + (1 if fn in firsts else 0)
        if runs:
            _hook(fn, tag)
            if name == nodes.ACCUMULATE:   # what its .grad was: "new", "summed"...
                grad = fn.variable.grad
                STATE.leaves[node] = 0 if grad is None else grad.data_ptr()
            run.edges[node] = edges if needed is None else _sent_to(fn, edges, needed,
                                                                     captures)
        if runs or key in captures:
            planned.append(_PlannedNode(node, name, run.deps[node], runs, edges))
    probe.send(r.BackwardPlanned(0, tuple(planned)))


def _sent_to(fn, edges: tuple, needed: set, captures: set) -> tuple:
    """The edges along which ``fn`` sends a gradient when ``inputs=`` prunes the run."""
    out = []
    for edge, (nxt, _) in zip(edges, fn.next_functions):
        if nxt is not None and (id(nxt) in needed or id(nxt) in captures):
            out.append(edge)
        else:
            out.append((0, edge[1]))   # (nothing arrives there)
    return tuple(out)


def _hook(fn, tag) -> None:
    """Pre- and post-hooks on ``fn``, once per watch: one object that holds only ids (the
    tag keeps torch's two hook dicts, to take the hook out when watching ends)."""
    if tag.hooked:
        return
    tag.hooked = True
    hooks = _NodeHooks(tag.node, tag.name)
    tag.hooks = (fn.register_prehook(hooks), fn.register_hook(hooks))
    if tag.name == nodes.ACCUMULATE:
        leaf = fn.variable
        if leaf.__dict__.get(_LEAF_HOOK) != STATE.session:
            # (kept apart: the leaf outlives this accumulator, and its hook must go too)
            setattr(leaf, _LEAF_HOOK, STATE.session)
            STATE.leaf_handles.append(leaf.register_post_accumulate_grad_hook(_accumulated))


_LEAF_HOOK = "_agdebug_hooked"


class _NodeHooks:
    """The watcher's pre-hook and post-hook of one node, in one object: torch calls a
    pre-hook with (grad_outputs,), a post-hook with (grad_inputs, grad_outputs)."""

    __slots__ = ("name", "node")

    def __init__(self, node: int, name: str):
        self.node = node
        self.name = name

    def __call__(self, grads, grad_outputs=None):
        if grad_outputs is None:
            return self.pre(grads)
        return self.post(grads, grad_outputs)

    def pre(self, grad_outputs):
        runs = LOCAL.runs
        run = runs[-1] if runs else None
        if run is None or not WATCH.on or run.current == self.node:
            return None   # (started already: by a program's hook that ran before this one)
        LOCAL.busy += 1
        try:
            start(run, self.node, grad_outputs, self.name)
        finally:
            LOCAL.busy -= 1
        return None

    def post(self, grad_inputs, grad_outputs):
        runs = LOCAL.runs
        if not runs or not WATCH.on:
            return None
        run = runs[-1]
        if run.create:   # the gradients' own graph, made in C++
            LOCAL.busy += 1
            try:
                _walk_made(grad_inputs)
            finally:
                LOCAL.busy -= 1
        # (summaries call no torch function and publish nothing: the mode needs no ``busy``)
        run.finishing = (self.node, summaries(grad_inputs))
        return None


def _walk_made(grads) -> None:
    made = [g.grad_fn for g in grads if g is not None and g.grad_fn is not None]
    if made:
        nodes.walk_new(made, "")


def start(run: Run, node: int, grads, name: str | None = None) -> None:
    """Publish the last node's end, then ``node``'s node_started with ``grads``, and the
    program's hooks that ran before the watcher knew it was ``node``'s turn."""
    if run.finishing is not None:
        flush(run)
    if run.create:   # the sum of its incoming gradients, made in C++
        _walk_made(grads)
    run.current = node
    if name is None:
        ref = STATE.node_refs.get(node)
        tag = ref() if ref is not None else None
        name = tag.name if tag is not None else ""
    incoming, early = summaries(grads), run.early
    if early is not None:
        run.early = None
        incoming = early.incoming(incoming)
    probe.send(_NodeStarted(0, node, name, incoming, True))
    if early is not None:
        for publish in early.events:
            publish(node)


def flush(run: Run) -> None:
    """Publish the last finished node's releases, its node_finished and what it sent."""
    if run.finishing is None:
        return
    if run.releases:
        publish_releases(run)
    node, grads = run.finishing
    run.finishing = None
    probe.send(_NodeFinished(0, node, grads))
    edges = run.edges.get(node, ())
    if len(edges) == 1 and len(grads) == 1:   # (most nodes: one edge, one gradient)
        target, nr = edges[0]
        if target:
            _arrive(run, target, nr, node, grads[0])
        return
    for (target, nr), grad in zip(edges, grads):
        if target:
            _arrive(run, target, nr, node, grad)


def _arrive(run: Run, target: int, nr: int, source: int, grad) -> None:
    deps = run.deps
    remaining = deps[target] = deps.get(target, 1) - 1
    key = (target, nr)
    count = run.contributions.get(key, 0) + (grad is not None)
    run.contributions[key] = count
    probe.send(_BufferAccumulated(0, target, nr, source, grad, count, remaining))


def _accumulated(leaf) -> None:
    run = LOCAL.runs[-1] if LOCAL.runs else None
    if run is None or not WATCH.on:
        return
    LOCAL.busy += 1
    try:
        accumulated_once(run, leaf)
    finally:
        LOCAL.busy -= 1


def accumulated_once(run: Run, leaf) -> None:
    """The running AccumulateGrad's grad_accumulated, unless a program's post-accumulate-grad
    hook that ran before the watcher's published it already."""
    if run.accumulated != run.current:
        run.accumulated = run.current
        _grad_accumulated(run, leaf)


def _grad_accumulated(run: Run, leaf) -> None:
    grad = leaf.grad
    fn = grad.grad_fn
    if fn is not None:
        nodes.walk_new([fn], "")
    acc = run.current
    old = STATE.leaves.pop(acc, 0)
    mode = "new" if not old else ("inplace" if old == grad.data_ptr() else "summed")
    probe.send(r.GradAccumulated(0, acc, tensor_id(leaf), mode, summarize(grad),
                                  nodes.node_id(fn)))
    if fn is not None:
        _check_cycle(leaf, grad, fn, acc)


def _check_cycle(leaf, grad, start, acc: int) -> None:
    """leaf -> .grad -> grad_fn -> ... -> AccumulateGrad(leaf) -> leaf, iteratively."""
    parent = {id(start): None}
    keep = {id(start): start}   # (the walked nodes, alive while walked)
    stack = [start]
    while stack:
        fn = stack.pop()
        if nodes.node_id(fn) == acc:
            chain = []
            key = id(fn)
            while key is not None:
                chain.append(nodes.node_id(keep[key]))
                key = parent[key]
            chain.reverse()
            tid = tensor_id(leaf)
            path = (f"t{tid}", f"t{tensor_id(grad)}", *(f"n{i}" for i in chain), f"t{tid}")
            STATE.cycles.add(tid)
            probe.send(r.CycleDetected(0, tid, path, tuple(chain)))
            return
        for nxt, _ in fn.next_functions:
            if nxt is not None and id(nxt) not in parent:
                parent[id(nxt)], keep[id(nxt)] = id(fn), nxt
                stack.append(nxt)


def _end(run: Run, exc) -> None:
    LOCAL.busy += 1
    try:
        flush(run)
        if LOCAL.runs and LOCAL.runs[-1] is run:
            LOCAL.runs.pop()
        if exc is not None:
            probe.send(r.Error(0, type(exc).__name__, str(exc), run.current,
                               source=probe.raised_at(exc) or user_line()))
        probe.send(r.BackwardFinished(0, run.api, exc is None))
    finally:
        LOCAL.busy -= 1
