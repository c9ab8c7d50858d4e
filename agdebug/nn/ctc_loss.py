"""``nn.CTCLoss``: the module that holds :func:`agdebug.nn.functional.ctc_loss`'s options."""

from __future__ import annotations

from .functional_ctc import ctc_loss
from .loss import _Loss

__all__ = ["CTCLoss"]


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (see
    :func:`agdebug.nn.functional.ctc_loss`).

    >>> import agdebug as ag
    >>> log_probs = ag.tensor([[[0.5, 0.5]], [[0.5, 0.5]]]).log()
    >>> ag.nn.CTCLoss(reduction="sum")(log_probs, ag.tensor([[1]]), [2], [1])
    tensor(0.2877)
    """

    __constants__ = ["blank", "reduction"]

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)
