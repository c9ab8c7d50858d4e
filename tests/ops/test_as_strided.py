"""as_strided / Tensor.as_strided / as_strided_ compared with torch: values, dtypes, nodes,
gradients (overlapping windows, zero strides, views, offsets outside the input), view
semantics (writes through the view reach the base, versions, ``_base``), errors in torch's
order and words."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from tests.torch_parity import assert_same_as_torch, assert_same_with_grads

torch = pytest.importorskip("torch")

SETUP = {
    "x": "lib.arange(16, dtype=lib.float64).reshape(4, 4).cos().requires_grad_()",
    "v": "lib.arange(6, dtype=lib.float64).sin().requires_grad_()",
}

GRAD_EXPRESSIONS = [
    "x.as_strided((2, 3), (1, 2), 1)",
    "lib.as_strided(x, (3, 3), (1, 1))",
    "lib.as_strided(x, size=[2, 2], stride=[3, 1], storage_offset=5)",
    "lib.as_strided(v, lib.Size([4, 3]), [1, 1]) ** 2",
    "v.as_strided((3, 4), (0, 1))",
    "x[1:].as_strided((2, 2), (1, 4))",
    "x[2:].as_strided((3,), (5,), 0)",
    "x.t().as_strided((2, 2), (4, 1), 1)",
    "x.diagonal(1).as_strided((2,), (5,))",
    "v.expand(3, 6).as_strided((2, 3), (1, 2))",
    "x.as_strided((), (), 7)",
    "x.as_strided((0, 3), (1, 1), 100)",
    "x.as_strided((2, 0), (1, 1))",
]

VALUE_EXPRESSIONS = [
    "lib.arange(6).as_strided((2, 2), (1, 1))",
    "lib.tensor([True, False, True]).as_strided((2,), (2,))",
    "lib.as_strided(lib.tensor(3.0), (), ())",
    "lib.as_strided(lib.tensor(3.0), (2,), (0,))",
    "lib.arange(6).as_strided((2,), (1,), None)",
    "lib.arange(6).as_strided((lib.tensor(2),), (2,), lib.tensor(1))",
    "lib.arange(12.).reshape(3, 4).t().exp().as_strided((2, 2), (1, 1), 1)",
    "lib.as_strided(input=x, size=(2,), stride=(3,))",
    "x.as_strided((2,), (1,), storage_offset=None)",
    "lib.as_strided_(lib.arange(6.), (2,), (2,), 1)",
    "lib.as_strided_(x * 1, size=[2, 2], stride=[1, 4], storage_offset=None) * 2",
]

ERRORS = [
    "x.as_strided((5, 5), (5, 1))",
    "x.as_strided((2,), (1,), 16)",
    "lib.as_strided(x, (2, 3), (0, 0), 16)",
    "x.as_strided((2, 2), (1, -1))",
    "x.as_strided((2, 2), (1, 1, 1))",
    "x.as_strided((2, 2), (-1,))",
    "x.as_strided((2, 2), (1, -1), -1)",
    "x.as_strided((2, 2), (1, 1), -1)",
    "x.as_strided((2, -2), (1, 1))",
    "x.as_strided((-1,), (0,))",
    "x.as_strided(2, 1)",
    "lib.as_strided(x, 2, 1)",
    "x.as_strided((2.0,), (1,))",
    "x.as_strided((2,), (1,), 1.5)",
    "lib.as_strided(x, (2,), (1,), 1.5)",
    "x.as_strided((2,), (1,), storage_offset=1.5)",
    "x.as_strided((2,), (1,), True)",
    "x.as_strided((True,), (1,))",
    "x.as_strided(size=2, stride=(1,))",
    "x.as_strided((2,))",
    "x.as_strided()",
    "lib.as_strided(x, (2,), stride=2)",
    "x.as_strided_((2,), (1,))",
    # the parser's errors (as_strided_ names itself), in torch's order: too many positional
    # arguments, then each parameter in turn (missing or of the wrong type), then keywords
    "x.as_strided_()",
    "x.as_strided_((2,))",
    "x.as_strided_(stride=(1,))",
    "x.as_strided_(2, 1)",
    "x.as_strided_((2,), 1)",
    "x.as_strided_((2,), (1,), 1.5)",
    "x.as_strided_((2,), (1,), storage_offset=1.5)",
    "x.as_strided_((2,), (1,), 0, 0)",
    "x.as_strided_((2,), (1,), foo=0)",
    "x.as_strided((2,), (1,), 0, 0)",
    "x.as_strided((2,), (1,), 0, 0, 0)",
    "x.as_strided((2,), (1,), 0, 0, foo=1)",
    "x.as_strided((2,), (1,), foo=0)",
    "x.as_strided((2,), (1,), 0, bar=2, foo=1)",
    "x.as_strided(foo=1)",
    "x.as_strided(2)",
    "x.as_strided(2, (1,), foo=1)",
    "x.as_strided((2,), (1,), 1.5, foo=1)",
    "x.as_strided(size=None, stride=(1,))",
    "x.as_strided((2,), (1,), stride=(1,))",
    "x.as_strided((2,), size=(2,))",
    "x.as_strided((2,), (1,), 0, size=(2,))",
    "lib.as_strided()",
    "lib.as_strided(x)",
    "lib.as_strided(size=(2,), stride=(1,))",
    "lib.as_strided(5, (2,), (1,))",
    "lib.as_strided(input=5, size=(2,), stride=(1,))",
    "lib.as_strided(x, (2,), (1,), 0, 0)",
    "lib.as_strided(x, (2,), (1,), 0, 0, input=x)",
    "lib.as_strided(x, (2,), (1,), input=x)",
    "lib.as_strided(x, (2,), (1,), foo=0)",
    "lib.as_strided_(x)",
    "lib.as_strided_(x, 2, 1)",
    "lib.as_strided_(x, (2,), (1,), 1.5)",
    "lib.as_strided_(x, (2,), (1,), 0, 0)",
    "lib.as_strided_(x, (2,), (1,), foo=0)",
    "lib.as_strided_(x, (2,), (1,))",
    "lib.zeros(4).as_strided((3,), (0,)).add_(1)",
]


@pytest.mark.parametrize("expr", GRAD_EXPRESSIONS)
def test_values_nodes_and_gradients(expr):
    assert_same_with_grads(torch, expr, SETUP)


@pytest.mark.parametrize("expr", VALUE_EXPRESSIONS + ERRORS)
def test_values_and_errors(expr):
    assert_same_as_torch(torch, expr, SETUP)


def _geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset()


def _view_semantics(lib):
    """Recorded per library and compared: the same observable behaviour in both."""
    seen = []
    base = lib.zeros(4, 4)
    view = base[1:].as_strided((2, 2), (1, 4))   # offset 4: the input's own
    seen += [view._base is base, _geometry(view)]
    view.add_(1)
    seen += [base.tolist(), base._version, view._version]
    base[1, 0] = 5.0                             # and the view sees writes to the base
    seen += [view.tolist()]
    a = lib.arange(10.0)
    same = a.as_strided_((2, 3), (1, 2), 1)
    seen += [same is a, _geometry(a), a.tolist(), a._version]
    chained = a.as_strided((2,), (3,))           # the offset is a's new one, 1
    seen += [chained.tolist(), chained._base is a]
    return seen


def test_view_semantics_match_torch():
    assert _view_semantics(ag) == _view_semantics(torch)


def _graph_after_write(lib):
    x = lib.arange(16.0, dtype=lib.float64).reshape(4, 4).requires_grad_()
    y = x * 1
    w = y.as_strided((2, 2), (1, 1), 2)          # overlapping: y's elements 2, 3, 4 read twice
    w.mul_(lib.tensor([[2.0, 3.0], [4.0, 5.0]], dtype=lib.float64))
    (y * lib.arange(16.0, dtype=lib.float64).reshape(4, 4)).sum().backward()
    return y.grad_fn.name(), w.grad_fn.name(), x.grad.tolist()


def test_write_through_view_rebases_history():
    # torch leaves overlapping in-place writes undefined; here each element is written
    # once except the ones both windows read, whose factor is the last one in row-major order
    names_ag = _graph_after_write(ag)[:2]
    assert names_ag == _graph_after_write(torch)[:2]
    x = ag.arange(16.0, dtype=ag.float64).reshape(4, 4).requires_grad_()
    y = x * 1
    w = y.as_strided((2, 2), (1, 4), 1)          # no overlap: gradients compared exactly
    w.mul_(ag.tensor([[2.0, 3.0], [4.0, 5.0]], dtype=ag.float64))
    tx = torch.arange(16.0, dtype=torch.float64).reshape(4, 4).requires_grad_()
    ty = tx * 1
    tw = ty.as_strided((2, 2), (1, 4), 1)
    tw.mul_(torch.tensor([[2.0, 3.0], [4.0, 5.0]], dtype=torch.float64))
    assert y.tolist() == ty.tolist()
    y.sum().backward()
    ty.sum().backward()
    assert x.grad.tolist() == tx.grad.tolist()


def test_node_attributes_and_in_place_node():
    for lib in (ag, torch):
        y = lib.randn(4, 4, requires_grad=True).as_strided((2, 2), (1, 2))
        fn = y.grad_fn
        assert (fn._saved_size, fn._saved_stride, fn._saved_storage_offset) == \
            ((2, 2), (1, 2), None)
        z = lib.randn(4, 4, requires_grad=True).clone()
        z.as_strided_((3,), (5,), 1)
        assert z.grad_fn.name() == "AsStridedBackward1"
        assert z.grad_fn._saved_storage_offset == 1


def test_second_derivative_with_overlap_matches_torch():
    grads = []
    for lib in (ag, torch):
        v = lib.arange(6, dtype=lib.float64).sin().requires_grad_()
        w = lib.as_strided(v, (4, 3), (1, 1))
        (g,) = lib.autograd.grad((w ** 3).sum(), v, create_graph=True)
        (h,) = lib.autograd.grad((g * lib.arange(6, dtype=lib.float64)).sum(), v)
        grads.append((g.detach().numpy(), h.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)
