"""More of torch's Tensor methods: in-place comparisons and logic, their aliases, in-place
scans and products, and a few conversions and queries (the random fills are in
random/fills.py).

In-place comparisons keep the target's dtype (``x.eq_(y)`` writes 0/1 into a float ``x``)
and, unlike their out-of-place forms, are recorded: torch's ``EqBackward0`` (a number as
``other``) or ``EqBackward1`` (a tensor), whose gradients are zero. The in-place logical
ops are not recorded at all: the target keeps its history and its ``requires_grad``.
"""

from __future__ import annotations

import numbers


from ... import backend
from ...backend import cpp_name, get_dtype
from ...graph.grad_mode import no_grad
from ...tensor import Tensor
from ..pointwise import comparison as comparison_ops, arithmetic as ew, copying
from . import inplace as inplace_ops, operators as m, views
from ..reduction import scans as scans_ops, signatures
from ..linalg.blas import _same_dtype, addbmm_op, addmv_op, addr_op, baddbmm_op
from ..linalg.products import _check_bmm, _check_mm_shapes, _name, addmm_op
from ..core.inplace import apply_inplace, check_inplace, write_into
from ..core.registry import defop
from ..core.storage import data_pointer
from ..core.gradients import zero_grads

# ----------------------------------------------------------------------------- comparisons


def _comparison_ops(name: str):
    """``(scalar_op, tensor_op)`` of ``x.<name>_(other)``: the comparison, cast to x's dtype."""
    compare = getattr(comparison_ops, name).forward
    title = name.capitalize()

    def scalar_forward(xp, x, other=0):
        return compare(xp, x, other).astype(x.dtype, copy=False)

    def tensor_forward(xp, x, other):
        return compare(xp, x, other).astype(x.dtype, copy=False)

    scalar = defop(f"{name}_", node=f"{title}Backward0")(scalar_forward)
    tensor = defop(f"{name}_tensor_", node=f"{title}Backward1", broadcasts=True)(tensor_forward)
    scalar.vjp(zero_grads)
    tensor.vjp(zero_grads)
    return scalar, tensor


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, complex)


def _invalid(name: str, *values) -> TypeError:
    got = ", ".join(type(v).__name__ for v in values)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     "but expected one of:")


def _compare_inplace(scalar, tensor, name: str):
    def method(self, other):
        if isinstance(other, Tensor):
            return apply_inplace(tensor, self, (other,), {})
        if not _is_number(other):
            raise _invalid(name, other)
        return apply_inplace(scalar, self, (), {"other": m.operand(other)})
    method.__name__ = method.__qualname__ = name
    return method


# torch's aliases of each: the same nodes, but errors name the method called.
_COMPARE_ALIASES = {"eq": (), "ne": ("not_equal",), "lt": ("less",), "le": ("less_equal",),
                    "gt": ("greater",), "ge": ("greater_equal",)}
COMPARE_INPLACE = {}
for _op_name, _aliases in _COMPARE_ALIASES.items():
    _ops = _comparison_ops(_op_name)
    for _alias in (_op_name, *_aliases):
        COMPARE_INPLACE[f"{_alias}_"] = _compare_inplace(*_ops, f"{_alias}_")


def _write_unrecorded(target: Tensor, op, *args) -> Tensor:
    """``target`` overwritten by ``op(target, *args)`` with no node: torch does not record the
    in-place logical ops, so a leaf requiring grad may be their target."""
    check_inplace(target, False)
    with no_grad():
        result = op(target, *args)
    write_into(target, result._data)
    return target


def _logical_inplace(op):
    name = f"{op.name}_"

    def method(self, other):
        m._require_tensor(name, "other", 1, other)
        return _write_unrecorded(self, op, other)
    method.__name__ = method.__qualname__ = name
    return method


logical_and_ = _logical_inplace(comparison_ops.logical_and)
logical_or_ = _logical_inplace(comparison_ops.logical_or)
logical_xor_ = _logical_inplace(comparison_ops.logical_xor)


def logical_not_(self):
    """``x.logical_not_()``: 1 where x is zero, else 0, in x's dtype (not recorded)."""
    return _write_unrecorded(self, comparison_ops.logical_not)


# ----------------------------------------------------------------------------- arithmetic aliases

def true_divide_(self, other):
    """``x.true_divide_(y)``: ``x.div_(y)`` (DivBackward0)."""
    return inplace_ops.div_(self, other)


def floor_divide_(self, other):
    """``x.floor_divide_(y)``: floor division in place (torch records it, without derivative)."""
    return apply_inplace(ew.floor_divide, self, (m.operand(other),), {})


def remainder_(self, other):
    """``x.remainder_(y)``: RemainderBackward0 for a number, RemainderBackward1 for a tensor."""
    other = m.operand(other)
    if isinstance(other, Tensor):
        return apply_inplace(ew.remainder, self, (other,), {})
    return apply_inplace(ew.remainder_scalar, self, (), {"other": other})


def _gt(s, o):
    return comparison_ops.gt(s, m.operand(o))


def _lt(s, o):
    return comparison_ops.lt(s, m.operand(o))


def _ge(s, o):
    return comparison_ops.ge(s, m.operand(o))


def _le(s, o):
    return comparison_ops.le(s, m.operand(o))


def _ne(s, o):
    return comparison_ops.ne(s, m.operand(o))


# ----------------------------------------------------------------------------- scans in place


def _scan_inplace(op, name: str):
    def method(self, dim=signatures.NO_DIM, *, dtype=None):
        if dim is signatures.NO_DIM:
            raise signatures.missing_arguments(f"{name}_", "dim")
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"{name}_(): argument 'dim' (position 1) must be int, not "
                            f"{type(dim).__name__}")
        have = self._data.dtype
        if dtype is not None and signatures._np_dtype(dtype) != have:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {cpp_name(have)} "
                               "and output tensor dtype "
                               f"{cpp_name(signatures._np_dtype(dtype))} should match")
        if have.kind == "b":   # torch has no bool kernel for the in-place scans
            raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
        return apply_inplace(op, self, (), {"dim": dim, "dtype": None})
    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = (f"``x.{name}_(dim)``: ``x.{name}(dim)`` written into x "
                      f"({op.node_class.__name__}).")
    return method


cumsum_ = _scan_inplace(scans_ops.cumsum, "cumsum")
cumprod_ = _scan_inplace(scans_ops.cumprod, "cumprod")


# ----------------------------------------------------------------------------- products in place

def _same_size(target: Tensor, shape: tuple) -> None:
    if tuple(target.shape) != tuple(shape):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(target.shape)} and "
                           f"output tensor size {list(shape)} should match")


def _product_inplace(target: Tensor, op, a: Tensor, b: Tensor, beta, alpha) -> Tensor:
    if target._data.dtype.kind in "biu":   # torch casts the scalars to the integer type
        beta, alpha = int(beta), int(alpha)
    return apply_inplace(op, target, (a, b), {"beta": beta, "alpha": alpha})


def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """``x.addmm_(mat1, mat2)``: ``x = beta * x + alpha * mat1 @ mat2`` (AddmmBackward0)."""
    for name, mat in (("mat1", mat1), ("mat2", mat2)):
        if mat.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {mat.ndim}-D tensor")
    if self._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(self)} and "
                           f"{_name(mat2)}")
    _check_mm_shapes(mat1, mat2)
    _same_size(self, (mat1.shape[0], mat2.shape[1]))
    return _product_inplace(self, addmm_op, mat1, mat2, beta, alpha)


def addmv_(self, mat, vec, *, beta=1, alpha=1):
    """``x.addmv_(mat, vec)``: ``x = beta * x + alpha * mat @ vec`` (AddmvBackward0)."""
    if mat.ndim != 2 or vec.ndim != 1 or self.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    if mat.shape[1] != vec.shape[0] or self.numel() not in (1, mat.shape[0]):
        raise RuntimeError(f"size mismatch, got input ({self.shape[0] if self.ndim else 1}), "
                           f"mat ({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    if len({t._data.dtype for t in (self, mat, vec)}) > 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{_name(self)}, {_name(mat)}, and {_name(vec)}")
    _same_size(self, (mat.shape[0],))
    return _product_inplace(self, addmv_op, mat, vec, beta, alpha)


def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    """``x.addr_(vec1, vec2)``: ``x = beta * x + alpha * outer(vec1, vec2)`` (AddrBackward0)."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    if self.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
    if tuple(self.shape) != (vec1.shape[0], vec2.shape[0]):
        raise RuntimeError(f"size mismatch, input: {list(self.shape)}, v1: {list(vec1.shape)}, "
                           f"v2: {list(vec2.shape)}")
    _same_dtype(vec1, vec2)
    return _product_inplace(self, addr_op, vec1, vec2, beta, alpha)


def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """``x.baddbmm_(b1, b2)``: ``x = beta * x + alpha * bmm(b1, b2)`` (BaddbmmBackward0)."""
    _check_bmm(batch1, batch2)
    _same_dtype(self, batch1)
    _same_size(self, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    return _product_inplace(self, baddbmm_op, batch1, batch2, beta, alpha)


def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """``x.addbmm_(b1, b2)``: ``x = beta * x + alpha * sum_b b1[b] @ b2[b]`` (AddbmmBackward0).

    torch resizes a target of another shape; agdebug refuses it (tensors keep their shape).
    """
    _check_bmm(batch1, batch2)
    _same_dtype(self, batch1)
    _same_size(self, (batch1.shape[1], batch2.shape[2]))
    return _product_inplace(self, addbmm_op, batch1, batch2, beta, alpha)


# ----------------------------------------------------------------------------- fill_diagonal_

def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (all indices equal) with ``fill_value``; torch's CopySlices.

    >>> import agdebug as ag
    >>> ag.zeros(2, 3).fill_diagonal_(5)
    tensor([[5., 0., 0.],
            [0., 5., 0.]])
    """
    shape = tuple(self.shape)
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) > 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if self._data.size:
        apply_inplace(copying.fill, _diagonal_view(self, wrap), (), {"value": fill_value})
    return self


def _diagonal_view(x: Tensor, wrap: bool) -> Tensor:
    """The elements ``fill_diagonal_`` writes, as one view of ``x`` (so the write goes through
    torch's CopySlices): every ``step``-th element of the flat tensor, ``step`` being the
    sum of the strides; a tall matrix with ``wrap`` goes on past the first square."""
    shape = tuple(x.shape)
    n = min(shape)
    if x._data.flags.c_contiguous:
        flat = x.view(-1)
        step = sum(x.stride())
        stop = flat.shape[0] if wrap and len(shape) == 2 else n * step
        return flat[0:stop:step]
    if len(shape) == 2 and not (wrap and shape[0] > shape[1] + 1):
        return x.diagonal()
    raise RuntimeError("agdebug: fill_diagonal_ needs a contiguous tensor here (call "
                       ".contiguous() first)")


ALIASES = {"greater": _gt, "less": _lt, "greater_equal": _ge, "less_equal": _le,
           "not_equal": _ne}

METHODS = {
    **COMPARE_INPLACE,
    "logical_and_": logical_and_, "logical_or_": logical_or_, "logical_xor_": logical_xor_,
    "logical_not_": logical_not_,
    "multiply_": inplace_ops.inplace(ew.mul), "divide_": inplace_ops.div_,
    "subtract_": inplace_ops.sub_,
    "true_divide_": true_divide_, "floor_divide_": floor_divide_, "remainder_": remainder_,
    "cumsum_": cumsum_, "cumprod_": cumprod_,
    "addmm_": addmm_, "addmv_": addmv_, "addr_": addr_, "baddbmm_": baddbmm_,
    "addbmm_": addbmm_, "fill_diagonal_": fill_diagonal_,
    **ALIASES,
}

FUNCTIONS = {**ALIASES}


# ----------------------------------------------------------------------------- conversions, queries

def _converter(dtype_name: str):
    def method(self, memory_format=None):
        return self.to(getattr(backend, dtype_name))
    method.__name__ = method.__qualname__ = {"uint8": "byte", "int8": "char",
                                             "int16": "short"}[dtype_name]
    method.__doc__ = f"``self.to(torch.{dtype_name})``."
    return method


def is_nonzero(self) -> bool:
    """Whether the single value of a one-element tensor is non-zero."""
    if self._data.size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if self._data.size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self._data.reshape(()))


def is_same_size(self, other) -> bool:
    """Whether ``other`` has this tensor's shape."""
    return tuple(self.shape) == tuple(other.shape)


def data_ptr(self) -> int:
    """The address of the tensor's first element."""
    return data_pointer(self._data)


def storage_offset(self) -> int:
    """Elements between the start of the storage and the tensor's first element."""
    return views._storage_offset(self._data)


METHODS.update({
    "byte": _converter("uint8"), "char": _converter("int8"), "short": _converter("int16"),
    "is_nonzero": is_nonzero, "is_same_size": is_same_size, "data_ptr": data_ptr,
    "storage_offset": storage_offset,
    "is_signed": lambda self: get_dtype(self._data.dtype).is_signed,
    "is_cpu": property(lambda self: self.device.type == "cpu"),
    "is_meta": property(lambda self: False), "is_sparse": property(lambda self: False),
})
# the device types and layouts agdebug has none of (torch answers False for a CPU tensor)
METHODS.update({name: property(lambda self: False) for name in (
    "is_xpu", "is_mps", "is_xla", "is_ipu", "is_mtia", "is_maia", "is_vulkan", "is_mkldnn",
    "is_quantized", "is_nested", "is_sparse_csr")})
