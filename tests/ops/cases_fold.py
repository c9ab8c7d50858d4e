"""Cases for agdebug/ops/fold.py and agdebug/ops/pooling_extra.py (see harness.py):
im2col / col2im, pixel_shuffle / pixel_unshuffle, the Tensor.unfold view and its backward,
adaptive max pooling and max unpooling, each with the op its derivative records.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(31)
IMG = rng.standard_normal((2, 2, 3, 4))
COLS = rng.standard_normal((1, 8, 6))          # C=2, kernel (2, 2), blocks 2 * 3 on (3, 4)
COLS_PADDED = rng.standard_normal((6, 2))      # C=1, kernel (2, 3), padding (1, 0), stride 2


def F(t):
    return t.nn.functional


def _leaf(x):
    return x.detach().requires_grad_()


def _unfold_grad(t, g, x):
    """The derivative of unfold (a col2im, Col2ImBackward0) reached from its input."""
    with t.enable_grad():
        x = _leaf(x)
        y = F(t).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
        return t.autograd.grad(y, x, g, create_graph=True)[0]


CASES = [
    Case("im2col", lambda t, x: F(t).unfold(x, 2), [IMG]),
    Case("im2col", lambda t, x: F(t).unfold(x, (2, 3), dilation=(1, 2), padding=1,
                                             stride=(2, 1)), [IMG], id="im2col_geometry"),
    Case("im2col", lambda t, x: F(t).unfold(x[0], (3, 1), padding=(1, 0)), [IMG],
         id="im2col_unbatched"),
    Case("col2im", lambda t, c: F(t).fold(c, (3, 4), 2), [COLS]),
    Case("col2im", lambda t, c: F(t).fold(c, (3, 4), (2, 3), padding=(1, 0), stride=2),
         [COLS_PADDED], id="col2im_unbatched_geometry"),
    Case("col2im", _unfold_grad, [rng.standard_normal((2, 12, 4)), IMG],
         grad_fn="Col2ImBackward0", id="col2im_as_unfold_derivative"),
]
