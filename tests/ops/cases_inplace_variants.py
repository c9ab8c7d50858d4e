"""Cases for agdebug/ops/tensor_methods/inplace_variants.py (see harness.py for the format).

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

# Random fills: seeded inside fn, so every evaluation draws the same values and central
# differences see the zero derivative torch defines. Values differ from torch's generator:
# only fills made deterministic by their parameters are compared with torch.
# (inside (0, 1): central differences step on both sides; the fixed draws are compared
# with torch only where the torch draws could not differ, so those cases skip torch)
P = np.array([[0.2, 0.7, 0.5], [0.9, 0.4, 0.1]])


def _seeded(fill):
    def fn(t, x):
        t.manual_seed(0)
        return fill(x * 1)
    return fn


CASES += [
    Case("normal_", _seeded(lambda y: y.normal_(2.0, 0.0)), [A], grad_fn="NormalBackward0"),
    Case("uniform_", _seeded(lambda y: y.uniform_(1.0, 1.0)), [A], grad_fn="UniformBackward0"),
    Case("bernoulli_", _seeded(lambda y: y.bernoulli_(1.0)), [A], grad_fn="BernoulliBackward2"),
    Case("bernoulli_tensor_", lambda t, x, p: (t.manual_seed(0), (x * 1).bernoulli_(p * 1))[1],
         [A, P], torch=False),
    Case("random_", _seeded(lambda y: y.random_(2, 3)), [A], grad_fn="RandomBackward0"),
    Case("random_to_", _seeded(lambda y: y.random_(1)), [A], grad_fn="RandomBackward1"),
    Case("random_full_", _seeded(lambda y: y.random_()), [A], torch=False),
    Case("exponential_", _seeded(lambda y: y.exponential_(2.0)), [A], torch=False),
    Case("geometric_", _seeded(lambda y: y.geometric_(0.3)), [A], torch=False),
    Case("log_normal_", _seeded(lambda y: y.log_normal_(0.0, 0.5)), [A], torch=False),
    Case("cauchy_", _seeded(lambda y: y.cauchy_()), [A], torch=False),
    Case("bernoulli", lambda t, p: (t.manual_seed(0), p.bernoulli())[1], [P], torch=False),
    # torch records NotImplemented: no derivative, so no gradient check (values only)
    Case("bernoulli_p", lambda t, x: (t.manual_seed(0), x.bernoulli(1.0))[1], [A],
         numeric=False, torch=False),
]
