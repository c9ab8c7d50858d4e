"""One expression run with agdebug and with torch, compared as a torch user sees it.

``lib`` names the library in the expression (``lib.ones(2) + 1``), ``F`` its
``nn.functional``, and ``setup`` adds named values built the same way first. Both
must raise the same exception type with the same first line of text, or both return
tensors with the same dtype, shape, requires_grad, grad_fn name and values.
"""

from __future__ import annotations

import warnings

import numpy as np

import agdebug as ag


def leaf(*shape, dtype: str = "float64", scale=None, step: float = 0.37) -> str:
    """An expression for a deterministic leaf that requires grad, built the same way by both
    libraries: ``sin(step * k)`` for k = 0, 1, ... laid out in ``shape`` (times ``scale``)."""
    n = int(np.prod(shape))
    scaled = "" if scale is None else f".mul({scale})"
    return (f"lib.arange({n}, dtype=lib.{dtype}).reshape{shape}.mul({step}).sin(){scaled}"
            ".detach().requires_grad_()")


def evaluate(lib, expr: str, setup: dict | None = None):
    """``("ok", value)`` or ``("error", exception)``; warnings are not part of the result."""
    import agdebug.nn.functional as agdebug_functional
    functional = agdebug_functional if lib is ag else lib.nn.functional
    scope = {"lib": lib, "F": functional}
    for name, text in (setup or {}).items():
        scope[name] = eval(text, scope)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", eval(expr, scope)
    except Exception as e:   # noqa: BLE001 - the error itself is compared
        return "error", e


def assert_same_as_torch(torch, expr: str, setup: dict | None = None, ulps: int = 0) -> None:
    """``ulps``: values may also differ by that many units in the last place of torch's
    largest one (for solves, where an exact 0 comes out as either library's rounding noise);
    0, the default, leaves the relative tolerance alone."""
    kind, got = evaluate(ag, expr, setup)
    want_kind, want = evaluate(torch, expr, setup)
    if want_kind == "error":
        assert kind == "error", f"torch raises {type(want).__name__}: {want}; agdebug returned"
        assert type(got).__name__ == type(want).__name__, f"{type(got).__name__}: {got}"
        assert str(got).splitlines()[0] == str(want).splitlines()[0]
        return
    assert kind == "ok", f"agdebug raised {type(got).__name__}: {got}"
    outs, wants = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(outs) == len(wants)
    for g, w in zip(outs, wants):
        assert str(g.dtype) == str(w.dtype)
        assert tuple(g.shape) == tuple(w.shape)
        assert g.requires_grad == w.requires_grad
        assert _node_name(g) == _node_name(w)
        theirs = w.detach().numpy()
        np.testing.assert_allclose(g.detach().numpy().astype(np.float64),
                                   theirs.astype(np.float64), rtol=1e-6, atol=_ulps(theirs, ulps),
                                   equal_nan=True)


def _ulps(values: np.ndarray, count: int) -> float:
    """``count`` units in the last place of the largest finite value."""
    if not count or values.dtype.kind not in "fc" or values.size == 0:
        return 0.0
    finite = np.abs(values[np.isfinite(values)])
    return count * float(np.finfo(values.dtype).eps) * float(finite.max()) if finite.size \
        else 0.0


def _node_name(t):
    return None if t.grad_fn is None else t.grad_fn.name()


def assert_same_with_grads(torch, expr: str, setup: dict, rtol: float = 1e-6,
                           atol: float = 1e-12) -> None:
    """``assert_same_as_torch``, then the gradients of every leaf in ``setup`` for the same
    fixed upstream gradient of the result (the first output of a tuple), to ``rtol`` and
    ``atol`` (wider for float32, whose sums torch may add in another order)."""
    assert_same_as_torch(torch, expr, setup)
    grads = []
    for lib in (ag, torch):
        kind, out = evaluate(lib, f"(({expr}), {', '.join(setup)})", setup)
        if kind == "error":
            return
        result, leaves = out[0], out[1:]
        if isinstance(result, tuple):
            result = result[0]
        if not result.requires_grad:
            return
        upstream = lib.arange(result.numel(), dtype=result.dtype).reshape(result.shape).cos()
        (result * upstream).sum().backward()
        grads.append([None if getattr(t, "grad", None) is None else t.grad.numpy()
                      for t in leaves])
    for got, want in zip(*grads):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def graph_names(t) -> list:
    """The names of the nodes behind ``t``, depth first (None for an edge to nothing)."""
    names, stack = [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        names.append(None if fn is None else fn.name())
        if fn is not None:
            stack.extend(f for f, _ in reversed(fn.next_functions))
    return names
