"""In-place ops: torch's checks (a leaf that requires grad, a view made in no-grad
mode), recording onto the target, and writing arrays into a tensor."""

from __future__ import annotations

from ... import backend
from ...graph.grad_mode import MODE
from ...graph.saved import SavedTensor
from ...tensor import Tensor
from .arguments import must_be
from .running import _NDARRAY, _raise_device_mismatch, _view_inplace_message
from .registry import Op


# ----------------------------------------------------------------------------- in-place ops

LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."


def apply_inplace(op: Op, target: Tensor, args: tuple, attrs: dict) -> Tensor:
    """``target.<op>_(*args)``: compute out of place, write back, bump the version.

    With grad recording, ``target`` is rebased onto the new node (torch's rebase
    of history). The node saves a snapshot of the old value if it needs it.
    """
    recording = _inplace_recording(op, target, args)
    if not recording:
        arrays, _, xp = op.unwrap((target, *args))
        try:
            result = op.forward(xp, *arrays, **attrs)
        except ValueError:
            op.explain_failure(arrays)
            raise
        result = result[0] if op.extras else result
        _check_written_device(target, result)
        write_into(target, result)
        return target
    first = target
    if any(spec[1] == "arg" and spec[2] == 0 for spec in op.save_specs):  # may save old self
        first = Tensor._wrap(target._data.copy(), target._grad_fn, target._output_nr)
        first._requires_grad = target._requires_grad
    result = op(first, *args, **attrs)
    _check_written_device(target, result._data)
    node = result._grad_fn
    if target._base is not None:
        from .inplace_views import rebase_view  # CopySlices: the write changes the base too
        rebase_view(target, result)
    else:
        write_into(target, result._data)
        target._set_history(node, 0)
    if node._saved is not None and "result" in node._saved:
        node._saved["result"] = SavedTensor(target, True)
    return target


def _check_written_device(target: Tensor, array) -> None:
    """A 0-d CPU tensor may join a GPU op as an input (see ``_unwrap_elementwise``), never
    as the tensor written: ``cpu_scalar.add_(gpu_tensor)`` is torch's device error."""
    # (exact types first: every in-place op passes here, and nearly all stay on the host)
    if type(array) is not _NDARRAY and type(target._data) is _NDARRAY \
            and not backend.is_cpu_array(array):
        _raise_device_mismatch((target, Tensor._wrap(array)))


def _inplace_recording(op: Op, target: Tensor, args: tuple) -> bool:
    """Whether ``target.<op>_(*args)`` is recorded, after torch's refusals of the write."""
    if not isinstance(target, Tensor):
        name = op.name if op.name.endswith("_") else f"{op.name}_"
        raise must_be(name, "input", 1, "Tensor", target)
    recording = MODE.grad_enabled and (
        target.requires_grad or any(isinstance(a, Tensor) and a.requires_grad for a in args))
    check_inplace(target, recording)
    if recording and target._grad_fn is None and target._requires_grad:
        raise RuntimeError(LEAF_INPLACE_MESSAGE)
    if recording and target._base is not None and target._base._grad_fn is None and \
            target._base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    return recording


def apply_shape_inplace(op: Op, target: Tensor, attrs: dict) -> Tensor:
    """``target.unsqueeze_(0)``...: ``target`` takes the shape of ``op``'s result over the
    same memory and, when recorded, its node (torch's ``...Backward1`` nodes). No element
    changes, so a view stays its base's view without a CopySlices."""
    recording = _inplace_recording(op, target, ())
    result = op(target, **attrs)
    target._data = result._data
    target._bump_version()
    if recording:
        target._set_history(result._grad_fn, 0)
    return target


def check_inplace(target: Tensor, recording: bool, made_in=None) -> None:
    """torch's refusals of an in-place write before anything is written: an inference tensor
    (or a view of one) outside inference mode; a view made in no_grad or inference mode
    while grad mode records the write (torch: such a view requires grad with its base).
    ``made_in`` overrides the target's own (setitem writes through a further view)."""
    base = target._base
    made_in = made_in or target._made_in
    if (target._inference or base is not None and base._inference) and not MODE.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")
    if made_in is not None and MODE.grad_enabled and (recording or base._requires_grad):
        raise RuntimeError(_view_inplace_message(made_in))


def can_cast(src, dst) -> bool:
    """torch's ``canCast`` for in-place results: no float into an integer tensor and nothing
    but bool into a bool one; any width otherwise (int64 into uint8 is allowed, and wraps)."""
    if src.kind in "fc" and dst.kind in "biu":
        return False
    return src.kind == "b" or dst.kind != "b"


def write_into(target: Tensor, array) -> None:
    """Copy ``array`` into ``target``'s storage (so views see it) and bump the version."""
    data = target._data
    if array.shape != data.shape:
        raise RuntimeError(f"output with shape {list(data.shape)} doesn't match the broadcast "
                           f"shape {list(array.shape)}")
    if array.dtype != data.dtype and not can_cast(array.dtype, data.dtype):
        src, dst = backend.get_dtype(array.dtype), backend.get_dtype(data.dtype)
        raise RuntimeError(f"result type {src._legacy} can't be cast to the desired output type "
                           f"{dst._legacy}")
    if not getattr(data.flags, "writeable", True):   # CuPy arrays have no such flag
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
    data[...] = array
    target._bump_version()
