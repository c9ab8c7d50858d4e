"""Cases for agdebug/ops/reduction/sum_prod.py (see harness.py for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(3)
A = rng.standard_normal((2, 3))
C = rng.standard_normal((2, 3, 4))
POS = rng.uniform(0.5, 2.0, (2, 3))
ONE_ZERO = np.array([[0.5, 0.0, -1.5], [1.2, 0.7, 2.0]])
TWO_ZEROS = np.array([[0.0, 0.0, -1.5], [1.2, 0.0, 2.0]])
# Exactly two-way ties: central differences see half the gradient on each, as torch splits it.
TIES = np.array([[0.3, 1.5, 1.5], [-0.2, 0.4, -0.2]])
SCALAR = np.array(1.7)
INTS = np.array([[3, 1, 2], [0, 5, 4]])

CASES = [
    Case("sum", lambda t, x: x.sum(), [A]),
    Case("sum", lambda t, x: x.sum() * x.sum(), [A], id="sum_squared"),
    Case("sum_dim", lambda t, x: x.sum(1), [A]),
    Case("sum_dim", lambda t, x: t.sum(x, (0, -1), keepdim=True), [C], id="sum_dims_keepdim"),
    Case("sum_to_size", lambda t, x: x.sum_to_size(1, 3) * x.sum_to_size(1, 3), [A]),
    Case("mean", lambda t, x: x.mean() * x, [A]),
    Case("mean_dim", lambda t, x: x.mean(-1) ** 2, [C]),
    Case("mean_dim", lambda t, x: x.mean((0, 2), keepdim=True), [C], id="mean_dims_keepdim"),
    Case("var", lambda t, x: x.var(), [A]),
    Case("var", lambda t, x: x.var(1, keepdim=True), [C], id="var_dim_keepdim"),
    Case("var", lambda t, x: x.var((0, 2), correction=0), [C], id="var_dims_correction0"),
    Case("var", lambda t, x: t.var(x, 0, unbiased=False), [A], id="var_unbiased_false"),
    Case("std", lambda t, x: x.std(), [A]),
    Case("std", lambda t, x: x.std(-1, correction=0, keepdim=True), [C], id="std_dim"),
    Case("std", lambda t, x: x.std(False), [A], id="std_positional_unbiased"),
    Case("prod", lambda t, x: x.prod(), [A]),
    Case("prod", lambda t, x: x.prod(), [ONE_ZERO], id="prod_one_zero"),
    Case("prod", lambda t, x: x.prod(), [TWO_ZEROS], id="prod_two_zeros"),
    Case("prod", lambda t, x: x.prod(), [SCALAR], id="prod_0d"),
    Case("prod_dim", lambda t, x: x.prod(1), [A]),
    Case("prod_dim", lambda t, x: x.prod(0, keepdim=True), [ONE_ZERO], id="prod_dim_zero"),
    Case("prod_dim", lambda t, x: x.prod(-1), [TWO_ZEROS], id="prod_dim_two_zeros"),
    Case("prod_dim", lambda t, x: t.prod(x, 1), [INTS], id="prod_dim_int"),
    Case("max", lambda t, x: x.max(), [A]),
    Case("max", lambda t, x: t.max(x), [TIES], id="max_ties", second_order=False),
    Case("min", lambda t, x: x.min(), [A]),
    Case("min", lambda t, x: x.min(), [TIES], id="min_ties", second_order=False),
    Case("max_dim", lambda t, x: x.max(1), [A]),
    Case("max_dim", lambda t, x: t.max(x, -1, keepdim=True).values, [C], id="max_dim_keepdim"),
    Case("max_dim", lambda t, x: x.max(dim=0)[0], [SCALAR], id="max_dim_0d"),
    Case("min_dim", lambda t, x: x.min(0), [A]),
    Case("min_dim", lambda t, x: t.min(x, 2, True), [C], id="min_dim_keepdim"),
    Case("amax", lambda t, x: x.amax(1), [A]),
    Case("amax", lambda t, x: x.amax((0, 2), keepdim=True), [C], id="amax_dims"),
    Case("amax", lambda t, x: x.amax(), [TIES], id="amax_ties", second_order=False),
    Case("amin", lambda t, x: t.amin(x, 0), [A]),
    Case("amin", lambda t, x: x.amin(1), [TIES], id="amin_ties", second_order=False),
    Case("argmax", lambda t, x: x.argmax(), [A]),
    Case("argmax", lambda t, x: t.argmax(x, 1, keepdim=True), [C], id="argmax_dim"),
    Case("argmax", lambda t, x: x.argmax(keepdim=True), [A], id="argmax_keepdim"),
    Case("argmin", lambda t, x: x.argmin(-1), [C]),
    Case("all", lambda t, x: x.all(), [A]),
    Case("all", lambda t, x: t.all(x, 1, keepdim=True), [ONE_ZERO], id="all_dim_keepdim"),
    Case("all", lambda t, x: x.all((0, 1)), [TWO_ZEROS], id="all_dims"),
    Case("any", lambda t, x: x.any(0), [TWO_ZEROS]),
    Case("any", lambda t, x: t.any(x, dim=-1), [INTS * 0], id="any_int_zeros"),
    Case("logsumexp", lambda t, x: x.logsumexp(1), [A]),
    Case("logsumexp", lambda t, x: t.logsumexp(x * 300, (0, 2), keepdim=True), [C],
         id="logsumexp_large"),
    Case("norm", lambda t, x: x.norm(), [A]),
    Case("norm", lambda t, x: t.norm(x, dim=1), [A], id="norm_dim"),
    Case("norm", lambda t, x: x.norm(3, -1, True), [C], id="norm_p3"),
    Case("norm", lambda t, x: x.norm(1, dim=0), [A], id="norm_p1"),
    Case("norm", lambda t, x: x.norm(float("inf")), [A], id="norm_inf"),
    Case("norm", lambda t, x: x.norm(p="fro", dim=(0, 1)), [A], id="norm_fro"),
    # At a zero vector torch defines the gradient as 0 (central differences agree).
    Case("norm", lambda t, x: x.norm(dim=0), [np.zeros((2, 3))], id="norm_at_zero",
         second_order=False),
    Case("cumsum", lambda t, x: x.cumsum(1), [A]),
    Case("cumprod", lambda t, x: x.cumprod(1), [POS], grad_fn="CumprodBackward0"),
    Case("cumprod", lambda t, x: t.cumprod(x, -1) ** 2, [ONE_ZERO], id="cumprod_one_zero"),
    Case("cumprod", lambda t, x: t.cumprod(x, dim=1), [TWO_ZEROS], id="cumprod_two_zeros"),
    Case("cumprod", lambda t, x: x.cumprod(0), [TWO_ZEROS], id="cumprod_dim0_zero"),
    Case("cumprod", lambda t, x: x.cumprod(1), [C], id="cumprod_3d"),
    Case("cumprod", lambda t, x: x.cumprod(0) * x, [SCALAR], id="cumprod_0d"),
    Case("cumprod", lambda t, x: x.cumprod(1), [INTS], id="cumprod_ints"),
    Case("cumsum", lambda t, x: t.cumsum(x, dim=-3) ** 2, [C], id="cumsum_squared"),
]

# ----------------------------------------------------------------------------- statistics.py
NANS = np.array([[0.4, np.nan, -1.2], [np.nan, 0.9, 2.0]])

CASES += [
    Case("var_mean", lambda t, x: t.var_mean(x), [A], grad_fn="VarMeanBackward0"),
    Case("var_mean", lambda t, x: t.var_mean(x, 1, keepdim=True, correction=0), [C],
         id="var_mean_dim"),
    Case("var_mean", lambda t, x: t.var_mean(x, (0, 2))[0], [C], id="var_mean_var_only"),
    Case("var_mean", lambda t, x: t.var_mean(x, 0, unbiased=True)[1] ** 2, [A],
         id="var_mean_mean_only"),
    Case("std_mean", lambda t, x: t.std_mean(x), [A], grad_fn="StdMeanBackward0"),
    Case("std_mean", lambda t, x: t.std_mean(x, -1, False, True), [C], id="std_mean_dim"),
    Case("aminmax", lambda t, x: x.aminmax(), [A], grad_fn="AminmaxBackward0"),
    Case("aminmax", lambda t, x: t.aminmax(x, dim=1, keepdim=True), [C], id="aminmax_dim"),
    Case("aminmax", lambda t, x: x.aminmax(dim=1).max, [TIES], id="aminmax_ties",
         second_order=False),   # split between ties: a constant mask, d2 is 0 (as amax's)
    Case("aminmax", lambda t, x: x.aminmax(), [SCALAR], id="aminmax_0d"),
    Case("nansum", lambda t, x: x.nansum(), [A], grad_fn="NansumBackward0"),
    Case("nansum", lambda t, x: t.nansum(x * 1, 1, keepdim=True) ** 2, [C], id="nansum_dim"),
    Case("nansum", lambda t, x: x.nansum(1), [INTS], id="nansum_ints"),
    Case("nansum", lambda t, x: x.nanmean(0), [A], id="nanmean", grad_fn="DivBackward0"),
    Case("count_nonzero", lambda t, x: x.count_nonzero(), [TWO_ZEROS]),
    Case("count_nonzero", lambda t, x: t.count_nonzero(x, (0, 1)), [INTS], id="count_dims"),
    Case("logcumsumexp", lambda t, x: x.logcumsumexp(1), [A], grad_fn="LogcumsumexpBackward0"),
    Case("logcumsumexp", lambda t, x: t.logcumsumexp(x * 50, 0) ** 2, [C], id="logcumsumexp_big"),
    Case("logcumsumexp", lambda t, x: x.logcumsumexp(-1), [SCALAR], id="logcumsumexp_0d"),
    Case("isclose", lambda t, x: t.isclose(x, x + 1e-6), [A]),
    Case("isclose", lambda t, x: x.isclose(x * 0 + 1, 0.5, 0.1), [INTS], id="isclose_ints"),
]
