"""Recurrent cells: one time step of RNN, LSTM and GRU (RNNCell, LSTMCell, GRUCell), with
the same step functions, and so the same graph, as the layers in recurrent.py.
"""

from __future__ import annotations

import math

from .. import creation
from . import functional as F
from . import init
from .modules.module import Module
from .parameter import Parameter
from .modules.rnn import _gru_step, _lstm_step, _relu_step, _tanh_step

__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]


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
