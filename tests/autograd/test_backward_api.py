"""``backward()``: every parameter of ``agdebug.autograd.backward`` / ``Tensor.backward``.

Error and warning texts are torch 2.13's, copied from the reference probe; tests that
also run torch use the ``torch`` fixture and skip where torch is absent.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import agdebug as ag

from .torch_texts import FREED

NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"
CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak.")
GRAD_VARIABLES = "`grad_variables` is deprecated. Use `grad_tensors` instead."
BOTH_PASSED = ("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
               "`backward()`. Please only use `grad_tensors`.")


def raises(exc, text):
    """pytest.raises matching the whole message literally."""
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


def leaf(values, lib=ag, dtype=None):
    return lib.tensor(values, requires_grad=True, dtype=dtype)


def grad_of(t):
    # a copy: .grad.numpy() shares the memory a later backward adds into, as in torch
    return None if t.grad is None else t.grad.detach().numpy().copy()


# ------------------------------------------------------------------------- grad_tensors

def test_scalar_output_needs_no_gradient():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).sum().backward()
    np.testing.assert_allclose(grad_of(x), [2.0, 4.0, 6.0])


def test_one_element_output_of_shape_1_needs_no_gradient():
    x = leaf([1.5])
    (x * 2).backward()
    np.testing.assert_allclose(grad_of(x), [2.0])


def test_leaf_scalar_backward_itself():
    x = ag.tensor(3.0, requires_grad=True)
    x.backward()
    assert x.grad.shape == ()
    assert x.grad.item() == 1.0


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_non_scalar_without_gradient(shape):
    x = ag.ones(*shape, requires_grad=True)
    with raises(RuntimeError, SCALAR_ONLY):
        (x * 2).backward()
    assert x.grad is None


@pytest.mark.parametrize("out_shape,grad_shape,text", [
    ((3,), (4,), "Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and "
                 "output[0] has a shape of torch.Size([3])."),
    ((2, 3), (3,), "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and "
                   "output[0] has a shape of torch.Size([2, 3])."),
    ((), (1,), "Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and "
               "output[0] has a shape of torch.Size([])."),
])
def test_gradient_shape_mismatch(out_shape, grad_shape, text):
    x = ag.ones(*out_shape, requires_grad=True)
    y = x * 2
    with raises(RuntimeError, text):
        y.backward(ag.ones(*grad_shape))
    assert x.grad is None
    y.backward(ag.ones(*out_shape))          # the graph survived the failed call
    np.testing.assert_allclose(grad_of(x), np.full(out_shape, 2.0))


def test_gradient_as_list_is_a_type_error():
    x = leaf([1.0, 2.0, 3.0])
    with raises(TypeError, "gradients can be either Tensors or None, but got float"):
        (x * 2).backward([1.0, 1.0, 1.0])
    assert x.grad is None


@pytest.mark.parametrize("value,text", [(1, "'int' object is not iterable"),
                                        (2.0, "'float' object is not iterable")])
def test_gradient_as_python_number_is_a_type_error(value, text):
    x = leaf([1.0, 2.0, 3.0])
    with raises(TypeError, text):
        (x * 2).sum().backward(value)
    assert x.grad is None


@pytest.mark.parametrize("gdtype", [ag.float64, ag.int64])
def test_gradient_dtype_is_cast_to_output_dtype(gdtype):
    x = leaf([1.0, 2.0, 3.0])
    (x * 2).backward(ag.ones(3, dtype=gdtype))
    assert x.grad.dtype == ag.float32
    np.testing.assert_allclose(grad_of(x), [2.0, 2.0, 2.0])


def test_gradient_dtype_cast_matches_torch(torch):
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * 2).backward(lib.ones(3, dtype=lib.float64))
        assert str(x.grad.dtype) == "torch.float32"


def test_grad_tensors_none_entries_for_scalars():
    x = leaf([1.0, 2.0, 3.0])
    a = (x * 2).sum()
    b = (x * 3).sum()
    ag.autograd.backward([a, b], grad_tensors=[None, None])
    np.testing.assert_allclose(grad_of(x), [5.0, 5.0, 5.0])


def test_grad_tensors_none_for_non_scalar_fails():
    x = leaf([1.0, 2.0, 3.0])
    with raises(RuntimeError, SCALAR_ONLY):
        ag.autograd.backward([x * 2], grad_tensors=[None])


def test_grad_tensors_too_few():
    x = leaf([1.0, 2.0, 3.0])
    a = (x * 2).sum()
    b = (x * 3).sum()
    with raises(RuntimeError, "got 2 tensors and 1 gradients"):
        ag.autograd.backward([a, b], grad_tensors=[ag.tensor(1.0)])
    assert x.grad is None
    ag.autograd.backward([a, b])
    np.testing.assert_allclose(grad_of(x), [5.0, 5.0, 5.0])


def test_grad_tensors_too_many_is_accepted():
    x = leaf([1.0, 2.0, 3.0])
    a = (x * 2).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.autograd.backward([a], grad_tensors=[ag.tensor(1.0), ag.tensor(1.0)])
    np.testing.assert_allclose(grad_of(x), [2.0, 2.0, 2.0])


def test_grad_tensors_scales_the_result():
    x = leaf([1.0, 2.0, 3.0])
    ag.autograd.backward(x * x, ag.tensor([1.0, 10.0, 100.0]))
    np.testing.assert_allclose(grad_of(x), [2.0, 40.0, 600.0])


def test_backward_of_a_single_tensor_or_a_tuple():
    x = leaf([1.0, 2.0])
    ag.autograd.backward((x * 3).sum())
    ag.autograd.backward(((x * 4).sum(),))
    np.testing.assert_allclose(grad_of(x), [7.0, 7.0])


def test_unknown_kwarg():
    x = leaf([1.0, 2.0, 3.0])
    with raises(TypeError, "Tensor.backward() got an unexpected keyword argument 'foo'"):
        (x * 2).sum().backward(foo=1)


# ------------------------------------------------------------------------- roots

def test_backward_on_tensor_not_requiring_grad():
    with raises(RuntimeError, NO_GRAD_FN):
        ag.randn(3).sum().backward()


def test_backward_through_detach_only():
    x = leaf([1.0, 2.0, 3.0])
    with raises(RuntimeError, NO_GRAD_FN):
        (x.detach() * 2).sum().backward()


def test_element_index_in_the_error_names_the_root():
    x = leaf([1.0, 2.0])
    with raises(RuntimeError, "element 1 of tensors does not require grad and does not have "
                              "a grad_fn"):
        ag.autograd.backward([x.sum(), ag.ones(2).sum()])
    assert x.grad is None


def test_integer_output_has_no_grad_fn():
    x = leaf([1.0, 3.0, 2.0])
    with raises(RuntimeError, NO_GRAD_FN):
        (x > 1).sum().backward()


# ------------------------------------------------------------------------- retain_graph

def test_second_backward_error_text():
    x = leaf([1.0, -2.0, 0.5])
    y = (x * x).exp().sum()
    y.backward()
    g = grad_of(x)
    with raises(RuntimeError, FREED):
        y.backward()
    np.testing.assert_allclose(grad_of(x), g)


def test_second_backward_through_exp_only():
    x = leaf([1.0, -2.0, 0.5])
    y = x.exp().sum()
    y.backward()
    with raises(RuntimeError, FREED):
        y.backward()


def test_mul_by_python_constant_cannot_rerun():
    # REFERENCE §1: MulBackward0 saves the wrapped scalar ``other`` too.
    x = leaf([1.0, 2.0, 3.0])
    y = (x * 2).sum()
    y.backward()
    with raises(RuntimeError, FREED):
        y.backward()
    np.testing.assert_allclose(grad_of(x), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("build", [
    lambda x, z: (x + z).sum(),
    lambda x, z: (x + 1).sum(),
    lambda x, z: x.mean(),
])
def test_graphs_without_saved_tensors_can_rerun(build):
    x = leaf([1.0, 2.0, 3.0])
    z = leaf([4.0, 5.0, 6.0])
    y = build(x, z)
    y.backward()
    first = grad_of(x)
    y.backward()
    np.testing.assert_allclose(grad_of(x), 2 * first)


def test_rerun_add_sum_matches_torch(torch):
    results = []
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        y = (x + z).sum()
        y.backward()
        y.backward()
        results.append(x.grad.tolist())
    assert results[0] == results[1] == [2.0, 2.0, 2.0]


def test_retain_graph_then_twice_then_fails():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(grad_of(x), [4.0, 8.0, 12.0])
    with raises(RuntimeError, FREED):
        y.backward()
    np.testing.assert_allclose(grad_of(x), [4.0, 8.0, 12.0])


def test_retain_graph_defaults_to_create_graph():
    x = leaf([1.0, 2.0])
    y = (x ** 3).sum()
    with pytest.warns(UserWarning):
        y.backward(create_graph=True)
    with pytest.warns(UserWarning):
        y.backward(create_graph=True)      # retained by default: no error
    y.backward()                           # also fine: the last one frees it
    with raises(RuntimeError, FREED):
        y.backward()
    np.testing.assert_allclose(grad_of(x), [9.0, 36.0])


def test_create_graph_false_with_retain_graph_true():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True, create_graph=False)
    assert x.grad.grad_fn is None
    assert not x.grad.requires_grad
    y.backward()
    np.testing.assert_allclose(grad_of(x), [4.0, 8.0])


def test_saved_attribute_after_free():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    assert y.grad_fn._saved_self is x
    y.sum().backward()
    with raises(RuntimeError, FREED):
        y.grad_fn._saved_self


def test_saved_result_after_free():
    x = leaf([1.0, 2.0, 3.0])
    y = x.exp()
    np.testing.assert_allclose(y.grad_fn._saved_result.detach().numpy(), y.detach().numpy())
    y.sum().backward()
    with raises(RuntimeError, FREED):
        y.grad_fn._saved_result


# ------------------------------------------------------------------------- create_graph

def test_create_graph_warning_text():
    x = leaf([1.0, 2.0])
    with pytest.warns(UserWarning) as record:
        (x ** 3).sum().backward(create_graph=True)
    texts = [str(w.message) for w in record]
    assert CREATE_GRAPH_WARNING in texts
    # torch appends " (Triggered internally at ...)": accept that suffix and nothing else
    assert any(t.startswith(CREATE_GRAPH_WARNING) for t in texts)


def test_create_graph_first_grad_has_copy_backwards():
    x = leaf([1.0, 2.0])
    with pytest.warns(UserWarning):
        (x ** 3).sum().backward(create_graph=True)
    assert type(x.grad.grad_fn).__name__ == "CopyBackwards"
    nf = [(None if n is None else type(n).__name__, i) for n, i in x.grad.grad_fn.next_functions]
    assert nf == [(None, 0), ("MulBackward0", 0)]
    np.testing.assert_allclose(grad_of(x), [3.0, 12.0])
    assert x.grad.requires_grad


def test_create_graph_with_existing_grad_replaces_it():
    x = leaf([1.0, 2.0])
    (x ** 3).sum().backward()
    g0 = x.grad
    assert g0.grad_fn is None
    with pytest.warns(UserWarning):
        (x ** 3).sum().backward(create_graph=True)
    assert x.grad is not g0
    assert x.grad.grad_fn.name() == "AddBackward0"
    np.testing.assert_allclose(grad_of(x), [6.0, 24.0])


def test_create_graph_twice():
    x = leaf([1.0, 2.0])
    with pytest.warns(UserWarning):
        (x ** 3).sum().backward(create_graph=True)
        (x ** 3).sum().backward(create_graph=True)
    nf = [(None if n is None else type(n).__name__, i) for n, i in x.grad.grad_fn.next_functions]
    assert x.grad.grad_fn.name() == "AddBackward0"
    assert nf == [("CopyBackwards", 0), ("MulBackward0", 0)]
    np.testing.assert_allclose(grad_of(x), [6.0, 24.0])


def _higher_order(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x.exp() * x.sin() + x * x * x).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y.backward(create_graph=True)
    g1 = x.grad
    x.grad = None
    g1.sum().backward(create_graph=True)
    g2 = x.grad
    x.grad = None
    g2.sum().backward()
    return [g1.detach().numpy().copy(), g2.detach().numpy().copy(), x.grad.numpy().copy()]


def test_higher_order_backward_values():
    v = np.array([0.5, -1.0, 2.0])
    d1 = np.exp(v) * (np.sin(v) + np.cos(v)) + 3 * v ** 2
    d2 = np.exp(v) * 2 * np.cos(v) + 6 * v
    d3 = 2 * np.exp(v) * (np.cos(v) - np.sin(v)) + 6
    for got, want in zip(_higher_order(ag), [d1, d2, d3]):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_higher_order_backward_matches_torch(torch):
    for a, t in zip(_higher_order(ag), _higher_order(torch)):
        np.testing.assert_allclose(a, t, rtol=1e-5)


def test_plain_backward_twice_accumulates_in_place():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    g0 = x.grad
    y.backward()
    assert x.grad is g0
    np.testing.assert_allclose(g0.numpy(), [4.0, 8.0])


def test_first_grad_does_not_steal_the_incoming_gradient():
    x = leaf([1.0, 2.0])
    gout = ag.ones(2)
    x.backward(gout)
    assert x.grad is not gout
    assert not np.shares_memory(x.grad.numpy(), gout.numpy())
    x2 = leaf([1.0, 2.0])
    gout2 = ag.ones(2)
    (x2 * 1).backward(gout2)
    assert not np.shares_memory(x2.grad.numpy(), gout2.numpy())


def test_grad_after_backward_is_a_leaf_without_grad():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    assert (x.grad.requires_grad, x.grad.is_leaf) == (False, True)


def test_assigned_grad_is_accumulated_into():
    x = leaf([1.0, 2.0, 3.0])
    g = ag.ones(3)
    x.grad = g
    (x * 2).sum().backward()
    assert x.grad is g
    np.testing.assert_allclose(g.numpy(), [3.0, 3.0, 3.0])


def test_zero_grad_in_place_keeps_object():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    g0 = x.grad
    x.grad.zero_()
    (x * x).sum().backward()
    assert x.grad is g0
    np.testing.assert_allclose(g0.numpy(), [2.0, 4.0])


def test_broadcast_accumulation():
    x = ag.ones(3, requires_grad=True)
    y = ag.ones(2, 3, requires_grad=True)
    (x + y).sum().backward()
    np.testing.assert_allclose(grad_of(x), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(grad_of(y), np.ones((2, 3)))


# ------------------------------------------------------------------------- grad_variables

def test_grad_variables_future_warning():
    x = leaf([1.0, 2.0, 3.0])
    with pytest.warns(FutureWarning) as record:
        ag.autograd.backward([(x * 2).sum()], grad_variables=[ag.tensor(1.0)])
    assert [str(w.message) for w in record] == [GRAD_VARIABLES]
    np.testing.assert_allclose(grad_of(x), [2.0, 2.0, 2.0])


def test_grad_variables_and_grad_tensors_both_passed():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * 2).sum()
    with pytest.warns(FutureWarning, match="^" + re.escape(GRAD_VARIABLES)):
        with raises(RuntimeError, BOTH_PASSED):
            ag.autograd.backward([y], grad_tensors=[ag.tensor(1.0)],
                                 grad_variables=[ag.tensor(1.0)])
    assert x.grad is None
    y.backward()
    np.testing.assert_allclose(grad_of(x), [2.0, 2.0, 2.0])


# ------------------------------------------------------------------------- inputs

def test_inputs_single_leaf():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([4.0, 5.0, 6.0])
    (x * w).sum().backward(inputs=x)
    np.testing.assert_allclose(grad_of(x), [4.0, 5.0, 6.0])
    assert w.grad is None


def test_inputs_list_of_leaves():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([4.0, 5.0, 6.0])
    b = leaf([1.0, 1.0, 1.0])
    (x * w + b).sum().backward(inputs=[w, b])
    assert x.grad is None
    np.testing.assert_allclose(grad_of(w), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(grad_of(b), [1.0, 1.0, 1.0])


def test_inputs_non_leaf_fills_its_grad_only():
    x = leaf([1.0, 2.0, 3.0])
    h = x * 2
    (h * 3).sum().backward(inputs=[h])
    np.testing.assert_allclose(h.grad.numpy(), [3.0, 3.0, 3.0])
    assert x.grad is None


def test_inputs_non_leaf_matches_torch(torch):
    out = []
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        (h * h).sum().backward(inputs=[h])
        out.append((h.grad.tolist(), x.grad, h.retains_grad))
    assert out[0] == out[1]


def test_inputs_unused_leaf():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([4.0, 5.0, 6.0])
    (x * 2).sum().backward(inputs=[w])
    assert w.grad is None
    assert x.grad is None


def test_inputs_empty_list():
    x = leaf([1.0, 2.0, 3.0])
    with raises(RuntimeError, "`inputs` argument to `backward()` cannot be empty."):
        (x * 2).sum().backward(inputs=[])
    assert x.grad is None


def test_inputs_not_requiring_grad():
    x = leaf([1.0, 2.0, 3.0])
    z = ag.randn(3)
    y = (x * 2).sum()
    with raises(RuntimeError, "can't retain_grad on Tensor that has requires_grad=False"):
        y.backward(inputs=[z])
    assert x.grad is None and z.grad is None
    y.backward()
    np.testing.assert_allclose(grad_of(x), [2.0, 2.0, 2.0])


def test_inputs_prune_the_graph():
    # only the branch leading to ``inputs`` runs: a hook on the other branch never fires
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    calls = []
    xw = x * 2
    xw.register_hook(lambda g: calls.append("x-branch"))
    ww = w * 3
    ww.register_hook(lambda g: calls.append("w-branch"))
    (xw + ww).sum().backward(inputs=[w])
    assert calls == ["w-branch"]
    np.testing.assert_allclose(grad_of(w), [3.0, 3.0])
    assert x.grad is None


def test_inputs_via_gradient_edge():
    x = leaf([1.0, 2.0])
    h = x * 3
    edge = ag.autograd.graph.get_gradient_edge(x)
    (h * h).sum().backward(inputs=[edge])
    np.testing.assert_allclose(grad_of(x), [18.0, 36.0])


@pytest.mark.parametrize("bad", [0, 1])
def test_an_op_derivatives_bad_gradient_is_named_by_its_edge(monkeypatch, bad):
    # The engine's loop over a node's edges keeps no count; the index in the error is found
    # again (AddBackward0 sends one gradient object to both edges: the second must say 1).
    from agdebug.ops import OPS
    add = OPS["add"]
    good = add.backward

    def broken(ctx, grad):
        grads = list(good(ctx, grad))
        grads[bad] = grads[bad][:1]
        return tuple(grads)
    monkeypatch.setattr(add, "backward", broken)
    x, y = ag.ones(3, requires_grad=True), ag.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(
            f"Function AddBackward0 returned an invalid gradient at index {bad} - got [1] but "
            "expected shape compatible with [3]")):
        (x + y).sum().backward()
    assert x.grad is None and y.grad is None
