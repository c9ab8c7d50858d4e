"""Cases for agdebug/ops/nn/ctc.py (see harness.py).

torch's gradient of ``_ctc_loss`` is the derivative of the loss once ``log_probs`` come from
``log_softmax`` (it adds an ``exp(log_probs)`` term that log_softmax's derivative cancels), so
the cases take log_softmax of their input: central differences then see the same gradient.
torch has no second derivative (``_ctc_loss_backward`` is not differentiable: "derivative
for aten::_ctc_loss_backward is not implemented"), so every case sets second_order=False.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(31)
X = rng.standard_normal((6, 3, 4))                  # (T, N, C)
PADDED = np.array([[1, 2, 2], [3, 3, 0], [2, 0, 0]])   # repeated labels need a blank between
# no label 3, for blank=3: where a label is the blank, torch's gradient is not the derivative
# (tests/nn/test_ctc_loss.py compares that case with torch)
NO_THREE = np.where(PADDED == 3, 0, PADDED)
CONCAT = np.array([1, 2, 2, 3, 3, 2])
INPUT_LENGTHS, TARGET_LENGTHS = [6, 5, 4], [3, 2, 1]


def F(t):
    return t.nn.functional


def _ctc(t, x, targets, **kw):
    return F(t).ctc_loss(x.log_softmax(2), t.tensor(targets), INPUT_LENGTHS, TARGET_LENGTHS,
                         **kw)


def _ctc_gradient(t, x):
    """The first derivative as a value: with create_graph=True torch records it under
    ``torch::autograd::NotImplemented`` (``_ctc_loss_backward``), detached here since that
    node has no derivative."""
    loss = _ctc(t, x, PADDED, reduction="sum")
    (grad,) = t.autograd.grad(loss, x, create_graph=True)
    return grad.detach() * x


CASES = [
    Case("ctc_loss", lambda t, x: _ctc(t, x, PADDED, reduction="none"), [X],
         second_order=False, grad_fn="CtcLossBackward0"),
    Case("ctc_loss", lambda t, x: _ctc(t, x, CONCAT), [X], second_order=False,
         id="ctc_loss_concatenated_mean"),
    Case("ctc_loss", lambda t, x: _ctc(t, x, NO_THREE, blank=3, reduction="sum"), [X],
         second_order=False, id="ctc_loss_blank_last"),
    # sample 0 cannot be aligned in 2 steps: zero_infinity zeroes its loss and gradient
    Case("ctc_loss", lambda t, x: F(t).ctc_loss(
        x.log_softmax(2), t.tensor(PADDED), [2, 5, 4], TARGET_LENGTHS, reduction="none",
        zero_infinity=True), [X], second_order=False, id="ctc_loss_zero_infinity"),
    Case("ctc_loss", lambda t, x: F(t).ctc_loss(
        x[:, 0].log_softmax(1), t.tensor(PADDED[0]), [6], [3], reduction="none"), [X],
        second_order=False, id="ctc_loss_unbatched"),
    Case("ctc_loss_backward", _ctc_gradient, [X], numeric=False, second_order=False),
]
