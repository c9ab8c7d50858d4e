"""The backward engine: torch's execution order, buffers, hooks and freeing.

One backward (a ``GraphTask``) runs in four steps:

1. count dependencies over the subgraph reachable from the roots;
2. with ``inputs``, mark the nodes on a path to an input (the rest is pruned)
   and where gradients are captured for ``autograd.grad``;
3. check what can be checked before anything changes (released saved
   tensors, in-place modifications), so a doomed backward fails untouched;
4. run ready nodes highest sequence number first (accumulators as soon as
   they are ready), summing each node's incoming gradients in its input
   buffer before it runs, and releasing saved tensors after each node unless
   the graph is retained.

If a node still fails (a hook or a custom backward raising), what the run did
stays done, as in torch: gradients already accumulated into ``.grad`` are kept
and the nodes that ran have freed their saved tensors. Nothing here recurses
over the graph.
"""

from __future__ import annotations

import gc
import heapq
import itertools
import warnings

import numpy as np

from ..backend import xp_of
from ..events import WATCH, probe
from ..graph.anomaly_flag import ANOMALY
from ..graph.grad_mode import MODE
from ..graph.node import LEAVES, AccumulateGrad, GraphRoot, OpNode, materialized
from ..graph.saved import SAVED_FREED_MESSAGE, hooks_state, restore_hooks
from ..ops.pointwise.copying import to_dtype
from ..ops.reduction.sum_prod import sum_to_size
from ..ops.core.inplace import write_into
from ..ops.core.gradients import unrecorded_host
from ..tensor import Tensor

__all__ = ["run_backward"]


class GraphTask:
    """The state of one backward()/grad() call."""

    __slots__ = ("keep_graph", "create_graph", "needed", "captures", "captured", "shared",
                 "deps")

    def __init__(self, keep_graph: bool, create_graph: bool):
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.needed = None      # set of nodes to run, or None to run everything reachable
        self.captures = None    # node -> [(output_nr, result index)] for autograd.grad
        self.captured = []
        self.shared = set()     # ids of memory owners user code can see: never stolen
        self.deps = {}


def run_backward(roots: list, grads: list, keep_graph: bool, create_graph: bool,
                 input_edges: list | None = None, accumulate_grad: bool = True,
                 allow_unused: bool = True):
    """Run the graph from ``roots`` (tensors) seeded with ``grads``.

    ``input_edges`` (``(node, output_nr)`` pairs) restrict the run to what is needed
    for them; with ``accumulate_grad=False`` their gradients are captured and
    returned (``autograd.grad``) instead of being accumulated.
    """
    task = GraphTask(keep_graph, create_graph)
    edges = tuple(t._gradient_edge() for t in roots)
    for g in grads:
        if g is not None:
            task.shared.add(_owner_id(g._data))
    graph_root = GraphRoot(edges, list(grads))
    if WATCH.on:
        probe.backward_started(graph_root, input_edges, keep_graph, create_graph, accumulate_grad)
    nodes = _count_dependencies(task, graph_root)
    if not allow_unused:
        _check_used(task, input_edges)
    if input_edges is not None:
        _mark_needed(task, nodes, input_edges, accumulate_grad)
    _precheck(task, nodes)
    if WATCH.on:
        probe.backward_planned(task, nodes)
    prev_mode = MODE.grad_enabled
    MODE.grad_enabled = create_graph
    # torch's engine runs in C++, where no Python cyclic-GC pass can start; ours allocates
    # Python objects for every node, so automatic passes are held off until it is done.
    # (Reference counting still frees everything as it runs.)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    saved_hooks = hooks_state()
    try:
        _execute(task, graph_root)
    except BaseException as exc:
        if WATCH.on:
            probe.backward_failed(exc)
        raise
    finally:
        MODE.grad_enabled = prev_mode
        restore_hooks(saved_hooks)
        if gc_was_enabled:
            gc.enable()
    if WATCH.on:
        probe.backward_finished()
    return task.captured


# ----------------------------------------------------------------------------- preparation

def _count_dependencies(task: GraphTask, graph_root) -> list:
    """How many edges point at each reachable node; returns the nodes in discovery order."""
    deps = task.deps
    stack = [graph_root]
    order = []
    while stack:
        node = stack.pop()
        order.append(node)
        for fn in node._next:
            if fn is None:
                continue
            count = deps.get(fn)
            if count is None:   # first edge into fn: discovered now
                deps[fn] = 1
                stack.append(fn)
            else:
                deps[fn] = count + 1
    return order


def unused_message(index: int) -> str:
    return (f"The differentiated Tensor at index {index} appears to not have been used in the "
            "graph. Set allow_unused=True if this is the desired behavior.")


def _check_used(task: GraphTask, input_edges: list) -> None:
    """``autograd.grad`` without ``allow_unused``: fail before running, graph intact."""
    for index, (fn, _) in enumerate(input_edges):
        if fn not in task.deps:
            if WATCH.on:
                probe.failed_at(None, RuntimeError(unused_message(index)))
            raise RuntimeError(unused_message(index))


def _mark_needed(task: GraphTask, nodes: list, input_edges: list, accumulate_grad: bool):
    """Nodes on a path to an input run; ``autograd.grad`` captures at the inputs instead."""
    targets = set()
    captures: dict = {}
    for index, (fn, nr) in enumerate(input_edges):
        if fn is None:
            continue
        if accumulate_grad:
            targets.add(fn)
        else:
            captures.setdefault(fn, []).append((nr, index))
    task.captured = [None] * len(input_edges)
    task.captures = captures
    needed = set()
    # A node is needed if it is a target or leads to one: decide children first.
    for node in reversed(_topological_order(nodes[0], task.deps)):
        if node in targets:
            needed.add(node)
            continue
        for fn in node._next:
            if fn is not None and (fn in needed or fn in captures):
                needed.add(node)
                break
    task.needed = needed


def _topological_order(root, deps: dict) -> list:
    """Every node after all the nodes with an edge into it (Kahn's algorithm on the
    dependency counts); iterative, since graphs can be a million nodes deep."""
    remaining = dict(deps)
    order = [root]
    for node in order:   # the list grows as nodes become free
        for fn in node._next:
            if fn is not None:
                left = remaining[fn] - 1
                remaining[fn] = left
                if left == 0:
                    order.append(fn)
    return order


def _precheck(task: GraphTask, nodes: list) -> None:
    """Fail before touching anything if a node to run lost or changed its saved tensors."""
    needed = task.needed
    for node in nodes:
        if not node._saved or (needed is not None and node not in needed):
            continue   # saved nothing (torch: no SavedVariable, so no error) or will not run
        try:
            if node._released:
                raise RuntimeError(SAVED_FREED_MESSAGE)
            node.check_saved_versions()
        except RuntimeError as error:
            if WATCH.on:
                probe.failed_at(node, error)
            if ANOMALY.enabled:
                _warn_forward_trace(node)
            raise


# ----------------------------------------------------------------------------- execution

def _execute(task: GraphTask, graph_root) -> None:
    deps = task.deps
    needed = task.needed
    captures = task.captures
    create_graph = task.create_graph
    keep_graph = task.keep_graph
    every_node = needed is None and not captures   # no ``inputs=`` pruning, no captures
    buffers: dict = {}
    bare = set()   # nodes whose input buffer holds a sum as a bare array (see the add below)
    tie = itertools.count()
    # The ready queue: a heap, and ``next_node`` beside it for the commonest case, a node
    # that became ready while the heap was empty (every step of a chain): it is the
    # highest-priority ready node, so it runs next without a trip through the heap.
    ready = []
    next_node = graph_root
    buffers[graph_root] = []
    pop = heapq.heappop
    while next_node is not None or ready:
        if next_node is not None:
            node, next_node = next_node, None
        else:
            node = pop(ready)[2]
        grads = buffers.pop(node)
        if bare and node in bare:
            bare.discard(node)
            grads = [g if g is None or isinstance(g, Tensor) else Tensor._wrap(g) for g in grads]
        if (node._hooks is None and isinstance(node, OpNode) and not ANOMALY.enabled
                and (every_node or (needed is None or node in needed)
                     and not (captures and node in captures))):
            # The common case, without the calls that hooks, captures and anomaly mode need
            # (most nodes have none); its outputs are validated as they are sent, or before
            # an event shows them.
            watched = WATCH.on
            if watched:
                probe.node_started(node, grads)
            outputs = _apply(node, grads) if watched else _call_backward(node, grads)
            if not keep_graph and node._saved is not None:   # nothing to free otherwise
                node.release_variables()
            if watched:
                probe.node_finished(node, outputs)
        elif (type(node) is AccumulateGrad and node._hooks is None and every_node
              and not WATCH.on and not ANOMALY.enabled and not LEAVES[node._id]._backward_hooks):
            # A leaf with no hooks of either kind (every parameter of a training step):
            # ``_evaluate``'s work without its three calls; it has no edges to send on.
            accumulate_grad(task, node, grads[0])
            if not keep_graph:
                node._released = True   # ``release_variables``: an accumulator saves nothing
            continue
        else:
            outputs = _evaluate(task, node, grads, captures, needed)
            if outputs is None:
                continue
        for fn, nr, grad in zip(node._next, node._next_nr, outputs):
            if fn is None or (needed is not None and fn not in needed
                              and fn not in captures):
                continue
            buf = buffers.get(fn)
            if buf is None:
                buf = buffers[fn] = [None] * len(fn._out_meta)
            if grad is not None:
                shape, dtype = fn._out_meta[nr]
                data = grad._data
                # ``is`` first: dtypes are nearly always the same object, and ``!=`` is a
                # rich comparison in C that costs several times more.
                if data.shape != shape or (data.dtype is not dtype and data.dtype != dtype):
                    grad = _conform(node, None, grad, shape, dtype, (outputs, fn, nr))
                    data = grad._data
                old = buf[nr]
                if old is None:
                    buf[nr] = grad
                elif create_graph:
                    buf[nr] = old + grad   # an op of the graph, so the sum is differentiable
                elif isinstance(old, Tensor):
                    # The first gradient may be shared (AddBackward0 sends one tensor to
                    # both inputs), so the second is added out of place. No one else can
                    # see that sum before the node runs: it stays a bare array and later
                    # gradients are added into it in place (torch's InputBuffer adds in
                    # place when nothing else holds the buffer).
                    buf[nr] = _add_arrays(old._data, data)
                    bare.add(fn)
                else:
                    old += data
            remaining = deps[fn] - 1
            deps[fn] = remaining
            if WATCH.on:
                probe.buffer_accumulated(node, fn, nr, grad, remaining)
            if remaining == 0:
                if next_node is None and not ready:
                    next_node = fn
                else:
                    if next_node is not None:   # two ready at once: both go by priority
                        _push_ready(ready, next_node, tie)
                        next_node = None
                    _push_ready(ready, fn, tie)


def _position(node, outputs, fn, nr, grad) -> int:
    """Which of ``node``'s edges sent ``grad`` (for an error message only: the loop over the
    edges keeps no count, which costs every node). The first edge with the same node, slot and
    gradient object: any earlier one would have been reached, and failed, first."""
    for i, edge in enumerate(zip(node._next, node._next_nr, outputs)):
        if edge[0] is fn and edge[1] == nr and edge[2] is grad:
            return i
    raise AssertionError("the gradient came from none of the node's edges")


def _push_ready(ready: list, fn, tie) -> None:
    # Highest sequence number first; accumulators have the largest (torch's UINT64_MAX),
    # so they run as soon as they are ready, in the order they became so.
    key = _FIRST if type(fn) is AccumulateGrad else -fn._id
    heapq.heappush(ready, (key, next(tie), fn))


_FIRST = -float("inf")


def _add_arrays(a, b):
    total = a + b
    if type(total) is not type(a):   # numpy gives a scalar, not a 0-d array, for 0-d operands
        total = xp_of(a).asarray(total)
    return total


def _add_in_place(tensor: Tensor, array) -> None:
    data = tensor._data
    if getattr(data.flags, "writeable", True) and data.dtype == array.dtype:
        xp_of(data).add(data, array, out=data)
        tensor._bump_version()
    else:   # torch's in-place add, with its error for a broadcast (read-only) .grad
        write_into(tensor, _add_arrays(data, array))


def _evaluate(task: GraphTask, node, grads: list, captures, needed):
    """Run one node: hooks, capture, apply, release. None if the node is not to run."""
    if type(node) is GraphRoot:
        return node.apply(grads)
    runs = needed is None or node in needed
    if WATCH.on:
        probe.node_started(node, grads, runs)
    # Tensor hooks (most nodes have none) run once: before the capture when the node does not
    # run, else as it runs, after the capture (torch's evaluate_function).
    tensor_hooks = node._hooks is not None or type(node) is AccumulateGrad
    if tensor_hooks and not runs:
        grads = _call_tensor_pre_hooks(task, node, grads)
    if captures and node in captures:
        for nr, index in captures[node]:
            task.captured[index] = grads[nr]
    if not runs:
        return None
    if tensor_hooks:
        grads = _call_tensor_pre_hooks(task, node, grads)
    try:
        return _call_function(task, node, grads)
    except Exception:
        if ANOMALY.enabled:
            _warn_forward_trace(node)
        raise


def _call_function(task: GraphTask, node, grads: list):
    hooks = node._hooks
    if hooks is not None and hooks.pre:
        grads = _call_pre_hooks(task, node, grads)
    if type(node) is AccumulateGrad:
        accumulate_grad(task, node, grads[0])
        outputs = ()
    else:
        outputs = _apply(node, grads)
    if hooks is not None and hooks.post:
        outputs = _call_post_hooks(task, node, outputs, grads)
    if not task.keep_graph:
        node.release_variables()   # after the post hooks, as torch does
    if WATCH.on:
        probe.node_finished(node, outputs)
    if ANOMALY.enabled and ANOMALY.check_nan:
        _check_nan(node, outputs)   # torch checks last: after the post hooks and the release
    return outputs


def _apply(node, grads: list) -> list:
    """Run the node's function; its gradients validated against its inputs."""
    outputs = _call_backward(node, grads)
    result = []
    for i, (fn, nr, grad) in enumerate(zip(node._next, node._next_nr, outputs)):
        if grad is not None and fn is not None:
            shape, dtype = fn._out_meta[nr]
            # Checked here, called only to act (a subclass or a non-Tensor goes there too).
            if type(grad) is not Tensor or grad._data.shape != shape or \
                    grad._data.dtype != dtype:
                grad = _conform(node, i, grad, shape, dtype)
        result.append(grad if fn is not None else None)
    return result


def _call_backward(node, grads: list) -> tuple:
    """The node's gradients for its inputs, one per edge (not yet validated)."""
    nexts = node._next
    op_node = isinstance(node, OpNode)
    if op_node and nexts and nexts[0] is None and all(fn is None for fn in nexts):
        # No input takes a gradient (a view that requires grad only through its base has no
        # edge): torch's built-in nodes compute none, and input_shape() would find no node
        # to read. (Custom and Error nodes still run, as in torch.)
        return (None,) * len(nexts)
    if len(grads) == 1:
        if grads[0] is None:
            return (None,) * len(nexts)
    else:
        missing = [g is None for g in grads]
        if all(missing):
            return (None,) * len(nexts)
        if any(missing) and not node.fills_missing_grads:
            grads = materialized(node, grads)
    # An op's node runs its derivative itself (``OpNode.apply``, without the call).
    outputs = node.op.backward(node, *grads) if op_node else node.apply(grads)
    if not isinstance(outputs, tuple):
        outputs = tuple(outputs) if isinstance(outputs, list) else (outputs,)
    if len(outputs) != len(nexts):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(nexts)}, got {len(outputs)})")
    return outputs


def _xp_of(t: Tensor):
    return xp_of(t._data)


def _conform(node, i: int | None, grad, shape: tuple, dtype, sent=None) -> Tensor:
    """Sum a broadcast gradient back to its input's shape; cast it to the input's dtype.
    ``i`` is the edge's index, or None with ``sent`` = ``(outputs, fn, nr)`` to find it by,
    only for an error (every bias's gradient passes here)."""
    if not isinstance(grad, Tensor):
        i = _position(node, *sent, grad) if i is None else i
        raise TypeError(f"function {node.name()} returned a gradient of type "
                        f"{type(grad).__name__} at index {i}; expected a Tensor or None")
    data = grad._data
    if data.shape != shape:
        if not _expandable(shape, data.shape):
            i = _position(node, *sent, grad) if i is None else i
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"{list(data.shape)} but expected shape compatible with {list(shape)}")
        if unrecorded_host(grad):
            # The reduction's own forward on the array (a bias's gradient in every Linear
            # layer; the op's call costs several times the sum).
            grad = Tensor._wrap(sum_to_size.forward(np, data, shape))
        elif MODE.grad_enabled:
            grad = grad.sum_to_size(shape)
        else:   # the op itself (on a GPU): Tensor.sum_to_size's checks are done above
            grad = sum_to_size(grad, size=shape)
    if grad._data.dtype != dtype:
        grad = to_dtype(grad, dtype=dtype)
    return grad


def _check_nan(node, outputs: tuple) -> None:
    for i, grad in enumerate(outputs):
        if grad is not None and _has_nan(grad):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")


def _expandable(shape: tuple, target: tuple) -> bool:
    """Whether ``shape`` broadcasts to ``target``."""
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


def _has_nan(t: Tensor) -> bool:
    data = t._data
    return data.dtype.kind in "fc" and bool((data != data).any())


# ----------------------------------------------------------------------------- hooks

def _call_tensor_pre_hooks(task: GraphTask, node, grads: list) -> list:
    if type(node) is AccumulateGrad:
        hooks = node.variable._backward_hooks
        if hooks:
            grads = [_run_tensor_hooks(task, hooks, grads[0])]
        return grads
    table = node._hooks
    if table is None:
        return grads
    for nr, hooks in table.tensor_pre.items():
        if hooks:
            grads = list(grads)
            grads[nr] = _run_tensor_hooks(task, hooks, grads[nr])
    for nr, ref in table.retains_grad.items():
        tensor = ref()
        if tensor is not None and grads[nr] is not None:
            _retain(task, tensor, grads[nr])
    return grads


def _run_tensor_hooks(task: GraphTask, hooks: dict, grad):
    # A node that runs calls its tensor hooks even for an output that got no gradient
    # (an unused output of unbind or split): with None, as torch does.
    for hook in list(hooks.values()):
        _share(task, (grad,))
        result = hook(grad)
        if WATCH.on:
            probe.hook_called("tensor", None, hook, result)
        if result is not None and result is not grad:
            _check_hook_value(hook, grad, result)
            task.shared.add(_owner_id(result._data))
            grad = result
    return grad


def _check_hook_value(hook, original, result) -> None:
    """A value a hook returned in place of ``original``: torch's ``check_single_result``."""
    if result is None:
        return
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    name = getattr(hook, "__name__", repr(hook))
    if result.type() != original.type():   # dtype and device, as torch's type_equal
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"{original.type()} got {result.type()})")
    if result._data.shape != original._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def _retain(task: GraphTask, tensor: Tensor, grad: Tensor) -> None:
    if tensor._grad is None:
        tensor._grad = grad.clone()
    else:
        tensor._grad = tensor._grad + grad


def _share(task: GraphTask, tensors) -> None:
    """Gradients handed to user hooks may be kept by them: never steal their memory."""
    for t in tensors:
        if t is not None:
            task.shared.add(_owner_id(t._data))


def _call_pre_hooks(task: GraphTask, node, grads: list) -> list:
    for hook in list(node._hooks.pre.values()):
        _share(task, grads)
        result = hook(tuple(grads))
        if WATCH.on:
            probe.hook_called("pre", node, hook, result)
        if result is not None:
            grads = _hook_values(hook, tuple(grads), result)
    return list(grads)


def _call_post_hooks(task: GraphTask, node, outputs: tuple, grads: list) -> tuple:
    for hook in list(node._hooks.post.values()):
        _share(task, outputs)
        result = hook(tuple(outputs), tuple(grads))
        if WATCH.on:
            probe.hook_called("post", node, hook, result)
        if result is not None:
            outputs = _hook_values(hook, tuple(outputs), result)
    return outputs


def _hook_values(hook, previous: tuple, result) -> tuple:
    """What a node hook returned in place of ``previous``: torch's ``check_result``."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(previous):
        name = getattr(hook, "__name__", repr(hook))
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(previous)})")
    for old, new in zip(previous, result):
        _check_hook_value(hook, old, new)
    return result


# ----------------------------------------------------------------------------- leaves

def accumulate_grad(task: GraphTask, acc: AccumulateGrad, grad) -> None:
    """torch's AccumulateGrad: steal, clone, add in place, or add out of place."""
    if grad is None:
        return
    leaf = LEAVES[acc._id]   # (``acc.variable``, without the property's call)
    old = leaf._grad
    if old is None:
        leaf._grad = _first_grad(task, grad)
    elif not MODE.grad_enabled:
        # In place, as torch's ``variable_grad += new_grad``: views of .grad see the sum.
        _add_in_place(old, grad._data)
    else:
        leaf._grad = old + grad
    if WATCH.on:
        probe.grad_accumulated(acc, leaf, old)
    hooks = leaf._post_acc_hooks
    if hooks:
        for hook in list(hooks.values()):
            if WATCH.on:
                probe.hook_called("post_accumulate", acc, hook, None)
            result = hook(leaf)
            if result is not None and result is not leaf:   # torch ignores the leaf itself
                _check_hook_value(hook, leaf, result)
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _first_grad(task: GraphTask, grad: Tensor) -> Tensor:
    if MODE.grad_enabled:
        # create_graph=True: a copy that keeps the gradient's graph (torch: CopyBackwards).
        return _copy_with_graph(grad)
    data = grad._data
    owner = _owner_id(data)
    if getattr(data.flags, "writeable", True) and owner not in task.shared:
        task.shared.add(owner)   # stolen: no one else can see this memory (torch: use_count)
        stolen = Tensor._wrap(data, None, 0, grad._version_counter())   # grad.detach()
        stolen._inference = grad._inference
        return stolen
    return Tensor._wrap(data.copy())


def _owner_id(array) -> int:
    """The id of the array that owns the memory (numpy's ``base`` is always the owner)."""
    base = array.base
    return id(array if base is None else base)


def _warn_forward_trace(node) -> None:
    trace = node._metadata.get("traceback_") if node._metadata else None
    if trace is None:
        warnings.warn(f"Error detected in {node.name()}. No forward pass information available."
                      " Enable detect anomaly during forward pass for more information.",
                      UserWarning, stacklevel=2)
        return
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                  "the error:\n" + "".join(trace), UserWarning, stacklevel=2)


def _copy_with_graph(grad: Tensor) -> Tensor:
    from ..ops.pointwise import copying
    blank = Tensor._wrap(_xp_of(grad).zeros_like(grad._data))
    return copying.copy(blank, grad)
