"""Cases for agdebug/ops/shape/views_copies.py (see harness.py for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(4)
A = rng.standard_normal((2, 3))
B = rng.standard_normal((2, 3))
C = rng.standard_normal((2, 3, 4))
ROW = rng.standard_normal(3)
ONES = rng.standard_normal((1, 3, 1))
SCALAR = np.array(0.8)
INTS = np.array([[1, 2, 3], [4, 5, 6]])

CASES = [
    Case("view", lambda t, x: x.view(3, 2) * x.view(-1, 2), [A]),
    Case("view", lambda t, x: x.reshape(6) ** 2, [A], id="reshape"),
    Case("view", lambda t, x: x.flatten(1), [C], id="flatten"),
    Case("view", lambda t, x: t.flatten(x, 0, -2), [C], id="flatten_range"),
    Case("view", lambda t, x: x.flatten(), [SCALAR], id="flatten_0d"),
    Case("unsafe_view", lambda t, x: x.t().reshape(6), [A]),
    Case("reshape_alias", lambda t, x: x.t().reshape(3, 2) * 2, [A]),
    Case("reshape_alias", lambda t, x: x[..., ::2].reshape(6, 2), [C], id="reshape_alias_strided"),
    Case("unsafe_view", lambda t, x: x.transpose(0, 2).flatten(), [C], id="flatten_noncontig"),
    Case("expand", lambda t, x: x.expand(2, 3) * x, [ROW]),
    Case("expand", lambda t, x, y: x.expand_as(y) * y, [ROW, A], id="expand_as"),
    Case("squeeze", lambda t, x: x.squeeze() ** 2, [ONES]),
    Case("squeeze_dim", lambda t, x: x.squeeze(-1), [ONES]),
    Case("squeeze_dim", lambda t, x: x.squeeze(1), [ONES], id="squeeze_dim_not_one"),
    Case("squeeze_dims", lambda t, x: t.squeeze(x, (0, 1, 2)), [ONES]),
    Case("unsqueeze", lambda t, x: x.unsqueeze(-1) * x.unsqueeze(1), [A]),
    Case("unsqueeze", lambda t, x: t.unsqueeze(x, 0), [SCALAR], id="unsqueeze_0d"),
    Case("permute", lambda t, x: x.permute(2, 0, 1), [C]),
    Case("permute", lambda t, x: t.permute(x, (-1, 0, 1)) ** 2, [C], id="permute_tuple"),
    Case("permute", lambda t, x: x.T * x.T, [A], id="T"),
    Case("transpose", lambda t, x: x.transpose(0, -1), [C]),
    Case("transpose", lambda t, x: x.mT ** 2, [C], id="mT"),
    Case("transpose", lambda t, x: t.swapaxes(x, 1, 0), [A], id="swapaxes"),
    Case("t", lambda t, x: x.t() * x.t(), [A]),
    Case("t", lambda t, x: t.t(x), [ROW], id="t_1d"),
    Case("repeat", lambda t, x: x.repeat(2, 1), [A]),
    Case("repeat", lambda t, x: x.repeat(2, 1, 3) ** 2, [A], id="repeat_new_dims"),
    Case("repeat", lambda t, x: x.repeat(3), [SCALAR], id="repeat_0d"),
    Case("cat", lambda t, x, y: t.cat([x, y]), [A, B]),
    Case("cat", lambda t, x, y: t.cat((x, y * 2, x), dim=-1) ** 2, [A, B], id="cat_last"),
    Case("cat", lambda t, x, n: t.cat([x, n * 1.0], 1), [A, INTS], id="cat_const"),
    Case("cat", lambda t, x: t.concat([x, t.zeros(0)], 0), [A], id="cat_legacy_empty"),
    Case("stack", lambda t, x, y: t.stack([x, y]), [A, B]),
    Case("stack", lambda t, x, y: t.stack((x, y), -1) ** 2, [A, B], id="stack_last"),
    Case("split", lambda t, x: x.split(2, 1), [A]),
    Case("split", lambda t, x: t.split(x, 2, -1)[1] ** 2, [C], id="split_one_used"),
    Case("split", lambda t, x: x.chunk(2, 1), [C], id="chunk"),
    Case("split_with_sizes", lambda t, x: x.split([1, 2], 1), [A]),
    Case("split_with_sizes", lambda t, x: t.split(x, [3, 1], -1)[0], [C], id="sizes_first"),
    Case("unbind", lambda t, x: x.unbind(1), [A]),
    Case("unbind", lambda t, x: t.unbind(x, -1)[2] ** 2, [C], id="unbind_one_used"),
    Case("narrow", lambda t, x: x.narrow(1, 1, 2), [A]),
    Case("narrow", lambda t, x: t.narrow(x, -1, -3, 2) ** 2, [C], id="narrow_negative"),
    Case("flip", lambda t, x: x.flip(0), [A]),
    Case("flip", lambda t, x: t.flip(x, (0, -1)) * x, [C], id="flip_dims"),
    Case("clone", lambda t, x: x.t().contiguous(), [A], id="contiguous_copy"),
    Case("roll", lambda t, x: x.roll(1, 1), [A], grad_fn="RollBackward0"),
    Case("roll", lambda t, x: t.roll(x, (2, -1), (-1, 0)) ** 2, [C], id="roll_dims"),
    Case("roll", lambda t, x: t.roll(x, 4) * x, [A], id="roll_flat"),
    Case("roll", lambda t, x: x.roll(-3), [SCALAR], id="roll_0d"),
    Case("permute", lambda t, x: x.movedim(0, -1) ** 2, [C], id="movedim"),
    Case("permute", lambda t, x: t.moveaxis(x, (0, 1), (2, 0)), [C], id="moveaxis_tuple",
         grad_fn="PermuteBackward0"),
    Case("cat", lambda t, x, y: t.hstack([x, y * 2]), [A, B], id="hstack_2d"),
    Case("cat", lambda t, x, y: t.hstack((x, y.sum(), x)), [ROW, A], id="hstack_1d_0d"),
    Case("cat", lambda t, x, y: t.vstack([x, y]) ** 2, [ROW, A], id="vstack_1d_2d",
         grad_fn="PowBackward0"),
    Case("cat", lambda t, x: t.row_stack((x.sum(), x.sum() * 2)), [A], id="vstack_0d"),
    Case("unsqueeze", lambda t, x, y: t.atleast_3d(x, y), [ROW, A], id="atleast_3d"),
    Case("view", lambda t, x: t.atleast_2d(x.sum()) * t.atleast_1d([x, x])[0], [A],
         id="atleast_2d_0d"),
    Case("rot90", lambda t, x: t.rot90(x) ** 2, [A]),
    Case("rot90", lambda t, x: x.rot90(2, (2, 0)), [C], id="rot90_2"),
    Case("rot90", lambda t, x: t.rot90(x, -1, [1, -1]) * t.rot90(x, 3, [1, 2]), [C],
         id="rot90_3"),
    Case("rot90", lambda t, x: t.rot90(x, 4), [A], id="rot90_0"),
    Case("narrow_copy", lambda t, x: t.narrow_copy(x, 1, 1, 2) ** 2, [A]),
    Case("narrow_copy", lambda t, x: x.narrow_copy(-1, 1, 2), [C], id="narrow_copy_last"),
    # composites: torch's functions built from the ops above
    Case("expand", lambda t, x, y: t.broadcast_tensors(x, y)[0] * y, [ROW, A],
         id="broadcast_tensors"),
    Case("expand", lambda t, x: t.broadcast_to(x, (2, 3)) ** 2, [ROW], id="broadcast_to",
         grad_fn="PowBackward0"),
    Case("expand", lambda t, x, y: t.meshgrid(x, y[0, :2], indexing="xy"), [ROW, A],
         id="meshgrid_xy"),
    Case("repeat", lambda t, x: t.tile(x, (2,)) ** 2, [A], id="tile"),
    Case("view", lambda t, x: t.repeat_interleave(x, 2, dim=0) ** 2, [A],
         id="repeat_interleave_int"),
    Case("view", lambda t, x: x.repeat_interleave(3), [SCALAR], id="repeat_interleave_0d"),
    Case("view", lambda t, x: x.unflatten(-1, (2, -1)), [C], id="unflatten"),
    Case("view", lambda t, x: t.ravel(x.t()) ** 2, [A], id="ravel_noncontig"),
    Case("flip", lambda t, x: t.fliplr(x) * t.flipud(x), [A], id="fliplr_flipud",
         grad_fn="MulBackward0"),
    Case("narrow", lambda t, x: t.tensor_split(x, [1, -1], dim=-1), [C], id="tensor_split"),
    Case("narrow", lambda t, x: x.hsplit(3)[1] * t.vsplit(x, 2)[0][:, :1], [C], id="hsplit",
         grad_fn="MulBackward0"),
    Case("cat", lambda t, x, y: t.column_stack([x, y.t()]) ** 2, [ROW, A], id="column_stack",
         grad_fn="PowBackward0"),
    Case("cat", lambda t, x, y: t.dstack((x, y)), [A, B], id="dstack"),
    Case("cat", lambda t, x, y: t.diff(x ** 2, n=2, prepend=y, append=x[:, :1]), [A, B],
         id="diff", grad_fn="SubBackward0"),
]


# The in-place shape changes (x.unsqueeze_(0)...) record torch's ...Backward1 nodes.
IN_PLACE_SHAPE = [
    Case("squeeze_", lambda t, x: (x * 1).squeeze_() ** 2, [ONES]),
    Case("squeeze_dim_", lambda t, x: (x * 1).squeeze_(-1), [ONES]),
    Case("squeeze_dims_", lambda t, x: (x * 1).squeeze_((0, 2)), [ONES]),
    Case("unsqueeze_", lambda t, x: (x * 1).unsqueeze_(1) * x.unsqueeze(1), [A]),
    Case("transpose_", lambda t, x: (x * 1).transpose_(0, 2), [C], id="transpose_method"),
    Case("t_", lambda t, x: (x * 1).t_() ** 2, [A]),
]
CASES += IN_PLACE_SHAPE
