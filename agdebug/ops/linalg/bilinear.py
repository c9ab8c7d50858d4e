"""``_trilinear`` (TrilinearBackward0) and ``bilinear``, composed from it as torch does.

torch's ``bilinear(x1, x2, weight, bias)`` flattens the inputs to 2-d (ViewBackward0),
calls ``_trilinear`` on them and the weight, shapes the result back (ViewBackward0) and
adds the bias (AddBackward0): the same nodes are recorded here.
"""

from __future__ import annotations

import numpy as np

from ... import backend
from ...backend import cpp_name
from ...tensor import Tensor
from ..core.registry import defop
from ..core.checks import kernel_missing
from ..core.gradients import needs

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _subscripts(ndim: int, expand1, expand2, expand3, sumdim) -> str:
    """The einsum of _trilinear: each input holds the dims not in its ``expand`` list, the
    output those not in ``sumdim``; all other dims are summed."""
    def held(skipped):
        return "".join(_LETTERS[d] for d in range(ndim) if d not in skipped)
    return f"{held(expand1)},{held(expand2)},{held(expand3)}->{held(sumdim)}"


@defop("_trilinear", node="TrilinearBackward0", saves=("i1", "i2", "i3"))
def trilinear_op(xp, i1, i2, i3, expand1=(), expand2=(), expand3=(), sumdim=(), unroll_dim=1):
    ndim = i1.ndim + len(expand1)
    return xp.einsum(_subscripts(ndim, expand1, expand2, expand3, sumdim), i1, i2, i3)


@trilinear_op.vjp
def trilinear_vjp(ctx, grad):
    """torch's _trilinear_backward: each input's gradient is a _trilinear of the others and
    ``grad``, with ``grad`` in the place of the input and the roles of the lists swapped."""
    e1, e2, e3, sumdim = ctx.expand1, ctx.expand2, ctx.expand3, ctx.sumdim
    i1, i2, i3 = ctx.i1, ctx.i2, ctx.i3
    grad_i1 = trilinear_op(grad, i2, i3, expand1=sumdim, expand2=e2, expand3=e3,
                           sumdim=e1) if needs(ctx, 0) else None
    grad_i2 = trilinear_op(i1, grad, i3, expand1=e1, expand2=sumdim, expand3=e3,
                           sumdim=e2) if needs(ctx, 1) else None
    grad_i3 = trilinear_op(i1, i2, grad, expand1=e1, expand2=e2, expand3=sumdim,
                           sumdim=e3) if needs(ctx, 2) else None
    return grad_i1, grad_i2, grad_i3


def _check_bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias) -> None:
    tensors = {"input1": input1, "input2": input2, "weight": weight}
    if bias is not None:
        tensors["bias"] = bias
    if len({t._data.dtype for t in tensors.values()}) > 1:
        got = ", ".join(f"{name}: {cpp_name(t._data.dtype)}"
                        for name, t in tensors.items())
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: "
                               f"got {input1.shape[d]} and {input2.shape[d]}")
    _check_sizes(input1, input2, weight, bias)


def _check_sizes(input1: Tensor, input2: Tensor, weight: Tensor, bias) -> None:
    if input1.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    for k, (x, d) in enumerate(((input1, 1), (input2, 2)), start=1):
        if weight.ndim <= d:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(weight.ndim, 1)}, {max(weight.ndim, 1) - 1}], but got {d})")
        if x.shape[-1] != weight.shape[d]:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got "
                               f"{x.shape[-1]} but expected {weight.shape[d]}")
    if bias is not None and bias.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    if weight.ndim != 3:
        raise RuntimeError("number of dimensions must match")


def bilinear(input1, input2, weight, bias=None):
    """``y = x1^T A x2 + b`` over the last dims: ``y[..., o] = sum x1[..., i] A[o, i, j]
    x2[..., j] + b[o]`` (TrilinearBackward0 between ViewBackward0 nodes, as torch records).

    >>> import agdebug as ag
    >>> ag.nn.functional.bilinear(ag.ones(4, 3), ag.ones(4, 5), ag.ones(2, 3, 5)).shape
    torch.Size([4, 2])
    """
    _check_bilinear(input1, input2, weight, bias)
    if input1._data.dtype == np.bool_:
        raise kernel_missing("bmm", backend.get_dtype(np.bool_))
    flat1 = input1.reshape(-1, input1.shape[-1])
    flat2 = input2.reshape(-1, input2.shape[-1])
    out = trilinear_op(flat1, weight, flat2, expand1=(1, 3), expand2=(0,), expand3=(1, 2),
                       sumdim=(2, 3))
    out = out.reshape(*input1.shape[:-1], weight.shape[0])
    return out if bias is None else out + bias


FUNCTIONS = {"bilinear": bilinear}
