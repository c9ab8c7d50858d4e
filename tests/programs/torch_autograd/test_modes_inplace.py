# Written after PyTorch's own tests: https://github.com/pytorch/pytorch test/test_autograd.py
# (class TestAutograd) at commit 5c322af10e52e4d236104ceefd542f34e6dcf20a (BSD 3-Clause
# licence, Copyright (c) 2016- Facebook, Inc and the PyTorch contributors: ../LICENSES.md).
# Each test carries the name of the torch test it follows and checks the same behaviour with
# the same values; where a check is left out or changed, an "# agdebug:" comment says why.
"""Grad modes, requires_grad propagation, detach, and in-place ops (versions, views)."""

import math

import pytest

from .compare import assert_equal


def test_no_grad(torch):
    x = torch.ones(5, 5, requires_grad=True)
    y = torch.ones(5, 5) * 4
    with torch.no_grad():
        w = x + y

    def adder(x, y):
        return x + y

    for decorated in (torch.no_grad()(adder), torch.no_grad(adder)):
        z = decorated(x, y)
        for t in (w, z):
            assert not t.requires_grad and t.grad_fn is None
            with pytest.raises(RuntimeError):
                t.backward(torch.ones(5, 5))
    with torch.no_grad():   # a decorated call nested in the block
        assert not torch.is_grad_enabled()
        decorated(x, y)
        assert not torch.is_grad_enabled()


def test_enable_grad_decorator_no_paren(torch):
    x = torch.ones(1, requires_grad=True)

    @torch.enable_grad
    def doubler(x):
        return x * 2

    with torch.no_grad():
        z = doubler(x)
    assert z.requires_grad


def test_set_grad_generator_functions(torch):
    @torch.no_grad()
    def gen_no_grad():
        for i in range(10):
            assert not torch.is_grad_enabled()
            yield i

    @torch.enable_grad()
    def gen_enable_grad():
        for i in range(10):
            assert torch.is_grad_enabled()
            yield i

    # each step of the generator runs in its mode; the caller's is back between steps
    with torch.enable_grad():
        for _ in gen_no_grad():
            assert torch.is_grad_enabled()
    with torch.no_grad():
        for _ in gen_enable_grad():
            assert not torch.is_grad_enabled()


def test_set_grad_enabled(torch):
    x = torch.tensor([1.0], requires_grad=True)
    with torch.set_grad_enabled(False):
        y = x * 2
    assert not y.requires_grad
    with torch.set_grad_enabled(True):
        y = x * 2
    assert y.requires_grad
    with torch.set_grad_enabled(False):
        torch.set_grad_enabled(True)   # the call alone sets the mode
        y = x * 2
    assert y.requires_grad


def test_requires_grad(torch):
    x, y = torch.randn(5, 5), torch.randn(5, 5)
    z = torch.randn(5, 5, requires_grad=True)
    a = x + y
    assert not a.requires_grad
    b = a + z
    assert b.requires_grad
    # agdebug: torch also plants failing _backward_hooks on a, x and y (legacy internals);
    # what they check is that backward does not reach tensors that need no gradient
    b.backward(torch.ones(5, 5))
    assert a.grad_fn is None and x.grad is None and y.grad is None


def test_requires_grad_(torch):
    x = torch.randn(5, 5)
    y = torch.randn(5, 5, requires_grad=True)
    for t in (x, y):
        assert t.requires_grad_() is t and t.requires_grad
        assert t.requires_grad_(True) is t and t.requires_grad
    z = x * y
    with pytest.raises(RuntimeError):   # a non-leaf cannot stop requiring grad
        z.requires_grad_(False)
    assert z.requires_grad_() is z and z.requires_grad
    assert z.requires_grad_(True) is z and z.requires_grad
    for t in (x, y):
        assert t.requires_grad_(False) is t and not t.requires_grad


def test_requires_grad_inplace(torch):
    for a in (torch.randn(5, 5), torch.randn(5, 5) + 0):   # a leaf, then a non-leaf
        a += torch.randn(5, 5, requires_grad=True)
        assert a.requires_grad


def test_no_requires_grad_inplace(torch):
    a = torch.randn(2, 3)
    a.add_(5)
    a.requires_grad = True
    a.sum().backward()
    assert_equal(torch, a.grad, torch.ones(2, 3))

    a = torch.randn(2, 3)
    a[:].add_(5)
    a.requires_grad = True
    a.sum().backward()
    assert_equal(torch, a.grad, torch.ones(2, 3))

    # once the leaf requires grad, neither it nor a view of it may change in place
    a = torch.randn(2, 3)
    b = a[:]
    a.requires_grad = True
    with pytest.raises(RuntimeError):
        a.add_(5)
    with pytest.raises(RuntimeError):
        b.add_(5)


def test_inplace(torch):
    x = torch.ones(5, 5, requires_grad=True)
    y = (torch.ones(5, 5) * 4).requires_grad_(True)   # agdebug: torch wraps it in Variable
    ones = torch.ones(5, 5)

    z = x * y
    q, w = z + y, z * y
    z.add_(2)
    q.backward(ones, retain_graph=True)   # AddBackward0 saved nothing of z
    with pytest.raises(RuntimeError):     # MulBackward0 saved z
        w.backward(ones)

    z = x * y
    q, r = z * y, z + y
    w = z.add_(y)
    w.backward(ones, retain_graph=True)
    r.backward(ones, retain_graph=True)
    with pytest.raises(RuntimeError):
        q.backward(ones)

    with torch.no_grad():
        x.grad.zero_()
    z = x / 2 + y / 8
    q, r = z * y, z + y
    version = z._version
    w = z.exp_()
    assert z._version != version
    r.backward(ones, retain_graph=True)
    assert_equal(torch, x.grad, ones / 2)
    w.backward(ones, retain_graph=True)
    assert_equal(torch, x.grad, torch.empty(5, 5).fill_((1 + math.e) / 2))
    with pytest.raises(RuntimeError):
        q.backward(ones)

    leaf = torch.ones(5, 5, requires_grad=True)
    x = leaf.clone()
    x.add_(10)
    assert_equal(torch, x, ones * 11)
    y = x + 2
    y.backward(ones)
    assert_equal(torch, leaf.grad, ones)
    z = x * y
    x.add_(2)
    with pytest.raises(RuntimeError):
        z.backward(ones)


def test_detach(torch):
    x = torch.randn(10, 10, requires_grad=True)
    y = (x + 2).detach()
    z = y * 4 + 2
    assert not y.requires_grad and not z.requires_grad

    x = torch.randn(10, 10, requires_grad=True)
    y = (x * 2).detach()
    assert not y.requires_grad and y.grad_fn is None
    (x + y).sum().backward()
    assert_equal(torch, x.grad, torch.ones(10, 10))   # nothing flows through y

    x = torch.randn(10, 10, requires_grad=True)
    y = torch.randn(10, 10, requires_grad=True)
    a = x * 2
    (y + a).sum().backward(retain_graph=True)
    a.detach_()
    assert not a.requires_grad
    (y + a).sum().backward()   # x gets nothing this time
    assert_equal(torch, x.grad, torch.ones(10, 10) * 2)
    assert_equal(torch, y.grad, torch.ones(10, 10) * 2)

    with pytest.raises(RuntimeError, match="view"):
        x.narrow(0, 1, 4).detach_()


def test_detach_base(torch):
    x = torch.randn(10, 10, requires_grad=True)
    view = x.narrow(0, 1, 4)
    x.detach_()   # detaching the base leaves its view alone
    assert not x.requires_grad
    assert view.requires_grad and view.grad_fn is not None
    assert view._base is x


def test_detach_then_inplace_raises_in_autograd(torch):
    x = torch.randn([], requires_grad=True)
    y = x ** 2   # saves x
    x.detach().zero_()   # shares x's version counter
    with pytest.raises(RuntimeError, match="has been modified by an inplace"):
        y.backward()


def test_leaf_assignment(torch):
    x = torch.randn(5, 5)
    y = torch.randn(5, requires_grad=True)
    z = torch.randn(5, requires_grad=True)
    x[0] = y
    x[1] = 2 * z
    assert x.requires_grad and x.grad_fn is not None
    x.sum().backward()
    assert_equal(torch, y.grad, torch.ones(5))
    assert_equal(torch, z.grad, torch.ones(5) * 2)


def test_no_grad_assignment(torch):
    x = torch.randn(5, 5, requires_grad=True)
    with torch.no_grad():
        x[0] = torch.randn(5)
    assert x.requires_grad and x.grad_fn is None


def test_no_grad_modifies_version(torch):
    x = torch.randn(5, requires_grad=True)
    y = torch.randn(5, requires_grad=True)
    z = (x * y).sum()
    with torch.no_grad():
        x *= 2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_increment_version(torch):
    for a in (torch.rand(5, requires_grad=True), torch.zeros(5, dtype=torch.int)):
        version = a._version
        torch.autograd.graph.increment_version(a)
        assert a._version == version + 1
    with torch.inference_mode():
        a = torch.rand(5, requires_grad=True)
        torch.autograd.graph.increment_version(a)   # an inference tensor: no error
    torch.autograd.graph.increment_version(a)


def test_setitem(torch):
    # agdebug: a few of the torch test's keys (basic, advanced, a bool mask left out)
    for size, index in (((5, 5), 1), ((10,), [0, 4, 2]), ((5, 5), ([0, 4], [2, 2])),
                        ((5, 5, 5), (slice(None), [1, 3], slice(None)))):
        x = torch.ones(*size, requires_grad=True)
        y = x + 2
        version = y._version
        y[index] = 2
        assert y._version != version
        y.backward(torch.ones(*size))
        expected = torch.ones(*size)
        expected[index] = 0
        assert_equal(torch, x.grad, expected)


def test_index_backward_does_not_save_tensor(torch):
    # IndexBackward0 must not keep the indexed tensor: it changes in the same line
    a = torch.tensor([1.0, 0, 0])
    tensor = torch.zeros(3, requires_grad=True) + 0
    tensor[a != 0] = tensor[a != 0]
    tensor.backward(torch.zeros_like(tensor))
