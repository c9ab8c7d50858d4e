"""``backward`` and ``grad``: torch's argument handling, defaults, warnings and errors.

Everything a call can get wrong is checked here, before the engine runs, so a
bad call leaves ``.grad`` and the graph untouched.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np  # np.*_like dispatch to cupy for GPU arrays (NEP 18)

from ..backend import get_dtype
from ..tensor import Size, Tensor
from .engine import run_backward, unused_message
from .graph import GradientEdge

__all__ = ["backward", "grad"]

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak.")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate d(tensors)/d(leaf) into each leaf's ``.grad`` (or into ``inputs`` only).

    >>> import agdebug as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> ag.autograd.backward([(x * x).sum()])
    >>> x.grad
    tensor([2., 4.])
    """
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                               "passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    input_tuple = _inputs_tuple(inputs, "backward")
    if inputs is not None and len(input_tuple) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _as_tuple(tensors)
    grads = make_grads(tensors, _grads_tuple(grad_tensors, len(tensors)))
    _check_roots(tensors)
    input_edges = None
    if inputs is not None:
        input_edges = [_backward_input_edge(t) for t in input_tuple]
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    run_backward(_roots(tensors), grads, retain_graph, create_graph, input_edges,
                 accumulate_grad=True)


def tensor_backward(self, gradient=None, retain_graph=None, create_graph: bool = False,
                    inputs=None) -> None:
    """Accumulate the gradient of this tensor into the leaves' ``.grad``.

    >>> import agdebug as ag
    >>> x = ag.tensor([3.0], requires_grad=True)
    >>> (x ** 2).backward()
    >>> x.grad
    tensor([6.])
    """
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


# ``Tensor.backward`` is bound here, not written in tensor.py: the Tensor sits below
# autograd and never imports it (as the op modules bind Tensor's math methods).
tensor_backward.__name__, tensor_backward.__qualname__ = "backward", "Tensor.backward"
Tensor.backward = tensor_backward


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """Return d(outputs)/d(inputs) without touching any ``.grad``.

    >>> import agdebug as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> ag.autograd.grad((x ** 3).sum(), x)
    (tensor([ 3., 12.]),)
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    input_tuple = _inputs_tuple(inputs, "grad")
    if not input_tuple:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    grad_outputs = make_grads(outputs, _grads_tuple(grad_outputs, len(outputs)),
                              is_grads_batched)
    _check_roots(outputs)
    input_edges = [_grad_input_edge(t) for t in input_tuple]
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outputs)
    if is_grads_batched:
        result = _batched(roots, grad_outputs, input_edges, retain_graph, create_graph)
    else:
        result = run_backward(roots, grad_outputs, retain_graph, create_graph,
                              input_edges, accumulate_grad=False, allow_unused=allow_unused)
    result = _finish(result, input_tuple, allow_unused, materialize_grads, create_graph)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return result


# ----------------------------------------------------------------------------- arguments

def _as_tuple(value) -> tuple:
    if isinstance(value, (Tensor, GradientEdge)):
        return (value,)
    return tuple(value)


def _inputs_tuple(inputs, api: str) -> tuple:
    """torch's handling of ``inputs``: one tensor or edge, a dict's values, or any iterable."""
    if inputs is None:
        return ()
    if isinstance(inputs, (Tensor, GradientEdge)):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{api}()` must be a dict, not "
                        f"{type(inputs).__name__}. Other Mapping types are not supported.")
    return tuple(inputs)


class _EdgeRoot:
    """A ``GradientEdge`` given as an output: the engine asks a root only for its edge."""

    __slots__ = ("_edge",)

    def __init__(self, edge: GradientEdge):
        self._edge = tuple(edge)

    def _gradient_edge(self) -> tuple:
        return self._edge


def _roots(outputs: tuple) -> list:
    return [_EdgeRoot(o) if isinstance(o, GradientEdge) else o for o in outputs]


def _grads_tuple(grads, length: int) -> tuple:
    if grads is None:
        return (None,) * length
    if isinstance(grads, Tensor):
        return (grads,)
    return tuple(grads)


def make_grads(outputs: tuple, grads: tuple, is_grads_batched: bool = False) -> list:
    """torch's ``_make_grads``: check given gradients, create ones for scalar outputs."""
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    new_grads = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if isinstance(out, GradientEdge):
            shape, np_dtype = out.node._out_meta[out.output_nr]
            dtype, needed = get_dtype(np_dtype), True
        elif isinstance(out, Tensor):
            shape, np_dtype, dtype = out._data.shape, out._data.dtype, out.dtype
            needed = out.requires_grad
        else:
            raise AssertionError("Expected output to be a torch.Tensor")
        if isinstance(g, Tensor):
            new_grads.append(_checked_grad(i, out, shape, np_dtype, g, is_grads_batched))
        elif g is None:
            if needed:
                if any(n != 1 for n in shape):
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not dtype.is_floating_point:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {dtype}")
                new_grads.append(Tensor._wrap(_ones(out, shape, np_dtype)))
            else:
                new_grads.append(None)
        else:
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
    return new_grads


def _ones(out, shape: tuple, np_dtype):
    if isinstance(out, Tensor):
        return np.ones_like(out._data)
    return np.ones(shape, dtype=np_dtype)


def _checked_grad(i: int, out, out_shape: tuple, np_dtype, g: Tensor, batched: bool) -> Tensor:
    grad_shape = g.shape[1:] if batched else g.shape
    if tuple(grad_shape) != tuple(out_shape):
        if batched:
            grad_shape = grad_shape[1:]   # torch's message slices the batch off twice
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {grad_shape!r} and output[{i}] has "
                f"a shape of {Size(out_shape)!r}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap.")
        raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} "
                           f"and output[{i}] has a shape of {Size(out_shape)!r}.")
    if isinstance(out, Tensor) and g.device != out.device:
        raise RuntimeError(f"invalid gradient at index {i} - expected device {out.device} but "
                           f"got {g.device}")
    if g._data.dtype != np_dtype:
        g = Tensor._wrap(g._data.astype(np_dtype))
    return g


def _check_roots(tensors: tuple) -> None:
    for i, t in enumerate(tensors):
        if isinstance(t, GradientEdge):
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"element {i} of tensors is not a Tensor (got {type(t).__name__})")
        if t.grad_fn is None and not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")


def _backward_input_edge(t):
    if isinstance(t, GradientEdge):
        return tuple(t)
    if not isinstance(t, Tensor):
        raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                           f"{type(t).__name__}")
    if not t.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    t.retain_grad()   # torch does this: a non-leaf input's .grad gets the gradient
    return t._gradient_edge()


def _grad_input_edge(t):
    if isinstance(t, GradientEdge):
        return tuple(t)
    if not isinstance(t, Tensor):
        raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                           f"{type(t).__name__}")
    if not t.requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return t._gradient_edge()


# ----------------------------------------------------------------------------- results

def _batched(outputs, grad_outputs, input_edges, retain_graph, create_graph) -> list:
    """One vector-Jacobian product per row of the batched grad_outputs, stacked.

    torch vectorises this with vmap; the values are the same as running the rows
    one after another, which is what happens here.
    """
    from ..ops.shape import stack
    batch = next(g.shape[0] for g in grad_outputs if g is not None)
    rows = []
    for b in range(batch):
        row_grads = [None if g is None else g[b] for g in grad_outputs]
        keep = retain_graph if b == batch - 1 else True
        rows.append(run_backward(list(outputs), row_grads, keep, create_graph, input_edges,
                                 accumulate_grad=False, allow_unused=True))
    return [None if rows[0][i] is None else stack([r[i] for r in rows], dim=0)
            for i in range(len(input_edges))]


def _finish(result: list, inputs: tuple, allow_unused: bool, materialize: bool,
            create_graph: bool) -> tuple:
    out = []
    for i, (g, t) in enumerate(zip(result, inputs)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(unused_message(i))
            if materialize:
                if not isinstance(t, Tensor):
                    raise RuntimeError("materialize_grads cannot be used when the given input "
                                       "is a GradientEdge")
                g = Tensor._wrap(np.zeros_like(t._data))
                g._requires_grad = bool(create_graph)   # torch: zeros_like(requires_grad=...)
        out.append(g)
    return tuple(out)
