"""Derivatives computed on arrays when nothing records them (``derivative_formula``, and
the engine's sum of a broadcast gradient) give the same bits as the same formula run as
ops, and torch's values."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.core.gradients import derivative_formula


def _second_derivative(fn: str, dtype, record: bool):
    x = ag.tensor(np.linspace(-2, 2, 7), dtype=dtype, requires_grad=True)
    (g,) = ag.autograd.grad(getattr(x, fn)().sum(), x, create_graph=True)
    # With create_graph=True the second pass runs as ops (each one recorded).
    (gg,) = ag.autograd.grad(g.sum(), x, create_graph=record)
    return gg


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", [ag.float16, ag.float32, ag.float64])
def test_same_bits_as_the_ops(fn, dtype):
    fast = _second_derivative(fn, dtype, record=False)
    ops = _second_derivative(fn, dtype, record=True)
    assert fast.grad_fn is None and ops.grad_fn is not None
    assert fast.dtype == ops.dtype == dtype
    np.testing.assert_array_equal(fast.numpy(), ops.detach().numpy())


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
def test_same_as_torch(fn):
    torch = pytest.importorskip("torch")
    x = torch.tensor(np.linspace(-2, 2, 7), requires_grad=True)
    (g,) = torch.autograd.grad(getattr(x, fn)().sum(), x, create_graph=True)
    (want,) = torch.autograd.grad(g.sum(), x)
    got = _second_derivative(fn, ag.float64, record=False)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-15)


def test_mixed_dtypes_or_shapes_run_as_ops():
    a32 = ag.ones(3)
    a64 = ag.ones(3, dtype=ag.float64)
    with ag.no_grad():
        mixed = derivative_formula(lambda a, b: a * b, a32, a64)
        broadcast = derivative_formula(lambda a, b: a * b, ag.ones(2, 1), ag.ones(3))
    assert mixed.dtype == ag.float64   # torch's promotion, through the ops
    assert tuple(broadcast.shape) == (2, 3)


def test_recorded_when_grad_mode_is_on():
    a = ag.ones(3, requires_grad=True)
    out = derivative_formula(lambda a, b: a * b * 2, a, ag.ones(3))
    assert out.grad_fn.name() == "MulBackward0"


def test_zero_dim():
    with ag.no_grad():
        out = derivative_formula(lambda a, b: a * b, ag.tensor(2.0), ag.tensor(3.0))
    assert isinstance(out, ag.Tensor) and out.shape == () and out.item() == 6.0


# Matrix products and the engine's reductions: a Linear layer's backward multiplies and sums
# the arrays directly when nothing records it; with create_graph=True it runs as ops.

def _linear_grads(dtype, record: bool, transposed_weight: bool = True):
    rng = np.random.default_rng(0)
    x = ag.tensor(rng.standard_normal((5, 4)), dtype=dtype, requires_grad=True)
    w = ag.tensor(rng.standard_normal((3, 4)), dtype=dtype, requires_grad=True)
    b = ag.tensor(rng.standard_normal(3), dtype=dtype, requires_grad=True)
    mat2 = w.t() if transposed_weight else w.t().contiguous()
    out = ag.addmm(b, x, mat2) @ ag.tensor(rng.standard_normal((3, 2)), dtype=dtype)
    return ag.autograd.grad((out * out).sum(), (x, w, b), create_graph=record)


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
@pytest.mark.parametrize("transposed_weight", [True, False])
def test_matrix_product_gradients_same_bits_as_the_ops(dtype, transposed_weight):
    fast = _linear_grads(dtype, record=False, transposed_weight=transposed_weight)
    ops = _linear_grads(dtype, record=True, transposed_weight=transposed_weight)
    for f, o in zip(fast, ops):
        assert f.grad_fn is None and o.grad_fn is not None
        assert f.dtype == o.dtype == dtype and f.is_contiguous() == o.is_contiguous()
        np.testing.assert_array_equal(f.numpy(), o.detach().numpy())


def test_linear_weight_gradient_is_contiguous_like_the_weight():
    _, w_grad, _ = _linear_grads(ag.float32, record=False)
    assert w_grad.is_contiguous() and tuple(w_grad.shape) == (3, 4)


def test_matrix_product_gradients_same_as_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    arrays = rng.standard_normal((5, 4)), rng.standard_normal((3, 4)), rng.standard_normal(3)

    def grads(lib):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        out = lib.nn.functional.linear(x, w, b)
        return [g.detach().numpy() for g in lib.autograd.grad((out * out).sum(), (x, w, b))]
    for got, want in zip(grads(ag), grads(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_only_host_arrays_of_one_dtype_unrecorded_are_computed_directly(fake_cuda):
    # On a GPU the ops pick the arrays' device (a formula on bare arrays would run on the
    # current one): there the derivatives stay ops.
    from agdebug.ops.core.gradients import unrecorded_host
    on_gpu = ag.ones(3, device="cuda:1")
    with ag.no_grad():
        assert unrecorded_host(ag.ones(3), ag.ones(3))
        assert not unrecorded_host(ag.ones(3), ag.ones(3, dtype=ag.float64))
        assert not unrecorded_host(on_gpu, on_gpu)
        out = derivative_formula(lambda a, b: a * b, on_gpu, on_gpu)
    assert not unrecorded_host(ag.ones(3), ag.ones(3))   # grad mode on: the ops record it
    # mm's derivatives (mat1_grad, mat2_grad) ask unrecorded_host too
    a = ag.ones(2, 3, device="cuda:1", requires_grad=True)
    b = ag.ones(3, 2, device="cuda:1", requires_grad=True)
    ag.mm(a, b).backward(ag.ones(2, 2, device="cuda:1"))
    assert str(out.device) == str(a.grad.device) == str(b.grad.device) == "cuda:1"


@pytest.mark.parametrize("bias_shape", [(3,), (4, 1), (1, 4, 3), (1, 1, 1)])
def test_a_broadcast_gradient_is_summed_on_its_array(bias_shape, monkeypatch):
    from agdebug.ops.reduction import sum_prod as reduce
    rng = np.random.default_rng(1)
    grad = rng.standard_normal((5, 4, 3)).astype(np.float32)
    b = ag.zeros(bias_shape, requires_grad=True)
    want = reduce.sum_to_size(ag.tensor(grad), size=bias_shape).numpy()   # the op itself

    def refuse(*args, **kwargs):
        raise AssertionError("the reduction went through the op")
    # The engine reduces on the array, without calling the op (its forward is still used).
    monkeypatch.setattr(reduce.sum_to_size, "run", refuse)
    (ag.ones(5, 4, 3) * b).backward(ag.tensor(grad))
    np.testing.assert_array_equal(b.grad.numpy(), want)
    assert b.grad.grad_fn is None and b.grad.shape == bias_shape


def test_a_broadcast_gradient_is_recorded_under_create_graph():
    a, b = ag.ones(2, 3, requires_grad=True), ag.zeros(3, requires_grad=True)
    (g,) = ag.autograd.grad((a * b).sum(), b, create_graph=True)
    # torch's nodes for the engine's reduction (sum_to: a sum keeping dims, then a view)
    assert [g.grad_fn.name(), g.grad_fn.next_functions[0][0].name()] == [
        "ViewBackward0", "SumBackward1"]


def _smooth_l1_grads(dtype, shape, reduction, beta, record: bool):
    rng = np.random.default_rng(len(shape) + int(beta * 100))
    x, t = (ag.tensor((rng.standard_normal(shape) * 2).astype(dtype), requires_grad=True)
            for _ in range(2))
    loss = ag.nn.functional.smooth_l1_loss(x, t, reduction=reduction, beta=beta)
    grad = ag.tensor(rng.standard_normal(tuple(loss.shape)).astype(dtype))
    # create_graph=True runs the derivative as ops; without it, on the arrays
    return ag.autograd.grad(loss, (x, t), grad, create_graph=record)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (7,), (32, 1)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("beta", [1.0, 0.37])
def test_smooth_l1_loss_derivative_same_bits_as_the_ops(dtype, shape, reduction, beta):
    fast = _smooth_l1_grads(dtype, shape, reduction, beta, record=False)
    ops = _smooth_l1_grads(dtype, shape, reduction, beta, record=True)
    for f, o in zip(fast, ops):
        assert f.grad_fn is None and o.grad_fn is not None
        assert f.dtype == o.dtype and f.shape == o.shape
        assert f.numpy().tobytes() == o.detach().numpy().tobytes()


def test_smooth_l1_loss_broadcast_target_runs_as_ops():
    x = ag.ones(3, 2, requires_grad=True)
    t = ag.zeros(2, requires_grad=True)
    with pytest.warns(UserWarning):
        loss = ag.nn.functional.smooth_l1_loss(x, t)
    gx, gt = ag.autograd.grad(loss, (x, t))
    assert tuple(gx.shape) == (3, 2) and tuple(gt.shape) == (2,)
