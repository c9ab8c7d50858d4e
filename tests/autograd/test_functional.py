"""autograd.functional: values, result structure and errors compared with torch."""

from __future__ import annotations

import re

import numpy as np
import pytest

import agdebug as ag

X0 = [[0.5, -1.2], [2.0, 0.3]]
V0 = [[1.0, 2.0], [-3.0, 0.5]]


def t(lib, values, rg=False):
    return lib.tensor(np.array(values, dtype=np.float64), requires_grad=rg)


def arrays(result):
    """Nested tuples of tensors -> nested lists of numpy arrays (structure kept)."""
    if isinstance(result, tuple):
        return [arrays(r) for r in result]
    return result.detach().numpy()


def assert_same(a, b):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for p, q in zip(a, b):
            assert_same(p, q)
    else:
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def both(torch, call):
    got = [arrays(call(lib)) for lib in (ag, torch)]
    assert_same(*got)
    return got[0]


def scalar_fn(x):
    return (x.pow(3) * x.sin()).sum()


def pair_fn(x, y):
    return (x * y.exp()).sum() + (x * x * y).sum()


# ----------------------------------------------------------------------------- jacobian

def test_jacobian_single(torch):
    jac = both(torch, lambda lib: lib.autograd.functional.jacobian(
        lambda x: x.exp() * x, t(lib, X0)))
    assert jac.shape == (2, 2, 2, 2)


def test_jacobian_tuples(torch):
    def call(lib):
        return lib.autograd.functional.jacobian(
            lambda x, y: (x * y.exp(), x.sum() * y), (t(lib, [1.0, 2.0]), t(lib, [0.3, 0.4])))
    jac = both(torch, call)
    assert [[j.shape for j in row] for row in jac] == [[(2, 2), (2, 2)], [(2, 2), (2, 2)]]


def test_jacobian_tuple_inputs_single_output_and_scalar_output(torch):
    both(torch, lambda lib: lib.autograd.functional.jacobian(
        pair_fn, (t(lib, [1.0, 2.0]), t(lib, [0.3, 0.4]))))
    jac = both(torch, lambda lib: lib.autograd.functional.jacobian(scalar_fn, t(lib, X0)))
    assert jac.shape == (2, 2)


def test_jacobian_independent_input_is_zeros_or_strict_error(lib):
    f = lib.autograd.functional
    jx, jy = f.jacobian(lambda x, y: x * 2, (t(lib, [1.0]), t(lib, [2.0, 3.0])))
    assert jy.tolist() == [[0.0, 0.0]] and jx.tolist() == [[2.0]]
    with pytest.raises(RuntimeError, match=re.escape(
            "Output 0 of the user-provided function is independent of input 1. This is not "
            "allowed in strict mode.")):
        f.jacobian(lambda x, y: x * 2, (t(lib, [1.0]), t(lib, [2.0])), strict=True)


def test_jacobian_create_graph(lib):
    x = t(lib, [1.0, 2.0], rg=True)
    jac = lib.autograd.functional.jacobian(lambda v: v ** 3, x, create_graph=True)
    assert type(jac.grad_fn).__name__ == "ViewBackward0"
    jac.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]
    plain = lib.autograd.functional.jacobian(lambda v: v ** 3, x)
    assert plain.requires_grad is False


def test_vectorize_gives_the_same_values(torch):
    both(torch, lambda lib: lib.autograd.functional.jacobian(
        lambda x: x.exp() * x, t(lib, X0), vectorize=True))


def test_input_type_error(lib):
    with pytest.raises(TypeError, match=re.escape(
            "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but "
            "the value at index 1 has type <class 'float'>.")):
        lib.autograd.functional.jacobian(lambda x, y: x * y, (t(lib, [1.0]), 2.0))


# ----------------------------------------------------------------------------- hessian

def test_hessian(torch):
    hess = both(torch, lambda lib: lib.autograd.functional.hessian(scalar_fn, t(lib, X0)))
    assert hess.shape == (2, 2, 2, 2)
    pair = both(torch, lambda lib: lib.autograd.functional.hessian(
        pair_fn, (t(lib, [1.0, 2.0]), t(lib, [0.3, 0.4]))))
    assert [[h.shape for h in row] for row in pair] == [[(2, 2)] * 2] * 2


def test_hessian_create_graph(torch):
    got = []
    for lib in (ag, torch):
        h = lib.autograd.functional.hessian(scalar_fn, t(lib, X0), create_graph=True)
        got.append((h.requires_grad, type(h.grad_fn).__name__))
    assert got[0] == got[1] == (True, "ViewBackward0")


def test_hessian_needs_a_single_element_output(lib):
    with pytest.raises(RuntimeError, match=re.escape(
            "The Tensor returned by the function given to hessian should contain a single "
            "element")):
        lib.autograd.functional.hessian(lambda x: x * 2, t(lib, [1.0, 2.0]))


def test_hessian_strict_for_a_linear_function(lib):
    with pytest.raises(RuntimeError, match=re.escape(
            "While computing the hessian, found that the jacobian of the user-provided "
            "function with respect to input 0 is independent of the input.")):
        lib.autograd.functional.hessian(lambda x: (x * 2).sum(), t(lib, [1.0]), strict=True)


# ----------------------------------------------------------------------------- products

@pytest.mark.parametrize("name", ["vjp", "jvp"])
def test_vjp_jvp(torch, name):
    both(torch, lambda lib: getattr(lib.autograd.functional, name)(
        lambda x: x.exp() * x, t(lib, X0), t(lib, V0)))
    both(torch, lambda lib: getattr(lib.autograd.functional, name)(
        lambda x, y: (x * y, x + y), (t(lib, [1.0, 2.0]), t(lib, [3.0, 4.0])),
        (t(lib, [1.0, -1.0]), t(lib, [0.5, 2.0]))))


@pytest.mark.parametrize("name", ["vhp", "hvp"])
def test_vhp_hvp(torch, name):
    both(torch, lambda lib: getattr(lib.autograd.functional, name)(
        scalar_fn, t(lib, X0), t(lib, V0)))
    both(torch, lambda lib: getattr(lib.autograd.functional, name)(
        pair_fn, (t(lib, [1.0, 2.0]), t(lib, [0.3, 0.4])),
        (t(lib, [1.0, -1.0]), t(lib, [0.5, 2.0]))))


def test_v_may_be_omitted_for_single_elements(torch):
    both(torch, lambda lib: lib.autograd.functional.vjp(scalar_fn, t(lib, X0)))
    both(torch, lambda lib: lib.autograd.functional.jvp(lambda x: x.exp(), t(lib, [0.5])))
    both(torch, lambda lib: lib.autograd.functional.hvp(lambda x: x.pow(4).sum(),
                                                        t(lib, [0.5])))


def test_products_create_graph(lib):
    f = lib.autograd.functional
    out, vj = f.vjp(lambda x: x ** 2, t(lib, [1.0, 2.0], rg=True), t(lib, [1.0, 1.0]),
                    create_graph=True)
    assert out.requires_grad and vj.requires_grad
    out, vj = f.vjp(lambda x: x ** 2, t(lib, [1.0, 2.0], rg=True), t(lib, [1.0, 1.0]))
    assert not out.requires_grad and not vj.requires_grad


@pytest.mark.parametrize("call, message", [
    (lambda f, lib: f.vjp(lambda x: x * 2, t(lib, [1.0, 2.0])),
     ("The vector v can only be None if the user-provided function returns a single Tensor "
     "with a single element.")),
    (lambda f, lib: f.jvp(lambda x: x * 2, t(lib, [1.0, 2.0])),
     ("The vector v can only be None if the input to the user-provided function is a single "
     "Tensor with a single element.")),
    (lambda f, lib: f.vjp(lambda x: x * 2, t(lib, [1.0, 2.0]), t(lib, [1.0])),
     "v has invalid size: should be torch.Size([2]) but got torch.Size([1])."),
    (lambda f, lib: f.jvp(lambda x, y: x * y, (t(lib, [1.0]), t(lib, [1.0])), (t(lib, [1.0]),)),
     "v is a tuple of invalid length: should be 2 but got 1."),
    (lambda f, lib: f.vjp(lambda x: x * 2, t(lib, [1.0]), (t(lib, [1.0]), t(lib, [1.0]))),
     "The given v should contain a single Tensor."),
    (lambda f, lib: f.hvp(lambda x: (x, x), t(lib, [1.0]), t(lib, [1.0])),
     "The function given to hvp should return a single Tensor"),
    (lambda f, lib: f.vhp(lambda x: x * 2, t(lib, [1.0, 2.0]), t(lib, [1.0, 1.0])),
     "The Tensor returned by the function given to vhp should contain a single element"),
    (lambda f, lib: f.vjp(lambda x: x.detach(), t(lib, [1.0]), t(lib, [1.0]), strict=True),
     ("Output 0 of the user-provided function does not require gradients. The outputs must be "
     "computed in a differentiable manner from the input when running in strict mode.")),
])
def test_errors(lib, call, message):
    with pytest.raises(RuntimeError, match="^" + re.escape(message) + "$"):
        call(lib.autograd.functional, lib)


def test_independent_input_gives_zeros(torch):
    both(torch, lambda lib: lib.autograd.functional.vjp(
        lambda x, y: x * 2, (t(lib, [1.0]), t(lib, [2.0, 3.0])), t(lib, [1.0])))
