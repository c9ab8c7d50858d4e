"""A node's saved values and attributes read by name, as torch spells them (``_saved_self``,
``_saved_alpha``...), against torch; and a name no node has raises torch's AttributeError.

Each op's node class declares these names as properties (nodes have no ``__getattr__``),
so these cases check that every spelling torch offers is declared.
"""

from __future__ import annotations

import pytest

import agdebug as ag

# (expression making ``y`` from a leaf ``x``, attribute of y.grad_fn)
CASES = [
    ("x * x", "_saved_self"),
    ("x * x", "_saved_other"),
    ("x.exp()", "_saved_result"),
    ("lib.add(x, x, alpha=2)", "_saved_alpha"),
    ("lib.sub(x, x, alpha=3)", "_saved_alpha"),
    ("x.sum(dim=0, keepdim=True)", "_saved_keepdim"),
    ("x.clamp(min=0.5)", "_saved_min"),
    ("x.clamp(min=0.5)", "_saved_max"),
    ("x.pow(3)", "_saved_exponent"),
    ("x.pow(3)", "_saved_self"),
    ("x.tanh()", "_saved_result"),
    ("x.relu()", "_saved_result"),
    ("lib.addmm(x[None], x[None], lib.ones(3, 3, dtype=lib.float64))", "_saved_beta"),
    ("lib.addmm(x[None], x[None], lib.ones(3, 3, dtype=lib.float64), beta=1.0)", "_saved_beta"),
    ("lib.addmm(x[None], x[None], lib.ones(3, 3, dtype=lib.float64), alpha=True)",
     "_saved_alpha"),
    # names the node does not have: AttributeError in torch's words
    ("x + x", "_saved_self"),
    ("x + x", "_saved_other"),
    ("x * x", "foo"),
    ("x.exp()", "_saved_self"),
]


def _read(lib, expr: str, attr: str):
    x = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
    y = eval(expr, {"lib": lib, "x": x})
    try:
        value = getattr(y.grad_fn, attr)
    except AttributeError as error:
        return "error", str(error)
    if value is x:   # torch hands back the input itself (an output: a new tensor object)
        return "the input", None
    if hasattr(value, "detach"):
        return "tensor", value.detach().numpy().tolist()
    return "value", repr(value)   # (repr: 1 and 1.0 and True differ, as torch keeps them)


@pytest.mark.parametrize(("expr", "attr"), CASES)
def test_saved_attribute_reads_as_in_torch(torch, expr, attr):
    (kind, value), (want_kind, want) = _read(ag, expr, attr), _read(torch, expr, attr)
    assert kind == want_kind
    assert value == (pytest.approx(want, rel=1e-12) if kind == "tensor" else want)


def test_a_saved_tensor_reads_the_same_under_its_own_name():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    assert y.grad_fn._saved_self is y.grad_fn.x is x


def test_saved_values_not_needed_read_as_none():
    # ``x * 3.0`` with x a constant: the node saves only what x's gradient needs (nothing)
    w = ag.tensor([1.0, 2.0], requires_grad=True)
    y = ag.tensor([3.0, 4.0]) * w
    assert y.grad_fn._saved_other is None
