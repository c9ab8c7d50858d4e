"""agdebug: a PyTorch-faithful autograd engine on NumPy/CuPy that you can watch.

>>> import agdebug as ag
>>> x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> y = (x.exp() * x).sum()
>>> y.backward()
>>> x.grad.shape
torch.Size([3])
"""

from __future__ import annotations

__version__ = "0.1.0"

from . import ops as _ops  # noqa: F401 - registers ops and Tensor methods first
from . import autograd, cuda, debug, distributions, nn, optim, utils
from . import gaps, special
from . import accelerator, amp, backends, distributed, onnx
from .amp import GradScaler, autocast
from .backend import (Device, bfloat16, bool_, complex64, complex128, device, dtype, float16,
                      float32, float64, int8, int16, int32, int64, uint8)
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       get_rng_state, initial_seed, linspace, manual_seed, ones, ones_like, rand,
                       rand_like, randint, randn, randn_like, seed, set_rng_state, tensor, zeros,
                       zeros_like)
from .generator import Generator, default_generator
from .legacy import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
                     IntTensor, LongTensor, ShortTensor, torch_range)
from .dtype_info import finfo, iinfo
from .native_functions import constant_pad_nd, frobenius_norm, nuclear_norm
from .window_functions import (bartlett_window, blackman_window, hamming_window, hann_window,
                               kaiser_window)
from .printing import set_printoptions
from .threads import (get_num_interop_threads, get_num_threads, set_num_interop_threads,
                      set_num_threads)
from .serialization import load, save
from . import serialization
from .functions import *  # noqa: F403 - torch-level functions (agdebug.exp, agdebug.cat...)
from .functions import __all__ as _function_names
from .nn.torch_level import FUNCTIONS as _nn_functions   # torch.conv2d, torch.dropout...
from .ops import _checked
from .graph.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                              is_inference_mode_enabled, no_grad, set_grad_enabled)
from .tensor import Size, Tensor
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled

globals().update({name: _checked(fn, name) for name, fn in _nn_functions.items()})
cuda.amp = amp.cuda_amp   # torch.cuda.amp (cuda sits below amp, so it cannot import it)
# Tensor.prelu and Tensor.hardshrink are torch.prelu and torch.hardshrink: their checks live in
# nn.functional, above the op layer that binds the other methods
Tensor.prelu, Tensor.hardshrink = globals()["prelu"], globals()["hardshrink"]
range = torch_range   # deprecated in torch (end included); Python's range stays above

# torch's constants (math's values; ``newaxis`` indexes as None does)
inf, nan, pi, e, newaxis = float("inf"), float("nan"), 3.141592653589793, 2.718281828459045, None

bool = bool_
float = float32
double = float64
half = float16
cfloat, cdouble = complex64, complex128
long = int64
int = int32
short = int16

__all__ = ["Tensor", "Size", "tensor", "autograd", "cuda", "debug", "accelerator", "amp",
           "autocast", "GradScaler", "backends",
           "distributed", "onnx", "inf", "nan", "pi", "e", "newaxis", "FloatTensor",
           "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
           "ByteTensor", "BoolTensor", "distributions", "nn",
           "optim", "special", "utils", "serialization", "save", "load", "no_grad",
           "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "device", "Device",
           "dtype", "bfloat16", "complex64", "complex128", "cfloat", "cdouble", "float16",
           "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "bool", "finfo", "iinfo", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty",
           "arange",
           "linspace", "eye", "rand", "randn", "randint", "zeros_like", "ones_like",
           "full_like", "empty_like", "rand_like", "randn_like", "manual_seed", "initial_seed",
           "seed", "get_rng_state", "set_rng_state", "Generator", "default_generator",
           "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_printoptions",
           "get_num_threads", "set_num_threads", "get_num_interop_threads",
           "set_num_interop_threads", "range", "short", "bartlett_window", "blackman_window",
           "hamming_window", "hann_window", "kaiser_window", "constant_pad_nd", "frobenius_norm",
           "nuclear_norm", *_function_names, *_nn_functions]


def __getattr__(name: str):
    """A name torch has and agdebug lacks says so (``agdebug.gaps``)."""
    raise gaps.missing("", "module 'agdebug'", name)
