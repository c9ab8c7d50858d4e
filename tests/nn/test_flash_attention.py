"""``scaled_dot_product_attention`` on the CPU records torch's fused kernel where torch picks
it (4-D inputs of one head size, no dropout): one ScaledDotProductFlashAttentionForCpuBackward0
node with torch's saved values, its values and gradients, torch's NotImplemented node under
``create_graph=True``; elsewhere the math path's ops, as torch."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.nn.flash_attention import flash_attention

FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"
RNG = np.random.default_rng(0)

# (name, query shape, key/value shape, keywords): each on torch's flash path
FLASH_CASES = [
    ("plain", (2, 4, 5, 3), (2, 4, 5, 3), {}),
    ("causal", (2, 4, 5, 3), (2, 4, 5, 3), {"is_causal": True}),
    ("bool mask", (2, 4, 5, 3), (2, 4, 5, 3), {"mask": "bool"}),
    ("float mask", (2, 4, 5, 3), (2, 4, 5, 3), {"mask": "float"}),
    ("mask and causal", (2, 4, 5, 3), (2, 4, 5, 3), {"mask": "float", "is_causal": True}),
    ("scale", (2, 4, 5, 3), (2, 4, 5, 3), {"scale": 0.3}),
    ("longer keys, causal", (2, 4, 5, 3), (2, 4, 7, 3), {"is_causal": True}),
    ("grouped query", (2, 4, 5, 3), (2, 2, 5, 3), {"enable_gqa": True}),
]


def _arrays(q_shape, kv_shape, kw, dtype=np.float32):
    arrays = [RNG.standard_normal(s).astype(dtype) for s in (q_shape, kv_shape, kv_shape)]
    mask = None
    if kw.get("mask") == "bool":
        mask = RNG.random((q_shape[2], kv_shape[2])) > 0.3
        mask[1] = False   # a row every key is masked out of
    elif kw.get("mask") == "float":
        mask = RNG.standard_normal((q_shape[2], kv_shape[2])).astype(dtype)
    grad = RNG.standard_normal(q_shape).astype(dtype)
    return arrays, mask, grad


def _run(lib, arrays, mask, grad, kw):
    q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
    options = {key: value for key, value in kw.items() if key != "mask"}
    if mask is not None:
        options["attn_mask"] = lib.tensor(mask)
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **options)
    out.backward(lib.tensor(grad), retain_graph=True)
    node = out.grad_fn
    saved = {name: _shape_or_value(getattr(node, name)) for name in dir(node)
             if name.startswith("_saved_")}
    return node.name(), out.detach().numpy(), [t.grad.numpy() for t in (q, k, v)], saved


def _shape_or_value(value):
    return tuple(value.shape) if hasattr(value, "shape") else value


@pytest.mark.parametrize("name, q_shape, kv_shape, kw", FLASH_CASES,
                         ids=[c[0] for c in FLASH_CASES])
def test_the_fused_node_its_saved_values_and_gradients_match_torch(name, q_shape, kv_shape, kw):
    torch = pytest.importorskip("torch")
    arrays, mask, grad = _arrays(q_shape, kv_shape, kw)
    theirs, ours = (_run(lib, arrays, mask, grad, kw) for lib in (torch, ag))
    assert ours[0] == theirs[0] == FLASH
    assert ours[3] == theirs[3]   # query, key, value, output, logsumexp, mask; scale...
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["dropout", "3-D", "mask requires grad", "head sizes",
                                  "strided head", "broadcast batch"])
def test_torchs_math_path_cases_stay_on_it(case):
    torch = pytest.importorskip("torch")
    names = []
    for lib in (torch, ag):
        lib.manual_seed(0)
        q, k, v = (lib.randn(2, 3, 4, 5, requires_grad=True) for _ in range(3))
        kw = {}
        if case == "dropout":
            kw["dropout_p"] = 0.5
        elif case == "3-D":
            q, k, v = q[0], k[0], v[0]
        elif case == "mask requires grad":
            kw["attn_mask"] = lib.randn(4, 4, requires_grad=True)
        elif case == "head sizes":
            v = lib.randn(2, 3, 4, 6, requires_grad=True)
        elif case == "strided head":
            q = lib.randn(2, 3, 5, 4, requires_grad=True).transpose(-1, -2)
        else:
            k = lib.randn(1, 3, 4, 5, requires_grad=True)
        names.append(lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw).grad_fn.name())
    assert names[0] == names[1] != FLASH


@pytest.mark.parametrize("mask", [(3, 3), (5, 5), (2, 1, 5, 6), (3, 5, 6), (5, 6), (1, 5, 1)])
def test_a_mask_that_does_not_fit_the_scores_is_torchs_error(mask):
    torch = pytest.importorskip("torch")
    said = []
    for lib in (torch, ag):
        q, k = lib.randn(1, 2, 5, 4, requires_grad=True), lib.randn(1, 2, 6, 4)
        try:
            lib.nn.functional.scaled_dot_product_attention(q, k, k, attn_mask=lib.randn(*mask))
            said.append("ok")
        except RuntimeError as error:
            said.append(str(error))
    assert said[0] == said[1]


def test_a_second_derivative_raises_as_torch():
    torch = pytest.importorskip("torch")
    said = []
    for lib in (torch, ag):
        q = lib.randn(1, 2, 3, 4, requires_grad=True)
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        (g,) = lib.autograd.grad(out.sum(), q, create_graph=True)
        nodes = [f.name() for f, _ in g.grad_fn.next_functions if f is not None]
        with pytest.raises(RuntimeError) as error:
            g.sum().backward()
        said.append((nodes, str(error.value)))
    assert said[0] == said[1]
    assert "torch::autograd::NotImplemented" in said[1][0]


def test_logsumexp_as_torchs_kernel_gives_it():
    """The op's second output: each row's log-sum-exp, 0 for a row with every key masked
    out (whose attention is 0); float32 for half inputs."""
    torch = pytest.importorskip("torch")
    arrays, _, _ = _arrays((1, 2, 3, 4), (1, 2, 3, 4), {})
    mask = np.zeros((3, 3), np.float32)
    mask[1] = -np.inf
    out, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        *(torch.tensor(a) for a in arrays), 0.0, False, attn_mask=torch.tensor(mask))
    ours, our_lse = flash_attention(*(ag.tensor(a) for a in arrays), attn_mask=mask)
    np.testing.assert_allclose(our_lse.numpy(), lse.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.numpy(), out.numpy(), rtol=1e-5, atol=1e-6)
    assert not our_lse.requires_grad
    half = flash_attention(*(ag.tensor(a).half() for a in arrays))
    assert (half[0].dtype, half[1].dtype) == (ag.float16, ag.float32)


def test_fully_masked_rows_are_zero_and_their_gradients_too():
    arrays, mask, grad = _arrays((1, 2, 4, 3), (1, 2, 4, 3), {"mask": "bool"})
    q, k, v = (ag.tensor(a, requires_grad=True) for a in arrays)
    out = ag.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=ag.tensor(mask))
    assert out.grad_fn.name() == FLASH
    out.backward(ag.tensor(grad))
    assert not out.detach().numpy()[:, :, 1].any() and not q.grad.numpy()[:, :, 1].any()


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"enable_gqa": True}],
                         ids=["plain", "causal", "grouped"])
def test_gradcheck_in_float64(kw):
    kv_heads = 1 if kw.get("enable_gqa") else 2
    q = ag.tensor(RNG.standard_normal((1, 2, 3, 2)), requires_grad=True)
    k, v = (ag.tensor(RNG.standard_normal((1, kv_heads, 4, 2)), requires_grad=True)
            for _ in range(2))
    f = lambda q, k, v: ag.nn.functional.scaled_dot_product_attention(q, k, v, **kw)  # noqa: E731
    assert f(q, k, v).grad_fn.name() == FLASH
    assert ag.autograd.gradcheck(f, (q, k, v))


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"mask": "bool"}, {"scale": 0.3}],
                         ids=["plain", "causal", "bool mask", "scale"])
def test_values_are_the_attention_formula_in_float64(kw):
    """Without torch: the fused node's output is softmax(q k^T * scale + mask) v, in float64
    to 1e-12 (a masked-out row 0), recorded or not."""
    arrays, mask, _ = _arrays((2, 2, 4, 3), (2, 2, 5, 3), kw, dtype=np.float64)
    q, k, v = arrays
    scores = q @ np.swapaxes(k, -1, -2) * kw.get("scale", 1 / np.sqrt(3))
    allowed = np.ones(scores.shape[-2:], bool)
    if kw.get("is_causal"):
        allowed = np.tri(4, 5, dtype=bool)
    if mask is not None:
        allowed = allowed & mask
    scores = np.where(allowed, scores, -np.inf)
    with np.errstate(invalid="ignore"):
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights = np.nan_to_num(weights / weights.sum(-1, keepdims=True))
    expected = weights @ v
    options = {key: value for key, value in kw.items() if key != "mask"}
    if mask is not None:
        options["attn_mask"] = ag.tensor(mask)
    for grad in (True, False):
        tensors = [ag.tensor(a, requires_grad=grad) for a in arrays]
        out = ag.nn.functional.scaled_dot_product_attention(*tensors, **options)
        assert (out.grad_fn.name() if grad else out.grad_fn) == (FLASH if grad else None)
        np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12, atol=1e-14)
