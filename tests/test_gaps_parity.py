"""Gaps where agdebug differed from torch, each compared with torch as the oracle.

Integer overflow at creation and in scalar ops; scatter's legacy ``reduce=`` and
index_reduce; nn.Sequential's list methods; clip_grad_norm_ with a non-finite norm;
bilinear.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from .torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

# ----------------------------------------------------------------------------- overflow

OVERFLOW = [
    # a bool tensor and an int beyond int64: torch reads it as uint64 and will not promote
    "lib.tensor(True) + 2**63", "2**63 + lib.tensor(True)", "lib.tensor([True]) * 2**63",
    "lib.tensor(True) + 2**64", "lib.tensor(True) + (-2**63 - 1)", "lib.tensor(True) + 2**62",
    # full and fill_: torch's checked conversion of the value to the dtype
    "lib.full((2,), 2**70, dtype=lib.float32)", "lib.full((2,), 2**64, dtype=lib.float32)",
    "lib.full((2,), 2**63, dtype=lib.float32)", "lib.full((2,), -2**63 - 1, dtype=lib.float32)",
    "lib.full((2,), 2**1100, dtype=lib.float64)", "lib.full((2,), 1e300, dtype=lib.float32)",
    "lib.full((2,), -1e39)", "lib.full((2,), 70000.0, dtype=lib.float16)",
    "lib.full((2,), 70000, dtype=lib.float16)", "lib.full((2,), float('inf'), dtype=lib.float32)",
    "lib.full((2,), float('nan'), dtype=lib.float16)", "lib.full((2,), 1e300, dtype=lib.float64)",
    "lib.full((2,), float('nan'), dtype=lib.int32)", "lib.full((2,), 3e9, dtype=lib.int32)",
    "lib.full((2,), 2.5, dtype=lib.int32)", "lib.full((2,), -1.0, dtype=lib.uint8)",
    "lib.full((2,), 255.5, dtype=lib.uint8)", "lib.full((2,), 2.0**63, dtype=lib.int64)",
    "lib.full((2,), 2**63, dtype=lib.bool)", "lib.full((2,), -1, dtype=lib.uint8)",
    "lib.zeros(2, dtype=lib.int32).fill_(2**40)", "lib.zeros(2, dtype=lib.int32).fill_(2**64)",
    "lib.zeros(2).fill_(2**70)", "lib.zeros(2).fill_(-2**63 - 1)", "lib.zeros(2).fill_(1e300)",
    "lib.zeros(2, dtype=lib.float16).fill_(1e5)", "lib.zeros(2).fill_(float('inf'))",
    "lib.zeros(2, dtype=lib.int32).fill_(float('inf'))",
    "lib.zeros(2, dtype=lib.int32).fill_(float('nan'))",
    "lib.zeros(2, dtype=lib.bool).fill_(2**63)", "lib.zeros(2, dtype=lib.bool).fill_(2**64)",
    # scalar ops: an int out of an integer dtype's range wraps
    "lib.tensor([1], dtype=lib.int8) + 300", "lib.tensor([1], dtype=lib.int8) - 300",
    "lib.tensor([1], dtype=lib.int8) + 300.0",
    # tensor(): each int of integral data is read as a C long long
    "lib.tensor(2**64)", "lib.tensor(2**63)", "lib.tensor(-2**63 - 1)", "lib.tensor([2**63])",
    "lib.tensor([1, 2**64])", "lib.tensor([True, 2**63])", "lib.tensor(2**63 - 1)",
    "lib.tensor(2**64, dtype=lib.int64)", "lib.tensor(2**63, dtype=lib.uint8)",
    "lib.tensor([1.0, 2**64])", "lib.tensor(2**70, dtype=lib.float32)",
    "lib.tensor(300, dtype=lib.uint8)", "lib.tensor(-1, dtype=lib.uint8)",
]


@pytest.mark.parametrize("expr", OVERFLOW)
def test_overflow_as_torch(expr):
    assert_same_as_torch(torch, expr)


@pytest.mark.parametrize("expr", ["lib.tensor(1e300, dtype=lib.float32)",
                                  "lib.tensor([1e300, 1.0])", "lib.tensor(1e300) + 1e300",
                                  "lib.tensor([1e300], dtype=lib.float16)"])
def test_overflow_to_inf_is_silent(expr):
    """torch makes inf of a float too large for the dtype without a warning (NumPy warns)."""
    import agdebug as ag
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same_as_torch(torch, expr)
        eval(expr, {"lib": ag})


def test_cpp_node_printed_unqualified_as_torch(torch):
    """torch's repr names C++ nodes without their namespace: grad_fn=<CopySlices>."""
    import agdebug as ag
    reprs = []
    for lib in (ag, torch):
        x = lib.ones(3, requires_grad=True).clone()
        x[0] = 2
        reprs.append(repr(x))
    assert reprs[0] == reprs[1]
