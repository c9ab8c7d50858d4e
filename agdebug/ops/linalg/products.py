"""Matrix products: mm, bmm, dot, mv, addmm, and ``matmul`` (``@``) dispatching to them.

``matmul`` follows torch's ``_matmul_impl`` step for step (which product, when
a batch is folded into a matrix, when it is expanded and run through bmm), so
its result carries torch's grad_fn: ``v @ v`` is DotBackward0, ``A @ v``
MvBackward0, a batch times a matrix UnsafeViewBackward0 over MmBackward0.
"""

from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from ...backend import cpp_name
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES
from ..shape.views_copies import unsafe_view
from ..core.checks import broadcast_shape
from ..core.gradients import needs, unrecorded_host


def _name(t: Tensor) -> str:
    from ...backend import get_dtype
    return get_dtype(t._data.dtype)._legacy


# ----------------------------------------------------------------------------- products

# torch keeps each matrix only for the other's gradient, and mat2's strides for its own
# (its gradient is laid out like it); each input's sizes (and self's strides) for its own.
@defop("mm", node="MmBackward0", saves=("self@1", "mat2@0", "mat2_sym_strides=strides1@1",
                                        "self_sym_strides=strides0@0", "self_sym_sizes=sizes0",
                                        "mat2_sym_sizes=sizes1"))
def mm_op(xp, self, mat2):
    return self @ mat2


@mm_op.vjp
def mm_vjp(ctx, grad):
    grad_self = mat1_grad(grad, ctx.mat2) if needs(ctx, 0) else None
    grad_mat2 = mat2_grad(ctx.self, ctx.mat2_sym_strides, grad) if needs(ctx, 1) else None
    return grad_self, grad_mat2


def mat1_grad(grad, mat2):
    """``grad @ mat2.T``: the gradient of a product's first matrix."""
    if unrecorded_host(grad, mat2):   # the product itself, without the transpose's op
        return Tensor._wrap(grad._data @ mat2._data.T)
    return mm_op(grad, mat2.t())


def mat2_grad(mat1, strides: tuple, grad):
    """``mat1.T @ grad``, laid out like mat2, whose ``strides`` are given (torch's
    mm_mat2_backward does the same).

    For ``x @ W.t()`` (a Linear layer) mat2 is a transposed view: computing the product
    transposed makes W's gradient contiguous, as W is, so it is taken without a copy and
    the optimizer's update runs over contiguous memory.
    """
    transposed = _transposed(strides, mat1.shape[1], grad.shape[1])
    if unrecorded_host(grad, mat1):
        a, g = mat1._data, grad._data
        return Tensor._wrap((g.T @ a).T if transposed else a.T @ g)
    return mm_op(grad.t(), mat1).t() if transposed else mm_op(mat1.t(), grad)


def _transposed(strides: tuple, rows: int, cols: int) -> bool:
    """Whether a (rows, cols) matrix of these element strides is column-major only (NumPy's
    ``f_contiguous and not c_contiguous``)."""
    if rows * cols == 0:
        return False
    c_order = (cols == 1 or strides[1] == 1) and (rows == 1 or strides[0] == cols)
    f_order = (rows == 1 or strides[0] == 1) and (cols == 1 or strides[1] == rows)
    return f_order and not c_order


@defop("bmm", node="BmmBackward0", saves=("self@1", "mat2@0"))
def bmm_op(xp, self, mat2):
    return xp.matmul(self, mat2)


@bmm_op.vjp
def bmm_vjp(ctx, grad):
    grad_self = bmm_op(grad, ctx.mat2.transpose(1, 2)) if needs(ctx, 0) else None
    grad_mat2 = bmm_op(ctx.self.transpose(1, 2), grad) if needs(ctx, 1) else None
    return grad_self, grad_mat2


@defop("dot", node="DotBackward0", saves=("self@1", "tensor@0"))
def dot_op(xp, self, tensor):
    return xp.asarray(xp.dot(self, tensor))


@dot_op.vjp
def dot_vjp(ctx, grad):
    grad_self = grad * ctx.tensor if needs(ctx, 0) else None
    grad_tensor = grad * ctx.self if needs(ctx, 1) else None
    return grad_self, grad_tensor


@defop("mv", node="MvBackward0", saves=("self@1", "vec@0"))
def mv_op(xp, self, vec):
    return self @ vec


@mv_op.vjp
def mv_vjp(ctx, grad):
    grad_self = grad.reshape(-1, 1) * ctx.vec if needs(ctx, 0) else None
    grad_vec = mv_op(ctx.self.t(), grad) if needs(ctx, 1) else None
    return grad_self, grad_vec


@defop("addmm", node="AddmmBackward0",
       saves=("mat1@2", "mat2@1", "mat2_sym_strides=strides2@2", "mat1_sym_strides=strides1@1",
              "mat1_sym_sizes=sizes1", "mat2_sym_sizes=sizes2"))
def addmm_op(xp, self, mat1, mat2, beta=1, alpha=1):
    product = mat1 @ mat2
    if alpha != 1:
        product = product * alpha
    if beta == 0:           # torch ignores ``self`` entirely (NaN included) when beta is 0
        return product
    addend = self if beta == 1 else self * beta
    if addend.dtype == product.dtype:   # the product is a new array of this op's: add in place
        product += addend
        return product
    return product + addend


@addmm_op.vjp
def addmm_vjp(ctx, grad):
    grad_self = None
    if needs(ctx, 0):
        grad_self = grad if ctx.beta == 1 else grad * ctx.beta
    scaled = grad if ctx.alpha == 1 else grad * ctx.alpha
    grad_mat1 = mat1_grad(scaled, ctx.mat2) if needs(ctx, 1) else None
    grad_mat2 = mat2_grad(ctx.mat1, ctx.mat2_sym_strides, scaled) if needs(ctx, 2) else None
    return grad_self, grad_mat1, grad_mat2


@defop("squeeze_matmul", node="SqueezeBackward4", sizes=SELF_SIZES)
def squeeze_matmul(xp, x, dim=0):
    # torch squeezes the [1, m] result of ``v.unsqueeze(0).mm(A)`` in place (squeeze_).
    return xp.squeeze(x, axis=dim)


@squeeze_matmul.vjp
def squeeze_matmul_vjp(ctx, grad):
    return (grad.unsqueeze(ctx.dim),)


# ----------------------------------------------------------------------------- checks

def _check_tensor(fn: str, name: str, position: int, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _check_mm(a: Tensor, b: Tensor) -> None:
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm_shapes(a, b)


def _check_mm_shapes(a: Tensor, b: Tensor) -> None:
    if a._data.shape[1] != b._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                           f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{cpp_name(a._data.dtype)} != {cpp_name(b._data.dtype)}")


def _check_bmm(a: Tensor, b: Tensor) -> None:
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected scalar type {_name(a)} but found {_name(b)}")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")


def _check_dot(a: Tensor, b: Tensor) -> None:
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_name(a)} and {_name(b)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")


def _check_mv(a: Tensor, v: Tensor) -> None:
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a._data.dtype != v._data.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_name(v)}, "
                           f"{_name(a)}, and {_name(v)}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")


# ----------------------------------------------------------------------------- public API

def mm(input, mat2):
    """The matrix product of two 2-D tensors (MmBackward0).

    >>> import agdebug as ag
    >>> ag.mm(ag.tensor([[1.0, 2.0]]), ag.tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """
    _check_mm(input, mat2)
    return mm_op(input, mat2)


def bmm(input, mat2):
    """Batched matrix product of two 3-D tensors with equal batch size (BmmBackward0)."""
    _check_bmm(input, mat2)
    return bmm_op(input, mat2)


def dot(input, tensor):
    """The inner product of two 1-D tensors (DotBackward0).

    >>> import agdebug as ag
    >>> ag.dot(ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0]))
    tensor(11.)
    """
    _check_dot(input, tensor)
    return dot_op(input, tensor)


def mv(input, vec):
    """Matrix times vector (MvBackward0)."""
    _check_mv(input, vec)
    return mv_op(input, vec)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` (AddmmBackward0); ``input`` broadcasts.

    >>> import agdebug as ag
    >>> ag.addmm(ag.tensor([1.0]), ag.tensor([[1.0, 2.0]]), ag.tensor([[3.0], [4.0]]))
    tensor([[12.]])
    """
    # Every Linear layer calls this: one test of the arrays passes a good call (a matrix
    # product of one dtype onto a bias row); anything else is checked in torch's order.
    a, b, c = mat1._data, mat2._data, input._data
    if not (a.ndim == 2 and b.ndim == 2 and a.dtype is b.dtype and c.dtype is b.dtype
            and a.shape[1] == b.shape[0] and c.shape == (b.shape[1],)):
        _check_addmm(input, mat1, mat2)
    # The defaults (int 1, as torch gives them back), read by the node without a keyword dict;
    # ``beta=1.0`` or ``alpha=True`` are kept as given (``grad_fn._saved_beta``).
    if type(beta) is int and type(alpha) is int and beta == alpha == 1:
        return addmm_op(input, mat1, mat2)
    return addmm_op(input, mat1, mat2, beta=beta, alpha=alpha)


def _check_addmm(input, mat1, mat2) -> None:
    a, b = mat1._data, mat2._data
    if a.ndim != 2 or b.ndim != 2:
        name, m = ("mat1", a) if a.ndim != 2 else ("mat2", b)
        raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    dtype = b.dtype
    if input._data.dtype != dtype or a.dtype != dtype:
        # torch compares the dtypes (self first) before the shapes, in words of its own
        name, m = ("self", input) if input._data.dtype != dtype else ("mat1", mat1)
        raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {_name(m)} "
                           f"and {_name(mat2)}")
    if a.shape[1] != b.shape[0]:
        _check_mm_shapes(mat1, mat2)
    _check_expandable(input._data.shape, (a.shape[0], b.shape[1]))


def _check_expandable(have: tuple, target: tuple) -> None:
    lead = len(target) - len(have)
    for i, s in enumerate(have):
        if lead < 0 or (s != 1 and s != target[lead + i]):
            raise RuntimeError(
                f"The expanded size of the tensor ({target[max(lead, 0) + i]}) must match the "
                f"existing size ({s}) at non-singleton dimension {max(lead, 0) + i}.  Target "
                f"sizes: {list(target)}.  Tensor sizes: {list(have)}")


def outer(input, vec2):
    """The outer product of two vectors (MulBackward0 over a view, as torch builds it)."""
    for name, x in (("self", input), ("vec2", vec2)):   # broadcasting would hide a matrix
        if x.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {x.ndim}-D")
    return input.reshape(-1, 1) * vec2


def matmul(input, other):
    """torch's ``matmul``: dot, mv, mm, or a batched product with broadcast batch dims.

    >>> import agdebug as ag
    >>> a = ag.ones(2, 2, 3, requires_grad=True)
    >>> (a @ ag.ones(3, 4)).grad_fn.name()
    'UnsafeViewBackward0'
    """
    _check_tensor("matmul", "input", 1, input)
    _check_tensor("matmul", "other", 2, other)
    d1, d2 = input.ndim, other.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return dot(input, other)
    if d1 == 2 and d2 == 1:
        return mv(input, other)
    if d1 == 1 and d2 == 2:
        return squeeze_matmul(mm(input.unsqueeze(0), other), dim=0)
    if d1 == 2 and d2 == 2:
        return mm(input, other)
    if _should_fold(input, other):
        return _folded(input, other)
    return _batched(input, other)


def _should_fold(t1: Tensor, t2: Tensor) -> bool:
    """torch's ``should_fold``: fold the larger operand's batch into a matrix (mm/mv)."""
    larger = t1.ndim >= t2.ndim
    big = t1 if larger else t2
    if not (big.ndim >= 3 and (t2.ndim if larger else t1.ndim) <= 2):
        return False
    if (t2 if larger else t1).requires_grad:
        return True
    if t1.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    shape, strides = big.shape, big.stride()
    if not larger:   # torch folds ``t2.mT``: the last two dims swap
        shape = shape[:-2] + (shape[-1], shape[-2])
        strides = strides[:-2] + (strides[-1], strides[-2])
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _folded(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    transpose = tensor2.ndim > tensor1.ndim
    t1 = tensor2.transpose(-2, -1) if transpose else tensor1
    t2 = (tensor1.t() if tensor1.ndim == 2 else tensor1) if transpose else tensor2
    batch = tuple(t1.shape[:-1])
    folded = t1.reshape(int(np.prod(batch)), t1.shape[-1])
    if t2.ndim == 2:
        out = unsafe_view(mm(folded, t2), shape=batch + (t2.shape[1],))
        return out.transpose(-2, -1).clone() if transpose else out
    return unsafe_view(mv(folded, t2), shape=batch)


def _batched(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    d1, d2 = tensor1.ndim, tensor2.ndim
    n = tensor1.shape[-2] if d1 > 1 else 1
    m1 = tensor1.shape[-1]
    m2 = tensor2.shape[-2] if d2 > 1 else tensor2.shape[0]
    p = tensor2.shape[-1] if d2 > 1 else 1
    batch = broadcast_shape(tensor1.shape[:-2], tensor2.shape[:-2])
    count = int(np.prod(batch))
    a = tensor1.expand(batch + (n, m1)).reshape(count, n, m1)
    if d2 == 1:
        b = tensor2.unsqueeze(0).expand(count, m2).unsqueeze(2)
    else:
        b = tensor2.expand(batch + (m2, p)).reshape(count, m2, p)
    out = bmm(a, b)
    shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    return unsafe_view(out.squeeze(-1) if d2 == 1 else out, shape=shape)


def _matmul_method(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


METHODS = {
    "matmul": matmul, "__matmul__": _matmul_method,
    "__rmatmul__": lambda self, other: (matmul(other, self) if isinstance(other, Tensor)
                                        else NotImplemented),
    "mm": mm, "bmm": bmm, "dot": dot, "mv": mv, "outer": outer, "ger": outer,
    "addmm": addmm,
}

FUNCTIONS = {
    "matmul": matmul, "mm": mm, "bmm": bmm, "dot": dot, "mv": mv, "addmm": addmm,
    "outer": outer, "ger": outer,
}


# The other linear-algebra modules: their ops register on import, and their functions and
# methods are installed with this module's (ops/__init__ lists this module only).
from . import (blas, contraction as contract, distance, lu,  # noqa: E402, F401
               matrix_structure as matrix)

for _module in (matrix, blas, contract, distance):
    FUNCTIONS.update(_module.FUNCTIONS)
    METHODS.update(_module.METHODS)

# ``agdebug.linalg``: the torch.linalg namespace, a module of its own, reachable without an
# import as ``torch.linalg`` is.
from ... import linalg as _linalg_namespace  # noqa: E402

FUNCTIONS["linalg"] = _linalg_namespace

# torch-level names and Tensor methods of the matrix functions (agdebug.linalg defines them).
FUNCTIONS.update({
    "inverse": _linalg_namespace.inv, "det": _linalg_namespace.det,
    "slogdet": _linalg_namespace.torch_slogdet, "logdet": _linalg_namespace.logdet,
    "matrix_power": _linalg_namespace.matrix_power,
})
METHODS.update({
    "inverse": _linalg_namespace.inv, "det": _linalg_namespace.det,
    "slogdet": _linalg_namespace.torch_slogdet, "logdet": _linalg_namespace.logdet,
    "matrix_power": _linalg_namespace.matrix_power,
})
FUNCTIONS.update({"cholesky_solve": _linalg_namespace.cholesky_solve,
                  "cholesky_inverse": _linalg_namespace.cholesky_inverse})
METHODS.update({"cholesky_solve": _linalg_namespace.cholesky_solve,
                "cholesky_inverse": _linalg_namespace.cholesky_inverse})
FUNCTIONS["svd"] = METHODS["svd"] = _linalg_namespace.torch_svd
FUNCTIONS["pinverse"] = METHODS["pinverse"] = _linalg_namespace.pinv
FUNCTIONS.update({"lu": _linalg_namespace.torch_lu, "lu_unpack": _linalg_namespace.lu_unpack,
                  "lu_solve": _linalg_namespace.torch_lu_solve})
METHODS.update({"lu": _linalg_namespace.torch_lu, "lu_solve": _linalg_namespace.torch_lu_solve})
