"""``Module``: the base class that registers parameters, buffers and submodules by assignment."""

from __future__ import annotations

from collections import OrderedDict

from ...events import modules as _calls
from ...events.bus import WATCH
from ...graph.grad_mode import no_grad
from ...ops.tensor_methods.torch_functions import typename
from ...tensor import Tensor
from .module_hooks import (_BOTH_KINDS, RemovableHandle, _Globals, add_module_hook, call_with_hooks,
                     register_module_backward_hook, register_module_forward_hook,
                     register_module_forward_pre_hook, register_module_full_backward_hook,
                     register_module_full_backward_pre_hook)
from .module_state_dict import StateDictMixin, _IncompatibleKeys  # noqa: F401 (torch's home of it)
from ..parameter import Buffer, Parameter

__all__ = ["Module", "RemovableHandle", "register_module_backward_hook",
           "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook"]

_HOOK_TABLES = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
                "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
                "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                "_load_state_dict_post_hooks")


def _watched_call(module, args: tuple, kwargs: dict):
    """A call while events are watched: on this thread's module-call stack throughout.
    Each call returns its callee's value (``return``): the probe names outputs by that."""
    _calls.enter(module)
    try:
        d = module.__dict__
        if not (d.get("_forward_hooks") or d.get("_forward_pre_hooks")
                or d.get("_backward_hooks") or d.get("_backward_pre_hooks") or _Globals.any()):
            return module.forward(*args, **kwargs)
        return call_with_hooks(module, args, kwargs)
    finally:
        _calls.leave(module)


class Module(StateDictMixin):
    """Base class of every layer: assign a Parameter or a Module to register it.

    >>> import agdebug as ag
    >>> class Affine(ag.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scale = ag.nn.Parameter(ag.ones(2))
    ...     def forward(self, x):
    ...         return x * self.scale
    >>> m = Affine()
    >>> [name for name, _ in m.named_parameters()]
    ['scale']
    >>> m(ag.tensor([1.0, 2.0]))
    tensor([1., 2.], grad_fn=<MulBackward0>)
    """

    def __init__(self):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        for table in _HOOK_TABLES:
            object.__setattr__(self, table, OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if WATCH.on:   # events name the module call making each node
            return _watched_call(self, args, kwargs)
        d = self.__dict__
        if not (d.get("_forward_hooks") or d.get("_forward_pre_hooks")
                or d.get("_backward_hooks") or d.get("_backward_pre_hooks") or _Globals.any()):
            return self.forward(*args, **kwargs)
        return call_with_hooks(self, args, kwargs)

    # -- hooks ------------------------------------------------------------------------------------

    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args)`` before ``forward``; a returned value replaces the args.

        >>> import agdebug as ag
        >>> m = ag.nn.Identity()
        >>> h = m.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))
        >>> m(ag.zeros(1))
        tensor([1.])
        """
        return add_module_hook(self._forward_pre_hooks, hook, prepend,
                               ((self._forward_pre_hooks_with_kwargs, with_kwargs),))

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Run ``hook(module, args, output)`` after ``forward``; a returned value replaces
        the output (``always_call``: also when the forward raised)."""
        return add_module_hook(self._forward_hooks, hook, prepend,
                               ((self._forward_hooks_with_kwargs, with_kwargs),
                                (self._forward_hooks_always_called, always_call)))

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Run ``hook(module, grad_output)`` when the output gradients are known; a returned
        tuple replaces them."""
        return add_module_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Run ``hook(module, grad_input, grad_output)`` once the input gradients are known;
        a returned tuple replaces grad_input (None where an input needs no gradient).

        >>> import agdebug as ag
        >>> m = ag.nn.Linear(2, 1)
        >>> h = m.register_full_backward_hook(lambda mod, gi, go: print(gi[0].shape))
        >>> m(ag.ones(3, 2, requires_grad=True)).sum().backward()
        torch.Size([3, 2])
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError(_BOTH_KINDS)
        object.__setattr__(self, "_is_full_backward_hook", True)
        return add_module_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Deprecated (use ``register_full_backward_hook``): a hook on the output's grad_fn."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_BOTH_KINDS)
        object.__setattr__(self, "_is_full_backward_hook", False)
        return add_module_hook(self._backward_hooks, hook)

    # -- registration ---------------------------------------------------------------------------

    def __setattr__(self, name: str, value) -> None:
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            if name not in params:   # replacing a parameter keeps its place, as in torch
                self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            if name not in modules:
                self._forget(name)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = None
        elif isinstance(value, Buffer) or name in self.__dict__.get("_buffers", {}):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            # a Buffer says whether it persists; a plain tensor keeps the buffer's setting
            persistent = (value.persistent if isinstance(value, Buffer)
                          else name not in self._non_persistent_buffers_set)
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        self.__dict__.pop(name, None)
        self.__dict__.get("_non_persistent_buffers_set", set()).discard(name)
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)

    def __getattr__(self, name: str):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def _check_new_name(self, kind: str, name, table: dict) -> None:
        """torch's checks on the name of a new parameter, buffer or module (``kind``): a
        string, no ".", not empty, and no attribute of that name unless it is in ``table``
        (the kind's own table, whose entries may be replaced)."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        taken = hasattr(self, name) and name not in table
        if taken and kind == "module":   # torch's add_module looks for a clash first
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            got = f", got: {name}" if kind == "module" else ""   # torch names it for modules
            raise KeyError(f'{kind} name can\'t contain "."{got}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if taken:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param) -> None:
        """Add a parameter, with torch's errors for bad names and values; a name the module
        already uses for anything else (a buffer, a method, a property) is refused."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Register a tensor that is state but not a parameter (``persistent=False``: left
        out of ``state_dict``), with torch's errors for bad names and values."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module) -> None:
        """Add (or replace) the child ``name``, with torch's errors for bad names and values."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        self._check_new_name("module", name, self._modules)
        self._modules[name] = module

    register_module = add_module

    # -- traversal ------------------------------------------------------------------------------

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """(name, module) for this module and every descendant, depth first; ``memo``: the
        set of modules already seen (skipped, with their subtrees)."""
        memo = set() if memo is None else memo
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                sub = f"{prefix}.{name}" if prefix else name
                yield from child.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self):
        for _, child in self.named_children():
            yield child

    def _named_members(self, table: str, prefix: str, recurse: bool, remove_duplicate=True):
        seen = set()
        owners = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for owner_name, owner in owners:
            for name, value in getattr(owner, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{owner_name}.{name}" if owner_name else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- modes and gradients --------------------------------------------------------------------

    def train(self, mode: bool = True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad`` (to None by default, as torch 2.x does)."""
        for p in self.parameters():
            _reset_grad(p, set_to_none)

    def apply(self, fn):
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse: bool = True):
        """Replace every parameter's data (keeping the Parameter), its grad and every buffer
        by ``fn`` of it: what ``to``, ``cuda``, ``half``... are made of."""
        if recurse:
            for child in self.children():
                child._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is not None:
                    p.data = fn(p)
                    if p._grad is not None:
                        p._grad = fn(p._grad)
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast the parameters and buffers in place; a dtype applies to the
        floating-point ones only (``module.to("cuda", torch.float64)``)."""
        from ...ops.tensor_methods.conversion import _parse
        dtype, device, _ = _parse(args, kwargs.get("dtype"), kwargs.get("device"),
                                  kwargs.get("non_blocking", False), False)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        return self._apply(lambda t: t.to(device=device, dtype=dtype if _is_float(t) else None))

    def cuda(self, device=None):
        """Move every parameter and buffer to a CUDA device (``cuda:0`` by default)."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        """Move every parameter and buffer to host memory."""
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        """Cast every parameter and buffer to ``dst_type`` (integer ones too)."""
        return self._apply(lambda t: t.type(dst_type))

    def half(self):
        """Cast the floating-point parameters and buffers to float16."""
        return self._cast_floats("half")

    def float(self):
        """Cast the floating-point parameters and buffers to float32."""
        return self._cast_floats("float")

    def double(self):
        """Cast the floating-point parameters and buffers to float64."""
        return self._cast_floats("double")

    def _cast_floats(self, method: str):
        return self._apply(lambda t: getattr(t, method)() if t.is_floating_point() else t)

    # -- lookup by dotted name ----------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def get_submodule(self, target: str) -> Module:
        """The submodule at a dotted path (``"encoder.layers.0"``); ``""`` is ``self``.

        >>> import agdebug as ag
        >>> net = ag.nn.Sequential(ag.nn.Linear(2, 2), ag.nn.ReLU())
        >>> net.get_submodule("1")
        ReLU()
        """
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at a dotted path (``strict``: the name must already exist)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path (``"0.weight"``)."""
        mod, name = self._owner_of(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path (``"bn.running_mean"``)."""
        mod, name = self._owner_of(target)
        buffer = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    def _owner_of(self, target: str) -> tuple:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name

    # -- printing ---------------------------------------------------------------------------------

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + repr(child).replace("\n", "\n  ")
                       for name, child in self._modules.items()]
        if len(extra_lines) == 1 and not child_lines:
            return f"{type(self).__name__}({extra_lines[0]})"
        lines = extra_lines + child_lines
        if not lines:
            return f"{type(self).__name__}()"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


def _is_float(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def _reset_grad(p: Tensor, set_to_none: bool) -> None:
    if p._grad is None:
        return
    if set_to_none:
        p._grad = None
        return
    if p._grad._grad_fn is not None:
        p._grad = p._grad.detach()
    else:
        p._grad.requires_grad_(False)
    p._grad.zero_()

