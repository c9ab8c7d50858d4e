"""Cases for agdebug/ops/nn/attention.py (see harness.py): the two nodes of torch's math
attention path, aten's ``mul.Scalar`` and ``_safe_softmax``."""

from __future__ import annotations

import numpy as np

from agdebug.ops import OPS

from .harness import Case

rng = np.random.default_rng(11)
A = rng.standard_normal((2, 3))
B = rng.standard_normal((3, 2, 4))


def _mul_scalar(t, x, other):
    if t.__name__ == "torch":
        return t.ops.aten.mul.Scalar(x, other)
    return OPS["mul_scalar"](x, other=other)


def _safe_softmax(t, x, dim):
    if t.__name__ == "torch":
        return t._safe_softmax(x, dim)
    return OPS["_safe_softmax"](x, dim=dim)


def _masked(t, x):
    """A row of -inf (every key masked out): the output row is 0 and so is its gradient."""
    row = t.zeros_like(x)
    row[1] = float("-inf")
    return _safe_softmax(t, x + row, -1)


CASES = [
    Case("mul_scalar", lambda t, x: _mul_scalar(t, x, 0.75), [A], grad_fn="MulBackward1"),
    Case("mul_scalar", lambda t, x: _mul_scalar(t, x, -2.0), [B], id="mul_scalar_negative"),
    Case("_safe_softmax", lambda t, x: _safe_softmax(t, x, -1), [A],
         grad_fn="SafeSoftmaxBackward0"),
    Case("_safe_softmax", lambda t, x: _safe_softmax(t, x, 1), [B], id="_safe_softmax_dim1"),
    Case("_safe_softmax", _masked, [A], id="_safe_softmax_masked_row"),
]
