"""Custom autograd functions: torch's ``autograd.Function``.

A subclass gives a static ``forward`` and ``backward``; ``MyFn.apply(*args)`` runs
the forward under ``no_grad`` and records one node, ``MyFnBackward``, whose
``apply`` calls the user's ``backward``. The node *is* the ``ctx`` both methods
receive, as in torch: what the forward stores on it (saved tensors, attributes)
is what the backward and the debugger see.

>>> import agdebug as ag
>>> class Square(ag.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x
...     @staticmethod
...     def backward(ctx, grad):
...         x, = ctx.saved_tensors
...         return 2 * x * grad
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> y = Square.apply(x)
>>> y.grad_fn.name()
'SquareBackward'
>>> y.sum().backward()
>>> x.grad
tensor([2., 4.])
"""

from __future__ import annotations

import functools
import warnings

from ..events import WATCH, probe
from ..graph.grad_mode import MODE, no_grad
from ..graph.node import Node, split_edges
from ..graph.saved import SAVED_FREED_MESSAGE, SavedTensor
from ..ops.core.inplace import LEAF_INPLACE_MESSAGE
from ..tensor import Tensor

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "once_differentiable"]

_NO_BACKWARD = ("You must implement either the backward or vjp method for your custom "
                "autograd.Function to use it with backward mode AD.")
_LEGACY_CALL = ("Legacy autograd function with non-static forward method is deprecated. Please "
                "use new-style autograd function with static forward method. (Example: "
                "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")
_DIRTY_NOT_INPUT = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                    "that have been mutated should be passed to ctx.mark_dirty().")
_DIRTY_VIEW_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")
_ONCE_DIFFERENTIABLE = ("trying to differentiate twice a function that was marked with "
                        "@once_differentiable")


class FunctionCtx:
    """What ``forward`` records for ``backward``: saved tensors, marks, attributes."""

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (or None) for ``backward``, checked against in-place changes."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self.to_save = tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare inputs the forward modified in place (they must be returned)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs that get no gradient (``requires_grad=False``)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` receives None (not zeros) for unused outputs."""
        self.materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The node (and ctx) of one ``Function.apply``; subclassed as ``<Name>Backward``."""

    _forward_cls = None
    fills_missing_grads = True

    def __init__(self, edges: tuple, needs_input_grad: tuple, tensor_inputs: tuple):
        super().__init__(*split_edges(edges), ())
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self._materialize_non_diff_grads = True   # (torch's private switch, read at backward)
        self._needs_input_grad = needs_input_grad
        self._tensor_inputs = tensor_inputs     # per forward argument: is it a Tensor?
        self._tensor_outputs = ()               # per forward output: is it a Tensor?
        self._differentiable_outputs = ()       # per forward output: does a gradient flow?
        self._saved_count = None                # len(to_save) once packed

    @property
    def needs_input_grad(self) -> tuple:
        return self._needs_input_grad

    @property
    def saved_tensors(self) -> tuple:
        if self._released:
            raise RuntimeError(SAVED_FREED_MESSAGE)
        if self._saved_count is None:
            return tuple(self.to_save)
        saved = self._saved or {}
        return tuple(saved[str(i)].unpack(self) if str(i) in saved else None
                     for i in range(self._saved_count))

    def _pack_saved(self, outputs: tuple) -> None:
        # Only outputs that hold this node would form a cycle; they are saved weakly.
        output_ids = {id(o) for o in outputs if isinstance(o, Tensor) and o._grad_fn is self}
        saved = {str(i): SavedTensor(t, id(t) in output_ids)
                 for i, t in enumerate(self.to_save) if t is not None}
        self._saved = saved or None
        self._saved_count = len(self.to_save)
        self.to_save = None   # torch's, once packed

    def apply(self, grads):
        """Run the user's backward; one gradient per tensor input, for the engine."""
        grads = self._prepare_grads(grads)
        result = _user_backward(self._forward_cls)(self, *grads)
        return self._grads_for_edges(result)

    def _prepare_grads(self, grads) -> list:
        out = []
        for is_tensor, differentiable, g, meta in zip(self._tensor_outputs,
                                                      self._differentiable_outputs, grads,
                                                      self._out_meta):
            if not is_tensor:
                g = None
            elif g is None and self.materialize_grads and (
                    differentiable or self._materialize_non_diff_grads):
                g = _zeros(meta, grads)
            out.append(g)
        return out

    def _grads_for_edges(self, result) -> tuple:
        if not isinstance(result, tuple):
            result = tuple(result) if isinstance(result, list) else (result,)
        expected = len(self._tensor_inputs)
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]   # torch tolerates extra trailing Nones
        if len(result) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {expected}, got {len(result)})")
        grads = []
        for i, (is_tensor, g) in enumerate(zip(self._tensor_inputs, result)):
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable")
                continue
            grads.append(g)
        return tuple(grads)


def _zeros(meta, grads) -> Tensor:
    """Zeros for an output that got no gradient, on the device of one that did."""
    from ..backend import xp_of
    like = next((g for g in grads if g is not None), None)
    xp = xp_of(like._data) if like is not None else __import__("numpy")
    shape, dtype = meta
    return Tensor._wrap(xp.zeros(shape, dtype=dtype))


def _user_backward(cls):
    backward, vjp = cls.backward, cls.vjp
    overrides_backward = backward is not Function.backward
    overrides_vjp = vjp is not Function.vjp
    if overrides_backward and overrides_vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not "
                           "allowed. You should only implement one of them.")
    return vjp if overrides_vjp else backward


class FunctionMeta(type):
    """Gives each Function subclass its node type, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = cls.__module__
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class for custom differentiable operations; see the module docstring."""

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(_LEGACY_CALL)

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(_NO_BACKWARD)

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` without recording, then record one node for all its outputs."""
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = MODE.grad_enabled and any(needs)
        edges = tuple(a._gradient_edge() if record else (None, 0)
                      for a in args if isinstance(a, Tensor))
        ctx = cls._backward_cls(edges, needs, tuple(isinstance(a, Tensor) for a in args))
        with no_grad():
            output = _run_forward(cls, ctx, args, kwargs)
        for t in ctx.dirty_tensors:   # torch's _mark_dirty: one more version per dirty tensor
            if isinstance(t, Tensor):
                t._bump_version()
        if not record:
            return output
        outs = output if isinstance(output, (tuple, list)) else (output,)
        copy_slices = []   # (CopySlices, base) around this node, for a dirty input that is a view
        wrapped = _attach_outputs(ctx, args, outs, copy_slices)
        # Dropped once used, as torch does: a dirty output's grad_fn is this node, so holding
        # it would make a reference cycle that only the cyclic GC frees.
        ctx.dirty_tensors = ctx.non_differentiable = None
        ctx._pack_saved(wrapped)
        for node, _ in copy_slices:
            node._saved = ctx._saved   # the CopySlices runs this node: it checks and frees
        if WATCH.on:   # the node, then the CopySlices around it (in-place ops' order)
            probe.node_created(ctx, args, wrapped)
            for node, base in copy_slices:
                probe.node_created(node, (base,), (base,))
        if isinstance(output, (tuple, list)):
            return type(output)(wrapped)
        return wrapped[0]


def _run_forward(cls, ctx, args: tuple, kwargs: dict):
    if cls.setup_context is Function.setup_context:
        return cls.forward(ctx, *args, **kwargs)
    output = cls.forward(*args, **kwargs)
    cls.setup_context(ctx, args, output)
    return output


def _attach_outputs(ctx: BackwardCFunction, args: tuple, outs, copy_slices: list) -> list:
    """Make the forward's outputs the node's outputs (aliasing inputs, rebasing dirty ones)."""
    dirty = {id(t) for t in ctx.dirty_tensors}
    nondiff = {id(t) for t in ctx.non_differentiable}
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    _check_dirty_returned(dirty, outs)
    meta, wrapped, differentiable = [], [], []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            meta.append(((), _default_dtype()))
            wrapped.append(o)
            differentiable.append(False)
            continue
        meta.append((o._data.shape, o._data.dtype))
        differentiable.append(id(o) not in nondiff and o._data.dtype.kind in "fc")
        wrapped.append(_output(ctx, o, i, id(o) in dirty, id(o) in inputs, differentiable[-1],
                               len(outs), copy_slices))
    ctx._out_meta = tuple(meta)
    ctx._differentiable_outputs = tuple(differentiable)
    ctx._tensor_outputs = tuple(isinstance(o, Tensor) for o in outs)
    return wrapped


def _output(ctx, o: Tensor, index: int, dirty: bool, is_input: bool, differentiable: bool,
            n_outputs: int, copy_slices: list):
    if dirty and differentiable:
        if o._grad_fn is None and o._requires_grad:
            raise RuntimeError(LEAF_INPLACE_MESSAGE.replace("is being used", "has been used"))
        if not is_input:
            warnings.warn(_DIRTY_NOT_INPUT, UserWarning, stacklevel=4)
        if o._base is not None:
            if n_outputs > 1:
                raise RuntimeError(_DIRTY_VIEW_OUTPUTS)
            copy_slices.append((_rebase_dirty_view(ctx, o), o._base))
            return o
        target = o                      # rebased in place: ``y is x`` after mark_dirty
    elif dirty and not o._requires_grad:
        return o
    elif is_input or o._grad_fn is not None or o._requires_grad:
        # torch returns a view of an input returned as-is: same storage and version; but a
        # non-differentiable one that requires grad is a detached alias, not a view (a view
        # would require grad through its base).
        target = Tensor._wrap(o._data, None, 0, o._version_counter())
        if differentiable or not o.requires_grad:
            target._base = o._base if o._base is not None else o
    else:
        target = o
    if differentiable:
        if target._base is not None:   # torch's creation_meta for a view a Function returns
            name = type(ctx)._forward_cls.__name__
            target._made_in = ("multi" if n_outputs > 1 else "custom", name, index)
        target._set_history(ctx, index)
    return target


def _rebase_dirty_view(ctx, view: Tensor):
    """A dirty input that is a view: its base gets a CopySlices around this node and the
    view reads its region back out of the base (torch's rebase_history for views).
    Returns that CopySlices: it runs this node, so it must share its saved tensors."""
    from ..ops.core.inplace_views import rebase_history
    base = view._base
    if base._grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    return rebase_history(view, ctx, announce=False)   # apply announces it after ctx


def _check_dirty_returned(dirty: set, outs) -> None:
    returned = {id(o) for o in outs}
    if dirty - returned:
        raise RuntimeError("Some elements marked as dirty during the forward method were not "
                           "returned as output. The inputs that are modified inplace must all "
                           "be outputs of the Function.")


def _default_dtype():
    from ..backend import DEFAULT_FLOAT
    return DEFAULT_FLOAT.np


# ----------------------------------------------------------------------------- once_differentiable

class Error(Node):
    """torch's ``DelayedError``: raises when a second-order backward reaches it."""

    __slots__ = ("_message",)

    def __init__(self, message: str, edges: tuple, out_meta: tuple):
        super().__init__(*split_edges(edges), out_meta)
        self._message = message

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads):
        raise RuntimeError(self._message)


def once_differentiable(fn):
    """Decorate a ``backward`` that is not itself differentiable.

    It runs without recording; with ``create_graph=True`` its results get an
    ``Error`` node, so differentiating through them raises torch's error.

    >>> import agdebug as ag
    >>> class Double(ag.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     @ag.autograd.function.once_differentiable
    ...     def backward(ctx, grad):
    ...         return grad * 2
    >>> x = ag.ones(2, requires_grad=True)
    >>> Double.apply(x).sum().backward()
    >>> x.grad
    tensor([2., 2.])
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not MODE.grad_enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        meta = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor)
                     else ((), _default_dtype()) for o in outs)
        # torch's inputs of the error node: each output detached as a new leaf that requires
        # grad, so the node has an AccumulateGrad edge per tensor output (None elsewhere).
        edges = tuple(o.detach().requires_grad_()._gradient_edge() if isinstance(o, Tensor)
                      else (None, 0) for o in outs)
        err = Error(_ONCE_DIFFERENTIABLE, edges, meta)
        wrapped = tuple(Tensor._wrap(o._data, err, i) if isinstance(o, Tensor) else o
                        for i, o in enumerate(outs))
        if WATCH.on:
            probe.node_created(err, (), wrapped)
        return wrapped[0] if single else wrapped
    return wrapper
