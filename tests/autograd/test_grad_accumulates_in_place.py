"""A second backward adds into the existing ``.grad`` in place, as torch's AccumulateGrad does
(``variable_grad += new_grad`` when grad mode is off): the same object, views of it and a tensor
assigned to ``.grad`` see the sum, and its version counter moves."""

from __future__ import annotations

import pytest



@pytest.mark.parametrize("shape", [(4,), (), (2, 3)])
def test_views_of_grad_see_the_second_backward(lib, shape):
    x = lib.ones(shape, requires_grad=True)
    (x * 2).sum().backward()
    grad, view = x.grad, x.grad.reshape(-1)[:1]
    version = grad._version
    (x * 3).sum().backward()
    assert x.grad is grad
    assert view.tolist() == [5.0]
    assert grad._version == version + 1


def test_an_assigned_grad_is_added_into(lib):
    x = lib.ones(3, requires_grad=True)
    target = lib.zeros(3)
    x.grad = target
    (x * 2).sum().backward()
    assert x.grad is target and target.tolist() == [2.0, 2.0, 2.0]


def test_a_broadcast_grad_cannot_be_added_into(lib):
    x = lib.ones(3, requires_grad=True)
    x.grad = lib.ones(1).expand(3)      # every element is one memory location
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        (x * 2).sum().backward()
