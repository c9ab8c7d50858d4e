"""Lazy modules against torch: reprs and state_dict before the first forward, the parameters
materialised from the first input with torch's random draws (bitwise, after the same seed),
the module becoming its non-lazy class, UninitializedParameter / UninitializedBuffer, the
errors of using them before materialisation, load_state_dict either way, copies."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import agdebug as ag

X = np.random.default_rng(0).standard_normal((2, 3, 5, 6, 4)).astype(np.float32)

MODULES = [
    ("LazyLinear(4)", X[0, 0]), ("LazyLinear(2, bias=False)", X[0, 0, 0]),
    ("LazyConv1d(4, 2)", X[0, :, :, 0]), ("LazyConv2d(4, 3, padding=1)", X[..., 0]),
    ("LazyConv2d(6, 3, groups=3)", X[0, ..., 0]), ("LazyConv3d(2, 2, bias=False)", X),
    ("LazyConvTranspose1d(3, 2, stride=2)", X[0, :, :, 0]),
    ("LazyConvTranspose2d(3, 2, groups=3)", X[..., 0]), ("LazyConvTranspose3d(2, 2)", X),
    ("LazyBatchNorm1d()", X[0, :, :, 0]), ("LazyBatchNorm2d(momentum=0.5)", X[..., 0]),
    ("LazyBatchNorm3d(affine=False)", X), ("LazyInstanceNorm1d()", X[0, :, :, 0]),
    ("LazyInstanceNorm2d(track_running_stats=False)", X[..., 0]),
    ("LazyInstanceNorm3d(bias=False)", X),
]


def _before_and_after(lib, make: str, x):
    lib.manual_seed(3)
    m = eval(f"lib.nn.{make}", {"lib": lib})
    before = (repr(m), type(m).__name__, [(k, repr(v)) for k, v in m.state_dict().items()],
              [repr(p) for p in m.parameters()], m.has_uninitialized_params())
    y = m(lib.tensor(x))
    after = (repr(m), type(m).__name__, [type(p).__name__ for p in m.parameters()],
             all(isinstance(b, lib.nn.Buffer) for b in m.buffers() if b.is_floating_point()),
             hasattr(m, "_initialize_hook"), len(m._forward_pre_hooks),
             len(m._load_state_dict_pre_hooks), None if y.grad_fn is None else y.grad_fn.name())
    state = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    return before, after, state, y.detach().numpy()


@pytest.mark.parametrize("make, x", MODULES, ids=[m for m, _ in MODULES])
def test_lazy_module_as_torch(torch, make, x):
    ours, theirs = _before_and_after(ag, make, x), _before_and_after(torch, make, x)
    assert ours[:2] == theirs[:2]
    assert list(ours[2]) == list(theirs[2])
    for key, want in theirs[2].items():
        if key in ("weight", "bias") or want.dtype.kind != "f":   # the draws: bitwise
            np.testing.assert_array_equal(ours[2][key], want, err_msg=key)
        else:   # running statistics: batch norm's float32 sums
            np.testing.assert_allclose(ours[2][key], want, rtol=1e-5, atol=1e-7, err_msg=key)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-4, atol=1e-5)


def _misuse(lib):
    m = lib.nn.LazyLinear(3)
    seen = []
    for use in (lambda: m.weight.shape, lambda: m.weight + 1, lambda: m.weight.sum(),
                lambda: m.weight.numel(), lambda: m.weight.share_memory_(),
                lambda: lib.nn.LazyConv2d(4, 3)(lib.ones(3)),
                lambda: lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5)),
                lambda: lib.nn.Linear(5, 3).load_state_dict(lib.nn.LazyLinear(3).state_dict())):
        with pytest.raises((RuntimeError, ValueError)) as caught:
            use()
        words = str(caught.value)
        if words.startswith("Attempted to use an uninitialized parameter in "):
            words = words.split(" in ", 1)[0]   # torch names its function; agdebug cannot
        seen.append((caught.type.__name__, words))
    return seen


def test_misuse_before_materialisation_as_torch(torch):
    assert _misuse(ag) == _misuse(torch)


def _allowed(lib):
    p = lib.nn.UninitializedParameter()
    b = lib.nn.UninitializedBuffer(persistent=False)
    m = lib.nn.LazyLinear(3).double()
    y = m(lib.ones(2, 4, dtype=lib.float64))
    return (repr(p), p.requires_grad, str(p.dtype), str(p.device), tuple(p.size()),
            p.is_floating_point(), repr(b), b.requires_grad, b.persistent, b._is_buffer,
            repr(p.double()), str(p.double().dtype), repr(copy.deepcopy(p)),
            repr(pickle.loads(pickle.dumps(p))), str(m.weight.dtype), str(y.dtype))


def test_what_an_uninitialized_tensor_allows_as_torch(torch):
    assert _allowed(ag) == _allowed(torch)


def _materialised(lib):
    p = lib.nn.UninitializedParameter(requires_grad=False)
    p.materialize((2, 3), dtype=lib.float64)
    b = lib.nn.UninitializedBuffer()
    b.materialize(4)
    return (type(p).__name__, tuple(p.shape), str(p.dtype), p.requires_grad,
            isinstance(b, lib.nn.Buffer), tuple(b.shape), b.persistent)


def test_materialize_as_torch(torch):
    assert _materialised(ag) == _materialised(torch)


def _loaded(lib):
    lib.manual_seed(1)
    source = lib.nn.Linear(5, 3)
    lazy = lib.nn.LazyLinear(3)
    lazy.load_state_dict(source.state_dict())   # materialised, still lazy until its forward
    seen = [type(lazy).__name__, lazy.has_uninitialized_params(), tuple(lazy.weight.shape),
            lazy.weight.tolist() == source.weight.tolist()]
    lazy(lib.ones(1, 5))
    seen.append(type(lazy).__name__)
    empty = lib.nn.LazyBatchNorm1d()
    empty.load_state_dict(lib.nn.LazyBatchNorm1d().state_dict())   # lazy into lazy: nothing
    seen += [empty.has_uninitialized_params(), type(empty).__name__]
    return seen


def test_load_state_dict_as_torch(torch):
    assert _loaded(ag) == _loaded(torch)


def test_initialize_parameters_must_be_written(torch):
    def make(lib):
        class Lazy(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def forward(self, x):
                return x
        with pytest.raises(NotImplementedError) as caught:
            Lazy()(lib.ones(1))
        return str(caught.value)
    assert make(ag) == make(torch)
