"""Cases for agdebug/ops/nn/grid_sample.py (see harness.py): ``F.grid_sample`` on 4-D and 5-D
inputs and its derivative ops (reached through a first derivative, so that the harness
checks the second and third derivatives too); and ``F.affine_grid`` in 3-D.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(31)
IMAGE = rng.standard_normal((1, 2, 3, 4))
# points inside and outside [-1, 1], none on a pixel boundary nor a padding border (where
# the derivatives jump and central differences straddle the jump)
GRID = rng.uniform(-1.3, 1.3, (1, 2, 3, 2))
# smaller for the derivative op, whose third derivative the harness takes numerically
SMALL_IMAGE = rng.standard_normal((1, 1, 3, 3))
SMALL_GRID = rng.uniform(-1.3, 1.3, (1, 1, 2, 2))
GRAD = rng.standard_normal((1, 1, 1, 2))


def _sample(mode, padding_mode, align_corners):
    def fn(t, x, grid):
        return t.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding_mode,
                                           align_corners=align_corners)
    return fn


def _leaf(t):
    """``t`` itself where it requires grad (so that the gradients depend on it), else a leaf
    that does (the harness's numeric evaluations, under no_grad)."""
    return t if t.requires_grad else t.detach().requires_grad_()


def _sample_grads(mode, padding_mode, align_corners):
    def fn(t, g, x, grid):
        with t.enable_grad():
            x, grid = _leaf(x), _leaf(grid)
            y = _sample(mode, padding_mode, align_corners)(t, x, grid)
            return t.autograd.grad(y, (x, grid), g, create_graph=True)
    return fn


SETTINGS = [("bilinear", "zeros", False), ("bicubic", "reflection", True),
            ("nearest", "border", False), ("bilinear", "reflection", False),
            ("bicubic", "border", False)]
DERIVATIVE_SETTINGS = SETTINGS[:4]

CASES = []
for _mode, _padding, _align in SETTINGS:
    _id = f"{_mode}_{_padding}_{'align' if _align else 'no_align'}"
    CASES.append(Case("grid_sampler_2d", _sample(_mode, _padding, _align), [IMAGE, GRID],
                      grad_fn="GridSampler2DBackward0", id=f"grid_sampler_2d_{_id}"))
    if (_mode, _padding, _align) in DERIVATIVE_SETTINGS:
        CASES.append(Case("grid_sampler_2d_backward", _sample_grads(_mode, _padding, _align),
                          [GRAD, SMALL_IMAGE, SMALL_GRID],
                          grad_fn="GridSampler2DBackwardBackward0",
                          id=f"grid_sampler_2d_backward_{_id}"))

# 5-D: trilinear and nearest only (torch refuses bicubic there)
VOLUME = rng.standard_normal((1, 2, 2, 3, 3))
VOLUME_GRID = rng.uniform(-1.3, 1.3, (1, 1, 2, 2, 3))
SMALL_VOLUME = rng.standard_normal((1, 1, 2, 2, 2))
SMALL_VOLUME_GRID = rng.uniform(-1.3, 1.3, (1, 1, 1, 2, 3))
VOLUME_GRAD = rng.standard_normal((1, 1, 1, 1, 2))
SETTINGS_3D = [("bilinear", "zeros", False), ("bilinear", "border", True),
               ("bilinear", "reflection", False), ("nearest", "reflection", True)]

for _mode, _padding, _align in SETTINGS_3D:
    _id = f"{_mode}_{_padding}_{'align' if _align else 'no_align'}"
    CASES.append(Case("grid_sampler_3d", _sample(_mode, _padding, _align),
                      [VOLUME, VOLUME_GRID], grad_fn="GridSampler3DBackward0",
                      id=f"grid_sampler_3d_{_id}"))
    CASES.append(Case("grid_sampler_3d_backward", _sample_grads(_mode, _padding, _align),
                      [VOLUME_GRAD, SMALL_VOLUME, SMALL_VOLUME_GRID],
                      grad_fn="GridSampler3DBackwardBackward0",
                      id=f"grid_sampler_3d_backward_{_id}"))

THETA_3D = rng.standard_normal((2, 3, 4))
CASES += [
    Case("affine_grid", lambda t, th: t.nn.functional.affine_grid(th, (2, 1, 2, 3, 4),
                                                                  align_corners=False),
         [THETA_3D], grad_fn="AffineGridGeneratorBackward0", id="affine_grid_3d"),
    Case("affine_grid", lambda t, th: t.nn.functional.affine_grid(th, [2, 5, 3, 1, 2],
                                                                  align_corners=True),
         [THETA_3D], grad_fn="AffineGridGeneratorBackward0", id="affine_grid_3d_align_unit"),
]
