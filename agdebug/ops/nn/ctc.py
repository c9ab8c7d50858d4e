"""The connectionist temporal classification loss: ``_ctc_loss`` (CtcLossBackward0).

The forward is the alpha recursion of Graves et al. (2006) in log space, one step per time
step, vectorized over the batch and the extended target (a blank before, between and after
the labels). The derivative runs the beta recursion and gives torch's gradient,
``exp(log_probs) - exp(log(sum of alpha * beta per class) + nll - log_probs)``, which is the
gradient of the loss once ``log_probs`` come from ``log_softmax`` (torch's formula adds the
``exp(log_probs)`` term that log_softmax's derivative cancels).

torch computes that gradient in ``_ctc_loss_backward``, which has no derivative: with
``create_graph=True`` the gradient's node is ``torch::autograd::NotImplemented`` and
differentiating it again raises. agdebug records the same node (``ctc_loss_backward``).

The argument checks of torch's ``ctc_loss_allocate_outputs`` are :func:`check_arguments`,
in torch's order and words.
"""

from __future__ import annotations

import numpy as np

from ..core.registry import defop
from ..core.checks import kernel_missing

_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


# ----------------------------------------------------------------------------- checks

def check_arguments(log_probs, targets, input_lengths: tuple, target_lengths: tuple,
                    blank: int) -> None:
    """torch's checks of ``_ctc_loss`` on a (T, N, C) ``log_probs``, in torch's order."""
    if log_probs._data.dtype.kind != "f" or log_probs._data.dtype.itemsize < 4:
        raise kernel_missing("ctc_loss_cpu", log_probs.dtype)
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional "
                           f"tensor for argument #1 'log_probs'{_WHERE}")
    if not 1 <= targets.ndim < 3:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional "
                           f"tensor for argument #2 'targets'{_WHERE}")
    _, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    _check_targets(targets, target_lengths, batch)
    _check_input_lengths(input_lengths, log_probs.shape[0])


def _check_targets(targets, target_lengths: tuple, batch: int) -> None:
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value "
                               f"{length}{_WHERE}")
    expected = sum(target_lengths) if targets.ndim == 1 else batch
    if targets.shape[0] != expected:
        raise RuntimeError(f"Expected tensor to have size {expected} at dimension 0, but got "
                           f"size {targets.shape[0]} for argument #2 'targets'{_WHERE}")
    longest = max(target_lengths, default=0)
    if targets.ndim == 2 and targets.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, "
                           f"but got size {targets.shape[1]} for argument #2 'targets'{_WHERE}")


def _check_input_lengths(input_lengths: tuple, steps: int) -> None:
    for length in input_lengths:
        if length < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                               f"{length}{_WHERE}")
        if length > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                               f"value {length}{_WHERE}")


# ----------------------------------------------------------------------------- the lattice

class _Lattice:
    """The extended targets of a batch: blank, l1, blank, l2, ..., blank (padded to the
    longest), which states exist, and each state's log-probability at each time step."""

    def __init__(self, xp, log_probs, targets, input_lengths, target_lengths, blank):
        self.xp = xp
        self.il = xp.asarray(input_lengths, dtype=np.int64)
        self.tl = xp.asarray(target_lengths, dtype=np.int64)
        labels, valid_labels = _padded(xp, targets, self.tl, max(target_lengths, default=0))
        batch, longest = labels.shape
        states = 2 * longest + 1
        self.blank = blank
        self.ext = xp.full((batch, states), blank, dtype=np.int64)
        # a padding label may be anything (even out of range): the blank stands in for it
        self.ext[:, 1::2] = xp.where(valid_labels, labels, blank)
        self.s = xp.arange(states)
        self.valid = self.s[None, :] < 2 * self.tl[:, None] + 1
        # s - 2 -> s skips a blank, unless the two labels are the same (a blank must separate)
        skip = xp.zeros((batch, states), dtype=bool)
        skip[:, 2:] = self.ext[:, 2:] != self.ext[:, :-2]
        self.skip = skip & self.valid
        self.lp = xp.ascontiguousarray(log_probs.transpose(1, 0, 2))   # (N, T, C)
        index = xp.broadcast_to(self.ext[:, None, :], (batch, self.lp.shape[1], states))
        self.emit = xp.take_along_axis(self.lp, index, axis=2)       # (N, T, states)
        self.neg_inf = xp.asarray(-np.inf, dtype=log_probs.dtype)

    def shifted(self, row, by: int):
        """``row[s - by]`` (``by`` > 0) or ``row[s + |by|]``, -inf where out of range."""
        out = self.xp.full(row.shape, self.neg_inf, dtype=row.dtype)
        if by > 0:
            out[:, by:] = row[:, :-by]
        else:
            out[:, :by] = row[:, -by:]
        return out


def _padded(xp, targets, lengths, longest: int):
    """``(labels, valid)``: (N, longest) labels from padded or concatenated targets."""
    columns = xp.arange(longest)
    valid = columns[None, :] < lengths[:, None]
    if targets.ndim == 2:
        return targets[:, :longest], valid
    starts = xp.cumsum(lengths) - lengths
    index = xp.where(valid, starts[:, None] + columns[None, :], 0)
    if targets.shape[0] == 0:   # every target empty: nothing to gather
        return xp.zeros(index.shape, dtype=np.int64), valid
    return targets[index], valid


def _logsumexp3(xp, a, b, c):
    """log(e^a + e^b + e^c) as torch's kernel computes it (a max of -inf counts as 0)."""
    m = xp.maximum(xp.maximum(a, b), c)
    m = xp.where(m == -np.inf, 0, m)
    return xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m)) + m


def _alpha(lat: _Lattice):
    """log alpha, (N, T, states): -inf outside the states and time steps of each sample."""
    xp = lat.xp
    batch, steps, states = lat.emit.shape
    alpha = xp.full((batch, steps, states), lat.neg_inf, dtype=lat.emit.dtype)
    first = (lat.s[None, :] < 2) & lat.valid & (lat.il[:, None] > 0)
    alpha[:, 0] = xp.where(first, lat.emit[:, 0], lat.neg_inf)
    for t in range(1, steps):
        prev = alpha[:, t - 1]
        skip = xp.where(lat.skip, lat.shifted(prev, 2), lat.neg_inf)
        step = _logsumexp3(xp, prev, lat.shifted(prev, 1), skip) + lat.emit[:, t]
        alpha[:, t] = xp.where(lat.valid & (t < lat.il[:, None]), step, lat.neg_inf)
    return alpha


def _nll(lat: _Lattice, alpha):
    """-log p(target | input): the last two states at the last time step."""
    xp = lat.xp
    rows = xp.arange(alpha.shape[0])
    last = alpha[rows, xp.maximum(lat.il - 1, 0)]
    end = last[rows, 2 * lat.tl]
    before = last[rows, xp.maximum(2 * lat.tl - 1, 0)]
    both = _logsumexp3(xp, end, before, lat.neg_inf)
    likelihood = xp.where(lat.tl == 0, end, both)
    empty = xp.where(lat.tl == 0, 0, lat.neg_inf).astype(alpha.dtype)   # no time steps
    return -xp.where(lat.il == 0, empty, likelihood)


@defop("ctc_loss", node="CtcLossBackward0", extras=("result1",),
       saves=("log_probs", "targets", "result0=result", "result1"))
def ctc_loss_op(xp, log_probs, targets=None, input_lengths=(), target_lengths=(), blank=0,
                zero_infinity=False):
    """``(neg_log_likelihood, log_alpha)`` of each sample; ``zero_infinity`` is for the
    derivative only (the caller zeroes infinite losses, as torch's ``ctc_loss``)."""
    with np.errstate(divide="ignore", invalid="ignore"):   # log(0) = -inf is an answer here
        lat = _Lattice(xp, log_probs, targets._data, input_lengths, target_lengths, blank)
        alpha = _alpha(lat)
        return _nll(lat, alpha), alpha


@ctc_loss_op.vjp
def ctc_loss_vjp(ctx, grad):
    return (ctc_loss_backward_op(grad, ctx.log_probs, ctx.result0, targets=ctx.targets,
                                 log_alpha=ctx.result1, input_lengths=ctx.input_lengths,
                                 target_lengths=ctx.target_lengths, blank=ctx.blank,
                                 zero_infinity=ctx.zero_infinity),)


# ----------------------------------------------------------------------------- the derivative

def _beta(lat: _Lattice):
    """log beta, (N, T, states): the recursion of alpha run backwards from each sample's
    last time step."""
    xp = lat.xp
    batch, steps, states = lat.emit.shape
    last_t = (lat.il - 1)[:, None]
    ends = (lat.s[None, :] == 2 * lat.tl[:, None]) | (lat.s[None, :] == 2 * lat.tl[:, None] - 1)
    start = xp.where(ends, lat.emit[xp.arange(batch), xp.maximum(lat.il - 1, 0)], lat.neg_inf)
    skip_up = lat.shifted(lat.skip.astype(lat.emit.dtype), -2) > 0   # s -> s + 2 allowed
    beta = xp.full((batch, steps, states), lat.neg_inf, dtype=lat.emit.dtype)
    for t in range(steps - 1, -1, -1):
        step = lat.neg_inf
        if t + 1 < steps:
            nxt = beta[:, t + 1]
            skip = xp.where(skip_up, lat.shifted(nxt, -2), lat.neg_inf)
            step = _logsumexp3(xp, nxt, lat.shifted(nxt, -1), skip) + lat.emit[:, t]
        inside = xp.where(lat.valid & (t < last_t), step, lat.neg_inf)
        beta[:, t] = xp.where(t == last_t, start, inside)
    return beta


def _per_class(lat: _Lattice, log_alpha, log_beta, classes: int):
    """log of the sum of alpha * beta over the states of each class, (N, T, C)."""
    xp = lat.xp
    both = log_alpha + log_beta
    # torch's kernel *sets* the last label's sum at the last time step (it assumes that label
    # is not the blank): where it is, the final blank state's share is overwritten. The same.
    rows = xp.arange(both.shape[0])
    last_label = lat.ext[rows, xp.maximum(2 * lat.tl - 1, 0)]
    lost = (lat.tl > 0) & (lat.il > 0) & (last_label == lat.blank)
    both[rows[lost], lat.il[lost] - 1, 2 * lat.tl[lost]] = -np.inf
    m = both.max(axis=2, keepdims=True)
    m = xp.where(m == -np.inf, 0, m).astype(both.dtype)   # a class-less step: exp(-inf) = 0
    onehot = (lat.ext[:, :, None] == xp.arange(classes)) & lat.valid[:, :, None]
    summed = xp.matmul(xp.exp(both - m), onehot.astype(both.dtype))
    return xp.log(summed) + m


@defop("ctc_loss_backward", node="NotImplemented")
def ctc_loss_backward_op(xp, grad, log_probs, neg_log_likelihood, targets=None, log_alpha=None,
                         input_lengths=(), target_lengths=(), blank=0, zero_infinity=False):
    """torch's ``_ctc_loss_backward``: the loss's gradient with respect to ``log_probs``."""
    with np.errstate(divide="ignore", invalid="ignore"):   # inf - inf: NaN, as in torch
        return _gradient(xp, grad, log_probs, neg_log_likelihood, targets._data, log_alpha._data,
                         input_lengths, target_lengths, blank, zero_infinity)


def _gradient(xp, grad, log_probs, neg_log_likelihood, targets, log_alpha, input_lengths,
              target_lengths, blank, zero_infinity):
    lat = _Lattice(xp, log_probs, targets, input_lengths, target_lengths, blank)
    nll = neg_log_likelihood[:, None, None]
    collected = _per_class(lat, log_alpha, _beta(lat), log_probs.shape[2])
    out = (xp.exp(lat.lp) - xp.exp(collected + nll - lat.lp)) * grad[:, None, None]
    keep = xp.arange(lat.lp.shape[1])[None, :, None] < lat.il[:, None, None]
    if zero_infinity:
        keep = keep & (nll != np.inf)
    out = xp.where(keep, out, 0).astype(log_probs.dtype, copy=False)
    return xp.ascontiguousarray(out.transpose(1, 0, 2))


@ctc_loss_backward_op.vjp
def ctc_loss_backward_vjp(ctx, *grads):
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")
