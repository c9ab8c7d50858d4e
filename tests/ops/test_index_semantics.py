"""Indexing and matrix products beyond the op cases: views, in-place writes, errors, graphs."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import agdebug as ag

A = np.arange(12, dtype=np.float64).reshape(3, 4) / 7 - 0.5


def _pair(torch, array=A, requires_grad=True):
    return (ag.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def _names(t):
    """grad_fn name and the names of its next functions, torch's C++ prefix stripped."""
    fn = t.grad_fn
    if fn is None:
        return None
    strip = lambda n: n.replace("torch::autograd::", "")
    return strip(fn.name()), [None if f is None else strip(f.name())
                              for f, _ in fn.next_functions]


def _raises_like(torch, fn_ours, fn_torch):
    """Both raise the same exception type with the same text."""
    with pytest.raises(Exception) as theirs:
        fn_torch()
    with pytest.raises(type(theirs.value)) as ours:
        fn_ours()
    assert str(ours.value) == str(theirs.value)


# ----------------------------------------------------------------------------- x[key]

KEYS = [
    0, -1, (0, 1), slice(1, None), (slice(None), slice(1, 3)), slice(None), (slice(None),) * 2,
    Ellipsis, (Ellipsis, None), None, (None, 0), (0, Ellipsis, None), (), [0, 2], [[0, 1]],
    (0, [1, 1]), ([0, 2], [1, 3]), (slice(None), [3, -1]), True, ([True, False, True],),
    (slice(None, None, 2), [0, 0]),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_graph_matches_torch(key, torch):
    ours, theirs = _pair(torch)
    with pytest.warns(UserWarning) if key == [[0, 1]] else _nothing():
        out = ours[key]
    ref = theirs[key]
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy())
    assert _names(out) == _names(ref)
    v = np.random.default_rng(0).standard_normal(tuple(ref.shape))
    (out * ag.tensor(v)).sum().backward()
    (ref * torch.tensor(v)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_tensor_index_and_0d_tensor(torch):
    ours, theirs = _pair(torch)
    assert _names(ours[ag.tensor(1)]) == _names(theirs[torch.tensor(1)])
    idx = np.array([[2, 0], [2, 2]])
    out, ref = ours[ag.tensor(idx)], theirs[torch.tensor(idx)]
    assert out.shape == ref.shape
    assert _names(out) == _names(ref)


def test_basic_indexing_returns_views_sharing_the_version():
    x = ag.zeros(3, 4)
    row, col = x[1], x[:, 2]
    x[1, 2] = 5.0
    assert row[2].item() == 5.0 and col[1].item() == 5.0
    assert row._version == x._version == 1
    assert row._base is x


def test_advanced_indexing_copies():
    x = ag.zeros(3)
    picked = x[[0, 1]]
    x[0] = 1.0
    assert picked.tolist() == [0.0, 0.0]


def test_duplicate_indices_accumulate_gradient():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]


def test_bool_mask_selects_and_routes_gradient():
    x = ag.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
    picked = x[x > 0]
    assert picked.tolist() == [1.0, 4.0]
    (picked * ag.tensor([10.0, 20.0])).sum().backward()
    assert x.grad.tolist() == [[10.0, 0.0], [0.0, 20.0]]


def test_negative_indices():
    x = ag.arange(6.0).reshape(2, 3)
    assert x[-1, -1].item() == 5.0
    assert x[:, [-1, 0]].tolist() == [[2.0, 0.0], [5.0, 3.0]]
    assert x[-2:, -2:].tolist() == [[1.0, 2.0], [4.0, 5.0]]


def test_second_order_through_advanced_index():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x[[0, 0, 1]] ** 3).sum()
    (g,) = ag.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [6.0, 12.0, 0.0]
    (h,) = ag.autograd.grad(g.sum(), x)
    assert h.tolist() == [12.0, 12.0, 0.0]


GETITEM_ERRORS = [
    "x[5]", "x[0, 7]", "x[-4]", "x[0, 0, 0]", "x[[0, 5]]", "x[:, [4]]", "x[[0], [9]]",
    "x[::-1]", "x[::0]", "x[[True, False]]", "x[:, [True, False]]", "x[1.5]",
    "x[T.tensor([0.0])]", "x[[0, 1], [0, 1, 2]]", "x['a']",
    # past a C long long: torch's ValueError, not an IndexError
    "x[10**20]", "x[-10**20]", "x[[10**20]]", "x[..., 10**20]", "x[0, [2**64]]",
    "x[[[0], [2**63]]]",
]


@pytest.mark.parametrize("expr", GETITEM_ERRORS)
def test_getitem_errors_match_torch(expr, torch):
    ours, theirs = _pair(torch)
    _raises_like(torch, lambda: eval(expr, {"x": ours, "T": ag}),
                 lambda: eval(expr, {"x": theirs, "T": torch}))


# ----------------------------------------------------------------------------- x[key] = value

def test_setitem_without_grad_writes_in_place_and_bumps_version():
    x = ag.zeros(2, 3)
    x[0] = 1.0
    x[1, [0, 2]] = ag.tensor([2.0, 3.0])
    x[x == 0] = -1.0
    assert x.tolist() == [[1.0, 1.0, 1.0], [2.0, -1.0, 3.0]]
    assert x._version == 3
    assert x.is_leaf and x.grad_fn is None


def test_setitem_on_leaf_requiring_grad(torch):
    ours, theirs = _pair(torch)
    for key in (lambda x: 0, lambda x: [0], lambda x: x > 0, lambda x: (slice(None), 1)):
        _raises_like(torch, partial(_set, ours, key(ours), 1.0),
                     partial(_set, theirs, key(theirs), 1.0))
    with ag.no_grad():
        ours[0] = 7.0
    assert ours[0, 0].item() == 7.0 and ours.is_leaf and ours._version == 1


def _set(t, key, value):
    t[key] = value


# (id, key of y, value from z): each runs as ``y[key] = value`` on y = x * 1.
SETS = [
    ("y[0] = z", lambda y: 0, lambda z: z),
    ("y[1, 1:3] = z[:2]", lambda y: (1, slice(1, 3)), lambda z: z[:2]),
    ("y[:, 0] = 2.0", lambda y: (slice(None), 0), lambda z: 2.0),
    ("y[[0, 0]] = z", lambda y: [0, 0], lambda z: z),
    ("y[[0, 2], [1, 3]] = z[:2]", lambda y: ([0, 2], [1, 3]), lambda z: z[:2]),
    ("y[y > 0] = z[0]", lambda y: y > 0, lambda z: z[0]),
    ("y[None] = 1.0", lambda y: None, lambda z: 1.0),
    ("y[0:1] = z[None]", lambda y: slice(0, 1), lambda z: z[None]),
    ("y[:, [1]] = z[:3, None]", lambda y: (slice(None), [1]), lambda z: z[:3, None]),
]


@pytest.mark.parametrize("key,value", [s[1:] for s in SETS], ids=[s[0] for s in SETS])
def test_setitem_on_non_leaf_matches_torch(key, value, torch):
    results = []
    for lib in (ag, torch):
        x = lib.tensor(A, requires_grad=True)
        z = lib.tensor(np.array([0.5, -1.0, 2.0, 3.0]), requires_grad=True)
        y = x * 1
        _set(y, key(y), value(z))
        assert y._version == 1
        v = lib.tensor(np.random.default_rng(1).standard_normal(A.shape))
        (y * v).sum().backward()
        results.append((_names(y), y.detach().numpy().copy(), x.grad.numpy().copy(),
                        z.grad.numpy().copy() if z.grad is not None else None))
    (name, values, gx, gz), (rname, rvalues, rgx, rgz) = results
    assert name == rname
    np.testing.assert_allclose(values, rvalues)
    np.testing.assert_allclose(gx, rgx)
    if rgz is None:
        assert gz is None
    else:
        np.testing.assert_allclose(gz, rgz)


def test_setitem_into_constant_with_grad_value(torch):
    for lib in (ag, torch):
        a = lib.zeros(2, 3)
        z = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a[0] = z
        assert (a.is_leaf, a.requires_grad) == (False, True)
        assert _names(a) == ("CopySlices", [None, "AccumulateGrad"])
        (a * 2).sum().backward()
        assert z.grad.tolist() == [2.0, 2.0, 2.0]


def test_setitem_casts_value_to_tensor_dtype():
    b = ag.zeros(3, dtype=ag.int64)
    b[0] = 1.7
    b[1:] = ag.tensor([2.9, 3.2])
    assert b.tolist() == [1, 2, 3] and b.dtype == ag.int64


SET_ERRORS = [   # (key, value made with the library T)
    (0, lambda T: T.ones(2)), ((slice(None), 0), lambda T: T.ones(3)),
    ([0, 1], lambda T: T.ones(3, 3)), (0, lambda T: T.ones(2, 3)), (0, lambda T: "x"),
    (5, lambda T: 1.0),
]


@pytest.mark.parametrize("key,value", SET_ERRORS, ids=[str(i) for i in range(len(SET_ERRORS))])
def test_setitem_errors_match_torch(key, value, torch):
    _raises_like(torch, partial(_set, ag.zeros(2, 3), key, value(ag)),
                 partial(_set, torch.zeros(2, 3), key, value(torch)))


def test_setitem_rebases_saved_tensor_check(torch):
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        out = y.exp()   # saves its result ...
        out[0] = 0.0    # ... which this overwrites
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


# ----------------------------------------------------------------------------- other index ops

INDEX_OP_ERRORS = [
    "T.gather(x, 1, T.tensor([0, 1]))", "T.gather(x, 1, T.tensor([[5], [0]]))",
    "T.gather(x, 1, T.tensor([[-1], [0]]))", "T.gather(x, 2, T.tensor([[0]]))",
    "T.gather(x, 1, T.tensor([[0.0]]))",
    "T.gather(x, 1, T.tensor([[0, 1], [1, 0], [0, 0], [1, 1]]))",
    "x.scatter_add(1, T.tensor([[0, 1]]), T.ones(1, 1, dtype=T.float64))",
    "x.scatter_add(1, T.tensor([[0, 1]]), T.ones(1, 1))", "x.scatter(1, T.tensor([[9]]), x)",
    "x.index_select(1, T.tensor([[0]]))", "x.index_select(1, T.tensor([0.0]))",
    "x.index_select(1, T.tensor([4]))", "x.index_select(1, T.tensor([-1]))",
    "x.index_add(1, T.tensor([0, 1]), x)",
    "x.masked_fill(T.ones(3, 4), 1.0)", "x.masked_fill(x > 0, x[0])",
]


@pytest.mark.parametrize("expr", INDEX_OP_ERRORS)
def test_index_op_errors_match_torch(expr, torch):
    ours, theirs = _pair(torch, requires_grad=False)
    _raises_like(torch, lambda: eval(expr, {"x": ours, "T": ag}),
                 lambda: eval(expr, {"x": theirs, "T": torch}))


def test_gather_gradient_accumulates_repeats():
    x = ag.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    x.gather(1, ag.tensor([[2, 2, 0, 2]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 3.0]]


def test_masked_fill_in_place_graph_and_broadcast_error(torch):
    for lib in (ag, torch):
        x = lib.tensor(A, requires_grad=True)
        y = x * 1
        y.masked_fill_(lib.tensor([True, False, True, False]), 0.0)
        assert _names(y) == ("MaskedFillBackward0", ["MulBackward0"])
        assert y._version == 1
    _raises_like(torch, lambda: (ag.zeros(2, 3)).masked_fill_(ag.ones(3, 2, 3) > 0, 1.0),
                 lambda: (torch.zeros(2, 3)).masked_fill_(torch.ones(3, 2, 3) > 0, 1.0))


def test_nonzero_forms(torch):
    for data in ([[0.0, 1.0], [2.0, 0.0]], 3.0, 0.0, [False, True, True]):
        ours, theirs = ag.tensor(data), torch.tensor(data)
        assert ours.nonzero().tolist() == theirs.nonzero().tolist()
        assert ours.nonzero().shape == tuple(theirs.nonzero().shape)
        mine = ag.nonzero(ours, as_tuple=True)
        ref = torch.nonzero(theirs, as_tuple=True)
        assert [t.tolist() for t in mine] == [t.tolist() for t in ref]


# ----------------------------------------------------------------------------- matmul

SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
          ((2, 3), (2, 3, 4)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)), ((2, 2, 3), (2, 3, 4)),
          ((5, 1, 2, 3), (2, 3, 4)), ((2, 1, 2, 3), (4, 3, 2))]


@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("shapes", SHAPES, ids=[str(s) for s in SHAPES])
def test_matmul_graph_matches_torch(shapes, grads, torch):
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s) for s in shapes]
    outs = []
    for lib in (ag, torch):
        a, b = (lib.tensor(arr, requires_grad=g) for arr, g in zip(arrays, grads))
        out = a @ b
        out.sum().backward()
        outs.append((out, a.grad, b.grad))
    (out, ga, gb), (ref, rga, rgb) = outs
    assert _names(out)[0] == _names(ref)[0]
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy())
    for g, rg in ((ga, rga), (gb, rgb)):
        assert (g is None) == (rg is None)
        if rg is not None:
            np.testing.assert_allclose(g.numpy(), rg.numpy())


def test_matmul_of_integers_and_rmatmul():
    a = ag.tensor([[1, 2], [3, 4]])
    assert (a @ a).tolist() == [[7, 10], [15, 22]]
    assert ag.tensor([1.0, 2.0]).__rmatmul__(ag.tensor([[1.0, 0.0]])).tolist() == [1.0]


MATMUL_ERRORS = [
    "T.ones(2, 3) @ T.ones(4, 5)", "T.ones(3) @ T.ones(4)", "T.ones(2, 3) @ T.ones(4)",
    "T.ones(3) @ T.ones(4, 2)", "T.ones(2, 2, 3) @ T.ones(3, 3, 4)", "T.tensor(1.0) @ T.ones(3)",
    "T.ones(2, 2, 3) @ T.ones(4, 5)", "T.ones(2, 2, 3) @ T.ones(4)", "T.ones(3) @ T.ones(2, 4, 5)",
    "T.mm(T.ones(3), T.ones(3))", "T.mm(T.ones(2, 3), T.ones(3))",
    "T.mm(T.ones(2, 3), T.ones(4, 5))", "T.bmm(T.ones(2, 2, 3), T.ones(2, 4, 5))",
    "T.bmm(T.ones(2, 3), T.ones(3, 4))", "T.bmm(T.ones(2, 2, 3), T.ones(3, 4))",
    "T.dot(T.ones(2, 3), T.ones(3))", "T.mv(T.ones(3), T.ones(3))",
    "T.ones(2, 3) @ T.ones(3, 2, dtype=T.float64)", "T.ones(3) @ T.ones(3, dtype=T.float64)",
    "T.ones(2, 3, dtype=T.float64) @ T.ones(3)",
    "T.bmm(T.ones(1, 2, 3), T.ones(1, 3, 2, dtype=T.float64))",
    "T.addmm(T.ones(4), T.ones(3), T.ones(3, 4))", "T.addmm(T.ones(4), T.ones(2, 3), T.ones(2, 3))",
    "T.addmm(T.ones(2, 5), T.ones(2, 3), T.ones(3, 4))",
    "T.addmm(T.ones(4, dtype=T.float64), T.ones(2, 3), T.ones(3, 4))", "T.matmul(1, T.ones(3))",
]


@pytest.mark.parametrize("expr", MATMUL_ERRORS)
def test_matmul_errors_match_torch(expr, torch):
    _raises_like(torch, lambda: eval(expr, {"T": ag}), lambda: eval(expr, {"T": torch}))


def test_addmm_beta_zero_ignores_nan_input():
    out = ag.addmm(ag.tensor([float("nan")]), ag.ones(1, 2), ag.ones(2, 1), beta=0)
    assert out.tolist() == [[2.0]]


@pytest.mark.parametrize("key", ["range(2, 5)", "range(0)", "(range(1, 3), 0)",
                                 "(slice(None), range(2))"])
def test_a_range_indexes_as_the_list_of_its_ints(torch, key):
    for lib in (ag, torch):
        x = lib.arange(12.0).view(3, 4) if key.startswith("(") else lib.arange(10.0)
        y = x[eval(key)]
        x[eval(key)] = 7.0
        if lib is ag:
            ours = (y.tolist(), x.tolist(), str(y.dtype))
    assert ours == (y.tolist(), x.tolist(), str(y.dtype))
