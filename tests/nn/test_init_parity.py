"""``nn.init``'s initialisers against torch's after the same seed: the values (bitwise where
only the generator is involved; to LAPACK's rounding for orthogonal_'s QR), the draws they
leave for what comes next, and torch's errors and deprecated names."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag

CASES = {
    "trunc_normal_": lambda lib: lib.nn.init.trunc_normal_(lib.empty(20, 5)),
    "trunc_normal_ std 0.02": lambda lib: lib.nn.init.trunc_normal_(lib.empty(7, 3), std=0.02),
    "trunc_normal_ narrow": lambda lib: lib.nn.init.trunc_normal_(lib.empty(20, 5), a=1.5, b=2.5),
    "eye_": lambda lib: lib.nn.init.eye_(lib.empty(3, 5)),
    "dirac_": lambda lib: lib.nn.init.dirac_(lib.empty(4, 2, 3, 3), groups=2),
    "dirac_ 1d": lambda lib: lib.nn.init.dirac_(lib.empty(3, 5, 4)),
    "sparse_": lambda lib: lib.nn.init.sparse_(lib.empty(20, 5), 0.3),
    "uniform (deprecated)": lambda lib: lib.nn.init.uniform(lib.empty(6)),
    "kaiming_normal (deprecated)": lambda lib: lib.nn.init.kaiming_normal(lib.empty(4, 3)),
}


def drawn(lib, make):
    lib.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = make(lib).detach().numpy().copy()
    return values, lib.rand(3).numpy()


@pytest.mark.parametrize("name", list(CASES))
def test_initialiser_draws_torchs_values(torch, name):
    (ours, after), (theirs, their_after) = drawn(ag, CASES[name]), drawn(torch, CASES[name])
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
    assert np.array_equal(after, their_after)


@pytest.mark.parametrize("shape", [(20, 5), (3, 20), (4, 2, 3)])
def test_orthogonal_matches_torch_to_rounding(torch, shape):
    ours, after = drawn(ag, lambda lib: lib.nn.init.orthogonal_(lib.empty(*shape), gain=2.0))
    theirs, their_after = drawn(torch, lambda lib: lib.nn.init.orthogonal_(lib.empty(*shape),
                                                                           gain=2.0))
    np.testing.assert_allclose(ours, theirs, atol=1e-6)
    assert np.array_equal(after, their_after)


@pytest.mark.parametrize("call", ["eye_(lib.empty(2, 2, 2))", "dirac_(lib.empty(2, 2))",
                                  "dirac_(lib.empty(3, 2, 2), groups=2)",
                                  "orthogonal_(lib.empty(3))", "sparse_(lib.empty(3), 0.1)"])
def test_initialiser_errors_match_torch(torch, call):
    with pytest.raises(ValueError) as theirs:
        eval(f"lib.nn.init.{call}", {"lib": torch})
    with pytest.raises(ValueError) as ours:
        eval(f"lib.nn.init.{call}", {"lib": ag})
    assert str(ours.value) == str(theirs.value)


def test_deprecated_names_warn_as_torchs_do():
    with pytest.warns(FutureWarning, match=r"`nn.init.normal` is now deprecated in favor of "
                                           r"`nn.init.normal_`"):
        ag.nn.init.normal(ag.empty(2))
