"""Tensor basics: creation, dtypes and promotion (REFERENCE §14), reprs (§13), attributes,
requires_grad rules (§4) and ``.grad`` assignment checks (§17), all as torch 2.13 prints them.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import agdebug as ag


def raises(exc, text):
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


# ------------------------------------------------------------------------- §14 promotion

PROMOTION = [
    ("(torch.tensor([1,2]) + 2.5).dtype", "torch.float32"),
    ("(torch.tensor([1,2], dtype=torch.int32) + torch.tensor([1,2])).dtype", "torch.int64"),
    ("(torch.ones(2) + torch.ones(2, dtype=torch.float64)).dtype", "torch.float64"),
    ("(torch.ones(2) + torch.tensor(1., dtype=torch.float64)).dtype", "torch.float32"),
    ("(torch.ones(2) + 3).dtype", "torch.float32"),
    ("(torch.tensor([1,2]) / torch.tensor([2,2])).dtype", "torch.float32"),
    ("torch.tensor([1,2]) / torch.tensor([2,2])", "tensor([0.5000, 1.0000])"),
    ("torch.tensor([3,-3]) // torch.tensor([2,2])", "tensor([ 1, -2])"),
    ("(torch.tensor([True]) + torch.tensor([True]))", "tensor([True])"),
    ("(torch.tensor([True]) + torch.tensor([True])).dtype", "torch.bool"),
    ("(torch.tensor([1,2]) * True).dtype", "torch.int64"),
    ("(torch.tensor([True]) * 2).dtype", "torch.int64"),
    ("(torch.tensor([True]) * 2.5).dtype", "torch.float32"),
    ("(torch.tensor([1,2], dtype=torch.int32) + 5).dtype", "torch.int32"),
    ("(torch.tensor([1,2], dtype=torch.int32) + torch.tensor(5)).dtype", "torch.int32"),
    ("(torch.tensor([1,2], dtype=torch.uint8) + torch.tensor([1], dtype=torch.int8)).dtype",
     "torch.int16"),
    ("(torch.ones(2, dtype=torch.float16) + torch.tensor(1., dtype=torch.float64)).dtype",
     "torch.float16"),
    ("(torch.ones(2, dtype=torch.float16) + 1.0).dtype", "torch.float16"),
    ("(torch.tensor(1) + torch.tensor(1.5)).dtype", "torch.float32"),
    ("(torch.tensor([1,2]) + np.float64(2.5)).dtype", "torch.float32"),
    ("(torch.ones(2) + np.float64(2.5)).dtype", "torch.float32"),
    ("(torch.tensor([1,2]) ** 2).dtype", "torch.int64"),
    ("(torch.tensor([1,2]) ** 0.5).dtype", "torch.float32"),
    ("(2 ** torch.tensor([1,2])).dtype", "torch.int64"),
    ("torch.tensor([1,2]).dtype", "torch.int64"),
    ("torch.tensor([1.0]).dtype", "torch.float32"),
    ("torch.tensor(np.array([1.0])).dtype", "torch.float64"),
    ("torch.tensor(np.array([1.0], dtype=np.float32)).dtype", "torch.float32"),
    ("torch.tensor(np.array([1])).dtype", "torch.int64"),
    ("torch.from_numpy(np.array([1.0])).dtype", "torch.float64"),
    ("torch.tensor([True]).dtype", "torch.bool"),
    ("torch.tensor([1, 2.0]).dtype", "torch.float32"),
    ("torch.tensor(np.float64(1.0)).dtype", "torch.float64"),
    ("torch.as_tensor([1.0]).dtype", "torch.float32"),
    ("torch.arange(5).dtype", "torch.int64"),
    ("torch.arange(5.0).dtype", "torch.float32"),
    ("torch.arange(0, 1, 0.25).dtype", "torch.float32"),
    ("torch.linspace(0,1,5).dtype", "torch.float32"),
    ("torch.full((2,), 1).dtype", "torch.int64"),
    ("torch.full((2,), 1.0).dtype", "torch.float32"),
    ("torch.full((2,), True).dtype", "torch.bool"),
    ("torch.zeros(2).dtype", "torch.float32"),
    ("torch.ones(2, dtype=int).dtype", "torch.int64"),
    ("torch.randn(2).dtype", "torch.float32"),
    ("torch.randint(0, 5, (2,)).dtype", "torch.int64"),
    ("torch.get_default_dtype()", "torch.float32"),
    ("torch.tensor([1,2]).float().mean()", "tensor(1.5000)"),
    ("torch.tensor([1,2]).sum().dtype", "torch.int64"),
    ("torch.tensor([True, True]).sum().dtype", "torch.int64"),
    ("torch.tensor([1,2], dtype=torch.int32).sum().dtype", "torch.int64"),
    ("(torch.tensor([1.,2.]) > 1).dtype", "torch.bool"),
    ("torch.result_type(torch.tensor([1]), 1.0)", "torch.float32"),
    ("torch.promote_types(torch.int32, torch.float16)", "torch.float16"),
]


@pytest.mark.parametrize("expr,want", PROMOTION, ids=[p[0] for p in PROMOTION])
def test_promotion_table(expr, want):
    assert repr(eval(expr, {"torch": ag, "np": np})) == want


def test_int_mean_error():
    with raises(RuntimeError, "mean(): could not infer output dtype. Input dtype must be either "
                              "a floating point or complex dtype. Got: Long"):
        ag.tensor([1, 2]).mean()


def test_float64_from_python_list_keeps_precision():
    t = ag.tensor([0.3, -1.2], dtype=ag.float64)
    assert t.tolist() == [0.3, -1.2]
    assert ag.tensor(0.1, dtype=ag.float64).item() == 0.1
    assert ag.full((2,), 0.1, dtype=ag.float64).tolist() == [0.1, 0.1]


SCALARS = [1.0001, 0.0001, -2, 7, 3.3, 1e-30, 2 ** 0.5, -0.0, 0.0, float("nan"), float("inf")]
VALUES = [-3.5, -1.0, -0.0, 0.25, 1.0, 7.0, 1000.0]
NUMBER_OPS = [lambda a, s: a + s, lambda a, s: s - a, lambda a, s: a * s, lambda a, s: s * a,
              lambda a, s: a / s]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_python_number_operands_give_numpys_own_bits(dtype):
    # agdebug hands NumPy a cached 0-d array for a Python number: NumPy would have made
    # the same one (NEP 50), so the result must not change by a bit (``x ** s`` rounds as
    # torch's kernel does, not as NumPy's power: tests/ops/test_pow_rounding.py)
    x = ag.tensor(VALUES, dtype=getattr(ag, dtype))
    with np.errstate(all="ignore"):
        for s in SCALARS:
            for op in NUMBER_OPS:
                got, want = op(x, s).numpy(), op(x.numpy(), s)
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (dtype, s)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_python_number_arithmetic_matches_torch_bit_for_bit(torch, dtype):
    x = ag.tensor(VALUES, dtype=getattr(ag, dtype))
    t = torch.tensor(VALUES, dtype=getattr(torch, dtype))
    with np.errstate(all="ignore"):
        for s in SCALARS:
            for op in NUMBER_OPS:
                got, want = op(x, s).numpy(), op(t, s).numpy()
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (dtype, s)


def test_cached_number_operands_are_read_only_and_float_only():
    from agdebug.ops.pointwise.promotion import weak
    a = np.ones(2, np.float32)
    assert weak(1.5, a) is weak(1.5, a) and weak(1.5, a).dtype == np.float32
    assert not weak(1.5, a).flags.writeable
    # zero (-0.0 == 0.0 as a key), NaN (never equal to itself) and other dtypes pass through
    assert type(weak(-0.0, a)) is float and type(weak(float("nan"), a)) is float
    assert type(weak(1.5, np.ones(2, np.int64))) is float


# ------------------------------------------------------------------------- §13 reprs

REPRS = [
    ("torch.tensor([1.,2.], requires_grad=True)", "tensor([1., 2.], requires_grad=True)"),
    ("torch.tensor([1.,2.], requires_grad=True) * 2", "tensor([2., 4.], grad_fn=<MulBackward0>)"),
    ("torch.tensor([1.,2.], requires_grad=True).sum()", "tensor(3., grad_fn=<SumBackward0>)"),
    ("torch.tensor([1.,2.], requires_grad=True).exp()",
     "tensor([2.7183, 7.3891], grad_fn=<ExpBackward0>)"),
    ("torch.tensor([1.,2.], dtype=torch.float64)", "tensor([1., 2.], dtype=torch.float64)"),
    ("torch.tensor([1.,2.], dtype=torch.float64, requires_grad=True)",
     "tensor([1., 2.], dtype=torch.float64, requires_grad=True)"),
    ("torch.tensor([1,2])", "tensor([1, 2])"),
    ("torch.tensor([1,2], dtype=torch.int32)", "tensor([1, 2], dtype=torch.int32)"),
    ("torch.tensor([True, False])", "tensor([ True, False])"),
    ("torch.tensor(3.5)", "tensor(3.5000)"),
    ("torch.tensor(3)", "tensor(3)"),
    ("torch.tensor(3.5, requires_grad=True)", "tensor(3.5000, requires_grad=True)"),
    ("torch.tensor([[1.,2.],[3.,4.]])", "tensor([[1., 2.],\n        [3., 4.]])"),
    ("torch.tensor([[1.5,2.25],[3.,400.]])",
     "tensor([[  1.5000,   2.2500],\n        [  3.0000, 400.0000]])"),
    ("torch.arange(12.).reshape(3,4)",
     "tensor([[ 0.,  1.,  2.,  3.],\n        [ 4.,  5.,  6.,  7.],\n        [ 8.,  9., 10., 11.]])"),
    ("torch.tensor([1.,2.], dtype=torch.float16)", "tensor([1., 2.], dtype=torch.float16)"),
    ("torch.tensor([1e-5, 1.])", "tensor([1.0000e-05, 1.0000e+00])"),
    ("torch.tensor([1e10, 1.])", "tensor([1.0000e+10, 1.0000e+00])"),
    ("torch.tensor([float('nan'), float('inf'), 1.])", "tensor([nan, inf, 1.])"),
    ("torch.tensor([0.1, 0.25])", "tensor([0.1000, 0.2500])"),
    ("torch.tensor([1.0, 2.0, 3.0])", "tensor([1., 2., 3.])"),
    ("torch.tensor([])", "tensor([])"),
    ("torch.zeros(2,0)", "tensor([], size=(2, 0))"),
    ("torch.tensor([1.,2.], requires_grad=True).detach()", "tensor([1., 2.])"),
    ("torch.tensor([1.,2.], requires_grad=True).grad_fn", "None"),
    ("torch.zeros(3).grad_fn", "None"),
    ("torch.float32", "torch.float32"),
    ("torch.zeros(2,3).shape", "torch.Size([2, 3])"),
    ("torch.Size([])", "torch.Size([])"),
    ("torch.zeros(2,3).device", "device(type='cpu')"),
    ("torch.zeros(2,3).size()", "torch.Size([2, 3])"),
    ("torch.zeros(2,3).size(1)", "3"),
    ("torch.zeros(2,3).shape[0]", "2"),
    ("torch.tensor([1.,2.], requires_grad=True).float()", "tensor([1., 2.], requires_grad=True)"),
]


@pytest.mark.parametrize("expr,want", REPRS, ids=[r[0] for r in REPRS])
def test_repr(expr, want):
    assert repr(eval(expr, {"torch": ag, "np": np})) == want


def test_str_forms():
    assert str(ag.tensor([1.0, 2.0], requires_grad=True) * 2) == \
        "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert str(ag.float32) == "torch.float32"
    assert str(ag.zeros(2).device) == "cpu"
    assert str(ag.zeros(2).dtype) == "torch.float32"
    assert type(ag.zeros(2, 3).shape[0]) is int


def test_node_repr():
    node = (ag.tensor([1.0, 2.0], requires_grad=True) * 2).grad_fn
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(node))


@pytest.mark.parametrize("dtype,legacy", [
    ("float32", "torch.FloatTensor"), ("float64", "torch.DoubleTensor"),
    ("int64", "torch.LongTensor"), ("bool", "torch.BoolTensor"),
    ("int32", "torch.IntTensor"), ("float16", "torch.HalfTensor"),
])
def test_type_names(dtype, legacy):
    assert ag.zeros(2, dtype=getattr(ag, dtype)).type() == legacy


def test_repr_matches_torch_on_random_values(torch):
    rng = np.random.default_rng(0)
    for shape in [(5,), (3, 4), (2, 2, 3)]:
        for scale in (1.0, 1e-3, 1e4):
            a = (rng.standard_normal(shape) * scale).astype(np.float32)
            assert repr(ag.tensor(a)) == repr(torch.tensor(a))


# ------------------------------------------------------------------------- creation

def test_creation_functions_values_and_shapes():
    assert ag.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert ag.zeros((2, 3)).shape == (2, 3)
    assert ag.ones(3).tolist() == [1.0, 1.0, 1.0]
    assert ag.full((2,), 7.0).tolist() == [7.0, 7.0]
    assert ag.arange(4).tolist() == [0, 1, 2, 3]
    assert ag.arange(1, 7, 2).tolist() == [1, 3, 5]
    assert ag.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert ag.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert ag.empty(2, 3).shape == (2, 3)
    r = ag.rand(100)
    assert 0.0 <= r.min().item() and r.max().item() < 1.0
    assert ag.randn(4, 5).shape == (4, 5)
    ri = ag.randint(0, 5, (50,))
    assert ri.min().item() >= 0 and ri.max().item() < 5


def test_like_functions():
    t = ag.ones(2, 3, dtype=ag.float64)
    for fn in (ag.zeros_like, ag.ones_like, ag.empty_like, ag.rand_like, ag.randn_like):
        out = fn(t)
        assert out.shape == (2, 3) and out.dtype == ag.float64
    assert ag.full_like(t, 4).tolist() == [[4.0] * 3] * 2
    assert ag.zeros_like(t, requires_grad=True).requires_grad


def test_manual_seed_reproducible():
    ag.manual_seed(123)
    a = ag.randn(5).tolist()
    ag.manual_seed(123)
    assert ag.randn(5).tolist() == a


def test_from_numpy_shares_memory_as_tensor_copies():
    a = np.array([1.0, 2.0])
    shared = ag.from_numpy(a)
    copied = ag.tensor(a)
    a[0] = 9.0
    assert shared.tolist() == [9.0, 2.0]
    assert copied.tolist() == [1.0, 2.0]


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("make", ["from_numpy", "as_tensor"])
def test_numpy_subclasses_share_memory_and_compute_on_the_cpu(lib, make, tmp_path):
    # np.load(..., mmap_mode="r+") gives a memmap, old code an np.matrix: both are host
    # arrays, shared as torch shares them, and ops on them run on the CPU.
    mapped = np.memmap(tmp_path / "a.bin", dtype=np.float32, mode="w+", shape=(3,))
    mapped[:] = [1.0, 2.0, 3.0]
    t = getattr(lib, make)(mapped)
    t.add_(1)
    assert mapped.tolist() == [2.0, 3.0, 4.0]
    assert (t * 2).sum().item() == 18.0 and str(t.device) == "cpu"
    matrix = getattr(lib, make)(np.asmatrix(np.ones((2, 2), np.float32)))
    assert tuple((matrix @ matrix).shape) == (2, 2) and (matrix + 1).sum().item() == 8.0


def test_requires_grad_in_creation():
    for t in (ag.zeros(2, requires_grad=True), ag.ones(2, requires_grad=True),
              ag.randn(2, requires_grad=True), ag.tensor([1.0], requires_grad=True),
              ag.full((2,), 1.0, requires_grad=True), ag.arange(3.0, requires_grad=True)):
        assert t.requires_grad and t.is_leaf and t.grad_fn is None


# ------------------------------------------------------------------------- attributes

def test_shape_size_dim_numel():
    t = ag.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and t.size() == (2, 3, 4)
    assert t.size(1) == 3 and t.size(-1) == 4
    assert t.dim() == 3 and t.ndim == 3
    assert t.numel() == 24
    assert ag.tensor(5.0).dim() == 0 and ag.tensor(5.0).numel() == 1


def test_dtype_device():
    t = ag.zeros(2)
    assert t.dtype is ag.float32 and t.dtype == ag.float
    assert t.device == ag.device("cpu")
    assert not t.is_cuda


def test_T():
    t = ag.arange(6.0).reshape(2, 3)
    assert t.T.shape == (3, 2)
    assert t.T.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_item_tolist_numpy_array():
    t = ag.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ag.tensor([2.5]).item() == 2.5
    assert type(ag.tensor(3).item()) is int
    assert type(ag.tensor(3.0).item()) is float
    assert type(ag.tensor(True).item()) is bool
    a = t.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    a[0, 0] = 9.0                       # numpy() shares memory
    assert t.tolist()[0][0] == 9.0
    assert np.asarray(t).tolist() == t.tolist()
    assert np.array(t, dtype=np.float64).dtype == np.float64


def test_item_errors():
    with raises(RuntimeError, "a Tensor with 2 elements cannot be converted to Scalar"):
        ag.tensor([1.0, 2.0]).item()
    with raises(RuntimeError, "a Tensor with 0 elements cannot be converted to Scalar"):
        ag.tensor([]).item()


def test_numpy_on_requires_grad():
    with raises(RuntimeError, "Can't call numpy() on Tensor that requires grad. Use "
                              "tensor.detach().numpy() instead."):
        ag.ones(2, requires_grad=True).numpy()
    assert ag.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]


def test_numpy_error_matches_torch(torch):
    texts = []
    for lib in (ag, torch):
        for t in (lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True) * 2):
            with pytest.raises(RuntimeError) as info:
                t.numpy()
            texts.append(str(info.value))
    assert texts[:2] == texts[2:]


def test_requires_grad_underscore():
    t = ag.zeros(3)
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad_(False)
    assert not t.requires_grad


def test_is_leaf_for_various():
    x = ag.randn(3, requires_grad=True)
    assert [ag.randn(3).is_leaf, x.is_leaf, (x * 2).is_leaf, x.detach().is_leaf,
            (ag.randn(3) * 2).is_leaf] == [True, True, False, True, True]
    with ag.no_grad():
        z = x * 2
    assert (z.is_leaf, z.requires_grad) == (True, False)


def test_detach_shares_data():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert np.shares_memory(d.numpy(), x.detach().numpy())
    d.zero_()
    assert x.tolist() == [0.0, 0.0]


def test_detach_in_place():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert y.detach_() is y
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf


def test_clone_is_differentiable_copy():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    assert c.grad_fn.name() == "CloneBackward0"
    assert not np.shares_memory(c.detach().numpy(), x.detach().numpy())
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_data_property():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.is_leaf
    d.add_(1)
    assert x.tolist() == [2.0, 3.0] and x._version == 0
    x.data = ag.tensor([5.0, 6.0])
    assert x.tolist() == [5.0, 6.0] and x.requires_grad


def test_version_attribute():
    t = ag.zeros(2)
    assert t._version == 0
    t.add_(1)
    assert t._version == 1


def test_retains_grad_flags():
    x = ag.tensor([1.0], requires_grad=True)
    h = x * 2
    assert (x.retains_grad, h.retains_grad) == (False, False)
    h.retain_grad()
    h.sum().backward()
    assert h.retains_grad and h.grad.tolist() == [1.0]


def test_output_nr():
    x = ag.randn(3, requires_grad=True)
    assert (x.output_nr, (x * 2).output_nr) == (0, 0)


# ------------------------------------------------------------------------- §4 requires_grad

INT_CTOR = "Only Tensors of floating point and complex dtype can require gradients"


@pytest.mark.parametrize("make", [
    lambda: ag.tensor([1, 2], requires_grad=True),
    lambda: ag.tensor([True], requires_grad=True),
    lambda: ag.zeros(3, dtype=ag.int32, requires_grad=True),
    lambda: ag.arange(3, requires_grad=True),
])
def test_int_requires_grad_in_constructor(make):
    with raises(RuntimeError, INT_CTOR):
        make()


def test_int_requires_grad_underscore():
    with raises(RuntimeError, "only Tensors of floating point dtype can require gradients"):
        ag.tensor([1, 2]).requires_grad_()


def test_int_requires_grad_setter():
    t = ag.tensor([1, 2])
    with raises(RuntimeError, "only Tensors of floating point and complex dtype can require "
                              "gradients"):
        t.requires_grad = True


def test_complex_tensors_are_refused_clearly():
    # torch supports complex autograd (Wirtinger calculus); agdebug does not, and says so.
    with pytest.raises(TypeError, match="agdebug does not support arrays of dtype complex128"):
        ag.tensor([1j], requires_grad=True)


NON_LEAF_LONG = ("you can only change requires_grad flags of leaf variables. If you want to use "
                 "a computed variable in a subgraph that doesn't require differentiation use "
                 "var_no_grad = var.detach().")


def test_non_leaf_requires_grad_false():
    y = ag.randn(3, requires_grad=True) * 2
    with raises(RuntimeError, NON_LEAF_LONG):
        y.requires_grad = False
    with raises(RuntimeError, NON_LEAF_LONG):
        y.requires_grad_(False)


def test_non_leaf_requires_grad_true_setter():
    y = ag.randn(3, requires_grad=True) * 2
    with raises(RuntimeError, "you can only change requires_grad flags of leaf variables."):
        y.requires_grad = True


def test_non_leaf_requires_grad_true_matches_torch(torch):
    out = []
    for lib in (ag, torch):
        y = lib.randn(3, requires_grad=True) * 2
        row = []
        for stmt in (lambda: setattr(y, "requires_grad", True), lambda: y.requires_grad_(True)):
            try:
                stmt()
                row.append("ok")
            except RuntimeError as e:
                row.append(str(e))
        out.append(row)
    assert out[0] == out[1]


def test_leaf_requires_grad_false():
    x = ag.randn(3, requires_grad=True)
    x.requires_grad = False
    assert (x.requires_grad, x.is_leaf) == (False, True)


# ------------------------------------------------------------------------- §17 .grad setter

GRAD_DTYPE = ("attempting to assign a gradient with dtype '{}' to a tensor with grad_dtype "
              "'Float'. The gradient must match the tensor's grad_dtype (defaults to the "
              "tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
              "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
              "dtypes of a tensor and its gradient may break downstream systems that assume "
              "they match.")


def test_grad_wrong_size():
    x = ag.randn(3, requires_grad=True)
    with raises(RuntimeError, "attempting to assign a gradient of size '[4]' to a tensor of "
                              "size '[3]'. Please ensure that the gradient and the tensor are "
                              "the same size"):
        x.grad = ag.zeros(4)
    assert x.grad is None


def test_grad_zero_dim_vs_one():
    x = ag.tensor(1.0, requires_grad=True)
    with raises(RuntimeError, "attempting to assign a gradient of size '[1]' to a tensor of "
                              "size '[]'. Please ensure that the gradient and the tensor are "
                              "the same size"):
        x.grad = ag.zeros(1)


def test_grad_not_a_tensor():
    x = ag.randn(3, requires_grad=True)
    with raises(TypeError, "assigned grad expected to be a Tensor or None but got grad of "
                           "type int"):
        x.grad = 1


@pytest.mark.parametrize("dtype,name", [("float64", "double"), ("int64", "long int")])
def test_grad_wrong_dtype(dtype, name):
    x = ag.randn(3, requires_grad=True)
    with raises(RuntimeError, GRAD_DTYPE.format(name)):
        x.grad = ag.zeros(3, dtype=getattr(ag, dtype))


def test_grad_self():
    x = ag.randn(3, requires_grad=True)
    with raises(RuntimeError, "can't assign Variable as its own grad"):
        x.grad = x


def test_grad_assignments_that_work():
    x = ag.randn(3, requires_grad=True)
    x.grad = ag.zeros(3)
    x.grad = None
    assert x.grad is None
    t = ag.randn(3)
    t.grad = ag.ones(3)
    assert t.grad.tolist() == [1.0, 1.0, 1.0]
    h = ag.randn(3, requires_grad=True) * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h.grad = ag.ones(3)
        assert h.grad.tolist() == [1.0, 1.0, 1.0]
    x.grad = ag.zeros(3, requires_grad=True)
    assert x.grad.requires_grad


def test_del_grad():
    x = ag.randn(3, requires_grad=True)
    (x * 2).sum().backward()
    del x.grad
    assert x.grad is None


def test_linspace_in_float64_is_not_rounded_through_float32():
    got = ag.linspace(0, 1, 7, dtype=ag.float64).numpy()
    np.testing.assert_allclose(got, np.linspace(0, 1, 7), rtol=0, atol=1e-15)
    assert ag.linspace(0, 1, 7).dtype == ag.float32


# ----------------------------------------------------------------------------- deepcopy

def _deepcopied(lib):
    import copy
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    plain = lib.tensor([4.0])
    y, z, again = copy.deepcopy([x, plain, x])
    y.data.add_(1)   # its own memory
    return {"values": (x.tolist(), y.tolist(), z.tolist()), "grad": y.grad.tolist(),
            "requires_grad": (y.requires_grad, z.requires_grad), "leaf": y.is_leaf,
            "shared in one copy": again is y, "grad copied": y.grad is not x.grad}


def test_deepcopy_of_a_leaf_is_torchs(torch):
    assert _deepcopied(ag) == _deepcopied(torch)


def test_deepcopy_of_a_tensor_with_history_is_refused_in_torchs_words(torch):
    import copy
    texts = []
    for lib in (ag, torch):
        with pytest.raises(RuntimeError) as info:
            copy.deepcopy(lib.ones(2, requires_grad=True) * 2)
        texts.append(str(info.value))
    assert texts[0] == texts[1]


def test_deepcopy_stays_on_the_gpu(fake_cuda):
    import copy
    x = ag.ones(2, device="cuda", requires_grad=True)
    (x * 2).sum().backward()
    y = copy.deepcopy(x)
    assert y.device == x.device and y.grad.device == x.device and y.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_torch(torch, name):
    ours, theirs = ag.finfo(getattr(ag, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)
    assert repr(ag.finfo()) == repr(torch.finfo())


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(torch, name):
    ours, theirs = ag.iinfo(getattr(ag, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.max, ours.min, ours.dtype) == \
        (theirs.bits, theirs.max, theirs.min, theirs.dtype)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("call", ["finfo(int64)", "iinfo(float32)", "iinfo(bool)"])
def test_finfo_iinfo_errors_match_torch(torch, call):
    function, dtype = call.rstrip(")").split("(")
    with pytest.raises(TypeError) as theirs:
        getattr(torch, function)(getattr(torch, dtype))
    with pytest.raises(TypeError) as ours:
        getattr(ag, function)(getattr(ag, dtype))
    assert str(ours.value) == str(theirs.value)
