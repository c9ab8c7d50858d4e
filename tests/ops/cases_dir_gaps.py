"""Cases for the ops that close gaps of torch's dir() (see tests/test_dir_parity.py)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(27)
POS = rng.uniform(0.5, 3.0, (2, 3))
A = rng.standard_normal((2, 3, 4))
COLUMN = rng.standard_normal((2, 1, 4))
M = rng.standard_normal((3, 4))
HALF = rng.standard_normal((3, 2))
ROW = rng.standard_normal(4)


def _fixed(t, x):
    """A constant input for as_strided_scatter's src alone (see the case)."""
    return t.tensor(np.arange(12.0).reshape(3, 4))

CASES = [
    # in place, polygamma has its own node in torch (the schema polygamma_(self, n))
    Case("polygamma_", lambda t, x: (x * 1).polygamma_(2), [POS], grad_fn="PolygammaBackward1"),
    Case("polygamma_", lambda t, x: (x * 1).polygamma_(0), [POS], grad_fn="PolygammaBackward1",
         id="polygamma__0"),
    # the view ops' copy variants: one node each, the view's name with _copy appended
    Case("alias_copy", lambda t, x: t.alias_copy(x), [A], grad_fn="AliasBackward0_copy"),
    Case("as_strided_copy", lambda t, x: t.as_strided_copy(x, (3, 2), (1, 3), 2), [A],
         grad_fn="AsStridedBackward0_copy"),
    # (its node has no derivative: the values alone, times x for a gradient to compare)
    Case("detach_copy", lambda t, x: t.detach_copy(x).detach() * x, [A], numeric=False),
    Case("diagonal_copy", lambda t, x: t.diagonal_copy(x, 1, 2, 0), [A],
         grad_fn="DiagonalBackward0_copy", id="diagonal_copy_function"),
    Case("expand_copy", lambda t, x: t.expand_copy(x, (3, 2, 5, 4)), [COLUMN],
         grad_fn="ExpandBackward0_copy"),
    Case("permute_copy", lambda t, x: t.permute_copy(x, (2, 0, -2)), [A],
         grad_fn="PermuteBackward0_copy"),
    Case("select_copy", lambda t, x: t.select_copy(x, 1, -1), [A],
         grad_fn="SelectBackward0_copy"),
    Case("slice_copy", lambda t, x: t.slice_copy(x, 2, -3, None, 2), [A],
         grad_fn="SliceBackward0_copy"),
    Case("split_copy", lambda t, x: t.split_copy(x, 2, 1), [A], grad_fn="SplitBackward0_copy"),
    Case("split_copy", lambda t, x: t.split_copy(x, 3, 2)[1], [A], grad_fn="SplitBackward0_copy",
         id="split_copy_one_piece"),
    Case("split_with_sizes_copy", lambda t, x: t.split_with_sizes_copy(x, [1, 2], 1), [A],
         grad_fn="SplitWithSizesBackward0_copy"),
    Case("squeeze_copy", lambda t, x: t.squeeze_copy(x), [COLUMN],
         grad_fn="SqueezeBackward0_copy"),
    Case("squeeze_dim_copy", lambda t, x: t.squeeze_copy(x, -2), [COLUMN],
         grad_fn="SqueezeBackward1_copy"),
    Case("squeeze_dims_copy", lambda t, x: t.squeeze_copy(x, (1, 0)), [COLUMN],
         grad_fn="SqueezeBackward2_copy"),
    Case("t_copy", lambda t, x: t.t_copy(x[0]), [A], grad_fn="TBackward0_copy"),
    Case("transpose_copy", lambda t, x: t.transpose_copy(x, 0, -1), [A],
         grad_fn="TransposeBackward0_copy"),
    Case("unbind_copy", lambda t, x: t.unbind_copy(x, 1), [A], grad_fn="UnbindBackward0_copy"),
    Case("unfold_copy", lambda t, x: t.unfold_copy(x, 2, 2, 1), [A],
         grad_fn="UnfoldBackward0_copy"),
    Case("unsqueeze_copy", lambda t, x: t.unsqueeze_copy(x, 1), [A],
         grad_fn="UnsqueezeBackward0_copy"),
    Case("view_copy", lambda t, x: t.view_copy(x.transpose(0, 2), (8, 3)), [A],
         grad_fn="ViewBackward0_copy"),
    # view scatters: input and src both differentiable
    Case("slice_scatter", lambda t, x, s: t.slice_scatter(x, s, 1, 0, 4, 2), [M, HALF],
         grad_fn="SliceScatterBackward0"),
    Case("slice_scatter", lambda t, x, s: x.slice_scatter(s, start=1, end=2), [M, ROW[None]],
         grad_fn="SliceScatterBackward0", id="slice_scatter_method"),
    Case("select_scatter", lambda t, x, s: t.select_scatter(x, s, 0, 1), [M, ROW],
         grad_fn="SelectScatterBackward0"),
    Case("diagonal_scatter", lambda t, x, s: t.diagonal_scatter(x, s[:3], 1), [M, ROW],
         grad_fn="DiagonalScatterBackward0"),
    Case("diagonal_scatter", lambda t, x, s: x.diagonal_scatter(s[:3], 0, 1, 0), [M, ROW],
         grad_fn="DiagonalScatterBackward0", id="diagonal_scatter_method"),
    # torch's derivative for as_strided_scatter's input is not the true one (its gradcheck is
    # an expected failure, pytorch#88105), so central differences check src's alone
    Case("as_strided_scatter", lambda t, s: t.as_strided_scatter(_fixed(t, s), s, (3, 2), (1, 3),
                                                                 2), [HALF],
         grad_fn="AsStridedScatterBackward0"),
    Case("as_strided_scatter", lambda t, x, s: x.as_strided_scatter(s, (2, 3), (3, 1)),
         [M, HALF.T.copy()], numeric=False, id="as_strided_scatter_input"),
    # pdist: every pair of rows (torch's _pdist_backward has no derivative; ours has one)
    Case("pdist", lambda t, x: t.pdist(x), [M], grad_fn="PdistBackward0"),
    Case("pdist", lambda t, x: t.nn.functional.pdist(x, 1), [M], id="pdist_p1"),
    Case("pdist", lambda t, x: t.pdist(x, p=0.5), [M], id="pdist_p_half"),
    Case("pdist", lambda t, x: t.pdist(x, 3), [M], id="pdist_p3"),
    Case("pdist", lambda t, x: t.pdist(x.t(), float("inf")), [M], id="pdist_inf_transposed"),
    # bit shifts: integers only, no gradient
    Case("bitwise_left_shift", lambda t, x, y: x.bitwise_left_shift(y),
         [np.array([1, -8, 3], dtype=np.int32), np.array([1, 2, 40])]),
    Case("bitwise_right_shift", lambda t, x, y: t.bitwise_right_shift(x, y),
         [np.array([1, -8, 3], dtype=np.int32), np.array([1, 70, -1])]),
]
