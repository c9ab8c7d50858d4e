"""torch comparisons for the pointwise math of unary_math.py, binary_math.py and the
in-place variants of pointwise.py: dtypes (int and bool inputs), overloads (number or
tensor operands, and so which node), gradients at special points, and torch's errors.

Each expression runs with ``lib`` = agdebug and ``lib`` = torch (see torch_parity.py).
"""

from __future__ import annotations

import pytest

from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

F = "lib.tensor([1.5, -2.25, 0.0, 3.75])"
N = "lib.tensor([1, -2, 0, 3])"
B = "lib.tensor([True, False, True, False])"
U = "lib.tensor([0.5, -0.25, 0.0, 0.75])"
H = "lib.tensor([1.5, -2.25, 0.0, 3.75], dtype=lib.float16)"
D = "lib.tensor([1.5, -2.25, 0.0, 3.75], dtype=lib.float64)"
E = "lib.tensor([])"

UNARY = ["ceil", "trunc", "fix", "frac", "sgn", "sinh", "cosh", "asinh", "acosh", "atanh",
         "asin", "acos", "atan", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
         "arctanh", "log10", "exp2", "erfc", "erfinv", "logit", "sinc", "deg2rad",
         "rad2deg", "nan_to_num", "positive", "absolute", "negative"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("operand", [F, N, B, U, H, D, E], ids=["f32", "i64", "bool", "unit",
                                                                  "f16", "f64", "empty"])
def test_unary_dtypes_and_values(name, operand):
    """int tensors: ceil/trunc return a copy, sinh & co. float32, frac refuses; bool too."""
    assert_same_as_torch(torch, f"lib.{name}({operand})")


@pytest.mark.parametrize("name", UNARY)
def test_unary_method_records_the_node(name):
    assert_same_as_torch(torch, f"x.{name}()", {"x": f"{U}.requires_grad_()"})


# Gradients where the formula has a special case: each compared with torch's.
GRAD = "lib.autograd.grad({}.sum(), {})"
X = {"x": "lib.tensor([0.0, -0.0, 2.0, -2.0, 0.1, 0.9], dtype=lib.float64, requires_grad=True)",
     "y": "lib.tensor([0.0, 1.0, -0.0, 0.0, 0.1, 2.0], dtype=lib.float64, requires_grad=True)",
     "n": "lib.tensor([float('nan'), float('inf'), -float('inf'), 1.0, 0.2, 0.5], "
          "dtype=lib.float64, requires_grad=True)"}
SPECIAL_GRADS = [
    GRAD.format("lib.hypot(x, y)", "(x, y)"),            # NaN at (0, 0)
    GRAD.format("lib.copysign(x, y)", "(x, y)"),         # 0 at x == +-0; other: zeros
    GRAD.format("lib.copysign(x, -1.0)", "(x,)"),
    GRAD.format("lib.xlogy(x, y)", "(x, y)"),            # 0 for x where x == 0
    GRAD.format("lib.xlogy(x, n)", "(x, n)"),            # NaN other
    GRAD.format("lib.xlogy(x, 2.0)", "(x,)"),
    GRAD.format("lib.xlogy(2.0, y)", "(y,)"),
    GRAD.format("lib.fmax(x, y)", "(x, y)"),             # ties go to self
    GRAD.format("lib.fmin(x, y)", "(x, y)"),
    GRAD.format("lib.fmax(x, n)", "(x, n)"),             # NaN: the other operand
    GRAD.format("lib.fmin(n, x)", "(n, x)"),
    GRAD.format("lib.clamp_min(x, 0.0)", "(x,)"),        # the bound itself: passes
    GRAD.format("lib.clamp_max(x, 0.0)", "(x,)"),
    GRAD.format("lib.clamp_min(x, y)", "(x, y)"),
    GRAD.format("lib.clamp_max(x, y)", "(x, y)"),
    GRAD.format("lib.clamp_min(n, 0.5)", "(n,)"),        # NaN: 0
    GRAD.format("lib.logit(x)", "(x,)"),                 # NaN outside [0, 1], inf at 0, 1
    GRAD.format("lib.logit(x, eps=0.1)", "(x,)"),        # 0 outside [eps, 1 - eps]
    GRAD.format("lib.logit(n, 0.2)", "(n,)"),
    GRAD.format("lib.nan_to_num(n)", "(n,)"),            # 0 at nan and +-inf
    GRAD.format("lib.nan_to_num(n, nan=1.0, posinf=2.0)", "(n,)"),
    GRAD.format("lib.sinc(x)", "(x,)"),                  # 0 at 0
    GRAD.format("lib.fmod(x, y)", "(x, y)"),
    GRAD.format("lib.logaddexp(n, n)", "(n,)"),
    GRAD.format("lib.logaddexp2(x, n)", "(x, n)"),
    GRAD.format("lib.erfinv(x.clamp(-1, 1))", "(x,)"),
    GRAD.format("lib.asin(x.clamp(-1, 1))", "(x,)"),
    GRAD.format("lib.acosh(x)", "(x,)"),
    GRAD.format("lib.lerp(x, y, 0.3)", "(x, y)"),
    GRAD.format("lib.lerp(x, y, x)", "(x, y)"),
    GRAD.format("lib.addcmul(x, y, n, value=2)", "(x, y, n)"),
    GRAD.format("lib.addcdiv(x, n, y, value=-0.5)", "(x, n, y)"),
    GRAD.format("lib.ceil(x) + lib.trunc(x) + lib.sgn(x) + lib.frac(x)", "(x,)"),
    GRAD.format("lib.float_power(x, 2)", "(x,)"),
    GRAD.format("lib.float_power(x.float(), y)", "(x, y)"),
    GRAD.format("lib.float_power(2, y.float())", "(y,)"),
]


@pytest.mark.parametrize("expr", SPECIAL_GRADS)
def test_gradients_at_special_points(expr):
    assert_same_as_torch(torch, expr, X)


SECOND = ("lib.autograd.grad(lib.autograd.grad({}.sum(), x, create_graph=True)[0].sum(), x, "
          "allow_unused=True)")
SECOND_ORDER = [SECOND.format(f) for f in (
    "lib.logit(x)", "lib.logit(x, eps=0.2)", "lib.sinc(x)", "lib.hypot(x, x + 1)",
    "lib.xlogy(x, x + 2)", "lib.erfinv(x * 0.5)", "lib.lerp(x, x * x, x)", "lib.exp2(x)",
    "lib.fmax(x, x * x)", "lib.addcdiv(x, x, x + 3)")]


@pytest.mark.parametrize("expr", SECOND_ORDER)
def test_second_derivatives(expr):
    assert_same_as_torch(torch, expr, {
        "x": "lib.tensor([0.0, 0.2, 0.5, 0.9, -0.3], dtype=lib.float64, requires_grad=True)"})


OVERLOADS = [
    # which node: a number or a tensor operand
    "lib.fmod(x, 2)", "lib.fmod(x, y)", "x.fmod(2.5)", "lib.copysign(x, -1)",
    "lib.copysign(x, y)", "lib.xlogy(x, y)", "lib.xlogy(2, y)", "lib.xlogy(x, 3)",
    "lib.clamp_min(x, 0.5)", "lib.clamp_min(x, y)", "x.clamp_max(0.5)", "x.clamp_max(y)",
    "lib.lerp(x, y, 0.3)", "lib.lerp(x, y, 0.7)", "lib.lerp(x, y, y)",
    "lib.lerp(x, y, lib.tensor(0.25))", "x.lerp(y, 2)", "lib.addcmul(x, y, x)",
    "lib.addcmul(x, y, x, value=-2)", "lib.addcdiv(x, y, x + 3, value=0.5)",
    "x.addcdiv(y, x + 3)", "lib.float_power(x, y)", "lib.float_power(x, 2)",
    "lib.float_power(2, x)", "lib.float_power(x.double(), 3)", "lib.positive(x)",
    "lib.hypot(x, y)", "x.logaddexp(y)", "lib.logaddexp2(x, y)", "lib.fmax(x, y)",
    "x.fmin(y)", "lib.heaviside(x, y)", "lib.arctan2(x, y)", "x.arctan2(y)",
    "lib.logit(x, 0.25)", "x.logit(eps=0.25)", "lib.nan_to_num(x / 0, posinf=9.0)",
    "lib.nan_to_num(x.detach() / 0, nan=1.0, neginf=-9.0)",
    # broadcasting
    "lib.hypot(x, y.view(4, 1))", "lib.lerp(x, y.view(4, 1), 0.5)",
    "lib.addcmul(x, y.view(4, 1), x)", "lib.lerp(x, y.view(4, 1), x.view(4, 1))",
    "lib.fmod(lib.ones(2, 3), lib.ones(4))", "lib.hypot(lib.ones(2, 3), lib.ones(4))",
]


@pytest.mark.parametrize("expr", OVERLOADS)
def test_overloads(expr):
    assert_same_as_torch(torch, expr, {
        "x": "lib.tensor([0.25, -1.5, 0.0, 2.0], requires_grad=True)",
        "y": "lib.tensor([0.5, 0.0, -1.0, 2.0], requires_grad=True)"})


INTEGER_AND_BOOL = [
    f"lib.fmod({N}, 2)", f"lib.fmod({N}, {N} + 5)", f"lib.fmod({N}, 2.5)", f"lib.fmod({B}, {B})",
    f"lib.fmod({N}, 0)", f"lib.fmod({N}, {N})", f"lib.fmod({F}, 0)",
    "lib.fmod(lib.tensor([5, 253], dtype=lib.uint8), 300)",
    f"lib.copysign({N}, {N})", f"lib.copysign({B}, -1)", f"lib.copysign({F}, {N})",
    f"lib.xlogy({N}, {N})", f"lib.xlogy({B}, 2)", f"lib.xlogy({N}, 3)",
    f"lib.hypot({N}, {N})", f"lib.hypot({B}, {B})", f"lib.hypot({F}, {N})",
    f"lib.logaddexp({N}, {N})", f"lib.logaddexp2({F}, {N})",
    f"lib.heaviside({N}, {N})", f"lib.heaviside({B}, {B})", f"lib.heaviside({F}, {N})",
    f"lib.heaviside({F} * lib.tensor(float('nan')), {F})",
    f"lib.fmax({N}, {N} * 0)", f"lib.fmin({B}, {B})", f"lib.fmax({N}, {F})",
    f"lib.clamp_min({N}, 2)", f"lib.clamp_min({N}, 2.5)", f"lib.clamp_max({B}, False)",
    "lib.clamp_min(lib.tensor([1, 5], dtype=lib.uint8), -1)", f"lib.clamp_max({N}, {F})",
    f"lib.lerp({N}, {N}, 0.5)", f"lib.lerp({F}, {N}, 0.5)", f"lib.lerp({F}, {D}, 0.5)",
    f"lib.lerp({F}, {F}, {D})", f"lib.lerp({F}, {F}, {N})", f"lib.lerp({N}, {N}, {N})",
    f"lib.lerp({H}, {H}, 0.5)", f"lib.lerp({D}, {D}, {D})",
    f"lib.addcmul({N}, {N}, {N}, value=2)", f"lib.addcmul({N}, {N}, {N}, value=0.5)",
    f"lib.addcmul({F}, {N}, {N}, value=0.5)", f"lib.addcmul({B}, {B}, {B})",
    f"lib.addcmul({N}, {F}, {N})", "lib.addcmul(lib.tensor([1], dtype=lib.uint8), "
    "lib.tensor([2]), lib.tensor([3]), value=-1)", f"lib.addcmul({F}, {D}, lib.tensor(2.0))",
    f"lib.addcmul({F}, {F}, lib.tensor(2.0, dtype=lib.float64))",
    f"lib.addcmul({N}, {N}, lib.tensor(2.5, dtype=lib.float64))",
    f"lib.addcdiv({F}, {N}, {N})", f"lib.addcdiv({N}, {N}, {N})", f"lib.addcdiv({N}, {F}, {N})",
    f"lib.addcdiv({F}, {F}, {F} + 3, value=lib.tensor(2.0))",
    f"lib.float_power({N}, {N})", f"lib.float_power({N}, 2)", f"lib.float_power({B}, 0.5)",
    f"lib.positive({B})", f"lib.positive({N})",
    f"lib.nan_to_num({N}, nan=2.5)", f"lib.nan_to_num({B})",
    f"lib.nan_to_num({H} / 0)", f"lib.nan_to_num({D} / 0)",
    f"lib.logit({N}, eps=0.25)", f"lib.sinc({N})", f"lib.exp2({N})",
    "lib.exp2(lib.tensor([3], dtype=lib.int16))", "lib.deg2rad(lib.tensor([180]))",
    "lib.erfinv(lib.tensor([1.0, -1.0, 2.0, 0.5, -0.999, 1e-10], dtype=lib.float64))",
    "lib.logit(lib.tensor([0.0, 1.0, -0.5, 0.5]))",
    "lib.logit(lib.tensor([0.0, 1.0, -0.5, 0.5]), eps=0.1)",
    "lib.xlogy(lib.tensor([0.0, 0.0, 1.0]), lib.tensor([0.0, float('nan'), 0.0]))",
    "lib.logaddexp(lib.tensor([float('inf'), -float('inf')]), "
    "lib.tensor([float('inf'), -float('inf')]))",
    "lib.logaddexp2(lib.tensor([1000.0]), lib.tensor([1000.0]))",
    "lib.copysign(lib.tensor([1.0, -2.0, 0.0]), -0.0)",
]


@pytest.mark.parametrize("expr", INTEGER_AND_BOOL)
def test_integer_bool_and_special_values(expr):
    assert_same_as_torch(torch, expr)


ERRORS = [
    "lib.hypot(x, 2)", "lib.hypot(2.0, x)", "x.hypot(2)", "lib.fmax(x, 1.0)",
    "lib.heaviside(x, 0.5)", "lib.fmod(2.0, x)", "lib.copysign(2.0, x)", "lib.xlogy(2, 3)",
    "lib.clamp_min(2.0, x)", "lib.float_power(x.detach(), 2) * 0 + x.detach().float_power_(2)",
    "lib.ones(2, dtype=lib.float64).float_power_(lib.tensor([2]))",
    "lib.addcdiv(x, lib.tensor([1, 2, 3, 4]), lib.tensor([True, False, True, True]))",
    "lib.heaviside(x, x).sum().backward()",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors(expr):
    assert_same_as_torch(torch, expr, {"x": "lib.tensor([0.25, -1.5, 0.0, 2.0], "
                                            "requires_grad=True) * 1"})


INPLACE = [
    # torch's write-back rules: an int tensor keeps ceil_/trunc_ (a copy), refuses sinh_
    f"{N}.ceil_()", f"{N}.trunc_()", f"{N}.fix_()", f"{F}.ceil_()", f"{F}.floor_()",
    f"{F}.frac_()", f"{N}.sinh_()", f"{N}.sqrt_()", f"{F}.abs_()", f"{N}.abs_()",
    f"{F}.absolute_()", f"{F}.sqrt_()", f"{F}.log_()", f"{F}.sin_()", f"{F}.cos_()",
    f"{F}.tan_()", f"{F}.exp2_()", f"{F}.sgn_()", f"{F}.sign_()", f"{U}.asin_()",
    f"{U}.arccos_()", f"{F}.atan_()", f"{F}.erf_()", f"{U}.erfinv_()", f"{F}.erfc_()",
    f"{F}.log1p_()", f"{F}.log2_()", f"{F}.log10_()", f"{F}.expm1_()", f"{F}.rsqrt_()",
    f"{F}.reciprocal_()", f"{F}.negative_()", f"{F}.square_()", f"{N}.square_()",
    f"{F}.round_()", f"{F}.round_(decimals=1)", f"{U}.logit_()", f"{U}.logit_(0.25)",
    f"{F}.sinc_()", f"{F}.deg2rad_()", f"{F}.rad2deg_()", f"({F} / 0).nan_to_num_()",
    f"{N}.nan_to_num_(nan=2.0)", f"({F} / 0).nan_to_num_(posinf=1.0, neginf=-1.0)",
    f"{F}.clamp_min_(0.5)", f"{F}.clamp_max_({U})", f"{N}.clamp_min_(0.5)",
    f"{F}.lerp_({U}, 0.5)", f"{F}.lerp_({U}, {U})", f"{F}.lerp_({U}.view(4, 1), 0.5)",
    f"{F}.addcmul_({U}, {U}, value=2)", f"{F}.addcdiv_({U}, {F} + 3, value=-1)",
    f"{N}.addcmul_({F}, {F})", f"{F}.fmod_(0.5)", f"{F}.fmod_({U} + 2)", f"{N}.fmod_(0.5)",
    f"{F}.copysign_(-1)", f"{N}.copysign_(-1)", f"{F}.copysign_({U})", f"{F}.xlogy_({F})",
    f"{F}.xlogy_(2)", f"{F}.hypot_({U})", f"{F}.atan2_({U})", f"{F}.arctan2_({U})",
    f"{F}.heaviside_({F})", f"{N}.heaviside_({F})", f"{D}.float_power_(2)",
    f"{D}.float_power_({N})", f"{F}.float_power_(2)",
    f"{F}.sinh_()", f"{F}.cosh_()", f"{F}.asinh_()", f"({F} + 3).acosh_()",
    f"{U}.atanh_()", f"{U}.arctanh_()",
]


@pytest.mark.parametrize("expr", INPLACE)
def test_inplace(expr):
    assert_same_as_torch(torch, expr)


RECORDED_INPLACE = [
    "x.ceil_()", "x.sinh_()", "x.abs_()", "x.sqrt_()", "x.log_()", "x.sin_()", "x.cos_()",
    "x.nan_to_num_()", "x.clamp_min_(0.5)", "x.clamp_max_(y)", "x.lerp_(y, 0.3)",
    "x.lerp_(y, y)", "x.addcmul_(y, y)", "x.addcdiv_(y, y + 3, value=2)", "x.trunc_()",
    "x.floor_()", "x.logit_(0.1)", "x.fmod_(y + 3)", "x.copysign_(-1.0)", "x.xlogy_(y + 3)",
    "x.erfinv_()", "x.square_()", "x.round_()",
]


@pytest.mark.parametrize("expr", RECORDED_INPLACE)
def test_inplace_records_torchs_node(expr):
    """In place on a non-leaf: the tensor is rebased onto torch's node, gradients flow."""
    assert_same_as_torch(torch, f"lib.autograd.grad(({expr} * 1.5).sum(), (x0, y))", {
        "x0": "lib.tensor([0.25, 0.5, 0.75], requires_grad=True)",
        "y": "lib.tensor([0.3, 0.6, 0.1], requires_grad=True)", "x": "x0 * 1"})
    assert_same_as_torch(torch, expr, {
        "x0": "lib.tensor([0.25, 0.5, 0.75], requires_grad=True)",
        "y": "lib.tensor([0.3, 0.6, 0.1], requires_grad=True)", "x": "x0 * 1"})


def test_inplace_on_a_leaf_is_refused():
    assert_same_as_torch(torch, "lib.tensor([0.5], requires_grad=True).ceil_()")
    assert_same_as_torch(torch, "lib.tensor([0.5], requires_grad=True).lerp_(lib.ones(1), 0.5)")


def test_positive_is_the_input_itself():
    import agdebug as ag
    x = ag.tensor([1.0, -2.0], requires_grad=True)
    assert ag.positive(x) is x and x.positive() is x


CHANGED_EXISTING = [
    # clamp's gradient is 0 outside the bounds even where the incoming one is inf (a where,
    # not a product: inf * 0 would be NaN)
    "lib.autograd.grad(lib.erfinv(x.clamp(-1, 1)).sum(), x)",
    "lib.autograd.grad(lib.asin(x.clamp(min=y, max=lib.ones(4))).sum(), (x, y))",
    # pow's gradient in the base is 0 where the exponent is 0 (also at a base of 0)
    "lib.autograd.grad((x ** (y * 0)).sum(), x)",
    # number bounds on a bool tensor: no kernel; the in-place cast error names C++ types
    "lib.tensor([True]).clamp(True)", "lib.tensor([True]).clamp(max=True)",
    "lib.tensor([True]).clamp(False, True)", "lib.tensor([True, False]).clamp(0, 3)",
    "lib.tensor([1]).clamp_(0.5)",
    "lib.tensor([1]).clamp_(max=0.5)", "lib.tensor([1], dtype=lib.uint8).clamp_max_(0.5)",
    "lib.tensor([1]).clamp_min_(lib.tensor([0.5]))", "lib.tensor([1]).clamp_(2, 3)",
]


@pytest.mark.parametrize("expr", CHANGED_EXISTING)
def test_clamp_and_pow_fixes(expr):
    assert_same_as_torch(torch, expr, {
        "x": "lib.tensor([2.0, -3.0, 0.0, 0.5], requires_grad=True)",
        "y": "lib.tensor([-1.0, -1.0, 0.25, 0.0], requires_grad=True)"})
