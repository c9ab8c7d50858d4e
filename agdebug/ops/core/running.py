"""How an op runs: its inputs unwrapped and checked (devices, arguments), its node
recorded with its edges and saved tensors, and views' shared state."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ... import backend
from ...events import WATCH, probe
from ...graph.grad_mode import MODE, OPEN_BLOCKS
from ...graph.node import SAVED_INDEX, shared_nrs
from ...graph.saved import SavedTensor
from ...tensor import Tensor

if TYPE_CHECKING:   # registry.py imports this module: Op is for annotations only
    from .registry import Op

_NDARRAY = np.ndarray


# ----------------------------------------------------------------------------- running ops

# What an op takes as a positional input besides a tensor: a number, or None for an absent
# optional input (``bias``).
_SCALARS = frozenset({bool, int, float, complex, type(None)})


class NotAnInput(TypeError):
    """A positional argument that is not an input (a list, a string...): ``Op.run`` says so
    in torch's words."""

    def __init__(self, index: int):
        super().__init__(f"argument {index} is not a Tensor")
        self.index = index


def _not_an_input(value, count: int) -> bool:
    """Checked only for a non-tensor argument: a lone number is not an input either (torch's
    ``exp(1.0)`` is refused; ``add(x, 1.0)`` is not)."""
    if value.__class__ not in _SCALARS:
        return not isinstance(value, (np.generic, np.ndarray)) and not backend.is_array(value)
    return count == 1


def _unwrap(args: tuple):
    """``(arrays, needs_grad, xp)``: the tensors' arrays (other arguments as they are),
    whether any tensor requires grad, and the array module they all live in."""
    arrays = []
    needs_grad = False
    on_host = True   # all numpy (the common case, checked with one test per tensor)
    for a in args:
        if isinstance(a, Tensor):
            data = a._data
            if type(data) is not _NDARRAY:
                on_host = False
            if a._requires_grad or a._base is not None and a._base._requires_grad:
                needs_grad = True   # (the second: Tensor.requires_grad of a view, inlined)
            arrays.append(data)
        else:
            if _not_an_input(a, len(args)):
                raise NotAnInput(len(arrays))
            arrays.append(a)
    if on_host:
        return arrays, needs_grad, np
    _check_devices(args)
    return arrays, needs_grad, backend.cupy_module()


def _unwrap_elementwise(args: tuple):
    """``_unwrap`` for an elementwise op: as torch's TensorIterator, it also takes a 0-d CPU
    tensor among GPU tensors, as a number, and computes on their GPU."""
    try:
        return _unwrap(args)
    except RuntimeError:
        pass   # (a mismatch: whether it is one torch accepts is worked out off the hot path)
    gpu = [a for a in args if isinstance(a, Tensor) and type(a._data) is not _NDARRAY]
    scalars = [a for a in args if isinstance(a, Tensor) and type(a._data) is _NDARRAY]
    _check_devices(gpu)
    if any(a._data.ndim for a in scalars):
        _raise_device_mismatch(args)
    if MODE.grad_enabled and any(a.requires_grad for a in scalars):
        # torch moves such a scalar's gradient back to the CPU in its engine, which knows
        # each input's device; agdebug's nodes record shapes and dtypes only.
        raise RuntimeError(
            f"agdebug cannot yet differentiate a 0-d CPU tensor used with tensors on "
            f"{gpu[0].device}: move it there first (.to('{gpu[0].device}'))")
    cp = backend.cupy_module()
    with cp.cuda.Device(_gpu_id(gpu[0]._data)):
        moved = tuple(Tensor._wrap(cp.asarray(a._data))
                      if isinstance(a, Tensor) and type(a._data) is _NDARRAY else a
                      for a in args)
    return _unwrap(moved)


def _unwrap_to_first(args: tuple):
    """``_unwrap``, with every tensor's array moved to the first tensor's device."""
    device = args[0].device
    arrays = [backend.move_array(a._data, device) if isinstance(a, Tensor) else a for a in args]
    needs_grad = any(isinstance(a, Tensor) and a.requires_grad for a in args)
    return arrays, needs_grad, np if device.type == "cpu" else backend.cupy_module()


def _cuda_index(args) -> int:
    # (the first GPU tensor's: a 0-d CPU tensor may come first, see _unwrap_elementwise)
    return next(_gpu_id(a._data) for a in args
                if isinstance(a, Tensor) and type(a._data) is not _NDARRAY)


def _check_devices(args) -> None:
    """Every tensor on one GPU: not a numpy array among CuPy ones, nor two GPUs. (Run for
    every op on a GPU: the arrays' types and device ids are compared, no Device made.)"""
    first = None
    for a in args:
        if isinstance(a, Tensor):
            data = a._data
            if first is None:
                first, kind, gpu = data, type(data), _gpu_id(data)
            elif type(data) is not kind or _gpu_id(data) != gpu:
                _raise_device_mismatch(args)


def _gpu_id(array):
    device = getattr(array, "device", None)   # numpy 2's is the string "cpu"
    return getattr(device, "id", device)


def _raise_device_mismatch(args) -> None:
    devices = [str(a.device) for a in args if isinstance(a, Tensor)]
    # torch names a GPU device first, then the one that differs from it.
    first = next((d for d in devices if d != "cpu"), devices[0])
    other = next(d for d in devices if d != first)
    raise RuntimeError("Expected all tensors to be on the same device, but found at least "
                       f"two devices, {first} and {other}!")


_wrap = Tensor._wrap   # bound once: every op's result is wrapped here (a lookup fewer)


def _as_tensor(array, xp) -> Tensor:
    t = _wrap(array if type(array) is _NDARRAY else _as_array(array, xp))
    if OPEN_BLOCKS.inference and MODE.inference:
        t._inference = True
    return t


def _record_one(op: Op, args: tuple, attrs, result, xp, nodes: tuple, nrs: tuple) -> Tensor:
    """``_record`` for the common single output, without building lists (``nodes`` and
    ``nrs``: the edges, as ``_edges`` gives them)."""
    if type(result) is not _NDARRAY:   # checked inline: the call would cost more than it
        result = _as_array(result, xp)
    node = op.node_class(nodes, nrs, _meta_one(result))
    out = _wrap(result, node, 0)
    _complete(op, node, args, attrs, (out,), None)
    return out


def _record(op: Op, args: tuple, attrs: dict, outs, extras, xp) -> list:
    """Make the node, save what the derivative needs, wrap outputs as its results."""
    if xp is not np or any(type(o) is not _NDARRAY for o in outs):
        outs = [_as_array(o, xp) for o in outs]
    nodes, nrs = _edges(args)
    if op.nondiff_outputs:
        # As in torch, an output that is not differentiable (indices, a workspace) is no
        # output of the node: the node's outputs, their numbers and the gradients its
        # derivative receives are the differentiable ones'.
        nondiff = op.nondiff_outputs
        node = op.node_class(nodes, nrs, tuple([(o.shape, o.dtype) for i, o in enumerate(outs)
                                                if i not in nondiff]))
        numbers = iter(range(len(outs)))
        wrapped = [_wrap(o) if i in nondiff else _wrap(o, node, next(numbers))
                   for i, o in enumerate(outs)]
        _complete(op, node, args, attrs, wrapped, extras,
                  [w for i, w in enumerate(wrapped) if i not in nondiff])
        return wrapped
    meta = _meta_one(outs[0]) if len(outs) == 1 else tuple([(o.shape, o.dtype) for o in outs])
    node = op.node_class(nodes, nrs, meta)
    # (split and chunk: every piece an output of the node)
    wrapped = [_wrap(o, node, i) for i, o in enumerate(outs)]
    _complete(op, node, args, attrs, wrapped, extras)
    return wrapped


def _complete(op: Op, node, args: tuple, attrs: dict, wrapped, extras, outputs=None) -> None:
    """Give a new node its attributes and saved values, and announce it (with ``outputs``,
    the node's own outputs, where some of ``wrapped`` are not differentiable)."""
    node._attrs = attrs or None   # most calls pass no keywords: no empty dict per node
    if op.save_specs:
        node._saved = _save(op, node, args, wrapped, extras)
    if WATCH.on:
        # This frame and its three callers are agdebug's: ``_record_one`` or ``_record``,
        # called from ``Op.run`` or ``run_direct``, which only agdebug calls (``Op.__call__``,
        # the operators in ``methods``, ``run_direct``). The user's line is past them, and
        # the probe skips them unread: looking at a frame costs most of finding the line.
        probe.node_created(node, args, wrapped if outputs is None else outputs,
                           engine_frames=4)


def run_direct(op: Op, args: tuple) -> Tensor:
    """``op(*args)`` for one or two inputs and no keywords (``y * 1.0001``, ``x.tanh()``,
    a derivative's ``grad * 2.0``, a weight's ``w.t()``), in its commonest cases: host
    tensors (or a tensor and a Python number), unrecorded (a comparison always is), or
    recorded with every input that is a view or a later output of its node (an LSTM gate: a
    piece of ``unsafe_chunk``) made by a node of its own. The general path's layers (two
    passes over the inputs, the argument lists) cost as much as the rest of such an op; the
    forward, node, edges, saved values and event are the general path's own. Everything else
    takes the general path.
    """
    a = args[0]
    if not isinstance(a, Tensor) or type(data := a._data) is not _NDARRAY:
        return op.run(args, {})
    binary = len(args) == 2
    # A view, or a later output: whether it needs a gradient, and its edge, take more work.
    indirect = a._base is not None or a._output_nr
    other = b_grad = None
    if binary:
        b = args[1]
        if isinstance(b, Tensor):
            other = b._data
            if type(other) is not _NDARRAY:
                return op.run(args, {})
            indirect = indirect or b._base is not None or b._output_nr
            b_grad = b._requires_grad
        elif b.__class__ not in _SCALARS:   # (a list, a string: refused by the general path)
            return op.run(args, {})
        else:
            other = b
    recording = (a._requires_grad or b_grad or indirect) and op.differentiable and \
        MODE.grad_enabled
    # A view that needs a gradient only through its base has no node to send it to: whether
    # it needs one, and its edge, are the general path's to work out.
    if recording and indirect and (_unnumbered(a) or b_grad is not None and _unnumbered(b)):
        return op.run(args, {})
    try:
        if binary:
            kernel = op.same_dtype_kernel
            if kernel is not None and type(other) is _NDARRAY and other.dtype is data.dtype:
                result = kernel(data, other)
            else:
                result = op.forward(np, data, other)
        else:
            result = op.forward(np, data)
    except ValueError:
        op.explain_failure((data, other) if binary else (data,))
        raise
    except TypeError as error:
        if (refused := op.explain_arity(error)) is None:
            raise
        raise refused from None
    except MemoryError as error:
        raise backend.allocation_error(error) from None
    if not recording:
        out = _as_tensor(result, np)
    # The edges after the forward, as the general path: a failed op makes no accumulator.
    elif binary:
        out = _record_one(op, args, None, result, np, (_edge(a), _edge(b) if b_grad else None),
                          _input_nrs(args) if indirect else _ZERO_NRS[2])
    else:
        out = _record_one(op, args, None, result, np, (_edge(a),),
                          _input_nrs(args) if indirect else _ZERO_NRS[1])
    if op.view:   # (``x.t()``: every Linear layer's weight, forward and backward)
        _share_view_state(a, (out,), op)
    return out


def _unnumbered(t: Tensor) -> bool:
    """A view or a later output without a node of its own (``run_direct`` leaves it to the
    general path); a tensor with a node has its edge there, numbered by its output."""
    return t._grad_fn is None and (t._base is not None or t._output_nr != 0)


def _input_nrs(args: tuple) -> tuple:
    """The ``nrs`` that ``_edges`` gives these inputs."""
    nrs = tuple([_nr(a) for a in args])
    return shared_nrs(nrs) if any(nrs) else _ZERO_NRS[len(nrs)]


def _edge(t: Tensor):
    """The node a gradient for ``t`` goes to: its grad_fn, a leaf's accumulator, or None."""
    fn = t._grad_fn
    if fn is not None:
        return fn
    if not t._requires_grad:
        return None
    acc = t._acc() if t._acc is not None else None
    return acc if acc is not None else t._grad_accumulator()


def _as_array(value, xp):
    return value if type(value) is _NDARRAY or backend.is_array(value) else xp.asarray(value)


def _edges(args: tuple) -> tuple:
    """``(nodes, nrs)``: the new node's edges, one per positional input."""
    nodes = []
    numbered = False   # does an input come from a later output of its node (nr > 0)?
    for a in args:
        if not isinstance(a, Tensor):
            nodes.append(None)
        elif (fn := a._grad_fn) is not None:   # a non-leaf: its edge directly, without a call
            nodes.append(fn)
            if a._output_nr:
                numbered = True
        elif not a._requires_grad:
            nodes.append(None)
        else:   # a leaf's edge (nr 0): its accumulator
            nodes.append(_edge(a))
    nodes = tuple(nodes)
    if numbered:
        return nodes, shared_nrs(tuple([_nr(a) for a in args]))
    count = len(nodes)
    return nodes, _ZERO_NRS[count] if count < len(_ZERO_NRS) else shared_nrs((0,) * count)


# The ``nrs`` of nodes whose inputs all come from output 0 (nearly all), prebuilt.
_ZERO_NRS = tuple((0,) * count for count in range(8))


def _nr(arg) -> int:
    return arg._output_nr if isinstance(arg, Tensor) and arg._grad_fn is not None else 0


_META_CACHE: dict = {}


def _meta_one(array) -> tuple:
    """``((shape, dtype),)`` of a single output, shared between nodes.

    Every object a node keeps alive is one more for Python's cyclic GC to track and
    scan; sharing the (few) distinct metadata tuples keeps that count per node low.
    """
    key = (array.shape, array.dtype)
    meta = _META_CACHE.get(key)
    if meta is None:
        meta = (key,)
        if len(_META_CACHE) < 4096:   # bounded: a program with endless shapes just misses
            _META_CACHE[key] = meta
    return meta


def save_plan(specs: tuple) -> tuple:
    """The op's saving step, built once when it is declared: per saved value ``(name,
    kind, index, needed)``, ``needed`` being None (always saved), the one input whose
    gradient needs it (an int: tested inline) or a tuple of them."""
    plan = []
    for name, kind, index, needed_by in specs:
        if needed_by is not None and len(needed_by) == 1:
            needed_by = needed_by[0]
        plan.append((name, _KINDS[kind], index, needed_by))
    return tuple(plan)


# The kinds as small ints, in the order ops declare them most (an input, the result).
_ARG, _RESULT, _STRIDES, _SIZES, _EXTRA, _KEY, _ATTR, _ARRAY = range(8)
_KINDS = {"arg": _ARG, "result": _RESULT, "strides": _STRIDES, "sizes": _SIZES,
          "extra": _EXTRA, "key": _KEY, "attr": _ATTR, "array": _ARRAY}


def _save(op: Op, node, args: tuple, wrapped: list, extras) -> dict:
    """Run the op's ``save_plan``: every recorded op with saved state runs this loop."""
    saved = {}
    edges = node._next
    for name, kind, index, needed in op.save_plan:
        if needed is not None and (edges[needed] is None if needed.__class__ is int
                                   else not _needed(edges, needed)):
            if kind == _ARRAY and node._attrs is not None:
                node._attrs.pop(name, None)   # not kept: torch's _saved_<name> is None
            continue
        if kind == _ARG:
            value = args[index]
            if isinstance(value, Tensor):
                saved[name] = SavedTensor(value, False)
            else:
                saved[name] = value   # a number, or None for an absent optional input
        elif kind == _RESULT:
            saved[name] = SavedTensor(wrapped[index], True)
        elif kind == _STRIDES:
            saved[name] = _strides(args[index]._data)
        elif kind == _SIZES:
            saved[name] = args[index]._data.shape
        elif kind == _EXTRA:
            saved[name] = SavedTensor(Tensor._wrap(extras[index]), False)
        elif kind == _KEY:
            _save_index_arrays(node, name, saved)
        else:   # _ATTR or _ARRAY
            _save_keyword(node, name, saved)
    return saved


def _save_keyword(node, name: str, saved: dict) -> None:
    """A keyword ("attr" or "array"): a tensor or an array in it is saved as a tensor."""
    value = None if node._attrs is None else node._attrs.get(name)
    if isinstance(value, Tensor):   # a tensor keyword: saved as it is
        saved[name] = SavedTensor(node._attrs.pop(name), False)
    elif value is not None and (type(value) is _NDARRAY or backend.is_array(value)):
        saved[name] = SavedTensor(_wrap(node._attrs.pop(name)), False)


_STRIDES_CACHE: dict = {}


def _strides(array) -> tuple:
    """An array's strides in elements (torch's ``sym_strides``), shared per layout: each
    Linear layer's addmm saves two."""
    key = (array.strides, array.itemsize)
    strides = _STRIDES_CACHE.get(key)
    if strides is None:
        strides = tuple([step // array.itemsize for step in array.strides])
        if len(_STRIDES_CACHE) < 4096:   # bounded, as _META_CACHE
            _STRIDES_CACHE[key] = strides
    return strides


def _save_index_arrays(node, name: str, saved: dict) -> None:
    """Each array of the advanced-index keyword ``key`` as a saved tensor ``name[i]``, its
    place in the key kept as ``SAVED_INDEX``: released with the node's other saved tensors,
    so a second backward through the index is refused, as torch refuses it."""
    basic, advanced = node._attrs["key"]
    if advanced is None:
        return
    parts = list(advanced)
    for i, part in enumerate(advanced):
        if type(part) is _NDARRAY or backend.is_array(part):
            saved[f"{name}[{i}]"] = SavedTensor(_wrap(part), False)
            parts[i] = SAVED_INDEX
    node._attrs["key"] = (basic, tuple(parts))


def _needed(edges: tuple, needed_by: tuple) -> bool:
    """Whether any of the inputs ``needed_by`` lists gets a gradient (has an edge)."""
    for i in needed_by:
        if edges[i] is not None:
            return True
    return False


def _share_view_state(base: Tensor, outs: list, op: Op) -> None:
    """A view shares its base's storage, so it shares the version counter too."""
    root = base._base if base._base is not None else base
    made_in = _made_in(base, op)
    for i, t in enumerate(outs):
        if t._data.base is not None:
            t._vc = base._version_counter()
            t._base = root
            t._inference = base._inference   # a view of a normal tensor is normal
            t._made_in = made_in if made_in != _MULTI else ("multi", _short(op), i)


# torch's creation_meta: a view made in no_grad or inference mode, one output of an op that
# returns several views (unbind, split), or a view made from any of these, may not be
# modified in place while grad mode records it (see check_inplace). ``_made_in`` holds
# (mode, None) for the first two, ("multi", op, output number) for the third and
# (mode, the view op) for a view of one.
_IN_NO_GRAD = ("no_grad", None)
_IN_INFERENCE = ("inference", None)
_MULTI = ("multi", None)
_MULTI_NO_GRAD = ("no_grad_multi", None)


def _made_in(base: Tensor, op: Op):
    if not MODE.grad_enabled:
        return _IN_INFERENCE if MODE.inference else _IN_NO_GRAD
    if op.outputs == "many":   # torch: of a base without grad, these count as no_grad views
        return _MULTI if base._requires_grad else _MULTI_NO_GRAD
    if base._made_in is _MULTI_NO_GRAD:   # and so do views of those, in the same words
        return _MULTI_NO_GRAD
    if base._made_in is not None:
        return base._made_in[0], _short(op)
    return None


def _short(op: Op) -> str:
    return op.node_class.__name__.split("Backward")[0]   # torch's name in these errors


def _view_inplace_message(made_in: tuple) -> str:
    mode, view_op, *output = made_in
    multiple = ("This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")
    if mode == "multi":
        return (f"Output {output[0] if output else 0} of {view_op} is a view and is being "
                f"modified inplace. {multiple}")
    if mode == "custom":
        return (f"Output {output[0] if output else 0} of {view_op} is a view and is being "
                "modified inplace. This view was created inside a custom Function (or because "
                "an input was returned as-is) and the autograd logic to handle view+inplace "
                "would override the custom backward associated with the custom Function, "
                "leading to incorrect gradients. This behavior is forbidden. You can fix this "
                "by cloning the output of the custom Function.")
    if mode == "no_grad_multi":
        return ("A view was created in no_grad mode and is being modified inplace with grad "
                f"mode enabled. {multiple}")
    start = (f"Output 0 of {view_op} is a view of a view which was created in" if view_op
             else "A view was created in")
    if mode == "inference":
        return (f"{start} inference mode and is being modified inplace in normal mode. Given "
                "that this use case is ambiguous and error-prone, it is forbidden. You can "
                "clarify your code by moving both the view and the inplace either both inside "
                "the inference_mode block (if you don't want the inplace to be tracked) or both "
                "outside (if you want the inplace to be tracked).")
    return (f"{start} no_grad mode and is being modified inplace with grad mode enabled. Given "
            "that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
            "your code by moving both the view and the inplace either both inside the no_grad "
            "block (if you don't want the inplace to be tracked) or both outside (if you want "
            "the inplace to be tracked).")
