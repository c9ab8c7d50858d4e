"""What torch 2.13's top level, Tensor, nn, nn.functional, nn.init, optim and lr_scheduler have
that agdebug's do not: exactly the names listed here, so a gap closed or a new one shows (issue 27
asks to close or explicitly refuse each). The README names the ones not built yet. The top level
("") list of what is not API lives in tests/dir_parity_lists.py (it is long); what agdebug lacks
is agdebug.gaps, which refuses each name in one line."""

from __future__ import annotations

import importlib

import pytest

import agdebug
from agdebug import gaps
from tests import dir_parity_lists as lists

# What agdebug lacks and refuses by name, not built yet or out of scope (README: "Not built
# yet"): agdebug.gaps
NOT_BUILT = {namespace: {n for n, (kind, _) in names.items() if kind == gaps.NOT_BUILT}
             for namespace, names in gaps.GAPS.items()}
OUT_OF_SCOPE = {namespace: {n for n, (kind, _) in names.items() if kind == gaps.OUT_OF_SCOPE}
                for namespace, names in gaps.GAPS.items()}
# Names torch's module files happen to hold: their own imports, typing, private helpers
NOT_API = {
    "nn": {"common_types", "factory_kwargs"},
    "nn.functional": {
        "BroadcastingList1", "BroadcastingList2", "BroadcastingList3", "Callable", "DType",
        "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "Optional",
        "ScalingType", "SwizzleType", "TYPE_CHECKING", "Tensor", "assert_int_or_pair",
        "boolean_dispatch", "dataclasses", "handle_torch_function", "has_torch_function",
        "has_torch_function_unary", "has_torch_function_variadic", "importlib", "math", "np",
        "reproducibility_notes", "sparse_support_notes", "tf32_notes", "torch", "warnings"},
    "nn.init": {"Callable", "Literal", "ParamSpec", "Tensor", "TypeVar", "torch"},
    "optim.lr_scheduler": {"Any", "Literal", "Self", "SupportsFloat", "TYPE_CHECKING",
                           "TypedDict", "cast", "inf", "override", "partial"},
    "": lists.TOP_NOT_API,
}


def _public(module) -> set:
    return {name for name in dir(module) if not name.startswith("_")}


def _namespace(lib, namespace: str):
    """``torch``, ``torch.Tensor`` or ``torch.<module>`` (and agdebug's)."""
    if namespace == "Tensor":
        return lib.Tensor
    return importlib.import_module(f"{lib.__name__}.{namespace}" if namespace else lib.__name__)


@pytest.mark.parametrize("namespace", sorted(NOT_BUILT), ids=lambda n: n or "top_level")
def test_missing_names_are_the_listed_ones(torch, namespace):
    if not torch.__version__.startswith("2.13"):
        pytest.skip(f"the lists are torch 2.13's; this is {torch.__version__}")
    theirs, ours = _public(_namespace(torch, namespace)), _public(_namespace(agdebug, namespace))
    listed = NOT_BUILT[namespace] | OUT_OF_SCOPE.get(namespace, set()) | NOT_API.get(namespace,
                                                                                      set())
    assert sorted(theirs - ours - listed) == [], "new in torch: build it or list it"
    assert sorted(listed - (theirs - ours)) == [], "built (or gone from torch): unlist it"


@pytest.mark.parametrize("namespace", sorted(NOT_BUILT), ids=lambda n: n or "top_level")
def test_each_name_is_in_one_group(namespace):
    groups = [NOT_BUILT[namespace], OUT_OF_SCOPE.get(namespace, set()),
              NOT_API.get(namespace, set())]
    assert sum(len(g) for g in groups) == len(set().union(*groups))


@pytest.mark.parametrize("namespace", sorted(gaps.GAPS), ids=lambda n: n or "top_level")
def test_each_missing_name_is_refused_in_one_line_naming_it(namespace):
    owner = agdebug.zeros(1) if namespace == "Tensor" else _namespace(agdebug, namespace)
    for name, (kind, what) in gaps.GAPS[namespace].items():
        with pytest.raises(AttributeError) as raised:
            getattr(owner, name)
        qualified = f"Tensor.{name}" if namespace == "Tensor" else \
            ".".join(p for p in ("torch", namespace, name) if p)
        assert str(raised.value).endswith(f": agdebug does not have {qualified} ({kind}: {what})")
        assert "\n" not in str(raised.value) and raised.value.name == name


def test_a_name_torch_lacks_too_gets_pythons_own_words():
    with pytest.raises(AttributeError, match=r"^module 'agdebug' has no attribute 'nothing'$"):
        agdebug.nothing
    with pytest.raises(AttributeError, match=r"^'Parameter' object has no attribute 'nothing'$"):
        agdebug.nn.Parameter(agdebug.zeros(1)).nothing
    assert not hasattr(agdebug.zeros(1), "nothing")
