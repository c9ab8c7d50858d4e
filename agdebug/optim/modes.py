"""The optimizers' ``fused``, ``capturable`` and ``differentiable`` modes: torch's checks, in its
words, and the state they change.

- ``differentiable=True``: ``step()`` runs with grad enabled and each optimizer's
  ``_update_differentiable`` follows torch's single-tensor code with Tensor ops, so the update
  is recorded in the graph (meta-learning through the step).
- ``fused=True`` (SGD, Adam, AdamW, Adagrad): the same maths as the single-tensor path (torch's
  CPU kernels agree with it to an ulp); ``step`` is kept in float32 on the parameter's device.
- ``capturable=True``: torch allows it only on accelerators with graph capture; on CPU it
  raises at ``step()``, as here. On CuPy it is not implemented.
"""

from __future__ import annotations


from ..tensor import Tensor

__all__ = ["check_fused_options", "check_fused_param", "number", "refuse_capturable",
           "FOREACH_AUTOGRAD"]

FUSED_DEVICES = ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', 'privateuseone']
CAPTURABLE_DEVICES = ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']
FOREACH_AUTOGRAD = "_foreach ops don't support autograd"


def check_fused_options(defaults: dict) -> None:
    """torch's ``__init__`` checks for ``fused=True`` (made after the param groups are added)."""
    if not defaults.get("fused"):
        return
    if defaults.get("differentiable"):
        raise RuntimeError("`fused` does not support `differentiable`")
    if defaults.get("foreach"):
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def check_fused_param(p: Tensor) -> None:
    """torch's ``_device_dtype_check_for_fused``: fused kernels take floating-point params."""
    if not p.is_floating_point():
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors "
                           f"of supported devices: {FUSED_DEVICES} but {p.dtype} and "
                           f"{p.device.type}")


def refuse_capturable(p: Tensor, subject: str = "params and state_steps",
                      xla: bool = True) -> None:
    """torch's check at ``step()``: capturable needs params (and state) on a graph-capturing
    accelerator, so CPU params raise its AssertionError."""
    if p.device.type == "cpu":
        devices = CAPTURABLE_DEVICES if xla else CAPTURABLE_DEVICES[:-1]
        raise AssertionError(f"If capturable=True, {subject} must be on supported devices: "
                             f"{devices}.")
    raise NotImplementedError("agdebug.optim does not support capturable=True on CUDA yet")


def number(value, method: str, arg: str, position: int | None = None):
    """``value`` for a Number argument of ``method``: torch refuses a tensor that needs grad
    there (a tensor ``lr`` on a path that passes it as ``value=``/``alpha=``) and takes the
    value of one that does not."""
    if isinstance(value, Tensor):
        if value.requires_grad:
            where = "" if position is None else f" (position {position})"
            raise TypeError(f"{method}(): argument '{arg}'{where} must be Number, not Tensor")
        return value.item()
    return value
