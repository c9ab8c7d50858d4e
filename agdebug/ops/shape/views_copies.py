"""Shape ops: views and copies that move elements around without changing them.

Ops declared with ``view=True`` return numpy views, so they share their base's
storage and version counter, as torch's views do. Their arguments arrive
already checked and normalised (non-negative dims) from ``shape_args``.
"""

from __future__ import annotations

import numpy as np

from ..core.registry import defop
from ..core.saved_names import SELF_SIZES, as_ints
from ..core.gradients import input_shape, needs, zeros_grad


# ----------------------------------------------------------------------------- reshaping views

@defop("view", node="ViewBackward0", view=True, sizes=SELF_SIZES)
def view(xp, x, shape=()):
    return x.reshape(shape)


@view.vjp
def view_vjp(ctx, grad):
    return (_reshaped(grad, input_shape(ctx, 0)),)


def _reshaped(grad, shape: tuple):
    """``grad.reshape(shape)`` (a gradient of the input's numel, in a reshaping view's
    derivative): for a contiguous gradient the view op, as ``reshape`` calls it, without the
    method's argument parsing (every view's, squeeze's and unsqueeze's backward)."""
    if grad._data.flags.c_contiguous:
        return view(grad, shape=shape)
    return grad.reshape(shape)


@defop("reshape_alias", node="ReshapeAliasBackward0", view=True, sizes=SELF_SIZES)
def reshape_alias(xp, x, shape=()):
    """``reshape`` of a non-contiguous tensor whose strides allow a view (torch's
    ``_reshape_alias``; a contiguous one gets ``view``)."""
    return x.reshape(shape)


@reshape_alias.vjp
def reshape_alias_vjp(ctx, grad):
    return (_reshaped(grad, input_shape(ctx, 0)),)


@defop("unsafe_view", node="UnsafeViewBackward0", sizes=SELF_SIZES)
def unsafe_view(xp, x, shape=()):
    return x.reshape(shape)


@unsafe_view.vjp
def unsafe_view_vjp(ctx, grad):
    return (_reshaped(grad, input_shape(ctx, 0)),)


@defop("expand", node="ExpandBackward0", view=True, sizes=SELF_SIZES)
def expand(xp, x, shape=()):
    return xp.broadcast_to(x, shape)


@expand.vjp
def expand_vjp(ctx, grad):
    return (grad.sum_to_size(input_shape(ctx, 0)),)


@defop("squeeze", node="SqueezeBackward0", view=True, sizes=SELF_SIZES)
def squeeze(xp, x):
    return x.reshape(tuple(s for s in x.shape if s != 1))


@defop("squeeze_dim", node="SqueezeBackward1", view=True, sizes=SELF_SIZES)
def squeeze_dim(xp, x, dim=0):
    return _squeeze_dims(x, (dim,))


@defop("squeeze_dims", node="SqueezeBackward2", view=True, sizes=SELF_SIZES,
       saved_as={"dims": ("dim", as_ints)})
def squeeze_dims(xp, x, dims=()):
    return _squeeze_dims(x, dims)


def _squeeze_dims(x, dims):
    # A dim whose size is not 1 is left alone, as torch does.
    return x.reshape(tuple(s for i, s in enumerate(x.shape) if not (i in dims and s == 1)))


@squeeze.vjp
def squeeze_vjp(ctx, grad):
    return (_reshaped(grad, input_shape(ctx, 0)),)


squeeze_dim.vjp(squeeze_vjp)
squeeze_dims.vjp(squeeze_vjp)


@defop("unsqueeze", node="UnsqueezeBackward0", view=True)
def unsqueeze(xp, x, dim=0):
    at = dim if dim >= 0 else dim + x.ndim + 1
    if 0 <= at <= x.ndim:   # expand_dims' own reshape, without its ~2.5 us of argument work
        return x.reshape(x.shape[:at] + (1,) + x.shape[at:])
    return xp.expand_dims(x, dim)   # (its error)


@unsqueeze.vjp
def unsqueeze_vjp(ctx, grad):
    return (squeeze_dim(grad, dim=ctx.dim),)


# ----------------------------------------------------------------------------- reordering views

@defop("permute", node="PermuteBackward0", view=True)
def permute(xp, x, dims=()):
    return x.transpose(dims)


@permute.vjp
def permute_vjp(ctx, grad):
    inverse = tuple(int(i) for i in np.argsort(ctx.dims))
    return (permute(grad, dims=inverse),)


@defop("transpose", node="TransposeBackward0", view=True)
def transpose(xp, x, dim0=0, dim1=1):
    if x.ndim == 0:   # torch: transpose(0, -1) of a 0-d tensor is itself (NumPy has no axis 0)
        return x.view()
    return xp.swapaxes(x, dim0, dim1)


@transpose.vjp
def transpose_vjp(ctx, grad):
    return (transpose(grad, dim0=ctx.dim0, dim1=ctx.dim1),)


@defop("t", node="TBackward0", view=True)
def t(xp, x):
    return x.T


@t.vjp
def t_vjp(ctx, grad):
    return (t(grad),)


# ----------------------------------------------------------------------- in-place shape changes

def _in_place(op, name: str, node: str, **saved):
    """``op`` under the node torch records for its in-place form (``x.unsqueeze_(0)``): the
    same forward and derivative (registry.apply_shape_inplace moves the tensor onto it)."""
    variant = defop(name, node=node, **saved)(op.forward)
    variant.vjp(op.backward)
    return variant


squeeze_ = _in_place(squeeze, "squeeze_", "SqueezeBackward3", sizes=SELF_SIZES)
squeeze_dim_ = _in_place(squeeze_dim, "squeeze_dim_", "SqueezeBackward4", sizes=SELF_SIZES)
squeeze_dims_ = _in_place(squeeze_dims, "squeeze_dims_", "SqueezeBackward5", sizes=SELF_SIZES,
                          saved_as={"dims": ("dim", as_ints)})
unsqueeze_ = _in_place(unsqueeze, "unsqueeze_", "UnsqueezeBackward1")
transpose_ = _in_place(transpose, "transpose_", "TransposeBackward1")
t_ = _in_place(t, "t_", "TBackward1")


@defop("narrow", node="SliceBackward0", view=True, sizes=SELF_SIZES)
def narrow(xp, x, dim=0, start=0, length=0):
    return x[(slice(None),) * dim + (slice(start, start + length),)]


@narrow.vjp
def narrow_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    dim, start, length = ctx.dim, ctx.start, ctx.length
    before = shape[:dim] + (start,) + shape[dim + 1:]
    after = shape[:dim] + (shape[dim] - start - length,) + shape[dim + 1:]
    parts = (zeros_grad(grad, before), grad, zeros_grad(grad, after))
    return (cat(*parts, dim=dim, sizes=(start, length, after[dim])),)


@defop("narrow_copy", node="NarrowCopyBackward0", sizes=SELF_SIZES)
def narrow_copy(xp, x, dim=0, start=0, length=0):
    return x[(slice(None),) * dim + (slice(start, start + length),)].copy()


narrow_copy.vjp(narrow_vjp)


# ----------------------------------------------------------------------------- copies

@defop("repeat", node="RepeatBackward0", sizes=SELF_SIZES)
def repeat(xp, x, repeats=()):
    return xp.tile(x, repeats)


@repeat.vjp
def repeat_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    repeats = ctx.repeats
    padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    interleaved = tuple(v for pair in zip(repeats, padded) for v in pair)
    summed = tuple(range(0, len(interleaved), 2))
    grad = grad.reshape(interleaved)
    if summed:
        grad = grad.sum(summed)
    return (grad.reshape(shape),)


@defop("flip", node="FlipBackward0")
def flip(xp, x, dims=()):
    # a 0-d tensor's flip(0) is a copy (NumPy has no axis 0)
    return xp.flip(x, axis=dims).copy() if dims and x.ndim else x.copy()


@flip.vjp
def flip_vjp(ctx, grad):
    return (flip(grad, dims=ctx.dims),)


@defop("rot90", node="Rot90Backward0")
def rot90(xp, x, k=1, dims=(0, 1)):
    # As torch: a flip, then (odd k) a transpose of the flipped copy, so the strides match.
    d0, d1 = dims
    if k == 0:
        return x.copy()
    if k == 2:
        return xp.flip(x, axis=(d0, d1)).copy()
    flipped = xp.ascontiguousarray(xp.flip(x, axis=d1 if k == 1 else d0))
    return xp.swapaxes(flipped, d0, d1)


@rot90.vjp
def rot90_vjp(ctx, grad):
    return (rot90(grad, k=-ctx.k % 4, dims=ctx.dims),)


@defop("roll", node="RollBackward0")
def roll(xp, x, shifts=(), dims=None):
    # dims None: the flattened tensor rolls (NumPy's axis=None does the same)
    return xp.roll(x, shifts[0] if dims is None else shifts, axis=dims)


@roll.vjp
def roll_vjp(ctx, grad):
    return (roll(grad, shifts=tuple(-s for s in ctx.shifts), dims=ctx.dims),)


# ----------------------------------------------------------------------------- many tensors

@defop("cat", node="CatBackward0")
def cat(xp, *xs, dim=0, sizes=()):
    kept = [x for x, s in zip(xs, sizes) if s is not None]
    dtype = _common_dtype(kept)
    if all(x.dtype is dtype for x in kept):   # (the usual case: nothing to convert)
        return xp.concatenate(kept, axis=dim)
    return xp.concatenate([x.astype(dtype, copy=False) for x in kept], axis=dim)


def _common_dtype(arrays):
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype is not dtype and a.dtype != dtype:   # (``is`` first: it nearly always is)
            from ...backend import result_dtype
            dtype = result_dtype(np.empty((1,), dtype), a, 1, a.ndim)
    return dtype


@cat.vjp
def cat_vjp(ctx, grad):
    grads, start = [], 0
    for i, size in enumerate(ctx.sizes):
        if size is None:
            grads.append(narrow(grad.reshape(-1), dim=0, start=0, length=0))
            continue
        if needs(ctx, i):
            grads.append(narrow(grad, dim=ctx.dim, start=start, length=size))
        else:
            grads.append(None)
        start += size
    return tuple(grads)


@defop("stack", node="StackBackward0")
def stack_op(xp, *xs, dim=0):
    dtype = _common_dtype(xs)
    return xp.stack([x.astype(dtype, copy=False) for x in xs], axis=dim)


@stack_op.vjp
def stack_vjp(ctx, grad):
    return tuple(unbind(grad, dim=ctx.dim))


@defop("split", node="SplitBackward0", view=True, outputs="many", sizes=SELF_SIZES)
def split(xp, x, split_size=1, dim=0):
    return _pieces(x, _split_sizes(x.shape[dim], split_size), dim)


@defop("split_with_sizes", node="SplitWithSizesBackward0", view=True, outputs="many",
       sizes=SELF_SIZES)
def split_with_sizes(xp, x, split_sizes=(), dim=0):
    return _pieces(x, split_sizes, dim)


def _split_sizes(n: int, split_size: int) -> list:
    if n == 0:
        return [0]
    return [min(split_size, n - start) for start in range(0, n, split_size)]


def _pieces(x, sizes, dim: int) -> list:
    out, start = [], 0
    lead = (slice(None),) * dim
    for size in sizes:
        out.append(x[lead + (slice(start, start + size),)])
        start += size
    return out


@split.vjp
def split_vjp(ctx, *grads):
    return (cat(*grads, dim=ctx.dim, sizes=tuple(g.shape[ctx.dim] for g in grads)),)


split_with_sizes.vjp(split_vjp)


@defop("unbind", node="UnbindBackward0", view=True, outputs="many")
def unbind(xp, x, dim=0):
    # (the trailing ``...`` keeps a 0-d result a view: ``x[i]`` of a 1-d array is a copy)
    return [x[(slice(None),) * dim + (i, Ellipsis)] for i in range(x.shape[dim])]


@unbind.vjp
def unbind_vjp(ctx, *grads):
    return (stack_op(*grads, dim=ctx.dim),)


# Argument handling (torch's signatures) lives apart; it needs the ops above to exist.
from . import joining  # noqa: E402 - it needs the ops above

from . import composition as shape_compose  # noqa: E402 - it needs shape_args

FUNCTIONS = {**joining.FUNCTIONS, **shape_compose.FUNCTIONS}
METHODS = {**joining.METHODS, **shape_compose.METHODS}
stack = joining.stack
