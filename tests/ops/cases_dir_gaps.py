"""Cases for the ops that close gaps of torch's dir() (see tests/test_dir_parity.py)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(27)
POS = rng.uniform(0.5, 3.0, (2, 3))

CASES = [
    # in place, polygamma has its own node in torch (the schema polygamma_(self, n))
    Case("polygamma_", lambda t, x: (x * 1).polygamma_(2), [POS], grad_fn="PolygammaBackward1"),
    Case("polygamma_", lambda t, x: (x * 1).polygamma_(0), [POS], grad_fn="PolygammaBackward1",
         id="polygamma__0"),
]
