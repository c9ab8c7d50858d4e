"""Attention functions: ``scaled_dot_product_attention`` and
``multi_head_attention_forward``, built from differentiable ops as torch's math path
builds them (their modules are ``nn.MultiheadAttention`` and the ``nn.Transformer*`` ones).

On the CPU torch picks its fused kernel (one ``ScaledDotProductFlashAttentionForCpuBackward0``
node) for 4-D inputs of one head size without dropout, and so does agdebug
(``ops/nn/flash_attention.py``); otherwise both record the math path's ops.

>>> import agdebug as ag
>>> q = ag.randn(2, 3, 4)
>>> tuple(ag.nn.functional.scaled_dot_product_attention(q, q, q).shape)
(2, 3, 4)
"""

from __future__ import annotations

import math
import warnings

from ... import backend, creation
from ...ops.nn.attention import mul_scalar, safe_softmax
from ...ops.nn.flash_attention import flash_attention
from ...ops.core.checks import broadcast_shape
from ...ops.linalg.blas import baddbmm
from ...ops.shape.joining import cat
from .. import functional as F  # (partly loaded while it imports this file: read late)
from .conv import _c_type

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]

# ----------------------------------------------------------------------------- SDPA


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value, over the last two dims.

    A bool ``attn_mask`` marks the positions that take part (True); a float one is added.

    >>> import agdebug as ag
    >>> q = ag.randn(2, 4, 3, requires_grad=True)
    >>> ag.nn.functional.scaled_dot_product_attention(q, q, q).grad_fn.name()
    'UnsafeViewBackward0'
    >>> q = ag.randn(2, 1, 4, 3, requires_grad=True)   # (batch, heads, length, head size)
    >>> ag.nn.functional.scaled_dot_product_attention(q, q, q).grad_fn.name()
    'ScaledDotProductFlashAttentionForCpuBackward0'
    """
    _check_sdpa_inputs(query, key, value, attn_mask)
    mask = _float_mask(attn_mask, query.dtype)
    if _uses_flash(query, key, value, mask, dropout_p, enable_gqa):
        # torch's fused kernel, one node (a mask and is_causal may both be given to it)
        if mask is not None:
            _check_mask_fits(tuple(query.shape[:-1]) + (key.shape[-2],), tuple(mask.shape))
        output, _ = flash_attention(query, key, value, dropout_p=0.0, is_causal=is_causal,
                                    attn_mask=None if mask is None else mask._data,
                                    scale=scale)
        return output
    factor, sign = _scaling_factor(query, scale)
    query = mul_scalar(query, other=sign * factor)   # both scaled before the matmul, as torch
    if is_causal:
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not "
                               "be set when is_causal=True")
        mask = _causal_mask(query.size(-2), key.size(-2), query)
    key, value = _repeat_groups(query, key, value, enable_gqa)
    attn = query.matmul(mul_scalar(key.transpose(-2, -1), other=factor))
    if mask is not None:
        attn = attn + mask
    attn = safe_softmax(attn, dim=-1)
    if dropout_p > 0.0:
        attn = F.dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _uses_flash(query, key, value, mask, dropout_p, enable_gqa: bool) -> bool:
    """torch's CPU choice of its flash kernel (sdp_utils_cpp's use_flash_attention_cpp):
    4-D host tensors of one batch and head size, key and value heads the query's (or, with
    ``enable_gqa``, dividing them), a unit stride along the head size, queries and keys to
    attend, no dropout and no mask that requires grad."""
    tensors = (query, key, value)
    if dropout_p > 0.0 or any(t.ndim != 4 or t.device.type != "cpu" for t in tensors):
        return False
    if not query.is_floating_point() or mask is not None and mask.requires_grad:
        return False
    (b, h, length, e), (bk, hk, keys, ek), (bv, hv, _, ev) = (t.shape for t in tensors)
    if not (b == bk == bv and e == ek == ev and length and keys):
        return False
    if not (h == hk == hv or enable_gqa and hk == hv and h % hk == 0):
        return False
    return all(t.stride(-1) == 1 for t in tensors)


def _check_mask_fits(scores: tuple, mask: tuple) -> None:
    """torch's errors where a mask does not broadcast to the scores (their shapes first), or
    would broadcast them larger (the kernel adds it to them in place)."""
    shape = broadcast_shape(scores, mask)
    if shape != scores:
        raise RuntimeError(f"output with shape {list(scores)} doesn't match the broadcast shape "
                           f"{list(shape)}")


def _check_sdpa_inputs(query, key, value, attn_mask) -> None:
    """torch's validate_sdpa_input: one dtype, at least 2-D, a bool/float/query-typed mask."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_c_type(query)} key.dtype: {_c_type(key)} and value.dtype: "
            f"{_c_type(value)} instead.")
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")
    if attn_mask is not None and attn_mask.dtype not in (backend.bool_, backend.float32,
                                                         query.dtype):
        raise RuntimeError(
            f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_c_type(attn_mask)} and  query.dtype: {_c_type(query)} "
            "instead.")


def _float_mask(attn_mask, dtype):
    """A bool mask as 0 where True and -inf where False (torch's convert_boolean_attn_mask)."""
    if attn_mask is None or attn_mask.dtype != backend.bool_:
        return attn_mask
    return creation.zeros_like(attn_mask, dtype=dtype).masked_fill(attn_mask.logical_not(),
                                                                   float("-inf"))


def _scaling_factor(query, scale) -> tuple:
    """(sqrt(|scale|), sign): query and key are each scaled by the square root."""
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    return math.sqrt(abs(scale)), (-1.0 if scale < 0 else 1.0)


def _causal_mask(target: int, source: int, query):
    """The lower triangle takes part: a (target, source) float mask of 0 and -inf."""
    allowed = creation.ones(target, source, dtype=backend.bool_, device=query.device).tril()
    return _float_mask(allowed, query.dtype)


def _repeat_groups(query, key, value, enable_gqa: bool) -> tuple:
    """Grouped-query attention: repeat key and value heads to match the query's."""
    if not enable_gqa:
        return key, value
    heads, k_heads, v_heads = query.size(-3), key.size(-3), value.size(-3)
    if heads == k_heads == v_heads:
        return key, value
    if heads % k_heads or heads % v_heads:
        # torch's message stops there.
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return (key.repeat_interleave(heads // k_heads, -3),
            value.repeat_interleave(heads // v_heads, -3))


# ----------------------------------------------------------------------------- masks


def _none_or_dtype(input):
    if input is None:
        return None
    if hasattr(input, "_data"):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True):
    """A bool mask (True = masked out) as a float one of 0 and -inf; a float mask as is."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != backend.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=2)
    if is_float:
        return mask
    return creation.zeros_like(mask, dtype=target_type).masked_fill(mask, float("-inf"))


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the input is batched (3-D query), after torch's checks of every dim."""
    if query.dim() not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be "
                             f"{query.dim()}-D but found {key.dim()}-D and {value.dim()}-D "
                             "tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.dim() - 1}-D but found {key_padding_mask.dim()}-D tensor "
                             "instead")
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                             f" but found {attn_mask.dim()}-D tensor instead")
    if not batched and attn_mask is not None and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


def _check_attn_mask(attn_mask, tgt_len: int, src_len: int, batch_heads: int):
    """The attention mask as 3-D: (1 or batch * heads, tgt_len, src_len)."""
    if attn_mask is None:
        return None
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (batch_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(batch_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _check_key_padding_mask(key_padding_mask, src_len: int, bsz: int) -> None:
    if key_padding_mask.shape[0] != bsz:   # torch's text says "padded"
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")


# ----------------------------------------------------------------------------- projections


def _split_heads(proj, parts: int, embed_dim: int) -> list:
    """(..., parts * E) -> ``parts`` contiguous (..., E) tensors, as torch splits them."""
    proj = proj.unflatten(-1, (parts, embed_dim)).unsqueeze(0).transpose(0, -2)
    proj = proj.squeeze(-2).contiguous()
    return [proj[i] for i in range(parts)]


def _in_projection_packed(q, k, v, w, b=None) -> list:
    """q, k and v projected by one (3E, E) weight: one matmul for self-attention."""
    embed_dim = q.size(-1)
    if k is v:
        if q is k:
            return _split_heads(F.linear(q, w, b), 3, embed_dim)
        w_q, w_kv = w.split([embed_dim, embed_dim * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed_dim, embed_dim * 2])
        return [F.linear(q, w_q, b_q), *_split_heads(F.linear(k, w_kv, b_kv), 2, embed_dim)]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)]


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None) -> list:
    """q, k and v projected by their own weights (kdim or vdim differs from embed_dim)."""
    eq = q.size(-1)
    names = ("query", "key", "value")
    for name, w, size in zip(names, (w_q, w_k, w_v), (eq, k.size(-1), v.size(-1))):
        if tuple(w.shape) != (eq, size):
            raise AssertionError(f"expecting {name} weights shape of {(eq, size)}, but got "
                                 f"{w.shape}")
    for name, b in zip(names, (b_q, b_k, b_v)):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")
    return [F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)]


# ----------------------------------------------------------------------------- forward


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on (L, N, E) query and (S, N, E) key/value (or unbatched (L, E)).

    Masks mark with True the positions NOT allowed to attend; float masks are added.
    Returns ``(output, weights)``; weights are None unless ``need_weights``.
    """
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:   # a batch of one, squeezed again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    attn_mask, is_causal = _causal_hint(attn_mask, key_padding_mask, is_causal, need_weights,
                                        query.dtype)
    head_dim = _head_dim(embed_dim, embed_dim_to_check, num_heads)
    _check_key_value(key, value, use_separate_proj_weight)
    if use_separate_proj_weight:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
        biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, *biases)
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    attn_mask = _check_attn_mask(attn_mask, tgt_len, key.shape[0], bsz * num_heads)
    k, v, attn_mask, key_padding_mask = _append_bias_kv(k, v, bias_k, bias_v, attn_mask,
                                                        key_padding_mask, bsz, static_k,
                                                        static_v)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads_first(k, static_k, bsz * num_heads, head_dim, "static_k")
    v = _heads_first(v, static_v, bsz * num_heads, head_dim, "static_v")
    if add_zero_attn:
        k, v, attn_mask, key_padding_mask = _append_zero_attn(k, v, attn_mask, key_padding_mask)
    attn_mask = _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, k.size(1))
    dropout_p = dropout_p if training else 0.0
    shape = (tgt_len, bsz, embed_dim, num_heads)
    if need_weights:
        out, weights = _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal, shape,
                                            out_proj_weight, out_proj_bias)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            return out.squeeze(1), weights.squeeze(0)
        return out, weights
    out = _attend_with_sdpa(q, k, v, attn_mask, dropout_p, is_causal, shape, out_proj_weight,
                            out_proj_bias)
    return (out if batched else out.squeeze(1)), None


def _causal_hint(attn_mask, key_padding_mask, is_causal: bool, need_weights: bool, dtype):
    """(attn_mask, is_causal): the hint alone reaches SDPA only without padding or weights."""
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        return None, is_causal
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", dtype, check_other=False)
    return attn_mask, is_causal and key_padding_mask is None


def _head_dim(embed_dim: int, embed_dim_to_check: int, num_heads: int) -> int:
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    return head_dim


def _check_key_value(key, value, separate: bool) -> None:
    if separate and key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                             f"value's {value.shape[:2]}")
    if not separate and key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")


def _append_bias_kv(k, v, bias_k, bias_v, attn_mask, key_padding_mask, bsz, static_k,
                    static_v) -> tuple:
    """One more key and value (the learnt bias_k, bias_v) per sequence; masks grow by one."""
    if bias_k is None or bias_v is None:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")
        return k, v, attn_mask, key_padding_mask
    if static_k is not None:
        raise AssertionError("bias cannot be added to static key.")
    if static_v is not None:
        raise AssertionError("bias cannot be added to static value.")
    k = cat([k, bias_k.repeat(1, bsz, 1)])
    v = cat([v, bias_v.repeat(1, bsz, 1)])
    return k, v, _pad_last(attn_mask), _pad_last(key_padding_mask)


def _pad_last(mask):
    return None if mask is None else F.pad(mask, (0, 1))


def _heads_first(x, static, batch_heads: int, head_dim: int, name: str):
    """(S, N, E) -> (N * heads, S, head_dim), or the given static keys/values."""
    if static is None:
        return x.view(x.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.size(0) != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got "
                             f"{static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static


def _append_zero_attn(k, v, attn_mask, key_padding_mask) -> tuple:
    """One more all-zero key and value per head; masks grow by one."""
    zeros = (k.size(0), 1, k.size(2))
    k = cat([k, creation.zeros(zeros, dtype=k.dtype, device=k.device)], dim=1)
    v = cat([v, creation.zeros(zeros, dtype=v.dtype, device=v.device)], dim=1)
    return k, v, _pad_last(attn_mask), _pad_last(key_padding_mask)


def _merge_padding(attn_mask, key_padding_mask, bsz: int, num_heads: int, src_len: int):
    """The key padding mask, repeated per head, added to the attention mask."""
    if key_padding_mask is None:
        return attn_mask
    _check_key_padding_mask(key_padding_mask, src_len, bsz)
    key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len)
                        .expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len))
    return key_padding_mask if attn_mask is None else attn_mask + key_padding_mask


def _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal, shape, out_w, out_b):
    """torch's explicit path (bmm, softmax, bmm) that also returns the per-head weights."""
    tgt_len, bsz, embed_dim, num_heads = shape
    q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    if attn_mask is not None:
        weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = q_scaled.bmm(k.transpose(-2, -1))
    weights = F.softmax(weights, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    out = weights.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_w, out_b)
    out = out.view(tgt_len, bsz, out.size(1))
    return out, weights.view(bsz, num_heads, tgt_len, k.size(1))


def _attend_with_sdpa(q, k, v, attn_mask, dropout_p, is_causal, shape, out_w, out_b):
    """Without weights torch calls scaled_dot_product_attention on (N, heads, L, head_dim)."""
    tgt_len, bsz, embed_dim, num_heads = shape
    src_len = k.size(1)
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, q.size(-1))
    k = k.view(bsz, num_heads, src_len, k.size(-1))
    v = v.view(bsz, num_heads, src_len, v.size(-1))
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_w, out_b)
    return out.view(tgt_len, bsz, out.size(1))
