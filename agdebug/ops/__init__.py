"""The op registry and the Tensor methods bound to it.

Importing this package registers every op (``OPS``) and installs torch's
Tensor methods and operators on ``Tensor``.
"""

from __future__ import annotations

import inspect
import warnings

from ..tensor import Tensor
from .core import arguments
from .pointwise import activations as act, arithmetic as ar, comparison as cmp, copying as cp
from .pointwise import unary as un
from .tensor_methods import inplace, operators as m, views
# Every op module is imported here, so importing this package registers every op. The order
# is the one that resolves their imports of each other (linalg before the in-place methods).
from .linalg import bilinear, decompositions, products as linalg, vdot
from .indexing import gather_scatter, index_put, scatter_reduce, sorting
from .nn import (activations, fold, loss_pieces, normalization, rnn_layer, softmax,
                 weight_norm)
from .tensor_methods import (aliases, conversion, factory, inplace_variants, memory,
                             method_functions, real_views, refused, removed, torch_functions)
from .random import fills as random_fills
from .shape import as_strided, packing, unsafe_split, views_copies as shape
from .reduction import order_statistics, quantile, renorm, signatures as reductions, statistics
from .pointwise import signatures as pointwise, special
from .nn import (affine_grid, attention, convolution_transpose,  # noqa: F401 - register ops
                 convolution_volumetric, ctc, embedding_bag, grid_sample, margin_losses,
                 pooling_adaptive_max, pooling_volumetric, upsample)
from .nn import convolution, embedding, loss, pooling  # noqa: F401 - register ops
from .nn import pooling_fractional  # noqa: F401 - register ops
from .tensor_methods import device  # noqa: F401 - register ops
from .core import inplace_views  # noqa: F401 - register ops
from .linalg import matrix_functions
from .shape import copy_variants
from .indexing import scatter_views
from .pointwise import shifts
from .core.registry import OPS, Op, defop
from .core.inplace import apply_inplace

__all__ = ["OPS", "Op", "defop", "apply_inplace", "install"]

# torch computes log(0), 0/0, sqrt(-1)... silently (inf and nan are the answers); NumPy
# warns. Silence NumPy's RuntimeWarnings raised from the op modules only, at no cost per op
# (an errstate block per op would cost more than the op).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"agdebug\.ops(\.|$)")


def _method(op):
    def method(self, *args, **kwargs):
        try:
            return op(self, *args, **kwargs)
        except TypeError as error:   # (free in Python 3.11 until raised)
            if not hasattr(error, "method_words"):
                raise
            raise TypeError(error.method_words) from None   # positions after ``self``
    method.__name__ = op.name
    return method


def _unary_method(op):
    # ``x.tanh()`` is hot: without ``*args`` the call costs half as much (no argument
    # packing and unpacking). torch's unary methods take keywords only (``decimals=``).
    def method(self, **kwargs):
        return op(self, **kwargs) if kwargs else op(self)
    method.__name__, method.__qualname__ = op.name, f"Tensor.{op.name}"   # named in errors
    return method


def _compare(op):
    def method(self, other):
        try:
            other = m.operand(other)
        except TypeError:
            return NotImplemented   # ``x == None`` is False, as in torch
        return op(self, other)
    return method


def _to(self, *args, **kwargs):
    if not kwargs and len(args) == 1 and args[0] is self.device:
        # ``t.to(device)`` where t already is (each batch of a training loop, twice per
        # gradient in clip_grad_norm_): ``self``, as ``to`` gives it, without its parsing.
        # (Devices are interned: a tensor's own is the one object for its device.)
        return self
    from .tensor_methods.conversion import to
    return to(self, *args, **kwargs)


def install() -> None:
    """Bind operators and methods onto Tensor (called once, on import)."""
    add, radd = m._binary(ar.add)
    sub, rsub = m._binary(ar.sub, lambda s, o: ar.rsub(s, o))
    mul, rmul = m._binary(ar.mul)
    bit_and, bit_or, bit_xor = (m.bitwise_operator(op)
                                for op in (cmp.bitwise_and, cmp.bitwise_or, cmp.bitwise_xor))
    bit_and_, bit_or_, bit_xor_ = (m.bitwise_inplace(op)
                                   for op in (cmp.bitwise_and, cmp.bitwise_or, cmp.bitwise_xor))
    table = {
        "__add__": add, "__radd__": radd, "__sub__": sub, "__rsub__": rsub,
        "__mul__": mul, "__rmul__": rmul,
        "__truediv__": lambda s, o: ar.div(s, m.operand(o)), "__rtruediv__": m.true_div_r,
        "__pow__": lambda s, o: m.pow(s, o),
        "__rpow__": lambda s, o: ar.rpow(s, base=m.operand(o)),
        "__neg__": ar.neg, "__abs__": un.abs_, "__pos__": lambda s: s,
        "__iadd__": inplace.add_, "__isub__": inplace.sub_,
        "__imul__": inplace.inplace(ar.mul),
        "__itruediv__": inplace.div_,
        "__eq__": _compare(cmp.eq), "__ne__": _compare(cmp.ne), "__lt__": _compare(cmp.lt),
        "__le__": _compare(cmp.le), "__gt__": _compare(cmp.gt), "__ge__": _compare(cmp.ge),
        # bitwise ops: logical on bool tensors, bitwise on integers, as in torch
        "__and__": bit_and, "__or__": bit_or, "__xor__": bit_xor,
        "__rand__": bit_and, "__ror__": bit_or, "__rxor__": bit_xor, "__invert__": m.invert,
        "__iand__": bit_and_, "__ior__": bit_or_, "__ixor__": bit_xor_,
        "bitwise_and": lambda s, o: cmp.bitwise_and(s, m.operand(o)),
        "bitwise_or": lambda s, o: cmp.bitwise_or(s, m.operand(o)),
        "bitwise_xor": lambda s, o: cmp.bitwise_xor(s, m.operand(o)),
        "bitwise_not": cmp.bitwise_not,
        "bitwise_and_": bit_and_, "bitwise_or_": bit_or_, "bitwise_xor_": bit_xor_,
        "bitwise_not_": inplace.inplace(cmp.bitwise_not),
        "__floordiv__": lambda s, o: ar.floor_divide(s, m.operand(o)),
        "__rfloordiv__": lambda s, o: ar.floor_divide(m.operand(o), s),
        "__mod__": lambda s, o: m.remainder(s, o),
        "__rmod__": lambda s, o: m.remainder(o, s),
        "floor_divide": m.floor_divide,
        "remainder": lambda s, o: m.remainder(s, o),
        "add": m.add, "sub": m.sub, "mul": m.mul, "div": m.div, "pow": m.pow,
        "true_divide": m.div, "multiply": m.mul, "subtract": m.sub, "divide": m.div,
        "neg": ar.neg, "negative": ar.neg, "reciprocal": ar.reciprocal,
        "square": lambda s: ar.pow_scalar(s, exponent=2),
        "eq": lambda s, o: cmp.eq(s, m.operand(o)), "ne": lambda s, o: cmp.ne(s, m.operand(o)),
        "lt": lambda s, o: cmp.lt(s, m.operand(o)), "le": lambda s, o: cmp.le(s, m.operand(o)),
        "gt": lambda s, o: cmp.gt(s, m.operand(o)), "ge": lambda s, o: cmp.ge(s, m.operand(o)),
        "logical_and": m.logical_and_method, "logical_or": m.logical_or_method,
        "logical_xor": m.logical_xor_method, "logical_not": cmp.logical_not,
        "atan2": m.atan2_method, "round": m.round_,
        "isnan": cmp.isnan, "isinf": cmp.isinf, "isfinite": cmp.isfinite,
        "maximum": m.maximum, "minimum": m.minimum, "clamp": m.clamp, "clip": m.clamp,
        "where": lambda s, cond, other: m.where(cond, s, other),
        "sum": m.sum, "mean": m.mean, "sum_to_size": m.sum_to_size,
        "view": views.view, "reshape": views.reshape, "expand": views.expand,
        "expand_as": views.expand_as,
        "view_as": lambda s, o: views.view(s, o.shape),
        "reshape_as": lambda s, o: views.reshape(s, o.shape),
        "clone": lambda s, *, memory_format=None: cp.clone(s),
        "to": _to,
        "add_": inplace.add_, "sub_": inplace.sub_, "mul_": inplace.inplace(ar.mul),
        "div_": inplace.div_, "clamp_": inplace.clamp_, "clip_": inplace.clamp_,
        "zero_": inplace.inplace(cp.zero),
        "fill_": lambda s, value: m.apply_inplace(cp.fill, s, (), {"value": value}),
        "copy_": inplace.copy_,
        "relu_": inplace.inplace(act.relu), "sigmoid_": inplace.inplace(un.sigmoid),
        "tanh_": inplace.inplace(un.tanh), "exp_": inplace.inplace(un.exp),
        "neg_": inplace.inplace(ar.neg),
        "pow_": lambda s, e: m.apply_inplace(ar.pow_scalar, s, (), {"exponent": e}),
    }
    unary = {"exp": un.exp, "expm1": un.expm1, "log": un.log, "log2": un.log2,
             "log1p": un.log1p, "sqrt": un.sqrt, "rsqrt": un.rsqrt, "abs": un.abs_,
             "absolute": un.abs_, "sign": un.sign, "floor": un.floor,
             "sin": un.sin, "cos": un.cos, "tan": un.tan, "tanh": un.tanh,
             "sigmoid": un.sigmoid, "relu": act.relu, "erf": act.erf_op}
    for name, op in unary.items():
        table[name] = _unary_method(op)
    for name in _OPERATORS:
        table[name] = m.operator(table[name])
    checked = set(_CHECKED_METHODS)
    for module in _OP_MODULES:
        table.update(getattr(module, "METHODS", {}))
        checked.update(getattr(module, "METHODS", {}))
    for name, fn in table.items():
        if isinstance(fn, Op):
            fn = _method(fn)
        elif name in checked and _checks(fn, name):
            fn = arguments.torch_method(fn, name)
        setattr(Tensor, name, fn)


# Operators that return NotImplemented for a non-operand (+, -, * do it in _binary).
_OPERATORS = ("__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__floordiv__",
              "__rfloordiv__", "__mod__", "__rmod__")
# Methods given torch's words for a wrong argument by a wrapper (see core/arguments.py): the op
# modules' methods and these. Not the operators and hot methods above (a wrapper frame
# costs a call), nor those that warn with a ``stacklevel`` (a wrapper frame would shift the
# line it names: scatter's ``reduce=``, var's degrees of freedom).
_CHECKED_METHODS = frozenset({"sum", "mean"})
# Functions that warn with a ``stacklevel``, left unwrapped for the same reason.
_WARNING_FUNCTIONS = frozenset({"where", "var", "std", "var_mean", "std_mean", "meshgrid",
                                "scatter", "scatter_reduce", "index_reduce"})


def _checks(method, name: str) -> bool:
    """Whether a method can take a wrapper (see _CHECKED_METHODS)."""
    return inspect.isfunction(method) and name.rstrip("_") not in _WARNING_FUNCTIONS and \
        not arguments.warns(method)


def _checked(fn, name: str):
    """A torch-level function with torch's words for a wrong argument (see core/arguments.py);
    ops (checked in the registry), lambdas and the functions above stay as they are."""
    if not inspect.isfunction(fn) or fn.__name__ == "<lambda>" or name in _WARNING_FUNCTIONS:
        return fn
    return arguments.torch_function(fn, name)


def functions() -> dict:
    """Each op module's torch-level functions (``agdebug.cat``...), merged."""
    merged = {}
    for module in _OP_MODULES:
        merged.update(getattr(module, "FUNCTIONS", {}))
    return {name: _checked(fn, name) for name, fn in merged.items()}


# Each op module may define METHODS (bound on Tensor) and FUNCTIONS (``agdebug.<name>``).
_OP_MODULES = [reductions, shape, conversion, softmax, index_put, gather_scatter, linalg, sorting,
               factory, m, normalization, activations, loss_pieces, pointwise, order_statistics,
               statistics, scatter_reduce, unsafe_split, bilinear, decompositions,
               torch_functions, special, inplace_variants, fold, quantile, packing, renorm,
               random_fills, vdot, weight_norm, matrix_functions, as_strided, refused,
               real_views, method_functions, removed, memory, aliases, copy_variants,
               scatter_views, shifts, rnn_layer]


install()
