"""``F.ctc_loss``: torch's argument parsing and reduction around the ``_ctc_loss`` op
(CtcLossBackward0, in :mod:`agdebug.ops.nn.ctc`).

torch records the reduction as separate nodes: ``where`` for ``zero_infinity``
(WhereBackward0), a division by the target lengths and a mean for ``'mean'``
(DivBackward0, MeanBackward0), a sum for ``'sum'`` (SumBackward0), and around an
unbatched input an unsqueeze and a squeeze. agdebug records the same.

>>> import agdebug as ag
>>> log_probs = ag.randn(5, 2, 3).log_softmax(2).requires_grad_()
>>> loss = ag.nn.functional.ctc_loss(log_probs, ag.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2])
>>> loss.grad_fn.name()
'MeanBackward0'
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import creation
from ...ops.nn import ctc as ops
from ...ops.tensor_methods.operators import where
from ...tensor import Tensor

__all__ = ["ctc_loss"]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The connectionist temporal classification loss of ``log_probs`` (T, N, C), or (T, C)
    unbatched, against ``targets``: padded (N, S) or concatenated into one dim.

    ``'mean'`` divides each loss by its target length, then averages over the batch;
    ``zero_infinity`` replaces infinite losses (inputs too short for their targets), and
    their gradients, by zeros.

    >>> import agdebug as ag
    >>> log_probs = ag.tensor([[[0.5, 0.5]], [[0.5, 0.5]]]).log()   # blank or 1, even odds
    >>> ag.nn.functional.ctc_loss(log_probs, ag.tensor([[1]]), [2], [1])   # -log(3 paths / 4)
    tensor(0.2877)
    """
    enum = _reduction_enum(reduction)
    arguments = (log_probs, targets, input_lengths, target_lengths, blank, enum, zero_infinity)
    if not _parses(*arguments):
        raise TypeError(_invalid_arguments(arguments))
    input_lengths = _lengths(input_lengths, "input_lengths")
    target_lengths = _lengths(target_lengths, "target_lengths")
    batched = log_probs.ndim == 3
    if not batched:
        log_probs = log_probs.unsqueeze(1)
    # torch's ctc_loss reads the targets as int64, whatever their dtype (never differentiable)
    targets = Tensor._wrap(targets._data.astype(np.int64, copy=False))
    ops.check_arguments(log_probs, targets, input_lengths, target_lengths, int(blank))
    res = ops.ctc_loss_op(log_probs, targets=targets, input_lengths=input_lengths,
                          target_lengths=target_lengths, blank=int(blank),
                          zero_infinity=zero_infinity)
    if zero_infinity:
        zero = creation.zeros((), dtype=res.dtype, device=res.device)
        res = where(res == float("inf"), zero, res)
    if reduction == "sum":
        return res.sum()
    if reduction != "none":
        lengths = creation.tensor([max(n, 1) for n in target_lengths], dtype=res.dtype,
                                  device=res.device)
        return (res / lengths).mean()
    return res if batched else res.squeeze(0)


def _reduction_enum(reduction: str) -> int:
    """torch's ``_Reduction.get_enum``: 0, 1, 2 for 'none', 'mean', 'sum'."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=3)
        return 1
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return ("none", "mean", "sum").index(reduction)


def _is_int(value) -> bool:
    if isinstance(value, Tensor):
        return value.ndim == 0 and value._data.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_int_list(value) -> bool:
    return isinstance(value, (list, tuple)) and all(_is_int(v) for v in value)


def _parses(log_probs, targets, input_lengths, target_lengths, blank, reduction,
            zero_infinity) -> bool:
    """Whether torch's parser takes the arguments: tensors, lengths both tensors or both
    sequences of ints, an int blank and a bool zero_infinity."""
    lengths = (isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor)) or \
        (_is_int_list(input_lengths) and _is_int_list(target_lengths))
    return (isinstance(log_probs, Tensor) and isinstance(targets, Tensor) and lengths and
            _is_int(blank) and
            isinstance(zero_infinity, (bool, np.bool_)))


def _type_name(value) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _invalid_arguments(arguments: tuple) -> str:
    got = ", ".join(_type_name(a) for a in arguments)
    return (f"ctc_loss() received an invalid combination of arguments - got ({got}), but "
            "expected one of:\n"
            " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
            "target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool "
            "zero_infinity = False)\n"
            " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
            "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n")


def _lengths(lengths, name: str) -> tuple:
    """Lengths as a tuple of ints; a tensor of them must be integral (any shape: flattened)."""
    if isinstance(lengths, Tensor):
        if lengths._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(n) for n in lengths.detach().cpu().numpy().reshape(-1))
    return tuple(int(n) for n in lengths)
