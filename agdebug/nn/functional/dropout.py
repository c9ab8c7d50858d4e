"""Dropouts: ``F.dropout``, ``F.dropout1d/2d/3d``, ``F.alpha_dropout`` and
``F.feature_alpha_dropout``.

torch builds them from ops (aten's ``_dropout_impl``): the input times a noise tensor
(MulBackward0), plus an offset for the alpha variants (AddBackward0), so they are built
here from the same ops. A feature dropout draws one noise value per (sample, channel), so
whole channels are zeroed. The noise comes from agdebug's generator
(``agdebug.manual_seed`` makes it repeatable).

>>> import agdebug as ag
>>> x = ag.ones(2, 3, 4)
>>> ag.nn.functional.dropout1d(x, 0.5, training=False) is x
True
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import backend, creation
from ...ops.pointwise import arithmetic as ew
from ...tensor import Tensor
from ._parser import torch_words

__all__ = ["alpha_dropout", "dropout", "dropout1d", "dropout2d", "dropout3d",
           "feature_alpha_dropout"]


# ----------------------------------------------------------------------------- dropout

def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p).

    The mask comes from agdebug's generator (``agdebug.manual_seed`` makes it repeatable).

    >>> import agdebug as ag
    >>> x = ag.ones(4)
    >>> ag.nn.functional.dropout(x, 0.5, training=False) is x
    True
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if 0.0 < p < 1.0 and not input.is_floating_point():   # torch scales by 1 / (1 - p) in place
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype._legacy}")
    keep = creation.generator().random(tuple(input.shape)) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    mask = backend.move_array((keep * scale).astype(input._data.dtype), input.device)
    if inplace:
        return input.mul_(Tensor._wrap(mask))
    return ew.mul(input, Tensor._wrap(mask))


_ALPHA = 1.7580993408473766   # SELU's -scale * alpha: the value a dropped unit takes


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input, array):
    """``array`` with the input's dtype on its device, as a tensor outside any graph."""
    array = np.asarray(array).astype(input._data.dtype)
    return Tensor._wrap(backend.move_array(array, input.device))


def _dropout_impl(input, p, training: bool, inplace: bool, feature: bool, alpha: bool):
    """aten's ``_dropout_impl``, in its order."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:   # a 0-dim zero of the input's dtype
        zero = _noise(input, 0)
        return input.mul_(zero) if inplace else ew.mul(input, zero)
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not input.is_floating_point():   # the noise, of the input's dtype, is scaled in place
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype._legacy}")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    keep = creation.generator().random(shape) >= p   # bernoulli(1 - p)
    if not alpha:
        noise = _noise(input, keep / (1 - p))
        return input.mul_(noise) if inplace else ew.mul(input, noise)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    noise = _noise(input, keep * a)
    offset = _noise(input, (keep - 1.0) * (_ALPHA * a) + _ALPHA * a * p)
    out = input.mul_(noise) if inplace else ew.mul(input, noise)
    return out.add_(offset)


def _feature_dropout(input, p, training, inplace):
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=False)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) inputs with probability ``p``, scaling the
    rest by 1 / (1 - p)."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _unbatched(input, 3, p, training, inplace)


def _unbatched(input, batched_dim: int, p, training, inplace):
    """torch's handling of a missing batch dim: unsqueeze, drop, squeeze (even in eval)."""
    if input.ndim == batched_dim:
        return _feature_dropout(input, p, training, inplace)
    if inplace:   # torch reshapes the input itself, and returns it
        return _feature_dropout(input.unsqueeze_(0), p, training, True).squeeze_(0)
    return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)


def _warn_dims(name: str, spatial: str, dims: tuple) -> None:
    warnings.warn(
        f"{name}: Received a {dims[0]}-D input to {name}, which is deprecated and will result "
        "in an error in a future release. To retain the behavior and silence this warning, "
        f"please use dropout instead. Note that {name} exists to provide channel-wise dropout "
        f"on inputs with {spatial} spatial dimensions, a channel dimension, and an optional "
        f"batch dimension (i.e. {dims[1]}D or {dims[2]}D inputs).", stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) inputs with probability ``p``, scaling the rest by
    1 / (1 - p) (a 3D input is read as (N, C, L), as torch does, with a warning).

    >>> import agdebug as ag
    >>> ag.nn.functional.dropout2d(ag.ones(1, 2, 2, 2), p=1.0).sum()
    tensor(0.)
    """
    _check_p(p)
    if input.ndim not in (3, 4):
        _warn_dims("dropout2d", "2", (input.ndim, 3, 4))
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability ``p``,
    scaling the rest by 1 / (1 - p)."""
    _check_p(p)
    if input.ndim not in (4, 5):
        _warn_dims("dropout3d", "3", (input.ndim, 4, 5))
    return _unbatched(input, 5, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped units take SELU's negative saturation value and an
    affine map keeps the mean and variance (training is off by default, as in torch)."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout with one draw per (sample, channel): whole channels are dropped."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


torch_words(globals(), ["dropout"])
