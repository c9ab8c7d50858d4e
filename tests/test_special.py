"""``agdebug.special`` against ``torch.special``: values, gradients and the nodes recorded."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug import special

CALLS = {
    "digamma": "f(x)", "erf": "f(x)", "erfc": "f(x)", "erfinv": "f(x * 0.5)", "exp2": "f(x)",
    "expit": "f(x)", "expm1": "f(x)", "gammaln": "f(x)", "i0": "f(x)", "i1": "f(x)", "log1p": "f(x)",
    "log_softmax": "f(x, 0)", "logit": "f(x * 0.5)", "logsumexp": "f(x, 0)",
    "multigammaln": "f(x + 1, 2)", "polygamma": "f(1, x)", "psi": "f(x)", "round": "f(x)",
    "sinc": "f(x)", "softmax": "f(x, 0)", "xlogy": "f(x, x + 1)",
}


def test_every_name_is_tested():
    assert sorted(CALLS) == sorted(special.__all__)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_special_matches_torch(torch, name):
    def run(lib, namespace):
        x = lib.tensor([0.3, 0.7, 1.4], dtype=lib.float64, requires_grad=True)
        y = eval(CALLS[name], {"f": getattr(namespace, name), "x": x})
        node = y.grad_fn.name() if y.grad_fn is not None else None
        if y.requires_grad:
            y.sum().backward()
        grad = x.grad.tolist() if x.grad is not None else None
        return y.detach().numpy(), node, grad
    ours, theirs = run(ag, special), run(torch, torch.special)
    # (digamma and polygamma are series of their own in each library: close, not bitwise)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-8)
    assert ours[1] == theirs[1]
    if theirs[2] is not None:
        np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-8)
