"""torch comparisons for agdebug/ops/tensor_methods/torch_functions.py: queries, creation, sampling, integer and
index helpers. Values, dtypes, grad_fn names and errors (see torch_parity.py); random
functions: distributions with a fixed seed, determinism under manual_seed, argument errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, evaluate

torch = pytest.importorskip("torch")

F = "lib.tensor([1.5, -2.25, 0.0, 3.75])"
N = "lib.tensor([1, 2, 0, 3, 2])"
B = "lib.tensor([True, False, True])"
E = "lib.tensor([])"
EI = "lib.tensor([], dtype=lib.int64)"


def same(expr: str, setup: dict | None = None) -> None:
    """assert_same_as_torch, and plain results (bools, ints, strings, sizes, None) equal."""
    kind, want = evaluate(torch, expr, setup)
    if kind == "ok" and not isinstance(want, (torch.Tensor, tuple)) or \
            isinstance(want, torch.Size):
        got_kind, got = evaluate(ag, expr, setup)
        assert (got_kind, got) == (kind, want)
        return
    assert_same_as_torch(torch, expr, setup)


G = {"x": "lib.tensor([1.5, 2.5, 3.25], requires_grad=True)",
     "n": "lib.tensor([1, 2, 3])"}

SAME = [
    # queries and creation
    "lib.is_tensor(lib.ones(1))", "lib.is_tensor([1])", f"lib.is_floating_point({N})",
    f"lib.is_floating_point({F})", f"lib.is_complex({F})", f"lib.numel({N})",
    f"lib.numel({E})", f"lib.typename({F})", f"lib.typename({N})", f"lib.typename({B})",
    "lib.typename(1)", "lib.typename(lib.tensor([1.0], dtype=lib.float64))",
    "lib.scalar_tensor(3)", "lib.scalar_tensor(True)", "lib.scalar_tensor(2.5)",
    "lib.scalar_tensor(3, dtype=lib.int64)", "lib.asarray([1, 2])", "lib.asarray([1.5, 2])",
    "lib.asarray(3.5)", "lib.asarray([1, 2], dtype=lib.float64)",
    "lib.logspace(0, 2, 3)", "lib.logspace(0, 2, 3, base=2)", "lib.logspace(-1, 1, 5)",
    "lib.logspace(0, 2, 3, dtype=lib.int64)", "lib.logspace(0, 2, 0)",
    "lib.logspace(0, 2, 1)", "lib.logspace(0, 3, 4, dtype=lib.float64)",
    "lib.logspace(0, 2, -1)",
    # integers and indices
    f"lib.isin({N}, 2)", f"lib.isin(2, {N})", f"lib.isin({N}, lib.tensor([2., 3.]))",
    f"lib.isin({N}, {N}, invert=True)", f"lib.isin({F}, lib.tensor([0.0, 3.75]))",
    f"lib.isin({EI}, {N})", f"lib.isin({N}, lib.tensor([0, 3]), assume_unique=True)",
    f"lib.bincount({N})", f"lib.bincount({N}, minlength=7)", f"lib.bincount({EI})",
    f"lib.bincount({EI}, minlength=2)", f"lib.bincount({N}, minlength=-1)",
    f"lib.bincount({N}, weights={N})", "lib.bincount(lib.tensor([-1]))",
    f"lib.bincount({F})", f"lib.bincount({N}.view(5, 1))", f"{N}.bincount()",
    f"lib.bincount({N}, weights=lib.tensor([1.0, 2.0]))",
    f"lib.bincount({N}, weights=lib.tensor([1.0, 2, 3, 4, 5], dtype=lib.float64))",
    f"lib.bincount({B})",
    "lib.cartesian_prod(lib.tensor([1, 2]), lib.tensor([3, 4, 5]))",
    "lib.cartesian_prod(lib.tensor([1, 2]))",
    "lib.cartesian_prod(lib.tensor([1, 2]), lib.tensor([1.0]))",
    "lib.cartesian_prod(lib.tensor([1, 2]), lib.tensor([[1]]))",
    f"lib.combinations({N})", f"lib.combinations({N}, 3)", f"lib.combinations({N}, 0)",
    f"lib.combinations({N}, 6)", f"lib.combinations({N}, with_replacement=True)",
    f"lib.combinations({N}.view(5, 1))", f"lib.combinations({N}, -1)",
    f"lib.combinations({E})",
    "lib.unravel_index(lib.tensor([4, 5, 0]), (2, 3))", "lib.unravel_index(lib.tensor(4), (2, 3))",
    "lib.unravel_index(lib.tensor([-1, -6]), (2, 3))",
    "lib.unravel_index(lib.tensor([6, 100, -7]), (2, 3))",
    "lib.unravel_index(lib.tensor([1]), (2, -3))", "lib.unravel_index(lib.tensor([1]), ())",
    "lib.unravel_index(lib.tensor([1.0]), (2, 3))", "lib.unravel_index(lib.tensor([3]), 5)",
    "lib.unravel_index(lib.tensor([[1, 2], [3, 4]]), (5, 1))",
    f"lib.argwhere({F})", f"lib.argwhere({N}.view(1, 5))", f"{B}.argwhere()",
    f"lib.argwhere({E})",
    f"lib.gcd({N}, lib.tensor(4))", f"lib.lcm({N}, lib.tensor([4, 0, 6, 4, 3]))",
    f"lib.gcd({F}, {F})", f"lib.gcd({N}, 2)", f"{N}.gcd(lib.tensor([-4]))",
    f"lib.gcd({B}, {B})", f"lib.lcm({N}.to(lib.int32), {N})",
    f"lib.gcd({N}, lib.tensor([1, 2]))",
    "lib.signbit(lib.tensor([-0.0, 0.0, -1.5, float('nan'), -float('inf')]))",
    f"lib.signbit({N})", f"lib.signbit({B})", f"{F}.signbit()",
    "lib.isposinf(lib.tensor([float('inf'), -float('inf'), 1.0, float('nan')]))",
    "lib.isneginf(lib.tensor([float('inf'), -float('inf'), 1.0, float('nan')]))",
    f"lib.isposinf({N})", f"lib.isneginf({B})", f"lib.isreal({F})", f"lib.isreal({N})",
    f"{F}.isposinf()", f"{E}.isneginf()", f"lib.isreal({E})", "lib.signbit(1.0)",
    f"lib.rsub({F}, 2)", f"lib.rsub({N}, 2)", f"lib.rsub({N}, 2.5)",
    f"lib.rsub({N}[:4], {F})", f"lib.rsub({F}, {N}[:4], alpha=2)", f"lib.rsub({B}, {B})",
    f"lib.rsub({B}, 1)", f"lib.rsub({N}, 3, alpha=2)",
]


@pytest.mark.parametrize("expr", SAME)
def test_same_as_torch(expr):
    same(expr)


GRAD_FNS = [
    "lib.cartesian_prod(x, x)", "lib.combinations(x)", "lib.combinations(x, 3)",
    "lib.combinations(x, 4)", "lib.combinations(x, with_replacement=True)",
    "lib.rsub(x, 2)", "lib.rsub(x, 2, alpha=3)", "lib.rsub(x, x.detach())",
    "lib.rsub(n, x)", "lib.rsub(x, x, alpha=0.5)", "lib.bincount(n, weights=x).detach()",
    # (the node itself: agdebug's name() says NotImplemented, torch's
    # torch::autograd::NotImplemented, see test_not_implemented_nodes)
    "lib.autograd.grad(lib.rsub(x, x * 2, alpha=3).sum(), x)",
    "lib.autograd.grad(lib.rsub(x, 2, alpha=3).sum(), x)",
    "lib.autograd.grad(lib.combinations(x, with_replacement=True).pow(2).sum(), x)",
    "lib.autograd.grad(lib.cartesian_prod(x, x * 2).prod(1).sum(), x)",
    "lib.bincount(n, weights=x).sum().backward()",
    "lib.normal(x, 0.0)", "lib.normal(1.0, x * 0)", "lib.normal(x, x * 0)",
    "lib.autograd.grad(lib.normal(x, x * 0).sum(), x)",
    "lib.autograd.grad(lib.normal(x, 0.0).sum(), x)",
    "lib.bernoulli(x * 0)", "lib.bernoulli(x * 0, p=1.0).detach()", "lib.bernoulli(x, p=-2.0)",
    "lib.bernoulli(x * 0, p=1.0).sum().backward()",
    "lib.autograd.grad(lib.bernoulli(x * 0).sum(), x)",
    "lib.poisson(x * 0)", "lib.autograd.grad(lib.poisson(x * 0).sum(), x)", "lib.normal(x, -1.0)",
    "lib.normal(x, -x)", "lib.normal(-x, x * 0)", "lib.normal(1.0, -x)",
    "lib.normal(0.0, -1.0, (2,))",
    "lib.normal(0.0, 1.0, (2, 3)).shape", "lib.normal(x, lib.zeros(2, 3))",
]


@pytest.mark.parametrize("expr", GRAD_FNS)
def test_graph_as_torch(expr):
    setup = dict(G)
    same(expr, setup)


RANDOM_ERRORS = [
    "lib.randperm(-1)", "lib.randint_like(lib.ones(2), 3, 3)",
    "lib.bernoulli(lib.tensor([1.5]))", "lib.bernoulli(lib.tensor([1]))",
    "lib.bernoulli(lib.tensor([0.5]), p=2.0)", "lib.poisson(lib.tensor([1]))",
    "lib.multinomial(lib.tensor([1.0, 2.0]), 3)", "lib.multinomial(lib.tensor([1, 2]), 1)",
    "lib.multinomial(lib.tensor([1.0, -1.0]), 1)", "lib.multinomial(lib.tensor([0.0, 0.0]), 1)",
    "lib.multinomial(lib.tensor([1.0, float('nan')]), 1)",
    "lib.multinomial(lib.ones(1, 1, 2), 1)", "lib.multinomial(lib.ones(2), 0)",
    "lib.multinomial(lib.zeros(0), 1, True)", "lib.multinomial(lib.zeros(2, 0), 1, True)",
    "lib.multinomial(lib.zeros(2, 0), 1)", "lib.multinomial(lib.zeros(0, 3), 1, True)",
    "lib.multinomial(lib.tensor([float('inf'), 1.0]), 1)",
    # deterministic cases of the samplers
    "lib.bernoulli(lib.tensor([0.0, 1.0, 1.0]))", "lib.bernoulli(lib.ones(3), p=0.0)",
    "lib.poisson(lib.zeros(2, dtype=lib.float64))",
    "lib.multinomial(lib.tensor([0.0, 1.0, 0.0]), 1)",
    "lib.multinomial(lib.tensor([[0.0, 1.0], [1.0, 0.0]]), 1)",
    "lib.multinomial(lib.tensor([0.0, 2.0, 0.0]), 4, replacement=True)",
    "lib.normal(lib.tensor([1.0, 2.0], dtype=lib.float64), 0.0)",
    "lib.randperm(0)", "lib.randperm(1)", "lib.randperm(4, dtype=lib.int32).sort()[0]",
    "lib.randperm(5).sort()[0]", "lib.randint_like(lib.ones(2, 3), 1, 2)",
    "lib.randint_like(lib.ones(2, dtype=lib.int32), 5).shape",
    "lib.randint_like(lib.ones(2, 3), 1, 2, dtype=lib.int64)",
]


@pytest.mark.parametrize("expr", RANDOM_ERRORS)
def test_random_arguments_as_torch(expr):
    same(expr)


def _draw():
    return [ag.normal(0.0, 1.0, (5,)), ag.randperm(6), ag.multinomial(ag.ones(4), 2),
            ag.bernoulli(ag.full((5,), 0.5)), ag.poisson(ag.full((5,), 3.0)),
            ag.randint_like(ag.zeros(4), 10), ag.normal(ag.zeros(3), ag.ones(3))]


def test_manual_seed_makes_samples_repeat():
    ag.manual_seed(7)
    first = [t.numpy().copy() for t in _draw()]
    ag.manual_seed(7)
    again = [t.numpy().copy() for t in _draw()]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(_draw()[0].numpy(), first[0])


def test_distributions_with_a_fixed_seed():
    ag.manual_seed(0)
    z = ag.normal(2.0, 3.0, (20000,)).numpy()
    assert abs(z.mean() - 2.0) < 0.1 and abs(z.std() - 3.0) < 0.1
    m = ag.normal(ag.full((20000,), -1.0), ag.full((20000,), 0.5)).numpy()
    assert abs(m.mean() + 1.0) < 0.02 and abs(m.std() - 0.5) < 0.02
    b = ag.bernoulli(ag.full((20000,), 0.3)).numpy()
    assert abs(b.mean() - 0.3) < 0.02 and set(np.unique(b)) == {0.0, 1.0}
    p = ag.poisson(ag.full((20000,), 4.0)).numpy()
    assert abs(p.mean() - 4.0) < 0.1 and abs(p.var() - 4.0) < 0.2
    r = ag.randint_like(ag.zeros(20000, dtype=ag.int64), 3, 6).numpy()
    assert set(np.unique(r)) == {3, 4, 5}
    assert sorted(ag.randperm(50).tolist()) == list(range(50))


def test_multinomial_frequencies_and_no_repeats():
    ag.manual_seed(0)
    weights = ag.tensor([1.0, 2.0, 7.0])
    draws = ag.multinomial(weights.expand(4000, 3), 1, replacement=True).numpy().ravel()
    freq = np.bincount(draws, minlength=3) / draws.size
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.03)
    rows = ag.multinomial(ag.ones(300, 5), 5).numpy()
    assert (np.sort(rows, axis=1) == np.arange(5)).all()   # without replacement: a permutation
    first = ag.multinomial(weights.expand(4000, 3), 1).numpy().ravel()
    np.testing.assert_allclose(np.bincount(first, minlength=3) / 4000, [0.1, 0.2, 0.7],
                               atol=0.03)
    assert ag.multinomial(weights, 2).dtype is ag.int64


def test_asarray_shares_and_copies():
    x = ag.ones(3, requires_grad=True)
    assert ag.asarray(x) is x
    assert ag.asarray(x, copy=True) is not x
    a = np.arange(3.0)
    t = ag.asarray(a)
    a[0] = 5.0
    assert t[0].item() == 5.0 and t.dtype is ag.float64
    assert ag.asarray(x, dtype=ag.float64).dtype is ag.float64
    assert ag.asarray([1.0], requires_grad=True).requires_grad


def test_not_implemented_nodes():
    """bincount with weights and bernoulli with a float p record torch's NotImplemented node
    (named without its C++ namespace here), whose backward raises torch's error."""
    x = ag.tensor([0.5, 0.25], requires_grad=True)
    for out in (ag.bincount(ag.tensor([0, 2]), weights=x), ag.bernoulli(x, p=0.5)):
        assert out.requires_grad and type(out.grad_fn).__name__ == "NotImplemented"
