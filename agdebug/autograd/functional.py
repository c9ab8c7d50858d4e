"""``autograd.functional``: Jacobians, Hessians and their products, as torch computes them.

Everything is reverse mode: ``jvp`` and ``hvp`` use the double-backward trick
(differentiate a vector-Jacobian product with respect to its vector), as
torch's versions do. ``vectorize`` is accepted and gives the same values (it
is a speed option in torch).

>>> import agdebug as ag
>>> from agdebug.autograd.functional import jacobian
>>> jacobian(lambda x: x ** 2, ag.tensor([1.0, 3.0]))
tensor([[2., 0.],
        [0., 6.]])
"""

from __future__ import annotations

from ..graph.grad_mode import MODE, enable_grad, set_grad_enabled
from ..tensor import Tensor
from .api import grad as autograd_grad
from .function import Function

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


# ----------------------------------------------------------------------------- helpers

def _as_tuple(inp, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} has type {type(el)}.")
    return is_tuple, items


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad
                 else inp.detach().requires_grad_(need_graph) for inp in inputs)


def _grad_postprocess(inputs, create_graph: bool):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


_STRICT_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
}


def _check_requires_grad(inputs, input_type: str, strict: bool) -> None:
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[input_type].format(i=i))


def _autograd_grad(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph=False,
                   retain_graph=None) -> tuple:
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return autograd_grad([o for o, _ in kept], inputs, [g for _, g in kept], allow_unused=True,
                         create_graph=create_graph, retain_graph=retain_graph)


_FILL_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _fill_in_zeros(grads, refs, strict: bool, create_graph: bool, stage: str) -> tuple:
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_MESSAGES[stage].format(i=i))
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _zeros_like(t: Tensor) -> Tensor:
    from ..creation import zeros_like
    return zeros_like(t)


def _unit(t: Tensor, j: int) -> Tensor:
    """The j-th standard basis vector, shaped like ``t``."""
    from ..backend import xp_of
    flat = xp_of(t._data).zeros(t._data.size, dtype=t._data.dtype)
    flat[j] = 1
    return Tensor._wrap(flat.reshape(t._data.shape))


# ----------------------------------------------------------------------------- stacking

class _Stack(Function):
    """Differentiable stack along a new dim 0 (its derivative is ``_Unstack``)."""

    @staticmethod
    def forward(ctx, *tensors):
        from ..backend import xp_of
        return Tensor._wrap(xp_of(tensors[0]._data).stack([t._data for t in tensors]))

    @staticmethod
    def backward(ctx, grad):
        return _Unstack.apply(grad)


class _Unstack(Function):
    """Split along dim 0 into its rows (its derivative is ``_Stack``)."""

    @staticmethod
    def forward(ctx, x):
        return tuple(Tensor._wrap(x._data[i].copy()) for i in range(x._data.shape[0]))

    @staticmethod
    def backward(ctx, *grads):
        return _Stack.apply(*grads)


def _stack_rows(rows: list, shape: tuple) -> Tensor:
    return _Stack.apply(*rows).view(shape)


# ----------------------------------------------------------------------------- vjp / jvp

def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    >>> import agdebug as ag
    >>> out, g = ag.autograd.functional.vjp(lambda x: x * 3, ag.ones(2), ag.ones(2))
    >>> g
    tensor([3., 3.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    return _final_product(outputs, outputs, inputs, v, inputs, "back", strict,
                          create_graph, is_outputs_tuple, is_inputs_tuple)


def _final_product(outputs, of, wrt, v, like, stage: str, strict: bool, create_graph: bool,
                   is_outputs_tuple: bool, is_result_tuple: bool) -> tuple:
    """The last vector product of vjp/jvp/vhp/hvp, then torch's post-processing."""
    with set_grad_enabled(True if create_graph else MODE.grad_enabled):
        grad_res = _autograd_grad(of, wrt, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, like, strict, create_graph, stage)
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_result_tuple))


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick.

    >>> import agdebug as ag
    >>> out, jv = ag.autograd.functional.jvp(lambda x: x ** 2, ag.tensor([1.0, 2.0]),
    ...                                      ag.ones(2))
    >>> jv
    tensor([2., 4.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(_zeros_like(out).requires_grad_(True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    return _final_product(outputs, grad_inputs, grad_outputs, v, outputs, "back_trick", strict,
                          create_graph, is_outputs_tuple, is_outputs_tuple)


# ----------------------------------------------------------------------------- jacobian

def jacobian(func, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """d func(inputs) / d inputs: shape ``output.shape + input.shape`` per pair.

    A tuple of inputs or outputs gives a tuple (of tuples) of Jacobians, as in torch.

    >>> import agdebug as ag
    >>> jx, jy = ag.autograd.functional.jacobian(lambda x, y: x * y,
    ...                                          (ag.tensor([2.0]), ag.tensor([5.0])))
    >>> jx, jy
    (tensor([[5.]]), tensor([[2.]]))
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        raise NotImplementedError('agdebug has no forward-mode AD: use strategy="reverse-mode"')
    if vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        result = tuple(_jacobian_of_output(i, out, inputs, create_graph, strict)
                       for i, out in enumerate(outputs))
        result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def _jacobian_of_output(i: int, out: Tensor, inputs: tuple, create_graph: bool,
                        strict: bool) -> tuple:
    rows = tuple([] for _ in inputs)
    for j in range(out.nelement()):
        # The gradient of out.reshape(-1)[j] is the vjp with the j-th unit vector.
        vj = _autograd_grad((out,), inputs, (_unit(out, j),), retain_graph=True,
                            create_graph=create_graph)
        for el_idx, (row, vj_el, inp_el) in enumerate(zip(rows, vj, inputs)):
            if vj_el is not None:
                if strict and create_graph and not vj_el.requires_grad:
                    raise RuntimeError(f"The jacobian of the user-provided function is "
                                       f"independent of input {i}. This is not allowed in "
                                       "strict mode when create_graph=True.")
                row.append(vj_el)
            else:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {el_idx}. This is not allowed in "
                                       "strict mode.")
                row.append(_zeros_like(inp_el))
    return tuple(_finish_jacobian(row, out, inp) for row, inp in zip(rows, inputs))


def _finish_jacobian(row: list, out: Tensor, inp: Tensor) -> Tensor:
    shape = tuple(out.shape) + tuple(inp.shape)
    if not row:  # an empty output: no rows to stack
        from ..creation import zeros
        return zeros(*shape, dtype=inp.dtype, device=inp.device)
    return _stack_rows(row, shape)


# ----------------------------------------------------------------------------- hessian

def hessian(func, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient.

    >>> import agdebug as ag
    >>> ag.autograd.functional.hessian(lambda x: (x ** 3).sum(), ag.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or '
                             '"reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function",
                                        "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.reshape(())

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _second_order_prelude(func, inputs, v, create_graph, strict, name: str):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                          name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_inputs_tuple, is_outputs_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)`` for a scalar function.

    >>> import agdebug as ag
    >>> _, r = ag.autograd.functional.vhp(lambda x: (x ** 3).sum(), ag.tensor([1.0, 2.0]),
    ...                                   ag.ones(2))
    >>> r
    tensor([ 6., 12.])
    """
    with enable_grad():
        is_inputs_tuple, is_outputs_tuple, inputs, v, outputs, jac = _second_order_prelude(
            func, inputs, v, create_graph, strict, "vhp")
    return _final_product(outputs, jac, inputs, v, inputs, "double_back", strict,
                          create_graph, is_outputs_tuple, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)`` for a scalar function, by the double-backward trick.

    >>> import agdebug as ag
    >>> _, r = ag.autograd.functional.hvp(lambda x: (x ** 3).sum(), ag.tensor([1.0, 2.0]),
    ...                                   ag.ones(2))
    >>> r
    tensor([ 6., 12.])
    """
    with enable_grad():
        is_inputs_tuple, is_outputs_tuple, inputs, v, outputs, jac = _second_order_prelude(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(_zeros_like(inp).requires_grad_(True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    return _final_product(outputs, double_back, grad_jac, v, inputs, "double_back_trick", strict,
                          create_graph, is_outputs_tuple, is_inputs_tuple)
