"""torch's legacy constructors and types (``torch.Tensor(2, 3)``, ``torch.LongTensor``...)
against torch: dtype, shape, values (not for sizes: torch leaves that memory as it was)."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

SIZED = ["lib.Tensor()", "lib.Tensor(2, 3)", "lib.Tensor(lib.Size([2, 3]))", "lib.Tensor(3)",
         "lib.FloatTensor(2)", "lib.LongTensor(3)", "lib.FloatTensor(2, 3, device='cpu')"]
DATA = ["lib.Tensor([1, 2])", "lib.Tensor([[1, 2]])", "lib.Tensor((2, 3))",
        "lib.Tensor(lib.ones(2, dtype=lib.long))", "lib.Tensor(np.ones(2))",
        "lib.FloatTensor([1, 2])", "lib.LongTensor([1.7, 2])", "lib.DoubleTensor([1])",
        "lib.BoolTensor([1, 0])", "lib.ByteTensor([1])", "lib.IntTensor([1])",
        "lib.HalfTensor([1])", "lib.ShortTensor([1])", "lib.CharTensor([1])",
        "lib.FloatTensor(np.ones(3))", "lib.FloatTensor(lib.ones(2))",
        "lib.Tensor(lib.ones(2, requires_grad=True))", "lib.ones(2).type(lib.LongTensor)",
        "lib.ones(2).type('torch.IntTensor')"]
ERRORS = ["lib.Tensor(2.5)", "lib.Tensor(-1)", "lib.LongTensor(lib.ones(2))"]


def made(lib, expr: str, values: bool):
    t = eval(expr, {"lib": lib, "np": np})
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    return str(t.dtype), tuple(t.shape), t.requires_grad, grad_fn, t.tolist() if values else None


@pytest.mark.parametrize("expr", SIZED + DATA)
def test_legacy_constructor_matches_torch(torch, expr):
    values = expr in DATA
    assert made(ag, expr, values) == made(torch, expr, values)


@pytest.mark.parametrize("expr", ERRORS)
def test_legacy_constructor_errors_match_torch(torch, expr):
    with pytest.raises(Exception) as theirs:
        eval(expr, {"lib": torch})
    with pytest.raises(type(theirs.value)) as ours:
        eval(expr, {"lib": ag})
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_a_legacy_type_is_an_isinstance_check_on_the_dtype(torch):
    for lib in (ag, torch):
        assert isinstance(lib.ones(2), lib.FloatTensor)
        assert not isinstance(lib.ones(2, dtype=lib.long), lib.FloatTensor)
        assert isinstance(lib.ones(2, dtype=lib.long), lib.LongTensor)
    assert repr(ag.FloatTensor) == repr(torch.FloatTensor)


def test_the_tensor_a_legacy_call_aliases_shares_its_storage():
    t = ag.ones(2)
    ag.Tensor(t)[0] = 5
    assert t.tolist() == [5.0, 1.0]


NEW_SIZED = ["x.new(2)", "x.new()", "x.new(lib.Size([1, 2]))"]
NEW_DATA = ["x.new([1, 2])", "lib.arange(3).new([1.5])"]


@pytest.mark.parametrize("expr", NEW_SIZED + NEW_DATA)
def test_tensor_new_is_the_legacy_constructor_of_its_dtype(torch, expr):
    def of(lib):   # (a size leaves the memory as it was in torch: only data is compared)
        t = eval(expr, {"lib": lib, "x": lib.arange(6.0).view(2, 3)})
        return str(t.dtype), tuple(t.shape), t.tolist() if expr in NEW_DATA else None
    assert of(ag) == of(torch)


REAL_VIEWS = ["x.conj() is x", "x.resolve_conj() is x", "x.resolve_neg() is x", "x.is_conj()",
              "x.is_neg()", "x.real is x", "tuple(x.H.shape)", "tuple(x.mH.shape)",
              "y.H.grad_fn.name()", "y.mH.grad_fn.name()", "y.adjoint().grad_fn.name()",
              "x.H.tolist()"]
REAL_VIEW_ERRORS = ["x.imag", "lib.arange(3.0).H", "lib.ones(2, 2, 2).H", "lib.arange(3.0).mH"]


@pytest.mark.parametrize("expr", REAL_VIEWS + REAL_VIEW_ERRORS)
def test_a_real_tensor_answers_complex_aware_code_as_torchs(torch, expr):
    def of(lib):
        x = lib.arange(6.0).view(2, 3)
        try:
            return eval(expr, {"lib": lib, "x": x, "y": x.clone().requires_grad_()})
        except RuntimeError as error:
            return str(error)
    assert of(ag) == of(torch)
