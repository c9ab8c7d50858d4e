"""Cases for agdebug/ops/tensor_methods/device.py (``to_device``, torch's ``_to_copy``).

On one machine the op is exercised as ``x.to("cpu", copy=True)``: torch records the same
``ToCopyBackward0`` for it. The CPU <-> CUDA moves themselves are checked on CuPy's test
double in tests/test_devices.py.
"""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(5)
A = rng.standard_normal((2, 3))

CASES = [
    Case("to_device", lambda t, x: x.to("cpu", copy=True), [A], grad_fn="ToCopyBackward0"),
    Case("to_device", lambda t, x: (x * x).to(device="cpu", copy=True).exp(), [A],
         id="to_device_in_a_chain"),
]


def _copy(t, x, y):
    """``x.copy_(y)``; in agdebug the op of a copy from another device, called directly (one
    machine has one device, so ``copy_`` itself takes the same-device op)."""
    if t.__name__ == "agdebug":
        return t.ops.OPS["copy_across_devices"](x, y, source=y.device)
    return (x * 1).copy_(y)


CASES += [
    Case("copy_across_devices", _copy, [A, A[0]]),
]
