"""agdebug.nn.utils against torch.nn.utils: clipping (values, returned norm, errors, nothing
recorded) and parameters <-> vector."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import agdebug as ag

G1 = np.random.default_rng(0).standard_normal((3, 4))
G2 = np.random.default_rng(1).standard_normal(5) * 3


def _params(lib, dtype="float64", grads=True):
    ps = [lib.nn.Parameter(lib.zeros(3, 4, dtype=getattr(lib, dtype))),
          lib.nn.Parameter(lib.zeros(5, dtype=getattr(lib, dtype))),
          lib.nn.Parameter(lib.zeros(2, dtype=getattr(lib, dtype)))]   # no grad
    if grads:
        ps[0].grad = lib.tensor(G1, dtype=ps[0].dtype)
        ps[1].grad = lib.tensor(G2, dtype=ps[1].dtype)
    return ps


def _grads(ps):
    return [p.grad.numpy().copy() for p in ps if p.grad is not None]


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, -math.inf, 0.0, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm_matches_torch(torch, norm_type, max_norm, dtype):
    results = []
    for lib in (ag, torch):
        ps = _params(lib, dtype)
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=float(norm_type))
        results.append((total, _grads(ps)))
    (ours, our_grads), (theirs, their_grads) = results
    assert ours.dtype.__str__() == str(theirs.dtype) and tuple(ours.shape) == ()
    assert not ours.requires_grad and ours.grad_fn is None
    rtol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=rtol)
    for a, b in zip(our_grads, their_grads):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol)


def test_clip_grad_norm_single_tensor_generator_and_empty(torch):
    for lib in (ag, torch):
        w = lib.nn.Parameter(lib.zeros(2))
        w.grad = lib.tensor([3.0, 4.0])
        assert lib.nn.utils.clip_grad_norm_(w, 1.0).item() == pytest.approx(5.0)
        assert w.grad.tolist() == pytest.approx([0.6, 0.8], rel=1e-6)
        no_grads = lib.nn.utils.clip_grad_norm_([lib.nn.Parameter(lib.ones(2))], 1.0)
        assert no_grads.item() == 0.0 and no_grads.dtype == lib.float32
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        assert [str(c.message) for c in caught] == [
            "`parameters` is an empty generator, no gradient clipping will occur."]


# agdebug's elementwise multiply lets NumPy's "invalid value" RuntimeWarning (inf * 0) through;
# torch is silent. That belongs to the ops, not to clipping.
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_clip_grad_norm_nonfinite(torch, bad):
    messages = []
    for lib in (ag, torch):
        w = lib.nn.Parameter(lib.zeros(2))
        w.grad = lib.tensor([1.0, bad])
        with pytest.raises(RuntimeError) as info:
            lib.nn.utils.clip_grad_norm_(w, 1.0, error_if_nonfinite=True)
        messages.append(str(info.value))
        w.grad = lib.tensor([1.0, bad])
        total = lib.nn.utils.clip_grad_norm_(w, 1.0)   # scales by the non-finite norm
        assert not math.isfinite(total.item())
    assert messages[0] == messages[1]


def test_clipping_records_nothing_on_graph_carrying_grads(lib):
    w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
    (g,) = lib.autograd.grad((w ** 3).sum(), w, create_graph=True)
    w.grad = g
    node = g.grad_fn
    total = lib.nn.utils.clip_grad_norm_(w, 1.0)
    assert total.grad_fn is None and not total.requires_grad
    assert w.grad.grad_fn is node   # scaled in place, no new node
    lib.nn.utils.clip_grad_value_(w, 0.1)
    assert w.grad.grad_fn is node
    assert w.grad.tolist() == pytest.approx([0.1, 0.1])


def test_clip_grad_value_matches_torch(torch):
    results = []
    for lib in (ag, torch):
        ps = _params(lib)
        assert lib.nn.utils.clip_grad_value_(ps, 0.7) is None
        results.append(_grads(ps))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_clip_grad_norm_deprecated_name_warns(torch):
    for lib in (ag, torch):
        with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
            lib.nn.utils.clip_grad_norm(_params(lib), 1.0)


def test_parameters_to_vector_matches_torch(torch):
    outs = []
    for lib in (ag, torch):
        net = lib.nn.Linear(3, 2)
        with lib.no_grad():
            net.weight.copy_(lib.tensor(G1[:2, :3], dtype=lib.float32))
            net.bias.fill_(0.5)
        vec = lib.nn.utils.parameters_to_vector(net.parameters())
        vec.pow(2).sum().backward()
        outs.append((vec, vec.grad_fn.name(), net.weight.grad.numpy().copy()))
    (v1, n1, g1), (v2, n2, g2) = outs
    np.testing.assert_array_equal(v1.detach().numpy(), v2.detach().numpy())
    assert v1.grad_fn.name() == "CatBackward0" == n2
    np.testing.assert_array_equal(g1, g2)


def test_vector_to_parameters_matches_torch(torch):
    for lib in (ag, torch):
        net = lib.nn.Linear(3, 2)
        vec = lib.arange(8.0, requires_grad=True)
        lib.nn.utils.vector_to_parameters(vec * 2, net.parameters())
        assert net.weight.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
        assert net.bias.tolist() == [12.0, 14.0]
        assert net.weight.is_leaf and net.weight.grad_fn is None and net.weight.requires_grad
        with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
            lib.nn.utils.vector_to_parameters([1.0], net.parameters())
