"""``vdot``: the inner product of two 1-D tensors, the first conjugated (VdotBackward0).

>>> import agdebug as ag
>>> ag.vdot(ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0]))
tensor(11.)
"""

from __future__ import annotations

from ...tensor import Tensor
from .products import _check_dot
from ..core.registry import defop
from ..core.gradients import needs

__all__ = ["vdot"]


@defop("vdot", node="VdotBackward0", saves=("self@1", "other@0"))
def vdot_op(xp, self, other):
    return xp.asarray(xp.vdot(self, other))


@vdot_op.vjp
def vdot_vjp(ctx, grad):
    # Real tensors only reach here (agdebug has no complex autograd): no conjugates needed.
    grad_self = grad * ctx.other if needs(ctx, 0) else None
    grad_other = grad * ctx.self if needs(ctx, 1) else None
    return grad_self, grad_other


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """``sum(conj(input) * other)`` of two 1-D tensors of one dtype (VdotBackward0)."""
    _check_dot(input, other)   # torch's checks and messages are dot's, word for word
    return vdot_op(input, other)


FUNCTIONS = {"vdot": vdot}
METHODS = {"vdot": vdot}
