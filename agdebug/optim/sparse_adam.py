"""SparseAdam: Adam for sparse gradients, which agdebug does not have.

The constructor checks what torch's does, so a script builds its optimizer as with torch; a
step refuses in torch's words (it takes only sparse gradients, and every agdebug gradient is
dense), naming the missing feature.
"""

from __future__ import annotations

from ..ops.tensor_methods.refused import SPARSE
from .optimizer import Optimizer, check_betas

__all__ = ["SparseAdam"]

DENSE = "SparseAdam does not support dense gradients, please consider Adam instead"


class SparseAdam(Optimizer):
    """torch.optim.SparseAdam: built as torch's, its step refuses (agdebug has no sparse grads).

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.ones(2))
    >>> opt = ag.optim.SparseAdam([w], lr=0.01)
    >>> w.sum().backward()
    >>> opt.step()
    Traceback (most recent call last):
    RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead \
(agdebug has no sparse tensors (only torch's dense, strided layout))
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def _update(self, p, grad, group: dict, state: dict) -> None:
        raise RuntimeError(f"{DENSE} ({SPARSE})")

