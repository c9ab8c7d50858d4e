"""Custom ``autograd.Function``: each scenario is written once and run with agdebug and torch."""

from __future__ import annotations

import gc
import re
import warnings
import weakref

import numpy as np
import pytest

import agdebug as ag

from .torch_texts import FREED


def exact(text: str) -> str:
    return "^" + re.escape(text) + "$"


def t(lib, values, rg=False):
    return lib.tensor(np.array(values, dtype=np.float32), requires_grad=rg)


def next_names(out) -> list:
    return [(None if fn is None else type(fn).__name__, nr)
            for fn, nr in out.grad_fn.next_functions]


def simple(lib, backward_fn, forward_fn=lambda ctx, x: x * 2):
    """A Function with the given forward/backward, named F1 as in the reference scenarios."""
    return type("F1", (lib.autograd.Function,), {"forward": staticmethod(forward_fn),
                                                 "backward": staticmethod(backward_fn)})


def mul_fn(lib):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x
    return MyFn


# ----------------------------------------------------------------------------- the node

def test_node_name_and_edges(lib):
    x, y = t(lib, [1, 2, 3], True), t(lib, [4, 5, 6], True)
    out = mul_fn(lib).apply(x, y)
    assert out.grad_fn.name() == type(out.grad_fn).__name__ == "MyFnBackward"
    assert next_names(out) == [("AccumulateGrad", 0), ("AccumulateGrad", 0)]
    out.sum().backward()
    assert x.grad.tolist() == [4, 5, 6] and y.grad.tolist() == [1, 2, 3]


def test_node_is_an_engine_node_and_the_ctx():
    from agdebug.graph.node import Node
    x = t(ag, [1, 2], True)
    out = mul_fn(ag).apply(x, x)
    assert isinstance(out.grad_fn, Node)
    assert out.grad_fn.saved_tensors[0] is x


def test_edges_only_for_tensor_inputs_and_none_for_constants(lib):
    fn = simple(lib, lambda ctx, g: (g, None, g), lambda ctx, x, k, y: x * k * y)
    out = fn.apply(t(lib, [1, 2], True), 2.0, t(lib, [3, 4]))
    assert next_names(out) == [("AccumulateGrad", 0), (None, 0)]


def test_chained_nodes(lib):
    a = t(lib, [1, 2], True)
    out = mul_fn(lib).apply(a * 2, a.exp())
    assert next_names(out) == [("MulBackward0", 0), ("ExpBackward0", 0)]
    out.sum().backward()
    expected = 2 * np.exp([1, 2]) + 2 * np.array([1, 2]) * np.exp([1, 2])
    np.testing.assert_allclose(a.grad.tolist(), expected, rtol=1e-6)


def test_no_input_requires_grad(lib):
    out = mul_fn(lib).apply(t(lib, [1, 2]), t(lib, [3, 4]))
    assert (out.requires_grad, out.grad_fn) == (False, None)


def test_no_grad_mode_records_nothing_but_ctx_knows_needs(lib):
    seen = []

    def forward(ctx, x, y):
        seen.append((ctx.needs_input_grad, lib.is_grad_enabled()))
        return x * y
    fn = simple(lib, lambda ctx, g: (g, g), forward)
    fn.apply(t(lib, [1], True), t(lib, [1]))
    with lib.no_grad():
        out = fn.apply(t(lib, [1], True), t(lib, [1]))
    assert out.requires_grad is False
    assert seen == [((True, False), False)] * 2


def test_identity_returns_an_alias(lib):
    fn = simple(lib, lambda ctx, g: g, lambda ctx, x: x)
    x = t(lib, [1, 2, 3], True)
    y = fn.apply(x)
    assert y is not x
    assert next_names(y) == [("AccumulateGrad", 0)]
    y.sum().backward()
    assert x.grad.tolist() == [1, 1, 1]


def test_tuple_list_and_non_tensor_outputs(lib):
    got = []

    def backward(ctx, g, g2, g3):
        got.append((g.tolist(), g2, g3.tolist()))
        return g, None, None
    fn = simple(lib, backward, lambda ctx, x, k, y: (x * k * y, 3, x.sum()))
    out = fn.apply(t(lib, [1, 2], True), 2.0, t(lib, [1, 1]))
    assert type(out) is tuple and out[1] == 3 and out[2].output_nr == 2
    out[0].sum().backward()
    assert got == [([1.0, 1.0], None, 0.0)]
    listed = simple(lib, lambda ctx, a, b: a, lambda ctx, x: [x * 2, x * 3])
    assert type(listed.apply(t(lib, [1], True))) is list


def test_ctx_attributes_reach_backward(lib):
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    fn = simple(lib, lambda ctx, g: (g * ctx.k, None), forward)
    x = t(lib, [1, 2], True)
    fn.apply(x, 5.0).sum().backward()
    assert x.grad.tolist() == [5, 5]


# ----------------------------------------------------------------------------- gradients back

@pytest.mark.parametrize("backward, message", [
    (lambda ctx, g: g, ("function F1Backward returned an incorrect number of gradients "
                       "(expected 2, got 1)")),
    (lambda ctx, g: (g, g, g), ("function F1Backward returned an incorrect number of gradients "
                               "(expected 2, got 3)")),
    (lambda ctx, g: (1.0, g), "expected Variable or None (got float)"),
])
def test_bad_gradient_counts_and_types(lib, backward, message):
    fn = simple(lib, backward, lambda ctx, x, y: x * y)
    out = fn.apply(t(lib, [1, 2, 3], True), t(lib, [1, 2, 3], True))
    with pytest.raises(RuntimeError, match=exact(message)):
        out.sum().backward()


def test_extra_trailing_nones_are_allowed(lib):
    x = t(lib, [1, 2, 3], True)
    simple(lib, lambda ctx, g: (g, None, None)).apply(x).sum().backward()
    assert x.grad.tolist() == [1, 1, 1]


def test_wrong_shape_gradient(lib):
    x = t(lib, [1, 2, 3], True)
    out = simple(lib, lambda ctx, g: lib.ones(4)).apply(x)
    with pytest.raises(RuntimeError, match=exact(
            "Function F1Backward returned an invalid gradient at index 0 - got [4] but "
            "expected shape compatible with [3]")):
        out.sum().backward()


def test_expandable_shape_is_reduced_and_dtype_is_cast(lib):
    x = t(lib, [1, 2, 3], True)
    simple(lib, lambda ctx, g: lib.ones(1, 3)).apply(x).sum().backward()
    assert x.grad.shape == (3,) and x.grad.tolist() == [1, 1, 1]
    x2 = t(lib, [1, 2, 3], True)
    simple(lib, lambda ctx, g: g.double()).apply(x2).sum().backward()
    assert x2.grad.dtype == lib.float32


def test_gradient_for_a_non_tensor_input(lib):
    fn = simple(lib, lambda ctx, g: (g * 2, lib.ones(1)), lambda ctx, x, k: x * k)
    out = fn.apply(t(lib, [1, 2, 3], True), 2.0)
    with pytest.raises(RuntimeError, match=exact(
            "function F1Backward returned a gradient different than None at position 2, but "
            "the corresponding forward input was not a Variable")):
        out.sum().backward()


def test_gradients_for_inputs_without_grad_are_dropped(lib):
    x, y = t(lib, [1, 2, 3], True), t(lib, [1, 2, 3])
    simple(lib, lambda ctx, g: (g, g), lambda ctx, a, b: a * b).apply(x, y).sum().backward()
    assert x.grad.tolist() == [1, 1, 1] and y.grad is None
    i = lib.tensor([1, 2, 3])
    x2 = t(lib, [1, 2, 3], True)
    fn = simple(lib, lambda ctx, g: (g, lib.ones(3)), lambda ctx, a, b: a * b)
    fn.apply(x2, i).sum().backward()
    assert x2.grad.tolist() == [1, 1, 1]


def test_none_gradient_leaves_grad_unset(lib):
    x = t(lib, [1, 2, 3], True)
    simple(lib, lambda ctx, g: None).apply(x).sum().backward()
    assert x.grad is None


def test_needs_input_grad(lib):
    seen = []

    def backward(ctx, g):
        seen.append(ctx.needs_input_grad)
        return g, None, None
    fn = simple(lib, backward, lambda ctx, x, y, k: x * y * k)
    fn.apply(t(lib, [1, 2], True), t(lib, [1, 2]), 2).sum().backward()
    assert seen == [(True, False, False)]


# ----------------------------------------------------------------------------- ctx marks

def test_mark_non_differentiable_sort(lib):
    got = []

    class F1(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = lib.tensor(np.argsort(x.detach().numpy()))
            v = lib.tensor(np.sort(x.detach().numpy()))
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(i)
            return v, i

        @staticmethod
        def backward(ctx, gv, gi):
            got.append(gi.tolist())
            i, = ctx.saved_tensors
            order = np.argsort(i.numpy())
            return gv * lib.tensor(np.arange(1.0, 4.0, dtype=np.float32)[order])

    x = t(lib, [3, 1, 2], True)
    v, i = F1.apply(x)
    assert (v.requires_grad, i.requires_grad, i.grad_fn) == (True, False, None)
    v.sum().backward()
    assert got == [[0, 0, 0]]
    assert x.grad.tolist() == [3, 1, 2]


def test_non_differentiable_output_cannot_backward(lib):
    def forward(ctx, x):
        y = x * 2
        ctx.mark_non_differentiable(y)
        return y
    y = simple(lib, lambda ctx, g: g, forward).apply(t(lib, [3, 1, 2], True))
    assert (y.requires_grad, y.grad_fn) == (False, None)
    with pytest.raises(RuntimeError, match=exact(
            "element 0 of tensors does not require grad and does not have a grad_fn")):
        y.sum().backward()


def test_integer_outputs_do_not_require_grad(lib):
    fn = simple(lib, lambda ctx, g, gi: g, lambda ctx, x: (x * 2, x.sum().long()))
    a, b = fn.apply(t(lib, [1, 2], True))
    assert (a.requires_grad, b.requires_grad, b.grad_fn) == (True, False, None)


def test_unused_output_gets_zeros_by_default(lib):
    got = []

    def backward(ctx, g1, g2):
        got.append((g1.tolist(), g2.tolist()))
        return g1 * 2
    a, _b = simple(lib, backward, lambda ctx, x: (x * 2, x * 3)).apply(t(lib, [1, 2], True))
    a.sum().backward()
    assert got == [([1, 1], [0, 0])]


def test_set_materialize_grads_false_gives_none():
    got = []

    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    def backward(ctx, g1, g2):
        got.append(g2)
        return g1 * 2
    x = t(ag, [1, 2], True)
    a, _b = simple(ag, backward, forward).apply(x)
    a.sum().backward()
    assert got == [None] and x.grad.tolist() == [2, 2]


def test_mark_dirty_rebases_the_input(lib):
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    a = t(lib, [1, 2, 3], True)
    b = a * 1
    y = simple(lib, lambda ctx, g: g, forward).apply(b)
    assert y is b and y.tolist() == [2, 3, 4]
    assert type(y.grad_fn).__name__ == "F1Backward"
    assert next_names(y) == [("MulBackward0", 0)]
    y.sum().backward()
    assert a.grad.tolist() == [1, 1, 1]


def test_mark_dirty_on_a_leaf(lib):
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    with pytest.raises(RuntimeError, match=exact(
            "a leaf Variable that requires grad has been used in an in-place operation.")):
        simple(lib, lambda ctx, g: g, forward).apply(t(lib, [1, 2], True))


def test_in_place_without_mark_dirty_is_just_an_output(lib):
    def forward(ctx, x):
        x.add_(1)
        return x
    b = t(lib, [1, 2, 3], True) * 1
    y = simple(lib, lambda ctx, g: g, forward).apply(b)
    assert y is not b and next_names(y) == [("MulBackward0", 0)]


# ----------------------------------------------------------------------------- saved tensors

def saving(lib, backward=lambda ctx, g: g * ctx.saved_tensors[0]):
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    return simple(lib, backward, forward)


def test_saved_tensors_freed_after_backward(lib):
    y = saving(lib).apply(t(lib, [1, 2], True))
    y.sum().backward()
    with pytest.raises(RuntimeError, match=exact(FREED)):
        _ = y.grad_fn.saved_tensors


def test_second_backward_fails_and_retain_graph_keeps(lib):
    x = t(lib, [1, 2], True)
    y = saving(lib).apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [2, 4]
    with pytest.raises(RuntimeError, match=exact(FREED)):
        y.backward()


def test_saved_tensor_nones_and_non_tensors(lib):
    seen = []

    def forward(ctx, x):
        ctx.save_for_backward(None, x)
        return x * 2

    def backward(ctx, g):
        seen.append(ctx.saved_tensors[0])
        return g
    x = t(lib, [1], True)
    y = simple(lib, backward, forward).apply(x)
    assert y.grad_fn.saved_tensors[1] is x
    y.sum().backward()
    assert seen == [None]
    bad = simple(lib, lambda ctx, g: g, lambda ctx, x: ctx.save_for_backward(x, 3) or x * 2)
    with pytest.raises(TypeError, match=exact(
            "save_for_backward can only save variables, but argument 1 is of type int")):
        bad.apply(t(lib, [1], True))


def test_saved_input_modified_in_place(lib):
    a = t(lib, [1, 2, 3], True)
    b = a * 1
    y = saving(lib).apply(b)
    b.add_(1)
    dtype = "Float"
    with pytest.raises(RuntimeError, match=exact(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{dtype}Tensor [3]], which is output 0 of Add, is at "
            "version 1; expected version 0 instead. Hint: enable anomaly detection to find the "
            "operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True, check_nan=False).")):
        y.sum().backward()


def test_saved_output_does_not_keep_the_node_alive():
    class Exp(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            out, = ctx.saved_tensors
            return g * out
    x = t(ag, [0.0, 1.0], True)
    y = Exp.apply(x)
    assert y.grad_fn.saved_tensors[0] is y
    y.sum().backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.tolist(), np.exp([0.0, 1.0]), rtol=1e-6)
    node = weakref.ref(y.grad_fn)
    gc.disable()
    try:
        del y
        assert node() is None   # freed by refcount: no cycle through the saved output
    finally:
        gc.enable()


# ----------------------------------------------------------------------------- styles and errors

def test_instantiating_warns_and_calling_raises(lib):
    fn = mul_fn(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        instance = fn()
    assert [w.category for w in caught] == [DeprecationWarning]
    assert str(caught[0].message) == (
        f"{fn} should not be instantiated. Methods on autograd functions are all static, so "
        "you should invoke them on the class itself. Instantiating an autograd function will "
        "raise an error in a future version of PyTorch.")
    x = t(lib, [1], True)
    with pytest.raises(RuntimeError, match=exact(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")):
        instance(x, x)


def test_setup_context_style(lib):
    class F2(lib.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * ctx.k * x, None
    x = t(lib, [1, 2], True)
    y = F2.apply(x, 3.0)
    assert next_names(y) == [("AccumulateGrad", 0)] and y.grad_fn.name() == "F2Backward"
    y.sum().backward()
    assert x.grad.tolist() == [3, 6]


def test_missing_forward_and_backward(lib):
    class F3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
    with pytest.raises(NotImplementedError, match=exact(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")):
        F3.apply(t(lib, [1], True)).sum().backward()

    class F4(lib.autograd.Function):
        pass
    with pytest.raises(NotImplementedError, match=exact(
            "You must implement the forward function for custom autograd.Function.")):
        F4.apply(t(lib, [1], True))


def test_vjp_is_an_alias_of_backward(lib):
    class V(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2
    x = t(lib, [1], True)
    V.apply(x).sum().backward()
    assert x.grad.tolist() == [2]


# ----------------------------------------------------------------------------- higher order

def cube(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2
    return Cube


def test_double_backward_through_a_differentiable_backward(lib):
    x = lib.tensor([0.5, -2.0], dtype=lib.float64, requires_grad=True)
    gx, = lib.autograd.grad(cube(lib).apply(x).sum(), x, create_graph=True)
    assert gx.requires_grad
    ggx, = lib.autograd.grad(gx.sum(), x)
    assert ggx.tolist() == [3.0, -12.0]


def test_once_differentiable(lib):
    class Od(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            assert not lib.is_grad_enabled()
            return g * 2
    x = t(lib, [1, 2], True)
    gx, = lib.autograd.grad(Od.apply(x).sum(), x, create_graph=True)
    assert (gx.grad_fn, gx.requires_grad, gx.tolist()) == (None, False, [2, 2])
    gx, = lib.autograd.grad((Od.apply(x) * x).sum(), x, create_graph=True)
    assert [type(fn).__name__ for fn, _ in gx.grad_fn.next_functions] == ["MulBackward0",
                                                                          "Error"]
    with pytest.raises(RuntimeError, match=exact(
            "trying to differentiate twice a function that was marked with "
            "@once_differentiable")):
        gx.sum().backward()


def test_custom_function_nan_under_anomaly_mode(lib):
    x = t(lib, [1, 2], True)
    fn = simple(lib, lambda ctx, g: g * float("nan"))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            out = fn.apply(x)
            with pytest.raises(RuntimeError, match=exact(
                    "Function 'F1Backward' returned nan values in its 0th output.")):
                out.sum().backward()


def test_a_dirty_output_is_freed_by_reference_counting():
    """torch drops ctx.dirty_tensors (and non_differentiable, to_save) once used: the dirty
    output's grad_fn is the ctx, so keeping it would be a cycle only the cyclic GC frees."""
    class DoubleInPlace(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, grad):
            return 2 * grad

    y = DoubleInPlace.apply(ag.ones(3, requires_grad=True) * 1)
    ctx = y.grad_fn
    assert (ctx.dirty_tensors, ctx.non_differentiable, ctx.to_save) == (None, None, None)
    alive = weakref.ref(ctx)
    gc.disable()
    try:
        del ctx, y
        assert alive() is None
    finally:
        gc.enable()


def _views_a_function_returns(lib) -> list:
    """What in-place writes do to the views a custom Function returns (torch's creation_meta
    IN_CUSTOM_FUNCTION, or MULTI_OUTPUT_NODE for one of several outputs)."""
    class Same(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    class Tail(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[1:]

        @staticmethod
        def backward(ctx, grad):
            return lib.cat([lib.zeros(1), grad])

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x, y * 2

        @staticmethod
        def backward(ctx, g, h):
            return g, h * 2

    a = lib.ones(3, requires_grad=True)
    b = a * 1
    writes = [lambda: Same.apply(b).mul_(2), lambda: Same.apply(b)[0:1].mul_(2),
              lambda: Same.apply(a).mul_(2), lambda: Tail.apply(b).mul_(2),
              lambda: Tail.apply(b).view(2).add_(1), lambda: Two.apply(b, a)[0].mul_(2),
              lambda: Two.apply(b, a)[1].mul_(2).grad_fn.name(),
              lambda: Same.apply(lib.ones(3)).mul_(2).requires_grad]
    out = []
    for write in writes:
        try:
            out.append(("ok", write()))
        except RuntimeError as e:
            out.append(("error", str(e)))
    with lib.no_grad():
        out.append(("ok", Same.apply(b).mul_(2).tolist()))
    return out


def test_writing_in_place_to_a_view_a_function_returns_is_refused_as_in_torch():
    torch = pytest.importorskip("torch")
    got, want = _views_a_function_returns(ag), _views_a_function_returns(torch)
    assert got == want
    assert [kind for kind, _ in got[:6]] == ["error"] * 6   # the test can tell
