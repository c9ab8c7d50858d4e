"""Cases for agdebug/ops/methods_extra.py (see harness.py for the format).

The in-place comparisons are recorded by torch (EqBackward0/1...) with zero gradients;
inputs have no ties, so central differences see zero too.
"""

from __future__ import annotations

import numpy as np

from .harness import Case

A = np.array([[0.3, -1.2, 2.5], [1.7, 0.9, -0.4]])
B = np.array([[0.1, -1.0, 2.0], [1.9, 0.6, -0.8]])
ROW = np.array([0.5, -0.7, 2.2])

CASES = []
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _title = _name.capitalize()
    CASES += [
        Case(f"{_name}_", lambda t, x, _n=_name: getattr(x * 1, f"{_n}_")(0.8),
             [A], grad_fn=f"{_title}Backward0"),
        Case(f"{_name}_tensor_", lambda t, x, y, _n=_name: getattr(x * 1, f"{_n}_")(y),
             [A, B], grad_fn=f"{_title}Backward1"),
        Case(f"{_name}_tensor_", lambda t, x, y, _n=_name: getattr(x * 1, f"{_n}_")(y),
             [A, ROW], id=f"{_name}_tensor_broadcast"),
    ]
