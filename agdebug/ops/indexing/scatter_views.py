"""torch's view scatters: ``slice_scatter``, ``select_scatter``, ``diagonal_scatter`` and
``as_strided_scatter``, each ``input`` copied (its layout kept, as torch's clone keeps it) with
``src`` written into one view of the copy, under torch's nodes (``SliceScatterBackward0``...).

The derivative, torch's: the gradient with the view zeroed for ``input``, the view of the
gradient for ``src`` (as_strided_scatter's is torch's own, see its derivative); both are these
ops and views, so they differentiate again."""

from __future__ import annotations

from ...graph.grad_mode import MODE, no_grad
from ...tensor import Tensor
from ..core.gradients import needs, zeros_grad
from ..core.registry import defop
from ..linalg import matrix_structure as diagonals
from ..shape import as_strided as strided, copy_variants
from . import subscript

_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
_NOT_CONTIGUOUS = (
    '!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at "/__w/pytorch/'
    'pytorch/aten/src/ATen/native/TensorShape.cpp":4754, please report a bug to PyTorch. '
    "as_strided_scatter is currently only supported for contiguous inputs")


def _scatter(x, src, region):
    """A copy of ``x`` with ``src`` written into ``region(copy)`` (a view)."""
    out = x.copy(order="K")
    view = region(out)
    if view.shape != src.shape:
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")
    view[...] = src
    return out


@defop("slice_scatter", node="SliceScatterBackward0")
def slice_scatter_op(xp, x, src, dim=0, start=0, end=0, step=1):
    return _scatter(x, src, lambda out: out[(slice(None),) * dim + (slice(start, end, step),)])


@defop("select_scatter", node="SelectScatterBackward0")
def select_scatter_op(xp, x, src, dim=0, index=0):
    return _scatter(x, src, lambda out: out[(slice(None),) * dim + (index, Ellipsis)])


@defop("diagonal_scatter", node="DiagonalScatterBackward0")
def diagonal_scatter_op(xp, x, src, offset=0, dim1=0, dim2=1):
    return _scatter(x, src, lambda out: diagonals._diagonal_view(xp, out, offset, dim1, dim2))


@defop("as_strided_scatter", node="AsStridedScatterBackward0")
def as_strided_scatter_op(xp, x, src, size=(), stride=(), storage_offset=None):
    return _scatter(x, src, lambda out: _strided_region(xp, out, size, stride, storage_offset))


def _strided_region(xp, out, size, stride, storage_offset):
    """The view of the copy's own storage (offset 0 unless given), checked as torch's."""
    offset = storage_offset or 0
    strided.check_geometry(Tensor._wrap(out), size, stride, offset)
    view = strided.strided_view(xp, out, size, stride, offset)
    if not getattr(view.flags, "writeable", True):
        raise RuntimeError(_OVERLAP)
    return view


def _scatter_vjp(ctx, grad, view, scatter, attrs: dict):
    """torch's derivative of a view scatter: ``scatter(grad, 0, ...)`` and ``view(grad)``."""
    piece = view(grad)
    grad_x = scatter(grad, zeros_grad(grad, tuple(piece.shape)), **attrs) if needs(ctx, 0) \
        else None
    return grad_x, piece if needs(ctx, 1) else None


@slice_scatter_op.vjp
def slice_scatter_vjp(ctx, grad):
    attrs = {"dim": ctx.dim, "start": ctx.start, "end": ctx.end, "step": ctx.step}
    return _scatter_vjp(ctx, grad, lambda g: subscript.slice_(g, **attrs), slice_scatter_op,
                        attrs)


@select_scatter_op.vjp
def select_scatter_vjp(ctx, grad):
    attrs = {"dim": ctx.dim, "index": ctx.index}
    return _scatter_vjp(ctx, grad, lambda g: subscript.select(g, **attrs), select_scatter_op,
                        attrs)


@diagonal_scatter_op.vjp
def diagonal_scatter_vjp(ctx, grad):
    attrs = {"offset": ctx.offset, "dim1": ctx.dim1, "dim2": ctx.dim2}
    return _scatter_vjp(ctx, grad, lambda g: diagonals.diagonal_op(g, **attrs),
                        diagonal_scatter_op, attrs)


@as_strided_scatter_op.vjp
def as_strided_scatter_vjp(ctx, grad):
    """torch's ``as_strided_scatter_backward``, as it is: ``src`` gets the view of the
    (contiguous) gradient, and so does ``input``, zero elsewhere. That is not the derivative
    for ``input`` (the region ``src`` overwrote should get zero, the rest the gradient): torch
    knows (its gradcheck of the op is an expected failure, pytorch#88105); agdebug keeps its
    numbers, as it keeps torch's graph."""
    attrs = {"size": ctx.size, "stride": ctx.stride, "storage_offset": ctx.storage_offset}
    grad = grad.contiguous()
    piece = _strided_piece(grad, attrs)
    grad_x = as_strided_scatter_op(zeros_grad(grad, tuple(grad.shape)), piece, **attrs) \
        if needs(ctx, 0) else None
    return grad_x, piece if needs(ctx, 1) else None


def _strided_piece(grad: Tensor, attrs: dict) -> Tensor:
    """The forward's view, of the (contiguous) gradient: offsets count from its start."""
    geometry = strided.geometry(grad)
    offset = geometry[2] + (attrs["storage_offset"] or 0)
    return strided.as_strided_op(grad, size=attrs["size"], stride=attrs["stride"],
                                 storage_offset=offset, self_geometry=geometry).contiguous()


# ----------------------------------------------------------------------------- functions

def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``src`` in place of ``input[start:end:step]`` along ``dim`` (a new
    tensor).

    >>> import agdebug as ag
    >>> ag.slice_scatter(ag.zeros(4), ag.ones(2), start=1, end=3)
    tensor([0., 1., 1., 0.])
    """
    attrs = copy_variants.slice_arguments("slice_scatter", input, dim, start, end, step, at=3)
    return _run(slice_scatter_op, input, src, attrs)


def select_scatter(input, src, dim, index):
    """``input`` with ``src`` in place of ``input.select(dim, index)`` (a new tensor)."""
    attrs = copy_variants.select_arguments("select_scatter", input, dim, index, at=3)
    return _run(select_scatter_op, input, src, attrs)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with ``src`` in place of ``input.diagonal(offset, dim1, dim2)``."""
    dim1, dim2 = diagonals._two_dims(dim1, dim2, input.ndim)
    return _run(diagonal_scatter_op, input, src, {"offset": int(offset), "dim1": dim1,
                                                  "dim2": dim2})


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` with ``src`` in place of ``input.as_strided(size, stride, storage_offset)``
    of its copy (whose storage offset is 0)."""
    size = strided._int_list("as_strided_scatter", "size", 3, size)
    stride = strided._int_list("as_strided_scatter", "stride", 4, stride)
    storage_offset = strided._check_offset("as_strided_scatter", "storage_offset", 5,
                                           storage_offset)
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError(_NOT_CONTIGUOUS)
    return _run(as_strided_scatter_op, input, src, {"size": size, "stride": stride,
                                                    "storage_offset": storage_offset})


def _run(op, input, src, attrs: dict) -> Tensor:
    """``op(input, src, **attrs)``, or torch's refusal of a graph through a result whose dtype
    has no gradients (an integer ``input``, a ``src`` that requires grad), raised after the
    op's own checks as torch's is. (A ``src`` of the wrong type fails reading
    ``requires_grad``: torch's words come from the function's wrapper, core/arguments.py.)"""
    if src.requires_grad and MODE.grad_enabled and not input.is_floating_point():
        with no_grad():
            op(input, src, **attrs)
        raise RuntimeError(f"Autograd not support dtype: {input.dtype._legacy}")
    return op(input, src, **attrs)


_FUNCTIONS = (slice_scatter, select_scatter, diagonal_scatter, as_strided_scatter)
FUNCTIONS = {f.__name__: f for f in _FUNCTIONS}
METHODS = dict(FUNCTIONS)   # ``x.slice_scatter(src, ...)``: ``input`` is ``self``
