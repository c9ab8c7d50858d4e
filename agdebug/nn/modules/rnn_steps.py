"""The time steps and sequence loops behind ``RNN``, ``LSTM``, ``GRU`` and their cells,
built as aten's native CPU RNN (RNN.cpp) builds them: one step of each kind, a layer in one
direction over a padded or a packed sequence, and the stack of layers; and the stack of
layers of torch's oneDNN path for a float32 LSTM on the CPU (mkldnn/RNN.cpp), one node each.
"""

from __future__ import annotations

from ... import backends
from ...ops.nn.rnn_layer import mkldnn_rnn_layer
from ...ops.shape.unsafe_split import unsafe_chunk
from ...ops.shape.joining import cat, stack
from .. import functional as F

# ----------------------------------------------------------------------------- one time step
# ``x_proj`` is ``linear(x_t, w_ih, b_ih)``, computed before the step (for a whole sequence
# at once in the layers). Each step returns the new hidden state: a tensor, or (h, c).

def _tanh_step(x_proj, hx, w_hh, b_hh, w_hr=None):
    return (F.linear(hx, w_hh, b_hh) + x_proj).tanh()


def _relu_step(x_proj, hx, w_hh, b_hh, w_hr=None):
    return F.relu(F.linear(hx, w_hh, b_hh) + x_proj)


def _lstm_step(x_proj, hidden, w_hh, b_hh, w_hr=None):
    hx, cx = hidden
    in_gate, forget_gate, cell_gate, out_gate = unsafe_chunk(
        F.linear(hx, w_hh, b_hh) + x_proj, 4, 1)
    cy = forget_gate.sigmoid() * cx + in_gate.sigmoid() * cell_gate.tanh()
    hy = out_gate.sigmoid() * cy.tanh()
    return (hy if w_hr is None else F.linear(hy, w_hr)), cy


def _gru_step(x_proj, hx, w_hh, b_hh, w_hr=None):
    x_reset, x_update, x_new = unsafe_chunk(x_proj, 3, 1)
    h_reset, h_update, h_new = unsafe_chunk(F.linear(hx, w_hh, b_hh), 3, 1)
    reset_gate = (h_reset + x_reset).sigmoid()
    update_gate = (h_update + x_update).sigmoid()
    new_gate = (x_new + h_new * reset_gate).tanh()
    return (hx - new_gate) * update_gate + new_gate


_STEPS = {"RNN_TANH": _tanh_step, "RNN_RELU": _relu_step, "LSTM": _lstm_step, "GRU": _gru_step}


_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# ----------------------------------------------------------------------------- whole sequences

def _direction(input, hidden, weights: tuple, step, reverse: bool):
    """One layer in one direction over a (seq, batch, features) input: outputs, final state."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    steps = F.linear(input, w_ih, b_ih).unbind(0)
    outputs = []
    for x_proj in (reversed(steps) if reverse else steps):
        hidden = step(x_proj, hidden, w_hh, b_hh, w_hr)
        outputs.append(hidden[0] if isinstance(hidden, tuple) else hidden)
    if reverse:
        outputs.reverse()
    return stack(outputs, 0), hidden


# ----------------------------------------------------------------------------- packed sequences
# torch's PackedLayer and ReversedPackedLayer: the input projection of all rows is one
# ``linear``; step t runs on the ``batch_sizes[t]`` sequences still going. Forward, the
# hidden state loses the rows of the sequences that end (they are final states); backward,
# it starts with the shortest and gains rows (from the initial state) as sequences begin.

def _hidden_slice(hidden, start: int, end: int):
    if isinstance(hidden, tuple):
        return tuple(h.narrow(0, start, end - start) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _hidden_concat(hiddens: list):
    if isinstance(hiddens[0], tuple):
        return tuple(cat(list(parts), 0) for parts in zip(*hiddens))
    return cat(hiddens, 0)


def _packed_forward(x_proj, batch_sizes: list, hidden, step, weights: tuple):
    outputs, finals, offset, last = [], [], 0, batch_sizes[0]
    for size in batch_sizes:
        step_input = x_proj.narrow(0, offset, size)
        offset += size
        if size < last:   # the sequences that end here leave their final states
            finals.append(_hidden_slice(hidden, size, last))
            hidden = _hidden_slice(hidden, 0, size)
        last = size
        hidden = step(step_input, hidden, *weights)
        outputs.append(hidden[0] if isinstance(hidden, tuple) else hidden)
    finals.append(hidden)
    finals.reverse()
    return cat(outputs, 0), _hidden_concat(finals)


def _packed_reverse(x_proj, batch_sizes: list, initial, step, weights: tuple):
    outputs, offset, last = [], x_proj.size(0), batch_sizes[-1]
    hidden = _hidden_slice(initial, 0, last)
    for size in reversed(batch_sizes):
        if size > last:   # the sequences that begin here start from their initial states
            hidden = _hidden_concat([hidden, _hidden_slice(initial, last, size)])
        step_input = x_proj.narrow(0, offset - size, size)
        offset, last = offset - size, size
        hidden = step(step_input, hidden, *weights)
        outputs.append(hidden[0] if isinstance(hidden, tuple) else hidden)
    outputs.reverse()
    return cat(outputs, 0), hidden


def _packed_direction(data, hidden, weights: tuple, step, reverse: bool, batch_sizes: list):
    """One layer in one direction over packed rows: packed outputs, final state."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    run = _packed_reverse if reverse else _packed_forward
    return run(F.linear(data, w_ih, b_ih), batch_sizes, hidden, step, (w_hh, b_hh, w_hr))


def _run_layers(input, hiddens: list, weights: list, step, num_layers: int, dropout: float,
                train: bool, directions: int, direction=_direction):
    """torch's layer stack: dropout between layers (training only), final states in order."""
    finals = []
    for layer in range(num_layers):
        outputs = []
        for d in range(directions):
            k = layer * directions + d
            output, final = direction(input, hiddens[k], weights[k], step, reverse=d == 1)
            outputs.append(output)
            finals.append(final)
        input = outputs[0] if directions == 1 else cat(outputs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            input = F.dropout(input, dropout, training=True)
    return input, finals


# ----------------------------------------------------------------------------- oneDNN's LSTM

def uses_mkldnn(input, hidden: tuple, weights: list, proj_size: int) -> bool:
    """Whether torch's CPU build runs this LSTM through oneDNN (its ``use_mkldnn``): the flag
    on, float32, everything on the CPU, something to run, no projections. (torch also takes
    bfloat16 on CPUs with support for it; agdebug keeps the native graph there.)"""
    tensors = [input, *hidden, *(w for layer in weights for w in layer if w is not None)]
    return (backends.mkldnn.enabled and not proj_size and input.numel() != 0
            and input.dtype.name == "float32" and all(t.device.type == "cpu" for t in tensors))


def _mkldnn_layers(input, hidden: tuple, weights: list, hidden_size: int, num_layers: int,
                   dropout: float, train: bool, directions: int, batch_first: bool):
    """torch's ``mkldnn_rnn`` on a (seq, batch, features) input: each layer and direction one
    ``mkldnn_rnn_layer`` on the states ``hx[k]``, ``cx[k]``; final states stacked."""
    input = input.contiguous()
    hx, cx = hidden[0].contiguous(), hidden[1].contiguous()
    final_h, final_c = [], []
    for layer in range(num_layers):
        outputs = []
        for d in range(directions):
            k = layer * directions + d
            w_ih, w_hh, b_ih, b_hh, _ = weights[k]
            output, h, c, _ = mkldnn_rnn_layer(
                input, w_ih, w_hh, b_ih, b_hh, hx[k], cx[k], reverse=d == 1, batch_sizes=(),
                mode=2, hidden_size=hidden_size, num_layers=num_layers,
                has_biases=b_ih is not None, bidirectional=directions == 2,
                batch_first=batch_first, train=train)
            outputs.append(output)
            final_h.append(h)
            final_c.append(c)
        input = outputs[0] if directions == 1 else cat(outputs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            input = F.dropout(input, dropout, training=True)
    return input, (stack(final_h, 0), stack(final_c, 0))
