"""Cases for agdebug/ops/linalg/matrix_functions.py (see harness.py for the format).

A lone matrix takes the Taylor degree its 1-norm allows (float64: 4 up to 3.4e-4, 8 up to
0.05, 12 up to 0.3, then 18 with scaling and squaring): the single-matrix cases are scaled
to reach each, and a batch always takes degree 18 with each matrix's own scaling.

householder_product reads A below its diagonal only, and k <= n reflectors; geqrf gives them.
"""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(11)
BASE = rng.standard_normal((3, 3))
TINY = BASE * 3e-5            # degree 4
SMALL = BASE * 5e-3           # degree 8
MEDIUM = BASE * 0.04          # degree 12
LARGE = BASE * 1.5            # degree 18, squared a few times
BATCH = rng.standard_normal((2, 3, 3)) * np.array([0.1, 2.0])[:, None, None]
TALL = rng.standard_normal((4, 3))
TAU = rng.standard_normal(2)

CASES = [
    Case("linalg_matrix_exp", lambda t, a: t.linalg.matrix_exp(a), [LARGE],
         grad_fn="LinalgMatrixExpBackward0"),
    Case("linalg_matrix_exp", lambda t, a: t.linalg.matrix_exp(a), [TINY], id="matrix_exp_deg4"),
    Case("linalg_matrix_exp", lambda t, a: t.matrix_exp(a), [SMALL], id="matrix_exp_deg8"),
    Case("linalg_matrix_exp", lambda t, a: a.matrix_exp(), [MEDIUM], id="matrix_exp_deg12"),
    Case("linalg_matrix_exp", lambda t, a: t.linalg.matrix_exp(a), [BATCH],
         id="matrix_exp_batched"),
    Case("linalg_matrix_exp", lambda t, a: t.linalg.matrix_exp(a), [rng.standard_normal((2, 1, 1))],
         id="matrix_exp_1x1"),
    Case("linalg_householder_product", lambda t, a, tau: t.linalg.householder_product(a, tau),
         [TALL, TAU], grad_fn="LinalgHouseholderProductBackward0"),
    Case("linalg_householder_product", lambda t, a, tau: t.orgqr(a, tau),
         [TALL, rng.standard_normal(3)], id="householder_product_full"),
    Case("linalg_householder_product", lambda t, a, tau: a.orgqr(tau),
         [rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 2))],
         id="householder_product_batched_square"),
    # torch's geqrf has no derivative (its backward raises NotImplementedError), so the
    # harness can neither differentiate nor back-propagate it: values and nodes are compared
    # with torch in tests/ops/test_householder_product.py.
    Case("geqrf", lambda t, x: t.geqrf(x), [TALL], numeric=False, second_order=False,
         torch=False),
]
