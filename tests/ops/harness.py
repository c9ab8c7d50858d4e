"""The op test harness: one list of cases, checked against independent oracles.

Each ``cases_<module>.py`` defines ``CASES``: a list of :class:`Case`. A case's
``fn(lib, *tensors)`` runs unchanged with ``lib`` = agdebug and ``lib`` = torch,
so the same code is the test and the oracle's input. For every case:

* first-order gradients match central differences in float64 (a random
  projection of the outputs, as HIPS/autograd's ``check_grads`` does);
* second-order gradients (``create_graph=True``) match central differences of
  the first-order gradients;
* where torch is installed: values, gradients and the ``grad_fn`` name match.
"""

from __future__ import annotations

import dataclasses
import importlib
import pathlib
from typing import Callable

import numpy as np

import agdebug as ag

EPS = 1e-6


@dataclasses.dataclass
class Case:
    op: str                         # the OPS name this case covers
    fn: Callable                    # fn(lib, *tensors) -> Tensor or tuple of Tensors
    inputs: list                    # numpy arrays; floating ones require grad
    second_order: bool = True       # check d2 too (off for ops whose d2 is not defined)
    numeric: bool = True            # off only where float64 differences cannot see the op
    torch: bool = True              # compare with torch where installed
    grad_fn: str | None = None      # expected grad_fn name of the (first) output
    atol: float = 1e-5
    rtol: float = 1e-3
    id: str = ""

    def __post_init__(self):
        self.id = self.id or self.op


def all_cases() -> list[Case]:
    cases = []
    for path in sorted(pathlib.Path(__file__).parent.glob("cases_*.py")):
        module = importlib.import_module(f"tests.ops.{path.stem}")
        cases.extend(module.CASES)
    return cases


def make_inputs(case: Case, lib=ag):
    out = []
    for a in case.inputs:
        a = np.array(a)
        if lib is ag:
            t = ag.tensor(a.copy(), dtype=ag.backend.get_dtype(a.dtype))
        else:
            t = lib.tensor(a.copy())
        if a.dtype.kind == "f":
            t.requires_grad_(True)
        out.append(t)
    return out


def outputs_of(result) -> list:
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    return [t for t in items if t.is_floating_point()]


def projected(case: Case, xs: list, lib=ag):
    """sum_i <out_i, v_i> with fixed random v: one scalar whose gradient covers the op."""
    rng = np.random.default_rng(1)
    total = None
    for out in outputs_of(case.fn(lib, *xs)):
        v = rng.standard_normal(tuple(out.shape))
        term = (out * lib.tensor(v, dtype=out.dtype)).sum()
        total = term if total is None else total + term
    return total


def numeric_grad(f: Callable[[list], float], arrays: list, index: int) -> np.ndarray:
    """Central differences of scalar f with respect to arrays[index]."""
    base = arrays[index]
    grad = np.zeros_like(base, dtype=np.float64)
    flat = base.reshape(-1)
    for k in range(flat.size):
        old = flat[k]
        flat[k] = old + EPS
        hi = f(arrays)
        flat[k] = old - EPS
        lo = f(arrays)
        flat[k] = old
        grad.reshape(-1)[k] = (hi - lo) / (2 * EPS)
    return grad


def float_indices(case: Case) -> list[int]:
    return [i for i, a in enumerate(case.inputs) if np.array(a).dtype.kind == "f"]


def analytic_first(case: Case, arrays: list) -> list:
    xs = [ag.tensor(a.copy(), dtype=ag.backend.get_dtype(a.dtype),
                    requires_grad=a.dtype.kind == "f") for a in arrays]
    idx = float_indices(case)
    y = projected(case, xs)
    grads = ag.autograd.grad(y, [xs[i] for i in idx], allow_unused=True)
    return [np.zeros_like(arrays[i]) if g is None else g.detach().numpy().copy()
            for i, g in zip(idx, grads)]


def analytic_second(case: Case, arrays: list) -> list:
    """Gradient of <grad f, u> (u fixed random): a Hessian-vector product."""
    xs = [ag.tensor(a.copy(), dtype=ag.backend.get_dtype(a.dtype),
                    requires_grad=a.dtype.kind == "f") for a in arrays]
    idx = float_indices(case)
    y = projected(case, xs)
    grads = ag.autograd.grad(y, [xs[i] for i in idx], create_graph=True, allow_unused=True)
    rng = np.random.default_rng(2)
    total = None
    for i, g in zip(idx, grads):
        u = rng.standard_normal(arrays[i].shape)   # drawn for every input, as projected_first
        if g is None or not g.requires_grad:
            continue
        term = (g * ag.tensor(u)).sum()
        total = term if total is None else total + term
    if total is None:
        return [np.zeros_like(arrays[i]) for i in idx]
    second = ag.autograd.grad(total, [xs[i] for i in idx], allow_unused=True)
    return [np.zeros_like(arrays[i]) if g is None else g.detach().numpy().copy()
            for i, g in zip(idx, second)]


def projected_first(case: Case, arrays: list) -> float:
    """<grad f, u> as a plain number (u as in analytic_second)."""
    rng = np.random.default_rng(2)
    total = 0.0
    for g in analytic_first(case, arrays):
        total += float((g * rng.standard_normal(g.shape)).sum())
    return total
