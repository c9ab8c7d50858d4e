"""Scenarios written once against ``lib`` (real torch, or agdebug), and how to record one.

Each scenario builds its values from fixed data, so both engines compute the same numbers.
"""

from __future__ import annotations

import warnings

import agdebug as ag
from agdebug.debug import record


def recorded(scenario, lib):
    """The trace of ``scenario(lib)``: agdebug's recorder, or real torch under the watcher."""
    import agdebug.watch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        recorder = record() if lib is ag else agdebug.watch.torch()
        with recorder as trace:
            try:
                scenario(lib)
            except RuntimeError:
                pass   # the scenarios that raise: the trace up to the error is compared
    return trace


def leaf(lib, values):
    return lib.tensor(values, requires_grad=True)


def chain(lib):
    x = leaf(lib, [1.0, 2.0, 3.0])
    y = (x * x).sin()
    z = y.exp().sum()
    z.backward()
    del x, y, z


def retain_twice(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x * 3.0).tanh().sum()
    y.backward(retain_graph=True)
    y.backward()
    del x, y


def retain_error(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    y.backward()   # RuntimeError: trying to backward through the graph a second time


def create_graph_cycle(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x * x * x).sum()
    y.backward(create_graph=True)
    x.grad = None   # breaks the cycle
    del x, y


def grad_api(lib):
    x = leaf(lib, [1.0, 2.0])
    w = leaf(lib, [0.5, -1.0])
    y = (x * w).exp().sum()
    (gx,) = lib.autograd.grad(y, [x])
    del x, w, y, gx


def hooks(lib):
    x = leaf(lib, [1.0, -2.0])
    y = x * 2.0
    y.register_hook(lambda g: g * 10.0)
    z = (y * y).sum()
    z.grad_fn.register_hook(lambda grads_in, grads_out: None)
    z.backward()
    del x, y, z


def mlp_step(lib):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) * 0.1 - 0.2 * i)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    target = lib.tensor([1, 0])
    loss = lib.nn.functional.cross_entropy(model(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    del loss


def custom_function(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2.0 * x

    x = leaf(lib, [1.0, 3.0])
    y = Square.apply(x).sum()
    y.backward()
    del x, y


def raises(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x * 2.0).sum()
    y.backward()
    raise RuntimeError("the script fails after its backward")


SCENARIOS = [chain, retain_twice, retain_error, create_graph_cycle, grad_api, hooks,
             mlp_step, custom_function, raises]


def node_hooks(lib):
    x = leaf(lib, [1.0, -2.0, 0.5])
    y = x.exp()
    z = (y * 3.0).sum()

    def doubled(grad_outputs):
        return (grad_outputs[0] * 2.0,)

    def seen(grad_inputs, grad_outputs):
        return None
    z.grad_fn.register_prehook(doubled)
    y.grad_fn.register_hook(seen)
    y.grad_fn.register_prehook(lambda grad_outputs: None)
    z.backward()
    del x, y, z


def leaf_hooks(lib):
    x = leaf(lib, [1.0, 2.0])
    w = leaf(lib, [3.0, -1.0])
    x.register_hook(lambda grad: grad * 0.5)

    def stepped(t):
        return None
    w.register_post_accumulate_grad_hook(stepped)
    (x * w).sum().backward()
    (x * w).sum().backward()   # the hooks run again; .grad is summed
    del x, w


def several_outputs_hook(lib):
    x = leaf(lib, [1.0, 2.0, 3.0])
    a, b, c = x.unbind()
    b.register_hook(lambda grad: grad + 1.0)
    (a * b + c).backward()
    del x, a, b, c


def hook_raises(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * x

    def broken(grad):
        raise RuntimeError("the hook fails")
    y.register_hook(broken)
    y.sum().backward()


def named(lib):
    x = lib.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)
    lin = lib.nn.Linear(2, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[0.5, -0.5], [1.0, 2.0]]))
        lin.bias.fill_(0.1)
    h = lin(x)
    a, b = h.unbind(1)
    loss = (a * b).sum()
    loss.backward()
    del x, lin, h, a, b, loss


HOOKS = [hooks, node_hooks, leaf_hooks, several_outputs_hook, hook_raises]
SCENARIOS += [*HOOKS[1:], named]


def transformer_step(lib):
    """One training step of a small nn.TransformerEncoderLayer with Adam: its parameters
    after the step and the loss, as plain lists."""
    layer = lib.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16,
                                           dropout=0.0, batch_first=True)
    with lib.no_grad():
        for i, p in enumerate(layer.parameters()):
            values = lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape)
            p.copy_(((values * 0.37 + i) % 1.0 - 0.5) * 0.4)
    opt = lib.optim.Adam(layer.parameters(), lr=0.01)
    x = (lib.arange(2 * 3 * 8, dtype=lib.float32).reshape(2, 3, 8) * 0.13) % 1.0 - 0.5
    loss = layer(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    result = [p.detach().tolist() for p in layer.parameters()] + [loss.item()]
    del layer, opt, x, loss
    return result


def hook_under_create_graph(lib):
    x = leaf(lib, [1.0, 2.0])
    w = leaf(lib, [3.0, -1.0])
    y = x.exp()
    # Under create_graph the hook's op makes a node. torch runs hooks with no function mode
    # active: the watcher finds that node by walking the gradient's graph after the hook
    # (no source line, no outputs, after the hook_called where agdebug has it before).
    y.register_hook(lambda grad: grad * w)
    y.sum().backward(create_graph=True)
    x.grad = None
    del x, y   # (w goes on return: the hook refers to it)


SCENARIOS.append(hook_under_create_graph)
