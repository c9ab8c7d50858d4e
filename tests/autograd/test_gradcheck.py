"""gradcheck / gradgradcheck: the same checks run with agdebug and torch, same verdicts and texts."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import agdebug as ag
from agdebug.autograd.gradcheck import GradcheckError

LOW_PRECISION = ("Input #0 requires gradient and is not a double precision floating point or "
                 "complex. This check will likely fail if all the inputs are not of double "
                 "precision floating point or complex. ")


def error_type(lib):
    if lib is ag:
        return GradcheckError
    from torch.autograd.gradcheck import GradcheckError as TorchError
    return TorchError


def x64(lib, values=(0.5, -1.2, 2.0), rg=True):
    return lib.tensor(np.array(values, dtype=np.float64), requires_grad=rg)


def bad_square(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x
    return Bad


def failure_text(lib, func, inputs, **kw) -> str:
    with pytest.raises(error_type(lib)) as info:
        lib.autograd.gradcheck(func, inputs, **kw)
    return str(info.value)


def test_error_type_is_a_runtime_error():
    assert issubclass(GradcheckError, RuntimeError)


def test_wrong_derivative_message_matches_torch(torch):
    texts = [failure_text(lib, bad_square(lib).apply, (x64(lib),)) for lib in (ag, torch)]
    assert texts[0].startswith("Jacobian mismatch for output 0 with respect to input 0,\n"
                               "numerical:tensor([[ 1.0000,  0.0000,  0.0000],")
    assert texts[0] == texts[1]


def test_mismatch_names_the_output_and_input(lib):
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x * 2, x * y

        @staticmethod
        def backward(ctx, g1, g2):
            y, = ctx.saved_tensors
            return g1 * 2 + g2 * y, g2   # d(x*y)/dy is x, not 1
    text = failure_text(lib, Two.apply, (x64(lib), x64(lib, (1.0, 2.0, 3.0))))
    assert text.startswith("Jacobian mismatch for output 1 with respect to input 1,\nnumerical:")


def test_raise_exception_false(lib):
    assert lib.autograd.gradcheck(bad_square(lib).apply, (x64(lib),),
                                  raise_exception=False) is False


@pytest.mark.parametrize("fast_mode", [False, True])
def test_correct_functions_pass(lib, fast_mode):
    check = lib.autograd.gradcheck
    assert check(lambda t: (t.sin() * t).sum(), (x64(lib),), fast_mode=fast_mode)
    assert check(lambda a, b: (a * b.exp(), a / b), (x64(lib), x64(lib, (1.0, 2.0, 3.0))),
                 fast_mode=fast_mode)
    assert check(lambda a, k: a * k, (x64(lib), 3.0), fast_mode=fast_mode)
    assert check(lambda t: t.exp(), x64(lib), fast_mode=fast_mode)   # a bare tensor input


def test_fast_mode_catches_a_wrong_derivative(lib):
    assert lib.autograd.gradcheck(bad_square(lib).apply, (x64(lib),), fast_mode=True,
                                  raise_exception=False) is False


def test_float32_warns_and_fails_with_default_tolerances(lib):
    x = lib.tensor([0.7, -0.3, 1.9], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(error_type(lib), match="^Jacobian mismatch for output 0 "):
            lib.autograd.gradcheck(lambda t: t.exp(), (x,))
    assert [str(w.message) for w in caught] == [LOW_PRECISION]
    assert caught[0].category is UserWarning


def test_float32_with_loose_tolerances(lib):
    x = lib.tensor([0.7, -0.3, 1.9], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert lib.autograd.gradcheck(lambda t: t * 2, (x,), eps=1e-3, atol=1e-2)


def test_no_input_requires_grad(lib):
    with pytest.raises(ValueError, match=re.escape(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True.")):
        lib.autograd.gradcheck(lambda t: t * 2, (x64(lib, rg=False),))


def test_no_differentiable_outputs(lib):
    x = x64(lib)
    assert lib.autograd.gradcheck(lambda t: t.detach() * 0 + 1, (x,))
    text = failure_text(lib, lambda t: t.detach() * 2, (x,))
    assert text == "Numerical gradient for function expected to be zero"


def test_backward_not_multiplied_by_grad_output(lib):
    class Sloppy(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if bool((g * g).sum() > 0):
                return g * 2
            return lib.ones_like(g)
    assert failure_text(lib, Sloppy.apply, (x64(lib),)) == (
        "backward not multiplied by grad_output")


def test_non_reentrant_backward(lib):
    calls = []

    class Drift(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * (2 + 1e-9 * len(calls))
    text = failure_text(lib, Drift.apply, (x64(lib),))
    assert text.startswith("Backward is not reentrant, i.e., running backward with same input "
                           "and grad_output multiple times gives different values, although "
                           "analytical gradient matches numerical gradient.The tolerance for "
                           "nondeterminism was 0.0.")
    assert lib.autograd.gradcheck(Drift.apply, (x64(lib),), nondet_tol=1e-6)


def test_gradgradcheck(lib):
    assert lib.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x64(lib),))
    assert lib.autograd.gradgradcheck(lambda t: t.sin() * t.exp(), (x64(lib),))
    go = x64(lib, (1.0, -1.0, 0.5))
    assert lib.autograd.gradgradcheck(lambda t: t.tanh() * t, (x64(lib),), (go,))


def test_gradgradcheck_catches_a_backward_that_is_not_differentiated_right(lib):
    class Detached(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x.detach()     # right first derivative, wrong second
    assert lib.autograd.gradcheck(Detached.apply, (x64(lib),))
    assert lib.autograd.gradgradcheck(Detached.apply, (x64(lib),), raise_exception=False) is False


def test_unsupported_modes_are_refused():
    with pytest.raises(NotImplementedError):
        ag.autograd.gradcheck(lambda t: t * 2, (x64(ag),), check_forward_ad=True)
