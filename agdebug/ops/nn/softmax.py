"""softmax and log_softmax, their backward-data nodes, and their Tensor methods."""

from __future__ import annotations

from ..reduction.signatures import NO_DIM, missing_arguments
from ..core.registry import defop
from ..core.gradients import needs
from ..core.checks import dims_of, kernel_missing


# ----------------------------------------------------------------------------- softmax


@defop("softmax", node="SoftmaxBackward0", saves=("result",))
def softmax(xp, x, dim=-1):
    axis = dims_of(dim, x.ndim)[0]
    if x.size == 0:   # NumPy's max has no identity to reduce an empty axis with; torch
        return xp.empty_like(x)   # runs no kernel then, so int and bool inputs pass too
    _check_softmax_input(x, axis, "softmax")
    e = xp.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype, copy=False)


@softmax.vjp
def softmax_vjp(ctx, grad):
    return (softmax_backward_data(grad, ctx.result, dim=ctx.dim),)


@defop("log_softmax", node="LogSoftmaxBackward0", saves=("result",))
def log_softmax(xp, x, dim=-1):
    axis = dims_of(dim, x.ndim)[0]
    if x.size == 0:
        return xp.empty_like(x)
    _check_softmax_input(x, axis, "log_softmax")
    # The arrays' own max and sum: NumPy's functions wrap these in a Python layer of theirs.
    shifted = x - x.max(axis=axis, keepdims=True)
    lse = xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    return (shifted - lse).astype(x.dtype, copy=False)


@log_softmax.vjp
def log_softmax_vjp(ctx, grad):
    return (log_softmax_backward_data(grad, ctx.result, dim=ctx.dim),)


def _check_softmax_input(x, axis: int, name: str) -> None:
    """torch has no integer or bool softmax kernel (its error names the kernel it looked for)."""
    if x.dtype.kind in "biu":
        kernel = "lastdim_kernel_impl" if x.ndim == 0 or axis == x.ndim - 1 else "kernel_impl"
        raise kernel_missing(f"{name}_{kernel}", x.dtype)


# torch's fused derivatives of softmax and log_softmax (aten's ``_softmax_backward_data``):
# one op instead of four, so one node in a create_graph=True graph, as torch records.

@defop("_softmax_backward_data", node="SoftmaxBackwardDataBackward0",
       saves=("grad_output@1", "output"))
def softmax_backward_data(xp, grad_output, output, dim=-1):
    """``output * (grad_output - sum(grad_output * output))`` along ``dim``."""
    axis = dims_of(dim, output.ndim)[0]
    return output * (grad_output - (grad_output * output).sum(axis=axis, keepdims=True))


@softmax_backward_data.vjp
def softmax_backward_data_vjp(ctx, grad):
    out, dim = ctx.output, ctx.dim
    grad_grad_output = softmax_backward_data(grad, out, dim=dim) if needs(ctx, 0) else None
    grad_out = None
    if needs(ctx, 1):   # torch's softmax_double_backward
        go = ctx.grad_output
        grad_out = (go * grad - (out * go).sum(dim, keepdim=True) * grad
                    - go * (out * grad).sum(dim, keepdim=True))
    return grad_grad_output, grad_out


@defop("_log_softmax_backward_data", node="LogSoftmaxBackwardDataBackward0",
       saves=("grad_output@1", "output"))
def log_softmax_backward_data(xp, grad_output, output, dim=-1):
    """``grad_output - exp(output) * sum(grad_output)`` along ``dim``."""
    axis = dims_of(dim, output.ndim)[0]
    return grad_output - xp.exp(output) * grad_output.sum(axis=axis, keepdims=True)


@log_softmax_backward_data.vjp
def log_softmax_backward_data_vjp(ctx, grad):
    probs, dim = ctx.output.exp(), ctx.dim
    grad_grad_output = grad - (grad * probs).sum(dim, keepdim=True) if needs(ctx, 0) else None
    grad_out = None
    if needs(ctx, 1):
        grad_out = -ctx.grad_output.sum(dim, keepdim=True) * probs * grad
    return grad_grad_output, grad_out


# ----------------------------------------------------------------------------- bindings

def softmax_method(self, dim=NO_DIM, dtype=None):
    """``x.softmax(dim)`` and ``agdebug.softmax(x, dim)``."""
    if dim is NO_DIM:
        raise missing_arguments("softmax", "dim")
    return softmax(self if dtype is None else self.to(dtype), dim=dim)


def log_softmax_method(self, dim=NO_DIM, dtype=None):
    """``x.log_softmax(dim)`` and ``agdebug.log_softmax(x, dim)``."""
    if dim is NO_DIM:
        raise missing_arguments("log_softmax", "dim")
    return log_softmax(self if dtype is None else self.to(dtype), dim=dim)


METHODS = {"softmax": softmax_method, "log_softmax": log_softmax_method}
FUNCTIONS = {"softmax": softmax_method, "log_softmax": log_softmax_method}
