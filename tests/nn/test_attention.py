"""scaled_dot_product_attention, MultiheadAttention and the Transformer modules against
torch: a seeded torch module's parameters are loaded into the agdebug one, both run on
the same inputs, and outputs, attention weights and the gradients of every parameter and
input are compared; plus gradcheck/gradgradcheck and torch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.nn.attention import mul_scalar, safe_softmax

from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

# warnings both libraries give on purpose (tested once below)
pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),
              pytest.mark.filterwarnings("ignore:Support for mismatched"),
              pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")]

RNG = np.random.default_rng(3)
TOL = {"float64": {"rtol": 1e-6, "atol": 1e-9}, "float32": {"rtol": 2e-4, "atol": 2e-5}}


# ----------------------------------------------------------------------------- helpers


def _lib_tensor(lib, value, dtype: str, grad: bool):
    """``value`` (an array) as a ``lib`` tensor: floats in ``dtype``, bools as they are."""
    if value.dtype == np.bool_:
        return lib.tensor(value)
    t = lib.tensor(value.astype(dtype))
    return t.requires_grad_() if grad else t


def _pair(factory, dtype: str, train: bool = False):
    """A seeded torch module and an agdebug one with its state_dict loaded."""
    torch.manual_seed(0)
    theirs = factory(torch, getattr(torch, dtype))
    ours = factory(ag, getattr(ag, dtype))
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    theirs.train(train)
    ours.train(train)
    return theirs, ours


def _outputs(result) -> list:
    result = result if isinstance(result, tuple) else (result,)
    return [r for r in result if r is not None]


def _check_same(theirs, ours, inputs: dict, call, dtype: str = "float64", train=False):
    """Run ``call(lib, module, **tensors)`` with both; compare values and all gradients."""
    t_mod, a_mod = _pair(theirs, dtype, train) if callable(theirs) else (theirs, ours)
    t_in = {k: _lib_tensor(torch, v, dtype, True) for k, v in inputs.items()}
    a_in = {k: _lib_tensor(ag, v, dtype, True) for k, v in inputs.items()}
    t_out, a_out = _outputs(call(torch, t_mod, **t_in)), _outputs(call(ag, a_mod, **a_in))
    assert len(t_out) == len(a_out)
    loss_t, loss_a = 0, 0
    for t, a in zip(t_out, a_out):
        assert tuple(a.shape) == tuple(t.shape) and str(a.dtype) == str(t.dtype)
        np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), **TOL[dtype])
        weight = RNG.standard_normal(tuple(t.shape))
        loss_t = loss_t + (t * torch.tensor(weight, dtype=t.dtype)).sum()
        loss_a = loss_a + (a * ag.tensor(weight, dtype=a.dtype)).sum()
    loss_t.backward()
    loss_a.backward()
    _check_grads(t_mod, a_mod, t_in, a_in, dtype)
    return t_out, a_out


def _check_grads(t_mod, a_mod, t_in, a_in, dtype: str) -> None:
    a_params = dict(a_mod.named_parameters())
    t_params = dict(t_mod.named_parameters())
    assert list(a_params) == list(t_params)
    pairs = [(a_params[n], t_params[n], n) for n in t_params]
    pairs += [(a_in[n], t_in[n], n) for n in t_in if t_in[n].requires_grad]
    for a, t, name in pairs:
        if t.grad is None:
            assert a.grad is None or not a.grad.numpy().any(), name
            continue
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), err_msg=name, **TOL[dtype])


def _mha(**kwargs):
    return lambda lib, dt: lib.nn.MultiheadAttention(dtype=dt, **kwargs)


def _masks(lib, bool_value=None, float_value=None, dtype="float64") -> dict:
    out = {}
    for name, value in (bool_value or {}).items():
        out[name] = lib.tensor(value)
    for name, value in (float_value or {}).items():
        out[name] = lib.tensor(value.astype(dtype))
    return out


def _random(*shape):
    return RNG.standard_normal(shape)


def _bool_mask(*shape, keep_first=True):
    """A random bool mask; with ``keep_first`` column 0 stays False (never all masked)."""
    mask = RNG.random(shape) < 0.4
    if keep_first:
        mask[..., 0] = False
    return mask


def _float_mask(*shape):
    return np.where(_bool_mask(*shape), -np.inf, RNG.uniform(-0.5, 0.5, shape))


# ----------------------------------------------------------------------------- MHA

L, S, N, E, H = 4, 5, 2, 6, 2
X, MEM = _random(L, N, E), _random(S, N, E)
KPM = _bool_mask(N, S)
MASK2 = _bool_mask(L, S)
MASK3 = _float_mask(N * H, L, S)
FLOAT_KPM = _float_mask(N, S)
SRC_KPM, SRC_MASK = _bool_mask(N, L), _bool_mask(L, L)


def _call(masks=None, **forward):
    """A forward that builds the masks in the calling library, then calls the module."""
    def call(lib, module, **t):
        extra = masks(lib) if masks else {}
        q = t["q"]
        k = t.get("k", q)
        v = t.get("v", k)
        return module(q, k, v, **extra, **forward)
    return call


MHA_CASES = {
    "self": (_mha(embed_dim=E, num_heads=H), {"q": X}, _call()),
    "self_no_average": (_mha(embed_dim=E, num_heads=H), {"q": X},
                        _call(average_attn_weights=False)),
    "self_no_weights": (_mha(embed_dim=E, num_heads=H), {"q": X}, _call(need_weights=False)),
    "batch_first": (_mha(embed_dim=E, num_heads=3, batch_first=True), {"q": _random(N, L, E)},
                    _call(average_attn_weights=False)),
    "cross": (_mha(embed_dim=E, num_heads=H), {"q": X, "k": MEM}, _call()),
    "cross_no_weights": (_mha(embed_dim=E, num_heads=H, batch_first=True),
                         {"q": _random(N, L, E), "k": _random(N, S, E)},
                         _call(need_weights=False)),
    "three_inputs": (_mha(embed_dim=E, num_heads=H), {"q": X, "k": MEM, "v": _random(S, N, E)},
                     _call()),
    "kdim_vdim": (_mha(embed_dim=E, num_heads=H, kdim=3, vdim=5),
                  {"q": X, "k": _random(S, N, 3), "v": _random(S, N, 5)},
                  _call(average_attn_weights=False)),
    "kdim_vdim_no_weights": (_mha(embed_dim=E, num_heads=H, kdim=3, vdim=5, batch_first=True),
                             {"q": _random(N, L, E), "k": _random(N, S, 3),
                              "v": _random(N, S, 5)}, _call(need_weights=False)),
    "bias_kv_zero_attn": (_mha(embed_dim=E, num_heads=H, add_bias_kv=True, add_zero_attn=True),
                          {"q": X, "k": MEM},
                          _call(lambda lib: _masks(lib, {"key_padding_mask": KPM,
                                                         "attn_mask": MASK2}))),
    "bias_kv_no_weights": (_mha(embed_dim=E, num_heads=H, add_bias_kv=True, add_zero_attn=True),
                           {"q": X, "k": MEM},
                           _call(lambda lib: _masks(lib, {"key_padding_mask": KPM}),
                                 need_weights=False)),
    "bool_masks": (_mha(embed_dim=E, num_heads=H), {"q": X, "k": MEM},
                   _call(lambda lib: _masks(lib, {"key_padding_mask": KPM, "attn_mask": MASK2}),
                         average_attn_weights=False)),
    "bool_masks_no_weights": (_mha(embed_dim=E, num_heads=H), {"q": X, "k": MEM},
                              _call(lambda lib: _masks(lib, {"key_padding_mask": KPM,
                                                             "attn_mask": MASK2}),
                                    need_weights=False)),
    "float_masks_3d": (_mha(embed_dim=E, num_heads=H), {"q": X, "k": MEM},
                       _call(lambda lib: _masks(lib, None, {"key_padding_mask": FLOAT_KPM,
                                                            "attn_mask": MASK3}))),
    "float_mask_3d_no_weights": (_mha(embed_dim=E, num_heads=H), {"q": X, "k": MEM},
                                 _call(lambda lib: _masks(lib, None, {"attn_mask": MASK3}),
                                       need_weights=False)),
    "causal_hint": (_mha(embed_dim=E, num_heads=H), {"q": X},
                    _call(lambda lib: {"attn_mask": lib.nn.Transformer
                                       .generate_square_subsequent_mask(L, dtype=lib.float64)},
                          is_causal=True, need_weights=False)),
    "causal_hint_weights": (_mha(embed_dim=E, num_heads=H), {"q": X},
                            _call(lambda lib: {"attn_mask": lib.tensor(np.triu(
                                np.ones((L, L), bool), 1))}, is_causal=True)),
    "unbatched": (_mha(embed_dim=E, num_heads=H), {"q": _random(L, E), "k": _random(S, E)},
                  _call(lambda lib: _masks(lib, {"key_padding_mask": KPM[0]},
                                           {"attn_mask": MASK3[:H]}))),
    "unbatched_self_no_weights": (_mha(embed_dim=E, num_heads=H), {"q": _random(L, E)},
                                  _call(need_weights=False)),
    "no_bias": (_mha(embed_dim=E, num_heads=H, bias=False), {"q": X, "k": MEM}, _call()),
}


@pytest.mark.parametrize("name", list(MHA_CASES))
def test_multihead_attention_matches_torch(name):
    factory, inputs, call = MHA_CASES[name]
    _check_same(factory, None, inputs, call)


@pytest.mark.parametrize("name", ["self", "bool_masks_no_weights", "kdim_vdim"])
def test_multihead_attention_float32_and_train_mode(name):
    factory, inputs, call = MHA_CASES[name]
    _check_same(factory, None, inputs, call, dtype="float32")
    _check_same(factory, None, inputs, call, train=True)   # dropout=0: training changes nothing


def test_multihead_attention_node_names_match_torch():
    theirs, ours = _pair(_mha(embed_dim=E, num_heads=H), "float64")
    t_out, t_w = theirs(*[torch.tensor(X)] * 3)
    a_out, a_w = ours(*[ag.tensor(X)] * 3)
    assert _walk(a_out) == _walk(t_out)
    assert _walk(a_w) == _walk(t_w)


def test_multihead_attention_parameters_and_init():
    ours = ag.nn.MultiheadAttention(E, H, add_bias_kv=True, kdim=3)
    theirs = torch.nn.MultiheadAttention(E, H, add_bias_kv=True, kdim=3)
    assert ({k: tuple(v.shape) for k, v in ours.state_dict().items()}
            == {k: tuple(v.shape) for k, v in theirs.state_dict().items()})
    assert not ours.in_proj_bias.detach().numpy().any()
    assert not ours.out_proj.bias.detach().numpy().any()
    bound = np.sqrt(6 / (E + E))   # xavier_uniform_ of a (E, E) weight
    assert np.abs(ours.q_proj_weight.detach().numpy()).max() <= bound
    assert ours.in_proj_weight is None and isinstance(ours.out_proj, ag.nn.Linear)


# ----------------------------------------------------------------------------- errors

def test_multihead_attention_constructor_errors():
    for args, error in (((6, 4), AssertionError), ((0, 2), ValueError), ((6, -1), ValueError)):
        with pytest.raises(error) as ours:
            ag.nn.MultiheadAttention(*args)
        with pytest.raises(error) as theirs:
            torch.nn.MultiheadAttention(*args)
        assert str(ours.value) == str(theirs.value)


MHA_SETUP = {
    "m": "lib.manual_seed(0) and None or lib.nn.MultiheadAttention(4, 2)",
    "x": "lib.ones(3, 2, 4)",
    "y": "lib.ones(5, 2, 4)",
    "kpm": "lib.zeros(2, 5, dtype=lib.bool)",
}

MHA_ERRORS = [
    "m(x, x, x, attn_mask=lib.zeros(2, 3, dtype=lib.bool))",
    "m(x, y, y, attn_mask=lib.zeros(3, 3))",
    "m(x, y, y, attn_mask=lib.zeros(3, 3, 5))",
    "m(x, y, y, attn_mask=lib.zeros(1, 1, 3, 5))",
    "m(x, y, y, key_padding_mask=lib.zeros(2, 4, dtype=lib.bool))",
    "m(x, y, y, key_padding_mask=lib.zeros(3, 5, dtype=lib.bool))",
    "m(x, y, y, key_padding_mask=lib.zeros(2, 5, dtype=lib.long))",
    "m(x, y, y, key_padding_mask=kpm[0])",
    "m(x, y, x)",
    "m(x, y, y, is_causal=True)",
    "m(x[0], y, y)",
    "m(x[0, 0], y, y)",
    "m(lib.ones(3, 2, 6), lib.ones(5, 2, 6), lib.ones(5, 2, 6))",
    "m(x[:, 0], y[:, 0], y[:, 0], attn_mask=lib.zeros(3, 3, 5))",
]


@pytest.mark.parametrize("expr", MHA_ERRORS)
def test_multihead_attention_errors_match_torch(expr):
    assert_same_as_torch(torch, expr, MHA_SETUP)


def test_mismatched_mask_types_warn_as_torch():
    for lib in (ag, torch):
        m = lib.nn.MultiheadAttention(4, 2)
        x = lib.ones(3, 2, 4)
        with pytest.warns(UserWarning, match="^Support for mismatched key_padding_mask and "
                                             "attn_mask is deprecated"):
            m(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.bool),
              attn_mask=lib.zeros(3, 3))


# ----------------------------------------------------------------------------- SDPA

SDPA_SETUP = {
    "q": "lib.arange(24.0, dtype=lib.float64).reshape(2, 3, 4).sin().requires_grad_()",
    "k": "lib.arange(30.0, dtype=lib.float64).reshape(2, 5, 3).cos().add(1).requires_grad_()",
    "k4": "lib.arange(40.0, dtype=lib.float64).reshape(2, 5, 4).cos().requires_grad_()",
    "v": "lib.arange(20.0, dtype=lib.float64).reshape(2, 5, 2).sin().requires_grad_()",
    "q4": "lib.arange(48.0, dtype=lib.float64).reshape(1, 2, 4, 6).sin().requires_grad_()",
    "kg": "lib.arange(30.0, dtype=lib.float64).reshape(1, 1, 5, 6).cos().requires_grad_()",
    "vg": "lib.arange(15.0, dtype=lib.float64).reshape(1, 1, 5, 3).sin().requires_grad_()",
    "bm": "lib.tensor([[1, 0, 1, 1, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], dtype=lib.bool)",
    "fm": "lib.arange(15.0, dtype=lib.float64).reshape(3, 5).cos()",
}

# A value head size that differs from the query's keeps torch on its math path, so the
# grad_fn names compare (with equal sizes torch records its fused CPU kernel instead).
SDPA_EXPRESSIONS = [
    "F.scaled_dot_product_attention(q[..., :3], k, v)",
    "F.scaled_dot_product_attention(q[..., :3], k, v, attn_mask=bm)",
    "F.scaled_dot_product_attention(q[..., :3], k, v, attn_mask=fm)",
    "F.scaled_dot_product_attention(q[..., :3], k, v, attn_mask=fm.float())",
    "F.scaled_dot_product_attention(q[..., :3], k, v, is_causal=True)",
    "F.scaled_dot_product_attention(q[..., :3], k, v, scale=0.3)",
    "F.scaled_dot_product_attention(q[..., :3], k, v, scale=-0.3)",
    "F.scaled_dot_product_attention(q[0, :, :3], k[0], v[0])",
    "F.scaled_dot_product_attention(q[..., :3], k, v, dropout_p=0.0)",
    "F.scaled_dot_product_attention(q4, kg, vg, enable_gqa=True)",
    "F.scaled_dot_product_attention(q.detach()[..., :3], k.detach(), v.detach())",
    # the same head size: values only (torch records its fused kernel)
    "F.scaled_dot_product_attention(q, k4, k4, attn_mask=bm).detach()",
    "F.scaled_dot_product_attention(q, k4, k4, is_causal=True).detach()",
    # errors
    "F.scaled_dot_product_attention(q[..., :3], k, v, attn_mask=bm, is_causal=True)",
    "F.scaled_dot_product_attention(q[..., :3], k.float(), v)",
    "F.scaled_dot_product_attention(q[0, 0, :3], k, v)",
    "F.scaled_dot_product_attention(q[..., :3], k, v, attn_mask=bm.long())",
    "F.scaled_dot_product_attention(q[..., :3].float(), k.float(), v.float(), attn_mask=fm)",
    "F.scaled_dot_product_attention(q4, kg[:, :, :3], vg, enable_gqa=True)",
    "F.scaled_dot_product_attention(q4, kg.expand(1, 3, 5, 6), vg, enable_gqa=True)",
]


@pytest.mark.parametrize("expr", SDPA_EXPRESSIONS)
def test_sdpa_matches_torch(expr):
    assert_same_as_torch(torch, expr, SDPA_SETUP)


def _walk(t) -> list:
    """The names of the nodes reachable from ``t.grad_fn``, depth first, as torch prints them."""
    seen, names, stack = set(), [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(f for f, _ in node.next_functions)
    return [n.replace("torch::autograd::", "") for n in names]


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"mask": True}])
def test_sdpa_graph_is_torchs_math_path(kwargs):
    graphs = []
    for lib in (torch, ag):
        q = lib.tensor(_random(2, 3, 4, 5)).requires_grad_()
        k = lib.tensor(_random(2, 3, 6, 5)).requires_grad_()
        v = lib.tensor(_random(2, 3, 6, 7)).requires_grad_()
        extra = dict(kwargs)
        if extra.pop("mask", False):
            extra["attn_mask"] = lib.ones(4, 6, dtype=lib.bool).tril()
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **extra)
        graphs.append([n.replace("ReshapeAlias", "View") for n in _walk(out)])
    # torch reshapes the scaled, transposed key with _reshape_alias, agdebug's matmul with view
    assert graphs[0] == graphs[1]
    assert "SafeSoftmaxBackward0" in graphs[1] and "MulBackward1" in graphs[1]


def test_sdpa_fully_masked_rows_are_zero_as_torch():
    q, k, v = _random(1, 2, 3), _random(1, 4, 3), _random(1, 4, 2)
    mask = np.ones((2, 4), bool)
    mask[1] = False
    outs = [lib.nn.functional.scaled_dot_product_attention(
        lib.tensor(q), lib.tensor(k), lib.tensor(v), attn_mask=lib.tensor(mask)).numpy()
        for lib in (ag, torch)]
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)
    assert not outs[0][0, 1].any()


def test_sdpa_dropout_zeroes_weights_and_rescales():
    ag.manual_seed(0)
    q = ag.ones(1, 64, 4, dtype=ag.float64)
    v = ag.tensor(np.eye(64)[None])
    out = ag.nn.functional.scaled_dot_product_attention(q, q, v, dropout_p=0.5)
    values = np.unique(np.round(out.numpy() * 64, 9))
    assert set(values) <= {0.0, 2.0} and len(values) == 2   # weights 1/64 -> 0 or 2/64


def _sdpa_inputs(mask: bool):
    q = ag.tensor(_random(2, 3, 4), requires_grad=True)
    k = ag.tensor(_random(2, 5, 4), requires_grad=True)
    v = ag.tensor(_random(2, 5, 3), requires_grad=True)
    attn = ag.tensor(_bool_mask(3, 5)) if mask else None
    return (q, k, v), attn


@pytest.mark.parametrize("mask", [False, True])
def test_sdpa_gradcheck(mask):
    inputs, attn = _sdpa_inputs(mask)
    f = lambda q, k, v: ag.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attn)  # noqa: E731
    assert ag.autograd.gradcheck(f, inputs)


def test_sdpa_gradgradcheck_with_causal_mask():
    inputs, _ = _sdpa_inputs(False)
    f = lambda q, k, v: ag.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
    assert ag.autograd.gradgradcheck(f, inputs)


def test_sdpa_second_order_matches_torch():
    grads = []
    for lib in (ag, torch):
        q, k, v = (lib.tensor(a).requires_grad_() for a in (X[:, 0], MEM[:, 0], MEM[:, 0, :4]))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, scale=0.7)
        (gq,) = lib.autograd.grad((out * out).sum(), q, create_graph=True)
        grads.append([g.detach().numpy() for g in lib.autograd.grad(gq.sin().sum(), (q, k, v))])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9)


def test_safe_softmax_and_mul_scalar_ops_match_torch():
    x = np.array([[1.0, -np.inf, 0.5], [-np.inf, -np.inf, -np.inf]])
    ours = safe_softmax(ag.tensor(x, requires_grad=True), dim=-1)
    theirs = torch._safe_softmax(torch.tensor(x, requires_grad=True), -1)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    m = mul_scalar(ag.tensor(x[0], requires_grad=True), other=2.5)
    assert m.grad_fn.name() == type(torch.ops.aten.mul.Scalar(
        torch.tensor(x[0], requires_grad=True), 2.5).grad_fn).__name__


# ----------------------------------------------------------------------------- Transformer


def _layer(cls, **kwargs):
    base = {"d_model": E, "nhead": H, "dim_feedforward": 8, "dropout": 0.0}
    return lambda lib, dt: getattr(lib.nn, cls)(dtype=dt, **{**base, **kwargs})


def _encoder(norm: bool, **kwargs):
    def build(lib, dt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = _layer("TransformerEncoderLayer", **kwargs)(lib, dt)
            final = lib.nn.LayerNorm(E, dtype=dt) if norm else None
            return lib.nn.TransformerEncoder(layer, 2, norm=final)
    return build


def _decoder(**kwargs):
    def build(lib, dt):
        layer = _layer("TransformerDecoderLayer", **kwargs)(lib, dt)
        return lib.nn.TransformerDecoder(layer, 2, norm=lib.nn.LayerNorm(E, dtype=dt))
    return build


def _transformer(lib, dt):
    return lib.nn.Transformer(E, H, 1, 1, dim_feedforward=8, dropout=0.0, dtype=dt)


def _src(masks=None, **forward):
    def call(lib, module, **tensors):
        return module(*tensors.values(), **(masks(lib) if masks else {}), **forward)
    return call


def _causal(lib, n):
    return lib.nn.Transformer.generate_square_subsequent_mask(n, dtype=lib.float64)


TRANSFORMER_CASES = {
    "encoder_layer": (_layer("TransformerEncoderLayer"), {"src": X}, _src()),
    "encoder_layer_gelu_norm_first": (
        _layer("TransformerEncoderLayer", activation="gelu", norm_first=True, batch_first=True),
        {"src": _random(N, L, E)},
        _src(lambda lib: _masks(lib, {"src_key_padding_mask": SRC_KPM,
                                      "src_mask": SRC_MASK}))),
    "encoder_layer_callable_activation": (
        _layer("TransformerEncoderLayer", activation=lambda x: x.tanh()), {"src": X},
        _src(lambda lib: {"src_mask": _causal(lib, L)}, is_causal=True)),
    "encoder_layer_unbatched": (_layer("TransformerEncoderLayer", bias=False),
                                {"src": _random(L, E)}, _src()),
    "encoder_causal_detected": (_encoder(norm=True), {"src": X},
                                _src(lambda lib: {"mask": _causal(lib, L)})),
    "encoder_padding": (_encoder(norm=False, batch_first=True), {"src": _random(N, L, E)},
                        _src(lambda lib: _masks(lib, {"src_key_padding_mask": SRC_KPM}))),
    "decoder_layer": (_layer("TransformerDecoderLayer"), {"tgt": X, "memory": MEM},
                      _src(lambda lib: {"tgt_mask": _causal(lib, L),
                                        **_masks(lib, {"memory_key_padding_mask": KPM})},
                           tgt_is_causal=True)),
    "decoder_layer_norm_first": (
        _layer("TransformerDecoderLayer", norm_first=True, activation="gelu"),
        {"tgt": X, "memory": MEM},
        _src(lambda lib: _masks(lib, {"memory_mask": MASK2, "tgt_key_padding_mask": SRC_KPM}))),
    "decoder": (_decoder(batch_first=True), {"tgt": _random(N, L, E), "memory": _random(N, S, E)},
                _src(lambda lib: {"tgt_mask": _causal(lib, L)})),
    "transformer": (_transformer, {"src": MEM, "tgt": X},
                    _src(lambda lib: {"tgt_mask": _causal(lib, L),
                                      **_masks(lib, {"src_key_padding_mask": KPM})})),
}


@pytest.mark.parametrize("name", list(TRANSFORMER_CASES))
def test_transformer_modules_match_torch(name):
    factory, inputs, call = TRANSFORMER_CASES[name]
    _check_same(factory, None, inputs, call)


@pytest.mark.parametrize("name", ["encoder_layer", "decoder_layer"])
def test_transformer_layers_float32_and_train_mode(name):
    factory, inputs, call = TRANSFORMER_CASES[name]
    _check_same(factory, None, inputs, call, dtype="float32")
    _check_same(factory, None, inputs, call, train=True)


def test_transformer_parameter_names_are_torchs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ag.nn.Transformer(E, H, 2, 1, dim_feedforward=8)
        theirs = torch.nn.Transformer(E, H, 2, 1, dim_feedforward=8)
    assert ({k: tuple(v.shape) for k, v in ours.state_dict().items()}
            == {k: tuple(v.shape) for k, v in theirs.state_dict().items()})
    mask = ag.nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(
        mask.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(3).numpy())


def test_encoder_nested_tensor_warning_and_errors_match_torch():
    for lib in (ag, torch):
        layer = lib.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8)
        with pytest.warns(UserWarning, match=r"^enable_nested_tensor is True, but "
                          r"self.use_nested_tensor is False because encoder_layer.self_attn."
                          r"batch_first was not True\(use batch_first"):
            lib.nn.TransformerEncoder(layer, 1)
        with pytest.raises(RuntimeError, match="^activation should be relu/gelu, not tanh$"):
            lib.nn.TransformerEncoderLayer(4, 2, activation="tanh")
        model = lib.nn.Transformer(4, 2, 1, 1, dim_feedforward=8)
        with pytest.raises(RuntimeError, match="^the batch number of src and tgt must be equal"):
            model(lib.ones(3, 2, 4), lib.ones(3, 1, 4))
        with pytest.raises(RuntimeError, match="^the feature number of src and tgt must be"):
            model(lib.ones(3, 2, 4), lib.ones(3, 2, 5))


@pytest.mark.parametrize("grad", [False, True])
def test_encoder_inference_fast_path_zeroes_padding_as_torch(grad):
    """Without grad, torch's eval-mode encoder runs a nested tensor of the unpadded tokens:
    padded positions come out as zeros (then the final norm); with grad it does not."""
    theirs, ours = _pair(_encoder(norm=True, batch_first=True), "float32")
    padding = np.array([[False, False, True, True], [False, False, False, False]])
    src = _random(N, L, E).astype(np.float32)
    outs = []
    for lib, module in ((torch, theirs), (ag, ours)):
        with lib.set_grad_enabled(grad):
            out = module(lib.tensor(src), src_key_padding_mask=lib.tensor(padding))
        outs.append(out.detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], **TOL["float32"])
    bias = ours.norm.bias.detach().numpy()   # norm(0) is its bias
    assert np.allclose(outs[1][0, 2], bias) != grad
