"""Cases for agdebug/ops/linalg/lu.py (see harness.py for the format).

Inputs are well conditioned and their pivots are decided by clear margins, so the row
swaps stay the same under the central differences' small steps (the factors are smooth
there). The packed factors of ``lu_factor`` come with the pivots, which are integers: the
cases pass them on (lu_solve, lu_unpack) as torch's users do.
"""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(7)
SQ = rng.standard_normal((3, 3)) + np.diag([0.0, 4.0, -3.0])   # pivoting swaps rows
BSQ = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)[[2, 0, 1]]
WIDE = rng.standard_normal((2, 4)) + np.eye(2, 4)[::-1] * 3
TALL = rng.standard_normal((4, 3)) + np.eye(4, 3)[[3, 0, 1, 2]] * 3
RHS = rng.standard_normal((3, 2))


def solve(t, a, b, left=True, adjoint=False):
    LU, pivots = t.linalg.lu_factor(a)
    return t.linalg.lu_solve(LU, pivots, b if left else b.mT, left=left, adjoint=adjoint)


def unpack(t, a):
    LU, pivots = t.linalg.lu_factor(a)
    return t.lu_unpack(LU, pivots)


CASES = [
    Case("linalg_lu_factor_ex", lambda t, a: t.linalg.lu_factor_ex(a).LU, [SQ],
         grad_fn="LinalgLuFactorExBackward0"),
    Case("linalg_lu_factor_ex", lambda t, a: t.linalg.lu_factor(a).LU, [BSQ],
         id="lu_factor_batched"),
    Case("linalg_lu_factor_ex", lambda t, a: t.linalg.lu_factor(a).LU, [WIDE],
         id="lu_factor_wide"),
    Case("linalg_lu_factor_ex", lambda t, a: t.linalg.lu_factor(a).LU, [TALL],
         id="lu_factor_tall"),
    Case("linalg_lu", lambda t, a: t.linalg.lu(a)[1:], [SQ], grad_fn="LinalgLuBackward0"),
    Case("linalg_lu", lambda t, a: t.linalg.lu(a), [BSQ], id="lu_batched"),
    Case("linalg_lu", lambda t, a: t.linalg.lu(a), [WIDE], id="lu_wide"),
    Case("linalg_lu", lambda t, a: t.linalg.lu(a), [TALL], id="lu_tall"),
    Case("linalg_lu", lambda t, a: t.linalg.lu(a).U, [TALL], id="lu_tall_U_only"),
    Case("linalg_lu", lambda t, a: t.linalg.lu(a).L, [WIDE], id="lu_wide_L_only"),
    Case("lu_unpack", lambda t, a: unpack(t, a)[1:], [SQ], grad_fn="LuUnpackBackward0"),
    Case("lu_unpack", unpack, [BSQ], id="lu_unpack_batched"),
    Case("lu_unpack", unpack, [WIDE], id="lu_unpack_wide"),
    Case("lu_unpack", unpack, [TALL], id="lu_unpack_tall"),
    Case("lu_unpack", lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a), unpack_pivots=False)[1:],
         [BSQ], id="lu_unpack_no_pivots"),
    Case("linalg_lu_solve", solve, [SQ, RHS], grad_fn="LinalgLuSolveBackward0"),
    Case("linalg_lu_solve", lambda t, a, b: solve(t, a, b, adjoint=True), [SQ, RHS],
         id="lu_solve_adjoint"),
    Case("linalg_lu_solve", lambda t, a, b: solve(t, a, b, left=False), [SQ, RHS],
         id="lu_solve_right"),
    Case("linalg_lu_solve", lambda t, a, b: solve(t, a, b, left=False, adjoint=True),
         [SQ, RHS], id="lu_solve_right_adjoint"),
    Case("linalg_lu_solve", solve, [BSQ, RHS], id="lu_solve_broadcast"),
]
