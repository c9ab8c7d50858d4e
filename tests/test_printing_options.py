"""Tensor reprs under every print option, against torch's (``torch.set_printoptions``):
precision, threshold and edgeitems (the summarized ``...`` form), linewidth, sci_mode and the
three profiles, for floats (exactly representable ones: no rounding noise is compared),
integers, bools, halves, empties, 0-d and 4-d tensors."""

from __future__ import annotations

import pytest

import agdebug as ag

CASES = [
    "lib.arange(2000.)", "lib.arange(2000.).reshape(40, 50)", "lib.arange(12.).reshape(3, 4) / 7",
    "lib.arange(30.) / 7", "lib.arange(3000).reshape(30, 100)",
    "lib.tensor([0., float('nan'), float('inf')])", "lib.tensor([1e-5, 1.0])",
    "lib.tensor([1e9, 1.])", "lib.tensor([True, False])", "lib.zeros(0, 3)", "lib.zeros(0)",
    "lib.zeros(0, dtype=lib.int64)", "(lib.arange(40.) / 3).requires_grad_()",
    "lib.arange(10.).reshape(2, 5).requires_grad_() * 2", "lib.tensor(3.5)", "lib.tensor(-0.0)",
    "lib.arange(6, dtype=lib.float16) / 3", "lib.arange(8, dtype=lib.int32)",
    "lib.arange(24.).reshape(2, 3, 4)", "lib.arange(360.).reshape(3, 4, 5, 6) / 64 - 2.5",
    "lib.tensor([1.5, -2.25, 1e3])", "lib.arange(1200.).reshape(2, 600).double()",
]
OPTIONS = [{}, {"precision": 2}, {"threshold": 5}, {"edgeitems": 1, "threshold": 10},
           {"linewidth": 40}, {"sci_mode": True}, {"sci_mode": False}, {"profile": "short"},
           {"profile": "full"}, {"edgeitems": 0, "threshold": 3},
           {"profile": "short", "precision": 6}]


@pytest.fixture
def options(torch):
    """Both libraries' options are back to the defaults after each test."""
    yield
    torch.set_printoptions(profile="default")
    ag.set_printoptions(profile="default")


@pytest.mark.parametrize("opts", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_repr_matches_torch_under_print_options(torch, options, opts):
    torch.set_printoptions(**opts)
    ag.set_printoptions(**opts)
    for expr in CASES:
        assert repr(eval(expr, {"lib": ag})) == repr(eval(expr, {"lib": torch})), expr


def test_sci_mode_is_reset_by_any_later_call(torch, options):
    """torch assigns sci_mode on every call: setting the precision alone clears it."""
    for lib in (torch, ag):
        lib.set_printoptions(sci_mode=True)
        lib.set_printoptions(precision=3)
    assert repr(ag.tensor([1.5, 2.0])) == repr(torch.tensor([1.5, 2.0])) == \
        "tensor([1.500, 2.000])"
