"""``gradcheck`` and ``gradgradcheck``: derivatives against central finite differences.

For every input that requires grad, every element is perturbed by ``±eps``
(the numerical Jacobian); the analytical Jacobian is built row by row from
``autograd.grad`` with unit ``grad_outputs``. Both are laid out as torch lays
them out, ``[input numel, output numel]``, so a failure prints the same
matrices torch prints.

>>> import agdebug as ag
>>> x = ag.tensor([0.5, -1.0, 2.0], dtype=ag.float64, requires_grad=True)
>>> ag.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
True
"""

from __future__ import annotations

import warnings

import numpy as np

from ..backend import xp_of
from ..creation import rand, randn_like, zeros
from ..ops.shape.joining import stack
from ..ops.reduction.statistics import allclose
from ..tensor import Tensor
from .api import grad as autograd_grad
from .function import Function

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` when a check fails."""


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check ``func``'s gradients against finite differences; True when they agree.

    ``fast_mode`` first compares one random projection ``v^T J u`` and, only if it
    disagrees, computes the full Jacobians for the error message. ``masked`` only
    concerns sparse tensors, which agdebug does not have.

    >>> import agdebug as ag
    >>> x = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True)
    >>> ag.autograd.gradcheck(lambda t: t.exp(), x)
    True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("agdebug has reverse-mode autograd only: check_forward_ad "
                                  "and check_batched_forward_grad are not supported")
    try:
        _gradcheck(func, _as_tuple(inputs), eps, atol, rtol, nondet_tol,
                   check_undefined_grad, check_grad_dtypes, check_batched_grad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _gradcheck(func, inputs: tuple, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_grad_dtypes, check_batched_grad, fast_mode) -> None:
    _check_inputs(inputs)
    func_out = _tensors(func(*inputs))
    outputs = _differentiable(func_out)
    if not outputs:
        _check_no_differentiable_outputs(func, inputs, func_out, eps)
        return
    if not fast_mode or not _fast_check(func, inputs, func_out, outputs, eps, atol, rtol):
        _slow_check(func, inputs, func_out, outputs, eps, atol, rtol, nondet_tol,
                    check_grad_dtypes)
    for i, out in enumerate(outputs) if check_batched_grad else ():
        _test_batched_grad(inputs, out, i)
    _test_backward_mul_by_grad_output(outputs, inputs)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, inputs)


# ----------------------------------------------------------------------------- inputs/outputs

def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _tensors(outs) -> tuple:
    return tuple(o for o in _as_tuple(outs) if isinstance(o, Tensor))


def _differentiable(outs: tuple) -> tuple:
    return tuple(o for o in outs if isinstance(o, Tensor) and o.requires_grad)


def _diff_inputs(inputs: tuple) -> list:
    return [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]


def _check_inputs(inputs: tuple) -> None:
    found = False
    for idx, inp in enumerate(inputs):
        if not (isinstance(inp, Tensor) and inp.requires_grad):
            continue
        if inp._data.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ", UserWarning, stacklevel=2)
        if any(st == 0 and sz > 1 for st, sz in zip(inp._data.strides, inp._data.shape)):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck.")
        found = True
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")


# ----------------------------------------------------------------------------- numerical

def _numerical_jacobians(func, inputs: tuple, func_out: tuple, eps: float) -> list:
    """[input][output] -> array [input numel, output numel], by central differences."""
    result = []
    for inp in _diff_inputs(inputs):
        data = inp._data
        columns = [[] for _ in func_out]
        for idx in np.ndindex(*data.shape):
            orig = data[idx].copy()
            data[idx] = orig - eps
            before = _output_arrays(func(*inputs), func_out, eps)
            data[idx] = orig + eps
            after = _output_arrays(func(*inputs), func_out, eps)
            data[idx] = orig
            for k, (a, b) in enumerate(zip(before, after)):
                columns[k].append(((b - a) / (2 * eps)).astype(a.dtype).reshape(-1))
        result.append([_stack(col, o) for col, o in zip(columns, func_out)])
    return result


def _output_arrays(outs, reference: tuple, eps: float) -> list:
    arrays = []
    for new, ref in zip(_tensors(outs), reference):
        if new.shape != ref.shape:
            raise AssertionError("Expected `func` to return outputs with the same shape when "
                                 f"inputs are perturbed by {eps}, but got: shapes {ref.shape} "
                                 f"and {new.shape}.")
        if new.dtype != ref.dtype:
            raise AssertionError("Expected `func` to return outputs with the same dtype when "
                                 f"inputs are perturbed by {eps}, but got: dtypes {ref.dtype} "
                                 f"and {new.dtype}.")
        arrays.append(new._data.copy())
    return arrays


def _stack(columns: list, out: Tensor):
    xp = xp_of(out._data)
    if not columns:
        return xp.zeros((0, out._data.size), dtype=out._data.dtype)
    return xp.stack(columns)


def _check_no_differentiable_outputs(func, inputs, func_out, eps) -> None:
    for per_input in _numerical_jacobians(func, inputs, func_out, eps):
        for jac in per_input:
            if (jac != 0).any():
                raise GradcheckError("Numerical gradient for function expected to be zero")


# ----------------------------------------------------------------------------- analytical

def _analytical_jacobians(inputs: tuple, output: Tensor, nondet_tol: float,
                          check_grad_dtypes: bool) -> list:
    """[input] -> array [input numel, output numel] from one backward per output element."""
    diff_inputs = _diff_inputs(inputs)
    first, sizes_ok, types_ok = _jacobian_rows(diff_inputs, output)
    second, _, _ = _jacobian_rows(diff_inputs, output)
    reentrant = all(j1.size == 0 or float(abs(j1 - j2).max()) <= nondet_tol
                    for j1, j2 in zip(first, second))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}.")
    return first


def _jacobian_rows(diff_inputs: list, output: Tensor):
    xp = xp_of(output._data)
    jacobians = [xp.zeros((t._data.size, output._data.size), dtype=t._data.dtype)
                 for t in diff_inputs]
    sizes_ok = types_ok = True
    for j in range(output._data.size):
        unit = xp.zeros(output._data.size, dtype=output._data.dtype)
        unit[j] = 1
        grad_output = Tensor._wrap(unit.reshape(output._data.shape))
        grads = autograd_grad(output, diff_inputs, grad_output, retain_graph=True,
                              allow_unused=True)
        for jac, g, inp in zip(jacobians, grads, diff_inputs):
            if g is None:
                continue
            if g.shape != inp.shape:
                sizes_ok = False
            elif g.dtype != inp.dtype:
                types_ok = False
            if g._data.size != jac.shape[0]:
                raise GradcheckError("Analytical gradient has incorrect size")
            jac[:, j] = g._data.reshape(-1)
    return jacobians, sizes_ok, types_ok


def _slow_check(func, inputs, func_out, outputs, eps, atol, rtol, nondet_tol,
                check_grad_dtypes) -> None:
    numerical = _numerical_jacobians(func, inputs, func_out, eps)
    diff_out_index = [k for k, o in enumerate(func_out) if o.requires_grad]
    for i, out in enumerate(outputs):
        analytical = _analytical_jacobians(inputs, out, nondet_tol, check_grad_dtypes)
        for j, a in enumerate(analytical):
            n = numerical[j][diff_out_index[i]]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch_message(a, n, i, j))


def _allclose(a, n, rtol: float, atol: float) -> bool:
    xp = xp_of(a)
    dtype = np.promote_types(a.dtype, n.dtype)
    return bool(xp.allclose(a.astype(dtype), n.astype(dtype), rtol=rtol, atol=atol))


def _mismatch_message(analytical, numerical, output_idx: int, input_idx: int) -> str:
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input "
            f"{input_idx:d},\nnumerical:{Tensor._wrap(numerical)!r}\n"
            f"analytical:{Tensor._wrap(analytical)!r}\n")


# ----------------------------------------------------------------------------- fast mode

def _fast_check(func, inputs, func_out, outputs, eps, atol, rtol) -> bool:
    """Compare ``v^T J u`` for random unit-norm ``u`` (per input) and ``v`` (per output)."""
    diff_inputs = _diff_inputs(inputs)
    us = [_random_unit(t) for t in diff_inputs]
    for out in outputs:
        v = _random_unit(out)
        grads = autograd_grad(out, diff_inputs, Tensor._wrap(v), retain_graph=True,
                              allow_unused=True)
        k = next(n for n, o in enumerate(func_out) if o is out)
        for inp, u, g in zip(diff_inputs, us, grads):
            analytical = 0.0 if g is None else float((g._data * u).sum())
            numerical = float((_directional(func, inputs, inp, u, eps, k) * v).sum())
            if abs(analytical - numerical) > atol + rtol * abs(numerical):
                return False
    return True


def _random_unit(t: Tensor):
    xp = xp_of(t._data)
    u = rand(*t.shape, dtype=t.dtype)._data * 2 - 1
    norm = float(np.sqrt((u * u).sum())) or 1.0
    return xp.asarray(u / norm, dtype=t._data.dtype)


def _directional(func, inputs, inp: Tensor, u, eps: float, k: int):
    data = inp._data
    orig = data.copy()
    data[...] = orig - eps * u
    before = _as_tuple(func(*inputs))[k]._data.copy()
    data[...] = orig + eps * u
    after = _as_tuple(func(*inputs))[k]._data.copy()
    data[...] = orig
    return (after - before) / (2 * eps)


# ----------------------------------------------------------------------------- batched grad

FAILED_BATCHED_GRAD_MSG = """
gradcheck or gradgradcheck failed while testing batched gradient computation.
This could have been invoked in a number of ways (via a test that calls
gradcheck/gradgradcheck directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_grad=False` and/or `check_batched_gradgrad=False`.

If you're modifying an existing operator that supports batched grad computation,
or wish to make a new operator work with batched grad computation, please read
the following.

To compute batched grads (e.g., jacobians, hessians), we vmap over the backward
computation. The most common failure case is if there is a 'vmap-incompatible
operation' in the backward pass. Please see
NOTE: [How to write vmap-compatible backward formulas]
in the codebase for an explanation of how to fix this.
""".strip()


def _test_batched_grad(inputs: tuple, output: Tensor, output_idx: int) -> None:
    """torch's check: the vector-Jacobian products of two random ``grad_outputs``, one
    after the other, equal one batched ``autograd.grad`` of both (``is_grads_batched``;
    torch vmaps the backward there, agdebug runs it per row)."""
    diff_inputs = _diff_inputs(inputs)
    grad_outputs = [randn_like(output) for _ in range(2)]
    expected = [_vjp(output, diff_inputs, g) for g in grad_outputs]
    expected = [stack(shards) for shards in zip(*expected)]
    try:
        result = _vjp(output, diff_inputs, stack(grad_outputs), batched=True)
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n"
                             f"{FAILED_BATCHED_GRAD_MSG}") from ex
    for input_idx, (res, exp) in enumerate(zip(result, expected)):
        if not allclose(res, exp):
            raise GradcheckError(f"For output {output_idx} and input {input_idx}:\n\n"
                                 f"{FAILED_BATCHED_GRAD_MSG}\n\nGot:\n{res}\n\n"
                                 f"Expected:\n{exp}")


def _vjp(output: Tensor, diff_inputs: list, grad_output: Tensor, batched: bool = False):
    """The gradients for ``grad_output``, an unused input's as zeros (as torch's vjp)."""
    grads = autograd_grad(output, diff_inputs, grad_output, retain_graph=True,
                          allow_unused=True, is_grads_batched=batched)
    lead = tuple(grad_output.shape[:1]) if batched else ()
    return tuple(zeros(*lead, *inp.shape, dtype=inp.dtype, device=inp.device) if g is None
                 else g for g, inp in zip(grads, diff_inputs))


# ----------------------------------------------------------------------------- sanity checks

def _test_backward_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    diff_inputs = _diff_inputs(inputs)
    zeros = [Tensor._wrap(xp_of(o._data).zeros_like(o._data)) for o in outputs]
    grads = autograd_grad(outputs, diff_inputs, zeros, retain_graph=True, allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if (gi._data != 0).any():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.shape != di.shape:
            raise GradcheckError("grad is incorrect size")


class _UndefinedGrad(Function):
    """torch's ``UndefinedGrad``: identity forward, an undefined (None) gradient back."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return None


_UNDEFINED_BC_WARNING = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by "
    "default, but it may break existing callers of this function. If this is true for you, "
    'you can call this function with "check_undefined_grad=False" to disable the feature')


def _test_undefined_backward_mode(func, outputs: tuple, inputs: tuple) -> None:
    diff_inputs = _diff_inputs(inputs)
    to_check = [[_UndefinedGrad.apply(o) for o in _differentiable(_as_tuple(func(*inputs)))]]
    if len(to_check[0]) > 1:
        for undefined in range(len(outputs)):
            outs = _differentiable(_as_tuple(func(*inputs)))
            to_check.append([_UndefinedGrad.apply(o) if k == undefined else o
                             for k, o in enumerate(outs)])
    for outs in to_check:
        _check_undefined(outs, diff_inputs)


def _check_undefined(outs: list, diff_inputs: list) -> None:
    zeros = [Tensor._wrap(xp_of(o._data).zeros_like(o._data)) for o in outs]
    try:
        grads = autograd_grad(outs, diff_inputs, zeros, allow_unused=True)
    except RuntimeError as exc:
        warnings.warn(_UNDEFINED_BC_WARNING, UserWarning, stacklevel=5)
        raise GradcheckError(
            "Expected backward function to handle undefined output grads. Please look at "
            '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
        ) from exc
    for gi in grads:
        if gi is not None and (gi._data != 0).any():
            warnings.warn(_UNDEFINED_BC_WARNING, UserWarning, stacklevel=5)
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" '
                'in "tools/autograd/derivatives.yaml"')


# ----------------------------------------------------------------------------- gradgradcheck

def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """``gradcheck`` of the function that maps (inputs, grad_outputs) to the gradients.

    Random ``grad_outputs`` in [-1, 1) are drawn when none are given
    (``gen_non_contig_grad_outputs`` only changes memory layout in torch, not values).

    >>> import agdebug as ag
    >>> x = ag.tensor([0.3, 1.2], dtype=ag.float64, requires_grad=True)
    >>> ag.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))
    True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(_random_grad_output(o)
                             for o in _differentiable(_as_tuple(func(*inputs))))
    else:
        grad_outputs = _as_tuple(grad_outputs)
    new_func = _grad_function(func, inputs, grad_outputs)
    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def _random_grad_output(out: Tensor) -> Tensor:
    dtype = out.dtype if out._data.dtype.kind in "fc" else None
    t = rand(*out.shape, dtype=dtype) * 2 - 1
    if out.device.type != "cpu":
        t = t.to(out.device)
    return t.requires_grad_(True)


def _grad_function(func, inputs: tuple, grad_outputs: tuple):
    """(inputs..., grad_outputs...) -> the gradients of func's outputs w.r.t. its inputs."""
    n_out = len(grad_outputs)
    diff_args = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_grads = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_args else x
                           for i, x in enumerate(args[:-n_out]))
        outputs = _differentiable(_as_tuple(func(*input_args)))
        grads = tuple(x.requires_grad_() if i in diff_grads else x
                      for i, x in enumerate(args[-n_out:]))
        wrt = tuple(x for i, x in enumerate(input_args) if i in diff_args)
        grad_inputs = autograd_grad(outputs, wrt, grads, create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)
    return new_func
