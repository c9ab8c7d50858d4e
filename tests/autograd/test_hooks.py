"""Tensor hooks, node pre/post hooks, retain_grad, post-accumulate hooks, saved-tensor hooks.

Firing order and texts follow torch 2.13 (REFERENCE §9); order tests run the same code
with both libraries where torch is installed and also assert torch's recorded order.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import agdebug as ag

NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")
NO_GRAD_HOOK = "cannot register a hook on a tensor that doesn't require gradient"


def raises(exc, text):
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


def leaf(values, lib=ag):
    return lib.tensor(values, requires_grad=True)


# ------------------------------------------------------------------------- firing order

def _small_graph_order(lib):
    order = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: order.append("leaf tensor hook") or None)
    x.register_post_accumulate_grad_hook(
        lambda t: order.append("leaf post_accumulate_grad hook"))
    h = x * 2
    h.register_hook(lambda g: order.append("nonleaf tensor hook 1") or None)
    h.retain_grad()
    h.register_hook(lambda g: order.append(
        "nonleaf tensor hook 2 (after retain_grad), h.grad=%s" % (h.grad,)) or None)
    h.grad_fn.register_prehook(lambda g_out: order.append("h.grad_fn prehook") or None)
    h.grad_fn.register_hook(lambda g_in, g_out: order.append("h.grad_fn posthook") or None)
    y = h.sum()
    y.grad_fn.register_prehook(
        lambda g_out: order.append("y.grad_fn (SumBackward0) prehook") or None)
    y.grad_fn.register_hook(lambda g_in, g_out: order.append("y.grad_fn posthook") or None)
    acc = h.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda g_out: order.append("AccumulateGrad prehook") or None)
    acc.register_hook(lambda g_in, g_out: order.append("AccumulateGrad posthook") or None)
    y.backward()
    return order, h.grad.tolist()


REFERENCE_ORDER = [
    "y.grad_fn (SumBackward0) prehook",
    "y.grad_fn posthook",
    "nonleaf tensor hook 1",
    "nonleaf tensor hook 2 (after retain_grad), h.grad=None",
    "h.grad_fn prehook",
    "h.grad_fn posthook",
    "leaf tensor hook",
    "AccumulateGrad prehook",
    "leaf post_accumulate_grad hook",
    "AccumulateGrad posthook",
]


def test_hook_order_small_graph():
    order, hgrad = _small_graph_order(ag)
    assert order == REFERENCE_ORDER
    assert hgrad == [1.0, 1.0]


def test_hook_order_matches_torch(torch):
    assert _small_graph_order(ag) == _small_graph_order(torch)


def _branching_order(lib):
    """Hooks on a graph with two consumers of one non-leaf and two leaves."""
    order = []
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    for name, t in (("a", a), ("b", b)):
        t.register_hook(lambda g, n=name: order.append(f"{n} hook {g.tolist()}") or None)
        t.register_post_accumulate_grad_hook(lambda t, n=name: order.append(f"{n} post"))
    h = a * b
    h.register_hook(lambda g: order.append(f"h hook {g.tolist()}") or None)
    u = h.exp()
    v = h * a
    for name, t in (("u", u), ("v", v)):
        t.register_hook(lambda g, n=name: order.append(f"{n} hook") or None)
        t.grad_fn.register_prehook(lambda g, n=name: order.append(f"{n} node pre") or None)
        t.grad_fn.register_hook(lambda gi, go, n=name: order.append(f"{n} node post") or None)
    (u.sum() + v.sum()).backward()
    return order


def test_branching_hook_order_matches_torch(torch):
    got = _branching_order(ag)
    want = _branching_order(torch)
    assert [s.split(" [")[0] for s in got] == [s.split(" [")[0] for s in want]
    assert got == want or _close_lists(got, want)


def _close_lists(got, want):
    for g, w in zip(got, want):
        if g == w:
            continue
        gn, gv = g.split(" [", 1)
        wn, wv = w.split(" [", 1)
        if gn != wn or not np.allclose(eval("[" + gv), eval("[" + wv), rtol=1e-5):
            return False
    return len(got) == len(want)


# ------------------------------------------------------------------------- retain_grad

def test_retain_grad_gets_fully_hooked_value():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.register_hook(lambda g: g * 10)
    h.retain_grad()
    h.register_hook(lambda g: g * 100)
    h.sum().backward()
    assert h.grad.tolist() == [1000.0, 1000.0]
    assert x.grad.tolist() == [2000.0, 2000.0]


def test_retain_grad_registered_before_modifying_hook():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.retain_grad()
    h.register_hook(lambda g: g * 10)
    h.sum().backward()
    assert h.grad.tolist() == [10.0, 10.0]
    assert x.grad.tolist() == [20.0, 20.0]


def test_retain_grad_on_tensor_not_requiring_grad():
    with raises(RuntimeError, "can't retain_grad on Tensor that has requires_grad=False"):
        ag.ones(3).retain_grad()


def test_retain_grad_on_leaf_is_a_no_op():
    x = leaf([1.0, 2.0])
    x.retain_grad()
    assert x.retains_grad is False
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_retains_grad_attribute():
    x = leaf([1.0, 2.0])
    h = x * 2
    assert h.retains_grad is False
    h.retain_grad()
    assert h.retains_grad is True


def test_retained_grad_accumulates_across_backwards():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.retain_grad()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert h.grad.tolist() == [8.0, 16.0]


def test_non_leaf_grad_warning():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.sum().backward()
    with pytest.warns(UserWarning) as record:
        assert h.grad is None
    assert len(record) == 1
    assert str(record[0].message).startswith(NON_LEAF_GRAD)


def test_no_warning_for_tensor_not_requiring_grad():
    import warnings
    t = ag.ones(3) * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert t.grad is None


# ------------------------------------------------------------------------- tensor hooks

def test_leaf_hook_modifies_grad():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]


def test_hook_on_non_leaf_used_twice_called_once():
    calls = []
    x = leaf([1.0, 2.0])
    h = x * 2
    h.register_hook(lambda g: calls.append(g.tolist()))
    (h * h + h).sum().backward()
    assert calls == [[5.0, 9.0]]


def test_hook_on_leaf_used_twice_called_once_with_sum():
    calls = []
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: calls.append(g.tolist()))
    (x * 3 + x * 5).sum().backward()
    assert calls == [[8.0, 8.0]]


def test_hook_on_leaf_that_is_the_root():
    calls = []
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: calls.append(g.tolist()))
    x.backward(ag.ones(2))
    assert calls == [[1.0, 1.0]]


def test_handle_remove():
    x = leaf([1.0, 2.0])
    handle = x.register_hook(lambda g: g * 10)
    assert type(handle).__name__ == "RemovableHandle"
    handle.remove()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_node_hook_handle_remove():
    calls = []
    x = leaf([1.0, 2.0])
    y = x * 2
    pre = y.grad_fn.register_prehook(lambda g: calls.append("pre"))
    post = y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    pre.remove()
    post.remove()
    y.sum().backward()
    assert calls == []


def test_register_hook_on_tensor_not_requiring_grad():
    with raises(RuntimeError, NO_GRAD_HOOK):
        ag.ones(3).register_hook(lambda g: g)


def test_tensor_hook_wrong_shape():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.register_hook(lambda g: ag.ones(3))
    with raises(RuntimeError, "hook '<lambda>' has changed the size of value"):
        h.sum().backward()


def test_leaf_tensor_hook_wrong_shape():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: ag.ones(3))
    with raises(RuntimeError, "hook '<lambda>' has changed the size of value"):
        (x * 2).sum().backward()
    assert x.grad is None


def test_tensor_hook_wrong_dtype():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.register_hook(lambda g: g.double())
    with raises(RuntimeError, "hook '<lambda>' has changed the type of value (was "
                              "torch.FloatTensor got torch.DoubleTensor)"):
        h.sum().backward()


def test_tensor_hook_returns_non_tensor():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.register_hook(lambda g: 5)
    with raises(TypeError, "expected Variable, but hook returned 'int'"):
        h.sum().backward()


def test_named_hook_in_error_text():
    def my_hook(g):
        return ag.ones(5)
    x = leaf([1.0, 2.0])
    x.register_hook(my_hook)
    with raises(RuntimeError, "hook 'my_hook' has changed the size of value"):
        (x * 2).sum().backward()


# ------------------------------------------------------------------------- node hooks

def test_node_prehook_wrong_length():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.grad_fn.register_prehook(lambda g: (g[0], g[0]))
    with raises(RuntimeError, "hook '<lambda>' has returned an incorrect number of values "
                              "(got 2, but expected 1)"):
        h.sum().backward()


def test_node_prehook_returns_tensor_not_tuple():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.grad_fn.register_prehook(lambda g: g[0])
    with raises(TypeError, "expected tuple, but hook returned 'Tensor'"):
        h.sum().backward()


def test_node_prehook_replaces_grad():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.grad_fn.register_prehook(lambda g: (g[0] * 3,))
    h.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_node_posthook_replaces_none_slot():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
    with raises(RuntimeError, "can't replace a None gradient with a non-None value"):
        h.sum().backward()


def test_node_posthook_wrong_length():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.grad_fn.register_hook(lambda gi, go: (gi[0] * 10,))
    with raises(RuntimeError, "hook '<lambda>' has returned an incorrect number of values "
                              "(got 1, but expected 2)"):
        h.sum().backward()
    assert x.grad is None


def test_node_posthook_replaces_grads():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None))
    h.sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]


def test_node_hook_arguments(torch):
    seen = []
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 5.0], requires_grad=True)
        y = x * w
        rec = []
        y.grad_fn.register_prehook(lambda go: rec.append(("pre", [g.tolist() for g in go])))
        y.grad_fn.register_hook(lambda gi, go: rec.append(
            ("post", [None if g is None else g.tolist() for g in gi],
             [g.tolist() for g in go])))
        y.backward(lib.tensor([1.0, 2.0]))
        seen.append(rec)
    assert seen[0] == seen[1]


# ------------------------------------------------------------------------- post-accumulate

def test_post_accumulate_on_non_leaf():
    h = leaf([1.0, 2.0]) * 2
    with raises(RuntimeError, "post accumulate grad hooks cannot be registered on non-leaf "
                              "tensors"):
        h.register_post_accumulate_grad_hook(lambda t: None)


def test_post_accumulate_on_tensor_not_requiring_grad():
    with raises(RuntimeError, NO_GRAD_HOOK):
        ag.ones(3).register_post_accumulate_grad_hook(lambda t: None)


def test_post_accumulate_returning_a_value():
    x = leaf([1.0, 2.0])
    x.register_post_accumulate_grad_hook(lambda t: ag.zeros(2))
    with raises(RuntimeError, "Tensor post accumulate grad hooks should return None."):
        (x * 2).sum().backward()


def test_post_accumulate_can_modify_grad_in_place():
    x = leaf([1.0, 2.0])

    def hook(t):
        t.grad.mul_(10)
    x.register_post_accumulate_grad_hook(hook)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]


def test_post_accumulate_gets_the_tensor_not_in_grad_mode():
    got = []
    x = leaf([1.0, 2.0])
    x.register_post_accumulate_grad_hook(lambda t: got.append((t is x, t.grad.tolist())))
    (x * 3).sum().backward()
    assert got == [(True, [3.0, 3.0])]


def test_post_accumulate_not_called_by_grad():
    calls = []
    x = leaf([1.0, 2.0])
    x.register_post_accumulate_grad_hook(lambda t: calls.append(1))
    ag.autograd.grad((x * 3).sum(), x)
    assert calls == []


# ------------------------------------------------------------------------- raising hooks

def test_raising_hook_mid_backward_rolls_back_grads():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    (x * w).sum().backward()           # x.grad = w, w.grad = x
    gx, gw = x.grad, w.grad
    gx_values, gw_values = gx.tolist(), gw.tolist()
    y = (x * w).sum()
    handle = x.register_hook(lambda g: (_ for _ in ()).throw(ValueError("boom")))
    with pytest.raises(ValueError, match="^boom$"):
        y.backward(retain_graph=True)
    assert x.grad is gx and w.grad is gw
    assert x.grad.tolist() == gx_values and w.grad.tolist() == gw_values
    handle.remove()
    y.backward()
    assert x.grad.tolist() == [6.0, 8.0]
    assert w.grad.tolist() == [2.0, 4.0]


def test_raising_hook_leaves_first_grads_unset():
    a = leaf([1.0, 2.0])
    b = leaf([3.0, 4.0])
    y = (a * 2 + b * 3).sum()
    # whichever leaf runs first, the other leaf's hook raises afterwards
    b.register_hook(lambda g: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        y.backward(retain_graph=True)
    assert a.grad is None and b.grad is None


# ------------------------------------------------------------------------- saved tensor hooks

def test_saved_tensors_hooks_pack_unpack():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.tolist())
        return ("box", t)

    def unpack(box):
        unpacked.append(box[0])
        return box[1]
    x = leaf([1.0, 2.0, 3.0])
    with ag.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    assert packed == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    y.sum().backward()
    assert unpacked == ["box", "box"]
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_saved_tensors_hooks_can_transform(torch):
    res = []
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t + 1):
            y = x.exp()
        y.sum().backward()
        res.append(x.grad.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-6)


def test_saved_tensors_hooks_count_matches_torch(torch):
    counts = []
    for lib in (ag, torch):
        n = [0, 0]

        def pack(t, n=n):
            n[0] += 1
            return t

        def unpack(t, n=n):
            n[1] += 1
            return t
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x.exp() * x).sin().sum()
        y.backward()
        counts.append(n)
    assert counts[0] == counts[1]


def test_saved_tensors_hooks_only_inside_block():
    calls = []
    x = leaf([1.0, 2.0])
    with ag.autograd.graph.saved_tensors_hooks(lambda t: calls.append("p") or t, lambda t: t):
        pass
    (x * x).sum().backward()
    assert calls == []


# ------------------------------------------------------------------------- execution order

def _all_nodes(root):
    """Every node reachable from ``root`` (iterative, in discovery order)."""
    seen, stack, out = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return out


def _execution_order(lib, build):
    order = []
    tensors, y = build(lib)
    labels = {}
    for node in _all_nodes(y.grad_fn):
        if node.name().endswith("AccumulateGrad"):
            idx = next(i for i, t in enumerate(tensors) if node.variable is t)
            label = f"acc{idx}"
        else:
            label = node.name()
        labels[id(node)] = label
        node.register_prehook(lambda g, lab=label: order.append(lab))
    y.backward()
    return order, [t.grad.tolist() for t in tensors]


def _branching(lib):
    a = lib.tensor([0.5, 1.0], requires_grad=True)
    b = lib.tensor([2.0, -1.0], requires_grad=True)
    h = a * b                 # used by three consumers created at different times
    u = h.exp()
    v = (h + a).tanh()
    w = b.sin() * h
    return [a, b], (u + w).sum() + v.sum()


def _diamond(lib):
    a = lib.tensor([0.3, -0.7], requires_grad=True)
    left = a.exp()
    right = a.sin()
    return [a], (left * right + left).sum()


def _late_leaf(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    h = a.tanh()
    k = b * 2            # created after h, so higher sequence number
    return [a, b], (h - k).sum() + (h * k).sum()


@pytest.mark.parametrize("build", [_branching, _diamond, _late_leaf])
def test_execution_order_matches_torch(torch, build):
    got, got_grads = _execution_order(ag, build)
    want, want_grads = _execution_order(torch, build)
    assert got == want
    np.testing.assert_allclose(np.array(got_grads), np.array(want_grads), rtol=1e-5)


def test_execution_order_dependencies_counted():
    # torch 2.13's order for _branching: h = a * b (the last MulBackward0) waits for all
    # three of its consumers; the leaves' accumulators run last
    order, grads = _execution_order(ag, _branching)
    assert order == ["AddBackward0", "SumBackward0", "SumBackward0", "AddBackward0",
                     "MulBackward0", "SinBackward0", "TanhBackward0", "AddBackward0",
                     "ExpBackward0", "MulBackward0", "acc0", "acc1"]
    order, _ = _execution_order(ag, _late_leaf)
    assert order == ["AddBackward0", "SumBackward0", "MulBackward0", "SumBackward0",
                     "SubBackward0", "MulBackward0", "acc1", "TanhBackward0", "acc0"]


def test_execution_order_highest_sequence_first():
    # two independent branches: the one built later runs first
    order = []
    a = ag.tensor([1.0], requires_grad=True)
    p = a.exp()          # built first
    q = a.sin()          # built second
    p.grad_fn.register_prehook(lambda g: order.append("exp"))
    q.grad_fn.register_prehook(lambda g: order.append("sin"))
    (p + q).sum().backward()
    assert order == ["sin", "exp"]


def test_diamond_accumulation_values():
    a = ag.tensor([0.3, -0.7], requires_grad=True)
    (a.exp() * a.sin() + a.exp()).sum().backward()
    v = np.array([0.3, -0.7])
    np.testing.assert_allclose(a.grad.numpy(), np.exp(v) * (np.sin(v) + np.cos(v)) + np.exp(v),
                               rtol=1e-6)


def test_leaf_used_twice_accumulates_once():
    calls = []
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    acc = (a * 1).grad_fn.next_functions[0][0]
    acc.register_prehook(lambda g: calls.append(g[0].tolist()))
    (a * 3 + a * a).sum().backward()
    assert calls == [[5.0, 7.0]]
    assert a.grad.tolist() == [5.0, 7.0]
