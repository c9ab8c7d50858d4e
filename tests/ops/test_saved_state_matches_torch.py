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
    "BinaryCrossEntropyBackward0": "torch keeps weight expanded to the input's shape, "
                                   "agdebug the weight as given",
    "CholeskySolveBackward0": _FORMULA,
    "ConvolutionBackward0": _FORMULA,
    "ConvolutionBackwardBackward0": _FORMULA,
    "LinalgDetBackward0": _FORMULA,
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

# Nodes whose ``_saved_`` names or non-tensor values are not torch's yet (the test of names
# and values), with the reason.
_NAMES = ("names not declared yet: agdebug keeps values under other names (a scalar operand, "
          "a dtype, a shape, a whole size where torch keeps scales_h/w...), see issue 21")
_METADATA = ("torch's *_sym_argsize_* / *_sym_sizes_opt / *_sym_numel metadata: not declared "
             "yet (a declaration reading the input's shape, as sizes= does for *_sym_sizes)")
_DIMS = ("a dim (k, index, shifts) one side keeps as the user gave it (negative) and the other "
         "normalized: agdebug's entry points normalize some before the node, torch others")
_STRIDE = "torch keeps stride=() as given (meaning the kernel size), agdebug the resolved stride"
_TENSORS = "its saved tensors are not torch's yet either (KNOWN above)"
_LAYOUT = ("sym_strides of a LAPACK result: torch's linalg outputs are column-major, agdebug's "
           "row-major (the product's numbers are the same)")
KNOWN_NAMES = {
    "AdaptiveAvgPool2DBackward0": _NAMES,
    "AdaptiveAvgPool2DBackwardBackward0": _NAMES,
    "AdaptiveAvgPool3DBackward0": _NAMES,
    "AdaptiveAvgPool3DBackwardBackward0": _NAMES,
    "AddBackward1": _NAMES,
    "AddbmmBackward0": _METADATA,
    "AsStridedBackward0": _NAMES,
    "AsStridedBackward1": _NAMES,
    "AvgPool2DBackward0": _STRIDE,
    "AvgPool2DBackwardBackward0": _NAMES,
    "AvgPool3DBackward0": _STRIDE,
    "AvgPool3DBackwardBackward0": _NAMES,
    "BernoulliBackward2": _NAMES,
    "BlockDiagBackward0": _NAMES,
    "CatBackward0": _NAMES,
    "CholeskySolveBackward0": _TENSORS,
    "Col2ImBackward0": _NAMES,
    "ConstantPadNdBackward0": _NAMES,
    "ConvolutionBackward0": _TENSORS,
    "ConvolutionBackwardBackward0": _TENSORS,
    "CopysignBackward1": _NAMES,
    "CumminBackward0": _DIMS,
    "DiagEmbedBackward0": _DIMS,
    "DiagonalBackward0": _DIMS,
    "EluBackward0": _NAMES,
    "EmbeddingBackward0": _NAMES,
    "EmbeddingBagBackward0": _TENSORS,
    "EqBackward0": _NAMES,
    "ExpandBackward0": _NAMES,
    "FillBackward2": _NAMES,
    "FlipBackward0": _DIMS,
    "FmodBackward0": _NAMES,
    "GatherBackward0": _NAMES,
    "GeBackward0": _NAMES,
    "GluBackward0": _DIMS,
    "GridSampler2DBackwardBackward0": _NAMES,
    "GridSampler3DBackwardBackward0": _NAMES,
    "GtBackward0": _NAMES,
    "Im2ColBackward0": _METADATA,
    "IndexAddBackward0": _NAMES,
    "IndexBackward0": _TENSORS,
    "IndexCopyBackward0": _NAMES,
    "IndexFillBackward0": _NAMES,
    "IndexPutBackward0": _TENSORS,
    "IndexReduceBackward0": _DIMS,
    "KthvalueBackward0": _DIMS,
    "LeBackward0": _NAMES,
    "LinalgCrossBackward0": _DIMS,
    "LinalgDetBackward0": _TENSORS,
    "LinalgEighBackward0": _NAMES,
    "LinalgPinvBackward0": _NAMES,
    "LinalgSlogdetBackward0": _TENSORS,
    "LinalgSolveExBackward0": _TENSORS,
    "LinalgSvdBackward0": _METADATA,
    "LogSigmoidBackward0": _TENSORS,
    "LogcumsumexpBackward0": _DIMS,
    "LtBackward0": _NAMES,
    "LuUnpackBackward0": _METADATA,
    "MaskedFillBackward0": _NAMES,
    "MaskedScatterBackward0": _METADATA,
    "MaxPool2DWithIndicesBackward0": _STRIDE,
    "MaxPool2DWithIndicesBackwardBackward0": _NAMES,
    "MaxPool3DWithIndicesBackward0": _STRIDE,
    "MaxPool3DWithIndicesBackwardBackward0": _NAMES,
    "MaxUnpool2DBackward0": _NAMES,
    "MeanBackward0": _METADATA,
    "MeanBackward1": _METADATA,
    "MmBackward0": _LAYOUT,
    "ModeBackward0": _DIMS,
    "MultilabelMarginLossBackward0": _TENSORS,
    "NanToNumBackward0": _NAMES,
    "NanmedianBackward1": _DIMS,
    "NarrowCopyBackward0": _DIMS,
    "NativeBatchNormBackward0": _TENSORS,
    "NativeGroupNormBackward0": _TENSORS,
    "NativeLayerNormBackward0": _TENSORS,
    "NeBackward0": _NAMES,
    "NllLoss2DBackward0": _TENSORS,
    "NllLossBackward0": _TENSORS,
    "NormBackward0": _NAMES,
    "NormBackward1": _NAMES,
    "NormalBackward0": _NAMES,
    "NormalBackward1": _NAMES,
    "NormalBackward2": _NAMES,
    "NormalBackward3": _METADATA,
    "PackPaddedSequenceBackward0": _TENSORS,
    "PermuteBackward0": _DIMS,
    "PermuteBackward0_copy": _DIMS,
    "PowBackward1": _TENSORS,
    "PowBackward2": _TENSORS,
    "RandomBackward0": _NAMES,
    "RandomBackward1": _NAMES,
    "ReflectionPad1DBackward0": _NAMES,
    "ReflectionPad2DBackward0": _NAMES,
    "ReflectionPad3DBackward0": _NAMES,
    "RemainderBackward0": _NAMES,
    "RenormBackward0": _DIMS,
    "ReplicationPad1DBackward0": _NAMES,
    "ReplicationPad2DBackward0": _NAMES,
    "ReplicationPad3DBackward0": _NAMES,
    "ReshapeAliasBackward0": _NAMES,
    "RollBackward0": _DIMS,
    "Rot90Backward0": _DIMS,
    "RoundBackward0": _NAMES,
    "RoundBackward1": _NAMES,
    "RsubBackward1": _NAMES,
    "ScatterBackward1": _NAMES,
    "SelectBackward0": _DIMS,
    "SelectBackward0_copy": _DIMS,
    "SgnBackward0": _TENSORS,
    "SigmoidBackwardBackward0": _TENSORS,
    "SliceBackward0": _NAMES,
    "SliceBackward0_copy": _DIMS,
    "SortBackward0": _DIMS,
    "SortBackward1": _DIMS,
    "SplitBackward0": _DIMS,
    "SplitWithSizesBackward0": _DIMS,
    "SqueezeBackward1": _DIMS,
    "SqueezeBackward1_copy": _DIMS,
    "SqueezeBackward4": _DIMS,
    "StackBackward0": _DIMS,
    "SubBackward1": _NAMES,
    "SumBackward1": _NAMES,
    "TanhBackwardBackward0": _TENSORS,
    "ThresholdBackward0": _NAMES,
    "ThresholdBackward1": _NAMES,
    "ToCopyBackward0": _NAMES,
    "TopkBackward0": _DIMS,
    "TransposeBackward0": _DIMS,
    "TransposeBackward0_copy": _DIMS,
    "TrilinearBackward0": _TENSORS,
    "UnbindBackward0": _DIMS,
    "UnfoldBackward0": _DIMS,
    "UnfoldBackwardBackward0": _NAMES,
    "UniformBackward0": _NAMES,
    "UnsafeSplitBackward0": _DIMS,
    "UnsafeViewBackward0": _NAMES,
    "UnsqueezeBackward0": _DIMS,
    "UpsampleBicubic2DAaBackward0": _NAMES,
    "UpsampleBicubic2DAaBackwardBackward0": _NAMES,
    "UpsampleBicubic2DBackward0": _NAMES,
    "UpsampleBicubic2DBackwardBackward0": _NAMES,
    "UpsampleBilinear2DAaBackward0": _NAMES,
    "UpsampleBilinear2DAaBackwardBackward0": _NAMES,
    "UpsampleBilinear2DBackward0": _NAMES,
    "UpsampleBilinear2DBackwardBackward0": _NAMES,
    "UpsampleLanczos2DAaBackward0": _NAMES,
    "UpsampleLanczos2DAaBackwardBackward0": _NAMES,
    "UpsampleLinear1DBackward0": _NAMES,
    "UpsampleLinear1DBackwardBackward0": _NAMES,
    "UpsampleNearest1DBackward0": _NAMES,
    "UpsampleNearest1DBackwardBackward0": _NAMES,
    "UpsampleNearest2DBackward0": _NAMES,
    "UpsampleNearest2DBackwardBackward0": _NAMES,
    "UpsampleNearest3DBackward0": _NAMES,
    "UpsampleNearest3DBackwardBackward0": _NAMES,
    "UpsampleNearestExact1DBackward0": _NAMES,
    "UpsampleNearestExact1DBackwardBackward0": _NAMES,
    "UpsampleNearestExact2DBackward0": _NAMES,
    "UpsampleNearestExact2DBackwardBackward0": _NAMES,
    "UpsampleNearestExact3DBackward0": _NAMES,
    "UpsampleNearestExact3DBackwardBackward0": _NAMES,
    "UpsampleTrilinear3DBackward0": _NAMES,
    "UpsampleTrilinear3DBackwardBackward0": _NAMES,
    "ViewBackward0": _NAMES,
    "WeightNormInterfaceBackward0": _TENSORS,
    "torch::autograd::CopyBackwards": _NAMES,
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


def _value(value):
    """A saved non-tensor value as compared: ints modulo 2**64 (torch reads an int64 back as
    unsigned, -1 as 2**64 - 1: README, "Known differences"), lists as tuples; None for a
    tensor, whose saving the test above compares."""
    if hasattr(value, "grad_fn") or isinstance(value, np.ndarray):
        return None
    if isinstance(value, (tuple, list)):
        items = tuple(_value(v) for v in value)
        return None if value and all(hasattr(v, "grad_fn") for v in value) else items
    if isinstance(value, int) and not isinstance(value, bool):
        return value % 2 ** 64
    return value


def _name_differences(ours, theirs) -> list:
    """The ``_saved_`` names one node has and the other lacks, and the values (not tensors)
    that differ where both have the name."""
    mine = {n for n in dir(ours) if n.startswith("_saved_")}
    torch_s = {n for n in dir(theirs) if n.startswith("_saved_")}
    out = [f"agdebug only: {n}" for n in sorted(mine - torch_s)]
    out += [f"torch only: {n}" for n in sorted(torch_s - mine)]
    for n in sorted(mine & torch_s):
        a, t = _value(getattr(ours, n)), _value(getattr(theirs, n))
        if a != t and a is not None and t is not None:
            out.append(f"{n}: agdebug {a!r}, torch {t!r}")
    return out


def _all_name_differences(case, needing: tuple, torch) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = case.fn(ag, *_make(case, ag, needing))
        theirs = case.fn(torch, *_make(case, torch, needing))
    return [f"{t.name()} {d}" for a, t in _node_pairs(_roots(ours), _roots(theirs))
            if not t.name().endswith("AccumulateGrad") and t.name() not in KNOWN_NAMES
            for d in _name_differences(a, t)]


@pytest.mark.parametrize(("case", "needing"), PARAMS)
def test_saved_names_and_values_are_torch_s(case, needing, torch):
    """The set of ``_saved_`` names is torch's, and so are the saved numbers, sizes and
    flags both have (``_saved_reduction`` is 1 for 'mean', ``_saved_dim`` a tuple where
    torch's is a list of dims)."""
    assert _all_name_differences(case, needing, torch) == []


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
