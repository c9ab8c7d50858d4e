"""Calling a multi-output node with None for some outputs (``grad_fn(g, None)``) fills zeros
there, as torch's built-in nodes and the engine do, instead of handing the derivative a None."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

CASES = [
    ("a.split(2)", (0, None)),
    ("a.split(2)", (None, 1)),
    ("a.chunk(2)", (None, 0)),
    ("a.reshape(2, 2).unbind()", (0, None)),
]


def _grads(lib, expr, pattern):
    a = lib.arange(4.0, requires_grad=True)
    outs = eval(expr, {"a": a})
    grads = [None if k is None else lib.ones_like(outs[k]) for k in pattern]
    return outs[0].grad_fn(*grads)


@pytest.mark.parametrize("expr, pattern", CASES)
def test_missing_gradients_are_zeros_as_in_torch(torch, expr, pattern):
    got, want = _grads(ag, expr, pattern), _grads(torch, expr, pattern)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
