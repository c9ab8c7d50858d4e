"""torch's fused CPU attention: ``_scaled_dot_product_flash_attention_for_cpu``, the one node
(ScaledDotProductFlashAttentionForCpuBackward0) ``scaled_dot_product_attention`` records on
the CPU for 4-D inputs of one head size without dropout (``nn.functional.attention`` picks it
as torch does; the other cases record the math path's ops).

Both outputs are torch's: the attention ``softmax(query @ key^T * scale + mask) @ value`` and
each row's log-sum-exp of the scores (not differentiable; 0 for a row every key is masked
out of, whose attention is 0). The forward, and the derivative torch computes in
``_scaled_dot_product_flash_attention_for_cpu_backward``, run on NumPy. That backward has no
derivative in torch: with ``create_graph=True`` the gradients' node is
``torch::autograd::NotImplemented`` and differentiating it again raises, as in torch.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.registry import defop

__all__ = ["flash_attention"]


def _work_dtype(dtype) -> np.dtype:
    """torch accumulates half in float32: so do the scores, the softmax and its sums."""
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def _repeated(t, heads: int):
    """Grouped-query attention: each key/value head serves ``heads // t.shape[1]`` queries."""
    return t if t.shape[1] == heads else np.repeat(t, heads // t.shape[1], axis=1)


def _grouped(grad, kv_heads: int):
    """The gradient of ``_repeated``: the query heads' shares summed per key/value head."""
    if grad.shape[1] == kv_heads:
        return grad
    b, h, s, e = grad.shape
    return grad.reshape(b, kv_heads, h // kv_heads, s, e).sum(axis=2)


def _probabilities(query, key, attn_mask, is_causal: bool, scale, logsumexp=None):
    """``(p, logsumexp)``: the softmax of the scaled, masked scores and its rows'
    log-sum-exp (given: the forward's, as the derivative recomputes ``p`` from it)."""
    work = _work_dtype(query.dtype)
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = np.matmul(query.astype(work, copy=False),
                       np.swapaxes(key.astype(work, copy=False), -1, -2)) * work.type(factor)
    if attn_mask is not None:
        scores = scores + attn_mask.astype(work, copy=False)
    if is_causal:   # the lower triangle from the top left, as torch's kernel aligns it
        rows, cols = scores.shape[-2:]
        scores = np.where(np.tri(rows, cols, dtype=bool), scores, -np.inf)
    if logsumexp is None:
        top = scores.max(axis=-1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0).astype(work, copy=False)
        total = np.exp(scores - top).sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore"):
            logsumexp = np.where(total > 0, np.log(total) + top, 0).astype(work, copy=False)
        logsumexp = logsumexp[..., 0]
    p = np.exp(scores - logsumexp[..., None])
    return p, logsumexp


@defop("_scaled_dot_product_flash_attention_for_cpu",
       node="ScaledDotProductFlashAttentionForCpuBackward0", outputs=2, nondiff_outputs=(1,),
       saves=("query", "key", "value", "output=result", "logsumexp=result1",
              "attn_mask=array"))
def flash_attention(xp, query, key, value, dropout_p=0.0, is_causal=False, attn_mask=None,
                    scale=None):
    """``(output, logsumexp)`` for (batch, heads, length, head size) inputs; ``attn_mask``
    (an array, added to the scores) broadcasts to (batch, heads, length, key length)."""
    if xp is not np:
        raise RuntimeError("_scaled_dot_product_flash_attention_for_cpu: expected CPU tensors")
    heads = query.shape[1]
    p, logsumexp = _probabilities(query, _repeated(key, heads), attn_mask, is_causal, scale)
    # Laid out as torch's kernel lays them: the output as the query (an attention module's
    # query is a view of (length, batch, heads, size), so its output's permute back is
    # contiguous: no copy), the log-sum-exp as (batch, length, heads).
    output = np.empty_like(query, order="K")
    output[...] = np.matmul(p, _repeated(value, heads).astype(p.dtype, copy=False))
    b, h, length = logsumexp.shape
    rows = np.empty((b, length, h), logsumexp.dtype).transpose(0, 2, 1)
    rows[...] = logsumexp
    return output, rows


@flash_attention.vjp
def flash_attention_vjp(ctx, grad):
    return flash_attention_backward(grad, ctx.query, ctx.key, ctx.value, ctx.output,
                                    ctx.logsumexp, dropout_p=ctx.dropout_p,
                                    is_causal=ctx.is_causal, attn_mask=ctx.attn_mask,
                                    scale=ctx.scale)


@defop("_scaled_dot_product_flash_attention_for_cpu_backward", node="NotImplemented",
       outputs=3)
def flash_attention_backward(xp, grad_out, query, key, value, out, logsumexp, dropout_p=0.0,
                             is_causal=False, attn_mask=None, scale=None):
    """The gradients for query, key and value: with ``p`` the attention's probabilities,
    ``dv = p^T dO``, ``ds = p * (dO v^T - rowsum(dO * O))``, ``dq = ds k * scale`` and
    ``dk = ds^T q * scale``."""
    heads = query.shape[1]
    keys, values = _repeated(key, heads), _repeated(value, heads)
    p, _ = _probabilities(query, keys, attn_mask, is_causal, scale, logsumexp)
    work = p.dtype
    g = grad_out.astype(work, copy=False)
    factor = work.type(1.0 / math.sqrt(query.shape[-1]) if scale is None else scale)
    d_value = np.matmul(np.swapaxes(p, -1, -2), g)
    d_p = np.matmul(g, np.swapaxes(values.astype(work, copy=False), -1, -2))
    d_scores = p * (d_p - (g * out.astype(work, copy=False)).sum(axis=-1, keepdims=True))
    d_query = np.matmul(d_scores, keys.astype(work, copy=False)) * factor
    d_key = np.matmul(np.swapaxes(d_scores, -1, -2), query.astype(work, copy=False)) * factor
    return (d_query.astype(query.dtype, copy=False),
            _grouped(d_key, key.shape[1]).astype(key.dtype, copy=False),
            _grouped(d_value, value.shape[1]).astype(value.dtype, copy=False))


@flash_attention_backward.vjp
def flash_attention_backward_vjp(ctx, *grads):
    raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward"
                       " is not implemented")
