"""Recurrent layers: RNN, LSTM and GRU (their cells are in rnn_cells.py).

They are built from agdebug ops the way torch's native CPU implementation (aten's RNN.cpp,
the path without cuDNN or oneDNN) builds them, so the recorded graph has torch's nodes: the
input projection of a whole sequence is one ``linear`` (``ViewBackward0`` of
``AddmmBackward0``) cut by ``unbind``; each step adds ``linear(h, w_hh, b_hh)`` to its slice,
LSTM and GRU cut their gates with ``unsafe_chunk``; a direction's outputs are ``stack``-ed,
two directions are ``cat``-ed, and the final states of all layers are ``stack``-ed.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings

from .. import creation
from ..ops.shape.unsafe_split import unsafe_chunk
from ..ops.shape.joining import cat, stack
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence

__all__ = ["GRU", "LSTM", "RNN", "RNNBase"]


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


# ----------------------------------------------------------------------------- modules

class RNNBase(Module):
    """What RNN, LSTM and GRU share: torch's parameters (names, shapes, order, init) and the
    checks of the input and the hidden state."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        _check_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         proj_size)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                self._add_layer(layer, "_reverse" if direction else "", device, dtype)
        self.reset_parameters()

    def _add_layer(self, layer: int, suffix: str, device, dtype) -> None:
        gate_size = _GATES[self.mode] * self.hidden_size
        real_hidden = self.proj_size or self.hidden_size
        input_size = self.input_size if layer == 0 else real_hidden * self._directions
        shapes = {"weight_ih": (gate_size, input_size), "weight_hh": (gate_size, real_hidden)}
        if self.bias:
            shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
        if self.proj_size:
            shapes["weight_hr"] = (self.proj_size, self.hidden_size)
        names = []
        for kind, shape in shapes.items():
            names.append(f"{kind}_l{layer}{suffix}")
            setattr(self, names[-1], Parameter(creation.empty(shape, device=device,
                                                              dtype=dtype)))
        self._flat_weights_names.extend(names)
        self._all_weights.append(names)

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters of each layer and direction, as lists."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: torch packs the weights for cuDNN only."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _layer_weights(self) -> list:
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of each layer and direction, None where absent."""
        kinds = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        return [tuple(getattr(self, f"{kind}_l{layer}{suffix}", None) for kind in kinds)
                for layer in range(self.num_layers)
                for suffix in ("", "_reverse")[:self._directions]]

    def check_input(self, input, batch_sizes=None) -> None:
        weight_dtype = self.weight_ih_l0.dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes=None) -> tuple:
        mini_batch = _mini_batch(self, input, batch_sizes)
        return (self.num_layers * self._directions, mini_batch,
                self.proj_size or self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size: tuple,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def _sequence(self, input, hx):
        """Run the layers on a batched input and its full hidden state (torch's ``_VF`` call)."""
        if self.batch_first:
            input = input.transpose(0, 1)
        if input.size(0) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        if isinstance(hx, tuple):
            hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
        else:
            hiddens = list(hx.unbind(0))
        output, finals = _run_layers(input, hiddens, self._layer_weights(), _STEPS[self.mode],
                                     self.num_layers, self.dropout, self.training,
                                     self._directions)
        if self.batch_first:   # torch: LSTM transposes (a view), RNN and GRU transpose_
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        if isinstance(hx, tuple):
            return output, (stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0))
        return output, stack(finals, 0)

    def permute_hidden(self, hx, permutation):
        """``hx`` with its batch dim reordered by ``permutation`` (None: as it is)."""
        if permutation is None:
            return hx
        if isinstance(hx, tuple):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def _forward_packed(self, packed, hx):
        """torch's forward for a PackedSequence: a PackedSequence out, with the final states
        of each sequence (at its own length) in the caller's order."""
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = [int(s) for s in batch_sizes.tolist()]
        if hx is None:
            zeros = creation.zeros(self.num_layers * self._directions, sizes[0],
                                   self.proj_size or self.hidden_size, dtype=data.dtype,
                                   device=data.device)
            hx = zeros if self.mode != "LSTM" else (zeros, creation.zeros(
                self.num_layers * self._directions, sizes[0], self.hidden_size,
                dtype=data.dtype, device=data.device))
        else:
            hx = self.permute_hidden(tuple(hx) if self.mode == "LSTM" else hx, sorted_indices)
        if self.mode != "LSTM":   # torch's LSTM leaves a packed input to its kernel's checks
            self.check_forward_args(data, hx, batch_sizes)
        if isinstance(hx, tuple):
            hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
        else:
            hiddens = list(hx.unbind(0))
        direction = functools.partial(_packed_direction, batch_sizes=sizes)
        output, finals = _run_layers(data, hiddens, self._layer_weights(), _STEPS[self.mode],
                                     self.num_layers, self.dropout, self.training,
                                     self._directions, direction)
        if isinstance(hx, tuple):
            hidden = (stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0))
        else:
            hidden = stack(finals, 0)
        output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return output, self.permute_hidden(hidden, unsorted_indices)

    def _zeros(self, input, size: int):
        batch = input.size(0) if self.batch_first else input.size(1)
        return creation.zeros(self.num_layers * self._directions, batch, size,
                              dtype=input.dtype, device=input.device)

    def _forward_single_state(self, input, hx):
        """RNN's and GRU's forward: one hidden state tensor."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        if input.dim() not in (2, 3):
            suffix = " tensor" if name == "RNN" else ""
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{suffix} instead")
        batched, batch_dim = input.dim() == 3, 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                       f"{hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx)
        output, hidden = self._sequence(input, hx)
        if not batched:
            output, hidden = output.squeeze(batch_dim), hidden.squeeze(1)
        return output, hidden

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _mini_batch(rnn, input, batch_sizes) -> int:
    if batch_sizes is not None:
        return int(batch_sizes[0])
    return input.size(0) if rnn.batch_first else input.size(1)


def _check_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                     proj_size) -> None:
    """torch's checks of the constructor's arguments, in torch's order."""
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
            isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _refuse_proj_size(kwargs: dict, cls: str) -> None:
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(f"{cls}.__init__() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")


class RNN(RNNBase):
    """A multi-layer Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh).

    >>> import agdebug as ag
    >>> rnn = ag.nn.RNN(10, 20, 2)
    >>> output, h_n = rnn(ag.randn(5, 3, 10), ag.randn(2, 3, 20))
    >>> tuple(output.shape), tuple(h_n.shape)
    ((5, 3, 20), (2, 3, 20))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device=None, dtype=None,
                 **kwargs):
        _refuse_proj_size(kwargs, "RNN")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__(f"RNN_{nonlinearity.upper()}", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """``(output, h_n)`` for an input of (L, N, H_in) (N, L, H_in with batch_first) or
        (L, H_in) unbatched."""
        return self._forward_single_state(input, hx)


class GRU(RNNBase):
    """A multi-layer gated recurrent unit RNN.

    >>> import agdebug as ag
    >>> gru = ag.nn.GRU(10, 20, batch_first=True)
    >>> output, h_n = gru(ag.randn(3, 5, 10))
    >>> tuple(output.shape), tuple(h_n.shape)
    ((3, 5, 20), (1, 3, 20))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None, **kwargs):
        _refuse_proj_size(kwargs, "GRU")
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)

    def forward(self, input, hx=None):
        """``(output, h_n)``, shaped as for :class:`RNN`."""
        return self._forward_single_state(input, hx)


class LSTM(RNNBase):
    """A multi-layer long short-term memory RNN, with an optional projection of h
    (``proj_size``).

    >>> import agdebug as ag
    >>> lstm = ag.nn.LSTM(10, 20, 2)
    >>> output, (h_n, c_n) = lstm(ag.randn(5, 3, 10))
    >>> tuple(output.shape), tuple(h_n.shape), tuple(c_n.shape)
    ((5, 3, 20), (2, 3, 20), (2, 3, 20))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)

    def get_expected_cell_size(self, input, batch_sizes=None) -> tuple:
        mini_batch = _mini_batch(self, input, batch_sizes)
        return (self.num_layers * self._directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def forward(self, input, hx=None):
        """``(output, (h_n, c_n))``; ``hx`` is ``(h_0, c_0)`` or None (zeros)."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched, batch_dim = input.dim() == 3, 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            hx = (self._zeros(input, self.proj_size or self.hidden_size),
                  self._zeros(input, self.hidden_size))
        else:
            hx = self._batched_state(hx, batched)
        self.check_forward_args(input, hx)
        output, (h_n, c_n) = self._sequence(input, hx)
        if not batched:
            output, h_n, c_n = output.squeeze(batch_dim), h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)

    @staticmethod
    def _batched_state(hx, batched: bool) -> tuple:
        want = 3 if batched else 2
        if hx[0].dim() != want or hx[1].dim() != want:
            kind = "batched 3-D" if batched else "unbatched 2-D"
            raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                               f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        return tuple(hx) if batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
