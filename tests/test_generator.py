"""``agdebug.generator.Generator`` draws torch's CPU numbers for the same seed.

Uniforms, integers and permutations are exact integer arithmetic and float32 randn runs
Cephes' polynomials in IEEE steps, so those compare bitwise; float64 normals go through the
platform's log/sin/cos, so they compare to the last bits."""

from __future__ import annotations

import numpy as np
import pytest

from agdebug.generator import Generator

SEEDS = [0, 7, 2 ** 40 + 3]


def draws(torch):
    """(name, agdebug's draw, torch's draw, exact) in one order, from one seed."""
    return [
        ("rand float32", lambda g: g.uniform(1000, "float32"), lambda: torch.rand(1000), True),
        ("rand float64", lambda g: g.uniform(1000, "float64"),
         lambda: torch.rand(1000, dtype=torch.float64), True),
        ("uniform_ float32", lambda g: g.uniform(5000, "float32", -0.37, 0.81),
         lambda: torch.empty(5000).uniform_(-0.37, 0.81), True),
        ("uniform_ float64", lambda g: g.uniform(5000, "float64", -0.37, 0.81),
         lambda: torch.empty(5000, dtype=torch.float64).uniform_(-0.37, 0.81), True),
        ("randn float32 (16-blocks and a tail)", lambda g: g.normal(1003, "float32"),
         lambda: torch.randn(1003), True),
        ("randn of 5 (Box-Muller pairs)", lambda g: g.normal(5, "float32"),
         lambda: torch.randn(5), True),
        ("randn of 3 (the kept second value)", lambda g: g.normal(3, "float32"),
         lambda: torch.randn(3), True),
        ("normal_(0.5, 0.02)", lambda g: g.normal(4000, "float32", 0.5, 0.02),
         lambda: torch.empty(4000).normal_(0.5, 0.02), True),
        ("randn float64", lambda g: g.normal(999, "float64"),
         lambda: torch.randn(999, dtype=torch.float64), False),
        ("randint", lambda g: g.randint(-3, 10, 500), lambda: torch.randint(-3, 10, (500,)),
         True),
        ("randint past 2**32", lambda g: g.randint(0, 2 ** 40, 500),
         lambda: torch.randint(0, 2 ** 40, (500,)), True),
        ("randperm", lambda g: g.randperm(3000), lambda: torch.randperm(3000), True),
        ("exponential_", lambda g: g.exponential(500, "float32", 2.0),
         lambda: torch.empty(500).exponential_(2.0), True),
        ("geometric_", lambda g: g.geometric(500, "float32", 0.3),
         lambda: torch.empty(500).geometric_(0.3), True),
        ("cauchy_", lambda g: g.cauchy(500, "float32", 0.5, 2.0),
         lambda: torch.empty(500).cauchy_(0.5, 2.0), True),
        ("log_normal_", lambda g: g.log_normal(40, "float32"),
         lambda: torch.empty(40).log_normal_(), True),
        ("bernoulli_(p)", lambda g: g.bernoulli(500, 0.3),
         lambda: torch.empty(500, dtype=torch.bool).bernoulli_(0.3), True),
        ("bernoulli(tensor)", lambda g: g.bernoulli_each(np.full(500, 0.3, np.float32)),
         lambda: torch.bernoulli(torch.full((500,), 0.3)).bool(), True),
        ("multinomial with replacement",
         lambda g: g.multinomial(np.float32([[1, 2, 3, 4], [4, 0, 1, 1]]), 60, True),
         lambda: torch.multinomial(torch.tensor([[1., 2, 3, 4], [4, 0, 1, 1]]), 60, True), True),
        ("multinomial, one sample with replacement (torch's Gumbel fast path)",
         lambda g: g.multinomial(np.float32([[1, 2, 3, 4], [4, 0, 1, 1]]), 1, True),
         lambda: torch.multinomial(torch.tensor([[1., 2, 3, 4], [4, 0, 1, 1]]), 1, True), True),
        ("multinomial without",
         lambda g: g.multinomial(np.float32([[1, 2, 3, 4], [4, 0, 1, 1]]), 3, False),
         lambda: torch.multinomial(torch.tensor([[1., 2, 3, 4], [4, 0, 1, 1]]), 3, False), True),
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_same_seed_draws_torchs_numbers(torch, seed):
    generator = Generator().manual_seed(seed)
    torch.manual_seed(seed)
    for name, ours, theirs, exact in draws(torch):
        mine, real = np.asarray(ours(generator)), theirs().numpy()
        if exact:
            assert mine.dtype == real.dtype and np.array_equal(mine, real), name
        else:
            np.testing.assert_allclose(mine, real, rtol=1e-13, err_msg=name)


def test_state_round_trips_and_seeds_are_kept():
    generator = Generator().manual_seed(123)
    assert generator.initial_seed() == 123
    generator.normal(3, "float32")   # leaves a Box-Muller value kept
    state = generator.get_state()
    first = generator.normal(40, "float32"), generator.randperm(10)
    generator.set_state(state)
    again = generator.normal(40, "float32"), generator.randperm(10)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert Generator().initial_seed() != Generator().initial_seed()   # random by default
    big = Generator().manual_seed(2 ** 64 - 5)
    assert Generator().set_state(big.get_state()).initial_seed() == 2 ** 64 - 5


PUBLIC_DRAWS = {
    "rand": lambda lib: lib.rand(3, 5),
    "rand float64": lambda lib: lib.rand(40, dtype=lib.float64),
    "randn": lambda lib: lib.randn(4, 7),
    "randint(high, size)": lambda lib: lib.randint(10, (6,)),
    "randint(low, high, size)": lambda lib: lib.randint(-5, 5, (2, 3)),
    "randperm": lambda lib: lib.randperm(50),
    "randn_like": lambda lib: lib.randn_like(lib.zeros(20)),
    "uniform_": lambda lib: lib.empty(30).uniform_(-2, 3),
    "normal_": lambda lib: lib.empty(33).normal_(1.0, 0.5),
    "normal(mean, std, size)": lambda lib: lib.normal(0.5, 2.0, (17,)),
    "normal(tensor, tensor)": lambda lib: lib.normal(lib.zeros(20), lib.ones(20)),
    "bernoulli": lambda lib: lib.bernoulli(lib.full((25,), 0.4)),
    "multinomial": lambda lib: lib.multinomial(lib.tensor([[1.0, 2.0, 3.0]]), 8, True),
    "Categorical.sample": lambda lib: lib.stack([lib.distributions.Categorical(
        lib.tensor([[0.3, 0.7]])).sample() for _ in range(20)]),
    "dropout": lambda lib: lib.nn.functional.dropout(lib.ones(64), 0.25),
    "Linear init": lambda lib: lib.nn.Linear(5, 3).weight,
    "Linear bias": lambda lib: lib.nn.Linear(5, 3).bias,
    "Conv2d init": lambda lib: lib.nn.Conv2d(2, 4, 3).weight,
    "Embedding init": lambda lib: lib.nn.Embedding(10, 4).weight,
    "LSTM init": lambda lib: lib.nn.LSTM(3, 4).weight_hh_l0,
    "a Generator": lambda lib: lib.rand(6, generator=lib.Generator().manual_seed(11)),
}


@pytest.mark.parametrize("name", list(PUBLIC_DRAWS))
def test_a_seeded_program_draws_torchs_numbers(torch, name):
    import agdebug as ag
    ag.manual_seed(2024)
    torch.manual_seed(2024)
    ours = PUBLIC_DRAWS[name](ag).detach().numpy()
    theirs = PUBLIC_DRAWS[name](torch).detach().numpy()
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
