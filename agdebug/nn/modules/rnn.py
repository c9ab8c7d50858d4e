"""Recurrent layers: RNN, LSTM, GRU and their cells (RNNCell, LSTMCell, GRUCell).

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

from ... import creation
from ...ops.shape.joining import stack
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module
from .rnn_steps import (
    _GATES,
    _STEPS,
    _gru_step,
    _lstm_step,
    _mkldnn_layers,
    _packed_direction,
    _relu_step,
    _run_layers,
    _tanh_step,
    uses_mkldnn,
)

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]


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
        weights = self._layer_weights()
        if self.mode == "LSTM" and uses_mkldnn(input, hx, weights, self.proj_size):
            output, finals = _mkldnn_layers(input, hx, weights, self.hidden_size,
                                            self.num_layers, self.dropout, self.training,
                                            self._directions, self.batch_first)
            return (output.transpose(0, 1) if self.batch_first else output), finals
        if isinstance(hx, tuple):
            hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
        else:
            hiddens = list(hx.unbind(0))
        output, finals = _run_layers(input, hiddens, weights, _STEPS[self.mode],
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


class RNNCellBase(Module):
    """What the cells share: weight_ih, weight_hh, bias_ih, bias_hh, torch's init and the
    checks of the input and the hidden state."""

    _name = ""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(creation.empty(gates, input_size, device=device,
                                                  dtype=dtype))
        self.weight_hh = Parameter(creation.empty(gates, hidden_size, device=device,
                                                  dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(gates, device=device, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(gates, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _check_dims(self, input, hidden: tuple, labels: tuple) -> None:
        if input.dim() not in (1, 2):
            raise ValueError(f"{self._name}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")
        for h, label in zip(hidden, labels):
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{self._name}: Expected {label} to be 1D or 2D, got "
                                 f"{h.dim()}D instead")

    def _step(self, step, input, hx):
        """torch's ``_VF.<kind>_cell``: the checks, then one step on (batch, features)."""
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.weight_ih.size(1)}")
        for i, h in enumerate(hx if isinstance(hx, tuple) else (hx,)):
            label = i if isinstance(hx, tuple) else 0
            _check_cell_hidden(input, h, self.weight_hh.size(1), label)
        x_proj = F.linear(input, self.weight_ih, self.bias_ih)
        return step(x_proj, hx, self.weight_hh, self.bias_hh)

    def _zeros(self, input):
        return creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                              device=input.device)


def _check_cell_hidden(input, hx, hidden_size: int, label: int) -> None:
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} "
                           f"batch size {hx.size(0)}")
    if hx.size(1) != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, "
                           f"expected {hidden_size}")


class _SingleStateCell(RNNCellBase):
    """RNNCell's and GRUCell's forward: one hidden state tensor."""

    def _forward(self, step, input, hx):
        self._check_dims(input, (hx,), ("hidden",))
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = self._zeros(input)
        elif not batched:
            hx = hx.unsqueeze(0)
        result = self._step(step, input, hx)
        return result if batched else result.squeeze(0)


class RNNCell(_SingleStateCell):
    """An Elman RNN cell: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu).

    >>> import agdebug as ag
    >>> cell = ag.nn.RNNCell(10, 20)
    >>> tuple(cell(ag.randn(3, 10)).shape)
    (3, 20)
    """

    _name = "RNNCell"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """h' for an input of (N, H_in) or (H_in,); ``hx`` defaults to zeros."""
        steps = {"tanh": _tanh_step, "relu": _relu_step}
        if self.nonlinearity not in steps:   # torch checks it only here
            self._check_dims(input, (hx,), ("hidden",))
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._forward(steps[self.nonlinearity], input, hx)


class GRUCell(_SingleStateCell):
    """A gated recurrent unit cell.

    >>> import agdebug as ag
    >>> cell = ag.nn.GRUCell(10, 20)
    >>> tuple(cell(ag.randn(3, 10), ag.randn(3, 20)).shape)
    (3, 20)
    """

    _name = "GRUCell"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        """h' for an input of (N, H_in) or (H_in,); ``hx`` defaults to zeros."""
        return self._forward(_gru_step, input, hx)


class LSTMCell(RNNCellBase):
    """A long short-term memory cell: ``(h', c')`` from ``(h, c)``.

    >>> import agdebug as ag
    >>> cell = ag.nn.LSTMCell(10, 20)
    >>> h, c = cell(ag.randn(3, 10))
    >>> tuple(h.shape), tuple(c.shape)
    ((3, 20), (3, 20))
    """

    _name = "LSTMCell"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        """``(h', c')`` for an input of (N, H_in) or (H_in,); ``hx`` defaults to zeros."""
        hidden = tuple(hx) if hx is not None else ()
        self._check_dims(input, hidden, tuple(f"hx[{i}]" for i in range(len(hidden))))
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        if len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        h, c = self._step(_lstm_step, input, tuple(hx))
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))
