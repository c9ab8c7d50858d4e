"""Random DAGs of elementwise ops, built from one recipe with agdebug and with torch.

Values, leaf gradients (backward) and second-order gradients (grad, create_graph) must
agree. Intermediates are reused, shapes broadcast, reductions feed back into the graph.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agdebug as ag

SHAPES = [(3,), (2, 3), (1, 3), (2, 1), ()]
UNARY = {
    "exp": lambda a: (a * 0.3).exp(),     # keep values small
    "tanh": lambda a: a.tanh(),
    "sin": lambda a: a.sin(),
    "sum": lambda a: a.sum(),
    "sum_last": lambda a: a.sum(-1, keepdim=True) if a.dim() else a,
    "neg": lambda a: -a,
}
BINARY = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "sub": lambda a, b: a - b,
    "scale_add": lambda a, b: a * 0.5 + b,
}

leaf_strategy = st.lists(st.sampled_from(range(len(SHAPES))), min_size=1, max_size=4)
step_strategy = st.one_of(
    st.tuples(st.just("u"), st.sampled_from(sorted(UNARY)), st.integers(0, 10**6)),
    st.tuples(st.just("b"), st.sampled_from(sorted(BINARY)), st.integers(0, 10**6),
              st.integers(0, 10**6)),
)
recipe_strategy = st.tuples(leaf_strategy, st.lists(step_strategy, min_size=1, max_size=12),
                            st.integers(0, 2**31 - 1))


def build(lib, recipe):
    leaf_shapes, steps, seed = recipe
    rng = np.random.default_rng(seed)
    leaves = [lib.tensor(rng.uniform(-1.5, 1.5, SHAPES[i]), requires_grad=True)
              for i in leaf_shapes]
    return build_from(leaves, steps)


def build_from(leaves, steps):
    """Apply ``steps`` to a pool that starts as ``leaves``; returns (leaves, pool, out)."""
    pool = list(leaves)
    for step in steps:
        if step[0] == "u":
            pool.append(UNARY[step[1]](pool[step[2] % len(pool)]))
        else:
            pool.append(BINARY[step[1]](pool[step[2] % len(pool)], pool[step[3] % len(pool)]))
    # every node contributes, so reused intermediates receive gradient from many places
    out = pool[-1].sum()
    for k, t in enumerate(pool[len(leaves):-1]):
        out = out + t.sum() * (0.1 * (k + 1))
    return leaves, pool, out


def _np(t):
    return None if t is None else np.asarray(t.detach().numpy(), dtype=np.float64)


def run(lib, recipe):
    leaves, pool, out = build(lib, recipe)
    out.backward()
    first = [_np(t.grad) for t in leaves]
    leaves2, _, out2 = build(lib, recipe)
    gs = lib.autograd.grad(out2, leaves2, create_graph=True, allow_unused=True)
    used = [(t, g) for t, g in zip(leaves2, gs) if g is not None and g.requires_grad]
    second = []
    if used:
        total = sum((g * g).sum() for _, g in used)
        second = [_np(g) for g in lib.autograd.grad(total, [t for t, _ in used],
                                                    allow_unused=True)]
    return [_np(t) for t in pool], _np(out), first, [_np(g) for g in gs], second


def _same(a, b):
    if a is None or b is None:
        assert a is None and b is None
        return
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(recipe=recipe_strategy)
def test_random_graph_matches_torch(recipe):
    torch = pytest.importorskip("torch")
    got = run(ag, recipe)
    want = run(torch, recipe)
    for g_group, w_group in zip(got, want):
        if isinstance(g_group, list):
            assert len(g_group) == len(w_group)
            for a, b in zip(g_group, w_group):
                _same(a, b)
        else:
            _same(g_group, w_group)


@settings(max_examples=15, deadline=None)
@given(recipe=recipe_strategy)
def test_random_graph_backward_equals_grad(recipe):
    # without torch: .grad from backward() equals autograd.grad of a fresh build
    _, _, first, via_grad, _ = run(ag, recipe)
    for a, b in zip(first, via_grad):
        _same(a, b)


def _torch_order(torch, recipe) -> list:
    """Node names in the order torch's engine runs them (a pre-hook on every node)."""
    _, _, out = build(torch, recipe)
    order, seen, stack = [], set(), [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        fn.register_prehook(lambda grads, name=fn.name(): order.append(name))
        stack.extend(next_fn for next_fn, _ in fn.next_functions)
    out.backward()
    return order


def _agdebug_order(recipe) -> list:
    """Node names in the order agdebug's engine runs them (its node_started events; no
    hooks, so every node takes the engine's common path)."""
    from agdebug.debug import record
    _, _, out = build(ag, recipe)
    with record() as trace:
        out.backward()
    return [e.name for e in trace.events if e.kind == "node_started"]


@settings(max_examples=30, deadline=None)
@given(recipe=recipe_strategy)
def test_random_graph_runs_its_nodes_in_torchs_order(recipe):
    torch = pytest.importorskip("torch")
    assert _agdebug_order(recipe) == _torch_order(torch, recipe)


def test_fixed_recipe_with_reuse():
    recipe = ([0, 1], [("b", "mul", 0, 1), ("u", "exp", 2), ("b", "add", 2, 3),
                       ("u", "sum_last", 4), ("b", "sub", 5, 0), ("u", "tanh", 2)], 7)
    leaves, pool, out = build(ag, recipe)
    out.backward()
    a, b = (np.asarray(t.detach().numpy()) for t in leaves)
    # finite differences in float64 on the same recipe
    for k, leaf in enumerate(leaves):
        base = [np.asarray(t.detach().numpy()).copy() for t in leaves]
        numeric = np.zeros_like(base[k])
        for idx in np.ndindex(base[k].shape):
            vals = []
            for eps in (1e-6, -1e-6):
                arrays = [v.copy() for v in base]
                arrays[k][idx] += eps
                vals.append(_eval(arrays, recipe))
            numeric[idx] = (vals[0] - vals[1]) / 2e-6
        np.testing.assert_allclose(leaf.grad.numpy(), numeric, rtol=1e-5, atol=1e-7)
    assert a.shape == (3,) and b.shape == (2, 3)


def _eval(arrays, recipe):
    steps = recipe[1]
    with ag.no_grad():
        leaves = [ag.tensor(a) for a in arrays]
        _, _, out = build_from(leaves, steps)
    return out.item()
