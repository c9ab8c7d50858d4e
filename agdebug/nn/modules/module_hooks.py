"""Module hooks: the removable handle, the global hook tables and ``BackwardHook``.

A full backward hook needs the gradients of a module's inputs and outputs as
tuples. As in torch, the module's tensor inputs and outputs each pass through
``BackwardHookFunction`` (an identity custom Function, node
``BackwardHookFunctionBackward``); hooks on those two nodes hand the gradients to
the user's hooks, which may replace them.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections import OrderedDict

from ...autograd.function import Function
from ...graph.grad_mode import MODE
from ...graph.hooks import RemovableHandle as _NodeHandle
from ...tensor import Tensor

__all__ = ["BackwardHook", "BackwardHookFunction", "RemovableHandle",
           "register_module_backward_hook", "register_module_forward_hook",
           "register_module_forward_pre_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook"]

_BOTH_KINDS = ("Cannot use both regular backward hooks and full backward hooks on a single "
               "Module. Please use only one of them.")
_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See "
    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


class RemovableHandle(_NodeHandle):
    """A module hook's handle: ``remove()`` also clears the hook's flags (with_kwargs...).

    >>> import agdebug as ag
    >>> m = ag.nn.Identity()
    >>> with m.register_forward_hook(lambda mod, args, out: out * 2):
    ...     m(ag.ones(1))
    tensor([2.])
    >>> len(m._forward_hooks)
    0
    """

    __slots__ = ("_extra",)

    def __init__(self, hooks: dict, *, extra_dict=None):
        super().__init__(hooks)
        extras = extra_dict if isinstance(extra_dict, list) else [extra_dict]
        self._extra = tuple(d for d in extras if d is not None)

    def remove(self) -> None:
        super().remove()
        for table in self._extra:
            table.pop(self.id, None)


def add_module_hook(hooks: OrderedDict, hook, prepend: bool = False, flags=()) -> RemovableHandle:
    """Register ``hook`` in ``hooks`` (first if ``prepend``); ``flags``: (table, on) pairs
    that mark the hook's id (with_kwargs, always_call)."""
    handle = RemovableHandle(hooks, extra_dict=[table for table, _ in flags])
    hooks[handle.id] = hook
    for table, on in flags:
        if on:
            table[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


# ----------------------------------------------------------------------------- global hooks

class _Globals:
    """The hooks every module runs (torch's ``_global_*`` tables in nn.modules.module)."""

    forward_pre: OrderedDict = OrderedDict()
    forward: OrderedDict = OrderedDict()
    forward_with_kwargs: OrderedDict = OrderedDict()
    forward_always_called: OrderedDict = OrderedDict()
    backward_pre: OrderedDict = OrderedDict()
    backward: OrderedDict = OrderedDict()
    is_full_backward: bool | None = None

    @classmethod
    def any(cls) -> bool:
        return bool(cls.forward_pre or cls.forward or cls.backward_pre or cls.backward)


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """Run ``hook(module, args)`` before every module's forward (before its own hooks)."""
    return add_module_hook(_Globals.forward_pre, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Run ``hook(module, args, output)`` after every module's forward (before its own)."""
    return add_module_hook(_Globals.forward, hook,
                           flags=((_Globals.forward_with_kwargs, with_kwargs),
                                  (_Globals.forward_always_called, always_call)))


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """Run ``hook(module, grad_output)`` for every module, before its input gradients."""
    return add_module_hook(_Globals.backward_pre, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """Run ``hook(module, grad_input, grad_output)`` for every module."""
    if _Globals.is_full_backward is False:
        raise RuntimeError(_BOTH_KINDS)
    _Globals.is_full_backward = True
    return add_module_hook(_Globals.backward, hook)


def register_module_backward_hook(hook) -> RemovableHandle:
    """Deprecated: a hook on the grad_fn of every module's output."""
    if _Globals.is_full_backward is True:
        raise RuntimeError(_BOTH_KINDS)
    _Globals.is_full_backward = False
    return add_module_hook(_Globals.backward, hook)


# ----------------------------------------------------------------------------- BackwardHook

class BackwardHookFunction(Function):
    """The identity, as a node the module's backward hooks can watch."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """One module call's backward hooks: wraps its inputs and outputs, then links the
    gradients of the two ``BackwardHookFunctionBackward`` nodes to the user's hooks."""

    def __init__(self, module, user_hooks: list, user_pre_hooks: list):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None
        self._wrapped_inputs = ()
        self._no_grad_meta = {}

    def setup_input_hook(self, args: tuple) -> tuple:
        """The inputs, their tensors replaced by the hook node's outputs."""
        res, index = self._wrap(args, lambda node: node.register_hook(self._input_hook))
        self.n_inputs, self.input_tensors_index = len(args), index
        if index is not None:
            self._wrapped_inputs = tuple(res[i] for i in index)
            # torch's node hands the hook zeros for a tensor input without grad (it is a
            # non-differentiable output, materialized); agdebug's engine drops it as None.
            self._no_grad_meta = {k: (tuple(t.shape), t.dtype, t.device)
                                  for k, t in enumerate(self._wrapped_inputs)
                                  if not t.requires_grad}
        return res

    def setup_output_hook(self, result):
        """The output (a tensor or a tuple), its tensors replaced by the hook node's outputs."""
        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        res, index = self._wrap(outs, lambda node: node.register_hook(self._output_hook))
        self.n_outputs, self.output_tensors_index = len(outs), index
        return res[0] if single else res

    def _wrap(self, args, register):
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and MODE.grad_enabled):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in wrapped if t.grad_fn is not None)
        register(node)
        out = list(args)
        for i, t in zip(index, wrapped):
            out[i] = t
        return (tuple(out) if type(args) is tuple else type(args)(*out)), index

    def _output_hook(self, grad_inputs, grad_outputs):
        self.grad_outputs = _pack(self.output_tensors_index, grad_outputs, self.n_outputs)
        self._run_pre_hooks()
        local = self.grad_outputs
        if self.input_tensors_index is None:   # nothing reaches the input node: fire now
            warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=_user_stacklevel())
            self._run_hooks_without_inputs()
        if local is not None:
            return tuple(local[i] for i in self.output_tensors_index)
        return None

    def _run_pre_hooks(self) -> None:
        expected = len(self.grad_outputs)
        for hook in self.user_pre_hooks:
            result = hook(self.module, self.grad_outputs)
            if result is None:
                continue
            if len(result) != expected:
                raise RuntimeError("Backward pre hook returned an invalid number of "
                                   f"grad_output, got {len(result)}, but expected {expected}")
            self.grad_outputs = result

    def _run_hooks_without_inputs(self) -> None:
        grad_inputs = (None,) * self.n_inputs
        for hook in self.user_hooks:
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient "
                                   "should always return None or None for all gradients.")
        self.grad_outputs = None

    def _input_hook(self, grad_inputs, grad_outputs):
        if self.grad_outputs is None:
            return None   # the gradient reached the inputs without the outputs (double backward)
        res = _pack(self.input_tensors_index, self._with_zeros(grad_inputs), self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        # An input without grad has no edge here: its value goes nowhere, so None.
        return tuple(None if k in self._no_grad_meta else res[i]
                     for k, i in enumerate(self.input_tensors_index))

    def _with_zeros(self, grads) -> tuple:
        from ...creation import zeros
        return tuple(zeros(*self._no_grad_meta[k][:1], dtype=self._no_grad_meta[k][1],
                           device=self._no_grad_meta[k][2]) if k in self._no_grad_meta else g
                     for k, g in enumerate(grads))


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the user's line (``loss.backward()``)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def _pack(index, values, size: int) -> tuple:
    """``values`` at positions ``index`` of a tuple of ``size``, None elsewhere."""
    out = [None] * size
    for i, v in zip(index, values):
        out[i] = v
    return tuple(out)


class WrappedHook:
    """A deprecated ``register_backward_hook`` hook, as a post hook on the output's node."""

    def __init__(self, hook, module):
        self.hook = hook
        self.module = module

    def __call__(self, grad_inputs, grad_outputs):
        return self.hook(self.module, grad_inputs, grad_outputs)


# ----------------------------------------------------------------------------- the call

def call_with_hooks(module, args: tuple, kwargs: dict):
    """torch's ``Module._call_impl`` once some hook is registered: forward pre-hooks,
    the backward-hook wrapping of inputs, forward, forward hooks, output wrapping."""
    state = {"args": args, "kwargs": kwargs, "result": None, "called": set()}
    try:
        return _call(module, state)
    except Exception:
        _run_always_called(module, state)
        raise


def _call(module, state: dict):
    backward_pre = [*_Globals.backward_pre.values(), *module._backward_pre_hooks.values()]
    full, not_full = _backward_hooks(module)
    _run_forward_pre_hooks(module, state)
    bw_hook = None
    if full or backward_pre:
        bw_hook = BackwardHook(module, full, backward_pre)
        state["args"] = bw_hook.setup_input_hook(state["args"])
    state["result"] = module.forward(*state["args"], **state["kwargs"])
    _run_forward_hooks(module, state)
    result = state["result"]
    if bw_hook is not None:
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor or "
                          f"a tuple of Tensors but received {type(result)}",
                          stacklevel=_user_stacklevel())
        result = bw_hook.setup_output_hook(result)
    if not_full:
        _register_old_backward_hooks(module, not_full, state["args"], result)
    return result


def _backward_hooks(module) -> tuple[list, list]:
    """(full hooks, deprecated hooks): the global ones first, then the module's."""
    full, not_full = [], []
    for table, kind in ((_Globals.backward, _Globals.is_full_backward),
                        (module._backward_hooks, module._is_full_backward_hook)):
        if kind is True:
            full += table.values()
        elif kind is False:
            not_full += table.values()
    return full, not_full


def _run_forward_pre_hooks(module, state: dict) -> None:
    with_kwargs = module._forward_pre_hooks_with_kwargs
    for hook_id, hook in (*_Globals.forward_pre.items(), *module._forward_pre_hooks.items()):
        if hook_id in with_kwargs:
            result = hook(module, state["args"], state["kwargs"])
            if result is None:
                continue
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError("forward pre-hook must return None or a tuple of "
                                   f"(new_args, new_kwargs), but got {result}.")
            state["args"], state["kwargs"] = result
        else:
            result = hook(module, state["args"])
            if result is not None:
                state["args"] = result if isinstance(result, tuple) else (result,)


def _run_forward_hooks(module, state: dict) -> None:
    for hook_id, hook in (*_Globals.forward.items(), *module._forward_hooks.items()):
        if hook_id in module._forward_hooks_always_called or \
                hook_id in _Globals.forward_always_called:
            state["called"].add(hook_id)
        result = _forward_hook(module, hook_id, hook, state)
        if result is not None:
            state["result"] = result


def _forward_hook(module, hook_id: int, hook, state: dict):
    if hook_id in module._forward_hooks_with_kwargs or hook_id in _Globals.forward_with_kwargs:
        return hook(module, state["args"], state["kwargs"], state["result"])
    return hook(module, state["args"], state["result"])


def _run_always_called(module, state: dict) -> None:
    """After the forward raised: the ``always_call`` hooks that have not run yet, their own
    errors turned into warnings (torch's order: global hooks first)."""
    tables = ((_Globals.forward, _Globals.forward_always_called, "global module forward hook"),
              (module._forward_hooks, module._forward_hooks_always_called, "module forward hook"))
    for hooks, always, what in tables:
        for hook_id, hook in hooks.items():
            if hook_id not in always or hook_id in state["called"]:
                continue
            try:
                result = (_forward_hook(module, hook_id, hook, state) if hooks is not
                          _Globals.forward else hook(module, state["args"], state["result"]))
                if result is not None:
                    state["result"] = result
            except Exception as e:  # noqa: BLE001 - torch silences it into a warning
                warnings.warn(f"{what} with ``always_call=True`` raised an exception that was "
                              f"silenced as another error was raised in forward: {e}",
                              stacklevel=_user_stacklevel())


def _register_old_backward_hooks(module, hooks: list, args, result) -> None:
    var = result
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) \
            if isinstance(var, dict) else var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(WrappedHook(hook, module))
    _warn_old_backward_hook(args, result, grad_fn)


_OLD_HOOK = ("Using non-full backward hooks on a Module that does not {} is deprecated and will "
             "be removed in future versions. This hook will be missing some of the {}. Please "
             "use register_full_backward_hook to get the documented behavior.")


def _warn_old_backward_hook(inputs, result, grad_fn) -> None:
    """torch's FutureWarnings where a deprecated backward hook would see partial gradients."""
    message = _old_hook_problem(inputs, result, grad_fn)
    if message is not None:
        warnings.warn(message, FutureWarning, stacklevel=_user_stacklevel())


def _old_hook_problem(inputs, result, grad_fn):
    outs = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(outs, tuple) and all(isinstance(r, Tensor) for r in outs)):
        return _OLD_HOOK.format("return a single Tensor or a tuple of Tensors", "grad_output")
    ins = (inputs,) if isinstance(inputs, Tensor) else inputs
    if not (isinstance(ins, tuple) and all(isinstance(i, Tensor) for i in ins)):
        return _OLD_HOOK.format("take as input a single Tensor or a tuple of Tensors",
                                "grad_input")
    out_fns = {r.grad_fn for r in outs if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
        return ("Using a non-full backward hook when outputs are nested in python data "
                "structure is deprecated and will be removed in future versions. This hook will "
                "be missing some grad_output.")
    if len(out_fns) > 1:
        return ("Using a non-full backward hook when outputs are generated by different "
                "autograd Nodes is deprecated and will be removed in future versions. This hook "
                "will be missing some grad_output. Please use register_full_backward_hook to "
                "get the documented behavior.")
    in_fns = {i.grad_fn for i in ins if i.grad_fn is not None}
    if in_fns != {fn for fn, _ in grad_fn.next_functions}:
        return ("Using a non-full backward hook when the forward contains multiple autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_input. Please use register_full_backward_hook to get the "
                "documented behavior.")
    return None
