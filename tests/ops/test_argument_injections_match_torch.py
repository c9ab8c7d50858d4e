"""An out-of-range ``dim`` and a wrong-typed keyword (``keepdim="a"``, ``dtype=3``) fail as in
torch: the same exception type and first line, generated over the op table. The injection goes
into each call a case makes through the library (``t.sum(x, 1)``, ``F(t).softmax(x, 1)``,
``t.linalg.norm(...)``), at the parameter agdebug's signature names; method calls on tensors
are the cases' own and stay as they are."""

from __future__ import annotations

import inspect
import types
import warnings

import pytest

import agdebug as ag

from .harness import all_cases, make_inputs
from .test_argument_errors_match_torch import same_failure

CASES = [c for c in all_cases() if c.torch]
INJECTIONS = {"dim": ("dim", 100), "keepdim": ("keepdim", "a"), "dtype": ("dtype", 3)}

# Variants (case id-parameter) still failing in other words than torch's: a keepdim="a" that agdebug
# takes (the check would cost every valid call), overloaded functions (torch's "invalid
# combination" where ours name one argument), var/std's keepdim. Remove an id when it matches.
KNOWN = frozenset(open(__file__.replace(".py", "_known.txt")).read().split())


class Injecting:
    """``lib`` (or one of its modules) whose functions get ``param=value`` where agdebug's
    function of the same name has the parameter ``param``."""

    def __init__(self, lib, ours, param: str, value, hits: list):
        self._lib, self._ours, self._param, self._value, self._hits = \
            lib, ours, param, value, hits

    def __getattr__(self, name):
        real, ours = getattr(self._lib, name), getattr(self._ours, name, None)
        if isinstance(real, types.ModuleType):
            return Injecting(real, ours, self._param, self._value, self._hits)
        if not callable(real) or not inspect.isfunction(inspect.unwrap(ours or len)):
            return real
        return self._injected(real, inspect.signature(inspect.unwrap(ours)))

    def _injected(self, real, signature):
        def call(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                return real(*args, **kwargs)
            if self._param not in signature.parameters:
                return real(*args, **kwargs)
            names = list(signature.parameters)
            index = names.index(self._param)
            self._hits.append(real)
            if self._param in bound.arguments and index < len(args):
                args = args[:index] + (self._value,) + args[index + 1:]
            else:
                kwargs = {**kwargs, self._param: self._value}
            return real(*args, **kwargs)
        return call


def _outcome(lib, case, param: str):
    """``None`` when nothing was injected or the call succeeds, else the error's type name
    and first line."""
    hits = []
    inputs = make_inputs(case, lib)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            case.fn(Injecting(lib, ag, *INJECTIONS[param], hits), *inputs)
    except Exception as error:   # noqa: BLE001 - the error itself is compared
        return type(error).__name__, (str(error).splitlines() or [""])[0]
    return None


VARIANTS = [(c, p) for c in CASES for p in INJECTIONS if f"{c.id}-{p}" not in KNOWN]


@pytest.mark.parametrize("case,param", VARIANTS, ids=[f"{c.id}-{p}" for c, p in VARIANTS])
def test_injected_argument_fails_as_in_torch(case, param, torch):
    want = _outcome(torch, case, param)
    got = _outcome(ag, case, param)
    if want is None:   # torch takes it (no such call in the case, or a valid value)
        return
    assert same_failure(got, want), (got, want)


def test_known_differences_are_variants():
    assert KNOWN <= {f"{c.id}-{p}" for c in CASES for p in INJECTIONS}
