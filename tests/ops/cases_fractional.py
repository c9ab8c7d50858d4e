"""Cases for agdebug/ops/nn/pooling_fractional.py (see harness.py): fractional max pooling on
images and volumes with fixed ``_random_samples`` (so torch pools the same windows), and the
scatter its derivative records."""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(47)
IMAGES = rng.standard_normal((2, 3, 7, 6))
SAMPLES2 = rng.random((2, 3, 2))
VOLUMES = rng.standard_normal((2, 2, 5, 6, 4))
SAMPLES3 = rng.random((2, 2, 3))


def F(t):
    return t.nn.functional


def _u(t, samples):
    return t.tensor(samples)


def _pool2d_grad(t, g, x):
    """The derivative of fractional_max_pool2d: a scatter (FractionalMaxPool2DBackwardBackward0)."""
    with t.enable_grad():
        x = x.detach().requires_grad_()
        y = F(t).fractional_max_pool2d(x, 2, (3, 4), _random_samples=_u(t, SAMPLES2))
        return t.autograd.grad(y, x, g, create_graph=True)[0]


def _pool3d_grad(t, g, x):
    with t.enable_grad():
        x = x.detach().requires_grad_()
        y = F(t).fractional_max_pool3d(x, 2, (3, 4, 2), _random_samples=_u(t, SAMPLES3))
        return t.autograd.grad(y, x, g, create_graph=True)[0]


CASES = [
    Case("fractional_max_pool2d", lambda t, x: F(t).fractional_max_pool2d(
        x, 2, (3, 4), _random_samples=_u(t, SAMPLES2)), [IMAGES]),
    Case("fractional_max_pool2d", lambda t, x: F(t).fractional_max_pool2d(
        x[0], (3, 2), output_ratio=(0.5, 0.5), _random_samples=_u(t, SAMPLES2[:1])),
         [IMAGES], id="fractional_max_pool2d_unbatched_ratio"),
    Case("fractional_max_pool2d", lambda t, x: t.nn.FractionalMaxPool2d(
        2, 4, return_indices=True, _random_samples=_u(t, SAMPLES2))(x), [IMAGES],
         id="fractional_max_pool2d_module_indices"),
    Case("fractional_max_pool2d_backward", _pool2d_grad,
         [rng.standard_normal((2, 3, 3, 4)), IMAGES],
         grad_fn="FractionalMaxPool2DBackwardBackward0"),
    Case("fractional_max_pool3d", lambda t, x: F(t).fractional_max_pool3d(
        x, 2, (3, 4, 2), _random_samples=_u(t, SAMPLES3)), [VOLUMES]),
    Case("fractional_max_pool3d", lambda t, x: t.nn.FractionalMaxPool3d(
        (1, 2, 2), output_ratio=0.5, _random_samples=_u(t, SAMPLES3))(x[1]), [VOLUMES],
         id="fractional_max_pool3d_unbatched_module_ratio"),
    Case("fractional_max_pool3d_backward", _pool3d_grad,
         [rng.standard_normal((2, 2, 3, 4, 2)), VOLUMES],
         grad_fn="FractionalMaxPool3DBackwardBackward0"),
]
