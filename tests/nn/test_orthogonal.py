"""nn.utils.parametrizations.orthogonal compared with torch, both starting from the same
original weight: the maps (matrix_exp, cayley, householder; the default by shape), with and
without trivialization, tall / square / wide / batched weights: the weight's values, its
orthogonality and graph, state_dict keys and values, gradients of the original (and of the
result through base), assignment through right_inverse, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from tests.torch_parity import graph_names

from .module_parity import raised

torch = pytest.importorskip("torch")

MAPS = [None, "matrix_exp", "cayley", "householder"]
SHAPES = [(3, 3), (4, 3), (3, 4)]


def _weight(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _linear(lib, w, dtype):
    m = lib.nn.Linear(w.shape[1], w.shape[0], bias=False)
    with lib.no_grad():
        m.weight = lib.nn.Parameter(lib.tensor(w, dtype=dtype))
    return m


def _pair(shape, orthogonal_map, use_trivialization=True, dtype="float64", seed=0):
    """The same Linear made orthogonal in agdebug and torch; a wide or tall weight gets
    torch's base copied over (it completes its base with random columns, from each library's
    own RNG), a square one keeps agdebug's own base, so that base is compared too."""
    w = _weight(shape, seed)
    mods = []
    for lib in (ag, torch):
        m = _linear(lib, w, getattr(lib, dtype))
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map,
                                                 use_trivialization=use_trivialization)
        mods.append(m)
    _copy_base(*mods)
    return mods


def _copy_base(a, t):
    base = getattr(t.parametrizations.weight[0], "base", None)
    if base is not None and base.shape != t.parametrizations.weight.original.shape:
        a.parametrizations.weight[0].base = ag.tensor(base.numpy())


def _close(got, want, tol=1e-10):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("orthogonal_map", MAPS)
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_weight_and_gradients_same_as_torch(shape, orthogonal_map, use_trivialization):
    a, t = _pair(shape, orthogonal_map, use_trivialization)
    assert list(a.state_dict()) == list(t.state_dict())
    for key, value in t.state_dict().items():
        _close(a.state_dict()[key], value)
    wa, wt = a.weight, t.weight
    assert graph_names(wa) == graph_names(wt)
    _close(wa, wt)
    Q = wa.detach().numpy()
    gram = Q.T @ Q if shape[0] >= shape[1] else Q @ Q.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-12)
    upstream = np.cos(np.arange(np.prod(shape))).reshape(shape)
    for lib, w in ((ag, wa), (torch, wt)):
        (w * lib.tensor(upstream)).sum().backward()
    _close(a.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad)


@pytest.mark.parametrize("orthogonal_map", MAPS)
def test_a_moved_original_gives_torch_s_weight(orthogonal_map):
    # away from the -I the registration leaves, each map's own formula is seen
    a, t = _pair((4, 3), orthogonal_map, seed=1)
    step = _weight((4, 3), seed=2) * 0.3
    for m, lib in ((a, ag), (t, torch)):
        with lib.no_grad():
            m.parametrizations.weight.original.add_(lib.tensor(step))
    _close(a.weight, t.weight)
    assert graph_names(a.weight) == graph_names(t.weight)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_default_map_and_dtype(dtype):
    for shape, expected in (((3, 3), "matrix_exp"), ((5, 2), "householder"),
                            ((2, 5), "householder")):
        a, t = _pair(shape, None, dtype=dtype)
        assert a.parametrizations.weight[0].orthogonal_map.name == expected
        assert t.parametrizations.weight[0].orthogonal_map.name == expected
        assert str(a.weight.dtype) == str(t.weight.dtype)
        _close(a.weight, t.weight, tol=1e-5 if dtype == "float32" else 1e-10)


def test_an_orthogonal_initial_value_is_kept():
    Q = np.linalg.qr(_weight((3, 3)))[0]
    m = _linear(ag, Q, ag.float64)
    ag.nn.utils.parametrizations.orthogonal(m)
    np.testing.assert_allclose(m.weight.detach().numpy(), Q, atol=1e-14)
    np.testing.assert_array_equal(m.parametrizations.weight.original.detach().numpy(), -np.eye(3))


@pytest.mark.parametrize("shape", SHAPES + [(2, 4, 3)])
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_assignment_goes_through_right_inverse(shape, orthogonal_map):
    def make(lib):
        p = lib.nn.Module()
        p.weight = lib.nn.Parameter(lib.tensor(_weight(shape)))
        return lib.nn.utils.parametrizations.orthogonal(p, orthogonal_map=orthogonal_map)
    a, t = make(ag), make(torch)
    Q = np.linalg.qr(_weight(shape, seed=3) if shape[-2] >= shape[-1]
                     else np.swapaxes(_weight(shape, seed=3), -1, -2))[0]
    Q = Q if shape[-2] >= shape[-1] else np.swapaxes(Q, -1, -2)
    a.weight, t.weight = ag.tensor(Q), torch.tensor(Q)
    _copy_base(a, t)
    _close(a.weight, t.weight)
    np.testing.assert_allclose(a.weight.detach().numpy(), Q, atol=1e-12)
    _close(a.parametrizations.weight.original, t.parametrizations.weight.original)
    assert a.parametrizations.weight.original.requires_grad


def test_assigning_a_matrix_that_is_not_orthogonal_orthogonalizes_it():
    results = []
    for lib in (ag, torch):
        m = lib.nn.utils.parametrizations.orthogonal(_linear(lib, _weight((3, 3)), lib.float64))
        m.weight = lib.tensor(_weight((3, 3), seed=4))
        results.append(m.weight)
    _close(*results)


def test_householder_without_trivialization_inverts_by_qr():
    Q = np.linalg.qr(_weight((5, 3), seed=5))[0]
    originals = []
    for lib in (ag, torch):
        m = lib.nn.utils.parametrizations.orthogonal(
            _linear(lib, _weight((5, 3)), lib.float64), orthogonal_map="householder",
            use_trivialization=False)
        m.weight = lib.tensor(Q)
        originals.append(m.parametrizations.weight.original)
        np.testing.assert_allclose(m.weight.detach().numpy(), Q, atol=1e-12)
    _close(*originals)


def test_no_base_without_trivialization():
    a, t = _pair((3, 3), "cayley", use_trivialization=False)
    assert not hasattr(a.parametrizations.weight[0], "base")
    assert list(a.state_dict()) == list(t.state_dict()) == ["parametrizations.weight.original"]


@pytest.mark.parametrize("case", ["1d", "bad_map", "no_such_name", "bad_shape",
                                  "assign_matrix_exp", "assign_cayley"])
def test_errors_same_as_torch(case):
    def run(lib):
        def go():
            orth = lib.nn.utils.parametrizations.orthogonal
            if case == "1d":
                m = lib.nn.Module()
                m.weight = lib.nn.Parameter(lib.ones(3))
                orth(m)
            elif case == "bad_map":
                orth(lib.nn.Linear(3, 3), orthogonal_map="qr")
            elif case == "no_such_name":
                orth(lib.nn.Linear(3, 3), name="kernel")
            elif case == "bad_shape":
                m = orth(lib.nn.Linear(3, 3))
                m.weight = lib.eye(4)
            else:
                m = orth(lib.nn.Linear(3, 3), orthogonal_map=case[7:], use_trivialization=False)
                m.weight = lib.eye(3)
        return raised(go)
    got, want = run(ag), run(torch)
    assert want is not None
    if case == "no_such_name":   # the message prints the module, whose repr differs
        assert got[0] == want[0] and got[1].endswith("has no parameter or buffer with name "
                                                     "'kernel'")
        return
    assert got == want
