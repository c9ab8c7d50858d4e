"""unsafe_split, unsafe_split_with_sizes and unsafe_chunk against torch: argument variants,
empty tensors, non-view results and torch's errors, with ``assert_same_as_torch``."""

from __future__ import annotations

import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

SETUP = {"x": "lib.arange(24.0, dtype=lib.float64).reshape(2, 3, 4).requires_grad_()",
         "e": "lib.ones(2, 0).requires_grad_()"}

EXPRESSIONS = [
    "lib.unsafe_split(x, 2, 2)",
    "lib.unsafe_split(x, 2, -1)",
    "lib.unsafe_split(x, 5, 2)",
    "x.unsafe_split(1)",
    "x.unsafe_split(split_size=2, dim=1)",
    "lib.unsafe_chunk(x, 3, 1)",
    "lib.unsafe_chunk(x, 3, -1)",
    "x.unsafe_chunk(5, 2)",
    "x.detach().unsafe_chunk(2, 2)",
    "x.int().unsafe_chunk(2, 2)",
    "lib.unsafe_chunk(e, 3, 1)",
    "lib.unsafe_split(e, 0, 1)",
    "lib.unsafe_split_with_sizes(x, [1, 3], 2)",
    "x.unsafe_split_with_sizes([0, 2, 1], -2)",
    # errors
    "lib.unsafe_split(x, [1, 3], 2)",
    "lib.unsafe_split(x, -1, 2)",
    "lib.unsafe_split(x, 0, 2)",
    "lib.unsafe_split(x, 2, 3)",
    "lib.unsafe_split(lib.tensor(1.0), 1)",
    "lib.unsafe_chunk(x, 0, 2)",
    "lib.unsafe_chunk(x, -1, 2)",
    "lib.unsafe_chunk(lib.tensor(1.0), 1)",
    "lib.unsafe_chunk(x, 2, -4)",
    "lib.unsafe_split_with_sizes(x, [1, 2], 2)",
    "lib.unsafe_split_with_sizes(x, [5, -1], 2)",
    "lib.unsafe_split_with_sizes(x, [2, -1, 3], 2)",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_same_as_torch(expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_pieces_are_not_views_and_gradients_concatenate():
    x = ag.arange(6.0).reshape(2, 3).requires_grad_()
    a, b = x.unsafe_chunk(2, 1)
    assert a._base is None and b._base is None
    (a.sum() * 2 + b.sum() * 3).backward()
    assert x.grad.tolist() == [[2.0, 2.0, 3.0], [2.0, 2.0, 3.0]]
