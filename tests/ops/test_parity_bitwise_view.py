"""Mismatches with torch found by a differential sweep: bitwise ops, ``view(dtype)``,
division with a rounding mode, and the nodes of ``div``/``sub`` with a number first.

Each expression runs with ``lib`` = agdebug and ``lib`` = torch: both raise the same
error type and first line, or both return the same values, dtype, shape, grad_fn name
and requires_grad.
"""

from __future__ import annotations

import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

SETUP = {
    "i": "lib.tensor([1, 2, 3])",
    "b": "lib.tensor([True, False, True])",
    "u8": "lib.tensor([1, 2, 200], dtype=lib.uint8)",
    "i8": "lib.tensor([1, -2, 3], dtype=lib.int8)",
    "f": "lib.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])",
    "fr": "lib.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], requires_grad=True)",
    "n": "lib.tensor([7.0, -7.5, 6.0], requires_grad=True)",
    "k": "lib.tensor([7, -7, 6])",
}

BITWISE = [
    # integers: bitwise, with type promotion; bools: logical
    "i & 3", "3 & i", "i | 4", "i ^ 1", "1 ^ i", "~i", "~u8", "~b", "~i8",
    "b & 1", "1 | b", "b & True", "b | b", "b ^ b", "b & 2",
    "i8 | u8", "u8 & -1", "u8 | 300", "i8 & 200", "u8 ^ 255", "u8 & True",
    "i & lib.tensor(2, dtype=lib.int8)", "i8 & lib.tensor(2)", "lib.tensor(5) & u8",
    "lib.bitwise_and(i, 3)", "lib.bitwise_or(3, i)", "lib.bitwise_xor(b, b)",
    "lib.bitwise_not(i)", "lib.bitwise_not(b)", "lib.bitwise_not(u8)",
    "i.bitwise_and(i8)", "i.bitwise_or(5)", "i.bitwise_xor(b)", "u8.bitwise_not()",
    # floats: torch's kernels refuse them; ``~`` has its own message
    "fr & 1", "1 & fr", "f | 1", "f ^ 1", "i & 1.5", "b & 1.5", "i & lib.tensor(1.0)",
    "f.double() & 1", "f.half() | 1", "i.bitwise_and(1.5)", "lib.bitwise_and(f, f)",
    "~f", "~fr", "lib.bitwise_not(f)", "f.bitwise_not()",
    "i & lib.ones(2, dtype=lib.long)",
    "i & None", "i | 'a'",
    # the logical ops keep their bool results on integers
    "lib.logical_and(i, i8)", "i.logical_xor(i)", "lib.logical_not(i)",
]

VIEW_DTYPE = [
    "f.view(lib.int32)", "f.view(lib.uint8)", "f.view(lib.float16)", "f.view(lib.float64)",
    "f.view(lib.int64)", "f.view(lib.float32)", "f.view(dtype=lib.int32)", "f.view(float)",
    "f.view(int)", "fr.view(lib.int32)", "fr.view(lib.float32)", "fr.view(lib.float64)",
    "(fr * 2).view(lib.float16)", "(fr * 2).view(lib.bool)",
    "f.t().view(lib.int32)", "f[:, :2].view(lib.float64)", "f[0, 0].view(lib.int32)",
    "f.view(lib.float64).view(lib.float32)", "lib.tensor([True, False]).view(lib.uint8)",
    "lib.tensor([1, 2], dtype=lib.uint8).view(lib.int16)",
    "lib.ones(4, dtype=lib.float64)[1:].view(lib.float32)", "lib.ones(0).view(lib.float64)",
    "lib.ones(0, 4).view(lib.float64)", "lib.ones(2, 0).view(lib.float64)",
    "lib.ones(0, 3).view(lib.float16)",
    # torch's errors where the element size changes
    "f[:, :3].view(lib.float64)", "f.t().view(lib.float64)", "f.t().view(lib.float16)",
    "f[:, ::2].view(lib.float64)", "f[0, 0].view(lib.float64)", "lib.tensor(1.0).view(lib.uint8)",
    "lib.ones(3).view(lib.float64)", "lib.tensor([1, 2, 3], dtype=lib.uint8).view(lib.int16)",
    "lib.ones(5)[1:].view(lib.float64)", "lib.ones(2, 4)[:, 1:3].view(lib.float64)",
    "lib.ones(2, 1).expand(2, 4).view(lib.float64)", "lib.ones(2, 1).expand(2, 4).view(lib.int32)",
    "f.view(lib.int32, 2)",
    # shapes still work
    "f.view(8)", "f.view(-1, 2)", "f.view([4, 2])", "f.view(f.shape)", "fr.view(2, 2, 2)",
]

ROUNDING = [
    "k.div(3, rounding_mode='floor')", "k.div(3, rounding_mode='trunc')",
    "k.div(-2, rounding_mode='floor')", "k.div(2.5, rounding_mode='floor')",
    "k.div(2.5, rounding_mode='trunc')", "k.div(lib.tensor([2, 2, 4]), rounding_mode='floor')",
    "k.div(lib.tensor([2, 2, 4]), rounding_mode='trunc')",
    "k.div(lib.tensor(2.0), rounding_mode='floor')",
    "u8.div(3, rounding_mode='floor')", "u8.div(-1, rounding_mode='floor')",
    "b.div(1, rounding_mode='floor')", "b.div(True, rounding_mode='floor')",
    "b.div(b, rounding_mode='trunc')", "k.div(0, rounding_mode='floor')",
    "k.div(lib.tensor([1, 0, 1]), rounding_mode='trunc')", "k.div(2, rounding_mode='bad')",
    "lib.div(7, k, rounding_mode='floor')", "lib.div(7.5, k, rounding_mode='trunc')",
    "n.div(2, rounding_mode='floor')", "n.div(2, rounding_mode='trunc')",
    "n.div(k, rounding_mode='trunc')", "lib.div(7, n, rounding_mode='floor')",
    "n.div(0.0, rounding_mode='floor')", "n.div(2, rounding_mode='bad')",
    "f.half().div(3, rounding_mode='floor')",
    "lib.tensor([5.0, -5.0, float('inf'), -1e-30, -0.5]).div("
    "lib.tensor([float('inf'), float('inf'), 2.0, 1e30, 2.0]), rounding_mode='floor')",
    "lib.tensor([5.0, -5.0, float('inf'), -1e-30, -0.5]).div("
    "lib.tensor([float('inf'), float('inf'), 2.0, 1e30, 2.0]), rounding_mode='trunc')",
    "k.clone().div_(2, rounding_mode='floor')", "k.clone().div_(2.5, rounding_mode='floor')",
    "f.clone().div_(3, rounding_mode='trunc')",
]

SCALAR_FIRST = [
    "2.5 / n", "2 / n", "lib.div(2, n)", "lib.div(2.5, n)", "n.__rtruediv__(2)",
    "lib.div(2, k)", "lib.sub(2, n)", "lib.sub(2, n, alpha=2)", "2 - n", "lib.sub(2, k)",
    "lib.sub(2.5, k)",
    "lib.sub(True, lib.tensor([True]))", "lib.sub(2, lib.tensor([True]))",
]


@pytest.mark.parametrize("expr", BITWISE + VIEW_DTYPE + ROUNDING + SCALAR_FIRST)
def test_matches_torch(expr):
    assert_same_as_torch(torch, expr, SETUP)


INPLACE = [
    ("i", "x &= 2"), ("i", "x.bitwise_and_(2)"), ("i", "x.bitwise_and_(2.5)"), ("i", "x &= 2.5"),
    ("i", "x.bitwise_or_(lib.tensor([1, 1, 1], dtype=lib.int8))"), ("i", "x.bitwise_not_()"),
    ("b", "x &= 1"), ("b", "x.bitwise_and_(1)"), ("b", "x |= lib.tensor([1, 0, 0])"),
    ("b", "x ^= True"), ("b", "x.bitwise_not_()"), ("u8", "x.bitwise_not_()"),
    ("u8", "x &= -1"), ("u8", "x |= 300"), ("u8", "x |= lib.tensor([260, 1, 2])"),
    ("i8", "x ^= lib.tensor([1, 2, 3], dtype=lib.uint8)"),
    ("f", "x &= 1"), ("f", "x.bitwise_not_()"), ("fr", "x &= 1"), ("fr", "x.bitwise_not_()"),
    ("i", "x.bitwise_xor_(lib.ones(2, dtype=lib.long))"),
    ("i", "x.bitwise_and_(lib.ones(2, 3, dtype=lib.long))"),
]


@pytest.mark.parametrize("name, stmt", INPLACE)
def test_inplace_bitwise_matches_torch(name, stmt):
    results = []
    for lib in (ag, torch):
        env = {"lib": lib}
        env["x"] = eval(SETUP[name], env)
        try:
            exec(stmt, env)
            x = env["x"]
            results.append(("ok", str(x.dtype), x.tolist(), x._version))
        except Exception as e:   # noqa: BLE001 - the error itself is compared
            results.append(("error", type(e).__name__, str(e).splitlines()[0]))
    assert results[0] == results[1]


def test_view_dtype_shares_storage_and_version_counter():
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0])
        v = x.view(lib.int32)
        x.add_(1)
        assert v._version == 1
        assert v.tolist() == [1073741824, 1077936128]
        v.add_(1)   # not a view for autograd, but the same storage
        assert x._version == 2 and v._base is None


def test_view_dtype_takes_inference_from_the_mode():
    for lib in (ag, torch):
        with lib.inference_mode():
            inference = lib.ones(2)
        normal = lib.ones(2)
        assert not inference.view(lib.int32).is_inference()
        inference.view(lib.int32).add_(1)   # allowed in torch: not an inference tensor
        with lib.inference_mode():
            assert normal.view(lib.int32).is_inference()


def test_rounding_div_gradient_is_zero():
    grads = []
    for lib in (ag, torch):
        x = lib.tensor([7.0, -7.5], requires_grad=True)
        y = lib.tensor([2.0, 3.0], requires_grad=True)
        for mode in ("floor", "trunc"):
            (x.div(y, rounding_mode=mode) * x).sum().backward()
        grads.append((x.grad.tolist(), y.grad.tolist()))
    assert grads[0] == grads[1]


@pytest.mark.parametrize("expr", ["lib.div(2, x)", "lib.sub(2, x, alpha=3)"])
def test_number_first_gradients(expr):
    grads = []
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        eval(expr, {"lib": lib, "x": x}).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]
