"""The op registry: each op's forward beside its derivative, and how ops run.

An op is declared once::

    @defop("exp", node="ExpBackward0", saves=("result",))
    def exp(xp, x):                       # forward: raw arrays and the array module
        return xp.exp(x)

    @exp.vjp
    def exp_vjp(ctx, grad):               # derivative: Tensor ops, so it is differentiable
        return (grad * ctx.result,)

``saves`` names forward parameters (or ``result``) kept for backward: the
engine frees exactly those, and the inspector lists exactly those. Keyword
arguments of the forward become node attributes (``ctx.dim``). A derivative
returns one gradient per positional input, shaped like the op's output or
like the input: the engine sums broadcast gradients back to the input shape
in one place, as torch's engine does.
"""

from __future__ import annotations

import inspect

import numpy as np

from ... import backend
from ...graph.grad_mode import MODE
from ...graph.node import OpNode
from .arguments import arity_error, input_error
from .saved_names import event_names, torch_fields
from .checks import broadcast_error
from .running import (NotAnInput, _as_tensor, _cuda_index, _edges, _record, _record_one,
                      _share_view_state, _unwrap, _unwrap_elementwise, _unwrap_to_first, run_direct,
                      save_plan)

__all__ = ["Op", "defop", "OPS"]

OPS: dict[str, Op] = {}
_ALIASES = {("self", "x"), ("other", "y")}
_CPP_NODES = {"CopySlices": "torch::autograd::CopySlices",
              "CopyBackwards": "torch::autograd::CopyBackwards",
              "NotImplemented": "torch::autograd::NotImplemented"}


class Op:
    """One differentiable operation: forward, derivative, and its node type."""

    def __init__(self, name: str, forward, node: str, saves=(), view=False, outputs=1,
                 nondiff_outputs=(), extras=(), differentiable=True, broadcasts=False,
                 any_device=False, same_dtype_kernel=None, saved_as=None, sizes=None):
        self.name = name
        # How the inputs' arrays are read: all on one device (nearly every op), or moved to
        # the first input's device (``copy_`` from another device).
        # Elementwise ops also take a 0-d CPU tensor among GPU tensors, as torch's do.
        self.unwrap = _unwrap_to_first if any_device else \
            _unwrap_elementwise if broadcasts else _unwrap
        self.broadcasts = broadcasts        # elementwise: shapes that do not broadcast fail
        self.differentiable = differentiable  # False: comparisons, argmax... never recorded
        self.forward = forward
        # The forward for two NumPy arrays of one dtype, declared where it is the forward's
        # own arithmetic to the bit (nothing to promote): ``run_direct`` calls it and skips
        # the forward's call and its dtype checks, which cost as much as a small array's add.
        self.same_dtype_kernel = same_dtype_kernel
        self.backward = None
        self.view = view
        self.outputs = outputs              # an int, or "many" for a list (split, chunk)
        self.nondiff_outputs = frozenset(nondiff_outputs)
        self.extras = tuple(extras)         # extra arrays the forward returns to be saved
        self.single = outputs == 1 and not extras and not nondiff_outputs
        # One output, inputs kept on their device: an op ``run_direct`` may run (a view too:
        # it shares its input's state there as here; a comparison is never recorded there,
        # as here).
        self.direct = self.single and not any_device
        signature = inspect.signature(forward).parameters
        # Positional inputs (edges of the node) have no default; keywords are attributes.
        params = [k for k, p in list(signature.items())[1:]
                  if p.default is inspect.Parameter.empty]
        defaults = {k: p.default for k, p in signature.items()
                    if p.default is not inspect.Parameter.empty}
        self.save_specs = tuple(_save_spec(name, s, params, self.extras) for s in saves)
        self.save_plan = save_plan(self.save_specs)
        save_names = frozenset(spec[0] for spec in self.save_specs)
        # torch calls the first two inputs ``self`` and ``other`` (``grad_fn._saved_self``),
        # where the forward calls them ``x`` and ``y``; other names are torch's own.
        torch_names = {t: n for t, n in zip(("self", "other"), params) if (t, n) in _ALIASES}
        # (strides torch keeps only for a gradient read as () without it, as its unsaved int[])
        unsaved = {spec[0]: () for spec in self.save_specs if spec[1] == "strides"}
        declared = {n: OpNode.field(n, defaults.get(n, unsaved.get(n))) if n in save_names
                    else OpNode.attr_field(n, defaults[n]) for n in (*save_names, *defaults)}
        fields = {n: p for n, p in declared.items() if not hasattr(OpNode, n)}
        # torch's spellings as properties too (``_saved_self``, ``_saved_dim``): nodes have no
        # ``__getattr__`` to find them by name, as that slows every attribute read of every
        # node (the engine's included) by half.
        # An input torch names ``self``/``other`` is exposed under that name alone, and so is
        # a keyword ``saved_as`` renames (``{"pad": "padding"}``; None: torch has no such
        # ``_saved_`` attribute, the value is the derivative's alone).
        # ``saved_as`` may also give ``(name, convert)``: torch's value is ``convert(ctx.<n>)``;
        # ``sizes`` names torch's ``<input>_sym_sizes`` (``{"self_sym_sizes": 0}``).
        renamed = {n: t for t, n in torch_names.items()} | (saved_as or {})
        fields.update(torch_fields(declared, renamed, sizes or {}))
        for n in (spec[0] for spec in self.save_specs if spec[1] == "array"):
            fields[n] = OpNode.array_field(n)   # ctx.index: the array; _saved_index: a tensor
        for n in (spec[0] for spec in self.save_specs if spec[1] == "key"):
            # ctx.key: the key, its arrays unpacked; _saved_indices: torch's tuple of tensors
            fields["key"], fields[f"_saved_{n}"] = OpNode.key_fields(n)
        self.node_class = type(node, (OpNode,), {"__slots__": (), "op": self,
                                                 "defaults": defaults,
                                                 "torch_names": torch_names,
                                                 "save_names": save_names,
                                                 # events name saved values as torch does
                                                 "saved_as": event_names(renamed),
                                                 **fields})
        if node in _CPP_NODES:   # torch's C++-only nodes report a qualified name()
            self.node_class.name = lambda _self, _n=_CPP_NODES[node]: _n

    def explain_failure(self, arrays) -> None:
        """Where the forward raised NumPy's ValueError: torch's RuntimeError instead when an
        elementwise op's operands do not broadcast (else the caller re-raises NumPy's)."""
        if self.broadcasts:
            broadcast_error(*arrays)

    def explain_arity(self, error: TypeError):
        """Python's arity error of the forward in the op's name, without the array module."""
        text = str(error)
        prefix = f"{self.forward.__name__}() "
        if not text.startswith(prefix):
            return None
        if "positional argument" in text:
            return arity_error(self.name, error, 1)
        return TypeError(f"{self.name}() {text[len(prefix):]}")

    def vjp(self, fn):
        """Register the derivative (vector-Jacobian product) of this op."""
        self.backward = fn
        return fn

    def __call__(self, *args, **attrs):
        """Run the op on tensors/scalars; record a node when a gradient may be needed."""
        if self.direct and not attrs and 0 < len(args) <= 2:
            return run_direct(self, args)
        return self.run(args, attrs)

    def run(self, args: tuple, attrs: dict):
        """``__call__``'s general path: any inputs, outputs, devices and modes."""
        try:
            arrays, needs_grad, xp = self.unwrap(args)
        except NotAnInput as refused:   # torch's parser refuses it before running anything
            raise input_error(self, args, refused.index) from None
        try:
            if xp is np:
                result = self.forward(xp, *arrays, **attrs) if attrs else \
                    self.forward(xp, *arrays)
            else:
                with xp.cuda.Device(_cuda_index(args)):   # results land on the inputs' GPU
                    result = self.forward(xp, *arrays, **attrs)
        except ValueError:   # (free in Python 3.11 until raised)
            self.explain_failure(arrays)
            raise
        except TypeError as error:   # the forward's arity, counted as torch counts it
            if (refused := self.explain_arity(error)) is None:
                raise
            raise refused from None
        except MemoryError as error:
            raise backend.allocation_error(error) from None
        recording = needs_grad and self.differentiable and MODE.grad_enabled
        if self.single:   # the common case, without list building
            out = _record_one(self, args, attrs, result, xp, *_edges(args)) if recording \
                else _as_tensor(result, xp)
            if self.view:
                _share_view_state(args[0], (out,), self)
            return out
        extras = None
        if self.extras:
            result, *extras = result
        outs = result if self.outputs != 1 else (result,)
        if recording:
            wrapped = _record(self, args, attrs, outs, extras, xp)
        else:
            wrapped = [_as_tensor(o, xp) for o in outs]
        if self.view:
            _share_view_state(args[0], wrapped, self)
        if self.outputs == 1:
            return wrapped[0]
        return tuple(wrapped) if self.outputs != "many" else list(wrapped)

    def __repr__(self) -> str:
        return f"<op {self.name} -> {self.node_class.__name__}>"


def _save_spec(op_name: str, saved: str, params: list[str], extras: tuple) -> tuple:
    """(name, kind, index, needed_by): ``"x@1"`` saves x only if input 1 needs a gradient
    (``"x@0,1"``: if input 0 or 1 does), as torch saves only what the gradients it will
    compute use (``(x * 3)`` keeps 3, not x); ``"R=result1"`` saves output 1 as ``R``
    (``"result"`` is output 0); ``"w_sym_strides=strides1"`` keeps input 1's strides (in
    elements, as torch's ``sym_strides``) where a gradient needs its layout, not its values
    (``"self_sym_sizes=sizes0"``: its shape, where no edge has it);
    ``"index=array"`` keeps the keyword array ``index`` (an index, mask or pivots, which are
    no inputs of the node) as a saved tensor, torch's SavedVariable; ``"indices=key"`` keeps
    each array of an advanced-index keyword ``key`` as one (torch's list ``indices``).
    """
    if "result" in params:
        raise ValueError(f"op {op_name}: 'result' names the output; call the input otherwise")
    saved, _, needed = saved.partition("@")
    needed_by = tuple(int(i) for i in needed.split(",")) if needed else None
    name, _, output = saved.partition("=")
    if output.startswith("result"):
        return (name, "result", int(output[6:] or 0), needed_by)
    if output.startswith("strides"):
        return (name, "strides", int(output[7:]), needed_by)
    if output.startswith("sizes"):
        return (name, "sizes", int(output[5:]), needed_by)
    if output == "array":
        return (name, "array", 0, needed_by)
    if output == "key":
        return (name, "key", 0, needed_by)
    if saved == "result":
        return (saved, "result", 0, needed_by)
    if saved in extras:
        return (saved, "extra", extras.index(saved), needed_by)
    if saved in params:
        return (saved, "arg", params.index(saved), needed_by)
    return (saved, "attr", 0, needed_by)   # a keyword: a tensor or array in it is saved


def defop(name: str, node: str, **options):
    """Declare an op; the decorated function is its forward."""
    def register(forward):
        if name in OPS:
            raise ValueError(f"op {name} is registered twice")
        op = OPS[name] = Op(name, forward, node, **options)
        return op
    return register
