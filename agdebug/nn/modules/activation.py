"""Layers: Linear, Conv2d, activations, containers, Flatten, Dropout, pooling."""

from __future__ import annotations

import math
import operator
from collections import OrderedDict

from ... import creation
from ...graph.grad_mode import no_grad
from .. import functional as F
from .. import init
from .module import Module
from ..parameter import Parameter

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "CELU", "Conv1d", "Conv2d",
    "ConvTranspose1d", "ConvTranspose2d", "CosineSimilarity", "Dropout", "ELU", "Embedding",
    "Flatten", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "Identity",
    "LeakyReLU", "Linear", "LogSigmoid",
    "LogSoftmax", "MaxPool1d", "MaxPool2d", "Mish", "ModuleList", "PairwiseDistance", "PReLU",
    "ReLU", "ReLU6", "RReLU", "SELU", "Sequential", "Sigmoid", "SiLU", "Softmax", "Softmin",
    "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold", "Unflatten",
]


def _reset_affine(weight, bias, fan_in: int) -> None:
    """torch's default for Linear and Conv2d: kaiming_uniform_(a=sqrt(5)), bias U(+-bound)."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features).

    >>> import agdebug as ag
    >>> layer = ag.nn.Linear(3, 2)
    >>> tuple(layer(ag.ones(4, 3)).shape)
    (4, 2)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(creation.empty(out_features, in_features, device=device,
                                               dtype=dtype))
        bias_t = creation.empty(out_features, device=device, dtype=dtype) if bias else None
        self.bias = Parameter(bias_t) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self.weight, self.bias, self.in_features)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


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


class Conv2d(_ConvNd):
    """2D convolution over (N, C, H, W) images (zero padding).

    >>> import agdebug as ag
    >>> conv = ag.nn.Conv2d(1, 4, 3, padding=1)
    >>> tuple(conv(ag.ones(2, 1, 8, 8)).shape)
    (2, 4, 8, 8)
    """

    _tuple = staticmethod(_pair)
    _conv = staticmethod(F.conv2d)


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


class ConvTranspose1d(_ConvTransposeNd):
    """1D transposed convolution over (N, C, L) signals.

    >>> import agdebug as ag
    >>> tuple(ag.nn.ConvTranspose1d(2, 3, 4, stride=2)(ag.ones(5, 2, 8)).shape)
    (5, 3, 18)
    """

    _tuple = staticmethod(_single)
    _conv = staticmethod(F.conv_transpose1d)
    _dims = 1


# ----------------------------------------------------------------------------- activations

class ReLU(Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class SiLU(Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    def forward(self, input):
        return F.sigmoid(input)


class _AlongDim(Module):
    """Softmax, LogSoftmax and Softmin: ``_function(input, dim)``. Siblings, not subclasses
    of each other, as in torch (``isinstance(m, nn.Softmax)`` is false for the others)."""

    _function = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return self._function(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_AlongDim):
    _function = staticmethod(F.softmax)


class LogSoftmax(_AlongDim):
    _function = staticmethod(F.log_softmax)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


# ----------------------------------------------------------------------------- containers

class _NumberedModules(Module):
    """What Sequential and ModuleList share: submodules named 0, 1, 2... that are set and
    deleted by position (deleting renumbers the rest, as torch does)."""

    def __setitem__(self, idx: int, module) -> None:
        setattr(self, _key_at(self._modules, idx), module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)[idx] if isinstance(idx, slice) else \
            [_key_at(self._modules, idx)]
        for key in keys:
            delattr(self, key)
        _renumber(self._modules)


class Sequential(_NumberedModules):
    """Modules applied in order; indexed, sliced, edited and combined as a list.

    >>> import agdebug as ag
    >>> net = ag.nn.Sequential(ag.nn.Linear(2, 4), ag.nn.ReLU(), ag.nn.Linear(4, 1))
    >>> len(net), tuple(net(ag.ones(3, 2)).shape)
    (3, (3, 1))
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[_key_at(self._modules, idx)]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __add__(self, other):
        _check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other):
        _check_sequential(other)
        return self.extend(other)

    def __mul__(self, other: int):
        _check_factor(self, other)
        return Sequential(*(list(self) * other))

    __rmul__ = __mul__

    def __imul__(self, other: int):
        _check_factor(self, other)
        return self.extend(list(self) * (other - 1))

    def append(self, module):
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module):
        """Put ``module`` before position ``index`` (negative counts from the end)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        _insert(self._modules, index + n if index < 0 else index, module)
        return self

    def extend(self, sequential):
        """Append each module of ``sequential`` (any iterable of modules)."""
        for module in sequential:
            self.append(module)
        return self

    def pop(self, key):
        """Remove the module (or the Sequential of a slice) at ``key`` and return it."""
        value = self[key]
        del self[key]
        return value

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


def _key_at(modules: dict, idx) -> str:
    """The key of the entry at position ``idx`` (negative counts from the end)."""
    idx = operator.index(idx)
    if not -len(modules) <= idx < len(modules):
        raise IndexError(f"index {idx} is out of range")
    return list(modules)[idx]


def _renumber(modules: dict) -> None:
    """Keys back to 0, 1, 2... after a deletion, as torch renumbers them (names are lost)."""
    values = list(modules.values())
    modules.clear()
    modules.update((str(i), m) for i, m in enumerate(values))


def _insert(modules: dict, index: int, module) -> None:
    """torch's insert: entries from ``index`` move up one number, keys included."""
    for i in range(len(modules), index, -1):
        modules[str(i)] = modules[str(i - 1)]
    modules[str(index)] = module


def _check_sequential(other) -> None:
    if not isinstance(other, Sequential):
        raise ValueError("add operator supports only objects of Sequential class, but "
                         f"{type(other)} is given.")


def _check_factor(seq, other) -> None:
    if not isinstance(other, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(seq)} and {type(other)}")
    if other <= 0:
        raise ValueError(f"Non-positive multiplication factor {other} for {type(seq)}")


class ModuleList(_NumberedModules):
    """A list of modules, registered so their parameters are found.

    >>> import agdebug as ag
    >>> layers = ag.nn.ModuleList([ag.nn.Linear(2, 2) for _ in range(3)])
    >>> del layers[0]
    >>> len(layers), [name for name, _ in layers.named_parameters()][:2]
    (2, ['0.weight', '0.bias'])
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[_key_at(self._modules, idx)]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList([*self, *other])

    def __repr__(self) -> str:
        """torch's: a run of equal entries is shown once, as ``(i-j): n x <module>``; a
        subclass shows its own name."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines, start = [], 0
        for i in range(1, len(reprs) + 1):
            if i == len(reprs) or reprs[i] != reprs[start]:
                label = f"({start})" if i - 1 == start else \
                    f"({start}-{i - 1}): {i - start} x"
                lines.append(f"{label}{':' if i - 1 == start else ''} "
                             + reprs[start].replace("\n", "\n  "))
                start = i
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def append(self, module):
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module) -> None:
        """Put ``module`` before position ``index``."""
        _insert(self._modules, index, module)

    def extend(self, modules):
        """Append each module of an iterable."""
        if not hasattr(modules, "__iter__"):   # collections.abc.Iterable's own test
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            f"{type(modules).__name__}")
        for module in list(modules):
            self.append(module)
        return self

    def pop(self, key):
        """Remove the module (or the ModuleList of a slice) at ``key`` and return it."""
        value = self[key]
        del self[key]
        return value


# ----------------------------------------------------------------------------- reshaping & co

class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        shape = tuple(input.shape)
        if not shape:
            return input.reshape(1)
        start, end = self.start_dim % len(shape), self.end_dim % len(shape)
        return input.reshape(shape[:start] + (-1,) + shape[end + 1:])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Dropout(Module):
    """Zeroes elements with probability ``p`` in training mode; the identity in eval mode."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _MaxPoolNd(Module):
    """MaxPool1d's and MaxPool2d's arguments (torch's _MaxPoolNd); ``_pool`` is the function."""

    _pool = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    _pool = staticmethod(F.max_pool2d)


class _AvgPoolNd(Module):
    """What AvgPool2d and AvgPool3d share (torch's _AvgPoolNd): they differ in ``_pool``."""

    _pool = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    _pool = staticmethod(F.avg_pool2d)


# ----------------------------------------------------------------------------- embedding

class Embedding(Module):
    """A lookup table: ``num_embeddings`` rows of size ``embedding_dim``, indexed by integers.

    The weight starts N(0, 1) with the ``padding_idx`` row zeroed; that row gets no gradient.

    >>> import agdebug as ag
    >>> emb = ag.nn.Embedding(10, 3, padding_idx=0)
    >>> tuple(emb(ag.tensor([[1, 0], [4, 9]])).shape)
    (2, 2, 3)
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight=None, _freeze: bool = False, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = F._padding_index(padding_idx, num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(creation.empty(num_embeddings, embedding_dim, device=device,
                                                   dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False):
        """An Embedding whose weight is ``embeddings`` (frozen unless ``freeze=False``)."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)


# ----------------------------------------------------------------------------- 1D and adaptive

class Conv1d(_ConvNd):
    """1D convolution over (N, C, L) signals (zero padding).

    >>> import agdebug as ag
    >>> conv = ag.nn.Conv1d(2, 4, 3, padding=1)
    >>> tuple(conv(ag.ones(5, 2, 8)).shape)
    (5, 4, 8)
    """

    _tuple = staticmethod(_single)
    _conv = staticmethod(F.conv1d)


class MaxPool1d(_MaxPoolNd):
    """The maximum of each window of (N, C, L) signals."""

    _pool = staticmethod(F.max_pool1d)


class AvgPool1d(Module):
    """The mean of each window of (N, C, L) signals."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding, self.ceil_mode = _single(padding), ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptiveAvgPoolNd(Module):
    _pool = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return self._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, L) signals to a fixed ``output_size``."""

    _pool = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling of images to a fixed ``output_size`` (None keeps an input size).

    >>> import agdebug as ag
    >>> ag.nn.AdaptiveAvgPool2d((1, 1))(ag.ones(2, 3, 5, 5)).shape
    torch.Size([2, 3, 1, 1])
    """

    _pool = staticmethod(F.adaptive_avg_pool2d)


# ============================================================================= more activations
# and helpers of torch.nn (thin wrappers that hold the options of nn.functional)

def _inplace_repr(s: str, inplace: bool) -> str:
    return s + (", inplace=True" if inplace and s else "inplace=True" if inplace else "")


class Hardtanh(Module):
    """Clamp to [min_val, max_val].

    >>> import agdebug as ag
    >>> ag.nn.Hardtanh()(ag.tensor([-2.0, 0.5]))
    tensor([-1.0000,  0.5000])
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__()
        if not max_val > min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(f"min_val={self.min_val}, max_val={self.max_val}", self.inplace)


class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class _Plain(Module):
    """An activation without options."""
    fn = None

    def forward(self, input):
        return type(self).fn(input)


class Softsign(_Plain):
    fn = staticmethod(F.softsign)


class LogSigmoid(_Plain):
    fn = staticmethod(F.logsigmoid)


class Tanhshrink(_Plain):
    fn = staticmethod(F.tanhshrink)


class _Inplace(Module):
    """An activation whose only option is ``inplace``."""
    fn = None

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self).fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class SELU(_Inplace):
    fn = staticmethod(F.selu)


class Hardswish(_Inplace):
    fn = staticmethod(F.hardswish)


class Hardsigmoid(_Inplace):
    fn = staticmethod(F.hardsigmoid)


class Mish(_Inplace):
    fn = staticmethod(F.mish)


class CELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(f"alpha={self.alpha}", self.inplace)


class Softmin(_AlongDim):
    _function = staticmethod(F.softmin)


class GLU(Module):
    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(f"threshold={self.threshold}, value={self.value}", self.inplace)


class _Shrink(Module):
    _function = None

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return self._function(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_Shrink):
    _function = staticmethod(F.softshrink)


class Hardshrink(_Shrink):
    _function = staticmethod(F.hardshrink)


class PReLU(Module):
    """x where x > 0, else a learned slope times x (one slope, or one per channel).

    >>> import agdebug as ag
    >>> act = ag.nn.PReLU()
    >>> act(ag.tensor([-4.0, 2.0]))
    tensor([-1.,  2.], grad_fn=<PreluKernelBackward0>)
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """leaky_relu with random slopes in training, their mean (lower + upper) / 2 in eval."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(f"lower={self.lower}, upper={self.upper}", self.inplace)


class Unflatten(Module):
    """Expand dim ``dim`` into ``unflattened_size``.

    >>> import agdebug as ag
    >>> tuple(ag.nn.Unflatten(1, (2, 3))(ag.ones(4, 6)).shape)
    (4, 2, 3)
    """

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        shape = tuple(input.shape)
        dim = self.dim % len(shape) if shape else 0
        return input.view(shape[:dim] + self.unflattened_size + shape[dim + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class CosineSimilarity(Module):
    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
