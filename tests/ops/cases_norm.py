"""Cases for agdebug/ops/nn/normalization.py (see harness.py): layer_norm, group_norm, batch_norm.

The running statistics are made inside each case, so every evaluation starts from the same
ones (batch_norm updates them in place).
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(11)
X = rng.standard_normal((2, 4, 3))
IMG = rng.standard_normal((2, 4, 3, 2))
W3, B3 = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
W43 = rng.uniform(0.5, 1.5, (4, 3))
W4, B4 = rng.uniform(0.5, 1.5, 4), rng.standard_normal(4)
MEAN4, VAR4 = rng.standard_normal(4), rng.uniform(0.5, 2.0, 4)


def F(t):
    return t.nn.functional


def _stats(t):
    return t.tensor(MEAN4), t.tensor(VAR4)


def _bn_train(t, x, w, b):
    mean, var = _stats(t)
    return F(t).batch_norm(x, mean, var, w, b, training=True, momentum=0.3)


def _bn_eval(t, x, w, b):
    mean, var = _stats(t)
    return F(t).batch_norm(x, mean, var, w, b, training=False)


CASES = [
    Case("native_layer_norm", lambda t, x: F(t).layer_norm(x, (3,)), [X]),
    Case("native_layer_norm", lambda t, x, w, b: F(t).layer_norm(x, (3,), w, b) ** 2,
         [X, W3, B3], id="layer_norm_affine"),
    Case("native_layer_norm", lambda t, x, w: F(t).layer_norm(x, [4, 3], w, eps=0.1),
         [X, W43], id="layer_norm_2d_weight_only"),
    Case("native_layer_norm", lambda t, x, b: F(t).layer_norm(x, (2, 4, 3), None, b),
         [X, rng.standard_normal((2, 4, 3))], id="layer_norm_all_dims_bias_only"),
    Case("native_group_norm", lambda t, x: F(t).group_norm(x, 2), [IMG]),
    Case("native_group_norm", lambda t, x, w, b: F(t).group_norm(x, 4, w, b) ** 2,
         [IMG, W4, B4], id="group_norm_affine"),
    Case("native_group_norm", lambda t, x, w, b: F(t).group_norm(x, 1, w, b, eps=0.1),
         [X, W4, B4], id="group_norm_3d_one_group"),
    Case("native_batch_norm", _bn_train, [IMG, W4, B4]),
    Case("native_batch_norm", lambda t, x, w, b: _bn_train(t, x, w, b) ** 2, [X, W4, B4],
         id="batch_norm_train_3d"),
    Case("native_batch_norm", lambda t, x: F(t).batch_norm(x, None, None, training=True),
         [X[:, :, 0]], id="batch_norm_no_stats"),
    Case("native_batch_norm", lambda t, x, w, b: _bn_eval(t, x, w, b) ** 2, [IMG, W4, B4],
         id="batch_norm_eval"),
    Case("native_batch_norm", lambda t, x: F(t).instance_norm(x) ** 2, [IMG],
         grad_fn="PowBackward0", id="instance_norm"),
    Case("native_batch_norm",
         lambda t, x, w, b: F(t).instance_norm(x, *_stats(t), w, b, momentum=0.2),
         [X, W4, B4], grad_fn="ViewBackward0", id="instance_norm_affine_stats"),
]
