"""Gaps where agdebug differed from torch, each compared with torch as the oracle.

Integer overflow at creation and in scalar ops; scatter's legacy ``reduce=`` and
index_reduce; nn.Sequential's list methods; clip_grad_norm_ with a non-finite norm;
bilinear.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from .torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

# ----------------------------------------------------------------------------- overflow

OVERFLOW = [
    # a bool tensor and an int beyond int64: torch reads it as uint64 and will not promote
    "lib.tensor(True) + 2**63", "2**63 + lib.tensor(True)", "lib.tensor([True]) * 2**63",
    "lib.tensor(True) + 2**64", "lib.tensor(True) + (-2**63 - 1)", "lib.tensor(True) + 2**62",
    # full and fill_: torch's checked conversion of the value to the dtype
    "lib.full((2,), 2**70, dtype=lib.float32)", "lib.full((2,), 2**64, dtype=lib.float32)",
    "lib.full((2,), 2**63, dtype=lib.float32)", "lib.full((2,), -2**63 - 1, dtype=lib.float32)",
    "lib.full((2,), 2**1100, dtype=lib.float64)", "lib.full((2,), 1e300, dtype=lib.float32)",
    "lib.full((2,), -1e39)", "lib.full((2,), 70000.0, dtype=lib.float16)",
    "lib.full((2,), 70000, dtype=lib.float16)", "lib.full((2,), float('inf'), dtype=lib.float32)",
    "lib.full((2,), float('nan'), dtype=lib.float16)", "lib.full((2,), 1e300, dtype=lib.float64)",
    "lib.full((2,), float('nan'), dtype=lib.int32)", "lib.full((2,), 3e9, dtype=lib.int32)",
    "lib.full((2,), 2.5, dtype=lib.int32)", "lib.full((2,), -1.0, dtype=lib.uint8)",
    "lib.full((2,), 255.5, dtype=lib.uint8)", "lib.full((2,), 2.0**63, dtype=lib.int64)",
    "lib.full((2,), 2**63, dtype=lib.bool)", "lib.full((2,), -1, dtype=lib.uint8)",
    "lib.zeros(2, dtype=lib.int32).fill_(2**40)", "lib.zeros(2, dtype=lib.int32).fill_(2**64)",
    "lib.zeros(2).fill_(2**70)", "lib.zeros(2).fill_(-2**63 - 1)", "lib.zeros(2).fill_(1e300)",
    "lib.zeros(2, dtype=lib.float16).fill_(1e5)", "lib.zeros(2).fill_(float('inf'))",
    "lib.zeros(2, dtype=lib.int32).fill_(float('inf'))",
    "lib.zeros(2, dtype=lib.int32).fill_(float('nan'))",
    "lib.zeros(2, dtype=lib.bool).fill_(2**63)", "lib.zeros(2, dtype=lib.bool).fill_(2**64)",
    # scalar ops: an int out of an integer dtype's range wraps
    "lib.tensor([1], dtype=lib.int8) + 300", "lib.tensor([1], dtype=lib.int8) - 300",
    "lib.tensor([1], dtype=lib.int8) + 300.0",
    # tensor(): each int of integral data is read as a C long long
    "lib.tensor(2**64)", "lib.tensor(2**63)", "lib.tensor(-2**63 - 1)", "lib.tensor([2**63])",
    "lib.tensor([1, 2**64])", "lib.tensor([True, 2**63])", "lib.tensor(2**63 - 1)",
    "lib.tensor(2**64, dtype=lib.int64)", "lib.tensor(2**63, dtype=lib.uint8)",
    "lib.tensor([1.0, 2**64])", "lib.tensor(2**70, dtype=lib.float32)",
    "lib.tensor(300, dtype=lib.uint8)", "lib.tensor(-1, dtype=lib.uint8)",
]


@pytest.mark.parametrize("expr", OVERFLOW)
def test_overflow_as_torch(expr):
    assert_same_as_torch(torch, expr)


@pytest.mark.parametrize("expr", ["lib.tensor(1e300, dtype=lib.float32)",
                                  "lib.tensor([1e300, 1.0])", "lib.tensor(1e300) + 1e300",
                                  "lib.tensor([1e300], dtype=lib.float16)"])
def test_overflow_to_inf_is_silent(expr):
    """torch makes inf of a float too large for the dtype without a warning (NumPy warns)."""
    import agdebug as ag
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same_as_torch(torch, expr)
        eval(expr, {"lib": ag})


# ----------------------------------------------------------------------------- scatter reduce

I3 = {"x": "lib.zeros(3)", "ones": "lib.ones(3)", "i": "lib.tensor([0, 0, 2])",
      "s": "lib.tensor([1.0, 2.0, 3.0])", "xr": "lib.zeros(3, requires_grad=True)",
      "m": "lib.ones(2, 3) + 1", "i2": "lib.tensor([[0, 0], [1, 1]])",
      "s2": "lib.arange(6.0).reshape(2, 3)"}

SCATTER_REDUCE = [
    "x.scatter(0, i, s, reduce='add')", "ones.scatter(0, i, s, reduce='multiply')",
    "x.scatter(0, i, 2.0, reduce='add')", "ones.scatter(0, i, 2.0, reduce='multiply')",
    "x.scatter(0, i, value=2.0, reduce='add')", "lib.scatter(x, 0, i, s, reduce='add')",
    "lib.scatter(x, 0, i, value=2.0, reduce='multiply')",
    "x.clone().scatter_(0, i, s, reduce='add')",
    "ones.clone().scatter_(0, i, 2, reduce='multiply')",
    "m.scatter(1, i2, s2, reduce='multiply')", "m.scatter(-1, i2, 3, reduce='add')",
    "x.scatter(0, i.int(), s, reduce='add')",
    # dtypes: the value is converted to self's dtype (checked), bool adds as or, multiplies as and
    "lib.zeros(3, dtype=lib.int64).scatter(0, i, lib.tensor([1, 2, 3]), reduce='add')",
    "lib.zeros(3, dtype=lib.int64).scatter(0, i, 2.5, reduce='add')",
    "lib.ones(3, dtype=lib.int32).scatter(0, i, 2, reduce='multiply')",
    "lib.zeros(3, dtype=lib.bool).scatter(0, i, True, reduce='add')",
    "lib.zeros(3, dtype=lib.bool).scatter(0, i, lib.tensor([True, False, True]), reduce='add')",
    "lib.ones(3, dtype=lib.bool).scatter(0, i, lib.tensor([True, False, True]), "
    "reduce='multiply')",
    "lib.zeros(3, dtype=lib.uint8).scatter(0, i, -1, reduce='add')",
    "lib.zeros(3, dtype=lib.uint8).scatter(0, i, 300, reduce='add')",
    "x.scatter(0, i, 1e300, reduce='add')", "x.scatter(0, i, 1e300)",
    "lib.zeros(3, dtype=lib.float16).scatter(0, i, 2.0, reduce='add')",
    # errors
    "x.scatter(0, i, s, reduce='sum')", "x.scatter(0, i, 2.0, reduce='mean')",
    "x.scatter(0, i, lib.tensor([1, 2, 3]), reduce='add')",
    "x.scatter(0, lib.tensor([5]), s, reduce='add')",
    "x.scatter(0, lib.tensor([0, 1, 2, 0]), s, reduce='add')",
    # a gradient is asked for: torch records a node without a derivative
    "xr.scatter(0, i, s, reduce='add')", "xr.scatter(0, i, 2.0, reduce='multiply')",
    "x.scatter(0, i, s.clone().requires_grad_(), reduce='add')",
    "xr.clone().scatter_(0, i, 2.0, reduce='add')", "xr.scatter_(0, i, 2.0, reduce='add')",
    "xr.scatter(0, i, s, reduce='add').sum().backward()",
    "xr.scatter(0, i, 2.0, reduce='add').sum().backward()",
]


@pytest.mark.parametrize("expr", SCATTER_REDUCE)
def test_scatter_legacy_reduce_as_torch(expr):
    assert_same_as_torch(torch, expr, I3)


def test_scatter_reduce_deprecation_warned_once_for_a_tensor_src():
    import agdebug as ag
    from agdebug.ops.indexing import gather_scatter as gather
    gather._WARNED.clear()
    x, i, s = ag.zeros(3), ag.tensor([0, 0, 2]), ag.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x.scatter(0, i, 2.0, reduce="add")   # a scalar value: no warning in torch
        x.scatter(0, i, s, reduce="add")
        x.scatter_(0, i, s, reduce="multiply")
    assert [str(w.message) for w in caught] == [
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
        "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
        "options."]
    assert caught[0].filename == __file__   # points at the caller, as torch's does


def test_scatter_reduce_prints_torch_node_name(torch):
    import agdebug as ag
    want = repr(torch.zeros(2, requires_grad=True).scatter(0, torch.tensor([0]), 1.0,
                                                            reduce="add"))
    got = repr(ag.zeros(2, requires_grad=True).scatter(0, ag.tensor([0]), 1.0, reduce="add"))
    assert got == want


# ----------------------------------------------------------------------------- index_reduce

IR = {"x": "lib.arange(6.0).reshape(3, 2) + 1", "i": "lib.tensor([0, 2, 0])",
      "s": "lib.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])",
      "xr": "(lib.arange(6.0).reshape(3, 2) + 1).requires_grad_()",
      "xi": "lib.arange(6).reshape(3, 2) - 3", "si": "lib.tensor([[2, -3], [4, 5], [-6, 7]])"}

INDEX_REDUCE = [
    *(f"x.index_reduce(0, i, s, '{r}', include_self={inc})"
      for r in ("prod", "mean", "amax", "amin") for inc in (True, False)),
    *(f"xr.index_reduce(0, i, s, '{r}')" for r in ("prod", "mean", "amax", "amin")),
    "lib.index_reduce(x, 0, i, s, 'prod')", "x.clone().index_reduce_(0, i, s, 'amax')",
    "x.index_reduce(0, i.int(), s, 'prod')",
    "x.index_reduce(1, lib.tensor([1, 1]), s[:, :2], 'mean')",
    "x.index_reduce(-1, lib.tensor([1, 1, 0]), lib.ones(3, 3), 'mean')",
    "xi.index_reduce(0, i, si, 'mean')", "xi.index_reduce(0, i, si, 'mean', include_self=False)",
    "lib.ones(3, 2, dtype=lib.bool).index_reduce(0, i, lib.zeros(3, 2, dtype=lib.bool), 'amin')",
    "lib.tensor(3.0).index_reduce(0, lib.tensor([0]), lib.tensor(2.0), 'prod')",
    "lib.tensor(3.0).index_reduce(0, lib.tensor(0), lib.tensor(2.0), 'amax')",
    "x.index_reduce(0, lib.tensor([], dtype=lib.long), lib.zeros(0, 2), 'prod')",
    # errors
    "x.index_reduce(0, i, s, 'sum')", "x.index_reduce(0, i.float(), s, 'prod')",
    "x.index_reduce(0, i, s.double(), 'prod')",
    "x.index_reduce(0, lib.tensor([5, 0, 0]), s, 'prod')",
    "x.index_reduce(0, lib.tensor([-1, 0, 0]), s, 'prod')",
    "x.index_reduce(0, lib.tensor([0, 0]), s, 'prod')",
    "x.index_reduce(0, lib.tensor([[0, 0, 0]]), s, 'prod')",
    "x.index_reduce(2, lib.tensor([1, 1]), s, 'mean')",
    "x.index_reduce(0, lib.tensor(0), s[0], 'prod')",
    "lib.tensor(3.0).index_reduce(0, lib.tensor([0]), lib.tensor([2.0]), 'prod')",
    "x.index_reduce(0, i, lib.zeros(3, 3), 'mean')",
    "xr.index_reduce_(0, i, s, 'prod')",
]


@pytest.mark.parametrize("expr", INDEX_REDUCE)
def test_index_reduce_as_torch(expr):
    assert_same_as_torch(torch, expr, IR)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_gradients_as_torch(torch, reduce, include_self):
    """Ties (6 and 6, 7 and 7) and a zero in self: torch's split and masked formulas."""
    import agdebug as ag
    grads = []
    for lib in (ag, torch):
        x = lib.tensor([[1.0, 7.0], [3.0, 4.0], [0.0, 6.0]], requires_grad=True)
        s = lib.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]], requires_grad=True)
        y = x.index_reduce(0, lib.tensor([0, 2, 0]), s, reduce, include_self=include_self)
        grads.append([g.detach().numpy() for g in lib.autograd.grad(
            (y * lib.arange(6.0).reshape(3, 2)).sum(), (x, s))])
    for got, want in zip(*grads):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_cpp_node_printed_unqualified_as_torch(torch):
    """torch's repr names C++ nodes without their namespace: grad_fn=<CopySlices>."""
    import agdebug as ag
    reprs = []
    for lib in (ag, torch):
        x = lib.ones(3, requires_grad=True).clone()
        x[0] = 2
        reprs.append(repr(x))
    assert reprs[0] == reprs[1]


# ----------------------------------------------------------------------------- Sequential

def _layers(lib):
    lib.manual_seed(0)
    return [lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1), lib.nn.Tanh()]


def _structure(result):
    """What a torch user sees of a container (or of an error) without the classes' module."""
    if isinstance(result, Exception):
        text = str(result)
        for path in ("agdebug.nn.modules.container", "torch.nn.modules.container",
                     "agdebug.nn.modules.module", "torch.nn.modules.module"):
            text = text.replace(path, "X")
        return type(result).__name__, text
    if isinstance(result, (list, tuple)):
        return [_structure(r) for r in result]
    if hasattr(result, "_modules"):
        return (type(result).__name__, [(k, type(m).__name__) for k, m in result._modules.items()],
                [n for n, _ in result.named_parameters()], repr(result),
                [k for k in dir(result) if k.isdigit()])
    return result


SEQUENTIAL = [
    "s[1:3]", "s[::-1]", "s[-1]", "s[4]", "s[-5]", "s['a']", "named[1:]", "named[0]",
    "(s.__setitem__(1, lib.nn.Sigmoid()), s)[1]", "(s.__setitem__(-1, lib.nn.Sigmoid()), s)[1]",
    "s.__setitem__(4, lib.nn.Sigmoid())", "(named.__setitem__(0, lib.nn.Sigmoid()), named)[1]",
    "(s.__delitem__(1), s)[1]", "(s.__delitem__(-1), s)[1]", "(s.__delitem__(slice(1, 3)), s)[1]",
    "(s.__delitem__(slice(None, None, 2)), s)[1]", "s.__delitem__(7)",
    "(named.__delitem__(0), named)[1]",
    "s.insert(0, lib.nn.Sigmoid())", "s.insert(-1, lib.nn.Sigmoid())",
    "s.insert(4, lib.nn.Sigmoid())",
    "s.insert(5, lib.nn.Sigmoid())", "s.insert(-5, lib.nn.Sigmoid())", "s.insert(1, 3)",
    "s.extend(lib.nn.Sequential(lib.nn.Sigmoid()))", "s.extend([lib.nn.Sigmoid()])",
    "(s.pop(1), s)", "(s.pop(slice(0, 2)), s)", "(s.pop(-1), s)", "s.pop(9)",
    "s + lib.nn.Sequential(lib.nn.Sigmoid())", "s + [lib.nn.Sigmoid()]", "s + 1",
    "(s.__iadd__(lib.nn.Sequential(lib.nn.Sigmoid())), s)[1]", "s.__iadd__([1])",
    "s * 2", "2 * s", "s * 0", "s * 1.5", "(s.__imul__(2), s)[1]", "s.__imul__(0)",
    "named * 2", "named + s", "(named.__iadd__(s), named)[1]",
]


@pytest.mark.parametrize("expr", SEQUENTIAL)
def test_sequential_as_torch(expr):
    import collections

    import agdebug as ag
    results = []
    for lib in (ag, torch):
        layers = _layers(lib)
        scope = {"lib": lib, "s": lib.nn.Sequential(*layers),
                 "named": lib.nn.Sequential(collections.OrderedDict(
                     [("a", layers[0]), ("b", layers[1]), ("c", layers[2])]))}
        try:
            results.append(_structure(eval(expr, scope)))
        except Exception as e:   # noqa: BLE001 - compared
            results.append(_structure(e))
    assert results[0] == results[1]


MODULE_LIST = [
    "m[1:3]", "m[-1]", "m[4]", "(m.__setitem__(1, lib.nn.Sigmoid()), m)[1]",
    "m.__setitem__(-5, lib.nn.Sigmoid())", "(m.__delitem__(1), m)[1]",
    "(m.__delitem__(slice(1, None)), m)[1]", "(m.insert(1, lib.nn.Sigmoid()), m)[1]",
    "(m.insert(4, lib.nn.Sigmoid()), m)[1]", "(m.pop(0), m)", "(m.pop(slice(2, 4)), m)",
    "m + [lib.nn.Sigmoid()]", "m + m", "(m.__iadd__([lib.nn.Sigmoid()]), m)[1]", "m.extend(3)",
    "m.extend(lib.nn.Sequential(lib.nn.ReLU(), lib.nn.ReLU()))",
    "lib.nn.ModuleList([lib.nn.ReLU(), lib.nn.ReLU(), lib.nn.Tanh(), lib.nn.ReLU()])",
    "lib.nn.ModuleList()", "lib.nn.ModuleList([lib.nn.Linear(1, 1)] * 3)",
]


@pytest.mark.parametrize("expr", MODULE_LIST)
def test_module_list_as_torch(expr):
    import agdebug as ag
    results = []
    for lib in (ag, torch):
        scope = {"lib": lib, "m": lib.nn.ModuleList(_layers(lib))}
        try:
            results.append(_structure(eval(expr, scope)))
        except Exception as e:   # noqa: BLE001 - compared
            results.append(_structure(e))
    assert results[0] == results[1]


# ----------------------------------------------------------------------------- clip_grad_norm_

INF, NAN = float("inf"), float("nan")


def _clip(lib, grads, norm_type, error_if_nonfinite):
    """``(total norm, clipped gradients)``, or the error, with every warning an error."""
    params = []
    for g in grads:
        p = lib.nn.Parameter(lib.zeros(len(g)))
        p.grad = lib.tensor(g)
        params.append(p)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # torch warns of nothing here: agdebug must not either
        try:
            total = lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type,
                                                 error_if_nonfinite=error_if_nonfinite)
        except Exception as e:   # noqa: BLE001 - compared
            return type(e).__name__, str(e)
    return total.item(), [p.grad.tolist() for p in params]


@pytest.mark.parametrize("error_if_nonfinite", [False, True])
@pytest.mark.parametrize("norm_type", [2.0, INF, 1.0, -INF, 0.0])
@pytest.mark.parametrize("grads", [[[INF, 1.0]], [[NAN, 1.0]], [[1.0, 2.0], [-INF, 0.0]],
                                   [[1e30, 1e30]], [[0.0, 0.0]], [[3.0, 4.0]]])
def test_clip_grad_norm_non_finite_as_torch(grads, norm_type, error_if_nonfinite):
    import agdebug as ag
    got = _clip(ag, grads, norm_type, error_if_nonfinite)
    want = _clip(torch, grads, norm_type, error_if_nonfinite)
    np.testing.assert_equal(got, want)   # NaN equals NaN here


# ----------------------------------------------------------------------------- bilinear

BL = {"x1": "lib.arange(12.0).reshape(4, 3) / 7", "x2": "lib.arange(20.0).reshape(4, 5) / 9",
      "w": "lib.arange(30.0).reshape(2, 3, 5) / 11 - 1", "b": "lib.tensor([0.5, -1.0])",
      "wr": "(lib.arange(30.0).reshape(2, 3, 5) / 11 - 1).requires_grad_()"}

BILINEAR = [
    "F.bilinear(x1, x2, w, b)", "F.bilinear(x1, x2, w)", "F.bilinear(x1, x2, wr, b)",
    "F.bilinear(x1, x2, wr)", "F.bilinear(x1[0], x2[0], wr, b)",
    "F.bilinear(x1.reshape(2, 2, 3), x2.reshape(2, 2, 5), wr, b)",
    "F.bilinear(x1[:0], x2[:0], w, b)",
    "F.bilinear(x1.long(), x2.long(), w.long())",
    "F.bilinear(x1.double(), x2.double(), wr.double())",
    # errors
    "F.bilinear(x1, x2.reshape(4, 5, 1), w)", "F.bilinear(x1, x2[:3], w)",
    "F.bilinear(x1[:, :2], x2, w)", "F.bilinear(x1, x2[:, :4], w)", "F.bilinear(x1, x2, w, b[:1])",
    "F.bilinear(x1.double(), x2, w)", "F.bilinear(x1, x2, w.double())",
    "F.bilinear(x1, x2, w, b.double())", "F.bilinear(x1.double(), x2, w, b[:1])",
    "F.bilinear(x1.half(), x2, w)", "F.bilinear(x1.int(), x2, w)",
    "F.bilinear(x1.bool(), x2.bool(), w.bool())", "F.bilinear(x1[0, 0], x2[0, 0], w)",
    "F.bilinear(x1, x2, w, b.reshape(2, 1))", "F.bilinear(x1, x2, w, b[0])",
    "F.bilinear(x1, x2, w.reshape(2, 3, 5, 1))", "F.bilinear(x1, x2, w[0, 0])",
]


@pytest.mark.parametrize("expr", BILINEAR)
def test_bilinear_as_torch(expr):
    assert_same_as_torch(torch, expr, BL)


def _graph(fn, depth=0):
    """The node names below ``fn``, depth first (the graph a torch user inspects)."""
    if fn is None:
        return []
    rows = [(depth, fn.name())]
    for child, _ in fn.next_functions:
        rows += _graph(child, depth + 1)
    return rows


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_bilinear_graph_and_grads_as_torch(torch, shape, with_bias):
    import agdebug as ag
    seen = []
    for lib in (ag, torch):
        lib.manual_seed(0)
        layer = lib.nn.Bilinear(3, 5, 2, bias=with_bias, dtype=lib.float64)
        with lib.no_grad():
            layer.weight.copy_(lib.arange(30.0, dtype=lib.float64).reshape(2, 3, 5) / 7)
            if with_bias:
                layer.bias.copy_(lib.tensor([1.0, -2.0], dtype=lib.float64))
        x1 = (lib.arange(float(np.prod(shape[:-1] + (3,))), dtype=lib.float64) / 5).reshape(
            *shape[:-1], 3).requires_grad_()
        x2 = lib.ones(*shape[:-1], 5, dtype=lib.float64, requires_grad=True)
        y = layer(x1, x2)
        grads = lib.autograd.grad((y * y).sum(), [x1, x2, *layer.parameters()],
                                  create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), [x1, layer.weight])
        values = [y.detach(), *(g.detach() for g in grads), *second]
        seen.append((_graph(y.grad_fn), np.concatenate([v.numpy().ravel() for v in values]),
                     repr(layer), [(n, tuple(p.shape)) for n, p in layer.named_parameters()]))
    (graph, values, *rest), (want_graph, want_values, *want_rest) = seen
    assert graph == want_graph and rest == want_rest
    np.testing.assert_allclose(values, want_values, rtol=1e-10)


def test_bilinear_module_init_and_errors_as_torch(torch):
    import agdebug as ag
    layer = ag.nn.Bilinear(4, 5, 3)
    bound = 1 / 2   # 1 / sqrt(in1_features)
    assert layer.weight.abs().max().item() <= bound and layer.bias.abs().max().item() <= bound
    assert layer.weight.std().item() > bound / 4   # uniform, not zeros
    for lib in (ag, torch):
        with pytest.raises(ValueError, match=r"in1_features must be > 0, but got "
                                             r"\(in1_features=0\)"):
            lib.nn.Bilinear(0, 5, 2)
    assert ag.nn.Bilinear(3, 5, 2, bias=False).bias is None
    assert repr(ag.nn.Bilinear(3, 5, 2, bias=False)) == repr(torch.nn.Bilinear(3, 5, 2,
                                                                               bias=False))
