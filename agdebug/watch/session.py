"""Switching the watcher on and off: the function mode, the saved-tensor hooks and the
patched backward entry points, installed together and restored exactly."""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

from ..events import modules, probe
from ..events import records as r
from ..events.bus import WATCH
from . import backward as _backward
from . import hooks, naming, nodes, saved
from .state import LOCAL, STATE
from .tensors import forget_lines, line_of, summarize, tensor_id, user_frame

__all__ = ["watching"]

MIN_TORCH = (2, 2)   # register_post_accumulate_grad_hook, get_gradient_edge


def _import_torch():
    try:
        import torch
    except ImportError:
        raise ImportError("agdebug.watch needs PyTorch, which is not installed "
                          "(pip install torch)") from None
    version = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    if version < MIN_TORCH:
        raise ImportError(f"agdebug.watch needs PyTorch {'.'.join(map(str, MIN_TORCH))} or "
                          f"newer (for post-accumulate-grad hooks); this is {torch.__version__}")
    return torch


def _mode_class(torch):
    class _WatchMode(torch.overrides.TorchFunctionMode):
        """Sees every torch call: the outputs' new grad_fn are the nodes created."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = getattr(func, "__name__", "")
            if name in _SPECIAL or LOCAL.busy:   # (one look-up for most calls: an op)
                return _special(name, func, args, kwargs)
            out = func(*args, **kwargs)
            if WATCH.on:
                LOCAL.busy += 1
                try:
                    _op_done(name, args, out)
                finally:
                    LOCAL.busy -= 1
            return out
    return _WatchMode


_REGISTERS: dict = {}   # method name -> (torch's Tensor method, the hook's kind)
_SPECIAL = {"__get__", "__set__", "register_hook", "register_post_accumulate_grad_hook"}


def _special(name: str, func, args, kwargs):
    """A call that makes no node: an attribute read or set, a hook registered; or any call
    while the watcher's own code runs."""
    if LOCAL.busy or name == "__get__":
        return func(*args, **kwargs)
    if name == "__set__":
        # (published before: the old .grad's graph is freed by the assignment)
        if getattr(func.__self__, "__name__", "") == "grad":
            _grad_set(*args)
        return func(*args, **kwargs)
    if func is _REGISTERS[name][0]:
        return hooks.register_tensor_hook(func, *args, _REGISTERS[name][1], **kwargs)
    return func(*args, **kwargs)


def _tensors(values) -> list:
    out = []
    for v in values:
        if isinstance(v, (tuple, list)):
            out.extend(x for x in v if hasattr(x, "grad_fn"))
        elif hasattr(v, "grad_fn"):
            out.append(v)
    return out


def _op_done(name: str, args, out) -> None:
    if not isinstance(out, (tuple, list)):
        if hasattr(out, "grad_fn"):
            _one_done(name, args, out)
        return
    outputs = _tensors(out)
    fresh, leaves = [], None
    for t in outputs:
        fn = t.grad_fn
        if fn is None:
            if t.requires_grad:   # a leaf made to require grad (``requires_grad=True``)
                leaves = [t] if leaves is None else [*leaves, t]
        elif nodes.tag_of(fn) is None and all(fn is not f for f in fresh):
            fresh.append(fn)
    if not fresh:
        if leaves and not LOCAL.runs:
            naming.name_leaves(user_frame(sys._getframe(1))[0], [tensor_id(t) for t in leaves])
        return
    frame, library = user_frame(sys._getframe(1))
    if not LOCAL.runs:   # (a backward's nodes are not the line's value)
        naming.name_outputs(frame, library, [tensor_id(t) for t in outputs
                                             if t.grad_fn is not None])
    source, inputs, op = line_of(frame), _tensors(args), name.strip("_")
    for fn in fresh:
        mine = [t for t in outputs if t.grad_fn is fn]
        nodes.walk_new([fn], source, fn, op, inputs, mine)


def _one_done(name: str, args, t) -> None:
    """``_op_done`` for an op with one tensor out (most ops), without its lists."""
    fn = t.grad_fn
    if fn is None:
        if t.requires_grad and not LOCAL.runs:   # a leaf made to require grad
            naming.name_leaves(user_frame(sys._getframe(2))[0], [tensor_id(t)])
        return
    if nodes.tag_of(fn) is not None:
        return
    frame, library = user_frame(sys._getframe(2))
    if not LOCAL.runs:   # (a backward's nodes are not the line's value)
        naming.name_outputs(frame, library, [tensor_id(t)])
    nodes.walk_new([fn], line_of(frame), fn, name.strip("_"), _tensors(args), [t])


def _grad_set(tensor, value) -> None:
    if not WATCH.on:
        return
    LOCAL.busy += 1
    try:
        tid = tensor_id(tensor)
        fn = getattr(value, "grad_fn", None)
        probe.send(r.GradSet(0, tid, summarize(value), nodes.node_id(fn)))
        if tid in STATE.cycles:
            STATE.cycles.discard(tid)
            reason = "grad_cleared" if value is None else "grad_reassigned"
            probe.send(r.CycleBroken(0, tid, reason))
    finally:
        LOCAL.busy -= 1


_sessions = iter(range(1, 1 << 62))
_MODE: list = []


@contextmanager
def watching():
    """Watch real torch's autograd on this thread inside the block (events on the bus)."""
    torch = _import_torch()
    if STATE.session:
        raise RuntimeError("agdebug.watch: already watching (one watch at a time)")
    STATE.session, STATE.thread = next(_sessions), threading.current_thread()
    hooks = torch.autograd.graph.saved_tensors_hooks(saved.pack, saved.unpack)
    if not _MODE:   # (one class for every watch: making a class costs)
        _MODE.append(_mode_class(torch))
    mode = _MODE[0]()
    patches, calls = [], []
    try:
        with hooks, mode:   # (entered before the program's hooks are wrapped)
            patches = _patches(torch)
            for owner, attr, value in patches:
                setattr(owner, attr, value)
            calls = _module_hooks(torch)
            yield
    finally:
        for handle in calls:
            handle.remove()
        _switch_off(patches)


def _enter_module(module, args) -> None:
    modules.enter(module)   # returns None: the call's arguments stay as they are


def _leave_module(module, args, output) -> None:
    modules.leave(module)   # returns None: the output stays as it is


def _module_hooks(torch) -> list:
    """torch's global module hooks keep the module-call stack that names each node's module
    (``always_call``: a forward that raises leaves its call too)."""
    hooks = torch.nn.modules.module
    return [hooks.register_module_forward_pre_hook(_enter_module),
            hooks.register_module_forward_hook(_leave_module, always_call=True)]


def _patches(torch) -> list:
    """(owner, attribute, watching value), with the originals to restore beside them."""
    graph = torch.autograd.graph.saved_tensors_hooks
    wanted = [(torch.autograd, "backward", _backward.wrap_backward),
              (torch.autograd, "grad", _backward.wrap_grad),
              (graph, "__enter__", saved.wrap_program_hooks),
              # (every node class's C++ register_hook/register_prehook calls this)
              (torch.autograd.function._HookMixin, "_register_hook", _node_hooks)]
    _REGISTERS.update(register_hook=(torch.Tensor.register_hook, "tensor"),
                      register_post_accumulate_grad_hook=(
                          torch.Tensor.register_post_accumulate_grad_hook, "post_accumulate"))
    out = []
    for owner, attr, wrap in wanted:
        original = owner.__dict__[attr]
        out.append((owner, attr, wrap(original)))
        _ORIGINALS[(owner, attr)] = original
    return out


def _node_hooks(original):
    return hooks.register_node_hook(original.__func__)


_ORIGINALS: dict = {}


def _switch_off(patches) -> None:
    hooks.restore()
    for owner, attr, _ in patches:
        setattr(owner, attr, _ORIGINALS.pop((owner, attr)))
    for ref in list(STATE.node_refs.values()):
        tag = ref()
        for node_hooks in tag.hooks if tag is not None else ():
            node_hooks.pop(hooks.OWN_KEY, None)
    for handle in STATE.leaf_handles:
        handle.remove()
    STATE.leaf_handles.clear()
    STATE.node_refs.clear()    # dead references never call back
    STATE.saved_refs.clear()
    LOCAL.runs.clear()
    STATE.leaves.clear()
    STATE.cycles.clear()
    STATE.session, STATE.thread = 0, None
    forget_lines()
    naming.forget()
