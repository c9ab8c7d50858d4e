"""``x[key] = value`` and ``index_put``: writes through an index, as torch records them
(CopySlices, IndexPutBackward0), and the Tensor methods of indexing."""

from __future__ import annotations

import numbers

import numpy as np

from ...graph.grad_mode import MODE
from ...tensor import Tensor
from ..core.inplace import LEAF_INPLACE_MESSAGE, apply_inplace, check_inplace
from ..core.running import _unwrap
from ..core.checks import dims_of
from .subscript import (VIEW_LEAF_MESSAGE, _Plan, _legacy, _put, _view_shape, copy_slices, getitem,
                        index_put_op, plan_key)


# ----------------------------------------------------------------------------- x[key] = value

def setitem(self: Tensor, key, value) -> None:
    """``x[key] = value`` in place: CopySlices (basic) or IndexPutBackward0 (advanced)."""
    value = _value_operand(self, value)
    plan = plan_key(self, key)
    key = plan.key()
    _check_value_shape(self, key, value)
    recording = MODE.grad_enabled and (
        self.requires_grad or (isinstance(value, Tensor) and value.requires_grad))
    made_in = self._made_in
    if made_in is not None and key[1] is None:
        # torch writes ``v[0] = x`` through the view v.select(0, 0), a view of v
        through = _written_view(plan, self.shape)
        made_in = made_in if through is None else (made_in[0], through)
    check_inplace(self, recording, made_in)
    if not recording:
        _write(self, key, value)
        return
    if self._grad_fn is None and self._requires_grad:
        raise RuntimeError(VIEW_LEAF_MESSAGE if key[1] is None else LEAF_INPLACE_MESSAGE)
    op = copy_slices if key[1] is None else index_put_op
    apply_inplace(op, self, (value,), {"key": key})


_VIEW_NAMES = {"select": "Select", "slice": "Slice", "none": "Unsqueeze"}


def _written_view(plan: _Plan, shape: tuple) -> str | None:
    """The view op torch's ``v[key] = x`` writes through; None when the key takes no view."""
    steps = plan.steps
    if not steps or (len(steps) == 1 and steps[0][0] == "slice"
                     and steps[0][2:] == (0, shape[0], 1)):   # ``v[:] = x`` writes v itself
        return None
    return _VIEW_NAMES[steps[-1][0]]


def _value_operand(self: Tensor, value):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, numbers.Number)):
        return value.item() if hasattr(value, "item") else value
    raise TypeError(f"can't assign a {type(value).__name__} to a "
                    f"torch.{_legacy(self._data.dtype)}Tensor")


def _write(self: Tensor, key: tuple, value) -> None:
    arrays, _, xp = _unwrap((self, value))
    if not getattr(self._data.flags, "writeable", True):   # CuPy arrays have no such flag
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
    _put(xp, self._data, key, arrays[1], False)
    self._bump_version()


def _check_value_shape(self: Tensor, key: tuple, value) -> None:
    if not isinstance(value, Tensor):
        return
    basic, adv = key
    target = _view_shape(self._data.shape, list(basic))
    have = tuple(value.shape)
    if adv is not None:
        target = _adv_shape(target, adv)
        try:
            np.broadcast_shapes(have, target)
            ok = np.broadcast_shapes(have, target) == target
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(have)} cannot be "
                               f"broadcast to indexing result of shape {list(target)}")
        return
    _check_expand(have, target, value._data.dtype)


def _check_expand(have: tuple, target: tuple, dtype) -> None:
    while have and have[0] == 1 and len(have) > len(target):
        have = have[1:]    # torch strips leading 1s of the value first
    if len(have) > len(target):
        raise RuntimeError(
            f"expand(torch.{_legacy(dtype)}Tensor{{{list(have)}}}, size={list(target)}): the "
            f"number of sizes provided ({len(target)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({len(have)})")
    lead = len(target) - len(have)
    for i, s in enumerate(have):
        if s != 1 and s != target[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing "
                f"size ({s}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(have)}")


def _adv_shape(view_shape: tuple, adv: tuple) -> tuple:
    """The shape of ``view[adv]`` (numpy's placement rules), without indexing."""
    dims = [d for d, a in enumerate(adv) if not isinstance(a, slice)]
    broadcast = np.broadcast_shapes(*(adv[d].shape for d in dims))
    rest = [s for d, s in enumerate(view_shape) if d not in dims]
    first = dims[0]
    if dims == list(range(first, dims[-1] + 1)):
        return tuple(rest[:first]) + broadcast + tuple(rest[first:])
    return broadcast + tuple(rest)


def _indices_key(self: Tensor, indices) -> tuple:
    return plan_key(self, tuple(indices)).key()


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` put (or added, ``accumulate=True``) at ``indices``."""
    return index_put_op(input, values, key=_indices_key(input, indices), accumulate=accumulate)


def index_put_(self, indices, values, accumulate=False):
    key = _indices_key(self, indices)
    return apply_inplace(index_put_op, self, (values,), {"key": key, "accumulate": accumulate})


def _select_method(self, dim, index):
    """``x.select(dim, index)``: indexing, with select's own error texts (torch's)."""
    if self.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = dims_of(dim, self.ndim)[0]
    size = self.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self.shape)} at dimension {dim}")
    return getitem(self, (slice(None),) * dim + (index,))


METHODS = {
    "__getitem__": getitem, "__setitem__": setitem,
    "index_put": index_put, "index_put_": index_put_,
    "select": _select_method,
}

FUNCTIONS = {"index_put": index_put, "select": METHODS["select"]}
