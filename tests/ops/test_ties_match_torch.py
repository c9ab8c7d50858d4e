"""Ties and NaNs in every op that returns indices: the same indices as torch's CPU kernels,
so the gradient reaches the same element.

The inputs are small integers cast to float (many ties), some with NaNs, sliced along each
dim of 1-, 2- and 3-d tensors, at sizes on both sides of the thresholds where torch's
kernels change algorithm: 16 elements (std::sort's insertion sort), 3 (nth_element's),
``k * 64 <= n`` (topk's partial sort). The values' gradient is compared exactly: it is
the upstream gradient moved to the chosen positions, no arithmetic.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag


def _k(x, dim: int, part: int) -> int:
    """1, 2, half or all of the slice (at least 1)."""
    n = x.shape[dim]
    return max(1, min(n, {0: 1, 1: 2, 2: n // 2, 3: n}[part]))


OPS = {
    "sort": lambda t, x, d: t.sort(x, dim=d),
    "sort_descending": lambda t, x, d: t.sort(x, d, True),
    "sort_stable": lambda t, x, d: t.sort(x, dim=d, stable=True),
    "sort_stable_descending": lambda t, x, d: x.sort(dim=d, descending=True, stable=True),
    "sort_stable_false": lambda t, x, d: x.sort(dim=d, stable=False),
    "argsort": lambda t, x, d: t.argsort(x, dim=d),
    "argsort_descending": lambda t, x, d: x.argsort(d, True),
    "argsort_stable": lambda t, x, d: t.argsort(x, dim=d, descending=True, stable=True),
    "msort": lambda t, x, d: t.msort(x.movedim(d, 0)),
    "topk_1": lambda t, x, d: x.topk(_k(x, d, 0), d),
    "topk_2_smallest": lambda t, x, d: x.topk(_k(x, d, 1), d, largest=False),
    "topk_half": lambda t, x, d: t.topk(x, _k(x, d, 2), d),
    "topk_all_smallest": lambda t, x, d: x.topk(_k(x, d, 3), d, False),
    "topk_1_unsorted": lambda t, x, d: x.topk(_k(x, d, 0), d, sorted=False),
    "topk_2_unsorted": lambda t, x, d: x.topk(_k(x, d, 1), d, sorted=False),
    "topk_half_smallest_unsorted": lambda t, x, d: x.topk(_k(x, d, 2), d, False, False),
    "max": lambda t, x, d: t.max(x, d),
    "min": lambda t, x, d: x.min(d, keepdim=True),
    "argmax": lambda t, x, d: t.argmax(x, d),
    "argmin": lambda t, x, d: x.argmin(d),
    "argmax_all": lambda t, x, d: x.argmax(),
    "argmin_all": lambda t, x, d: t.argmin(x),
    "median": lambda t, x, d: t.median(x, d),
    "nanmedian": lambda t, x, d: x.nanmedian(d),
    "mode": lambda t, x, d: t.mode(x, d),
    "kthvalue_1": lambda t, x, d: x.kthvalue(_k(x, d, 0), d),
    "kthvalue_2": lambda t, x, d: t.kthvalue(x, _k(x, d, 1), d),
    "kthvalue_half": lambda t, x, d: x.kthvalue(_k(x, d, 2), d, keepdim=True),
    "kthvalue_last": lambda t, x, d: x.kthvalue(_k(x, d, 3), d),
    "cummax": lambda t, x, d: t.cummax(x, d),
    "cummin": lambda t, x, d: x.cummin(d),
}

# (shape, dim): slices of 3, 5 and 16 elements (insertion sorts in torch), 17, 33 and 40
# (introsort and introselect), 300 (topk's partial sort for k <= 4).
SLICES = [((5,), 0), ((16,), 0), ((17,), 0), ((300,), 0), ((4, 40), 1), ((40, 3), 0),
          ((3, 17, 2), 1), ((2, 3, 33), 2), ((33, 2, 2), 0), ((3, 5), 0), ((3, 5), 1)]


def _tied(shape, nan: bool, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 3, shape).astype(np.float64)
    if nan:
        data[rng.random(shape) < 0.2] = np.nan
    return data


INPUTS = [pytest.param(shape, dim, nan, id=f"{'x'.join(map(str, shape))}-dim{dim}"
                       f"{'-nan' if nan else ''}")
          for shape, dim in SLICES for nan in (False, True)]


def _run(lib, op, data: np.ndarray, dim: int):
    """The op's outputs and, where its values are differentiable, the input's gradient for
    an upstream gradient that differs at every position."""
    x = lib.tensor(data, requires_grad=True)
    out = op(lib, x, dim)
    outs = tuple(out) if isinstance(out, tuple) else (out,)
    grad = None
    if outs[0].requires_grad:
        upstream = lib.arange(1, outs[0].numel() + 1, dtype=lib.float64).reshape(outs[0].shape)
        (grad,) = lib.autograd.grad((outs[0] * upstream).sum(), x)
    return [o.detach().numpy() for o in outs], grad


def _assert_same(torch, op, data: np.ndarray, dim: int) -> None:
    ours, our_grad = _run(ag, op, data, dim)
    theirs, their_grad = _run(torch, op, data, dim)
    assert len(ours) == len(theirs)
    for got, want in zip(ours, theirs):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)   # (NaN equals NaN here)
    assert (our_grad is None) == (their_grad is None)
    if their_grad is not None:
        np.testing.assert_array_equal(our_grad.numpy(), their_grad.numpy())


@pytest.mark.parametrize("shape,dim,nan", INPUTS)
@pytest.mark.parametrize("name", list(OPS))
def test_tied_indices_and_gradients_match_torch(torch, name, shape, dim, nan):
    _assert_same(torch, OPS[name], _tied(shape, nan, seed=len(shape) * 100 + shape[dim]), dim)


def test_topk_of_a_tie_picks_torchs_indices(torch):
    """The issue's example: torch's nth_element leaves indices 2 and 3 ahead, not 1 and 2."""
    data = np.array([[0.0, 2.0, 2.0, 2.0]])
    ours = ag.tensor(data).topk(2)
    assert ours.indices.tolist() == [[2, 3]]
    _assert_same(torch, OPS["topk_2_smallest"], -data, 1)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name", ["sort", "sort_descending", "argsort", "topk_half",
                                  "topk_2_unsorted", "mode", "kthvalue_half", "median"])
def test_other_dtypes_tie_as_in_torch(torch, dtype, name):
    data = _tied((3, 50), False, seed=7)
    results = []
    for lib in (ag, torch):
        x = lib.tensor(data).to(getattr(lib, dtype))
        try:
            out = OPS[name](lib, x, 1)
        except RuntimeError as e:   # torch has no bool kernel for some of them
            results.append(type(e).__name__)
            continue
        results.append([o.numpy() for o in (out if isinstance(out, tuple) else (out,))])
    if isinstance(results[1], str):
        assert results[0] == results[1]
        return
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("expr", [
    "lib.tensor([1.]).expand(20).sort()",                       # stride 0: left in place
    "lib.tensor([[1.], [2.]]).expand(2, 20).sort(descending=True)",
    "lib.tensor([1.]).expand(20).clone().sort()",               # the same values, copied
    "lib.tensor([1.]).expand(20).topk(3)",                      # topk has no such shortcut
])
def test_sort_of_a_repeated_element_as_torch(torch, expr):
    ours, theirs = (eval(expr, {"lib": lib}) for lib in (ag, torch))
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())


@pytest.mark.parametrize("shape,descending", [((40000,), False), ((40000,), True),
                                              ((2, 20000), False)])
def test_long_integer_sort_as_torch(torch, shape, descending):
    """From 32768 elements torch sorts a 1-d integer tensor ascending with fbgemm's radix
    sort, which is stable; descending, or in rows, it is std::sort again."""
    data = np.random.default_rng(2).integers(0, 4, shape)
    ours = ag.tensor(data).sort(descending=descending).indices.numpy()
    theirs = torch.tensor(data).sort(descending=descending).indices.numpy()
    np.testing.assert_array_equal(ours, theirs)


POOLS = {
    "max_pool1d": lambda F, x: F.max_pool1d(x.flatten(2), 3, 2, return_indices=True),
    "max_pool2d": lambda F, x: F.max_pool2d(x, 2, 1, return_indices=True),
    "max_pool2d_padded": lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True),
    "max_pool2d_dilated": lambda F, x: F.max_pool2d(x, 2, 1, dilation=2, ceil_mode=True,
                                                    return_indices=True),
    "max_pool3d": lambda F, x: F.max_pool3d(x.unsqueeze(0), 2, 1, return_indices=True),
    "adaptive_max_pool1d": lambda F, x: F.adaptive_max_pool1d(x.flatten(2), 4,
                                                              return_indices=True),
    "adaptive_max_pool2d": lambda F, x: F.adaptive_max_pool2d(x, (2, 4), return_indices=True),
}


@pytest.mark.parametrize("nan", [False, True], ids=["ties", "ties-nan"])
@pytest.mark.parametrize("name", list(POOLS))
def test_max_pooling_picks_torchs_index(torch, name, nan):
    """torch's CPU pooling loops take ``val > max || isnan(val)``: the first of tied maxima,
    the last NaN of a window."""
    data = _tied((2, 3, 6, 6), nan, seed=11)
    outs, grads = [], []
    for lib in (ag, torch):
        functional = ag.nn.functional if lib is ag else torch.nn.functional
        x = lib.tensor(data, requires_grad=True)
        values, indices = POOLS[name](functional, x)
        upstream = lib.arange(1, values.numel() + 1, dtype=lib.float64).reshape(values.shape)
        (grad,) = lib.autograd.grad((values * upstream).sum(), x)
        outs.append((values.detach().numpy(), indices.numpy()))
        grads.append(grad.numpy())
    for got, want in zip(*outs):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(*grads)
