"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``.

Steps update the parameters' arrays in place under ``no_grad`` and bump each
parameter's version counter once per in-place update, as torch's ``add_``/``addcdiv_`` do;
with ``differentiable=True`` they run as recorded Tensor ops instead (see ``modes``).
The update rules follow torch's single-tensor (``foreach=False``) code line by line, so
float64 results agree with torch to the last few ulps.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np

from ..backend import float32, xp_of
from ..graph.grad_mode import enable_grad, set_grad_enabled
from ..tensor import Tensor
from ..ops.tensor_methods.torch_functions import typename
from .modes import FOREACH_AUTOGRAD, check_fused_param, number, refuse_capturable

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Singleton for a hyperparameter a param group must give (torch's ``optim.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: holds ``param_groups`` (dicts of params and options) and ``state``.

    Subclasses implement ``_update(p, grad, group, state)`` on arrays, and may fill a
    parameter's first state in ``_init_state(p, group, state)`` and give the recorded
    update in ``_update_differentiable(p, grad, group, state)`` on Tensors.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.ones(2))
    >>> opt = ag.optim.SGD([{"params": [w], "lr": 0.5}], lr=0.1)
    >>> opt.param_groups[0]["lr"], opt.defaults["lr"]
    (0.5, 0.1)
    """

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    # -- groups -----------------------------------------------------------------------------------

    def add_param_group(self, param_group: dict) -> None:
        """Add a dict of ``params`` and options; missing options take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        _unpack_params(param_group)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(p))
            if not self.defaults.get("differentiable") and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see github.com/pytorch/pytorch/"
                          "issues/40967 for more information", stacklevel=3)
        self._check_names_and_overlap(param_group)
        self.param_groups.append(param_group)

    def _check_names_and_overlap(self, param_group: dict) -> None:
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

    # -- gradients and steps ----------------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset each parameter's ``.grad``: to None (default) or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if p._grad.grad_fn is not None:
                    p._grad.detach_()
                else:
                    p._grad.requires_grad_(False)
                p._grad.zero_()

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss.

        ``closure`` re-evaluates the model (with grad enabled) and returns the loss. With
        ``differentiable=True`` the step runs with grad enabled and is recorded in the graph.
        """
        # torch's _use_grad_for_differentiable: grad mode is the `differentiable` default
        with set_grad_enabled(bool(self.defaults.get("differentiable"))):
            loss = None
            if closure is not None:
                with enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is not None:
                        self._update_one(p, group)
            return loss

    def _update_one(self, p: Tensor, group: dict) -> None:
        if group.get("capturable"):
            self._refuse_capturable(p)
        if group.get("fused") and self._need_device_dtype_check_for_fused:
            # SGD and Adagrad check the first parameter with a gradient at their first step
            # (and again after a copy or unpickling, which drop the instance's False)
            check_fused_param(p)
            self._need_device_dtype_check_for_fused = False
        if group.get("differentiable"):
            if group.get("foreach") and self._foreach_refuses_autograd:
                raise AssertionError(FOREACH_AUTOGRAD)
            update, grad = self._update_differentiable, p._grad
        else:
            update, grad = self._update, p._grad._data
        # torch keeps no entry for a parameter whose optimizer has nothing to remember
        # (SGD without momentum): a new dict is stored only once it is filled (an entry made
        # by reading ``self.state[p]`` is filled in place).
        state = self.state.get(p, {})
        if not state:
            self._init_state(p, group, state)
        update(p, grad, group, state)
        if state:
            self.state[p] = state

    # torch's multi-tensor kernels refuse differentiable=True (SGD's alone accepts it)
    _foreach_refuses_autograd = True
    # True in SGD and Adagrad, whose ``fused=True`` step checks one parameter's dtype, as torch's
    # getattr(self, "_need_device_dtype_check_for_fused", True); __getstate__ leaves it out
    _need_device_dtype_check_for_fused = False

    def _init_state(self, p: Tensor, group: dict, state: dict) -> None:
        """Fill a parameter's empty state before its first update (nothing by default)."""

    def _update(self, p: Tensor, grad, group: dict, state: dict) -> None:
        raise NotImplementedError

    def _update_differentiable(self, p: Tensor, grad: Tensor, group: dict, state: dict) -> None:
        raise NotImplementedError(f"agdebug.optim.{type(self).__name__} does not support "
                                  "differentiable=True")

    def _refuse_capturable(self, p: Tensor) -> None:
        refuse_capturable(p)

    # -- state_dict -------------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``."""
        mapping: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                mapping.setdefault(id(p), len(mapping))
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore ``state`` and group options saved by ``state_dict()`` (params keep theirs)."""
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"])
               for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in self.param_groups)))
        # torch reads fused/capturable from the saved groups (they replace the current ones)
        float32_step = {k: bool(g.get("fused") or g.get("capturable"))
                        for g in saved_groups for k in g["params"]}
        state: defaultdict = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                state[id_map[key]] = _cast_state(id_map[key], value,
                                                 keep_step=not float32_step[key])
            else:
                state[key] = value
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"


# -- helpers shared by the optimizers ------------------------------------------------------------

def _unpack_params(param_group: dict) -> None:
    params = param_group["params"]
    if isinstance(params, Tensor):
        params = [params]
    elif isinstance(params, set):
        raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                        "the ordering of tensors in sets will change between runs. Please use a "
                        "list instead.")
    params = list(params)
    names = [p[0] for p in params if isinstance(p, tuple)]
    param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
    if names:
        if len(names) != len(params):
            raise ValueError("all optimizer params should be with/without names. Some param "
                             "names are missing")
        param_group["param_names"] = names


def _cast_state(param: Tensor, value, key=None, keep_step: bool = True):
    """A loaded state value, its tensors moved to ``param``'s device (and float dtype but
    for ``step``, which becomes float32 on the device when fused or capturable), as torch's
    ``_process_value_according_to_param_policy``."""
    if isinstance(value, Tensor):
        if key == "step":
            return value if keep_step else value.to(dtype=float32, device=param.device)
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k, keep_step) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, keep_step=keep_step) for v in value)
    return value


def check_hyper(name: str, value, low: float = 0.0) -> None:
    """torch's ``ValueError(f"Invalid {name}: {value}")`` for a value below ``low``."""
    if not low <= value:
        raise ValueError(f"Invalid {name}: {value}")


def check_betas(betas) -> None:
    for i, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def scalar(value) -> float:
    """A Python float from a float or a one-element tensor (torch's ``_to_scalar``)."""
    return float(value.item()) if isinstance(value, Tensor) else value


def scalar_dtype() -> np.dtype:
    """torch's ``_get_scalar_dtype()``: float64 when that is the default dtype, else float32."""
    from .. import backend
    return np.dtype(np.float64 if backend.DEFAULT_FLOAT is backend.float64 else np.float32)


def scalar_state(value: float) -> Tensor:
    """A 0-d CPU tensor of torch's scalar dtype, as torch keeps ``step`` and ``mu_product``."""
    return Tensor._wrap(np.array(value, dtype=scalar_dtype()))


def step_state(p: Tensor, group: dict) -> Tensor:
    """A 0-d ``step`` counter at 0: float32 on ``p``'s device when fused (torch's
    ``_get_scalar_dtype(is_fused=True)``), else a CPU tensor of :func:`scalar_dtype`."""
    if group.get("fused"):
        return Tensor._wrap(xp_of(p._data).zeros((), dtype=np.float32))
    return scalar_state(0.0)


def zeros_state(p: Tensor, fill: float = 0.0) -> Tensor:
    """A state buffer like ``p`` (same dtype and device) filled with ``fill``."""
    return Tensor._wrap(xp_of(p._data).full_like(p._data, fill))


def next_step(state: dict) -> float:
    """``state["step"] += 1`` (in its own dtype, bumping its version as torch's ``add_``);
    returns the new count as a Python float."""
    step = state["step"]
    step._data += 1
    step._bump_version()
    return float(step._data)


def lerp_(start, end, weight: float) -> None:
    """``start.lerp_(end, weight)`` with torch's CPU formula (two branches by ``weight``)."""
    if abs(weight) < 0.5:
        start += weight * (end - start)
    else:
        start[...] = end - (end - start) * (1 - weight)


def param_add_(p: Tensor, delta) -> None:
    """``p += delta`` in ``p``'s own array (views see it) and bump its version."""
    p._data += delta
    p._bump_version()


def param_mul_(p: Tensor, factor: float) -> None:
    p._data *= factor
    p._bump_version()


def followed_gradient(p: Tensor, grad, group: dict, tensor_weight_decay: bool = False):
    """The gradient an update follows: negated for ``maximize``, with ``weight_decay``
    added to it (L2, torch's default) or, under ``decoupled_weight_decay`` (AdamW), taken
    off the parameter itself first. A ``weight_decay`` tensor is read as a number, as torch's
    ``alpha=``, and one that needs grad is refused in torch's words, except by SGD
    (``tensor_weight_decay``), which takes it as torch does."""
    g = -grad if group["maximize"] else grad
    wd = group["weight_decay"]
    if wd != 0:
        if group.get("decoupled_weight_decay"):
            param_mul_(p, 1 - scalar(group["lr"]) * scalar(wd))
        elif tensor_weight_decay and isinstance(wd, Tensor) and wd.requires_grad:
            # torch's ``grad.addcmul_(p.clone(), wd)``: into the gradient itself (``p.grad``,
            # unless ``maximize`` negated it into a new array)
            g += wd._data * p._data
        else:   # torch's ``alpha=``: a Number, or a tensor that needs no grad
            g = g + number(wd, "add", "alpha") * p._data
    return g


def decayed_grad(p: Tensor, grad: Tensor, group: dict, tensor_weight_decay=False) -> Tensor:
    """``followed_gradient`` on the differentiable path, with Tensor ops: the gradient negated
    for ``maximize``, then ``p`` shrunk in place (decoupled decay) or ``weight_decay * p``
    added to it. A ``weight_decay`` tensor is read as a number, as torch's ``alpha=``, and
    one that needs grad is refused in torch's words; SGD and Adam
    (``tensor_weight_decay``) take it as a tensor instead (torch's ``addcmul_`` of a clone)."""
    grad = -grad if group["maximize"] else grad
    wd = group["weight_decay"]
    if wd == 0:
        return grad
    if group.get("decoupled_weight_decay"):
        p.mul_(1 - group["lr"] * wd)
        return grad
    if tensor_weight_decay and isinstance(wd, Tensor) and wd.requires_grad:
        return grad.addcmul_(p.clone(), wd)
    return grad.add(p, alpha=number(wd, "add", "alpha"))


def update_moments(state: dict, g, beta1: float, beta2: float) -> tuple:
    """Adam's running averages of the gradient and its square, updated in place."""
    exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
    lerp_(exp_avg, g, 1 - beta1)
    exp_avg_sq *= beta2
    exp_avg_sq += (1 - beta2) * g * g
    return exp_avg, exp_avg_sq
