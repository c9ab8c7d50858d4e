"""Attention modules: MultiheadAttention, the Transformer encoder and decoder layers and
stacks, and Transformer, with torch's parameter names so ``load_state_dict`` takes a
torch module's ``state_dict``.

>>> import agdebug as ag
>>> layer = ag.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
>>> tuple(layer(ag.randn(3, 5, 8)).shape)
(3, 5, 8)
"""

from __future__ import annotations

import copy
import warnings

from ... import creation
from ...graph.grad_mode import is_grad_enabled
from .. import functional as F
from .. import init
from ..functional.attention import _canonical_mask, _none_or_dtype
from .activation import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]


# ----------------------------------------------------------------------------- helpers


def _get_activation_fn(activation: str):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_seq_len(src, batch_first: bool) -> int:
    if src.dim() == 2:   # unbatched: (S, E)
        return src.size(0)
    return src.size(1 if batch_first else 0)


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None):
    """-inf above the diagonal, 0 elsewhere: position i attends to positions <= i."""
    return creation.full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _detect_is_causal_mask(mask, is_causal=None, size=None) -> bool:
    """``is_causal`` if given; else whether ``mask`` is exactly the square causal mask."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if tuple(mask.shape) == tuple(causal.shape):
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


def _layer_norms(module, count: int, d_model: int, eps: float, bias: bool, factory) -> None:
    for i in range(1, count + 1):
        setattr(module, f"norm{i}", LayerNorm(d_model, eps=eps, bias=bias, **factory))


def _feed_forward(module, d_model, dim_feedforward, dropout, bias, factory) -> None:
    module.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
    module.dropout = Dropout(dropout)
    module.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)


# ----------------------------------------------------------------------------- encoder


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm
    (after the residual, or before each block with ``norm_first``).

    >>> import agdebug as ag
    >>> layer = ag.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8)
    >>> tuple(layer(ag.randn(5, 3, 4)).shape)
    (5, 3, 4)
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **factory)
        _feed_forward(self, d_model, dim_feedforward, dropout, bias, factory)
        self.norm_first = norm_first
        _layer_norms(self, 2, d_model, layer_norm_eps, bias, factory)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation_relu_or_gelu = _relu_or_gelu(activation)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """src: (S, N, E), (N, S, E) with batch_first, or unbatched (S, E)."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


def _relu_or_gelu(activation) -> int:
    """torch's flag for its fused path: 1 relu, 2 gelu, 0 anything else."""
    if activation is F.relu or type(activation).__name__ == "ReLU":
        return 1
    if activation is F.gelu or type(activation).__name__ == "GELU":
        return 2
    return 0


def _why_not_nested(layer) -> str:
    """Why torch's TransformerEncoder cannot use nested tensors with this layer ('' if it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{name}.self_attn.batch_first was not True(use batch_first for better "
                "inference performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` applied in turn, then ``norm`` if given.

    >>> import agdebug as ag
    >>> layer = ag.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True)
    >>> encoder = ag.nn.TransformerEncoder(layer, num_layers=2)
    >>> tuple(encoder(ag.randn(3, 5, 4)).shape)
    (3, 5, 4)
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why_not}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Masks as in TransformerEncoderLayer; ``is_causal=None`` detects a causal ``mask``."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(mask), "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        seq_len = _get_seq_len(src, self.layers[0].self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        if self._takes_nested_path(src, mask, src_key_padding_mask):
            # torch runs a nested tensor of the unpadded tokens and pads back with zeros
            padded = (src_key_padding_mask != 0).unsqueeze(-1)
            output = output.masked_fill(padded, 0.0)
        return output if self.norm is None else self.norm(output)

    def _takes_nested_path(self, src, mask, key_padding_mask) -> bool:
        """Whether torch's inference fast path (a nested tensor) would run: then the padded
        positions of the output are zero before ``norm``."""
        first = self.layers[0]
        if (not self.use_nested_tensor or first.training or src.dim() != 3
                or key_padding_mask is None or mask is not None):
            return False
        if is_grad_enabled() and (src.requires_grad or any(
                p is not None and p.requires_grad for p in _fast_path_parameters(first))):
            return False
        kept = (key_padding_mask == 0).cpu().numpy()
        return bool((kept[:, 1:] <= kept[:, :-1]).all())   # left-aligned: tokens, then padding


def _fast_path_parameters(layer) -> list:
    attn = layer.self_attn
    return [attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
            layer.norm1.weight, layer.norm1.bias, layer.norm2.weight, layer.norm2.bias,
            layer.linear1.weight, layer.linear1.bias, layer.linear2.weight, layer.linear2.bias]


# ----------------------------------------------------------------------------- decoder


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's ``memory``, then a feed-forward block,
    each with a residual and a LayerNorm.

    >>> import agdebug as ag
    >>> layer = ag.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8)
    >>> tuple(layer(ag.randn(5, 3, 4), ag.randn(6, 3, 4)).shape)
    (5, 3, 4)
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **factory)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **factory)
        _feed_forward(self, d_model, dim_feedforward, dropout, bias, factory)
        self.norm_first = norm_first
        _layer_norms(self, 3, d_model, layer_norm_eps, bias, factory)
        self.dropout1, self.dropout2, self.dropout3 = (Dropout(dropout), Dropout(dropout),
                                                       Dropout(dropout))
        self.activation = (_get_activation_fn(activation) if isinstance(activation, str)
                           else activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """tgt: (T, N, E), memory: (S, N, E) ((N, ., E) with batch_first)."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` applied in turn, then ``norm`` if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """Masks as in TransformerDecoderLayer; ``tgt_is_causal=None`` detects a causal mask."""
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


# ----------------------------------------------------------------------------- Transformer


class Transformer(Module):
    """An encoder and a decoder stack (each ending in a LayerNorm), as in "Attention Is All
    You Need".

    >>> import agdebug as ag
    >>> model = ag.nn.Transformer(8, 2, 1, 1, dim_feedforward=16)
    >>> tuple(model(ag.randn(6, 2, 8), ag.randn(4, 2, 8)).shape)
    (4, 2, 8)
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*args, **factory),
                                              num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*args, **factory),
                                              num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """Encode ``src`` into memory, then decode ``tgt`` against it."""
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A (sz, sz) float mask: -inf above the diagonal, 0 on and below it."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
