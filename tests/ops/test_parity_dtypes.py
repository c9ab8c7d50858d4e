"""Mismatches with torch found by a differential sweep: Python numbers out of an integer
dtype's range, Python types as dtypes, torch's top-level aliases, bool inputs, errors.

Each expression runs with ``lib`` = agdebug and ``lib`` = torch: both raise the same
error type and text, or both return the same values, dtype, shape and grad_fn name.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

U8 = "lib.tensor([0, 2, 44, 200], dtype=lib.uint8)"
I8 = "lib.tensor([1, 100, -128, 127], dtype=lib.int8)"
X = "lib.tensor([1.5, -2.0], requires_grad=True)"

EXPRESSIONS = [
    # a Python int out of an integer dtype's range wraps, as in torch (NumPy 2 raises)
    f"{U8} + 300", f"{I8} * 1000", f"{I8} * -1000", f"{U8} - 1", f"{U8} + (-1)",
    f"300 - {U8}", f"-1 * {U8}", f"lib.sub(300, {U8})", f"{U8} // 300", f"{U8} % 300",
    f"{U8} % -1", f"300 ** {U8}", f"{U8} & 300",
    "lib.tensor([1, 2], dtype=lib.int16) * 40000",
    "lib.tensor([0, 127], dtype=lib.int32) + 2**40",
    "lib.tensor(5, dtype=lib.uint8) + 300",
    # comparisons compare with the wrapped number too
    f"{U8} == 300", f"{U8} < -1", f"{U8} > -1", f"{U8} != -1", f"{I8} <= 1000",
    f"{I8} >= -1000", f"{U8}.eq(300)",
    # beyond int64 (or uint64) torch raises, whatever the dtype
    "lib.tensor([0, 127]) + 2**63", "lib.tensor([0, 127]) + 2**70",
    f"{I8} + 2**64", f"{I8} + (-2**63 - 1)", f"{U8} == -2**63 - 1",
    "lib.tensor([0.0, 1.0]) + 2**70", "lib.tensor([0.0, 1.0]) + (-2**63 - 1)",
    "lib.tensor([0.0, 1.0], dtype=lib.float64) == 2**64",
    # alpha, clamp's bounds, where's and fill's values: an overflow is an error (but an
    # unsigned dtype takes a negative down to -max); the scaled operand wraps
    f"lib.add({U8}, 300, alpha=2)", f"{U8}.add(3, alpha=-1)", f"{U8}.sub(3, alpha=-1)",
    f"{U8}.add(200, alpha=2)", f"lib.add({U8}, 3, alpha=300)", f"{I8}.add({I8}, alpha=200)",
    "lib.tensor([0.0, 1.0]).add(3, alpha=2**70)",
    f"{U8} ** 300", f"{I8}.pow(128)", f"{U8}.clamp(-1, 300)", f"{U8}.clamp(max=-1)",
    f"{I8}.clamp(max=2**63)", f"lib.where(lib.tensor([True, False, True, False]), {U8}, 300)",
    f"lib.where(lib.tensor([True, False, True, False]), {U8}, -1)",
    f"{U8}.fill_(300)", "lib.full((2,), 300, dtype=lib.uint8)",
    "lib.tensor([300], dtype=lib.uint8)", "lib.tensor([-1, 2], dtype=lib.uint8)",
    # integers to negative integer tensor powers: 1, +-1 or 0 (a number exponent raises)
    "lib.tensor([4, 1, -1, 0]) ** lib.tensor([-1, -2, -3, -1])",
    "lib.tensor([4, 127], dtype=lib.int8) ** lib.tensor([-1, 2])",
    "lib.tensor([4, 1, 255, 2], dtype=lib.uint8) ** lib.tensor([-1, -2, -3, -1])",
    "lib.tensor(2) ** lib.tensor(-1)", "2 ** lib.tensor([-1, 2])",
    "lib.tensor([4, 1]) ** -1",
    # Python's float, int and bool as dtypes: torch's float64, int64 and bool
    "lib.ones(2, dtype=float)", "lib.zeros(2, dtype=float)", "lib.tensor([1, 2], dtype=float)",
    "lib.full((2,), 1, dtype=float)", "lib.arange(3, dtype=float)", "lib.eye(2, dtype=float)",
    "lib.as_tensor([1, 2], dtype=float)", "lib.ones(2, dtype=int)", "lib.ones(2, dtype=bool)",
    "lib.ones(2).to(float)", "lib.ones(2).to(int)", "lib.ones(2).to(bool)",
    "lib.ones(2).to(dtype=float)", "lib.ones(2).to('cpu', float)", "lib.ones(2).to(float, True)",
    f"{X}.to(float)", "lib.ones(2).sum(dtype=float)", "lib.ones(2).mean(dtype=float)",
    "lib.ones(2).cumsum(0, dtype=float)", "lib.ones(2).softmax(0, dtype=float)",
    "lib.ones(2).to(str)",
    # torch's top-level aliases and functions
    "lib.true_divide(lib.tensor([1, 3]), 2)", "lib.divide(2, lib.ones(2))",
    "lib.divide(lib.tensor([5, 7]), 2, rounding_mode='floor')",
    f"lib.subtract({X}, 2, alpha=2)", f"lib.subtract(2, {X})", f"lib.multiply(2, {X})",
    "lib.remainder(lib.tensor([5.0, -3.0]), 2)", f"lib.remainder({X}, lib.tensor([1.0, 1.5]))",
    "lib.floor_divide(lib.tensor([5, -3]), 2)", "lib.floor_divide(2, lib.tensor([5.0, -3.0]))",
    "lib.logical_xor(lib.tensor([True, False]), lib.tensor([1, 1]))",
    f"lib.atan2({X}, lib.tensor([1.0, -2.0]))", f"{X}.atan2(lib.tensor(-1.0))",
    "lib.atan2(lib.tensor([1, 2]), lib.tensor([3, 4]))",
    "lib.atan2(lib.tensor([1.0, 2.0]).half(), lib.tensor([3, 4]).double())",
    "lib.atan2(lib.tensor([True]), lib.tensor([3, 4]))",
    "lib.atan2(lib.zeros(2), lib.tensor([0.0, -0.0]))",
    "lib.atan2(lib.ones(2), lib.ones(3))",
    # no number operands (torch's TypeError names the argument)
    "lib.atan2(lib.ones(2), 2)", "lib.atan2(2, lib.ones(2))", "lib.ones(2).atan2(2)",
    "lib.logical_and(lib.tensor([1, 2]), 2)", "lib.tensor([1, 2]).logical_and(2)",
    "lib.logical_or(lib.tensor([1, 2]), 2)", "lib.logical_xor(lib.tensor([1, 2]), 2.5)",
    "lib.logical_and(2, lib.tensor([1, 2]))", "lib.tensor([1, 2]).logical_xor(None)",
    "lib.logical_not(2)", "lib.logical_and(lib.tensor([1, 2]), lib.ones(2))",
    # torch has no bool kernel for these
    "lib.tensor([True, False]).abs()", "abs(lib.tensor([True, False]))",
    "lib.tensor([True, False]).floor()", "lib.tensor([True, False]).round()",
    "lib.tensor([True, False]).round(decimals=1)", "lib.tensor([True, False]).argmax()",
    "lib.tensor([True, False]).argmax(0)", "lib.argmin(lib.tensor([True, False]))",
    "lib.tensor([True, False]).relu()", "lib.tensor([True, False]).sign()",
    "lib.tensor([-1, 2], dtype=lib.int8).abs()", "lib.tensor([1, 2]).floor()",
    "lib.tensor([1, 2]).round()", "lib.tensor([1, 2]).round(decimals=0)",
    "lib.tensor([1, 2]).round(decimals=1)",
    # round with decimals is torch's other overload (RoundBackward1), even for 0
    f"{X}.round(decimals=1)", f"lib.round({X}, decimals=0)", f"lib.round({X})",
    f"{X}.round()",
    # outer of vectors only
    "lib.outer(lib.ones(2, 2), lib.ones(2))", "lib.outer(lib.ones(2), lib.ones(2, 2))",
    "lib.outer(lib.tensor(2.0), lib.ones(3))", "lib.ones(2).outer(lib.ones(2, 2))",
    "lib.outer(lib.ones(2), lib.ones(3))",
    # a Tensor is no sequence of tensors
    "lib.cat(lib.ones(2, 2))", "lib.cat(lib.ones(2, 2), dim=0)", "lib.stack(lib.ones(2, 2))",
    "lib.concat(lib.ones(2, 2))", "lib.cat(2)", "lib.cat([lib.ones(2), 2])",
    "lib.stack([lib.ones(2), None])", "lib.cat((lib.ones(2), lib.ones(2)))",
    # index_select of a 0-d tensor is 0-d
    "lib.tensor(3.0).index_select(0, lib.tensor(0))",
    "lib.tensor(3.0, requires_grad=True).index_select(-1, lib.tensor([0]))",
    "lib.tensor(3.0).index_select(1, lib.tensor([0]))",
    "lib.tensor(3.0).index_select(0, lib.tensor([0, 0]))",
    "lib.tensor(3.0).index_select(0, lib.tensor([1]))",
    "lib.tensor(3.0).index_select(0, lib.tensor([[0]]))",
    # sum_to_size: a keepdim sum, then a view dropping leading dims; () is a full sum
    "lib.ones(2, 3, requires_grad=True).sum_to_size(3)",
    "lib.ones(2, 3, requires_grad=True).sum_to_size(1)",
    "lib.ones(2, 3, requires_grad=True).sum_to_size(())",
    "lib.ones(1, 3, requires_grad=True).sum_to_size(3)",
    "lib.ones(2, 3, requires_grad=True).sum_to_size(1, 3)",
    "lib.ones(2, 3, requires_grad=True).sum_to_size(2, 3)",
    "lib.ones(2, 3).sum_to_size(3)",
    "lib.ones(2, 3, requires_grad=True).sum_to_size(1, 2, 3)",
    "lib.ones(2, 3, requires_grad=True).sum_to_size(3, 2)",
    # a required dim left out: torch's TypeError
    "lib.ones(2).cumsum()", "lib.cumsum(lib.ones(2))", "lib.ones(2).softmax()",
    "lib.softmax(lib.ones(2))", "lib.ones(2).log_softmax()", "lib.ones(2).logsumexp()",
    "lib.ones(2).softmax(dim=0)",
    # torch names int32 "int" in its overflow message
    "lib.zeros(2, dtype=lib.int32).fill_(2**40)",
    "lib.zeros(2, dtype=lib.int16).add(1, alpha=2**40)",
    # alpha: no float alpha for integral results, no bool alpha but for bools
    "lib.tensor([1, 2]).add(lib.tensor([1, 2]), alpha=2.5)",
    "lib.add(lib.tensor([1, 2]), 1, alpha=0.5)",
    "lib.tensor([1, 2]).sub(lib.tensor([1, 2]), alpha=1.0)",
    "lib.tensor([1, 2]).add_(1, alpha=1.5)",
    "lib.ones(2).add(lib.tensor([1, 2]), alpha=0.5)",
    "lib.ones(2).add(lib.ones(2), alpha=True)",
    "lib.tensor([True]).add(lib.tensor([True]), alpha=True)",
    # a number as ``input`` is a 0-d tensor first (a float one of the default dtype)
    "lib.div(7, 2)", "lib.add(7, 2.5)", "lib.mul(2, 3.5)", "lib.sub(7, 2.5)", "lib.add(7, 2)",
    "lib.div(7.0, 2)", "lib.div(7, 2, rounding_mode='floor')",
    "lib.mul(2.5, lib.tensor([1, 2]))", "lib.sub(2, lib.ones(2, requires_grad=True), alpha=1.5)",
    "lib.tensor([True, False]).add(lib.tensor([True, True]), alpha=2)",
    "lib.tensor([True, False]).add(lib.tensor([False, False]), alpha=0)",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_matches_torch(expr):
    assert_same_as_torch(torch, expr)


def test_atan2_gradients_match_torch():
    y, x = [0.5, -1.0, 2.0], [1.5, -0.25, -3.0]
    ay, ax = (ag.tensor(v, dtype=ag.float64, requires_grad=True) for v in (y, x))
    ty, tx = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (y, x))
    ag.atan2(ay, ax).sum().backward()
    torch.atan2(ty, tx).sum().backward()
    np.testing.assert_allclose(ay.grad.numpy(), ty.grad.numpy())
    np.testing.assert_allclose(ax.grad.numpy(), tx.grad.numpy())


def test_sum_to_size_records_torch_nodes():
    x = ag.ones(2, 3, requires_grad=True)
    tx = torch.ones(2, 3, requires_grad=True)
    y, ty = x.sum_to_size(3), tx.sum_to_size(3)
    assert [f.name() for f, _ in y.grad_fn.next_functions] == \
        [f.name() for f, _ in ty.grad_fn.next_functions]
    (y * ag.tensor([1.0, 2.0, 3.0])).sum().backward()
    (ty * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_float_scalars_still_go_through_the_weak_operand_cache():
    # integer wrapping was added beside ``weak``: a float scalar must still be cached
    from agdebug.ops.pointwise import promotion
    table = promotion._WEAK_ARRAYS[np.dtype(np.float32)]
    table.pop(1.25, None)
    assert (ag.tensor([1.0, 2.0]) * 1.25).tolist() == [1.25, 2.5]
    cached = table[1.25]
    assert cached.dtype == np.float32 and not cached.flags.writeable


INTEGER_DIVISION = [
    "lib.tensor([1, 2]).floor_divide(lib.tensor([0, 1]))", "lib.tensor([1, 2]) // 0",
    "lib.tensor([1.0, 2.0]) // 0", "lib.tensor([1, 2]).remainder(0)",
    "lib.tensor([1, 2]) % lib.tensor([0, 1])", "lib.tensor([True]) // lib.tensor([False])",
    "lib.tensor([1, 2], dtype=lib.uint8) // 0", "lib.tensor([True]) % lib.tensor([True])",
    "lib.tensor([True]).remainder(True)", "lib.tensor([5]) // 2.0", "lib.tensor([5]) % 0.0",
    "lib.tensor([5]) // 0.0", "lib.tensor([True]) // 2", "lib.tensor([7, -7]) // 2",
    "lib.tensor([7, -7]) % -3", "lib.tensor([4, 6]).floor_divide_(0)",
    "lib.tensor([4, 6]).remainder_(lib.tensor([1, 0]))",
]


@pytest.mark.parametrize("expr", INTEGER_DIVISION)
def test_integer_division_by_zero_and_bools_as_torch(torch, expr):
    assert_same_as_torch(torch, expr)
