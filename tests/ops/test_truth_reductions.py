"""all/any: torch's dtypes and edge cases (the op cases check values and grad_fn)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import agdebug as ag

INPUTS = {   # all 2-d, so that every call applies to every input
    "float": ([[1.0, 0.0], [2.0, 3.0]], "float32"),
    "nan": ([[1.0, math.nan]], "float32"),      # NaN is true, as in C
    "empty": ([[]], "float32"),                 # all() of nothing is True, any() False
    "uint8": ([[1, 2], [0, 4]], "uint8"),       # torch's legacy: uint8 in, uint8 out
    "int64": ([[1, 2], [0, 4]], "int64"),
    "bool": ([[True, False], [True, True]], "bool"),
}
CALLS = {   # lib is agdebug or torch
    "x.all()": lambda lib, x: x.all(),
    "x.any()": lambda lib, x: x.any(),
    "x.all(-1)": lambda lib, x: x.all(-1),
    "x.any(0, keepdim=True)": lambda lib, x: x.any(0, keepdim=True),
    "lib.all(x, dim=(0, 1))": lambda lib, x: lib.all(x, dim=(0, 1)),
    "lib.any(x, 1)": lambda lib, x: lib.any(x, 1),
}


@pytest.mark.parametrize("name", INPUTS)
@pytest.mark.parametrize("call", CALLS)
def test_all_any_match_torch(name, call, torch):
    values, dtype = INPUTS[name]
    ours = CALLS[call](ag, ag.tensor(values, dtype=getattr(ag, dtype)))
    theirs = CALLS[call](torch, torch.tensor(values, dtype=getattr(torch, dtype)))
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_all_any_record_nothing():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    for out in (x.all(), x.any(), ag.all(x, 0)):
        assert out.grad_fn is None and not out.requires_grad
        assert out.dtype == ag.bool


def test_all_rejects_a_dimension_out_of_range():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        ag.ones(2, 2).all(2)
