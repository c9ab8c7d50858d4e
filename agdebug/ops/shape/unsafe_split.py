"""``unsafe_split``, ``unsafe_split_with_sizes``, ``unsafe_chunk``: splits without view
tracking, as torch's RNN cells use them.

torch's LSTM and GRU cells cut their gate pre-activations with ``unsafe_chunk``, so the
graph a debugger shows has ``UnsafeSplitBackward0`` nodes there, not ``SplitBackward0``.
The pieces are not views for autograd (``x.unsafe_chunk(2)[0]._is_view()`` is False); here
they are copies, so an in-place change of a piece can never reach the input unseen.
Also the ``TransposeBackward1`` node of torch's in-place ``transpose_``, for the same layers.
"""

from __future__ import annotations

from . import views_copies as sh
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES
from .signatures import _dim
from .splitting import chunks_argument, split_size_arguments, split_sizes_arguments

__all__ = ["unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"]


@defop("unsafe_split", node="UnsafeSplitBackward0", outputs="many", sizes=SELF_SIZES)
def unsafe_split_op(xp, x, split_size=1, dim=0):
    return [piece.copy() for piece in
            sh._pieces(x, sh._split_sizes(x.shape[dim], split_size), dim)]


@defop("unsafe_split_with_sizes", node="UnsafeSplitWithSizesBackward0", outputs="many",
       sizes=SELF_SIZES)
def unsafe_split_with_sizes_op(xp, x, split_sizes=(), dim=0):
    return [piece.copy() for piece in sh._pieces(x, split_sizes, dim)]


# the pieces' gradients concatenated, as for split
unsafe_split_op.vjp(sh.split_vjp)
unsafe_split_with_sizes_op.vjp(sh.split_vjp)


def unsafe_split(tensor, split_size: int, dim: int = 0) -> tuple:
    """``torch.unsafe_split``: ``split`` into pieces of ``split_size`` that are not views.

    >>> import agdebug as ag
    >>> [tuple(p.shape) for p in ag.unsafe_split(ag.ones(5), 2)]
    [(2,), (2,), (1,)]
    """
    if isinstance(split_size, (tuple, list)):
        raise TypeError("unsafe_split(): argument 'split_size' (position 2) must be int, "
                        f"not {type(split_size).__name__}")
    dim, split_size = split_size_arguments(tensor, split_size, dim)
    return tuple(unsafe_split_op(tensor, split_size=split_size, dim=dim))


def unsafe_split_with_sizes(input, split_sizes, dim: int = 0) -> tuple:
    """``torch.unsafe_split_with_sizes``: pieces of the given sizes that are not views."""
    dim, sizes = split_sizes_arguments(input, split_sizes, dim)
    return tuple(unsafe_split_with_sizes_op(input, split_sizes=sizes, dim=dim))


def unsafe_chunk(input, chunks: int, dim: int = 0, *, _method=False) -> tuple:
    """``torch.unsafe_chunk``: ``chunk`` into at most ``chunks`` pieces that are not views.

    >>> import agdebug as ag
    >>> ag.unsafe_chunk(ag.ones(4, requires_grad=True), 2)[0].grad_fn.name()
    'UnsafeSplitBackward0'
    """
    chunks = chunks_argument("unsafe_chunk", chunks, _method)
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _dim(dim, input.ndim)
    size = input._data.shape[dim]
    if size == 0:   # torch: ``chunks`` empty pieces
        return unsafe_split_with_sizes(input, [0] * chunks, dim)
    # (every LSTM/GRU step: a split size of at least 1, which split_size_arguments passes)
    return tuple(unsafe_split_op(input, split_size=int(-(-size // chunks)), dim=dim))


def _unsafe_chunk_method(self, chunks, dim=0):
    return unsafe_chunk(self, chunks, dim, _method=True)


FUNCTIONS = {"unsafe_split": unsafe_split, "unsafe_split_with_sizes": unsafe_split_with_sizes,
             "unsafe_chunk": unsafe_chunk}
METHODS = {**FUNCTIONS, "unsafe_chunk": _unsafe_chunk_method}
