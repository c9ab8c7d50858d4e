"""``assert_equal``: what torch's ``TestCase.assertEqual`` checks, over the module in use.

Tensors must agree in shape and (unless ``exact_dtype=False``) dtype, and in value within the
dtype's default tolerance of ``torch.testing.assert_close``; a Python number or bool compared
with a tensor is read as a tensor of that tensor's dtype. Sequences compare item by item;
anything else with ``==``.
"""

from __future__ import annotations

import numpy as np

# torch.testing.assert_close's defaults (rtol, atol) per dtype
TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
              "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def assert_equal(torch, actual, expected, rtol=None, atol=None, exact_dtype=True) -> None:
    """Raises AssertionError where ``actual`` and ``expected`` differ as torch's tests see it."""
    tensors = [isinstance(v, torch.Tensor) for v in (actual, expected)]
    if any(tensors):
        _tensors_equal(torch, actual, expected, rtol, atol, exact_dtype and all(tensors))
    elif isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        assert len(actual) == len(expected), f"lengths {len(actual)} and {len(expected)}"
        for a, e in zip(actual, expected):
            assert_equal(torch, a, e, rtol, atol, exact_dtype)
    else:
        assert actual == expected, f"{actual!r} != {expected!r}"


def _tensors_equal(torch, actual, expected, rtol, atol, exact_dtype) -> None:
    like = actual if isinstance(actual, torch.Tensor) else expected
    a, e = _values(torch, actual, like), _values(torch, expected, like)
    if exact_dtype:
        assert str(actual.dtype) == str(expected.dtype), f"{actual.dtype} != {expected.dtype}"
    assert a.shape == e.shape, f"shapes {a.shape} and {e.shape}"
    name = str(like.dtype).rpartition(".")[2]
    default_rtol, default_atol = TOLERANCES.get(name, (0.0, 0.0))
    np.testing.assert_allclose(a, e, rtol=default_rtol if rtol is None else rtol,
                               atol=default_atol if atol is None else atol, equal_nan=True)


def _values(torch, value, like) -> np.ndarray:
    if not isinstance(value, torch.Tensor):
        return np.full(tuple(like.shape), value)
    value = value.detach().cpu()
    if str(value.dtype) == "torch.bfloat16":   # NumPy has no bfloat16
        value = value.float()
    return value.numpy()
