"""Saved tensors: what a node keeps from the forward pass for its backward.

A ``SavedTensor`` remembers the version of the tensor it saved and checks it
on unpack (torch's "modified by an inplace operation" error). It is released
after its node runs unless the graph is retained; unpacking it later raises
torch's "Trying to backward through the graph a second time" error.

A forward *output* saved by its own node is kept as its array plus a weak
reference to the tensor, never the tensor itself: the tensor holds the node
(``grad_fn``), so holding the tensor back would form a reference cycle.

A Python number (or ``None``, an absent optional input) is saved as itself: the
node's ``_released`` flag says whether it is still there. torch saves it as a
wrapped tensor, so ``(x * 2)`` cannot be backpropagated twice there either;
a plain value costs no extra object for Python's cyclic GC to track per op.
"""

from __future__ import annotations

import re
import threading
import weakref

from ..backend import get_dtype
from .anomaly_flag import ANOMALY

__all__ = ["SavedTensor", "saved_tensors_hooks", "SAVED_FREED_MESSAGE"]

INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")

SAVED_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class _HookStack(threading.local):
    def __init__(self):
        self.stack: list[tuple] = []


_HOOKS = _HookStack()


def hooks_state() -> list:
    """The active saved_tensors_hooks pairs, for ``restore_hooks`` after a backward."""
    return list(_HOOKS.stack)


def restore_hooks(state: list) -> None:
    """Put the pairs back: a block entered inside a hook run by the engine (an unpack hook)
    ends with the backward, as torch's engine restores its thread-local state."""
    _HOOKS.stack = state


class _Disabled(threading.local):
    value = None   # set by autograd.graph.disable_saved_tensors_hooks


DISABLED_MESSAGE = _Disabled()


class saved_tensors_hooks:
    """Pack/unpack hooks for every tensor saved for backward inside the block.

    >>> import agdebug as ag
    >>> x = ag.ones(3, requires_grad=True)
    >>> with ag.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    ...     y = x * x
    >>> y.sum().backward()
    >>> x.grad
    tensor([2., 2., 2.])
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if DISABLED_MESSAGE.value is not None:
            raise RuntimeError(DISABLED_MESSAGE.value)
        _HOOKS.stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _HOOKS.stack.pop()
        return False


class SavedTensor:
    """One tensor saved for backward, with its version at the time of saving."""

    __slots__ = ("_tensor", "_weak", "_data", "_cls", "_version", "_saved_version",
                 "_is_output", "_output_nr", "_packed", "_unpack_hook", "released", "nbytes")

    def __init__(self, tensor, is_output: bool):
        if tensor._inference:   # (nothing is saved inside inference mode)
            raise RuntimeError(INFERENCE_SAVE_MESSAGE)
        self._version = tensor._version_counter()
        self._saved_version = self._version.value
        self._is_output = is_output
        self._output_nr = tensor._output_nr
        self.released = False
        data = tensor._data
        self.nbytes = data.nbytes
        hooks = _HOOKS.stack   # the innermost saved_tensors_hooks block's pair is last
        if hooks:
            self._pack(tensor, hooks[-1])
            return
        self._packed = self._unpack_hook = None
        if is_output:
            # The array and a weak reference: see the module docstring.
            self._tensor, self._data = None, data
            self._weak, self._cls = weakref.ref(tensor), type(tensor)
        else:
            self._tensor, self._data, self._weak, self._cls = tensor, None, None, None

    def _pack(self, tensor, hooks) -> None:
        pack_hook, self._unpack_hook = hooks
        self._tensor = self._data = self._weak = self._cls = None
        # Ops inside the hook save tensors too; torch does not pack those again.
        stack, _HOOKS.stack = _HOOKS.stack, []
        try:
            self._packed = pack_hook(tensor)
        finally:
            _HOOKS.stack = stack

    def unpack(self, node):
        """The saved tensor, checked against in-place modification."""
        if self.released:
            raise RuntimeError(SAVED_FREED_MESSAGE)
        if self._unpack_hook is not None:
            return self._unpack_hooked()
        if self._version.value != self._saved_version:
            raise RuntimeError(self.version_error(node))
        if not self._is_output:
            return self._tensor
        tensor = self._weak()
        if tensor is None or tensor._grad_fn is not node:
            tensor = self._cls._saved_output(self._data, node, self._output_nr, self._version)
        return tensor

    def _unpack_hooked(self):
        result = self._unpack_hook(self._packed)
        if not hasattr(result, "_data"):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result "
                f"of type {type(result).__name__}")
        return result

    def check_version(self, node) -> None:
        """Raise the in-place error now, before a backward touches anything."""
        if self.released or self._unpack_hook is not None:
            return
        if self._version.value != self._saved_version:
            raise RuntimeError(self.version_error(node))

    def version_error(self, node) -> str:
        return version_error_message(self, node)

    def release(self) -> None:
        self.released = True
        self._tensor = self._data = self._weak = self._packed = None


def version_error_message(saved: SavedTensor, node) -> str:
    """torch's text, e.g. ``[torch.FloatTensor [3]], which is output 0 of ExpBackward0``."""
    tensor = saved._tensor if saved._tensor is not None else (
        saved._weak() if saved._weak is not None else None)
    data = saved._data if saved._data is not None else tensor._data
    grad_fn, output_nr = (node, saved._output_nr) if saved._is_output else (
        (tensor._grad_fn, tensor._output_nr) if tensor is not None else (None, 0))
    origin = (output_nr, grad_fn.name()) if grad_fn is not None else None
    return version_error_text(f"torch.{get_dtype(data.dtype)._legacy}Tensor", data.shape,
                              origin, saved._version.value, saved._saved_version,
                              ANOMALY.enabled)


def version_error_text(type_name: str, shape, origin, version: int, expected: int,
                       anomaly: bool) -> str:
    """torch's words for a saved tensor changed in place; ``origin`` is (output number,
    node name) when the tensor came from a node (also used for real torch's, when watched)."""
    dims = ", ".join(str(s) for s in shape)
    text = ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{type_name} [{dims}]]")
    if origin is not None:
        text += f", which is output {origin[0]} of {_short_name(origin[1])},"
    text += f" is at version {version}; expected version {expected} instead. "
    if anomaly:
        return text + ("Hint: the backtrace further above shows the operation that failed to "
                       "compute its gradient. The variable in question was changed in there "
                       "or anywhere later. Good luck!")
    return text + ("Hint: enable anomaly detection to find the operation that failed to "
                   "compute its gradient, with "
                   "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _short_name(name: str) -> str:
    """torch names the op here, with its overload: ``AddBackward0`` -> ``Add``,
    ``ClampBackward1`` -> ``Clamp1``, a custom ``FBackward`` -> ``F``; C++ nodes keep their
    names (``torch::autograd::CopySlices``, ``torch::autograd::CopyBackwards``)."""
    return re.sub(r"Backward(\d*)$", lambda m: "" if m.group(1) in ("", "0") else m.group(1),
                  name)
