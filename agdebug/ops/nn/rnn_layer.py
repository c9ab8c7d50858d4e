"""One LSTM layer in one direction as one node: ``mkldnn_rnn_layer`` (MkldnnRnnLayerBackward0).

torch's CPU build runs a float32 ``nn.LSTM`` through oneDNN (unless
``torch.backends.mkldnn.enabled`` is False): each layer and direction is one
``mkldnn_rnn_layer`` call and one node, where the native path records a dozen ops per time
step. This is that op: the same inputs, outputs, saved values and attributes, computed with
NumPy one time step at a time. Its fourth output, the workspace, is not differentiable; here
it holds the gates (after their activations) and the cell states of every step, which the
derivative reads (oneDNN's workspace has a layout of its own, so its size differs).

Without ``create_graph`` the derivative is backpropagation through time on the arrays. With
it, as torch's ``mkldnn_rnn_layer_differentiable_backward``, the same formulas
run as ops on the gates recomputed from the saved inputs, so the gradients are
differentiable. One function serves both: it is given the array module's or the ops'
``sigmoid``, ``tanh``, ``cat`` and ``stack``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...graph.grad_mode import MODE
from ...tensor import Tensor
from ..core.registry import defop
from ..core.gradients import needs
from ..pointwise.unary import sigmoid
from ..shape.joining import cat, stack

__all__ = ["mkldnn_rnn_layer"]

_LSTM = 2   # ideep::rnn_kind::LSTM: torch's ``mode`` for an LSTM

# what the steps and their derivative compute with: on arrays, or as ops
_ARRAYS = SimpleNamespace(sigmoid=lambda a: sigmoid.forward(np, a), tanh=np.tanh,
                          cat=lambda parts: np.concatenate(parts, 1), stack=np.stack)
_OPS = SimpleNamespace(sigmoid=lambda t: t.sigmoid(), tanh=lambda t: t.tanh(),
                       cat=lambda parts: cat(parts, 1), stack=lambda parts: stack(parts, 0))


@defop("mkldnn_rnn_layer", node="MkldnnRnnLayerBackward0", outputs=4, nondiff_outputs=(3,),
       saves=("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_",
              "result0=result", "result1=result1", "result2=result2", "result3=result3"))
def mkldnn_rnn_layer(xp, input, weight0, weight1, weight2, weight3, hx_, cx_, reverse=False,
                     batch_sizes=(), mode=_LSTM, hidden_size=0, num_layers=1, has_biases=True,
                     bidirectional=False, batch_first=False, train=True):
    """An LSTM layer over a (steps, batch, features) ``input`` from ``(hx_, cx_)``:
    ``(output, hy, cy, workspace)``. ``weight0``/``weight1`` are ``w_ih``/``w_hh``,
    ``weight2``/``weight3`` their biases (None without them)."""
    if xp is not np:
        raise RuntimeError("mkldnn_rnn_layer: expected CPU tensors (oneDNN runs on the CPU)")
    biases = (weight2, weight3) if has_biases else (None, None)
    steps = _run(_ARRAYS, input, weight0, weight1, *biases, hx_, cx_, reverse, hidden_size)
    # The workspace is the gates (i, f, g, o) and the cells of every step, in time order,
    # written in place (``_saved_steps`` reads them back)
    n_steps, batch, size = input.shape[0], input.shape[1], hidden_size
    split = n_steps * batch * 4 * size
    workspace = np.empty(split + n_steps * batch * size, steps[0].h.dtype)
    gates = workspace[:split].reshape(n_steps, batch, 4 * size)
    cells = workspace[split:].reshape(n_steps, batch, size)
    output = np.empty((n_steps, batch, size), steps[0].h.dtype)
    for step in steps:
        for k, gate in enumerate((step.i, step.f, step.g, step.o)):
            gates[step.t, :, k * size:(k + 1) * size] = gate
        cells[step.t], output[step.t] = step.c, step.h
    return output, steps[-1].h.copy(), steps[-1].c.copy(), workspace


@mkldnn_rnn_layer.vjp
def mkldnn_rnn_layer_vjp(ctx, grad_output, grad_hy, grad_cy):
    inputs = [ctx.input, ctx.weight0, ctx.weight1, ctx.weight2, ctx.weight3, ctx.hx_, ctx.cx_]
    if not ctx.has_biases:
        inputs[3] = inputs[4] = None
    incoming = (grad_output, grad_hy, grad_cy)
    if MODE.grad_enabled:   # create_graph: the gradients as ops, on recomputed gates
        steps = _run(_OPS, *inputs, ctx.reverse, ctx.hidden_size)
        return _gradients(_OPS, ctx, steps, *inputs[:3], *incoming)
    x, w_ih, w_hh = (t._data for t in inputs[:3])
    steps = _saved_steps(ctx, x.shape[0], x.shape[1])
    grads = _gradients(_ARRAYS, ctx, steps, x, w_ih, w_hh, *(g._data for g in incoming))
    return tuple(None if g is None else Tensor._wrap(np.ascontiguousarray(g)) for g in grads)


def _run(kit, x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse: bool, size: int) -> list:
    """The layer's time steps in the order it runs them, each with the state it started
    from, its gates (after their activations) and the state it ends in."""
    steps_n, batch = x.shape[0], x.shape[1]   # (one matrix product, not one per step)
    x_proj = (x.reshape(steps_n * batch, -1) @ w_ih.T).reshape(steps_n, batch, -1)
    if b_ih is not None:
        x_proj = x_proj + b_ih
    h, c = hx, cx
    steps = []
    for t in _order(x.shape[0], reverse):
        pre = h @ w_hh.T
        if b_hh is not None:
            pre = pre + b_hh
        pre = pre + x_proj[t]
        act = kit.sigmoid(pre)   # the input, forget and output gates; the cell gate is a tanh
        i, f, o = act[:, :size], act[:, size:2 * size], act[:, 3 * size:]
        g = kit.tanh(pre[:, 2 * size:3 * size])
        c_new = f * c + i * g
        h_new = o * kit.tanh(c_new)
        steps.append(SimpleNamespace(t=t, h_prev=h, c_prev=c, i=i, f=f, g=g, o=o, c=c_new,
                                     h=h_new))
        h, c = h_new, c_new
    return steps


def _saved_steps(ctx, n_steps: int, batch: int) -> list:
    """``_run``'s steps read back from the saved outputs and workspace (no recomputing)."""
    size = ctx.hidden_size
    split = n_steps * batch * 4 * size
    workspace, output = ctx.result3._data, ctx.result0._data
    gates = workspace[:split].reshape(n_steps, batch, 4 * size)
    cells = workspace[split:].reshape(n_steps, batch, size)
    h, c = ctx.hx_._data, ctx.cx_._data
    steps = []
    for t in _order(n_steps, ctx.reverse):
        act = gates[t]
        steps.append(SimpleNamespace(t=t, h_prev=h, c_prev=c, i=act[:, :size],
                                     f=act[:, size:2 * size], g=act[:, 2 * size:3 * size],
                                     o=act[:, 3 * size:], c=cells[t]))
        h, c = output[t], cells[t]
    return steps


def _order(n_steps: int, reverse: bool):
    return range(n_steps - 1, -1, -1) if reverse else range(n_steps)


def _gradients(kit, ctx, steps: list, x, w_ih, w_hh, grad_output, grad_hy, grad_cy) -> list:
    """Backpropagation through time: the gradients of the seven inputs (None where an input
    takes none)."""
    dh, dc = grad_hy, grad_cy
    d_gates = [None] * len(steps)
    for step in reversed(steps):
        dh = dh + grad_output[step.t]
        tanh_c = kit.tanh(step.c)
        dc = dc + dh * step.o * (1 - tanh_c * tanh_c)
        i, f, g, o = step.i, step.f, step.g, step.o
        d = kit.cat([dc * g * i * (1 - i), dc * step.c_prev * f * (1 - f),
                     dc * i * (1 - g * g), dh * tanh_c * o * (1 - o)])
        d_gates[step.t] = d
        dc = dc * f
        dh = d @ w_hh
    n_steps, batch = x.shape[0], x.shape[1]
    flat = kit.stack(d_gates).reshape(n_steps * batch, -1)
    grads = [None] * 7
    if needs(ctx, 0):
        grads[0] = (flat @ w_ih).reshape(tuple(x.shape))
    if needs(ctx, 1):
        grads[1] = flat.T @ x.reshape(n_steps * batch, -1)
    if needs(ctx, 2):
        h_prev = kit.stack([step.h_prev for step in sorted(steps, key=lambda s: s.t)])
        grads[2] = flat.T @ h_prev.reshape(n_steps * batch, -1)
    # (each bias its own sum: two leaves never share one .grad; torch gives the biases passed
    # without ``has_biases`` that gradient too)
    for k in (3, 4):
        if needs(ctx, k):
            grads[k] = flat.sum(0)
    grads[5] = dh if needs(ctx, 5) else None
    grads[6] = dc if needs(ctx, 6) else None
    return grads


def _torch_signature(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes,
                     mode, hidden_size, num_layers, has_biases, bidirectional, batch_first,
                     train):
    """``torch.mkldnn_rnn_layer``, every argument positional as in torch (LSTM only; without
    biases ``weight2`` and ``weight3`` are read by no one, but they must be tensors)."""
    tensors = (input, weight0, weight1, weight2, weight3, hx_, cx_)
    names = ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")
    for position, (name, value) in enumerate(zip(names, tensors)):
        if not isinstance(value, Tensor):
            raise TypeError(f"mkldnn_rnn_layer(): argument '{name}' (position {position + 1}) "
                            f"must be Tensor, not {type(value).__name__}")
    if mode != _LSTM:
        raise RuntimeError("mkldnn_rnn_layer: agdebug runs LSTM layers only (mode 2)")
    if tuple(batch_sizes):
        raise RuntimeError("mkldnn_rnn doesn't support packed input")
    return mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_,
                            reverse=bool(reverse),
                            batch_sizes=(), mode=mode, hidden_size=int(hidden_size),
                            num_layers=int(num_layers), has_biases=bool(has_biases),
                            bidirectional=bool(bidirectional), batch_first=bool(batch_first),
                            train=bool(train))


_torch_signature.__name__ = "mkldnn_rnn_layer"
FUNCTIONS = {"mkldnn_rnn_layer": _torch_signature}
