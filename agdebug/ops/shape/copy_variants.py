"""torch's ``<view>_copy`` functions (``torch.t_copy``, ``torch.permute_copy``...): the view and
a copy, recorded as one node named after the view's with ``_copy`` appended
(``TBackward0_copy``), as torch's generated copy variants are; the derivative is the view's.

Each function first runs the view's own function on a detached alias: torch's checks and
messages are the view's, and an alias without grad records no node. The copying op then runs
with the keywords the view's op takes."""

from __future__ import annotations

import functools

import numpy as np

from ... import backend
from ...tensor import Tensor
from ..core.arguments import invalid_combination, must_be
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES, as_ints
from ..indexing import index_put, subscript
from ..linalg import matrix_structure
from ..nn import fold
from ..pointwise import copying
from ..tensor_methods import views
from . import as_strided as strided, signatures, splitting, views_copies as sh
from .signatures import _dim


def _copy_variant(op, **options):
    """``op``'s forward then a (C-contiguous) copy, under the node ``<op's node>_copy``.
    (``saved_as`` hides what torch's copy node keeps under no ``_saved_`` name: a shape it
    reads from the gradient, the input's geometry.)"""
    @functools.wraps(op.forward)
    def forward(xp, *args, **kwargs):
        out = op.forward(xp, *args, **kwargs)
        return [o.copy() for o in out] if isinstance(out, list) else out.copy()
    node = f"{op.node_class.__name__}_copy"
    variant = defop(f"{op.name}_copy", node=node, outputs=op.outputs, **options)(forward)
    variant.vjp(op.backward)
    return variant


alias_copy_op = _copy_variant(subscript.alias)
as_strided_copy_op = _copy_variant(strided.as_strided_op, saved_as={"self_geometry": None})
expand_copy_op = _copy_variant(sh.expand, sizes=SELF_SIZES, saved_as={"shape": None})
permute_copy_op = _copy_variant(sh.permute)
select_copy_op = _copy_variant(subscript.select, sizes=SELF_SIZES)
slice_copy_op = _copy_variant(subscript.slice_, sizes=SELF_SIZES)
split_copy_op = _copy_variant(sh.split, sizes=SELF_SIZES)
split_with_sizes_copy_op = _copy_variant(sh.split_with_sizes, sizes=SELF_SIZES)
squeeze_copy_op = _copy_variant(sh.squeeze, sizes=SELF_SIZES)
squeeze_dim_copy_op = _copy_variant(sh.squeeze_dim, sizes=SELF_SIZES)
squeeze_dims_copy_op = _copy_variant(sh.squeeze_dims, sizes=SELF_SIZES,
                                     saved_as={"dims": ("dim", as_ints)})
t_copy_op = _copy_variant(sh.t)
transpose_copy_op = _copy_variant(sh.transpose)
unbind_copy_op = _copy_variant(sh.unbind)
unfold_copy_op = _copy_variant(fold.unfold, sizes=SELF_SIZES)
unsqueeze_copy_op = _copy_variant(sh.unsqueeze)
view_copy_op = _copy_variant(sh.view, sizes=SELF_SIZES, saved_as={"shape": None})


@defop("detach_copy", node="NotImplemented")
def detach_copy_op(xp, x):
    """torch records detach_copy (unlike detach) under a node whose derivative is missing."""
    return x.copy()


@detach_copy_op.vjp
def detach_copy_vjp(ctx, grad):
    raise RuntimeError("derivative for aten::detach_copy is not implemented")


# ----------------------------------------------------------------------------- functions

def alias_copy(input):
    """``torch.alias_copy(input)``: a copy of ``input`` (``AliasBackward0_copy``)."""
    return alias_copy_op(input)


def detach_copy(input):
    """``torch.detach_copy(input)``: a copy; torch records it, with no derivative."""
    return detach_copy_op(input)


def t_copy(input):
    """``torch.t_copy(input)``: ``input.t()``, copied (``TBackward0_copy``)."""
    signatures.t(input.detach())
    return t_copy_op(input)


def transpose_copy(input, dim0, dim1):
    """``torch.transpose_copy(input, dim0, dim1)``: ``input.transpose(dim0, dim1)``, copied."""
    return transpose_copy_op(input, dim0=_dim(dim0, input.ndim), dim1=_dim(dim1, input.ndim))


def permute_copy(input, dims):
    """``torch.permute_copy(input, dims)``: ``input.permute(dims)``, copied.

    >>> import agdebug as ag
    >>> ag.permute_copy(ag.zeros(2, 3), (1, 0)).shape
    torch.Size([3, 2])
    """
    signatures.permute(input.detach(), dims)
    return permute_copy_op(input, dims=tuple(_dim(d, input.ndim) for d in dims))


def unsqueeze_copy(input, dim):
    """``torch.unsqueeze_copy(input, dim)``: ``input.unsqueeze(dim)``, copied."""
    return unsqueeze_copy_op(input, dim=_dim(dim, input.ndim + 1))


def squeeze_copy(input, dim=None):
    """``torch.squeeze_copy(input, dim=None)``: ``input.squeeze(dim)``, copied (the node is
    ``SqueezeBackward0_copy``, ``1`` for one dim, ``2`` for a tuple of them, as torch's)."""
    if not isinstance(input, Tensor) and dim is not None:   # (two overloads take a dim)
        raise invalid_combination("squeeze_copy", (input, dim), {})
    signatures.squeeze(input.detach(), dim)
    if dim is None:
        return squeeze_copy_op(input)
    if isinstance(dim, (tuple, list)):
        return squeeze_dims_copy_op(input, dims=tuple(_dim(d, input.ndim) for d in dim))
    return squeeze_dim_copy_op(input, dim=_dim(dim, input.ndim))


def expand_copy(input, size, *, implicit=False):
    """``torch.expand_copy(input, size)``: ``input.expand(size)``, copied."""
    target = views.expand(input.detach(), size).shape
    return expand_copy_op(input, shape=tuple(target))


def view_copy(input, *args, size=None, dtype=None):
    """``torch.view_copy(input, size)``: ``input`` in the new shape, copied (any layout, as
    torch's); ``view_copy(input, dtype)``: the bytes as ``dtype``, copied and never recorded,
    as ``view(dtype)`` is not."""
    keywords = {k: v for k, v in (("size", size), ("dtype", dtype)) if v is not None}
    given = (*args, *keywords.values())
    value = given[0] if len(given) == 1 else None
    if isinstance(input, Tensor) and isinstance(value, (tuple, list)) and dtype is None:
        target = views.infer_shape(views.shape_arg((value,)), input.numel())
        return view_copy_op(input, shape=target)
    if isinstance(input, Tensor) and backend.as_dtype(value) is not None and size is None:
        viewed = views.view_dtype(input, value)
        out = viewed.contiguous()
        return copying.clone(out) if out is viewed else out
    raise invalid_combination("view_copy", (input, *args), keywords)


def _int(function: str, param: str, position: int, value, optional=False) -> int | None:
    """torch's parser's refusal of anything but an int (or None, where ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise must_be(function, param, position, "int", value)
    return int(value)


def select_arguments(function: str, input, dim, index, at: int = 2) -> dict:
    """``select``'s keywords (dim and index wrapped), checked as torch checks them (``dim``
    is argument ``at`` of ``function``)."""
    dim, index = _int(function, "dim", at, dim), _int(function, "index", at + 1, index)
    index_put._select_method(input.detach(), dim, index)
    dim = _dim(dim, input.ndim)
    return {"dim": dim, "index": index % input.shape[dim]}


def select_copy(input, dim, index):
    """``torch.select_copy(input, dim, index)``: ``input.select(dim, index)``, copied."""
    return select_copy_op(input, **select_arguments("select_copy", input, dim, index))


def slice_arguments(function: str, input, dim, start, end, step, at: int = 2) -> dict:
    """``slice``'s keywords: the bounds clamped to the size, as Python's are."""
    dim, start = _int(function, "dim", at, dim), _int(function, "start", at + 1, start, True)
    end, step = _int(function, "end", at + 2, end, True), _int(function, "step", at + 3, step)
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = _dim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start, end, _ = slice(start, end).indices(input.shape[dim])
    return {"dim": dim, "start": start, "end": max(start, end), "step": step}


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """``torch.slice_copy(input, dim=0, start=None, end=None, step=1)``: ``input[start:end:
    step]`` along ``dim``, copied."""
    return slice_copy_op(input, **slice_arguments("slice_copy", input, dim, start, end, step))


def split_copy(input, split_size, dim=0):
    """``torch.split_copy(input, split_size, dim=0)``: ``input.split(split_size, dim)``, each
    piece copied (``SplitBackward0_copy``)."""
    split_size = _int("split_copy", "split_size", 2, split_size)
    dim, split_size = splitting.split_size_arguments(input, split_size, dim)
    return tuple(split_copy_op(input, split_size=split_size, dim=dim))


def split_with_sizes_copy(input, split_sizes, dim=0):
    """``torch.split_with_sizes_copy(input, split_sizes, dim=0)``: the pieces, copied."""
    dim, sizes = splitting.split_sizes_arguments(input, split_sizes, dim)
    return tuple(split_with_sizes_copy_op(input, split_sizes=sizes, dim=dim))


def unbind_copy(input, dim=0):
    """``torch.unbind_copy(input, dim=0)``: ``input.unbind(dim)``, each slice copied."""
    splitting.unbind(input.detach(), dim)
    return tuple(unbind_copy_op(input, dim=_dim(dim, input.ndim)))


def unfold_copy(input, dimension, size, step):
    """``torch.unfold_copy(input, dimension, size, step)``: ``input.unfold(...)``, copied."""
    fold.tensor_unfold(input.detach(), dimension, size, step)
    dimension = int(dimension) % max(input.ndim, 1)
    return unfold_copy_op(input, dimension=dimension, size=int(size), step=int(step))


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    """``torch.diagonal_copy(input, offset=0, dim1=0, dim2=1)``: the diagonal, copied."""
    dim1, dim2 = matrix_structure._two_dims(dim1, dim2, input.ndim)
    return matrix_structure.diagonal_copy_op(input, offset=int(offset), dim1=dim1, dim2=dim2)


def as_strided_copy(*args, **kwargs) -> Tensor:
    """``torch.as_strided_copy(input, size, stride, storage_offset=None)``: the strided view
    of ``input``'s storage, copied (``AsStridedBackward0_copy``)."""
    values = strided._parse("as_strided_copy", strided._FUNCTION, args, kwargs)
    x = values["input"]
    return as_strided_copy_op(x, **strided._arguments(x, values))


FUNCTIONS = {name: globals()[name] for name in (
    "alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
    "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy",
    "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy",
    "view_copy")}
