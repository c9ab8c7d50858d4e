"""sort, argsort, topk, cumprod, roll, movedim, hstack/vstack, new_*, embedding: what the
case harness does not check (indices, dtypes, views, graph shapes, modules, errors),
each compared with torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag

from .test_shape_errors import _error

torch = pytest.importorskip("torch")

# (expression, the names it may use). Each runs with lib = agdebug and lib = torch.
BAD_CALLS = [
    "lib.ones(2, 3).sort(2)",
    "lib.ones(2, 3).sort(1, stable=True)",
    "lib.tensor(1.0).sort(1)",
    "lib.ones(2, 3).argsort(-3)",
    "lib.ones(2, 3).topk(4)",
    "lib.ones(2, 3).topk(-1)",
    "lib.ones(2, 3).topk(1, 2)",
    "lib.tensor(1.0).topk(2)",
    "lib.tensor([True, False]).topk(1)",
    "lib.cumprod(lib.ones(2, 3))",
    "lib.ones(2, 3).cumprod(2)",
    "lib.ones(2, 3).roll((1, 2), 0)",
    "lib.ones(2, 3).roll((1, 2))",
    "lib.ones(2, 3).roll(1, (0, 1))",
    "lib.ones(2, 3).roll((), ())",
    "lib.ones(2, 3).roll(1, 2)",
    "lib.ones(2, 3).roll(1.5)",
    "lib.roll(lib.ones(2, 3), 1, 0.5)",
    "lib.tensor(1.0).roll(1, 0)",
    "lib.ones(2, 3).movedim((0, 1), 0)",
    "lib.movedim(lib.ones(2, 3), 0, [1])",
    "lib.ones(2, 3).movedim((0, 1), (0,))",
    "lib.ones(2, 3).movedim((0, 0), (1, 0))",
    "lib.ones(2, 3).movedim((0, 1), (1, 1))",
    "lib.ones(2, 3).movedim(2, 0)",
    "lib.hstack([])",
    "lib.vstack([])",
    "lib.hstack(lib.ones(2))",
    "lib.vstack([lib.ones(3), lib.ones(4)])",
    "lib.hstack([lib.ones(2, 3), lib.ones(3)])",
    "lib.atleast_2d(3)",
    "lib.ones(2).new_full(2, 1.0)",
    "lib.nn.functional.embedding(lib.tensor([5]), lib.ones(5, 3))",
    "lib.nn.functional.embedding(lib.tensor([-1]), lib.ones(5, 3))",
    "lib.nn.functional.embedding(lib.tensor([1.0]), lib.ones(5, 3))",
    "lib.nn.functional.embedding(lib.tensor([1]), lib.ones(5, 3), padding_idx=5)",
    "lib.nn.functional.embedding(lib.tensor([1]), lib.ones(5, 3), padding_idx=-6)",
    "lib.nn.functional.embedding(lib.tensor([1]), lib.ones(5))",
    "lib.nn.Embedding(5, 3, padding_idx=5)",
    "lib.nn.Embedding(5, 3, _weight=lib.ones(4, 3))",
    "lib.nn.Embedding.from_pretrained(lib.ones(5))",
]


@pytest.mark.parametrize("expression", BAD_CALLS)
def test_error_matches_torch(expression):
    kind, text = _error(ag, expression)
    torch_kind, torch_text = _error(torch, expression)
    assert kind is torch_kind
    assert text.splitlines()[0] == torch_text.splitlines()[0]


def _pair(data, dtype=np.float64):
    array = np.array(data, dtype=dtype)
    grad = array.dtype.kind == "f"
    return (ag.tensor(array, requires_grad=grad), torch.tensor(array, requires_grad=grad))


def _same(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), equal_nan=True)
    assert (ours.grad_fn is None) == (theirs.grad_fn is None)
    if theirs.grad_fn is not None:
        assert ours.grad_fn.name() == theirs.grad_fn.name()


# ----------------------------------------------------------------------------- sort, topk

SORTS = [
    "x.sort()", "x.sort(0)", "x.sort(0, True)", "x.sort(descending=True)",
    "lib.sort(x, dim=0, stable=True)", "lib.sort(x, stable=True, descending=True)",
]
TOPKS = ["x.topk(2)", "x.topk(2, 0)", "x.topk(3, largest=False)", "lib.topk(x, 1, dim=-1)",
         "x.topk(5, sorted=True)"]


@pytest.mark.parametrize("expression", SORTS + TOPKS)
def test_sort_and_topk_values_indices_ties_and_nan(expression):
    # sort: ties keep their order (torch's stable sort); NaN counts as the largest value.
    # topk picks among ties as its partial sort happens to (not specified): no ties there.
    data = [[2.0, np.nan, 2.0, -1.0, 2.0], [0.5, 0.5, -3.0, np.nan, np.nan]]
    if expression in TOPKS:
        data = [[2.0, np.nan, 2.5, -1.0, 0.0], [0.5, 0.7, -3.0, np.nan, 1.0]]
    x, y = _pair(data)
    ours, theirs = eval(expression, {"x": x, "lib": ag}), eval(expression, {"x": y, "lib": torch})
    assert type(ours).__name__ == type(theirs).__name__
    _same(ours.values, theirs.values)
    _same(ours.indices, theirs.indices)
    assert ours.indices.grad_fn is None and not ours.indices.requires_grad


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
def test_sort_and_argsort_of_integers_and_bools(dtype):
    data = [3, 0, 1, 1, 0, 2] if dtype is not np.bool_ else [True, False, True, False]
    x, y = _pair(data, dtype)
    for descending in (False, True):
        _same(x.sort(descending=descending).values, y.sort(descending=descending).values)
        _same(x.sort(stable=True, descending=descending).indices,
              y.sort(stable=True, descending=descending).indices)
        _same(ag.argsort(x, descending=descending, stable=True),
              torch.argsort(y, descending=descending, stable=True))


def test_argsort_is_int64_and_records_nothing():
    x, y = _pair([[0.3, -1.0, 2.0]])
    _same(x.argsort(1, True), y.argsort(1, True))
    _same(ag.argsort(x, dim=0), torch.argsort(y, dim=0))


def test_topk_unsorted_returns_the_same_set():
    x, y = _pair([4.0, -1.0, 7.0, 0.5, 3.0])
    ours, theirs = x.topk(3, sorted=False), y.topk(3, sorted=False)
    assert sorted(ours.indices.tolist()) == sorted(theirs.indices.tolist())


@pytest.mark.parametrize("expression", ["x.sort(1, True).values", "x.topk(2, 0).values",
                                        "lib.sort(x, stable=True).values",
                                        "x.cumprod(1)", "x.roll(1, 0)", "x.movedim(1, 0)"])
def test_double_backward_matches_torch(expression):
    data = [[0.5, 0.0, -1.5, 2.0], [1.2, 0.7, 0.0, -0.3], [0.1, 2.5, 1.1, 0.0]]
    results = []
    for lib, x in zip((ag, torch), _pair(data)):
        out = eval(expression, {"x": x, "lib": lib})
        g, = lib.autograd.grad((out ** 3).sum(), x, create_graph=True)
        h, = lib.autograd.grad((g * g).sum(), x)
        results.append((g.detach().numpy(), h.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- cumprod

@pytest.mark.parametrize("data", [[[0.0, 2.0, 3.0], [1.5, 0.0, 0.0]], [0.0, 0.0, 0.0, 2.0],
                                  [3.0, -2.0, 0.0, 4.0, 0.0]])
def test_cumprod_gradient_with_zeros(data):
    x, y = _pair(data)
    gx, = ag.autograd.grad((x.cumprod(-1) * ag.arange(1.0, x.shape[-1] + 1)).sum(), x)
    gy, = torch.autograd.grad((y.cumprod(-1) * torch.arange(1.0, y.shape[-1] + 1)).sum(), y)
    np.testing.assert_allclose(gx.numpy(), gy.numpy())


def test_cumprod_dtypes():
    for dtype in (np.int32, np.uint8, np.bool_, np.float32):
        x, y = _pair([1, 2, 3], dtype)
        _same(x.cumprod(0), y.cumprod(0))
    x, y = _pair([1, 2, 3], np.int64)
    _same(ag.cumprod(x, 0, dtype=ag.float64), torch.cumprod(y, 0, dtype=torch.float64))


# ----------------------------------------------------------------------------- roll, movedim

@pytest.mark.parametrize("expression", ["x.roll(1)", "x.roll(-7)", "x.roll((1, 2), (0, 2))",
                                        "lib.roll(x, shifts=3, dims=-1)", "x.roll([1], [1])"])
def test_roll_matches_torch(expression):
    x, y = _pair(np.arange(24.0).reshape(2, 3, 4))
    _same(eval(expression, {"x": x, "lib": ag}), eval(expression, {"x": y, "lib": torch}))


@pytest.mark.parametrize("expression", ["x.movedim(0, 2)", "x.movedim(-1, 0)",
                                        "lib.movedim(x, (0, 2), (1, 0))",
                                        "lib.moveaxis(x, [2, 1], [0, 2])", "x.moveaxis(1, 1)"])
def test_movedim_is_a_permute_view(expression):
    x, y = _pair(np.arange(24.0).reshape(2, 3, 4))
    ours, theirs = eval(expression, {"x": x, "lib": ag}), eval(expression, {"x": y, "lib": torch})
    _same(ours, theirs)
    assert ours._base is x   # a view: it shares x's storage and version counter
    with ag.no_grad():
        x.mul_(2)
    assert ours._version == x._version


# ----------------------------------------------------------------------------- hstack, vstack

def _graph(t, depth=2):
    """The node names below ``t``, as nested (name, children) tuples."""
    def walk(fn, level):
        if fn is None or level == 0:
            return None
        return (fn.name(), tuple(walk(nxt, level - 1) for nxt, _ in fn.next_functions))
    return walk(t.grad_fn, depth)


@pytest.mark.parametrize("expression", [
    "lib.hstack([a, a])", "lib.hstack([m, m])", "lib.hstack([s, a])", "lib.hstack((s, s))",
    "lib.vstack([a, m])", "lib.vstack([s, s])", "lib.vstack([m])", "lib.row_stack([a, a])",
    "lib.atleast_1d(s)", "lib.atleast_2d(a)", "lib.atleast_3d(a)", "lib.atleast_3d(m)",
    "lib.atleast_3d(s)", "lib.atleast_2d(m)",
])
def test_stacking_builds_torchs_graph(expression):
    names = {}
    for lib in (ag, torch):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        m = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        s = (a * 2).sum()
        out = eval(expression, {"lib": lib, "a": a, "m": m, "s": s})
        names[lib] = (tuple(out.shape), out.tolist(), _graph(out))
    assert names[ag] == names[torch]


def test_atleast_with_many_tensors_returns_a_tuple():
    for lib in (ag, torch):
        out = lib.atleast_2d(lib.tensor(1.0), lib.ones(3))
        assert isinstance(out, tuple) and [tuple(t.shape) for t in out] == [(1, 1), (1, 3)]
        out = lib.atleast_1d([lib.tensor(1.0)])
        assert isinstance(out, tuple) and tuple(out[0].shape) == (1,)


# ----------------------------------------------------------------------------- new_*

@pytest.mark.parametrize("expression", [
    "x.new_zeros(2, 3)", "x.new_zeros((2,))", "i.new_ones(2)", "b.new_ones([1, 2])",
    "x.new_empty(2).shape", "x.new_empty((2, 1)).dtype", "x.new_full((2,), 3)",
    "i.new_full((2,), 2.5)", "x.new_full([1], 7, dtype=lib.int64)", "i.new_tensor([1.7, -2.2])",
    "x.new_tensor([[1, 2]])", "x.new_tensor(3, dtype=lib.float64)",
    "x.new_zeros(2, dtype=lib.int32)", "x.new_ones(2, requires_grad=True)",
])
def test_new_tensors_take_dtype_and_device_from_self(expression):
    results = []
    for lib in (ag, torch):
        names = {"lib": lib, "x": lib.ones(2, requires_grad=True), "i": lib.tensor([1, 2]),
                 "b": lib.tensor([True])}
        out = eval(expression, names)
        if isinstance(out, (ag.Tensor, torch.Tensor)):
            if "empty" not in expression:
                results.append(out.tolist())
            out = (str(out.dtype), tuple(out.shape), out.requires_grad, out.is_leaf,
                   out.grad_fn is None)
        results.append(str(out))
    assert results[:len(results) // 2] == results[len(results) // 2:]


def test_new_tensor_copies_and_warns_as_torch():
    for lib in (ag, torch):
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            copy = x.new_tensor(x)
        assert "rather than tensor.new_tensor(sourceTensor)" in str(caught[0].message)
        assert not copy.requires_grad and copy.grad_fn is None
        copy.add_(1)
        assert x.tolist() == [1.0, 1.0]


# ----------------------------------------------------------------------------- embedding

def test_embedding_padding_gradient_and_double_backward():
    weight = np.random.default_rng(0).standard_normal((6, 3))
    index = [[0, 5, 2], [2, 2, 4]]
    grads = []
    for lib in (ag, torch):
        w = lib.tensor(weight, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(index), w, padding_idx=2)
        g, = lib.autograd.grad((out ** 3).sum(), w, create_graph=True)
        h, = lib.autograd.grad((g ** 2).sum(), w)
        grads.append((out.grad_fn.name(), g.detach().numpy(), h.numpy()))
    assert grads[0][0] == grads[1][0] == "EmbeddingBackward0"
    np.testing.assert_allclose(grads[0][1], grads[1][1])
    np.testing.assert_allclose(grads[0][2], grads[1][2])
    assert not grads[0][1][2].any()


def test_embedding_max_norm_renormalises_the_rows_it_looks_up():
    weight = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    results = []
    for lib in (ag, torch):
        w = lib.tensor(weight, requires_grad=True)
        version = w._version
        out = lib.nn.functional.embedding(lib.tensor([0, 1, 0]), w, max_norm=1.0)
        out.sum().backward()
        results.append((w.detach().numpy().copy(), out.detach().numpy(), w.grad.numpy(),
                        w._version > version))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_embedding_module_matches_torchs():
    ag.manual_seed(0)
    ours = ag.nn.Embedding(4, 3, padding_idx=-1)
    theirs = torch.nn.Embedding(4, 3, padding_idx=-1)
    assert repr(ours) == repr(theirs) == "Embedding(4, 3, padding_idx=3)"
    assert ours.padding_idx == theirs.padding_idx == 3
    assert [n for n, _ in ours.named_parameters()] == ["weight"]
    assert ours.weight.dtype == ag.float32 and ours.weight.requires_grad
    assert not ours.weight.detach().numpy()[3].any() and ours.weight.detach().numpy()[:3].all()
    out = ours(ag.tensor([[3, 1], [1, 0]]))
    assert tuple(out.shape) == (2, 2, 3) and out.grad_fn.name() == "EmbeddingBackward0"
    out.sum().backward()
    assert ours.weight.grad.tolist() == [[1.0] * 3, [2.0] * 3, [0.0] * 3, [0.0] * 3]
    options = dict(max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)
    assert repr(ag.nn.Embedding(5, 2, **options)) == repr(torch.nn.Embedding(5, 2, **options))


def test_embedding_weights_are_standard_normal():
    ag.manual_seed(1)
    weight = ag.nn.Embedding(4000, 5).weight.detach().numpy()
    assert abs(weight.mean()) < 0.02 and abs(weight.std() - 1.0) < 0.02


def test_embedding_from_pretrained_is_frozen_unless_asked():
    table = [[1.0, 2.0], [3.0, 4.0]]
    for lib in (ag, torch):
        frozen = lib.nn.Embedding.from_pretrained(lib.tensor(table))
        assert not frozen.weight.requires_grad and frozen.weight.tolist() == table
        trained = lib.nn.Embedding.from_pretrained(lib.tensor(table), freeze=False, padding_idx=0)
        assert trained.weight.requires_grad and trained.padding_idx == 0
        assert trained(lib.tensor([1, 0])).tolist() == [[3.0, 4.0], [1.0, 2.0]]
