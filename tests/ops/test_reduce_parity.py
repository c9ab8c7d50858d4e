"""torch comparisons for the reductions, scans, searches and index ops of selection.py,
statistics.py, scatter.py and sorting.py: dtypes, argument variants, empty tensors, ties
(which index torch returns, and so where the gradient goes) and the common errors.

Each expression runs with ``lib`` = agdebug and ``lib`` = torch: both raise the same error
type and first line, or return the same values, dtype, shape, requires_grad and grad_fn.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, evaluate

torch = pytest.importorskip("torch")

NAN = 'float("nan")'
X = "lib.tensor([[1., 2., 3.], [4., 6., 5.]], requires_grad=True)"
N = f"lib.tensor([[1., {NAN}, 3.], [{NAN}, {NAN}, 2.]], requires_grad=True)"
TIED = "lib.tensor([[3., 1., 3., 1., 2.], [5., 5., 5., 0., 0.]], requires_grad=True)"
INTS = "lib.tensor([[3, 1, 3], [1, 1, 2]])"
E = "lib.zeros(0, 3)"


def grad_of(expr: str) -> str:
    """The gradient a leaf gets from ``expr`` (written with ``x``), as an expression."""
    return f"(lambda x: lib.autograd.grad(({expr}).sum(), x)[0])({TIED})"


SELECTION = [
    f"{TIED}.median()", f"{TIED}.median(1)", f"lib.median({TIED}, 0, keepdim=True)",
    f"{N}.median()", f"{N}.median(1)", f"{N}.nanmedian()", f"{N}.nanmedian(1)",
    f"lib.nanmedian(lib.full((2, 9), {NAN}), 1)", f"{INTS}.median()", f"{INTS}.median(1)",
    "lib.tensor([]).median()", "lib.tensor([], dtype=lib.long).median()",
    "lib.tensor([]).median(0)", f"{E}.median(1)", "lib.zeros(3, 0).nanmedian(1)",
    "lib.tensor([True]).median()", f"{X}.median(2)", f"{X}.median(dim=None)",
    f"{X}.median(keepdim=True)", "lib.median(lib.tensor(3.), 0)",
    f"{TIED}.mode()", f"{TIED}.mode(0)", f"lib.mode({TIED}, 1, True)", f"{INTS}.mode()",
    "lib.tensor([True, False, True]).mode()", "lib.tensor([]).mode()", f"{E}.mode(1)",
    "lib.tensor(3.).mode()",
    f"{TIED}.kthvalue(2)", f"{TIED}.kthvalue(4, 1)", f"lib.kthvalue({TIED}, 1, 0, True)",
    f"{N}.kthvalue(3)", f"{INTS}.kthvalue(2, 0)", f"{X}.kthvalue(4)", f"{X}.kthvalue(0)",
    "lib.tensor([True]).kthvalue(1)", "lib.zeros(3, 0).kthvalue(1, 1)", f"{E}.kthvalue(1, 1)",
    f"{TIED}.cummax(1)", f"{TIED}.cummin(1)", f"lib.cummax({N}, 1)", f"lib.cummin({N}, dim=0)",
    f"{INTS}.cummax(0)", "lib.tensor([True, False]).cummax(0)", "lib.tensor(2.).cummin(0)",
    "lib.zeros(3, 0).cummax(1)", f"{X}.cummax(2)", f"{X}.cummax()",
    # where the gradient goes: to the index torch returns
    grad_of("x.median(1).values"), grad_of("x.mode(1).values"), grad_of("x.kthvalue(4, 1)[0]"),
    grad_of("x.cummax(1).values"), grad_of("x.cummin(1).values"), grad_of("x.median()"),
    grad_of("x.nanmedian(0).values"),
]

STATISTICS = [
    f"lib.var_mean({X})", f"lib.var_mean({X}, 1)", f"lib.std_mean({X}, 0, keepdim=True)",
    f"lib.std_mean({X}, False)", f"lib.var_mean({X}, (0, 1), correction=0)",
    f"lib.var_mean({X}, 1, unbiased=False)",
    f"lib.var_mean({INTS})", "lib.std_mean(lib.tensor([1.]))", f"{X}.var_mean()",
    f"{X}.aminmax()", f"{X}.aminmax(dim=1)", f"lib.aminmax({X}, dim=-1, keepdim=True)",
    f"{X}.aminmax(keepdim=True)", f"{INTS}.aminmax()", "lib.tensor([True, False]).aminmax()",
    "lib.zeros(0).aminmax()", f"{E}.aminmax(dim=0)", f"{X}.aminmax(dim=(0, 1))",
    f"{TIED}.aminmax(dim=1).max", grad_of("lib.stack(list(x.aminmax(dim=1)))"),
    f"{N}.nansum()", f"{N}.nansum(1)", f"{N}.nansum(dtype=lib.float64)", f"{N}.nansum((0, 1))",
    "lib.tensor([True, False]).nansum()", "lib.tensor([1, 2], dtype=lib.uint8).nansum()",
    f"{INTS}.nansum(1, dtype=lib.float32)",
    f"{N}.nanmean()", f"{N}.nanmean(1, True)", f"{N}.nanmean(dtype=lib.float64)",
    f"{INTS}.nanmean()",
    f"{N}.count_nonzero()", f"{X}.count_nonzero((0, 1))", f"{INTS}.count_nonzero(dim=1)",
    "lib.zeros(2, 3).count_nonzero(0)",
    f"{X}.logcumsumexp(1)", f"lib.logcumsumexp({X}, -2)",
    f"lib.tensor([{NAN}, 1.]).logcumsumexp(0)", "lib.tensor(2.).logcumsumexp(0)",
    "lib.tensor([1, 2]).logcumsumexp(0)", f"{X}.logcumsumexp()",
    "lib.tensor([-float('inf'), -float('inf')]).logcumsumexp(0)",
    "lib.isclose(lib.tensor([1, 2]), lib.tensor([1, 3]), atol=2)",
    f"lib.isclose(lib.tensor([1., {NAN}, float('inf')]), lib.tensor([1 + 1e-6, {NAN}, "
    "float('inf')]))",
    f"lib.isclose(lib.tensor([1., {NAN}]), lib.tensor([1., {NAN}]), equal_nan=True)",
    "lib.isclose(lib.tensor([True]), lib.tensor([True]))",
    "lib.isclose(lib.tensor([1.]), lib.tensor([1.], dtype=lib.float64))",
    "lib.isclose(lib.tensor([1.]), lib.tensor([1.]), rtol=-1)",
    "lib.isclose(lib.tensor([1., 2]), lib.tensor([1., 2, 3]))",
    "lib.isclose(lib.tensor([1.]), 1.)", f"{X}.isclose({X} + 1e-7)",
]

INDEX = [
    "lib.arange(6.).reshape(2, 3).index_fill(1, lib.tensor([0, 0]), -1.)",
    "lib.arange(6.).reshape(2, 3).index_fill(1, lib.tensor([-1]), -1)",
    "lib.arange(6).reshape(2, 3).index_fill(0, lib.tensor([1]), 7)",
    "lib.arange(6.).reshape(2, 3).index_fill(1, lib.tensor([3]), -1.)",
    "lib.arange(6.).reshape(2, 3).index_fill(1, lib.tensor([0.]), -1.)",
    "lib.arange(6.).reshape(2, 3).index_fill(1, lib.tensor([[0]]), -1.)",
    "lib.arange(6.).reshape(2, 3).index_fill(1, lib.tensor([0]), lib.tensor([1.]))",
    f"{X}.index_fill(1, lib.tensor([2]), lib.tensor(0.5, requires_grad=True))",
    "lib.arange(6.).reshape(2, 3).index_copy(1, lib.tensor([2, 0]), lib.ones(2, 2))",
    "lib.arange(6.).reshape(2, 3).index_copy(1, lib.tensor([2, 0]), lib.ones(2, 3))",
    "lib.arange(6.).reshape(2, 3).index_copy(1, lib.tensor([5]), lib.ones(2, 1))",
    "lib.arange(6.).reshape(2, 3).index_copy(1, lib.tensor([0]), lib.ones(2, 1).double())",
    f"{X}.masked_select({X} > 2)", f"{X}.masked_select(lib.tensor([True, False, True]))",
    f"{X}.masked_select(lib.tensor([1, 0, 1]))", f"lib.masked_select({X}, {X} > 9)",
    f"{X}.masked_scatter(lib.tensor([True, False, True]), lib.arange(10.))",
    f"{X}.masked_scatter(lib.tensor([True, False, True]), lib.arange(2.))",
    f"{X}.masked_scatter(lib.tensor([1, 0, 1]), lib.arange(9.))",
    f"{X}.take(lib.tensor([[0, -1], [5, 2]]))", f"{X}.take(lib.tensor([6]))",
    f"{X}.take(lib.tensor([0.]))", f"lib.take({X}, lib.tensor([], dtype=lib.long))",
    f"{X}.put(lib.tensor([0, -1]), lib.tensor([9., 8.]))",
    f"{X}.put(lib.tensor([0, 0]), lib.tensor([9., 8.]), accumulate=True)",
    f"{X}.put(lib.tensor([0, 7]), lib.tensor([9., 8.]))",
    f"{X}.put(lib.tensor([0, 1]), lib.tensor([9.]))",
    f"lib.put({X}, lib.tensor([0]), lib.tensor([9.]))",
    "lib.arange(6.).reshape(2, 3).put_(lib.tensor([1]), lib.tensor([9.]))",
    f"{X}.put_(lib.tensor([1]), lib.tensor([9.]))",
    f"{X}.scatter_reduce(1, lib.tensor([[0, 0], [2, 2]]), lib.ones(2, 2), 'sum')",
    f"{X}.scatter_reduce(1, lib.tensor([[0, 0], [2, 2]]), lib.ones(2, 2), 'prod', "
    "include_self=False)",
    "lib.tensor([[7, 1, 2]]).scatter_reduce(1, lib.tensor([[0, 0]]), lib.tensor([[2, 2]]), "
    "'mean')",
    "lib.tensor([[7, 1, 2]]).scatter_reduce(1, lib.tensor([[0, 0]]), lib.tensor([[2, 2]]), "
    "'mean', include_self=False)",
    f"{X}.scatter_reduce(0, lib.tensor([[1, 0, 1]]), lib.ones(1, 3) * 9, 'amax')",
    f"{X}.scatter_reduce(0, lib.tensor([[1, 0, 1]]), lib.ones(1, 3), 'amin', "
    "include_self=False)",
    f"{X}.scatter_reduce(0, lib.tensor([[1, 0, 1]]), lib.ones(1, 3) * 9, 'max')",
    f"{X}.scatter_reduce(0, lib.tensor([[1, 0, 1]]), lib.ones(1, 3), 'min').sum().backward()",
    f"{X}.scatter_reduce(0, lib.tensor([[1, 0, 1]]), lib.ones(1, 3).double(), 'sum')",
    f"{X}.scatter_reduce(0, lib.tensor([[2, 0, 1]]), lib.ones(1, 3), 'sum')",
    "lib.zeros(3).scatter_reduce_(0, lib.tensor([0, 0, 2]), lib.tensor([1., 5., 2.]), 'amax')",
]

SORTING = [
    f"{X}.msort()", f"lib.msort({INTS})",
    f"lib.searchsorted(lib.tensor([1., 2., 2., 3.]), {X})",
    f"lib.searchsorted(lib.tensor([1., 2., 2., 3.]), {X}, right=True)",
    f"lib.searchsorted(lib.tensor([1., 2., 2., 3.]), {X}, side='right', out_int32=True)",
    "lib.searchsorted(lib.tensor([1., 2., 2., 3.]), 2.)",
    f"lib.searchsorted(lib.tensor([1., 2., 2., 3.]), {X}, side='left', right=True)",
    "lib.searchsorted(lib.tensor([[1., 2], [3, 4]]), lib.tensor([[2.], [3.]]))",
    "lib.searchsorted(lib.tensor([[1., 2], [3, 4]]), lib.tensor([2.]))",
    "lib.searchsorted(lib.tensor([1, 2, 3]), lib.tensor([2, 5]))",
    "lib.searchsorted(lib.tensor([3., 1, 2]), lib.tensor([2.]), sorter=lib.tensor([1, 2, 0]))",
    f"lib.bucketize({X}, lib.tensor([1., 2., 2., 3.]))",
    f"lib.bucketize({X}, lib.tensor([1., 2.]), right=True, out_int32=True)",
    f"lib.bucketize({X}, lib.tensor([[1.]]))",
    "lib.histc(lib.tensor([1., 2, 1]), bins=4, min=0, max=3)",
    "lib.histc(lib.tensor([1., 2, 1, 5, -1]), bins=3)", "lib.histc(lib.tensor([]), bins=3)",
    "lib.histc(lib.tensor([2., 2]), bins=2)", "lib.histc(lib.tensor([1.]), bins=0)",
    "lib.histc(lib.tensor([1.]), min=2, max=1)", "lib.tensor([1, 2]).histc(bins=3)",
    f"{X}.histc(3)", f"lib.histc({X}.double(), 2, 0, 10)",
    "lib.unique(lib.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True, "
    "return_counts=True)",
    f"lib.unique({X})", f"lib.unique({X}, return_inverse=True)",
    f"lib.unique({X}, sorted=False, return_counts=True)",
    "lib.unique(lib.tensor([3, 2, 3, 1]), sorted=False, return_inverse=True)",
    "lib.unique_consecutive(lib.tensor([1, 1, 2, 2, 1]), return_inverse=True, "
    "return_counts=True)",
    "lib.unique_consecutive(lib.tensor([[1, 1], [1, 1], [2, 0]]), dim=0, return_counts=True)",
    f"lib.unique(lib.tensor([2., {NAN}, {NAN}, 1]))", "lib.unique(lib.tensor([True, False]))",
    "lib.unique(lib.zeros(0, 2), dim=0)", "lib.unique(lib.tensor(3))", f"{X}.unique(dim=1)",
    f"{X}.unique_consecutive()", f"{X}.unique_consecutive(dim=0)",
    f"{X}.unique().sum().backward()", f"lib.unique({X}, dim=0).sum().backward()",
    f"{X}.unique_consecutive().sum().backward()",
]


@pytest.mark.parametrize("expr", SELECTION + STATISTICS + INDEX + SORTING)
def test_same_as_torch(expr):
    assert_same_as_torch(torch, expr)


@pytest.mark.parametrize("name,args", [("mode", (1,)), ("kthvalue", (7, 1)),
                                       ("median", (1,)), ("nanmedian", (1,))])
def test_ties_in_long_rows_pick_torchs_index(name, args):
    """Past 16 elements torch's std::sort and selection are no longer stable: the index
    (and the gradient) still matches torch's."""
    rng = np.random.default_rng(5)
    data = rng.integers(0, 4, (6, 40)).astype(np.float64)
    data[rng.random(data.shape) < 0.1] = np.nan if name == "nanmedian" else 1.0
    ours = getattr(ag.tensor(data, requires_grad=True), name)(*args)
    x = torch.tensor(data, requires_grad=True)
    theirs = getattr(x, name)(*args)
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    leaf = ag.tensor(data, requires_grad=True)
    (g,) = ag.autograd.grad(getattr(leaf, name)(*args).values.sum(), leaf)
    (want,) = torch.autograd.grad(theirs.values.sum(), x)
    np.testing.assert_array_equal(g.numpy(), want.numpy())


def test_closeness_returns_python_bools():
    for expr in ["lib.allclose(lib.tensor([1., 2]), lib.tensor([1., 2 + 1e-7]))",
                 "lib.allclose(lib.tensor([1., 2]), lib.tensor([1.]))",
                 "lib.allclose(lib.tensor([1., 2]), lib.tensor([1., 2, 3]))",
                 "lib.equal(lib.tensor([1, 2]), lib.tensor([1., 2]))",
                 "lib.equal(lib.tensor([1., 2]), lib.tensor([1.]))",
                 f"lib.equal(lib.tensor([{NAN}]), lib.tensor([{NAN}]))"]:
        (kind, got), (want_kind, want) = evaluate(ag, expr), evaluate(torch, expr)
        assert kind == want_kind, expr
        if kind == "ok":
            assert type(got) is bool and got == want, expr


def test_second_derivatives_match_torch():
    """create_graph=True through the new nodes: Hessian-vector products as torch's."""
    data = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])
    exprs = ["lib.var_mean(x, 1)[0] * lib.var_mean(x, 1)[1]", "lib.std_mean(x)[0]",
             "x.logcumsumexp(1)", "x.nansum() * x.nansum()",
             "x.scatter_reduce(1, lib.tensor([[0, 0], [1, 1]]), x[:, :2], 'prod')",
             "x.scatter_reduce(1, lib.tensor([[2, 2], [1, 0]]), x[:, 1:] ** 2, 'mean')"]
    for expr in exprs:
        results = []
        for lib in (ag, torch):
            x = lib.tensor(data, requires_grad=True)
            out = eval(expr, {"lib": lib, "x": x})
            (g,) = lib.autograd.grad((out ** 2).sum(), x, create_graph=True)
            (h,) = lib.autograd.grad((g * lib.tensor(data[::-1].copy())).sum(), x)
            results.append(h.detach().numpy())
        np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-9, err_msg=expr)
