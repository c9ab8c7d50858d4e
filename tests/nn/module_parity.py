"""Helpers for the nn tests that run one scenario with agdebug and with torch and compare what
each returns (values, names, errors)."""

from __future__ import annotations

import warnings

import numpy as np

import agdebug as ag


def plain(value):
    """What a scenario returns, made comparable across the two libraries: tensors become
    ("tensor", dtype, shape, requires_grad, float64 values), modules their class name,
    exceptions (type name, message); dicts, lists and tuples are walked."""
    if hasattr(value, "detach") and hasattr(value, "dtype"):
        return ("tensor", str(value.dtype), tuple(value.shape), value.requires_grad,
                value.detach().numpy().astype(np.float64))
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "training") and hasattr(value, "_modules"):
        return f"<{type(value).__name__}>"
    if isinstance(value, BaseException):
        return (type(value).__name__, str(value))
    return value


def same(got, want) -> None:
    """``got == want`` for two ``plain`` results, tensor values to rtol 1e-6."""
    if isinstance(want, tuple) and want and want[0] == "tensor":
        assert got[:4] == want[:4]
        np.testing.assert_allclose(got[4], want[4], rtol=1e-6, atol=1e-12)
    elif isinstance(want, dict):
        assert list(got) == list(want), (got, want)
        for k in want:
            same(got[k], want[k])
    elif isinstance(want, list):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        assert got == want


def both(torch, scenario) -> None:
    """Run ``scenario(lib)`` with agdebug and torch; the results must be the same."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(plain(scenario(ag)), plain(scenario(torch)))


def raised(fn):
    """``(type name, first line of the message)`` of what ``fn()`` raises; None if nothing."""
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the error itself is compared
        return type(e).__name__, str(e).splitlines()[0]
    return None
