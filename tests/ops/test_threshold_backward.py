"""relu's derivative (threshold_backward) bit for bit against torch: +0.0 where the input was
dropped, whatever the sign of the gradient there; NaN and inf passed where it was kept."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops.pointwise.activations import threshold_backward

GRAD = [np.inf, -np.inf, np.nan, -0.0, -2.0, 3.0, -1.0, np.nan, -7.5]
SELF = [-1.0, 0.0, -3.0, 1.0, 0.0, np.nan, 2.0, 5.0, -0.5]


def _bytes(t):
    return t.detach().numpy().tobytes()


def test_relu_gradient_is_positive_zero_where_dropped(torch):
    # A negative gradient at a dropped input: torch's kernel writes 0 (+0.0); a product with
    # the mask gave -0.0, printed as "-0."
    grads = {}
    for lib in (ag, torch):
        x = lib.tensor([-1.0, 2.0, -3.0, 0.0], requires_grad=True)
        x.relu().backward(lib.tensor([-5.0, -1.0, 3.0, -2.0]))
        grads[lib] = x.grad
    assert _bytes(grads[ag]) == _bytes(grads[torch])
    assert not np.signbit(grads[ag].numpy()[[0, 3]]).any()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_threshold_backward_bits_match_torch(torch, dtype):
    got = threshold_backward(ag.tensor(GRAD, dtype=getattr(ag, dtype)),
                             ag.tensor(SELF, dtype=getattr(ag, dtype)))
    want = torch.ops.aten.threshold_backward(torch.tensor(GRAD, dtype=getattr(torch, dtype)),
                                             torch.tensor(SELF, dtype=getattr(torch, dtype)), 0)
    assert got.dtype == getattr(ag, dtype)
    assert _bytes(got) == _bytes(want)


def test_threshold_backward_of_transposed_and_0d_inputs(torch):
    rows = [[1.0, -2.0, 0.5], [-3.0, 4.0, -0.25]]
    for make in (lambda lib: lib.tensor(rows).t(), lambda lib: lib.tensor(-2.0)):
        got = threshold_backward(make(ag) * -1, make(ag))
        want = torch.ops.aten.threshold_backward(make(torch) * -1, make(torch), 0)
        assert got.shape == want.shape and got.stride() == want.stride()
        assert _bytes(got) == _bytes(want)


def test_relu_second_derivative_still_masks(torch):
    # create_graph=True: the derivative is the op, recorded (ThresholdBackwardBackward0)
    outs = {}
    for lib in (ag, torch):
        x = lib.tensor([-1.0, 2.0, 0.0, 3.0], requires_grad=True)
        g = lib.tensor([-4.0, -1.0, 2.0, 5.0], requires_grad=True)
        (gx,) = lib.autograd.grad(x.relu(), x, g, create_graph=True)
        (gg,) = lib.autograd.grad(gx.sum(), g)
        outs[lib] = (gx.grad_fn.name(), _bytes(gx), _bytes(gg))
    assert outs[ag] == outs[torch]
