"""Cases for agdebug/ops/shape/as_strided.py (as_strided, as_strided_; see harness.py)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(41)
A = rng.standard_normal((4, 4))
V = rng.standard_normal(6)
ROW = rng.standard_normal(4)


def _in_place(t, x):
    y = x * 1
    y.as_strided_((2, 3), (1, 2), 1)   # y's node becomes AsStridedBackward1
    return y * y


def _in_place_function(t, x):
    y = x * 1
    t.as_strided_(y, size=(3, 2), stride=(1, 5), storage_offset=2)   # the function form
    return y ** 3


CASES = [
    Case("as_strided", lambda t, x: x.as_strided((2, 3), (1, 2), 1), [A],
         grad_fn="AsStridedBackward0"),
    # overlapping windows: several view elements read one input element (gradients add up);
    # squared so that the second derivative is not zero
    Case("as_strided", lambda t, x: t.as_strided(x, (4, 3), (1, 1)) ** 2, [V],
         id="as_strided_sliding_windows"),
    Case("as_strided", lambda t, x: x.as_strided((3, 4), (0, 1)) * x.as_strided((3, 4), (1, 0)),
         [ROW], id="as_strided_zero_strides"),
    # the offset defaults to the input's own (4, from x[1:]); an explicit one counts from the
    # storage's start, before the input's first element
    Case("as_strided", lambda t, x: x[1:].as_strided((2, 2), (1, 4)) ** 2, [A],
         id="as_strided_of_a_view"),
    # reads storage elements before x[2:]: torch gives them no gradient (only the input's
    # own elements get one), so central differences of x would disagree; torch compares
    Case("as_strided", lambda t, x: x[2:].as_strided((3,), (5,), 0) ** 3, [A], numeric=False,
         id="as_strided_before_the_input"),
    Case("as_strided", lambda t, x: x.t().as_strided((2, 2), (4, 1), 1) ** 2, [A],
         id="as_strided_of_a_transpose"),
    # the input overlaps itself (an expand): torch divides by how often it reads each element
    Case("as_strided", lambda t, x: x.expand(3, 4).as_strided((2, 3), (1, 1)) ** 2, [ROW],
         id="as_strided_of_an_expand"),
    Case("as_strided", lambda t, x: x.as_strided((0, 3), (1, 1)), [A], id="as_strided_empty"),
    Case("as_strided_", _in_place, [A], grad_fn="MulBackward0"),
    Case("as_strided_", _in_place_function, [A], grad_fn="PowBackward0",
         id="as_strided__function"),
]
