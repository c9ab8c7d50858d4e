"""F.ctc_loss and nn.CTCLoss against torch: values, dtypes, gradients and grad_fn names for
each reduction, padded and concatenated targets, lengths as tensors, lists and tuples,
zero_infinity, repeated labels, unbatched input, float32 and float64; errors (type and
first line) in torch's order; the first derivative's NotImplemented node under
create_graph=True; and the loss against a sum over every alignment.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import agdebug as ag
import agdebug.nn.functional as AF

from ..torch_parity import assert_same_as_torch, assert_same_with_grads


def _log_probs(shape, dtype="float64") -> str:
    """Deterministic log-probabilities (log_softmax over the last dim), a leaf requiring grad."""
    n = int(np.prod(shape))
    return (f"lib.arange({n}, dtype=lib.{dtype}).reshape{shape}.mul(0.37).sin().mul(2)"
            f".log_softmax({len(shape) - 1}).detach().requires_grad_()")


SETUP = {
    "lp": _log_probs((6, 3, 4)),                       # (T, N, C)
    "lp32": _log_probs((6, 3, 4), "float32"),
    "lp1": _log_probs((6, 4)),                         # unbatched (T, C)
    "tg": "lib.tensor([[1, 2, 2], [3, 3, 0], [2, 0, 0]])",   # padded, repeated labels
    "cat": "lib.tensor([1, 2, 2, 3, 3, 2])",           # the same targets, concatenated
    "il": "lib.tensor([6, 5, 4])",
    "tl": "lib.tensor([3, 2, 1])",
}

VALUES = [
    # every reduction, lengths as lists, tuples and tensors
    "F.ctc_loss(lp, tg, [6, 5, 4], [3, 2, 1], reduction='none')",
    "F.ctc_loss(lp, tg, (6, 5, 4), (3, 2, 1))",
    "F.ctc_loss(lp, tg, il, tl, reduction='sum')",
    "F.ctc_loss(lp, tg, il.int(), tl.int(), reduction='none')",
    "F.ctc_loss(lp, tg, il[None], tl, reduction='none')",      # a tensor of lengths: flattened
    "F.ctc_loss(lp, tg, [6, 5, 4], [3, 2, 1], 0, 'elementwise_mean')",
    # concatenated targets give the same losses
    "F.ctc_loss(lp, cat, il, tl, reduction='none')",
    "F.ctc_loss(lp, cat, il, tl)",
    "F.ctc_loss(lp, cat, il, tl, reduction='sum')",
    # targets of any dtype are read as int64
    "F.ctc_loss(lp, tg.int(), il, tl, reduction='none')",
    "F.ctc_loss(lp, tg.float(), il, tl, reduction='none')",
    # repeated labels need a blank between them: [3, 3] in 2 steps is impossible
    "F.ctc_loss(lp, lib.tensor([[3, 3]]).expand(3, 2), [2, 3, 6], [2, 2, 2], reduction='none')",
    "F.ctc_loss(lp, lib.tensor([[3, 3]]).expand(3, 2), [2, 3, 6], [2, 2, 2], "
    "reduction='none', zero_infinity=True)",
    # too short for the target: inf (and NaN gradients), or zeros with zero_infinity
    "F.ctc_loss(lp, tg, [2, 5, 4], tl, reduction='none')",
    "F.ctc_loss(lp, tg, [2, 5, 4], tl)",
    "F.ctc_loss(lp, tg, [2, 5, 4], tl, zero_infinity=True)",
    "F.ctc_loss(lp, tg, [2, 5, 4], tl, reduction='sum', zero_infinity=True)",
    "F.ctc_loss(lp, tg, [2, 5, 4], tl, reduction='none', zero_infinity=True)",
    # empty inputs and targets
    "F.ctc_loss(lp, tg, [0, 5, 0], [0, 2, 1], reduction='none')",
    "F.ctc_loss(lp, tg, [6, 5, 4], [0, 0, 0], reduction='none')",
    "F.ctc_loss(lp, tg, [6, 5, 4], [0, 0, 0])",
    "F.ctc_loss(lp, tg[:, :0], [6, 5, 4], [0, 0, 0], reduction='sum')",
    "F.ctc_loss(lp, cat[:0], [6, 5, 4], [0, 0, 0], reduction='none')",
    # the blank anywhere; a label equal to the blank (torch's gradient has a quirk there)
    "F.ctc_loss(lp, tg % 3, il, tl, blank=3, reduction='none')",
    "F.ctc_loss(lp, tg, il, tl, blank=2, reduction='none')",
    "F.ctc_loss(lp, tg, il, tl, blank=1)",
    "F.ctc_loss(lp, tg, il, tl, blank=lib.tensor(1), reduction='none')",
    # unbatched input: (T, C) with 1-d or (1, S) targets
    "F.ctc_loss(lp1, tg[0], [6], [3], reduction='none')",
    "F.ctc_loss(lp1, tg[0], lib.tensor(6), lib.tensor(3), reduction='none')",
    "F.ctc_loss(lp1, tg[:1], (5,), (3,))",
    "F.ctc_loss(lp1, tg[0], [6], [3], reduction='sum')",
    "F.ctc_loss(lp1, tg[0], [2], [3], reduction='none', zero_infinity=True)",
    # float32; no gradient wanted; the module
    "F.ctc_loss(lp32, tg, il, tl, reduction='none')",
    "F.ctc_loss(lp32, cat, il, tl)",
    "F.ctc_loss(lp.detach(), tg, il, tl)",
    "lib.nn.CTCLoss()(lp, tg, il, tl)",
    "lib.nn.CTCLoss(blank=3, reduction='sum', zero_infinity=True)(lp, tg % 3, [2, 5, 4], tl)",
    "lib.nn.CTCLoss(reduction='none')(lp, cat, il, tl)",
]


@pytest.mark.parametrize("expr", VALUES)
def test_ctc_loss_matches_torch(torch, expr):
    if "lp32" in expr:   # float32: the per-class sums are added in another order than torch's
        assert_same_with_grads(torch, expr, SETUP, rtol=1e-5, atol=1e-6)
    else:
        assert_same_with_grads(torch, expr, SETUP)


ERRORS = [
    # in torch's order: the reduction, the parser, integral length tensors...
    "F.ctc_loss(lp, tg, il, tl, reduction='avg')",
    "F.ctc_loss(lp, tg, 6, tl, reduction='avg')",
    "F.ctc_loss(lp, tg, il, [3, 2, 1])",
    "F.ctc_loss(lp, tg, [6, 5, 4], tl)",
    "F.ctc_loss(lp, tg, 6, [3, 2, 1])",
    "F.ctc_loss(lp, tg, [6.0, 5, 4], [3, 2, 1])",
    "F.ctc_loss(lp, tg, [True, 5, 4], [3, 2, 1])",
    "F.ctc_loss(lp, tg, il.numpy(), tl)",
    "F.ctc_loss(lp, tg, il, tl, blank=1.0)",
    "F.ctc_loss(lp, tg, il, tl, blank=True)",
    "F.ctc_loss(lp, tg, il, tl, zero_infinity=1)",
    "F.ctc_loss(lp, tg, il, tl, zero_infinity=lib.tensor(True))",
    "F.ctc_loss(lp.tolist(), tg, il, tl)",
    "F.ctc_loss(lp, tg.tolist(), il, tl)",
    "F.ctc_loss(lp, tg, il.float(), tl)",
    "F.ctc_loss(lp, tg, il, tl.float())",
    "F.ctc_loss(lp, tg, il.bool(), tl)",
    # ... then the kernel's dtype, emptiness and shapes
    "F.ctc_loss(lp.detach().long(), tg, il, tl)",
    "F.ctc_loss(lp.detach().half(), tg, il, tl)",
    "F.ctc_loss(lp.detach()[:0], tg, [0, 0, 0], tl)",
    "F.ctc_loss(lp.detach()[:, :, :0], tg, il, tl)",
    "F.ctc_loss(lp.detach()[0, 0, 0], tg, il, tl)",
    "F.ctc_loss(lp[None], tg, il, tl)",
    "F.ctc_loss(lp[:, 0, 0], tg[0], [6], [3])",
    "F.ctc_loss(lp, tg[None], il, tl)",
    "F.ctc_loss(lp, tg[0, 0], il, tl)",
    "F.ctc_loss(lp, tg, il, tl, blank=4)",
    "F.ctc_loss(lp, tg, il, tl, blank=-1)",
    "F.ctc_loss(lp, tg, [6, 5], tl)",
    "F.ctc_loss(lp, tg, il, [3, 2, 1, 1])",
    "F.ctc_loss(lp, tg, (), ())",
    "F.ctc_loss(lp, tg, il, [3, -1, 1])",
    "F.ctc_loss(lp, tg[:2], il, tl)",
    "F.ctc_loss(lp, tg, il, [4, 2, 1])",
    "F.ctc_loss(lp, cat[:5], il, tl)",
    "F.ctc_loss(lp, cat, il, [3, -2, 5])",
    "F.ctc_loss(lp, tg, [7, 5, 4], tl)",
    "F.ctc_loss(lp, tg, [6, -1, 4], tl)",
    "F.ctc_loss(lp1, tg, [6], [3])",
    "F.ctc_loss(lp1, tg[0], [6, 5], [3])",
    "F.ctc_loss(lp1, tg[0], 6, 3)",
    "lib.nn.CTCLoss(reduction='avg')(lp, tg, il, tl)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_ctc_loss_errors_match_torch(torch, expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_infinite_loss_gives_nan_gradients_without_zero_infinity():
    """Sample 0 cannot be aligned: NaN gradients for its steps, zeros after its length."""
    lp = ag.tensor(np.log(np.full((4, 2, 3), 1 / 3)), requires_grad=True)
    AF.ctc_loss(lp, ag.tensor([[1, 1, 2], [1, 2, 0]]), [3, 4], [3, 2], reduction="sum").backward()
    grad = lp.grad.numpy()
    assert np.isnan(grad[:3, 0]).all() and not grad[3, 0].any()
    assert np.isfinite(grad[:, 1]).all()


def test_first_derivative_has_no_derivative_as_in_torch(torch):
    """torch's _ctc_loss_backward is not differentiable: with create_graph=True the gradient
    hangs from a NotImplemented node, and differentiating it again raises."""
    names, errors = [], []
    for lib, functional in ((ag, AF), (torch, torch.nn.functional)):
        lp = eval(SETUP["lp"], {"lib": lib})
        loss = functional.ctc_loss(lp, lib.tensor([[1, 2], [3, 3], [2, 0]]), [6, 5, 4],
                                   [2, 2, 1])
        (grad,) = lib.autograd.grad(loss, lp, create_graph=True)
        names.append((grad.requires_grad, grad.grad_fn.name()))
        with pytest.raises(RuntimeError) as error:
            grad.sum().backward()
        errors.append(str(error.value))
    assert names[0] == names[1] == (True, "torch::autograd::NotImplemented")
    assert errors[0] == errors[1] == "derivative for aten::_ctc_loss_backward is not implemented"


def test_saved_values_match_torch(torch):
    """CtcLossBackward0 keeps torch's saved values under torch's names."""
    nodes = []
    for lib, functional in ((ag, AF), (torch, torch.nn.functional)):
        lp = eval(SETUP["lp"], {"lib": lib})
        nodes.append(functional.ctc_loss(lp, lib.tensor([[1, 2], [3, 3], [2, 0]]), [6, 5, 4],
                                         [2, 2, 1], blank=0,
                                         reduction="none").grad_fn)
    ours, theirs = nodes
    for name in ("_saved_input_lengths", "_saved_target_lengths", "_saved_blank",
                 "_saved_zero_infinity"):
        assert getattr(ours, name) == getattr(theirs, name), name
    for name in ("_saved_log_probs", "_saved_targets", "_saved_result0"):
        np.testing.assert_allclose(getattr(ours, name).detach().numpy(),
                                   getattr(theirs, name).detach().numpy())
    # result1, log alpha (N, T, 2 S + 1): torch leaves it uninitialised past each sample's
    # input length and its 2 * target_length + 1 states, so only the rest is compared
    alpha, want = ours._saved_result1.numpy(), theirs._saved_result1.numpy()
    assert alpha.shape == want.shape
    for n, (steps, length) in enumerate(zip([6, 5, 4], [2, 2, 1])):
        np.testing.assert_allclose(alpha[n, :steps, :2 * length + 1],
                                   want[n, :steps, :2 * length + 1])


def _brute_force_nll(probs: np.ndarray, target: list, blank: int) -> float:
    """-log of the sum over every path that collapses (merge repeats, drop blanks) to target."""
    steps, classes = probs.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=steps):
        merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
        if [c for c in merged if c != blank] == target:
            total += float(np.prod(probs[np.arange(steps), list(path)]))
    return -np.log(total)


@pytest.mark.parametrize("target,blank", [([1, 1], 0), ([1, 2, 1], 0), ([2], 1), ([], 0),
                                          ([0, 2], 1)])
def test_loss_is_the_sum_over_alignments(target, blank):
    probs = np.random.default_rng(5).dirichlet(np.ones(3), size=5)   # (T=5, C=3)
    lp = ag.tensor(np.log(probs)[:, None, :])
    loss = AF.ctc_loss(lp, ag.tensor([target], dtype=ag.int64), [5], [len(target)], blank=blank,
                       reduction="sum")
    np.testing.assert_allclose(loss.item(), _brute_force_nll(probs, target, blank), rtol=1e-10)
