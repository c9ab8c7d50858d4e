"""Sampling and spatial transformers: ``F.gumbel_softmax`` (built from ops, as torch builds
it), ``F.affine_grid`` and ``F.grid_sample`` (one node each; the maths is in
:mod:`agdebug.ops.nn.affine_grid` and :mod:`agdebug.ops.nn.grid_sample`).

>>> import agdebug as ag
>>> _ = ag.manual_seed(0)
>>> y = ag.nn.functional.gumbel_softmax(ag.zeros(2, 3, requires_grad=True), hard=True)
>>> y.sum(-1), y.grad_fn.name()
(tensor([1., 1.], grad_fn=<SumBackward1>), 'AddBackward0')
"""

from __future__ import annotations

import warnings

from ... import backend, creation
from ...ops.nn import grid_sample as grid_ops
from ...ops.nn import affine_grid as ops
from ...ops.tensor_methods.operators import _require_tensor
from ...ops.core.checks import kernel_missing

__all__ = ["affine_grid", "grid_sample", "gumbel_softmax"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                  "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")
_MODES = {"bilinear": grid_ops.BILINEAR, "nearest": grid_ops.NEAREST,
          "bicubic": grid_ops.BICUBIC}
_PADDINGS = {"zeros": grid_ops.ZEROS, "border": grid_ops.BORDER,
             "reflection": grid_ops.REFLECTION}


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample from the Gumbel-softmax distribution over ``dim``: soft (a softmax of the
    noisy logits / tau) or, with ``hard=True``, one-hot rows whose gradient is the soft
    sample's (the straight-through estimator). Draws from agdebug's generator.

    >>> import agdebug as ag
    >>> _ = ag.manual_seed(0)
    >>> ag.nn.functional.gumbel_softmax(ag.tensor([[0.0, 9.0]]), hard=True)
    tensor([[0., 1.]])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -creation.empty_like(logits).exponential_().log()   # ~Gumbel(0, 1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) of a batch of 2-D affine matrices ``theta`` (N, 2, 3)
    for an output of ``size`` (N, C, H, W), in [-1, 1] coordinates; or (N, D, H, W, 3) for
    3-D ones (N, 3, 4) and a ``size`` (N, C, D, H, W) (AffineGridGeneratorBackward0).

    >>> import agdebug as ag
    >>> identity = ag.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> ag.nn.functional.affine_grid(identity, (1, 1, 1, 2), align_corners=False)
    tensor([[[[-0.5000,  0.0000],
              [ 0.5000,  0.0000]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    _check_affine(theta, size, align_corners)
    size = tuple(int(s) for s in size)
    return ops.affine_grid(theta, size=size, align_corners=bool(align_corners))


def _check_affine(theta, size, align_corners) -> None:
    """torch's ``affine_grid`` checks, in its order and words (``size`` shown as given)."""
    dims = len(size) - 2
    if dims not in (2, 3):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (dims, dims + 1):
        raise ValueError(f"Expected a batch of {dims}D affine matrices of shape "
                         f"Nx{dims}x{dims + 1} for size {size}. "
                         f"Got torch.Size({list(theta.shape)}).")
    if align_corners and min(size[-dims:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=3)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {dims + 1}] but got: [{theta.shape[0]}, {dims + 1}].")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """The values of ``input`` (N, C, H, W) at the points of ``grid`` (N, H_out, W_out, 2),
    given as (x, y) in [-1, 1]; points outside read the padding (GridSampler2DBackward0).
    On 5-D inputs (N, C, D, H, W) the points are (x, y, z) in a grid (N, D_out, H_out,
    W_out, 3), and ``mode='bilinear'`` is trilinear (GridSampler3DBackward0).

    >>> import agdebug as ag
    >>> image = ag.tensor([[[[0.0, 10.0]]]])
    >>> ag.nn.functional.grid_sample(image, ag.tensor([[[[0.0, 0.0]]]]), align_corners=True)
    tensor([[[[5.]]]])
    """
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_grid_sampler(input, grid, mode, align_corners)
    sampler = grid_ops.grid_sampler_2d if input.ndim == 4 else grid_ops.grid_sampler_3d
    return sampler(input, grid, interpolation_mode=_MODES[mode],
                   padding_mode=_PADDINGS[padding_mode], align_corners=align_corners)


def _check_grid_sampler(input, grid, mode: str, align_corners) -> None:
    """torch's ``grid_sampler`` argument checks, in its order and words."""
    _require_tensor("grid_sampler", "input", 1, input)
    _require_tensor("grid_sampler", "grid", 2, grid)
    if not isinstance(align_corners, bool):
        raise TypeError("grid_sampler(): argument 'align_corners' (position 5) must be bool, "
                        f"not {type(align_corners).__name__}")
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got {sizes}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    for d in range(2, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    dims = 4 if input.ndim == 4 else 5
    if input.ndim != dims or grid.ndim != dims:
        raise RuntimeError(f"grid_sampler(): expected {dims}D input and grid with same number "
                           f"of dimensions, but got {sizes}")
    if dims == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        kernel = "grid_sampler_2d_cpu_kernel_impl" if dims == 4 else "grid_sampler3d_cpu"
        raise kernel_missing(kernel, input.dtype)
    if grid.dtype != input.dtype:
        names = (backend.get_dtype(t._data.dtype)._legacy for t in (input, grid))
        raise RuntimeError("expected scalar type {} but found {}".format(*names))
