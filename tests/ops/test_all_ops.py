"""Every registered op: numerical gradients (first and second order) and torch."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.ops import OPS

from .harness import (all_cases, analytic_first, analytic_second, float_indices, make_inputs,
                      numeric_grad, outputs_of, projected, projected_first)

CASES = all_cases()
DIFFERENTIABLE = [c for c in CASES
                  if OPS[c.op].differentiable and float_indices(c) and c.numeric]


def _arrays(case):
    return [np.array(a, dtype=np.array(a).dtype).copy() for a in case.inputs]


def test_every_op_has_a_case():
    covered = {c.op for c in CASES}
    missing = sorted(set(OPS) - covered)
    assert not missing, f"ops without a test case in tests/ops/cases_*.py: {missing}"


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=[c.id for c in DIFFERENTIABLE])
def test_first_order_matches_central_differences(case):
    arrays = _arrays(case)

    def f(arrs):
        xs = [ag.tensor(a, dtype=ag.backend.get_dtype(a.dtype)) for a in arrs]
        with ag.no_grad():
            return float(projected(case, xs).item())

    analytic = analytic_first(case, arrays)
    for k, i in enumerate(float_indices(case)):
        numeric = numeric_grad(f, arrays, i)
        np.testing.assert_allclose(analytic[k], numeric, atol=case.atol, rtol=case.rtol,
                                   err_msg=f"{case.id}: d/d input {i}")


@pytest.mark.parametrize("case", [c for c in DIFFERENTIABLE if c.second_order],
                         ids=[c.id for c in DIFFERENTIABLE if c.second_order])
def test_second_order_matches_central_differences(case):
    arrays = _arrays(case)
    analytic = analytic_second(case, arrays)
    for k, i in enumerate(float_indices(case)):
        numeric = numeric_grad(lambda arrs: projected_first(case, arrs), arrays, i)
        np.testing.assert_allclose(analytic[k], numeric, atol=case.atol * 10, rtol=case.rtol * 10,
                                   err_msg=f"{case.id}: d2 / d input {i}")


TORCH_CASES = [c for c in CASES if c.torch]


@pytest.mark.parametrize("case", TORCH_CASES, ids=[c.id for c in TORCH_CASES])
def test_matches_torch(case, torch):
    ours = make_inputs(case, ag)
    theirs = make_inputs(case, torch)
    out = case.fn(ag, *ours)
    ref = case.fn(torch, *theirs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    refs = list(ref) if isinstance(ref, (tuple, list)) else [ref]
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        np.testing.assert_allclose(o.detach().numpy(), r.detach().numpy(), atol=1e-6, rtol=1e-5,
                                   err_msg=f"{case.id}: values")
        assert (o.grad_fn is None) == (r.grad_fn is None), case.id
        if r.grad_fn is not None:
            assert o.grad_fn.name() == r.grad_fn.name(), case.id
    if case.grad_fn is not None:
        assert outs[0].grad_fn.name() == case.grad_fn
    diff_refs = outputs_of(ref)
    if not diff_refs:
        return
    y = projected(case, ours, ag)
    y_ref = projected(case, theirs, torch)
    idx = float_indices(case)
    g = ag.autograd.grad(y, [ours[i] for i in idx], allow_unused=True)
    g_ref = torch.autograd.grad(y_ref, [theirs[i] for i in idx], allow_unused=True)
    for a, b in zip(g, g_ref):
        if b is None:
            assert a is None or not np.any(a.detach().numpy()), case.id
        else:
            np.testing.assert_allclose(a.detach().numpy(), b.numpy(), atol=1e-6, rtol=1e-5,
                                       err_msg=f"{case.id}: gradients")
