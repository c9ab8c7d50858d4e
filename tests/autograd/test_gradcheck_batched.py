"""gradcheck's and gradgradcheck's ``check_batched_grad``: the batched vector-Jacobian
product against the loop of single ones, run with agdebug and with torch, same verdicts and
texts."""

from __future__ import annotations

import pytest

import agdebug as ag
from agdebug.autograd.gradcheck import FAILED_BATCHED_GRAD_MSG

from .test_gradcheck import error_type, x64

# The calls gradcheck's own checks make to a backward before the batched one runs, for a
# 3-element output: two analytical Jacobians of 3 rows, then the loop of 2 single products.
_BEFORE_BATCHED = 2 * 3 + 2


def drifting(lib, after: int, fail: bool = False):
    """``x * 2``, whose backward is right for its first ``after`` calls; then it scales its
    result by the number of calls so far (or raises a RuntimeError with ``fail``)."""
    calls = []

    class Drift(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            if len(calls) > after and fail:
                raise RuntimeError("backward called once too often")
            return grad * 2 * (1 if len(calls) <= after else len(calls))
    return Drift.apply


CORRECT = [
    lambda t: t.sin() * t,
    lambda t: (t.exp(), t.sum()),                              # two outputs
    lambda t: t.sort().values * t.topk(2).values.sum(),
]


@pytest.mark.parametrize("func", range(len(CORRECT)))
@pytest.mark.parametrize("fast_mode", [False, True])
def test_correct_functions_pass(lib, func, fast_mode):
    x = x64(lib)
    assert lib.autograd.gradcheck(CORRECT[func], (x,), check_batched_grad=True,
                                  fast_mode=fast_mode)
    assert lib.autograd.gradgradcheck(CORRECT[func], (x,), check_batched_grad=True,
                                      fast_mode=fast_mode)


def test_an_unused_input_counts_as_zeros(lib):
    x, y = x64(lib), x64(lib, (1.0, 2.0, 3.0))
    assert lib.autograd.gradcheck(lambda a, b: a * 3, (x, y), check_batched_grad=True)


def doubly_drifting(lib, after: int):
    """``x ** 2``, whose backward is right, through ``drifting``: so the backward of that
    backward (gradgradcheck's) drifts after ``after`` calls."""
    scale = drifting(lib, after)

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return scale(grad * x)
    return Square.apply


def _gradcheck(lib, *args, **kwargs):
    return lib.autograd.gradcheck(drifting(lib, _BEFORE_BATCHED), *args, **kwargs)


def _gradgradcheck(lib, *args, **kwargs):
    return lib.autograd.gradgradcheck(doubly_drifting(lib, _BEFORE_BATCHED), *args, **kwargs)


@pytest.mark.parametrize("check", [_gradcheck, _gradgradcheck])
def test_a_batched_grad_that_differs_fails_in_torchs_words(torch, check):
    """Right through the checks before, wrong in the batched product: both libraries name
    the output and input and print torch's advice, then the two results."""
    texts = []
    for lib in (ag, torch):
        with pytest.raises(error_type(lib)) as info:
            check(lib, (x64(lib),), check_batched_grad=True)
        head, got_expected = str(info.value).split("\n\nGot:\n")
        assert "\n\nExpected:\ntensor(" in got_expected
        texts.append(head)
    assert texts[0] == texts[1]
    assert texts[0] == "For output 0 and input 0:\n\n" + FAILED_BATCHED_GRAD_MSG
    assert check(ag, (x64(ag),)) and check(torch, (x64(torch),))   # fine without the flag


def test_raise_exception_false_returns_false(lib):
    func = drifting(lib, _BEFORE_BATCHED)
    assert lib.autograd.gradcheck(func, (x64(lib),), check_batched_grad=True,
                                  raise_exception=False) is False


def test_an_error_in_the_batched_backward_is_a_gradcheck_error(torch):
    texts = []
    for lib in (ag, torch):
        with pytest.raises(error_type(lib)) as info:
            lib.autograd.gradcheck(drifting(lib, _BEFORE_BATCHED, fail=True), (x64(lib),),
                                   check_batched_grad=True)
        texts.append(str(info.value))
    assert texts[0] == texts[1]
    assert texts[0].startswith("While computing batched gradients, got: backward called once "
                               "too often\n\ngradcheck or gradgradcheck failed")


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.autograd.gradcheck(lambda t: t * 2, (x,), check_batched_grad=True,
                                          check_backward_ad=False, check_forward_ad=True),
    lambda lib, x: lib.autograd.gradgradcheck(lambda t: t * 2, (x,), check_batched_grad=True,
                                              check_rev_over_rev=False,
                                              check_fwd_over_rev=True,
                                              check_undefined_grad=False),
])
def test_batched_grad_needs_reverse_mode(torch, call):
    messages = []
    for lib in (ag, torch):
        with pytest.raises(AssertionError) as info:
            call(lib, x64(lib))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
