"""Cases for agdebug/ops/nn/attention.py (see harness.py): the two nodes of torch's math
attention path, aten's ``mul.Scalar`` and ``_safe_softmax``; and for
agdebug/ops/nn/flash_attention.py, torch's fused CPU kernel (float64 here: torch runs it in
float64 too) and its backward, which has no derivative (second_order off)."""

from __future__ import annotations

import numpy as np

from agdebug.ops import OPS

from .harness import Case

rng = np.random.default_rng(11)
A = rng.standard_normal((2, 3))
B = rng.standard_normal((3, 2, 4))
Q = rng.standard_normal((1, 2, 3, 2))   # (batch, heads, length, head size)
KV = rng.standard_normal((1, 2, 4, 2))


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


def _sdpa(t, q, k, v, **kw):
    return t.nn.functional.scaled_dot_product_attention(q, k, v, **kw)


def _flash_gradient(t, q, k, v):
    """The first derivative as a value: with create_graph=True both record it under
    ``torch::autograd::NotImplemented`` (the flash backward), detached since that node has
    no derivative."""
    wrt = [x for x in (q, k, v) if x.requires_grad]
    grads = t.autograd.grad((_sdpa(t, q, k, v) ** 2).sum(), wrt, create_graph=True)
    return sum((g.detach() * x).sum() for g, x in zip(grads, wrt))


CASES = [
    Case("_scaled_dot_product_flash_attention_for_cpu", _sdpa, [Q, KV, KV], second_order=False,
         grad_fn="ScaledDotProductFlashAttentionForCpuBackward0"),
    Case("_scaled_dot_product_flash_attention_for_cpu",
         lambda t, q, k, v: _sdpa(t, q, k, v, is_causal=True, scale=0.7), [Q, KV, KV],
         second_order=False, id="flash_attention_causal_scaled"),
    Case("_scaled_dot_product_flash_attention_for_cpu_backward", _flash_gradient, [Q, KV, KV],
         numeric=False, second_order=False),

    Case("mul_scalar", lambda t, x: _mul_scalar(t, x, 0.75), [A], grad_fn="MulBackward1"),
    Case("mul_scalar", lambda t, x: _mul_scalar(t, x, -2.0), [B], id="mul_scalar_negative"),
    Case("_safe_softmax", lambda t, x: _safe_softmax(t, x, -1), [A],
         grad_fn="SafeSoftmaxBackward0"),
    Case("_safe_softmax", lambda t, x: _safe_softmax(t, x, 1), [B], id="_safe_softmax_dim1"),
    Case("_safe_softmax", _masked, [A], id="_safe_softmax_masked_row"),
]
