"""torch.set_default_dtype / get_default_dtype, compared with torch: what follows the default
float (factories, Python floats, nn parameters, integers promoted to a float) and what does not."""

from __future__ import annotations

import pytest

import agdebug as ag

from .torch_parity import assert_same_as_torch

EXPRS = [
    "lib.get_default_dtype()", "lib.tensor(1.5)", "lib.tensor([1, 2]) / 2",
    "lib.tensor([1, 2]).sqrt()",
    "lib.tensor([1, 2]) + 1.5", "lib.tensor([True]) * 1.5", "2.5 ** lib.tensor([1, 2])",
    "lib.tensor([1, 2]).true_divide(3)", "lib.tensor([1, 2]).clamp(0.5)",
    "lib.tensor([1, 2]).atan2(lib.tensor([3, 1]))", "lib.logsumexp(lib.tensor([1, 2]), 0)",
    "lib.ldexp(lib.tensor([1, 2]), lib.tensor([1, 2]))",
    "lib.where(lib.tensor([True, False]), 1.0, 0)", "lib.add(7, 2.5)",
    "lib.tensor([1, 2]).float()", "lib.tensor([1, 2]).double()", "lib.FloatTensor(2).zero_()",
    "lib.Tensor(2).zero_()", "lib.zeros(2)", "lib.ones(2, 3)", "lib.empty(0)",
    "lib.full((2,), 1.5)",
    "lib.full((2,), 1)", "lib.arange(3.0)", "lib.arange(3)", "lib.linspace(0, 1, 5)",
    "lib.logspace(0, 1, 3)", "lib.eye(2)", "lib.scalar_tensor(1)", "lib.as_tensor([1.5])",
    "lib.tensor(1.0, dtype=lib.float32) + 1.5", "lib.ones(2, dtype=lib.float32) * 2.5",
    "lib.tensor([1.0]).new_tensor([1.5])", "lib.tensor([1]).new_tensor([1.5])",
]


@pytest.fixture(params=["float64", "float16", "float32"])
def default(request, torch):
    """Both libraries with the same default float for one test, then float32 again."""
    ag.set_default_dtype(getattr(ag, request.param))
    torch.set_default_dtype(getattr(torch, request.param))
    yield request.param
    ag.set_default_dtype(ag.float32)
    torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("expr", EXPRS)
def test_follows_the_default_as_torch(torch, default, expr):
    if expr == "lib.get_default_dtype()":
        assert repr(ag.get_default_dtype()) == repr(torch.get_default_dtype())
        return
    assert_same_as_torch(torch, expr)


@pytest.mark.parametrize("expr", ["lib.tensor([1.5, 2.0])", "lib.ones(2, dtype=lib.float32)",
                                  "lib.ones(2, dtype=lib.float64)", "lib.empty(0)",
                                  "lib.empty(0, dtype=lib.float32)", "lib.tensor([1, 2]) / 4"])
def test_repr_names_a_dtype_only_off_the_default(torch, default, expr):
    assert repr(eval(expr, {"lib": ag})) == repr(eval(expr, {"lib": torch}))


@pytest.mark.parametrize("draw", ["lib.rand(3)", "lib.randn(3)", "lib.normal(0.0, 1.0, (3,))",
                                  "lib.empty(3).uniform_()"])
def test_random_draws_in_the_default_dtype(torch, default, draw):
    ag.manual_seed(3)
    torch.manual_seed(3)
    got, want = eval(draw, {"lib": ag}), eval(draw, {"lib": torch})
    assert str(got.dtype) == str(want.dtype)
    if default != "float16":   # agdebug's float16 uniform draws are not torch's (any default)
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("make", ["lib.nn.Linear(3, 2)", "lib.nn.Conv1d(2, 2, 3)",
                                  "lib.nn.BatchNorm1d(2)", "lib.nn.LSTM(2, 3)",
                                  "lib.nn.Embedding(4, 2)", "lib.nn.LayerNorm(3)"])
def test_module_parameters_follow_the_default(torch, default, make):
    ag.manual_seed(0)
    torch.manual_seed(0)
    got, want = eval(make, {"lib": ag}).state_dict(), eval(make, {"lib": torch}).state_dict()
    assert list(got) == list(want)
    for key, value in want.items():
        assert str(got[key].dtype) == str(value.dtype), key
        if default != "float16":   # (its uniform draws are not torch's, as above)
            assert got[key].tolist() == value.tolist(), key


@pytest.mark.parametrize("name", ["Adam", "NAdam", "ASGD", "Adagrad"])
def test_optimizer_scalars_take_torchs_scalar_dtype(torch, default, name):
    """torch's ``_get_scalar_dtype()``: float64 only when that is the default, else float32."""
    def state(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, name)([p], lr=0.1)
        p.grad = lib.ones(2)
        opt.step()
        return {k: (str(v.dtype), v.tolist()) for k, v in opt.state[p].items() if v.ndim == 0}
    assert state(ag) == state(torch)


@pytest.mark.parametrize("arg", ["lib.int64", "lib.complex64", "lib.bool", "float", "int",
                                 "'float64'", "None", "lib.bfloat16"])
def test_refused_as_torch(torch, arg):
    got, want = _error(ag, arg), _error(torch, arg)
    if arg == "lib.bfloat16":   # torch has bfloat16 tensors; agdebug refuses in its one line
        assert want is None and got[0] == "TypeError" and "bfloat16" in got[1]
        assert ag.get_default_dtype() is ag.float32
        torch.set_default_dtype(torch.float32)
        return
    assert got == want
    assert ag.get_default_dtype() is ag.float32


def _error(lib, arg):
    try:
        lib.set_default_dtype(eval(arg, {"lib": lib}))
    except Exception as e:   # noqa: BLE001 - the error itself is compared
        return type(e).__name__, str(e)
    return None
