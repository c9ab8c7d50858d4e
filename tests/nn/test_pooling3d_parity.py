"""F.adaptive_max_pool3d, F.max_unpool3d, the F-level ``*_with_indices`` pools and F.relu_
against torch: values, indices, node names, shapes, and torch's errors in torch's order and
words (the ops' gradients are checked by the op suite, tests/ops/cases_fold.py)."""

from __future__ import annotations

import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, leaf

SETUP = {"x": leaf(2, 2, 3, 4, 5), "pooled": "F.max_pool3d(x, 2, return_indices=True)",
         "z": "pooled[0].detach()", "j": "pooled[1]"}

ADAPTIVE = [
    "F.adaptive_max_pool3d(x, (2, 3, 2), return_indices=True)",
    "F.adaptive_max_pool3d(x[0], 2)", "F.adaptive_max_pool3d(x, (None, 2, 1))",
    "F.adaptive_max_pool3d(x, [2, None, 3], True)", "F.adaptive_max_pool3d(x, (5, 7, 6), True)",
    "F.adaptive_max_pool3d(x, (2, 2, 0))", "F.adaptive_max_pool3d(lib.ones(0, 1, 3, 3, 3), 2)",
    "F.adaptive_max_pool3d(x.float(), 2)", "F.adaptive_max_pool3d_with_indices(x, 1)",
    "F.adaptive_max_pool2d_with_indices(x[0], 1, False)",
    "F.adaptive_max_pool1d_with_indices(x[0, 0], 2)",
    "lib.nn.AdaptiveMaxPool3d((1, None, 2), return_indices=True)(x)",
    # torch's errors, in its order
    "F.adaptive_max_pool3d(x[0, 0], 2)", "F.adaptive_max_pool3d(x, (2, 2))",
    "F.adaptive_max_pool3d(x, (2, 2, -1))", "F.adaptive_max_pool3d(x.long(), 2)",
    "F.adaptive_max_pool3d(lib.ones(2, 0, 3, 3, 3), 2)", "F.adaptive_max_pool3d(x, 2.5)",
    "F.adaptive_max_pool3d(x, (2, 2, 2, 2))", "F.adaptive_max_pool3d(x, None)",
    "F.adaptive_max_pool3d(x[0], (2, 2, 2, 2))", "F.adaptive_max_pool3d(x[0, 0], (2, 2, 2))",
    "F.adaptive_max_pool3d([1], 2)", "F.adaptive_max_pool3d(x, 'a')",
    "F.adaptive_max_pool3d(x[0, 0], (1, 'a', 2))", "F.adaptive_max_pool2d(x[0], (1, 2.0))",
    "F.adaptive_max_pool2d([1], 2)", "F.adaptive_max_pool2d(x[0], (True, 1))",
    "F.adaptive_max_pool2d(x[0], (1, True))", "F.adaptive_max_pool3d(x, True)",
    "F.adaptive_max_pool3d(x, ('a', 1, 1))", "F.adaptive_max_pool3d(x, (1, 1, 'a'))",
]

UNPOOL = [
    "F.max_unpool3d(z, j, 2, output_size=(3, 4, 5))",
    "F.max_unpool3d(z[0], j[0], (2, 2, 2), stride=2, output_size=[2, 2, 3, 4, 5])",
    "F.max_unpool3d(z, j, 2, padding=1)", "F.max_unpool3d(z, j, 2, padding=-1)",
    "F.max_unpool3d(z.float(), j, 2, output_size=(3, 4, 5))",
    "F.max_unpool3d(lib.ones(0, 1, 1, 2, 2), lib.zeros(0, 1, 1, 2, 2, dtype=lib.long), 2)",
    "lib.nn.MaxUnpool3d(2)(z, j, (3, 4, 5))",
    # torch's errors, in its order
    # (one bad index each: torch's threads report whichever of several they meet last)
    "F.max_unpool3d(z[:1, :1], lib.tensor([[[[[0, 1], [2, 99]]]]]), 2, output_size=(3, 4, 5))",
    "F.max_unpool3d(z[:1, :1], lib.tensor([[[[[0, -1], [2, 3]]]]]), 2)",
    "F.max_unpool3d(z, j.int(), 2)", "F.max_unpool3d(z[0, 0], j[0, 0], 2)",
    "F.max_unpool3d(z, j[:1], 2)", "F.max_unpool3d(z.long(), j, 2)",
    "F.max_unpool3d(z, j, 2, stride=0)", "F.max_unpool3d(z, j, 2, stride=(1, 1, 0))",
    "F.max_unpool3d(z, j, 2, output_size=(3, 4))", "F.max_unpool3d(z, j, 2, output_size=(9, 4, 5))",
    "F.max_unpool3d(lib.ones(2, 0, 1, 1, 1), j[:, :0], 2)", "F.max_unpool3d(z, j, (2, 2))",
    "F.max_unpool3d(z, j, 2, stride=(2, 2))", "F.max_unpool3d(z, j, 2, padding=(0, 0))",
    "F.max_unpool3d(z, j, 2, padding=5)",
    "F.max_unpool3d(z, j, 2, output_size=(3, 4, 5), stride=(2, 2))",
]

WITH_INDICES = [
    "F.max_pool1d_with_indices(x[0, 0], 2)", "F.max_pool2d_with_indices(x[0], 2, 1, 1)",
    "F.max_pool3d_with_indices(x, 2, return_indices=False)",
    "F.max_pool2d_with_indices(x[0], 2, ceil_mode=True)[1]",
    "F.relu_(x.detach().clone())", "F.relu_(x.clone())", "F.relu_([1.0])",
    "F.relu_(x)",
]


@pytest.mark.parametrize("expr", ADAPTIVE + UNPOOL + WITH_INDICES)
def test_as_torch(torch, expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_relu_in_place_returns_its_input():
    x = ag.tensor([-1.0, 2.0])
    assert ag.nn.functional.relu_(x) is x and x.tolist() == [0.0, 2.0]


@pytest.mark.parametrize("make", ["lib.nn.MaxUnpool3d((1, 2, 3), 1, (0, 1, 0))",
                                  "lib.nn.MaxUnpool3d(2)",
                                  "lib.nn.AdaptiveMaxPool3d((2, None, 3), True)"])
def test_module_reprs_as_torch(torch, make):
    assert repr(eval(make, {"lib": ag})) == repr(eval(make, {"lib": torch}))


@pytest.mark.parametrize("dim, index", [(2, 9), (2, -1), (3, 27), (3, -2)])
def test_unpool_refuses_an_index_outside_its_output_as_torch(torch, dim, index):
    """torch's kernel names the last bad index and the output's size."""
    words = []
    for lib in (ag, torch):
        x = lib.ones((1, 1) + (2,) * dim)
        indices = lib.zeros((1, 1) + (2,) * dim, dtype=lib.int64)
        indices.view(-1)[-1] = index
        unpool = getattr(lib.nn.functional, f"max_unpool{dim}d")
        with pytest.raises(RuntimeError) as caught:
            unpool(x, indices, 2, output_size=(3,) * dim)
        words.append(str(caught.value))
    assert words[0] == words[1] and "invalid max index" in words[0]
