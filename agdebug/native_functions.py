"""aten functions torch exposes at its top level, built from agdebug's ops: ``constant_pad_nd``
(what ``F.pad`` runs in constant mode, with aten's own checks), and ``frobenius_norm`` and
``nuclear_norm``, which torch keeps for JIT compatibility (each warns once per process, at the
caller's line, as torch's ``TORCH_WARN_ONCE`` does)."""

from __future__ import annotations

import warnings

from . import linalg
from .ops.core.arguments import warning_level
from .ops.core.checks import dims_of
from .ops.nn import loss_pieces
from .ops.shape import signatures

_WARNED: set = set()
_DEPRECATED = ("at::{name} is deprecated and it is just left for JIT compatibility. It will be "
               "removed in a future PyTorch release. Please use `{use}` instead")


def _warn_once(name: str, use: str) -> None:
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(_DEPRECATED.format(name=name, use=use), UserWarning,
                      stacklevel=warning_level(3))


def constant_pad_nd(input, pad, value=0):
    """``input`` padded with ``value``: ``pad`` holds (before, after) pairs from the last dim
    backwards; a negative one crops (``ConstantPadNdBackward0``).

    >>> import agdebug as ag
    >>> ag.constant_pad_nd(ag.ones(2), (1, 2))
    tensor([0., 1., 1., 0., 0.])
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{input.ndim}dimensions.")
    _check_crops(input, pad)
    return loss_pieces.constant_pad_nd(input, pad=pad, value=value)


def _check_crops(input, pad: tuple) -> None:
    """aten's order: the negative pads narrow first (narrow's errors), then each new size."""
    cropped = input.detach()
    dims = [input.ndim - 1 - i for i in range(len(pad) // 2)]
    for i, d in enumerate(dims):
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0:
            cropped = signatures.narrow(cropped, d, -lo, cropped.shape[d] + lo)
        if hi < 0:
            cropped = signatures.narrow(cropped, d, 0, cropped.shape[d] + hi)
    for i, d in enumerate(dims):
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if input.shape[d] + lo + hi < 0:
            raise RuntimeError(f"The input size {input.shape[d]}, plus negative padding {lo} and "
                               f"{hi} resulted in a negative output size, which is invalid. "
                               f"Check dimension {d} of your input.")


def frobenius_norm(input, dim, keepdim=False):
    """The 2-norm over ``dim`` (at most two dims), under torch's node ``NormBackward1``;
    deprecated in torch for ``linalg.vector_norm(A, 2., dim, keepdim)``."""
    _warn_once("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           "instead.")
    if not input.is_floating_point():
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {input.dtype._legacy} instead.")
    wrapped = dims_of(dims, input.ndim) if dims else None
    if wrapped is not None and len(set(wrapped)) != len(wrapped):
        repeated = next(d for d in wrapped if wrapped.count(d) > 1)
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    return loss_pieces.norm_p_dim(input, ord=2.0, dim=wrapped, keepdim=bool(keepdim))


def nuclear_norm(input, dim=None, keepdim=False):
    """``nuclear_norm(input, keepdim=False)`` (the last two dims) or ``nuclear_norm(input,
    dim, keepdim=False)``: the sum of the singular values; deprecated in torch for
    ``linalg.matrix_norm(A, 'nuc', dim, keepdim)``."""
    _warn_once("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if isinstance(dim, bool):   # the overload nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    if dim is not None and len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dim)}")
    return linalg.matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else tuple(dim),
                              keepdim=keepdim)
