"""``agdebug.distributions`` against ``torch.distributions``: values, gradients, shapes,
validation errors and reprs (samples come from different generators: only their shapes,
support and frequencies are compared)."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug import distributions as D

LOC, SCALE = [0.5, -1.0, 2.0], [1.0, 0.5, 3.0]
PROBS = [[0.2, 0.3, 0.5], [0.7, 0.1, 0.2]]

# name: (distribution from (lib, D, params), params, values to score)
CASES = {
    "normal": (lambda d, p: d.Normal(*p), (LOC, SCALE), [0.1, -2.0, 5.0]),
    "normal scalar-broadcast": (lambda d, p: d.Normal(p[0], 2.0), (LOC,), [0.0, 1.0, 2.0]),
    "uniform": (lambda d, p: d.Uniform(*p), ([0.0, -1.0], [1.0, 3.0]), [0.5, 2.0]),
    "bernoulli probs": (lambda d, p: d.Bernoulli(probs=p[0]), ([0.2, 0.9],), [1.0, 0.0]),
    "bernoulli logits": (lambda d, p: d.Bernoulli(logits=p[0]), ([0.3, -2.0],), [1.0, 1.0]),
    "categorical probs": (lambda d, p: d.Categorical(probs=p[0]), (PROBS,), [2, 0]),
    "categorical logits": (lambda d, p: d.Categorical(logits=p[0]), (PROBS,), [1, 1]),
    "independent normal": (lambda d, p: d.Independent(d.Normal(*p), 1), (LOC, SCALE),
                           [0.0, 0.0, 0.0]),
}


def build(lib, case, requires_grad=True):
    make, params, values = CASES[case]
    module = D if lib is ag else lib.distributions
    tensors = [lib.tensor(p, dtype=lib.float64, requires_grad=requires_grad) for p in params]
    integer = "categorical" in case
    value = lib.tensor(values, dtype=lib.int64 if integer else lib.float64)
    return make(module, tensors), tensors, value


def numbers(t):
    return np.asarray(t.detach().tolist(), dtype=float)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("score", ["log_prob", "entropy", "mean", "variance", "stddev"])
def test_values_and_gradients_match_torch(torch, case, score):
    ours, our_params, our_value = build(ag, case)
    theirs, their_params, their_value = build(torch, case)

    def result(dist, value):
        return dist.log_prob(value) if score == "log_prob" else \
            dist.entropy() if score == "entropy" else getattr(dist, score)
    mine, real = result(ours, our_value), result(theirs, their_value)
    np.testing.assert_allclose(numbers(mine), numbers(real), rtol=1e-12, atol=1e-12)
    if not real.requires_grad or not np.isfinite(numbers(real)).all():
        return
    real.sum().backward()
    mine.sum().backward()
    for p, q in zip(our_params, their_params):
        expected = np.zeros(q.shape) if q.grad is None else numbers(q.grad)
        got = np.zeros(p.shape) if p.grad is None else numbers(p.grad)
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", ["normal", "uniform"])
def test_cdf_and_icdf_match_torch(torch, case):
    ours, _, value = build(ag, case)
    theirs, _, their_value = build(torch, case)
    np.testing.assert_allclose(numbers(ours.cdf(value)), numbers(theirs.cdf(their_value)),
                               rtol=1e-12)
    q = [0.25] * len(value)
    np.testing.assert_allclose(numbers(ours.icdf(ag.tensor(q, dtype=ag.float64))),
                               numbers(theirs.icdf(torch.tensor(q, dtype=torch.float64))),
                               rtol=1e-12)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_sample_shapes_and_support_match_torch(torch, case, shape):
    ours, _, _ = build(ag, case)
    theirs, _, _ = build(torch, case)
    mine, real = ours.sample(shape), theirs.sample(shape)
    assert tuple(mine.shape) == tuple(real.shape) and str(mine.dtype) == str(real.dtype)
    assert mine.grad_fn is None and not mine.requires_grad
    assert bool(ours.support.check(mine).all())
    assert (ours.batch_shape, ours.event_shape) == (theirs.batch_shape, theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample


def test_rsample_is_differentiable():
    loc = ag.tensor([0.5, -1.0], requires_grad=True)
    scale = ag.tensor([2.0, 0.5], requires_grad=True)
    draw = D.Normal(loc, scale).rsample((5,))
    draw.sum().backward()
    assert loc.grad.tolist() == [5.0, 5.0]
    np.testing.assert_allclose(numbers(scale.grad), numbers(((draw - loc) / scale).sum(0)),
                               rtol=1e-4, atol=1e-6)   # float32: eps recovered by division
    low, high = ag.tensor(1.0, requires_grad=True), ag.tensor(3.0, requires_grad=True)
    u = D.Uniform(low, high).rsample((100,))
    assert 1.0 <= u.min().item() and u.max().item() < 3.0
    u.sum().backward()
    assert abs(low.grad.item() + high.grad.item() - 100.0) < 1e-4


def test_categorical_frequencies_follow_the_probabilities():
    ag.manual_seed(0)
    draws = D.Categorical(probs=ag.tensor([0.1, 0.6, 0.3])).sample((20000,))
    counts = np.bincount(np.asarray(draws.tolist()), minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.1, 0.6, 0.3], atol=0.02)


INVALID = {
    "negative scale": lambda lib, d: d.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, -1.0])),
    "nan value": lambda lib, d: d.Normal(0.0, 1.0).log_prob(lib.tensor([float("nan")])),
    "probs above 1": lambda lib, d: d.Bernoulli(probs=lib.tensor(1.5)),
    "neither": lambda lib, d: d.Bernoulli(),
    "both": lambda lib, d: d.Bernoulli(probs=0.3, logits=0.1),
    "not a simplex": lambda lib, d: d.Categorical(lib.tensor([0.2, -1.0])),
    "0-d probs": lambda lib, d: d.Categorical(lib.tensor(0.2)),
    "outside support": lambda lib, d: d.Categorical(lib.tensor([0.2, 0.8])).log_prob(
        lib.tensor(2)),
    "low above high": lambda lib, d: d.Uniform(1.0, 0.0),
    "value outside": lambda lib, d: d.Uniform(0.0, 2.0).log_prob(lib.tensor([1.0, 3.0])),
    "value shape": lambda lib, d: d.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2)),
    "not a tensor": lambda lib, d: d.Normal(0.0, 1.0).log_prob(1.0),
    "independent dims": lambda lib, d: d.Independent(d.Normal(lib.zeros(3), 1.0), 2),
    "no kl": lambda lib, d: d.kl_divergence(d.Normal(0.0, 1.0), d.Categorical(lib.ones(2))),
}


@pytest.mark.parametrize("case", list(INVALID))
def test_errors_match_torch(torch, case):
    with pytest.raises(Exception) as theirs:
        INVALID[case](torch, torch.distributions)
    with pytest.raises(type(theirs.value)) as ours:
        INVALID[case](ag, D)
    assert str(ours.value) == str(theirs.value)


def test_reprs_match_torch(torch):
    for make in (lambda lib, d: d.Normal(lib.zeros(2), lib.ones(2)),
                 lambda lib, d: d.Normal(0.0, 1.0), lambda lib, d: d.Uniform(0, 1),
                 lambda lib, d: d.Bernoulli(logits=lib.tensor([0.3])),
                 lambda lib, d: d.Categorical(probs=lib.ones(2, 3)),
                 lambda lib, d: d.Independent(d.Normal(lib.zeros(3), 1.0), 1)):
        assert repr(make(ag, D)) == repr(make(torch, torch.distributions))


KL_PAIRS = {
    "normal": lambda lib, d, p: (d.Normal(p[0], p[1]), d.Normal(p[1], p[0] + 2.0)),
    "categorical": lambda lib, d, p: (d.Categorical(logits=p[0]), d.Categorical(logits=p[1])),
    "bernoulli": lambda lib, d, p: (d.Bernoulli(logits=p[0]), d.Bernoulli(logits=p[1])),
    "uniform": lambda lib, d, p: (d.Uniform(p[0] - 1, p[0] + 1), d.Uniform(p[0] - 2, p[1] + 3)),
    "independent": lambda lib, d, p: (d.Independent(d.Normal(p[0], 1.0), 1),
                                      d.Independent(d.Normal(p[1], 2.0), 1)),
}


@pytest.mark.parametrize("pair", list(KL_PAIRS))
def test_kl_divergence_matches_torch(torch, pair):
    values = ([0.2, 0.5, 0.1], [0.3, 0.1, 0.9])
    results = []
    for lib, module in ((ag, D), (torch, torch.distributions)):
        params = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
        kl = module.kl_divergence(*KL_PAIRS[pair](lib, module, params))
        kl.sum().backward()
        results.append([numbers(kl)] + [numbers(p.grad) if p.grad is not None else 0
                                        for p in params])
    for mine, real in zip(*results):
        np.testing.assert_allclose(mine, real, rtol=1e-10, atol=1e-12)
