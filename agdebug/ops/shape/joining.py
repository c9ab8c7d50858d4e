"""torch's functions of many tensors (cat, stack, hstack, vstack...), and the table of
shape functions and methods of signatures.py, splitting.py and this module."""

from __future__ import annotations

from ...tensor import Tensor
from . import views_copies as sh
from .signatures import (_T, _dim, _expand, _grow_1d, _grow_2d, _mT, _reshape, _view, atleast_1d,
                         atleast_2d, atleast_3d, contiguous, flatten, flip, movedim, narrow,
                         permute, repeat, roll, squeeze, squeeze_, t, t_, transpose, transpose_,
                         unsqueeze, unsqueeze_)
from .splitting import chunk, split, split_with_sizes, unbind


# ----------------------------------------------------------------------------- many tensors

def cat(tensors, dim=0):
    """``agdebug.cat([a, b], dim)``: tensors joined along an existing dim.

    >>> import agdebug as ag
    >>> ag.cat([ag.zeros(2, 3), ag.ones(1, 3)]).shape
    torch.Size([3, 3])
    """
    tensors = tensor_sequence("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    # (the arrays' shapes: Tensor.shape would make a Size per read, some five per tensor)
    shapes = [x._data.shape for x in tensors]
    for i, shape in enumerate(shapes):
        if not shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    # torch still accepts (and skips) legacy empty 1-D tensors next to any others.
    skipped = [shape == (0,) for shape in shapes]
    if all(skipped):
        skipped = [False] * len(tensors)
    first = shapes[skipped.index(False)]
    dim = _dim(dim, len(first))
    for i, (shape, skip) in enumerate(zip(shapes, skipped)):
        if not skip and shape != first:   # (equal shapes pass at once)
            _check_cat_shape(first, shape, dim, i)
    sizes = tuple(None if skip else shape[dim] for shape, skip in zip(shapes, skipped))
    return sh.cat(*tensors, dim=dim, sizes=sizes)


def tensor_sequence(name: str, tensors) -> list:
    """``tensors`` as a list, refused as torch refuses it: a Tensor is not a sequence of
    tensors here (Python would iterate over its rows), nor is anything else not a list or
    tuple of Tensors."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(x).__name__}")
    return list(tensors)


def _check_cat_shape(first: tuple, shape: tuple, dim: int, i: int) -> None:
    if len(shape) != len(first):
        raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and "
                           f"{len(shape)}")
    for d, (a, b) in enumerate(zip(first, shape)):
        if d != dim and a != b:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                               f"Expected size {a} but got size {b} for tensor number {i} in "
                               "the list.")


def concat(tensors, dim=0):
    return cat(tensor_sequence("concat", tensors), dim)


def concatenate(tensors, axis=0):
    return cat(tensor_sequence("concatenate", tensors), axis)


def stack(tensors, dim=0):
    """``agdebug.stack([a, b], dim)``: equal-shaped tensors joined along a new dim.

    >>> import agdebug as ag
    >>> ag.stack([ag.zeros(2), ag.ones(2)], 1).shape
    torch.Size([2, 2])
    """
    tensors = tensor_sequence("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tuple(tensors[0].shape)
    for i, x in enumerate(tensors[1:], 1):
        if tuple(x.shape) != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(x.shape)} at entry {i}")
    return sh.stack_op(*tensors, dim=_dim(dim, len(first) + 1))


def _non_empty(name: str, tensors) -> list:
    tensors = tensor_sequence(name, tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    """Tensors joined column-wise: along dim 0 for 1-D inputs, dim 1 otherwise (scalars
    become 1-D first). A CatBackward0, as in torch.

    >>> import agdebug as ag
    >>> ag.hstack([ag.zeros(2, 1), ag.ones(2, 2)]).shape
    torch.Size([2, 3])
    """
    grown = [_grow_1d(x) for x in _non_empty("hstack", tensors)]
    return cat(grown, 0 if grown[0].ndim == 1 else 1)


def vstack(tensors):
    """Tensors joined row-wise, after making each at least 2-D (1-D: one row).

    >>> import agdebug as ag
    >>> ag.vstack([ag.zeros(3), ag.ones(3)]).shape
    torch.Size([2, 3])
    """
    return cat([_grow_2d(x) for x in _non_empty("vstack", tensors)], 0)


def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


def _roll_method(self, shifts, dims=None):
    return roll(self, shifts, dims, _method=True)


def _chunk_method(self, chunks, dim=0):
    return chunk(self, chunks, dim, _method=True)


def _movedim_method(self, source, destination):
    return movedim(self, source, destination, _method=True)


FUNCTIONS = {
    "flatten": flatten, "squeeze": squeeze, "unsqueeze": unsqueeze, "permute": permute,
    "transpose": transpose, "swapaxes": transpose, "swapdims": transpose, "t": t,
    "narrow": narrow, "flip": flip, "split": split, "split_with_sizes": split_with_sizes,
    "chunk": chunk, "unbind": unbind, "cat": cat, "concat": concat, "concatenate": concatenate,
    "stack": stack,
    "roll": roll, "movedim": movedim, "moveaxis": movedim, "atleast_1d": atleast_1d,
    "atleast_2d": atleast_2d, "atleast_3d": atleast_3d, "hstack": hstack, "vstack": vstack,
    "row_stack": vstack,
}

METHODS = {
    "flatten": flatten, "squeeze": squeeze, "unsqueeze": unsqueeze, "permute": permute,
    "transpose": transpose, "swapaxes": transpose, "swapdims": transpose, "t": t,
    "T": property(_T), "mT": property(_mT), "repeat": repeat, "narrow": narrow, "flip": flip,
    "contiguous": contiguous, "split": _split_method, "split_with_sizes": split_with_sizes,
    "chunk": _chunk_method, "unbind": unbind,
    "roll": _roll_method, "movedim": _movedim_method, "moveaxis": _movedim_method,
    "view": _view, "reshape": _reshape, "expand": _expand, "squeeze_": squeeze_,
    "unsqueeze_": unsqueeze_, "transpose_": transpose_, "swapdims_": transpose_,
    "swapaxes_": transpose_, "t_": t_,
}
