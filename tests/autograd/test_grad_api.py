"""``agdebug.autograd.grad``: every parameter, default and error, checked against torch 2.13."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import agdebug as ag

from .torch_texts import FREED

NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
ONLY_INPUTS = ("only_inputs argument is deprecated and is ignored now (defaults to True). To "
               "accumulate gradient for other parts of the graph, please use "
               "torch.autograd.backward.")
MATERIALIZE = ("Expected allow_unused to be True or not passed when materialize_grads=True, "
               "but got: allow_unused=False.")


def unused(index: int) -> str:
    return (f"The differentiated Tensor at index {index} appears to not have been used in the "
            "graph. Set allow_unused=True if this is the desired behavior.")


def raises(exc, text):
    return pytest.raises(exc, match="^" + re.escape(text) + "$")


def leaf(values, lib=ag):
    return lib.tensor(values, requires_grad=True)


def values(gs):
    return [None if g is None else g.detach().numpy().tolist() for g in gs]


def test_returns_a_tuple():
    x = leaf([1.0, 2.0])
    g = ag.autograd.grad((x * x).sum(), x)
    assert type(g) is tuple
    assert values(g) == [[2.0, 4.0]]


def test_never_touches_grad():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    h = x * w
    ag.autograd.grad((h * h).sum(), [x])
    assert x.grad is None and w.grad is None


def test_retain_grad_still_fills_non_leaf_grad(torch):
    # torch runs a non-leaf's retain_grad hook even inside autograd.grad()
    got = []
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * lib.tensor([3.0, 4.0], requires_grad=True)
        h.retain_grad()
        lib.autograd.grad((h * h).sum(), [x])
        got.append((h.grad.tolist(), x.grad))
    assert got[0] == got[1] == ([6.0, 16.0], None)


def test_existing_grad_objects_untouched():
    x = leaf([1.0, 2.0])
    g0 = ag.tensor([7.0, 7.0])
    x.grad = g0
    ag.autograd.grad((x * 3).sum(), x)
    assert x.grad is g0
    assert g0.tolist() == [7.0, 7.0]


# ------------------------------------------------------------------------- allow_unused

def test_unused_input_error_names_its_index():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([1.0, 2.0, 3.0])
    y = (x * 2).sum()
    with raises(RuntimeError, unused(1)):
        ag.autograd.grad(y, [x, w])
    with raises(RuntimeError, unused(0)):
        ag.autograd.grad((x * 2).sum(), [w, x])


def test_allow_unused_returns_none():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([1.0, 2.0, 3.0])
    assert values(ag.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)) == \
        [[2.0, 2.0, 2.0], None]


def test_empty_outputs_means_every_input_unused():
    x = leaf([1.0, 2.0])
    with raises(RuntimeError, unused(0)):
        ag.autograd.grad([], [x])


# ------------------------------------------------------------------------- materialize_grads

def test_materialize_grads_gives_zeros():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([1.0, 2.0, 3.0])
    gx, gw = ag.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)
    assert gx.tolist() == [2.0, 2.0, 2.0]
    assert gw.tolist() == [0.0, 0.0, 0.0]
    assert gw.dtype == w.dtype and gw.shape == w.shape


def test_materialize_grads_with_allow_unused_false():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([1.0, 2.0, 3.0])
    y = (x * 2).sum()
    with raises(ValueError, MATERIALIZE):
        ag.autograd.grad(y, [x, w], materialize_grads=True, allow_unused=False)
    assert values(ag.autograd.grad(y, [x])) == [[2.0, 2.0, 2.0]]   # graph still usable


def test_materialize_grads_with_allow_unused_true():
    x = leaf([1.0, 2.0])
    w = leaf([1.0, 2.0])
    got = ag.autograd.grad((x * 2).sum(), [w], materialize_grads=True, allow_unused=True)
    assert values(got) == [[0.0, 0.0]]


# ------------------------------------------------------------------------- only_inputs

def test_only_inputs_false_warns_and_is_ignored():
    x = leaf([1.0, 2.0, 3.0])
    with pytest.warns(FutureWarning) as record:
        g = ag.autograd.grad((x * 2).sum(), x, only_inputs=False)
    assert [str(w.message) for w in record] == [ONLY_INPUTS]
    assert values(g) == [[2.0, 2.0, 2.0]]
    assert x.grad is None


def test_only_inputs_true_is_silent():
    x = leaf([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.autograd.grad((x * 2).sum(), x, only_inputs=True)


# ------------------------------------------------------------------------- argument errors

def test_input_not_requiring_grad():
    x = leaf([1.0, 2.0, 3.0])
    with raises(RuntimeError, "One of the differentiated Tensors does not require grad"):
        ag.autograd.grad((x * 2).sum(), [ag.randn(3)])


def test_outputs_not_requiring_grad():
    x = leaf([1.0, 2.0, 3.0])
    with raises(RuntimeError, NO_GRAD_FN):
        ag.autograd.grad(ag.randn(3).sum(), x)


def test_int_output():
    x = leaf([1.0, 2.0])
    with raises(RuntimeError, NO_GRAD_FN):
        ag.autograd.grad((x > 1).sum(), x)


def test_empty_inputs():
    x = leaf([1.0, 2.0, 3.0])
    with raises(RuntimeError, "`inputs` argument to `grad()` cannot be empty."):
        ag.autograd.grad((x * 2).sum(), [])


def test_non_scalar_output_without_grad_outputs():
    x = leaf([1.0, 2.0, 3.0])
    with raises(RuntimeError, "grad can be implicitly created only for scalar outputs"):
        ag.autograd.grad(x * 2, x)


def test_grad_outputs_shape_mismatch():
    x = leaf([1.0, 2.0, 3.0])
    with raises(RuntimeError, "Mismatch in shape: grad_output[0] has a shape of "
                              "torch.Size([4]) and output[0] has a shape of torch.Size([3])."):
        ag.autograd.grad(x * 2, x, ag.ones(4))


def test_input_that_is_not_a_tensor():
    x = leaf([1.0, 2.0])
    with raises(RuntimeError, "all inputs have to be Tensors or GradientEdges, but got float"):
        ag.autograd.grad((x * x).sum(), [1.0])


def test_output_is_input():
    x = leaf([1.0, 2.0])
    assert values(ag.autograd.grad(x, x, ag.ones(2))) == [[1.0, 1.0]]


def test_grad_outputs_weights():
    x = leaf([1.0, 2.0, 3.0])
    g, = ag.autograd.grad(x * x, x, ag.tensor([1.0, 0.5, 2.0]))
    assert g.tolist() == [2.0, 2.0, 12.0]


# ------------------------------------------------------------------------- retain/create graph

def test_second_call_fails_without_retain():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    assert values(ag.autograd.grad(y, x)) == [[2.0, 4.0, 6.0]]
    with raises(RuntimeError, FREED):
        ag.autograd.grad(y, x)


def test_retain_graph_allows_second_call():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    ag.autograd.grad(y, x, retain_graph=True)
    assert values(ag.autograd.grad(y, x)) == [[2.0, 4.0, 6.0]]


def test_create_graph_retains_and_records():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    g, = ag.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad
    assert g.grad_fn.name() == "AddBackward0"
    assert [(type(n).__name__, i) for n, i in g.grad_fn.next_functions] == \
        [("MulBackward0", 0), ("MulBackward0", 0)]
    g2, = ag.autograd.grad(y, x)
    assert not g2.requires_grad and g2.grad_fn is None


def test_double_backward_values():
    x = leaf([1.0, 2.0])
    g, = ag.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, 12.0]
    assert values(ag.autograd.grad(g.sum(), x)) == [[6.0, 12.0]]


def test_double_backward_matches_torch(torch):
    res = []
    for lib in (ag, torch):
        x = lib.tensor(np.array([0.3, -1.2, 2.0]), requires_grad=True)
        w = lib.tensor(np.array([1.5, 0.5, -0.25]), requires_grad=True)
        y = ((x * w).tanh() * x.exp()).sum()
        gx, gw = lib.autograd.grad(y, [x, w], create_graph=True)
        hxx, hxw = lib.autograd.grad((gx * gx).sum() + gw.sin().sum(), [x, w])
        res.append([a.detach().numpy() for a in (gx, gw, hxx, hxw)])
    for a, t in zip(*res):
        np.testing.assert_allclose(a, t, rtol=1e-10)


def test_no_create_graph_no_warning():
    x = leaf([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.autograd.grad((x ** 3).sum(), x, create_graph=True)


# ------------------------------------------------------------------------- inputs

def test_non_leaf_input():
    x = leaf([1.0, -2.0, 3.0])
    h = x * 2
    g, = ag.autograd.grad((h * h).sum(), h)
    assert g.tolist() == [4.0, -8.0, 12.0]
    with pytest.warns(UserWarning):
        assert h.grad is None
    assert x.grad is None


def test_same_input_twice():
    x = leaf([1.0, 2.0])
    assert values(ag.autograd.grad((x * x).sum(), [x, x])) == [[2.0, 4.0], [2.0, 4.0]]


def test_gradient_edge_input_leaf_and_non_leaf():
    get_edge = ag.autograd.graph.get_gradient_edge
    x = leaf([1.0, 2.0])
    h = x * 3
    y = (h * h).sum()
    gh, gx = ag.autograd.grad(y, [get_edge(h), get_edge(x)])
    assert gh.tolist() == [6.0, 12.0]
    assert gx.tolist() == [18.0, 36.0]


def test_gradient_edge_matches_torch(torch):
    res = []
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x.exp()
        y = (h * x).sum()
        edge = lib.autograd.graph.get_gradient_edge(h)
        assert edge.node.name() == "ExpBackward0" and edge.output_nr == 0
        res.append(values(lib.autograd.grad(y, [edge, x])))
    np.testing.assert_allclose(np.array(res[0]), np.array(res[1]), rtol=1e-6)


def test_gradient_edge_of_tensor_without_grad():
    with raises(RuntimeError, "It is not possible to get the gradient edge for a Tensor that "
                              "does not require gradients"):
        ag.autograd.graph.get_gradient_edge(ag.ones(2))


def test_gradient_edge_of_leaf_is_its_accumulator():
    x = leaf([1.0])
    edge = ag.autograd.graph.get_gradient_edge(x)
    assert edge.node.name() == "torch::autograd::AccumulateGrad"
    assert edge.node.variable is x
    assert edge.output_nr == 0


# ------------------------------------------------------------------------- is_grads_batched

def _batched(lib):
    x = lib.tensor([1.0, -0.5, 2.0], requires_grad=True)
    y = x.sin() * x
    v = lib.tensor([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 1.0], [0.5, -1.0, 3.0]])
    g, = lib.autograd.grad(y, x, v, is_grads_batched=True)
    return g.detach().numpy(), x, y, v


def test_is_grads_batched_equals_a_loop():
    g, x, y, v = _batched(ag)
    assert g.shape == (4, 3)
    x2 = leaf(x.tolist())
    y2 = x2.sin() * x2
    rows = [ag.autograd.grad(y2, x2, v[i], retain_graph=True)[0].numpy() for i in range(4)]
    np.testing.assert_allclose(g, np.stack(rows), rtol=1e-6)


def test_is_grads_batched_matches_torch(torch):
    np.testing.assert_allclose(_batched(ag)[0], _batched(torch)[0], rtol=1e-6)


def test_is_grads_batched_eye_gives_jacobian():
    x = leaf([1.0, 2.0, 3.0])
    g, = ag.autograd.grad(x * 2, x, ag.eye(3), is_grads_batched=True)
    assert g.shape == (3, 3)
    assert g.tolist() == (np.eye(3) * 2).tolist()


def test_is_grads_batched_frees_graph_once_done():
    x = leaf([1.0, 2.0])
    y = x * x
    ag.autograd.grad(y, x, ag.eye(2), is_grads_batched=True)
    with raises(RuntimeError, FREED):
        ag.autograd.grad(y, x, ag.ones(2))


def test_is_grads_batched_wrong_shape():
    x = leaf([1.0, 2.0, 3.0])
    text = ("If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
            "as the batch dimension. The sizes of the remaining dimensions are expected to "
            "match the shape of corresponding output, but a mismatch was detected: "
            "grad_output[0] has a shape of torch.Size([]) and output[0] has a shape of "
            "torch.Size([3]). If you only want some tensors in `grad_output` to be considered "
            "batched, consider using vmap.")
    with raises(RuntimeError, text):
        ag.autograd.grad(x * 2, x, ag.ones(4, 2), is_grads_batched=True)


def test_relu_gradient_with_create_graph_is_a_threshold_backward_node(lib):
    # torch records the fused derivative, whose edge to relu's result carries zeros:
    # the gradient requires grad and can itself be backpropagated.
    x = lib.tensor([-1.0, 2.0, 0.0], requires_grad=True)
    (g,) = lib.autograd.grad(x.relu().sum(), x, create_graph=True)
    assert g.tolist() == [0.0, 1.0, 0.0]
    assert g.requires_grad and g.grad_fn.name() == "ThresholdBackwardBackward0"
    (grad_edge, grad_nr), (result_edge, _) = g.grad_fn.next_functions
    assert grad_edge is None and result_edge.name() == "ReluBackward0"
    assert g.grad_fn._saved_threshold == 0
    g.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_relu_double_backward_sends_constant_zeros_to_the_relu(lib):
    # torch's derivative of threshold_backward for self is zeros_like(grad): zeros even
    # where the incoming gradient is NaN (a product with 0 would pass the NaN on).
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad(x.relu().sum(), x, create_graph=True)
    g.backward(lib.tensor([float("nan"), 1.0]))
    assert x.grad.tolist() == [0.0, 0.0]


def test_next_functions_name_the_output_each_input_came_from(lib):
    x = lib.arange(6.0, requires_grad=True)
    a, b, c = x.split(2)
    edges = [(fn.name() if fn else None, nr) for fn, nr in (c * b).grad_fn.next_functions]
    assert edges == [("SplitBackward0", 2), ("SplitBackward0", 1)]
    edges = [(fn.name() if fn else None, nr) for fn, nr in (a * 2).grad_fn.next_functions]
    assert edges == [("SplitBackward0", 0), (None, 0)]


@pytest.mark.parametrize("fn, node", [("softmax", "SoftmaxBackwardDataBackward0"),
                                      ("log_softmax", "LogSoftmaxBackwardDataBackward0")])
def test_softmax_gradients_with_create_graph_are_fused_nodes(lib, fn, node):
    x = lib.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], requires_grad=True)
    y = getattr(x, fn)(1)
    (g,) = lib.autograd.grad((y * lib.tensor([1.0, 2.0, 3.0])).sum(), x, create_graph=True)
    assert g.grad_fn.name() == node and g.grad_fn._saved_dim == 1
    (grad_edge, _), (output_edge, _) = g.grad_fn.next_functions
    assert grad_edge is None and output_edge is y.grad_fn
    assert g.grad_fn._saved_output.tolist() == y.tolist()
    g.pow(2).sum().backward()   # through the fused node: its values are checked in tests/ops
    assert x.grad.shape == x.shape and all(map(math.isfinite, sum(x.grad.tolist(), [])))


def test_relu_gradient_is_zero_where_the_input_was_negative_even_for_nan(lib):
    x = lib.tensor([-1.0, 2.0, -3.0, 4.0], requires_grad=True)
    x.relu().backward(lib.tensor([float("nan"), float("nan"), float("inf"), 1.0]))
    got = x.grad.tolist()
    assert got[0] == 0.0 and got[2] == 0.0 and got[3] == 1.0
    assert got[1] != got[1]   # NaN passes where the input was positive


def test_relu_gradient_passes_at_a_nan_input(lib):
    x = lib.tensor([float("nan"), -1.0, 2.0], requires_grad=True)
    x.relu().backward(lib.ones(3))
    assert x.grad.tolist() == [1.0, 0.0, 1.0]
