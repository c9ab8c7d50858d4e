"""Convolution modules: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``, and their lazy forms
(``LazyConv1d``...), whose ``in_channels`` is the first input's.

>>> import agdebug as ag
>>> ag.nn.Conv2d(1, 2, 3)(ag.ones(1, 1, 5, 5)).shape
agdebug.Size([1, 2, 3, 3])
"""

from __future__ import annotations

import math

from ... import creation
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .linear import _reset_affine
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d"]


def _pair(v) -> tuple:
    return (v, v) if isinstance(v, int) else tuple(v)


def _single(v) -> tuple:
    return (v,) if isinstance(v, int) else tuple(v)


_PADDING_MODES = "{'replicate', 'zeros', 'reflect', 'circular'}"   # as torch prints its set


class _ConvBase(Module):
    """What every convolution module shares (torch's _ConvNd): the argument checks, the
    weight and bias with torch's initialisation. Subclasses differ in ``_tuple`` (how many
    spatial dims) and ``_conv`` (the function); private, so that ``isinstance(m,
    nn.Conv2d)`` is false for a Conv1d, as in torch."""

    _tuple = _conv = None

    def _setup(self, in_channels: int, out_channels: int, kernel_size, stride, padding,
               dilation, groups: int, bias: bool, padding_mode: str, transposed: bool,
               device, dtype) -> None:
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             "{'same', 'valid'}")
        if padding == "same" and any(s != 1 for s in self._tuple(stride)):
            raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = self._tuple(kernel_size), self._tuple(stride)
        self.padding = padding if isinstance(padding, str) else self._tuple(padding)
        self.dilation, self.padding_mode = self._tuple(dilation), padding_mode
        # torch's layout: (out, in / groups, *kernel), transposed (in, out / groups, *kernel)
        channels = (in_channels, out_channels // groups) if transposed else \
            (out_channels, in_channels // groups)
        self.weight = Parameter(creation.empty(channels + self.kernel_size, device=device,
                                               dtype=dtype))
        bias_t = creation.empty(out_channels, device=device, dtype=dtype) if bias else None
        self.bias = Parameter(bias_t) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # torch's fan-in is the weight's: its dim 1 times the kernel
        _reset_affine(self.weight, self.bias, self.weight.shape[1] * math.prod(self.kernel_size))

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != self._tuple(0):
            s += f", padding={self.padding}"
        for name, default in (("dilation", 1), ("output_padding", 0)):
            if getattr(self, name, self._tuple(default)) != self._tuple(default):
                s += f", {name}={getattr(self, name)}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _ConvNd(_ConvBase):
    """Conv1d and Conv2d: a padding mode other than zeros pads first, as torch does."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__()
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                    bias, padding_mode, False, device, dtype)

    def forward(self, input):
        if self.padding_mode == "zeros":
            return self._conv(input, self.weight, self.bias, self.stride, self.padding,
                              self.dilation, self.groups)
        padded = F.pad(input, self._reversed_padding_repeated_twice(), mode=self.padding_mode)
        return self._conv(padded, self.weight, self.bias, self.stride, self._tuple(0),
                          self.dilation, self.groups)

    def _reversed_padding_repeated_twice(self) -> list:
        """F.pad's (last dim first) form of the padding; 'same' puts any odd unit last."""
        pads = []
        for i in reversed(range(len(self.kernel_size))):
            if self.padding == "valid":
                left = right = 0
            elif self.padding == "same":
                total = self.dilation[i] * (self.kernel_size[i] - 1)
                left, right = total // 2, total - total // 2
            else:
                left = right = self.padding[i]
            pads += [left, right]
        return pads


class Conv1d(_ConvNd):
    """1D convolution over (N, C, L) signals (zero padding).

    >>> import agdebug as ag
    >>> conv = ag.nn.Conv1d(2, 4, 3, padding=1)
    >>> tuple(conv(ag.ones(5, 2, 8)).shape)
    (5, 4, 8)
    """

    _tuple = staticmethod(_single)
    _conv = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """2D convolution over (N, C, H, W) images (zero padding).

    >>> import agdebug as ag
    >>> conv = ag.nn.Conv2d(1, 4, 3, padding=1)
    >>> tuple(conv(ag.ones(2, 1, 8, 8)).shape)
    (2, 4, 8, 8)
    """

    _tuple = staticmethod(_pair)
    _conv = staticmethod(F.conv2d)


def _triple(v) -> tuple:
    return (v, v, v) if isinstance(v, int) else tuple(v)


class Conv3d(_ConvNd):
    """3D convolution over (N, C, D, H, W) volumes (or unbatched (C, D, H, W)).

    >>> import agdebug as ag
    >>> ag.nn.Conv3d(2, 3, (1, 2, 2)).weight.shape
    torch.Size([3, 2, 1, 2, 2])
    """

    _tuple = staticmethod(_triple)
    _conv = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvBase):
    """ConvTranspose1d and ConvTranspose2d: ``forward(input, output_size=None)``."""

    _dims = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        self.output_padding = self._tuple(output_padding)
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                    bias, padding_mode, True, device, dtype)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding,
                          output_padding, self.groups, self.dilation)

    def _output_padding(self, input, output_size) -> tuple:
        """torch's: the output_padding that gives ``output_size`` (spatial sizes, or with the
        batch and channel dims before them), within the sizes the stride allows."""
        if output_size is None:
            return self.output_padding
        dims = self._dims
        lead = 2 if input.dim() == dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == lead + dims:
            output_size = output_size[lead:]
        if len(output_size) != dims:
            raise ValueError(f"ConvTranspose{dims}D: for {input.dim()}D input, output_size must "
                             f"have {dims} or {lead + dims} elements (got {len(output_size)})")
        lows = [(input.shape[lead + d] - 1) * self.stride[d] - 2 * self.padding[d]
                + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(dims)]
        highs = [low + s - 1 for low, s in zip(lows, self.stride)]
        if any(not low <= size <= high for size, low, high in zip(output_size, lows, highs)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range "
                             f"from {lows} to {highs} (for an input of {input.shape[2:]!r})")
        return tuple(size - low for size, low in zip(output_size, lows))


class ConvTranspose1d(_ConvTransposeNd):
    """1D transposed convolution over (N, C, L) signals.

    >>> import agdebug as ag
    >>> tuple(ag.nn.ConvTranspose1d(2, 3, 4, stride=2)(ag.ones(5, 2, 8)).shape)
    (5, 3, 18)
    """

    _tuple = staticmethod(_single)
    _conv = staticmethod(F.conv_transpose1d)
    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2D transposed convolution over (N, C, H, W) images: each input pixel spreads over a
    kernel-sized patch of the output (the adjoint of Conv2d).

    >>> import agdebug as ag
    >>> up = ag.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
    >>> tuple(up(ag.ones(1, 4, 5, 5)).shape)
    (1, 2, 10, 10)
    """

    _tuple = staticmethod(_pair)
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3D transposed convolution over (N, C, D, H, W) volumes: the adjoint of Conv3d.

    >>> import agdebug as ag
    >>> up = ag.nn.ConvTranspose3d(2, 1, 2, stride=2)
    >>> tuple(up(ag.ones(1, 2, 3, 3, 3)).shape)
    (1, 1, 6, 6, 6)
    """

    _tuple = staticmethod(_triple)
    _conv = staticmethod(F.conv_transpose3d)
    _dims = 3


# ----------------------------------------------------------------------------- lazy forms

class _LazyConvXdMixin(LazyModuleMixin):
    """torch's: built with no channels and no tensors, then uninitialized ones; the first
    input's channel dim gives ``in_channels``."""

    _spatial = 1

    def _lazy_tensors(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            channels = (self.in_channels, self.out_channels // self.groups) if self._transposed \
                else (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(channels + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        no_batch = self._spatial + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) "
                               f"input to {self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]


class _LazyConvNd(_LazyConvXdMixin):
    """LazyConv1d/2d/3d: torch's arguments but ``in_channels``."""

    _transposed = False

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # (bias False: no tensor made only to be replaced)
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._lazy_tensors(out_channels, bias, device, dtype)


class _LazyConvTransposeNd(_LazyConvXdMixin):
    """LazyConvTranspose1d/2d/3d: torch's arguments but ``in_channels``."""

    _transposed = True

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device, dtype)
        self._lazy_tensors(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    """A Conv1d whose ``in_channels`` is the first input's channel count."""

    cls_to_become, _spatial = Conv1d, 1


class LazyConv2d(_LazyConvNd, Conv2d):
    """A Conv2d whose ``in_channels`` is the first input's channel count.

    >>> import agdebug as ag
    >>> conv = ag.nn.LazyConv2d(4, 3)
    >>> _ = conv(ag.ones(1, 2, 5, 5))
    >>> conv
    Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1))
    """

    cls_to_become, _spatial = Conv2d, 2


class LazyConv3d(_LazyConvNd, Conv3d):
    """A Conv3d whose ``in_channels`` is the first input's channel count."""

    cls_to_become, _spatial = Conv3d, 3


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """A ConvTranspose1d whose ``in_channels`` is the first input's channel count."""

    cls_to_become, _spatial = ConvTranspose1d, 1


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """A ConvTranspose2d whose ``in_channels`` is the first input's channel count."""

    cls_to_become, _spatial = ConvTranspose2d, 2


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """A ConvTranspose3d whose ``in_channels`` is the first input's channel count."""

    cls_to_become, _spatial = ConvTranspose3d, 3
