# Written after PyTorch's own tests: https://github.com/pytorch/pytorch test/test_autograd.py
# (class TestAutograd) at commit 5c322af10e52e4d236104ceefd542f34e6dcf20a (BSD 3-Clause
# licence, Copyright (c) 2016- Facebook, Inc and the PyTorch contributors: ../LICENSES.md).
# Each test carries the name of the torch test it follows and checks the same behaviour with
# the same values; where a check is left out or changed, an "# agdebug:" comment says why.
"""Hooks: tensor hooks, node pre- and post-hooks, retain_grad, post-accumulate-grad hooks."""

import pytest

from .compare import assert_equal


def _mul2(torch, use_custom_function):
    """x * 2, as a built-in op or as a custom Function."""
    if not use_custom_function:
        return lambda x: x * 2

    class Mul2(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    return Mul2.apply


def test_hooks(torch):
    x = torch.ones(5, 5, requires_grad=True)
    y = torch.ones(5, 5) * 4
    y.requires_grad_(True)
    counter = [0]

    def count(step, grad):
        assert isinstance(grad, torch.Tensor)
        counter[0] += step

    z = x ** 2 + x * 2 + x * y + y
    x.register_hook(lambda grad: count(0, grad))
    first = z.register_hook(lambda grad: count(1, grad))
    z.backward(torch.ones(5, 5), retain_graph=True)
    assert counter[0] == 1
    second = z.register_hook(lambda grad: count(2, grad))
    z.backward(torch.ones(5, 5), retain_graph=True)
    assert counter[0] == 4
    second.remove()
    z.backward(torch.ones(5, 5), retain_graph=True)
    assert counter[0] == 5

    # a hook that returns a tensor replaces the gradient
    first.remove()
    z.register_hook(lambda grad: grad.mul(2))
    with torch.no_grad():
        y.grad.zero_()
    z.backward(torch.ones(5, 5), retain_graph=True)
    assert_equal(torch, y.grad, (x + 1) * 2)
    y.register_hook(lambda grad: grad.mul(2))
    with torch.no_grad():
        y.grad.zero_()
    z.backward(torch.ones(5, 5))
    assert_equal(torch, y.grad, (x + 1) * 4)


def test_hook_with_no_name(torch):
    class Hook:   # a callable without __name__
        def __call__(self, grad):
            return grad.clone()

    x = torch.randn(5, requires_grad=True).clone()
    x.register_hook(Hook())
    x.sum().backward()


@pytest.mark.parametrize("use_custom_function", [True, False])
def test_grad_fn_prehooks(torch, use_custom_function):
    mul2 = _mul2(torch, use_custom_function)
    a = torch.tensor([1.0], requires_grad=True)
    b = mul2(a)
    pre, post = [0], [0]

    def posthook(grad_input, grad_output):
        assert pre[0] == 3
        assert torch.allclose(grad_output[0], torch.ones(1) * 8)
        assert torch.allclose(grad_input[0], torch.ones(1) * 16)
        post[0] += 1
        return grad_input

    def prehook(grad_output):
        pre[0] += 1
        return (grad_output[0] * 2,)

    b.grad_fn.register_hook(posthook)
    b.grad_fn.register_hook(posthook)
    # three doubling prehooks, and ones that return None or their argument unchanged
    for hook in (prehook, lambda g: None, prehook, prehook, lambda g: g, lambda g: None):
        b.grad_fn.register_prehook(hook)
    b.sum().backward()
    assert post[0] == 2 and pre[0] == 3

    a = torch.rand(3, 3, requires_grad=True)
    b = mul2(a)

    def counting(grad_output):
        pre[0] += 1

    b.grad_fn.register_prehook(counting)
    b.sum().backward()
    assert pre[0] == 4
    assert torch.allclose(a.grad, torch.ones(3, 3) * 2)


@pytest.mark.parametrize("use_custom_function", [True, False])
def test_grad_fn_prehooks_remove_hooks(torch, use_custom_function):
    mul2 = _mul2(torch, use_custom_function)
    a = torch.rand(3, 3, requires_grad=True)
    b = mul2(a)
    counter = [0]

    def count(grad_output):
        counter[0] += 1

    handle = b.grad_fn.register_prehook(count)
    b.grad_fn.register_prehook(count)
    handle.remove()
    b.sum().backward()
    assert torch.allclose(a.grad, torch.ones(3, 3) * 2) and counter[0] == 1

    # a hook removed by an earlier hook of the same node does not run; removing twice is fine
    a = torch.rand(3, 3, requires_grad=True)
    b = mul2(a)
    counter = [0]

    def remover(grad_output):
        second.remove()
        third.remove()

    b.grad_fn.register_prehook(remover)
    second = b.grad_fn.register_prehook(count)
    third = b.grad_fn.register_prehook(count)
    third.remove()
    b.sum().backward()
    assert torch.allclose(a.grad, torch.ones(3, 3) * 2) and counter[0] == 1


def test_prehook_ordering(torch):
    # tensor hooks run before the hooks on the tensor's grad_fn
    log = []

    def tensor_hook(g):
        log.append(1)
        return g * 3

    def node_prehook(gs):
        log.append(2)
        return tuple(g * 2 for g in gs)

    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.grad_fn.register_prehook(node_prehook)
    b.register_hook(tensor_hook)
    b.grad_fn.register_prehook(node_prehook)
    acc = b.grad_fn.next_functions[0][0]
    a.register_hook(tensor_hook)
    acc.register_prehook(node_prehook)
    a.register_hook(tensor_hook)

    b.sum().backward(retain_graph=True)
    assert log == [1, 2, 2, 1, 1, 2]
    # grad() runs the accumulator's tensor hooks, not the accumulator
    log.clear()
    torch.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)
    assert log == [1, 2, 2, 1, 1]
    log.clear()
    b.sum().backward(inputs=(b,))
    assert log == [1, 2, 2]
    # retain_grad sees the tensor hooks' change, not the node prehooks'
    assert b.grad.item() == 3


def test_retains_grad_can_always_observe_tensor_prehook(torch):
    def double(g):
        return g * 2

    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.register_hook(double)
    b.retain_grad()
    b.register_hook(double)
    b.clone().backward()
    assert b.grad.item() == 4   # registered after retain_grad, the second hook counts too

    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.retain_grad()
    b.register_hook(double)
    b.clone().backward()
    assert b.grad.item() == 2


def test_accumulate_grad_posthooks_can_observe_tensor_prehook(torch):
    a = torch.tensor(1.0, requires_grad=True)
    seen = []

    def posthook(grad_inputs, grad_outputs):
        assert torch.allclose(grad_outputs[0], a * 2) and len(grad_inputs) == 0
        seen.append("post")

    def prehook(grad_outputs):
        assert torch.allclose(grad_outputs[0], a * 2) and len(grad_outputs) == 1
        seen.append("pre")

    b = a.clone()
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    acc.register_prehook(prehook)
    a.register_hook(lambda g: g * 2)
    b.backward()
    # agdebug: also checks that both ran (the torch test only asserts inside them)
    assert seen == ["pre", "post"]


def test_accumulate_grad_posthooks_should_not_execute(torch):
    def fail(*args):
        raise RuntimeError

    a = torch.tensor(1.0, requires_grad=True)
    a.register_hook(fail)
    b = torch.tensor(1.0, requires_grad=True)
    c = a.clone()
    c.grad_fn.next_functions[0][0].register_hook(fail)
    (a + b + c).sum().backward(inputs=[b])


def test_hook_edge_case_when_called_with_grad(torch):
    # grad() runs the tensor hooks of an input, not its grad_fn's pre- or post-hooks
    a = torch.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    counts = {"tensor": 0, "pre": 0, "post": 0}

    def counter(kind):
        def hook(*args):
            counts[kind] += 1
        return hook

    a.register_hook(counter("tensor"))
    b.register_hook(counter("tensor"))
    acc = b.grad_fn.next_functions[0][0]
    for node in (acc, b.grad_fn):
        node.register_hook(counter("post"))
        node.register_prehook(counter("pre"))

    for run, expected in (
            (lambda: torch.autograd.grad(c, inputs=(b), retain_graph=True), (1, 0, 0)),
            (lambda: torch.autograd.grad(c, inputs=(a, b), retain_graph=True), (2, 1, 1)),
            (lambda: c.backward(retain_graph=True), (2, 2, 2)),
            (lambda: c.backward(inputs=(a, b), retain_graph=True), (2, 2, 2))):
        counts.update(tensor=0, pre=0, post=0)
        run()
        assert (counts["tensor"], counts["pre"], counts["post"]) == expected


def test_grad_nonleaf_register_hook(torch):
    x = torch.randn(5, requires_grad=True)
    x_list = x.unbind()
    results = [None]

    def hook(grad):
        results[0] = grad

    x_list[0].register_hook(hook)
    x_list[0].backward()
    assert_equal(torch, results[0], torch.tensor(1.0))
    expected = torch.tensor([1.0, 0, 0, 0, 0])
    assert_equal(torch, x.grad, expected)
    assert x_list[0].grad is None
    for i in range(1, 5):
        x_list[i].backward()
        assert results[0] is None
        expected[i] = 1.0
        assert_equal(torch, x.grad, expected)
        assert x_list[i].grad is None


def test_hook_none(torch):
    class NoneGradientFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            assert ctx.needs_input_grad[0] and not ctx.needs_input_grad[1]
            return x, y

        @staticmethod
        def backward(ctx, grad_x, grad_y):
            return grad_x, None

    called = []

    def hook(grad):
        assert grad is not None
        called.append(True)

    x = torch.randn(5, 5, requires_grad=True)
    rx, ry = NoneGradientFunction.apply(x, torch.randn(5, 5))
    rx.register_hook(hook)
    ry.register_hook(hook)
    sum(rx, ry).sum().backward()
    assert called


def test_retain_grad(torch):
    input = torch.rand(1, 3, requires_grad=True)
    h1 = input * 3
    out = (h1 * h1).sum()
    h1.retain_grad()
    h1.retain_grad()   # twice is fine
    out.backward(retain_graph=True)
    assert_equal(torch, h1 * 2, h1.grad)
    out.backward(retain_graph=True)   # retained gradients accumulate
    assert_equal(torch, h1 * 4, h1.grad)

    with torch.no_grad():
        input.grad.zero_()
    input.retain_grad()   # a no-op on a leaf
    input.retain_grad()
    out.backward()
    assert_equal(torch, input * 18, input.grad)


def test_retain_grad_inplace(torch):
    a = torch.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.sum().backward()
    assert_equal(torch, a.grad, torch.tensor([1.0]))

    a = torch.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.mul_(2)
    a.sum().backward()
    assert_equal(torch, a.grad, torch.tensor([1.0]))

    # an in-place op through a view moves the base's retain_grad to CopySlices
    x = torch.tensor([1.0], requires_grad=True).clone()
    x.retain_grad()
    x_view = x[:]
    x_view *= 2
    x *= 2
    x.sum().backward()
    # agdebug: the torch test checks a.grad again here; x.grad is the one this part makes
    assert_equal(torch, x.grad, torch.tensor([1.0]))

    # a base that did not require grad has no hook to move
    y = torch.zeros(4).view(2, 2)
    y.add_(torch.randn(2, 2, requires_grad=True))


def test_retain_grad_inplace_over_view(torch):
    base = torch.tensor([1.0], requires_grad=True).clone()
    view, view2 = base[:], base[:]
    view.retain_grad()
    view2.retain_grad()
    view.mul_(2)
    (view + view2).sum().backward()
    assert_equal(torch, view.grad, view2.grad)
    assert_equal(torch, view.grad, torch.tensor([1.0]))


def test_tensor_hooks_inplace(torch):
    # a hook registered after an in-place op goes to the tensor's new version
    counts = [0, 0]

    def before(grad):
        counts[0] += 1
        assert_equal(torch, grad, torch.tensor([4.0]))   # x2 from mul_, x2 from after
        return grad * 2

    def after(grad):
        counts[1] += 1
        assert_equal(torch, grad, torch.tensor([1.0]))
        return grad * 2

    a = torch.tensor([1.0], requires_grad=True)
    b = a.clone()
    b.register_hook(before)
    b.mul_(2)
    b.register_hook(after)
    b.sum().backward()
    assert counts == [1, 1]
    assert_equal(torch, a.grad, torch.tensor([8.0]))

    calls = [0]

    def early(grad):
        calls[0] += 1
        assert_equal(torch, grad, torch.tensor([4.0]))
        return grad * 2

    a = torch.tensor([1.0], requires_grad=True)
    b = a.clone()
    b.register_hook(early)
    b.mul_(2)
    b.mul_(2)
    b.sum().backward()
    assert calls[0] == 1
    assert_equal(torch, a.grad, torch.tensor([8.0]))


def test_post_accumulate_grad_hook_on_non_leaf(torch):
    non_leaf = 2.0 * torch.rand(3, requires_grad=True)
    with pytest.raises(RuntimeError,
                       match="post accumulate grad hooks cannot be registered on non-leaf"):
        non_leaf.register_post_accumulate_grad_hook(lambda t: t.sub_(1.0))


def test_post_accumulate_grad_hook_multiple_hooks(torch):
    tensor = torch.rand(3, requires_grad=True)
    ref = tensor.detach().clone()
    def step(t):
        t.sub_(t.grad)

    def scale(t):
        t.mul_(4.0)

    tensor.register_post_accumulate_grad_hook(step)
    tensor.register_post_accumulate_grad_hook(scale)
    tensor.sum().backward()
    assert_equal(torch, 4.0 * (ref - 1.0), tensor)   # both ran, in order


def test_post_accumulate_grad_hook_multiple_tensors(torch):
    def step(t):
        t.sub_(t.grad)

    t1, t2 = torch.rand(3, requires_grad=True), torch.rand(5, requires_grad=True)
    ref1, ref2 = t1.detach().clone(), t2.detach().clone()
    t1.register_post_accumulate_grad_hook(step)
    t2.register_post_accumulate_grad_hook(step)
    t1.sum().backward()
    t2.sum().backward()
    assert_equal(torch, ref1 - 1.0, t1)
    assert_equal(torch, ref2 - 1.0, t2)


def test_post_accumulate_grad_hook_returns_not_None(torch):
    tensor = torch.rand(2, 3, requires_grad=True)
    tensor.register_post_accumulate_grad_hook(lambda t: t.grad)
    with pytest.raises(RuntimeError, match="hooks should return None."):
        tensor.sum().backward()


def test_post_accumulate_grad_hook_ordering(torch):
    tensor = torch.rand(3, requires_grad=True)

    def post_accumulate(t):   # (a hook returning a tensor would be an error)
        t.grad.add_(0.5)

    def acc_posthook(grad_inputs, grad_outputs):
        tensor.grad = grad_outputs[0].mul(10)

    acc = tensor.view_as(tensor).grad_fn.next_functions[0][0]
    tensor.register_hook(lambda grad: grad.sub(2.0))
    acc.register_prehook(lambda grad_outputs: (grad_outputs[0].div(5.0),))
    tensor.register_post_accumulate_grad_hook(post_accumulate)
    acc.register_hook(acc_posthook)
    tensor.sum().backward()
    # tensor hook, accumulator prehook, post-accumulate hook, accumulator posthook:
    # ((1 - 2) / 5 + 0.5) * 10 = 3
    assert_equal(torch, torch.tensor([3.0, 3.0, 3.0]), tensor.grad)


def test_post_accumulate_grad_hook_e2e(torch):
    # an optimizer step per parameter, run from its post-accumulate-grad hook
    import copy
    model = torch.nn.Linear(3, 2)
    input = torch.rand(2, 3)
    optims = {p: torch.optim.Adam([p]) for p in model.parameters()}

    def step(param):
        optims[param].step()
        optims[param].zero_grad()

    handles = [p.register_post_accumulate_grad_hook(step) for p in model.parameters()]
    model_copy = copy.deepcopy(model)
    optim_copy = torch.optim.Adam(model_copy.parameters())

    def train(iters=5):
        for _ in range(iters):
            model(input).sum().backward()
            model_copy(input).sum().backward()
            optim_copy.step()
            optim_copy.zero_grad()

    train()
    frozen = []
    for reference, p in zip(model_copy.parameters(), model.parameters()):
        assert_equal(torch, reference, p)
        frozen.append(reference.detach().clone())
    for handle in handles:
        handle.remove()
    train()   # without its hooks, the model no longer changes
    for still, reference, p in zip(frozen, model_copy.parameters(), model.parameters()):
        assert_equal(torch, still, p)
        assert not torch.equal(reference, p)
