"""What each node saves, and under which ``_saved_<name>``, is torch's (tracker issue 21).

Generated over every op case of tests/ops/cases_*.py and every choice of which of its
floating inputs require grad: the graphs agdebug and torch record are walked side by side,
and each pair of nodes of one name is compared on its saved tensors (which names hold a
tensor, with what shape, and which read back as None). torch's codegen saves an input only
when a gradient that uses it is computed, so ``mm(x, w)`` with only ``x`` requiring grad
keeps ``mat2`` and not ``self``. A saved Python number reads back as the number where torch
wraps it in a 0-d tensor (README, "Known differences"), so that pair counts as the same.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import agdebug as ag

from .harness import all_cases, float_indices

CASES = [c for c in all_cases() if c.torch and float_indices(c)]

# Nodes whose saved tensors cannot be torch's yet, with the reason (see the final report of
# issue 21 and the README's "Known differences").
_INDEX = ("torch saves the index tensors (a list, _saved_indices; embedding_bag's indices, "
          "offsets and bag results result1..3), agdebug the parsed key or raw arrays")
_KEEPDIM = ("torch saves the packed batch sizes (its output result1); agdebug's pack op has "
            "one output and computes them outside the node")
_FORMULA = ("the derivative is written from other saved values than torch's (its LU factors, "
            "buffers, inverses, inputs of a backward op or a kernel's reshaped weight): "
            "matching needs the formula rewritten")
_NOT_YET = "torch keeps self, which the derivative does not use: not yet declared (issue 21)"
_OTHER_AREA = "pow and sign are another engineer's (their derivative formulas are being rewritten)"
KNOWN = {
    "EmbeddingBagBackward0": _INDEX,
    "IndexBackward0": _INDEX,
    "IndexPutBackward0": _INDEX,
    "PackPaddedSequenceBackward0": _KEEPDIM,
    "BinaryCrossEntropyBackward0": _FORMULA,
    "CholeskySolveBackward0": _FORMULA,
    "ConvolutionBackward0": _FORMULA,
    "ConvolutionBackwardBackward0": _FORMULA,
    "LinalgCholeskyExBackward0": _FORMULA,
    "LinalgDetBackward0": _FORMULA,
    "LinalgInvExBackward0": _FORMULA,
    "LinalgSlogdetBackward0": _FORMULA,
    "LinalgSolveExBackward0": _FORMULA,
    "LogSigmoidBackward0": _FORMULA,
    "LogSoftmaxBackwardDataBackward0": _FORMULA,
    "MultilabelMarginLossBackward0": _FORMULA,
    "NativeBatchNormBackward0": _FORMULA,
    "NativeGroupNormBackward0": _FORMULA,
    "NativeLayerNormBackward0": _FORMULA,
    "NllLoss2DBackward0": _FORMULA,
    "NllLossBackward0": _FORMULA,
    "PreluKernelBackward0": _FORMULA,
    "RreluWithNoiseBackward0": _FORMULA,
    "RreluWithNoiseBackward1": _FORMULA,
    "SigmoidBackwardBackward0": _FORMULA,
    "SoftmaxBackwardDataBackward0": _FORMULA,
    "TanhBackwardBackward0": _FORMULA,
    "TrilinearBackward0": _FORMULA,
    "WeightNormInterfaceBackward0": _FORMULA,
    "PowBackward1": _OTHER_AREA,
    "PowBackward2": _OTHER_AREA,
    "SgnBackward0": _OTHER_AREA,
}


def _make(case, lib, needing: tuple) -> list:
    out = []
    for i, a in enumerate(case.inputs):
        a = np.array(a)
        t = ag.tensor(a.copy(), dtype=ag.backend.get_dtype(a.dtype)) if lib is ag \
            else lib.tensor(a.copy())
        out.append(t.requires_grad_(True) if i in needing else t)
    return out


def _kind(value) -> tuple:
    """("tensor", shape), ("tensors", shapes), ("none",), ("number",), ("array",) (a raw
    array kept where torch keeps a tensor) or ("value",) (a size, a string...)."""
    if hasattr(value, "grad_fn") and hasattr(value, "shape"):
        return ("tensor", tuple(value.shape))
    if value is None:
        return ("none",)
    if isinstance(value, (tuple, list)) and value and all(hasattr(v, "grad_fn") for v in value):
        return ("tensors", tuple(tuple(v.shape) for v in value))
    if isinstance(value, (bool, int, float, complex)):
        return ("number",)
    return ("array",) if isinstance(value, np.ndarray) else ("value",)


def _saved(node) -> dict:
    return {a[len("_saved_"):]: _kind(getattr(node, a)) for a in dir(node)
            if a.startswith("_saved_")}


def _tensor_differences(ours: dict, theirs: dict) -> list:
    """The names where either side keeps a tensor and the other does not keep the same."""
    out = []
    for name in sorted(set(ours) | set(theirs)):
        mine, torch_s = ours.get(name, ("absent",)), theirs.get(name, ("absent",))
        if mine == torch_s or mine == ("number",) and torch_s[:2] == ("tensor", ()):
            continue   # equal, or a saved Python number (torch: a wrapped 0-d tensor)
        if "tensor" in mine[0] or "tensor" in torch_s[0] or mine[0] == "array":
            out.append(f"{name}: agdebug {mine}, torch {torch_s}")
    return out


def _roots(result) -> list:
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    return [t.grad_fn for t in items if getattr(t, "grad_fn", None) is not None]


def _node_pairs(ours: list, theirs: list):
    """(agdebug node, torch node) pairs of the two graphs, walked side by side while the
    nodes have one name (where torch records another op's node, the walk stops there)."""
    seen, todo = set(), list(zip(ours, theirs))
    while todo:
        a, t = todo.pop()
        if a is None or t is None or (id(a), id(t)) in seen or a.name() != t.name():
            continue
        seen.add((id(a), id(t)))
        yield a, t
        if len(a.next_functions) == len(t.next_functions):
            todo.extend((x, y) for (x, _), (y, _) in zip(a.next_functions, t.next_functions))


def _differences(case, needing: tuple, torch) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = case.fn(ag, *_make(case, ag, needing))
        theirs = case.fn(torch, *_make(case, torch, needing))
    out = []
    for a, t in _node_pairs(_roots(ours), _roots(theirs)):
        if t.name().endswith("AccumulateGrad") or t.name() in KNOWN:
            continue
        out += [f"{t.name()} {d}" for d in _tensor_differences(_saved(a), _saved(t))]
    return out


def _subsets(case) -> list:
    idx = float_indices(case)
    return [s for r in range(1, len(idx) + 1) for s in itertools.combinations(idx, r)]


PARAMS = [pytest.param(c, s, id=f"{c.id}-{'-'.join(map(str, s))}")
          for c in CASES for s in _subsets(c)]


@pytest.mark.parametrize(("case", "needing"), PARAMS)
def test_saved_tensors_are_torch_s(case, needing, torch):
    assert _differences(case, needing, torch) == []


def _released(scenario) -> list:
    from agdebug.events import subscribe
    events = []
    with subscribe(events.append):
        scenario()
    return [e.names for e in events if e.kind == "saved_released"]


def test_freeing_reports_only_what_was_saved(torch):
    """``x @ w`` with only w requiring grad keeps x (torch: ``_saved_self``, ``_saved_mat2``
    None); layer_norm without weight keeps no ``weight``: the released names say so."""
    def product():
        x, w = ag.ones(2, 3), ag.ones(3, 4, requires_grad=True)
        (x @ w).sum().backward()

    def layer_norm():
        ag.nn.functional.layer_norm(ag.ones(2, 3, requires_grad=True), (3,)).sum().backward()

    fn = (torch.ones(2, 3) @ torch.ones(3, 4, requires_grad=True)).grad_fn
    assert fn._saved_self is not None and fn._saved_mat2 is None
    assert _released(product) == [("self",)]
    assert [n for n in _released(layer_norm) if "weight" in n] == []


def _saved_names_in_events(case, needing) -> list:
    """(node name, saved name) of every node-created event whose name no ``_saved_`` attribute
    of that node reads (the events name saved values as torch does: self, not x)."""
    from agdebug.events import subscribe
    events = []
    with warnings.catch_warnings(), subscribe(events.append):
        warnings.simplefilter("ignore")
        result = case.fn(ag, *_make(case, ag, needing))
    nodes, todo = {}, _roots(result)
    while todo:
        node = todo.pop()
        if node is not None and node._id not in nodes:
            nodes[node._id] = node
            todo.extend(fn for fn, _ in node.next_functions)
    # (a CopySlices keeps the saved values of the node it wraps, under that node's names)
    owner = {i: getattr(node, "fn", node) for i, node in nodes.items()}
    return [(e.name, s.name) for e in events if e.kind == "node_created" and e.node in nodes
            for s in e.saved if not hasattr(owner[e.node], f"_saved_{s.name}")]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_events_name_saved_values_as_grad_fn_does(case):
    assert _saved_names_in_events(case, tuple(float_indices(case))) == []
