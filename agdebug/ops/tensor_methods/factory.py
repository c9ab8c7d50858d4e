"""``Tensor.new_zeros``, ``new_ones``, ``new_full``, ``new_empty``, ``new_tensor``.

New tensors that take their dtype and device from ``self`` unless told otherwise.
They are made, not computed: no graph, ``requires_grad`` only when asked.
The creation functions do the work (imported when called: ``creation`` imports
this package).
"""

from __future__ import annotations

import warnings

from ...tensor import Tensor


def _placed(self, dtype, device) -> dict:
    return {"dtype": dtype if dtype is not None else self.dtype,
            "device": device if device is not None else self.device}


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    """Zeros of ``size`` with ``self``'s dtype and device.

    >>> import agdebug as ag
    >>> ag.tensor([1, 2]).new_zeros(2, 1).dtype
    torch.int64
    """
    from ... import creation
    return creation.zeros(*size, requires_grad=requires_grad, **_placed(self, dtype, device))


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    from ... import creation
    return creation.ones(*size, requires_grad=requires_grad, **_placed(self, dtype, device))


def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    from ... import creation
    return creation.empty(*size, requires_grad=requires_grad, **_placed(self, dtype, device))


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    if not isinstance(size, (tuple, list)):   # unlike new_zeros, torch takes no bare int here
        raise TypeError("new_full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    from ... import creation
    return creation.full(size, fill_value, requires_grad=requires_grad,
                         **_placed(self, dtype, device))


def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """A copy of ``data`` with ``self``'s dtype and device (``dtype=`` overrides)."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
    from ... import creation
    placed = _placed(self, dtype, device)
    array = creation._default_array(data, placed["dtype"])
    return creation._finish(array, placed["dtype"], placed["device"], requires_grad)


def new(self, *args, device=None):
    """The legacy ``self.new(2, 3)`` / ``self.new([1, 2])``: ``torch.<Type>Tensor(*args)``
    with ``self``'s dtype and device (see agdebug/legacy.py)."""
    from ... import legacy
    return legacy.new(self.dtype, args, device if device is not None else self.device)


METHODS = {"new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty,
           "new_full": new_full, "new_tensor": new_tensor, "new": new}
