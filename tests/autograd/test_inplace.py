"""In-place ops: version counters, leaf errors, saved-tensor checks, grad_fn rebasing.

Texts and names are torch 2.13's (REFERENCE §2, §3, §8).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import agdebug as ag

HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute "
                "its gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
LEAF_VIEW_INPLACE = ("a view of a leaf Variable that requires grad is being used in an in-place "
                     "operation.")


def modified(desc: str, version: int = 1, expected: int = 0, hint: str = HINT) -> str:
    """torch's text; ``desc`` is e.g. "[torch.FloatTensor [3]], which is output 0 of Add"."""
    if ", which is output" in desc:
        desc += ","
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {desc} is at version {version}; expected version {expected} "
            f"instead. {hint}")


def raises(exc, text):
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


def nf(t):
    """REFERENCE's ``nf``: grad_fn type name and next_functions as (type name, input_nr)."""
    fn = t.grad_fn
    edges = [(None if n is None else type(n).__name__, i) for n, i in fn.next_functions]
    return type(fn).__name__, edges


# ------------------------------------------------------------------------- version counter

def test_version_counter_values():
    x = ag.randn(3)
    assert x._version == 0
    x.add_(1)
    assert x._version == 1
    x.mul_(2)
    assert x._version == 2
    y = x.view(3)
    y.mul_(2)
    assert (x._version, y._version) == (3, 3)
    x.data.add_(1)
    assert x._version == 3
    with ag.no_grad():
        x.add_(1)
    assert x._version == 4


def test_version_counter_values_with_setitem():
    # REFERENCE §2 "version counter values", verbatim
    x = ag.randn(3)
    seen = [x._version]
    x.add_(1)
    seen.append(x._version)
    x[0] = 5
    seen.append(x._version)
    y = x.view(3)
    y.mul_(2)
    seen.append((x._version, y._version))
    x.data.add_(1)
    seen.append(x._version)
    with ag.no_grad():
        x.add_(1)
    seen.append(x._version)
    assert seen == [0, 1, 2, (3, 3), 3, 4]


def test_version_counter_matches_torch(torch):
    seen = []
    for lib in (ag, torch):
        x = lib.ones(3)
        row = [x._version]
        for op in ("add_", "mul_", "sub_", "div_", "zero_", "exp_", "tanh_"):
            getattr(x, op)(*((2.0,) if op in ("add_", "mul_", "sub_", "div_") else ()))
            row.append(x._version)
        x += 1
        row.append(x._version)
        x.copy_(lib.ones(3))
        x.fill_(3.0)
        row.append(x._version)
        seen.append(row)
    assert seen[0] == seen[1]


def test_data_does_not_bump_version():
    x = ag.ones(3, requires_grad=True)
    y = x * x
    x.data.add_(1)
    assert x._version == 0
    y.sum().backward()          # no error: .data is invisible to autograd
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_detach_shares_the_version_counter():
    x = ag.ones(3, requires_grad=True)
    d = x.detach()
    d.add_(1)
    assert (x._version, d._version) == (1, 1)
    x.data.mul_(2)
    with ag.no_grad():
        x.mul_(2)
    assert (x._version, d._version) == (2, 2)
    assert x.tolist() == [8.0, 8.0, 8.0]


def test_detach_in_place_change_is_caught_by_saved_check():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    x.detach().add_(1)
    with raises(RuntimeError, modified("[torch.FloatTensor [2]]")):
        y.sum().backward()


def test_out_of_place_ops_do_not_bump():
    x = ag.ones(3, requires_grad=True)
    _ = x * 2 + 1
    _ = x.exp()
    assert x._version == 0


# ------------------------------------------------------------------------- leaf errors

@pytest.mark.parametrize("stmt", [
    lambda x: x.add_(1), lambda x: x.zero_(), lambda x: x.mul_(2),
    lambda x: x.copy_(ag.ones(3)), lambda x: x.__iadd__(1),
])
def test_in_place_on_leaf_requiring_grad(stmt):
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with raises(RuntimeError, LEAF_INPLACE):
        stmt(x)
    assert x.tolist() == [1.0, 2.0, 3.0] and x._version == 0 and x.is_leaf


def test_augmented_assignment_on_leaf():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with raises(RuntimeError, LEAF_INPLACE):
        x += 1


def test_setitem_on_leaf_requiring_grad():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with raises(RuntimeError, LEAF_VIEW_INPLACE):
        x[0] = 1


def test_in_place_on_view_of_leaf():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with raises(RuntimeError, LEAF_VIEW_INPLACE):
        x[0:2].add_(1)


def test_in_place_on_leaf_under_no_grad():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with ag.no_grad():
        x.add_(1)
        x.zero_()
    assert x.tolist() == [0.0, 0.0, 0.0]
    assert x.is_leaf and x.grad_fn is None and x.requires_grad
    assert repr(x) == "tensor([0., 0., 0.], requires_grad=True)"


def test_in_place_on_leaf_not_requiring_grad_with_grad_operand():
    x = ag.zeros(3)
    w = ag.ones(3, requires_grad=True)
    x.add_(w)
    assert (x.is_leaf, x.requires_grad) == (False, True)
    assert nf(x) == ("AddBackward0", [(None, 0), ("AccumulateGrad", 0)])
    x.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0, 1.0]


# ------------------------------------------------------------------------- saved tensors

def test_exp_saves_result_not_input():
    a = ag.randn(3, requires_grad=True)
    b = a * 1
    c = b.exp()
    b.add_(1)
    c.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), c.detach().numpy())


@pytest.mark.parametrize("consumer", [lambda b: b * b, lambda b: b.sin()])
def test_saved_input_modified(consumer):
    a = ag.randn(3, requires_grad=True)
    b = a * 1
    c = consumer(b)
    b.add_(1)
    with raises(RuntimeError, modified("[torch.FloatTensor [3]], which is output 0 of Add")):
        c.sum().backward()
    assert a.grad is None


def test_saved_output_modified():
    a = ag.randn(3, requires_grad=True)
    c = a.exp()
    c.add_(1)
    assert nf(c) == ("AddBackward0", [("ExpBackward0", 0), (None, 0)])
    with raises(RuntimeError, modified("[torch.FloatTensor [3]], which is output 0 of Exp")):
        c.sum().backward()


def test_saved_leaf_modified_under_no_grad():
    x = ag.randn(3, requires_grad=True)
    y = x * x
    with ag.no_grad():
        x.add_(1)
    with raises(RuntimeError, modified("[torch.FloatTensor [3]]")):
        y.sum().backward()
    assert x.grad is None


def test_zero_dim_description():
    a = ag.tensor(2.0, requires_grad=True)
    b = a * 1
    c = b * b
    b.add_(1)
    with raises(RuntimeError, modified("[torch.FloatTensor []], which is output 0 of Add")):
        c.backward()


def test_float64_2d_description():
    a = ag.randn(2, 3, dtype=ag.float64, requires_grad=True)
    b = a * 1
    c = b * b
    b.mul_(2)
    with raises(RuntimeError, modified("[torch.DoubleTensor [2, 3]], which is output 0 of Mul")):
        c.sum().backward()


def test_int_tensor_saved():
    x = ag.randn(3, requires_grad=True)
    i = ag.tensor([1, 2, 3])
    y = x * i
    i.add_(1)
    with raises(RuntimeError, modified("[torch.LongTensor [3]]")):
        y.sum().backward()


def test_modified_twice_reports_version_2():
    a = ag.randn(3, requires_grad=True)
    b = a * 1
    c = b * b
    b.add_(1)
    b.mul_(2)
    with raises(RuntimeError, modified("[torch.FloatTensor [3]], which is output 0 of Mul",
                                       version=2)):
        c.sum().backward()


def test_saved_non_leaf_modified_under_no_grad():
    a = ag.randn(3, requires_grad=True)
    b = a.sin()
    c = b * b
    with ag.no_grad():
        b.add_(1)
    with raises(RuntimeError, modified("[torch.FloatTensor [3]], which is output 0 of Sin")):
        c.sum().backward()


def test_saved_tensor_modified_through_view():
    a = ag.randn(3, requires_grad=True)
    b = a * 1
    c = b * b
    b[0:2].add_(1)
    with raises(RuntimeError, modified("[torch.FloatTensor [3]], which is output 0 of "
                                       "torch::autograd::CopySlices")):
        c.sum().backward()


def test_saved_tensor_modified_with_anomaly_mode():
    a = ag.randn(3, requires_grad=True)
    with pytest.warns(UserWarning) as record:
        with ag.autograd.detect_anomaly():
            b = a * 1
            c = b * b
            b.add_(1)
            with raises(RuntimeError, modified(
                    "[torch.FloatTensor [3]], which is output 0 of Add", hint=ANOMALY_HINT)):
                c.sum().backward()
    texts = [str(w.message) for w in record]
    assert texts[0] == ("Anomaly Detection has been enabled. This mode will increase the "
                        "runtime and should only be enabled for debugging.")
    assert any(t.startswith("Error detected in MulBackward0. Traceback of forward call that "
                            "caused the error:") for t in texts)


def test_failed_version_check_keeps_grads_and_graph():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    w = ag.tensor([3.0, 4.0], requires_grad=True)
    (x * w).sum().backward()
    gx = x.grad
    b = x * 1
    y = (b * b).sum() + (w * 2).sum()
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    assert x.grad is gx and x.grad.tolist() == [3.0, 4.0]
    assert w.grad.tolist() == [1.0, 2.0]


def test_error_texts_match_torch(torch):
    texts = []
    for lib in (ag, torch):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 1
        c = b.tanh() * b
        b.sub_(1)
        try:
            c.sum().backward()
        except RuntimeError as e:
            texts.append(str(e))
    assert len(texts) == 2 and texts[0] == texts[1]


# ------------------------------------------------------------------------- rebasing grad_fn

SETUP_ROWS = [
    ("y.add_(1)", lambda y, z, z2: y.add_(1), ("AddBackward0", [("MulBackward0", 0), (None, 0)])),
    ("y.add_(z)", lambda y, z, z2: y.add_(z),
     ("AddBackward0", [("MulBackward0", 0), ("AccumulateGrad", 0)])),
    ("y.mul_(2)", lambda y, z, z2: y.mul_(2), ("MulBackward0", [("MulBackward0", 0), (None, 0)])),
    ("y.mul_(z)", lambda y, z, z2: y.mul_(z),
     ("MulBackward0", [("MulBackward0", 0), ("AccumulateGrad", 0)])),
    ("y.clamp_(0)", lambda y, z, z2: y.clamp_(0), ("ClampBackward1", [("MulBackward0", 0)])),
    ("y.clamp_(min=0)", lambda y, z, z2: y.clamp_(min=0),
     ("ClampBackward1", [("MulBackward0", 0)])),
    ("y.zero_()", lambda y, z, z2: y.zero_(), ("ZeroBackward0", [("MulBackward0", 0)])),
    ("y.fill_(1)", lambda y, z, z2: y.fill_(1), ("FillBackward2", [("MulBackward0", 0)])),
    ("y.copy_(z2)", lambda y, z, z2: y.copy_(z2),
     ("CopyBackwards", [("MulBackward0", 0), ("AccumulateGrad", 0)])),
    ("y.sub_(1)", lambda y, z, z2: y.sub_(1), ("SubBackward0", [("MulBackward0", 0), (None, 0)])),
    ("y.div_(2)", lambda y, z, z2: y.div_(2), ("DivBackward0", [("MulBackward0", 0), (None, 0)])),
    ("y += 1", lambda y, z, z2: y.__iadd__(1),
     ("AddBackward0", [("MulBackward0", 0), (None, 0)])),
    ("y *= z", lambda y, z, z2: y.__imul__(z),
     ("MulBackward0", [("MulBackward0", 0), ("AccumulateGrad", 0)])),
    ("y.relu_()", lambda y, z, z2: y.relu_(), ("ReluBackward0", [("MulBackward0", 0)])),
    ("y.exp_()", lambda y, z, z2: y.exp_(), ("ExpBackward0", [("MulBackward0", 0)])),
    ("y.sigmoid_()", lambda y, z, z2: y.sigmoid_(), ("SigmoidBackward0", [("MulBackward0", 0)])),
    ("y.pow_(2)", lambda y, z, z2: y.pow_(2), ("PowBackward0", [("MulBackward0", 0)])),
]


def _rebase_setup(lib):
    x = lib.tensor(np.array([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]], dtype=np.float32),
                   requires_grad=True)
    z = lib.tensor(np.array([0.3, -0.6, 1.2], dtype=np.float32), requires_grad=True)
    z2 = lib.tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32),
                    requires_grad=True)
    return x, z, z2, x * 1


@pytest.mark.parametrize("label,stmt,want", SETUP_ROWS, ids=[r[0] for r in SETUP_ROWS])
def test_in_place_on_non_leaf_rebases_grad_fn(label, stmt, want):
    x, z, z2, y = _rebase_setup(ag)
    out = stmt(y, z, z2)
    assert out is y
    assert nf(y) == want
    assert y._version == 1
    assert not y.is_leaf


@pytest.mark.parametrize("label,stmt,want", SETUP_ROWS, ids=[r[0] for r in SETUP_ROWS])
def test_in_place_grads_match_torch(torch, label, stmt, want):
    res = []
    for lib in (ag, torch):
        x, z, z2, y = _rebase_setup(lib)
        stmt(y, z, z2)
        (y * lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))).sum().backward()
        res.append([None if t.grad is None else t.grad.numpy() for t in (x, z, z2)])
    for a, t in zip(*res):
        assert (a is None) == (t is None)
        if a is not None:
            np.testing.assert_allclose(a, t, rtol=1e-5, atol=1e-6)


def test_in_place_on_view_of_non_leaf_gives_copy_slices():
    x = ag.ones(2, 3, requires_grad=True)
    y = x * 1
    v = y[0]
    v.mul_(2)
    assert nf(y) == ("CopySlices", [("MulBackward0", 0), (None, 0)])
    assert nf(v) == ("AsStridedBackward0", [("CopySlices", 0)])
    y.sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]


def test_setitem_on_non_grad_tensor_with_grad_value():
    a = ag.zeros(2, 3)
    z = ag.randn(3, requires_grad=True)
    a[0] = z
    assert nf(a) == ("CopySlices", [(None, 0), ("AccumulateGrad", 0)])
    assert (a.is_leaf, a.requires_grad) == (False, True)


def test_in_place_returns_self_and_keeps_identity():
    x = ag.ones(3, requires_grad=True)
    y = x * 2
    before = id(y)
    y.add_(1)
    y += 1
    assert id(y) == before
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_chained_in_place_grads():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = ag.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = x * 1
        y.mul_(3).add_(1).exp_()
        y.sum().backward()
    v = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(3 * v + 1), rtol=1e-5)


def _version_error_names(lib, make) -> str:
    x = lib.ones(2, 3, requires_grad=True)
    w = make(lib, x * 1)
    z = w * w   # saves w
    with lib.no_grad():
        w.add_(1)
    try:
        z.sum().backward()
    except RuntimeError as e:
        return str(e).split("which is ")[1].split(", is at")[0]
    return "no error"


def _custom(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Twice


def _written_through_a_view(lib, y):
    y = y.clone()
    y[0].mul_(2)
    return y


@pytest.mark.parametrize("make", [
    lambda lib, y: y.exp(),                       # ExpBackward0: "Exp"
    lambda lib, y: y.clamp(min=0.5),              # ClampBackward1: "Clamp1"
    lambda lib, y: y.sum(0),                      # SumBackward1: "Sum1"
    lambda lib, y: y.max(),                       # MaxBackward1: "Max1"
    lambda lib, y: _custom(lib).apply(y),         # TwiceBackward: "Twice"
    _written_through_a_view,                      # torch::autograd::CopySlices, kept whole
], ids=["exp", "clamp-scalar", "sum-dim", "max-all", "custom", "copy-slices"])
def test_version_error_names_the_op_as_torch(make):
    torch = pytest.importorskip("torch")
    assert _version_error_names(ag, make) == _version_error_names(torch, make)


def test_increment_version_bumps_a_tensor_or_each_of_a_list_as_torch(lib):
    a, b = lib.zeros(2, requires_grad=True), lib.zeros(3, dtype=lib.int64)
    lib.autograd.graph.increment_version(a)
    lib.autograd.graph.increment_version([a, b])
    assert (a._version, b._version) == (2, 1)
    y = a * a   # saves a: a change autograd did not see is caught by backward
    lib.autograd.graph.increment_version(a)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    with lib.inference_mode():
        c = lib.zeros(2)
    lib.autograd.graph.increment_version(c)   # an inference tensor has no version: no error
