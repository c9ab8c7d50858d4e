"""``embedding`` (EmbeddingBackward0)."""

from __future__ import annotations

from ...backend import xp_of
from ...tensor import Tensor
from ..indexing.gather_scatter import index_add_op, masked_fill_op
from ..core.registry import defop
from ..core.gradients import input_shape, zeros_grad


# ----------------------------------------------------------------------------- embedding

@defop("embedding", node="EmbeddingBackward0", saves=("indices=array",))
def embedding(xp, weight, indices=None, padding_idx=None, scale_grad_by_freq=False):
    # the indices are a keyword: torch gives them no edge (they are not differentiable)
    return weight[indices]


@embedding.vjp
def embedding_vjp(ctx, grad):
    """Each looked-up row's gradient summed into its row of the weight (index_add, whose
    derivative is index_select); the padding row gets none."""
    num, dim = input_shape(ctx, 0)
    index = ctx.indices.reshape(-1)
    rows = grad.reshape(-1, dim)
    if ctx.padding_idx is not None:
        rows = masked_fill_op(rows, mask=(index == ctx.padding_idx)[:, None], value=0.0)
    if ctx.scale_grad_by_freq:   # each row's gradient divided by how often it was looked up
        counts = xp_of(index).bincount(index, minlength=num)[index]
        rows = rows * Tensor._wrap((1.0 / counts).astype(rows._data.dtype)[:, None])
    zeros = zeros_grad(grad, (num, dim))
    return (index_add_op(zeros, rows, index=index, dim=0),)
