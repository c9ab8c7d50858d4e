"""``run_direct``, the registry's short path for one- and two-input ops, against the general
path (``Op.run``) it stands in for: the same result, node, edges, saved values, gradients and
events, and the general path taken wherever the short one does not apply."""

from __future__ import annotations

import re

import numpy as np
import pytest

import agdebug as ag
from agdebug.debug import record
from agdebug.ops.core import registry as registry_registry
from agdebug.ops.core.registry import OPS


def _leaf(values, dtype=np.float64):
    return ag.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


def _non_leaf():
    return _leaf([1.5, 0.75, -0.5]) * 1.0


def _x():
    return _leaf([0.5, -1.25, 2.0])


def _twice():
    x = _x()
    return x, x


# Each case makes fresh inputs when called (each path gets its own, so accumulators are not
# shared).
INPUTS = {
    "leaf, leaf": lambda: (_x(), _leaf([1.0, 2.0, 3.0])),
    "non-leaf, leaf": lambda: (_non_leaf(), _x()),
    "leaf, float": lambda: (_x(), 1.0001),
    "non-leaf, int": lambda: (_non_leaf(), 3),
    "leaf, constant tensor": lambda: (_x(), ag.tensor([2.0, 4.0, 8.0])),
    "constant tensor, leaf": lambda: (ag.tensor([2.0, 4.0, 8.0]), _x()),
    "float32, float64 (promoted)": lambda: (_leaf([1.0, 2.0, 3.0], np.float32), _x()),
    "broadcast": lambda: (_leaf([[1.0], [2.0]]), _x()),
    "0-d": lambda: (_leaf(1.5), _leaf(-2.0)),
    "same tensor twice": _twice,
}
CASES = list(INPUTS)
BINARY = ["add", "sub", "mul", "div", "atan2"]
UNARY = ["tanh", "exp", "neg", "sigmoid"]


def _node_view(t):
    """What a node records, with the nodes it points to named by type (each path has its own)."""
    node = t.grad_fn
    saved = {k: (type(v).__name__, v.unpack(node).tolist() if hasattr(v, "unpack") else v)
             for k, v in (node._saved or {}).items()}
    edges = [(type(fn).__name__ if fn is not None else None, nr) for fn, nr in
             node.next_functions]
    return type(node).__name__, edges, node._out_meta, saved, node._attrs


def _grads(out, inputs):
    needs = [t for t in inputs if isinstance(t, ag.Tensor) and t.requires_grad]
    return ag.autograd.grad(out.sum(), needs, allow_unused=True, create_graph=True)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.detach().numpy(), b.detach().numpy(), equal_nan=True)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_record_what_the_general_path_records(name, case):
    op = OPS[name]
    direct_in, general_in = INPUTS[case](), INPUTS[case]()
    direct, general = op(*direct_in), op.run(general_in, {})
    _same(direct, general)
    assert _node_view(direct) == _node_view(general)
    for a, b in zip(_grads(direct, direct_in), _grads(general, general_in)):
        _same(a, b)
        assert type(a.grad_fn) is type(b.grad_fn)   # the derivative is recorded the same way


KERNEL_OPERANDS = {
    "int8 (wraps)": ([100, -128, 7], [100, -1, 9], np.int8),
    "uint8 (wraps)": ([250, 3, 0], [10, 255, 0], np.uint8),
    "int64": ([2**40, -5, 0], [3, 7, 2**20], np.int64),
    "bool": ([True, False, True], [True, True, False], np.bool_),
    "float16": ([65000.0, 1e-4, -2.5], [1000.0, 3.0, 0.5], np.float16),
    "float32, 0-d": (1.25, -3.5, np.float32),
}


@pytest.mark.parametrize("operands", list(KERNEL_OPERANDS))
@pytest.mark.parametrize("name", ["add", "mul"])
def test_same_dtype_kernels_give_the_forwards_result(name, operands):
    # Two arrays of one dtype skip the forward for its ufunc: the bits, dtype and shape must
    # be the forward's (integer wrap-around, bool, half, 0-d results included).
    a, b, dtype = KERNEL_OPERANDS[operands]
    x, y = ag.tensor(np.asarray(a, dtype)), ag.tensor(np.asarray(b, dtype))
    direct = OPS[name](x, y)
    general = OPS[name].run((ag.tensor(np.asarray(a, dtype)), ag.tensor(np.asarray(b, dtype))),
                            {})
    _same(direct, general)


def test_same_dtype_operands_take_the_kernel_and_others_the_forward(monkeypatch):
    x, y = _leaf([0.5, -1.0]), _leaf([2.0, 3.0])
    forward = OPS["add"].forward
    calls = []
    monkeypatch.setattr(OPS["add"], "forward", lambda *a: calls.append(a) or forward(*a))
    (x + y).sum().backward()
    assert calls == []
    x + 1.0
    x + _leaf([1.0, 2.0], np.float32)
    assert len(calls) == 2   # a number and another dtype are promoted by the forward
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


def test_a_same_dtype_kernel_raises_torchs_error_for_shapes_that_do_not_broadcast():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of "
                                           r"tensor b \(3\) at non-singleton dimension 0"):
        _leaf([1.0, 2.0]) + _leaf([1.0, 2.0, 3.0])


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("make", [lambda: _leaf([0.5, -1.25, 2.0]),
                                  lambda: _leaf([0.5, -1.25], np.float32) * 2.0],
                         ids=["leaf", "non-leaf"])
def test_unary_ops_record_what_the_general_path_records(name, make):
    op = OPS[name]
    direct_in, general_in = make(), make()
    direct, general = op(direct_in), op.run((general_in,), {})
    _same(direct, general)
    assert _node_view(direct) == _node_view(general)
    _same(_grads(direct, [direct_in])[0], _grads(general, [general_in])[0])


def _general_path_refused(monkeypatch):
    def refuse(self, args, attrs):
        raise AssertionError(f"{self.name} took the general path")
    monkeypatch.setattr(registry_registry.Op, "run", refuse)


def test_operators_methods_and_derivatives_take_the_direct_path(monkeypatch):
    # Otherwise the equivalence above would hold by never leaving the general path.
    x, w = _leaf([0.5, -1.0]), _leaf([2.0, 3.0])
    _general_path_refused(monkeypatch)
    y = ((x * w + 1.0) - x / 2.0).tanh()
    assert type(y.grad_fn).__name__ == "TanhBackward0"
    g = ag.autograd.grad(y, x, ag.ones(2), create_graph=True)[0]   # TanhBackwardBackward0...
    assert g.grad_fn is not None


def _view_through_its_base(x):
    """A view with no node of its own that needs a gradient through its base (written in
    place after the view was taken)."""
    base = ag.zeros(3, dtype=x.dtype)
    view = base[:2]
    base.mul_(x)
    assert view.grad_fn is None and view.requires_grad
    return view


@pytest.mark.parametrize("why, call, op", [
    ("a view needing a gradient through its base only",
     lambda x: _view_through_its_base(x) * 2.0, "mul"),
    ("the same, second", lambda x: x[:2] * _view_through_its_base(x), "mul"),
    ("the same, unary", lambda x: _view_through_its_base(x).tanh(), "tanh"),
    ("keywords", lambda x: ag.add(x, x, alpha=2), "add"),
])
def test_other_calls_take_the_general_path(monkeypatch, why, call, op):
    x = _leaf([0.5, -1.0, 2.0])
    seen = []
    general = registry_registry.Op.run
    monkeypatch.setattr(registry_registry.Op, "run",
                        lambda self, args, attrs: seen.append(self.name) or general(self, args,
                                                                                    attrs))
    call(x)
    assert seen[-1:] == [op], why   # the op itself, not only the slicing before it


# Inputs with a node of their own that is not simply output 0 (a view, a later output: every
# LSTM gate takes a piece of ``unsafe_chunk``), each with the op to apply.
NUMBERED = {
    "a view": (lambda x: (x[:2],), "mul", 2.0),
    "an output after the first": (lambda x: (_two_outputs(x)[1],), "mul", 2.0),
    "a view of a leaf": (lambda x: (x[:2].detach().requires_grad_()[:1],), "add", 1),
    "a later unsafe_chunk piece": (lambda x: (x.unsafe_chunk(3)[2],), "sigmoid", None),
    "two pieces": (lambda x: x.unsafe_chunk(3)[1:], "mul", None),
    "a piece and a leaf": (lambda x: (x.unsafe_chunk(3)[1], x[:1].detach()), "sub", None),
    "a leaf and a piece": (lambda x: (x[:1].detach().requires_grad_(), x.unsafe_chunk(3)[2]),
                           "add", None),
    "a constant and an unbind piece": (lambda x: (ag.tensor([3.0]), x.unbind(0)[1]), "div",
                                       None),
}


@pytest.mark.parametrize("case", list(NUMBERED))
def test_views_and_later_outputs_with_a_node_take_the_direct_path(monkeypatch, case):
    make, name, number = NUMBERED[case]
    op = OPS[name]
    inputs = [make(_leaf([0.5, -1.0, 2.0])) for _ in range(2)]
    args = [ins + ((number,) if number is not None else ()) for ins in inputs]
    general = op.run(args[1], {})
    with monkeypatch.context() as patched:
        _general_path_refused(patched)
        direct = op(*args[0])
    _same(direct, general)
    assert _node_view(direct) == _node_view(general)
    assert direct.grad_fn._next_nr == general.grad_fn._next_nr
    for a, b in zip(_grads(direct, args[0]), _grads(general, args[1])):
        _same(a, b)


NOT_RECORDED = ["eq", "ge", "lt", "logical_and", "bitwise_and", "logical_not", "isnan", "all",
                "argmax"]
NOT_RECORDED_INPUTS = {
    "leaf, leaf": lambda: (_x(), _leaf([0.5, 2.0, 2.0])),
    "non-leaf, float": lambda: (_non_leaf(), 0.75),
    "a piece, int": lambda: (_x().unsafe_chunk(3)[1], 0),
    "ints": lambda: (ag.tensor([3, 0, -2]), ag.tensor([3, 1, -5])),
    "bools, 0-d": lambda: (ag.tensor(True), ag.tensor(False)),
}


@pytest.mark.parametrize("case", list(NOT_RECORDED_INPUTS))
@pytest.mark.parametrize("name", NOT_RECORDED)
def test_ops_never_recorded_take_the_direct_path(monkeypatch, name, case):
    op = OPS[name]
    arity = 1 if name in ("logical_not", "isnan", "all", "argmax") else 2
    make = NOT_RECORDED_INPUTS[case]
    direct_in, general_in = make()[:arity], make()[:arity]
    if name.startswith("bitwise") and any(isinstance(t, ag.Tensor) and t.is_floating_point()
                                          or isinstance(t, float) for t in direct_in):
        pytest.skip("bitwise ops take integers")
    try:
        general = op.run(general_in, {})
    except RuntimeError as refused:   # (argmax of bools): the same error, from the forward
        with pytest.raises(RuntimeError, match=f"^{re.escape(str(refused))}$"):
            op(*direct_in)
        return
    with monkeypatch.context() as patched:
        _general_path_refused(patched)
        direct = op(*direct_in)
    _same(direct, general)
    assert direct.grad_fn is None and not direct.requires_grad and direct.is_leaf
    assert direct._base is None and general._base is None


def test_events_of_a_direct_chunk_piece_are_the_general_paths(monkeypatch):
    def scenario():
        x = ag.tensor([0.5, -1.0, 2.0, 0.25], requires_grad=True)
        _, gate = x.unsafe_chunk(2)
        y = gate.sigmoid() * gate   # the line both node_created events name
        y.sum().backward()

    def fields(trace):
        return [(e.name, e.op, len(e.edges), e.source.split(": ", 1)[-1])
                for e in trace.events if e.kind == "node_created"]

    with record() as direct:
        scenario()
    for name in ("mul", "sigmoid"):
        monkeypatch.setattr(OPS[name], "direct", False)
    with record() as general:
        scenario()
    assert fields(direct) == fields(general)
    assert [f[0] for f in fields(direct)] == ["torch::autograd::AccumulateGrad",
                                              "UnsafeSplitBackward0", "SigmoidBackward0",
                                              "MulBackward0", "SumBackward0"]
    assert all(f[-1].startswith("y = gate.sigmoid() * gate") for f in fields(direct)[2:4])
    assert [e.kind for e in direct.events] == [e.kind for e in general.events]


@pytest.mark.parametrize("why, call", [
    ("grad mode off", lambda x: _no_grad(lambda: x * 2.0)),
    ("inference mode", lambda x: _inference(lambda: x.tanh())),
    ("no input requires grad", lambda x: x.detach() * 2.0),
])
def test_unrecorded_calls_take_the_direct_path(monkeypatch, why, call):
    x = _leaf([0.5, -1.0, 2.0])
    expected = _no_grad(lambda: call(x))
    _general_path_refused(monkeypatch)
    out = call(x)
    assert out.grad_fn is None and not out.requires_grad, why
    _same(out, expected)


def test_views_unrecorded_take_the_direct_path(monkeypatch):
    x = _leaf([0.5, -1.0, 2.0])
    head, tail = x[:2], x[1:]
    expected = _no_grad(lambda: head - tail)
    _general_path_refused(monkeypatch)
    _same(_no_grad(lambda: head - tail), expected)


def _no_grad(fn):
    with ag.no_grad():
        return fn()


def _inference(fn):
    with ag.inference_mode():
        out = fn()
    assert out.is_inference()
    return out


class _Split(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1.0, x * 2.0

    @staticmethod
    def backward(ctx, a, b):
        return a + 2.0 * b


def _two_outputs(x):
    return _Split.apply(x)


def test_an_output_after_the_first_keeps_its_edge_number():
    x = _leaf([0.5, -1.0])
    _, second = _two_outputs(x)
    y = second * 3.0
    (fn, nr), _ = y.grad_fn.next_functions
    assert (type(fn).__name__, nr) == ("_SplitBackward", 1)
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_a_failed_op_raises_torchs_error_and_makes_no_accumulator():
    x, w = _leaf([1.0, 2.0, 3.0]), _leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(2\) at non-singleton dimension 0"):
        x * w
    assert x._acc is None and w._acc is None   # no AccumulateGrad was made for them
    with record() as trace:
        with pytest.raises(RuntimeError):
            x + w
    assert [e.kind for e in trace.events] == []


def test_inference_and_no_grad_results_are_what_they_were():
    x = _leaf([1.0, 2.0])
    with ag.inference_mode():
        y = x * 2.0
    assert y.is_inference() and not y.requires_grad
    with ag.no_grad():
        z = x.tanh()
    assert not z.is_inference() and not z.requires_grad and z.grad_fn is None


def test_events_of_the_direct_path_are_the_general_paths(monkeypatch):
    def scenario():
        x = ag.tensor([0.5, -1.0], requires_grad=True)
        y = OPS["mul"](x, 2.0)   # the line both node_created events name
        OPS["tanh"](y).sum().backward()

    def fields(trace):
        out = []
        for e in trace.events:
            if e.kind == "node_created":
                out.append((e.name, e.op, len(e.edges), [s.shape for s in e.inputs if s],
                            [s.shape for s in e.outputs], [s.name for s in e.saved],
                            e.source.split(": ", 1)[-1]))
        return out

    with record() as direct:
        scenario()
    for name in ("mul", "tanh"):
        monkeypatch.setattr(OPS[name], "direct", False)
    with record() as general:
        scenario()
    assert fields(direct) == fields(general)
    assert fields(direct)[1][-1] == 'y = OPS["mul"](x, 2.0)   # the line both node_created ' \
                                    'events name'
    assert [e.kind for e in direct.events] == [e.kind for e in general.events]


def _view_state(t):
    """What a view shares with its base, with the base and counter compared by identity."""
    return (t._base is not None, t.is_leaf, t.requires_grad, t._made_in, t.is_inference(),
            None if t.grad_fn is None else type(t.grad_fn).__name__)


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference"])
@pytest.mark.parametrize("name, args", [("t", ()), ("squeeze", ()), ("alias", ())])
def test_view_ops_share_their_base_as_the_general_path_does(name, args, mode):
    # ``w.t()`` of every Linear layer takes the short path: its result must be the general
    # path's view (base, version counter, creation mode, node), a view of a view included.
    op = OPS[name]
    context = {"grad": ag.enable_grad, "no_grad": ag.no_grad,
               "inference": ag.inference_mode}[mode]
    for make in (lambda: _leaf([[0.5, -1.0, 2.0]]), lambda: _leaf([[0.5, -1.0, 2.0]])[:, :2]):
        direct_in, general_in = make(), make()
        with context():
            direct, general = op(direct_in, *args), op.run((general_in, *args), {})
        _same(direct, general)
        assert _view_state(direct) == _view_state(general)
        root = direct_in if direct_in._base is None else direct_in._base
        assert direct._base is root and direct._vc is direct_in._vc is not None
        if direct.grad_fn is not None:
            assert _node_view(direct) == _node_view(general)
            direct.retain_grad()
            direct.sum().backward()
            assert direct.grad.tolist() == ag.ones_like(direct).tolist()


def test_a_direct_view_is_modified_in_place_as_torchs():
    w = _leaf([[1.0, 2.0], [3.0, 4.0]])
    y = (w * 1.0).t()
    y.mul_(2.0)   # rebases the view's history on its base's
    assert type(y.grad_fn).__name__ == "AsStridedBackward0"
    assert y._base.grad_fn.name() == "torch::autograd::CopySlices"
    assert y._version == y._base._version == 1
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w.t().mul_(2.0)
