"""torch's shape functions, compared with torch: values, dtypes, errors, the whole recorded
graph (composites record torch's sequence of nodes), gradients, and which results are
views of their input (sharing its version counter) and which are copies."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch, evaluate

torch = pytest.importorskip("torch")

SETUP = {"m": "lib.tensor([[0.5, -1.0, 2.0], [3.0, 0.25, -2.0]], requires_grad=True)",
         "v": "lib.tensor([1.0, 4.0, 9.0, 16.0, 25.0], requires_grad=True)",
         "s": "lib.tensor(2.0, requires_grad=True)",
         "c": "lib.arange(24.0).reshape(2, 3, 4).requires_grad_()"}

# Each is compared with torch: values, dtype, shape, requires_grad and grad_fn, or the
# error's type and first line.
EXPRESSIONS = [
    # broadcasting
    "lib.broadcast_to(v.unsqueeze(1), (5, 3))", "v.broadcast_to(2, 5)", "v.broadcast_to((2, 5))",
    "lib.broadcast_to(m, (4, -1, 3))", "lib.broadcast_to(s, (2,))",
    "lib.broadcast_to(m, (2, 2))", "lib.broadcast_to(m, (3,))", "lib.broadcast_to(m, 6)",
    "lib.broadcast_tensors(m, v[:3])", "lib.broadcast_tensors(m)", "lib.broadcast_tensors()",
    "lib.broadcast_tensors(m, v)", "lib.broadcast_tensors([m, v[:3]])",
    "lib.broadcast_tensors(lib.ones(2, 1, dtype=lib.int32), lib.ones(3))",
    "lib.meshgrid(v, v[:3], indexing='ij')", "lib.meshgrid([v, v[:3]], indexing='xy')",
    "lib.meshgrid(v, v[:3], v[:2], indexing='xy')", "lib.meshgrid(v, indexing='xy')",
    "lib.meshgrid(s, v, indexing='ij')", "lib.meshgrid(lib.ones(0), v, indexing='ij')",
    "lib.meshgrid(v, v.long(), indexing='ij')", "lib.meshgrid(indexing='ij')",
    "lib.meshgrid(v, v, indexing='foo')", "lib.meshgrid(v, v[:2])",
    # split with sizes: the signs are checked before the sum
    "lib.split(v, [6, -1])", "v.split([-1, 6])", "v.split_with_sizes([6, -1])",
    "lib.split_with_sizes(v, [2, 3])", "m.split_with_sizes([1, 2], dim=-1)",
    "m.split_with_sizes([1, 2], 1)", "s.split_with_sizes([1])", "v.split_with_sizes([2, 2])",
    # reshape: a view when contiguous, a strided alias when the strides allow, else a copy
    "m.reshape(3, 2)", "m.t().reshape(3, 2)", "m.t().reshape(6)", "c[..., ::2].reshape(6, 2)",
    "c[..., ::2].reshape(-1)", "c.transpose(0, 1).reshape(3, 8)", "m[:, :1].reshape(2)",
    "m.t().reshape(3, 2).mul_(2)",
    # repeating
    "lib.tile(m, ())", "m.tile(2, 1)", "m.tile([2])", "m.tile((2, 1, 1))", "lib.tile(s, (2, 3))",
    "m.tile(dims=(2,))", "lib.tile(m, (-1,))", "lib.tile(m, 2)", "m.tile()",
    "lib.repeat_interleave(m, 2)", "lib.repeat_interleave(v, 2)",
    "lib.repeat_interleave(m, 2, 0)", "lib.repeat_interleave(m, 2, dim=-1, output_size=6)",
    "lib.repeat_interleave(m, 2, dim=-1, output_size=5)", "lib.repeat_interleave(s, 3)",
    "lib.repeat_interleave(m, 0, dim=0)", "lib.repeat_interleave(m, -1)",
    "lib.repeat_interleave(m, 2, dim=2)", "lib.repeat_interleave(s, 3, dim=0)",
    "lib.repeat_interleave(m, 2.5)", "lib.repeat_interleave(m, True)",
    "lib.repeat_interleave(lib.ones(0, 2, requires_grad=True), 2, dim=0)",
    "lib.repeat_interleave(m, lib.tensor([1, 2]), dim=0)",
    "m.repeat_interleave(lib.tensor([1, 2, 0]), dim=1)",
    "lib.repeat_interleave(m, lib.tensor([1, 2]), dim=0, output_size=3)",
    "lib.repeat_interleave(m, lib.tensor([1, 2]), dim=0, output_size=4)",
    "lib.repeat_interleave(m, lib.tensor([1, 2, 3, 0, 1, 1]))",
    "lib.repeat_interleave(m, lib.tensor(2))", "lib.repeat_interleave(m, lib.tensor([2]))",
    "lib.repeat_interleave(m, lib.tensor(2), dim=1)",
    "lib.repeat_interleave(m, lib.tensor([1, 2], dtype=lib.int32), dim=0)",
    "lib.repeat_interleave(m, lib.tensor([1, 2]))",
    "lib.repeat_interleave(m, lib.tensor([-1, 2]), dim=0)",
    "lib.repeat_interleave(m, lib.tensor([1.0, 2.0]), dim=0)",
    "lib.repeat_interleave(m, lib.tensor([[1, 2]]), dim=0)",
    "lib.repeat_interleave(lib.tensor([1, 2, 3]))",
    "lib.repeat_interleave(lib.tensor([1, 2], dtype=lib.int32))",
    "lib.repeat_interleave(lib.tensor([[1, 2]]))",
    # unflatten and ravel
    "m.unflatten(1, (3,))", "m.unflatten(1, [3, 1])", "m.unflatten(-1, (-1, 1))",
    "m.unflatten(dim=1, sizes=(1, 3))", "m.unflatten(1, lib.Size([3, 1]))",
    "lib.unflatten(c, -1, (2, -1))", "m.t().unflatten(0, (3, 1))",
    "lib.ones(2, 0).unflatten(1, (5, -1))",
    "m.unflatten(1, ())", "m.unflatten(1, (2, 2))", "m.unflatten(1, (2, -1))",
    "m.unflatten(1, (-1, -1))", "m.unflatten(2, (3, 1))", "lib.unflatten(m, 1, 3)",
    "m.unflatten(1, 3)", "s.unflatten(0, (1,))", "lib.unflatten(m, 0, (2, 0))",
    "lib.ones(2, 0).unflatten(1, (0, -1))", "m.unflatten(1)",
    "lib.ravel(m)", "m.t().ravel()", "s.ravel()", "lib.ravel(lib.ones(2, 3)[:, ::2])",
    # rot90 and flips
    "lib.rot90(m)", "lib.rot90(m, 2)", "lib.rot90(m, 3)", "lib.rot90(m, 0)", "lib.rot90(m, 5)",
    "lib.rot90(m, -1, [1, 0])", "m.rot90(1, [0, 1])", "lib.rot90(m, k=1, dims=[0, -1])",
    "lib.rot90(c, 1, (2, 0))", "lib.rot90(c, -3, (-1, 1))",
    "lib.rot90(m, 1, (0,))", "lib.rot90(m, 1, (0, 0))", "lib.rot90(m, 1, (0, -2))",
    "lib.rot90(m, 1, (2, 0))", "lib.rot90(m, 1, (0, 2))", "lib.rot90(v, 1)",
    "lib.rot90(s, 1, (0,))", "lib.rot90(m, 1, (0, 1, 1))",
    "lib.fliplr(m)", "m.flipud()", "lib.flipud(v)", "lib.fliplr(v)", "lib.flipud(s)",
    # tensor_split and friends
    "lib.tensor_split(v, 3)", "lib.tensor_split(v, 7)", "lib.tensor_split(v, [1, 4])",
    "lib.tensor_split(v, (4, 1))", "lib.tensor_split(v, [1, 9])", "lib.tensor_split(v, [-2, 3])",
    "lib.tensor_split(v, [])", "lib.tensor_split(v, lib.tensor(2))",
    "lib.tensor_split(v, lib.tensor([1, 3]))", "lib.tensor_split(m, 2, dim=-1)",
    "m.tensor_split(2, 1)", "m.tensor_split(indices=[1], dim=1)",
    "m.tensor_split(sections=2, dim=1)",
    "m.tensor_split(tensor_indices_or_sections=lib.tensor([1]), dim=1)",
    "lib.tensor_split(v, 0)", "lib.tensor_split(v, -1)", "lib.tensor_split(m, 2, 2)",
    "lib.tensor_split(s, 2)", "lib.tensor_split(v, 2.0)",
    "lib.tensor_split(v, lib.tensor([[1, 3]]))", "lib.tensor_split(v, lib.tensor([1.0]))",
    "lib.hsplit(v, 5)", "lib.hsplit(m, [1])", "m.hsplit(3)", "m.vsplit([1])",
    "lib.dsplit(c, 2)", "lib.dsplit(c, [1, 3])", "lib.vsplit(c, 2)",
    "lib.hsplit(v, 2)", "lib.hsplit(m, 0)", "lib.hsplit(s, 1)", "lib.vsplit(v, 1)",
    "lib.vsplit(m, 3)", "lib.dsplit(m, 1)", "lib.hsplit(m, lib.tensor([1]))",
    # stacking
    "lib.column_stack([s, s])", "lib.column_stack([v, v * 2])", "lib.column_stack([m, m])",
    "lib.column_stack([m, v[:2]])", "lib.column_stack([v])", "lib.column_stack((v, v.long()))",
    "lib.column_stack([lib.ones(2, 3, 2), lib.ones(2, 1, 2)])", "lib.column_stack([])",
    "lib.column_stack(m)", "lib.column_stack([v, v[:2]])",
    "lib.dstack([s, s])", "lib.dstack([m, m])", "lib.dstack([v, v])", "lib.dstack([])",
    "lib.dstack([lib.ones(2, 3, 4), lib.ones(2, 3, 1)])", "lib.row_stack([v, v])",
    # diff
    "lib.diff(v)", "lib.diff(m)", "lib.diff(m, 1, 0)", "lib.diff(m, n=2, dim=0)",
    "lib.diff(v, n=2)", "lib.diff(m, n=0)", "lib.diff(m, n=5)", "lib.diff(m, n=3, dim=1)",
    "lib.diff(m, prepend=m, dim=0)", "lib.diff(m, append=m[:, :1])",
    "lib.diff(m, prepend=m[:, :1], append=m)", "lib.diff(m, 2, prepend=m)",
    "lib.diff(m, n=0, prepend=m)", "lib.diff(m, prepend=lib.ones(2, 1).long())",
    "m.diff(dim=0)", "m.diff(1, 0, None, None)", "lib.diff(lib.ones(2, 0), dim=1)",
    "lib.diff(lib.tensor([True, False, False]))", "lib.diff(lib.tensor([1, 4, 9]))",
    "lib.diff(lib.tensor([1, 4, 9], dtype=lib.uint8))",
    "lib.diff(m, n=-1)", "lib.diff(s)", "lib.diff(m, dim=2)", "lib.diff(m, prepend=v)",
    "lib.diff(m, prepend=lib.ones(3, 1))", "lib.diff(m, prepend=s)",
    "lib.diff(m, prepend=2.0)",
    # narrow_copy
    "lib.narrow_copy(m, 1, 0, 2)", "m.narrow_copy(0, 1, 1)", "lib.narrow_copy(m, 1, -1, 1)",
    "lib.narrow_copy(m, 1, 3, 0)", "lib.narrow_copy(m, 1, 1, 5)", "lib.narrow_copy(m, 2, 0, 1)",
    "lib.narrow_copy(s, 0, 0, 1)", "lib.narrow_copy(m, 1, 0, -1)",
    "lib.narrow_copy(m, 1, 4, 0)",
    # shape arguments missing, or given twice
    "m.flip()", "m.repeat()", "m.expand()", "m.view()", "m.permute()", "m.reshape()",
    "lib.flip(m)", "lib.permute(m)", "s.permute()",
    "m.flip(0, dims=(1,))", "m.repeat(2, 1, repeats=(2, 1))",
    "lib.flip(m, dims=(0,))", "m.flip(dims=(0,))", "m.permute(dims=(1, 0))",
    "lib.permute(m, dims=(1, 0))", "m.repeat(repeats=(2, 1))", "m.expand(size=(2, 2, 3))",
    "m.view(size=(3, 2))", "m.reshape(shape=(3, 2))", "m.view(lib.int32)",
    "s.permute(())", "s.view(())", "s.expand(())", "s.repeat(())", "s.flip(())",
    "m.flip([])", "m.view(())", "m.repeat(())",
    # squeeze, unsqueeze, flatten, swapaxes
    "m.squeeze(())", "m.squeeze([])", "lib.ones(1, 2, 1, requires_grad=True).squeeze((0, -1))",
    "lib.ones(1, 2, 1).squeeze((0, 0))", "lib.ones(1, 2, 1).squeeze((0, -3))",
    "s.squeeze(0)", "s.squeeze(-1)", "s.squeeze((0,))", "s.squeeze()", "s.squeeze(1)",
    "lib.squeeze(m, dim=(0, 1))", "s.unsqueeze(-1)", "s.unsqueeze(-2)", "m.unsqueeze(-3)",
    "m.unsqueeze(-4)", "s.flatten()", "s.flatten(0, 0)", "s.flatten(-1, -1)",
    "s.flatten(0, 1)", "s.flatten(1)", "v.flatten(0, 0)", "m.flatten(-2, -1)",
    "lib.flatten(m, 0, -3)", "lib.ones(0, 3).flatten()", "m.swapaxes(0, 1)",
    "m.swapdims(0, -1)", "m.swapaxes(0, 2)", "lib.swapdims(s, 0, -1)",
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_matches_torch(expression):
    assert_same_as_torch(torch, expression, SETUP)


def _graph(t):
    """The recorded graph below ``t`` as nested (name, inputs), leaves as "leaf"."""
    def walk(node):
        if node is None:
            return None
        name = node.name()
        if name.endswith("AccumulateGrad"):
            return "leaf"
        return (name, [walk(fn) for fn, _ in node.next_functions])
    return walk(t.grad_fn)


# Composites: the whole graph each output records must be torch's, node for node.
GRAPHS = [
    "lib.broadcast_tensors(m, v[:3])", "lib.meshgrid(v, v[:3], indexing='xy')",
    "lib.meshgrid(v, s, indexing='ij')", "lib.repeat_interleave(m, 2)",
    "lib.repeat_interleave(v, 3)", "lib.repeat_interleave(s, 2)",
    "lib.repeat_interleave(m, 2, dim=1)", "lib.repeat_interleave(m, lib.tensor([1, 2]), 0)",
    "lib.repeat_interleave(m, lib.tensor([2]))", "m.t().ravel()", "lib.ravel(m * 2)",
    "lib.column_stack([v, v * 2])", "lib.column_stack([s, m.sum()])", "lib.dstack([v[:1], s])",
    "lib.dstack([m, m])", "lib.diff(m, n=2, prepend=m[:, :1], append=m)",
    "lib.diff(v, n=3)", "lib.diff(m, n=0)", "lib.tensor_split(c, [1, 3], dim=-1)",
    "lib.hsplit(c, 3)", "m.tile(2, 1, 1)", "lib.unflatten(m.t(), 0, (3, 1))",
    "lib.broadcast_to(m.unsqueeze(0), (2, 2, 3))", "lib.rot90(m * 1, 3)",
    "lib.narrow_copy(c, 2, 1, 2)", "lib.fliplr(m)",
]


def _outputs(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


@pytest.mark.parametrize("expression", GRAPHS)
def test_records_torchs_graph_and_gradients(expression):
    ours, theirs = (evaluate(lib, f"({expression}, {', '.join(SETUP)})", SETUP)
                    for lib in (ag, torch))
    assert ours[0] == theirs[0] == "ok", (ours, theirs)
    (got, *our_inputs), (want, *their_inputs) = ours[1], theirs[1]
    for g, w in zip(_outputs(got), _outputs(want), strict=True):
        assert _graph(g) == _graph(w)
    for outputs, inputs, lib in ((got, our_inputs, ag), (want, their_inputs, torch)):
        # a nonlinear loss, so each output's gradient depends on its values
        loss = sum((o * o).sum() for o in _outputs(outputs))
        used = [x for x in inputs if x.requires_grad]
        grads = lib.autograd.grad(loss, used, allow_unused=True)
        for x, g in zip(inputs, grads):
            x.grad = g
    for x, y in zip(our_inputs, their_inputs):
        if y.grad is None:
            assert x.grad is None
        else:
            np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-6)


# (expression on x, a 2x3x4 float tensor that does not require grad). The answer to "is
# the result a view of x, sharing its version counter?" must be torch's.
ALIASING = [
    "lib.broadcast_to(x[0, 0], (2, 4))", "lib.broadcast_tensors(x, x[0])[1]",
    "lib.meshgrid(x[0, 0], x[1, 1], indexing='xy')[1]", "x.unflatten(2, (2, 2))",
    "lib.unflatten(x.transpose(0, 1), 0, (3, 1))", "x.ravel()", "x.transpose(0, 1).ravel()",
    "lib.tensor_split(x, 2, 2)[1]", "lib.hsplit(x, [1])[1]", "lib.vsplit(x, 2)[0]",
    "lib.dsplit(x, 4)[3]", "x.swapaxes(0, 2)", "x.squeeze((0, 1))", "x.tile(1, 1)",
    "lib.rot90(x)", "lib.rot90(x, 0)", "x.fliplr()", "x.flipud()", "x.narrow_copy(0, 0, 1)",
    "lib.repeat_interleave(x, 1)", "lib.repeat_interleave(x, lib.tensor([1, 1]), 0)",
    "lib.diff(x)", "lib.diff(x, n=0)", "lib.column_stack([x])", "lib.dstack([x])",
]


def _aliasing(lib, expression):
    x = lib.arange(24.0).reshape(2, 3, 4)
    y = eval(expression, {"lib": lib, "x": x})
    before = y._version
    x.add_(1)
    return y._base is x, y._version - before, y.sum().item()


@pytest.mark.parametrize("expression", ALIASING)
def test_views_and_copies_match_torch(expression):
    assert _aliasing(ag, expression) == _aliasing(torch, expression)


# torch.broadcast_shapes is Python code that loads torch.fx on first use (seconds): its
# answers (torch 2.13) are written out instead.
BROADCAST_SHAPES = [(((2, 1), (3,)), (2, 3)), ((2, (3, 1)), (3, 2)), ((), ()),
                    (((2,), (3, 1), (1, 1, 1)), (1, 3, 2)), ((ag.Size([2, 1]), [1, 4]), (2, 4)),
                    (((0,), (1,)), (0,)), (((2,), None), (2,))]
BROADCAST_SHAPES_ERRORS = [
    (((2,), (3,)), RuntimeError, "Attempting to broadcast a dimension of length 3 at -1! "
     "Mismatching argument at index 1 had (3,); but expected shape should be broadcastable to "
     "[2]"),
    (((2, -1),), ValueError, "Attempting to broadcast a dimension with negative length!"),
    (((2, 1), (2, 3), (4, 3)), RuntimeError, "Attempting to broadcast a dimension of length 4 "
     "at -2! Mismatching argument at index 2 had (4, 3); but expected shape should be "
     "broadcastable to [2, 3]"),
    ((2.5,), RuntimeError, "Input shapes should be of type ints, a tuple of ints, or a list of "
     "ints, got 2.5"),
]


def test_broadcast_shapes_matches_torch():
    for shapes, want in BROADCAST_SHAPES:
        got = ag.broadcast_shapes(*shapes)
        assert type(got) is ag.Size and got == want
    for shapes, kind, message in BROADCAST_SHAPES_ERRORS:
        with pytest.raises(kind) as ours:
            ag.broadcast_shapes(*shapes)
        assert str(ours.value) == message


def test_meshgrid_without_indexing_warns_like_torch():
    with pytest.warns(UserWarning) as ours:
        grids = ag.meshgrid(ag.zeros(2), ag.zeros(3))
    assert [tuple(g.shape) for g in grids] == [(2, 3), (2, 3)]   # 'ij'
    message = str(ours[0].message)
    assert message == ("torch.meshgrid: in an upcoming release, it will be required to pass "
                       "the indexing argument.")
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.meshgrid(torch.zeros(2), torch.zeros(3))
    assert not theirs or str(theirs[0].message).startswith(message)   # torch warns once only
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.meshgrid(ag.zeros(2), indexing="ij")   # no warning when indexing is given


def test_missing_argument_errors_name_the_method():
    with pytest.raises(TypeError, match=r"Tensor\.unflatten\(\) missing 2 required positional"):
        ag.ones(2, 3).unflatten()
    with pytest.raises(TypeError, match='tile\\(\\) missing 1 required positional arguments: '
                                        '"dims"'):
        ag.ones(2, 3).tile()


def test_second_derivatives_of_composites_match_torch():
    def second(lib):
        x = lib.tensor([[0.5, -1.0, 2.0], [3.0, 0.25, -2.0]], dtype=lib.float64,
                       requires_grad=True)
        y = lib.diff(x ** 3, prepend=x[:, :1]) * lib.repeat_interleave(x, 1, dim=1)
        y = y.sum() + lib.meshgrid(x[0], x[1], indexing="xy")[0].pow(3).sum()
        (g,) = lib.autograd.grad(y, [x], create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), [x])
        return gg.detach().numpy()
    np.testing.assert_allclose(second(ag), second(torch), rtol=1e-10)


def test_narrow_copy_gradient_with_a_negative_start():
    # torch's own NarrowCopyBackward0 fails here (it slices the gradient up to start +
    # length, which is 0): agdebug gives narrow's gradient, placed where the copy came from.
    x = ag.arange(8.0).reshape(2, 4).requires_grad_()
    (x.narrow_copy(-1, -2, 2) * ag.tensor([1.0, 2.0])).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 1.0, 2.0]]


def _new_functions_grad(lib, device):
    x = lib.arange(12.0, device=device).reshape(3, 4).requires_grad_()
    repeats = lib.tensor([1, 0, 2], device=device)
    outs = [lib.rot90(x), x.narrow_copy(1, 1, 2), lib.repeat_interleave(x, repeats, dim=0),
            lib.diff(x ** 2, n=2), lib.tensor_split(x, 3, 1)[0], x.tile(2),
            lib.meshgrid(x[0], x[1], indexing="xy")[0], lib.column_stack([x[0], x[1]])]
    sum((o * o).sum() for o in outs).backward()
    assert {o.device.type for o in outs} == {x.grad.device.type} == {device}
    return x.grad.cpu().numpy()


def test_new_functions_run_on_each_device(device):
    np.testing.assert_allclose(_new_functions_grad(ag, device), _new_functions_grad(torch, "cpu"))


def _in_place_shape_changes(lib) -> list:
    """x.unsqueeze_(0), squeeze_, transpose_, t_ (and swapdims_/swapaxes_): the node torch
    records, the new shape, the same tensor and one more version; torch's refusals; a view
    keeps its base (a later write through it reaches the base); gradients to second order."""
    out = []

    def attempt(f):
        try:
            r = f()
            out.append((r.grad_fn.name() if r.grad_fn is not None else None, tuple(r.shape),
                        r._version))
        except (RuntimeError, IndexError) as e:
            out.append((type(e).__name__, str(e)))

    for change in [lambda a: a.unsqueeze_(0), lambda a: a.unsqueeze_(-1), lambda a: a.squeeze_(),
                   lambda a: a.squeeze_(1), lambda a: a.squeeze_(0), lambda a: a.squeeze_((0, 1)),
                   lambda a: a.transpose_(0, 2), lambda a: a[0].t_(), lambda a: a.swapdims_(0, 1),
                   lambda a: a.swapaxes_(0, -1), lambda a: a.t_(), lambda a: a.squeeze_(5)]:
        a = lib.ones(2, 1, 3, requires_grad=True) * 1
        attempt(lambda change=change, a=a: change(a))
    leaf = lib.ones(2, 3, requires_grad=True)
    attempt(lambda: leaf[0].unsqueeze_(0))
    attempt(lambda: leaf.unsqueeze_(0))
    with lib.no_grad():
        made_in_no_grad = leaf[0]
    attempt(lambda: made_in_no_grad.unsqueeze_(0))
    with lib.no_grad():
        attempt(lambda: leaf.unsqueeze_(0))
    v = lib.ones(2, 3, requires_grad=True) * 1
    w = v[0]
    w.unsqueeze_(0)
    out.append((w.grad_fn.name(), w._base is v, tuple(w.shape), v._version))
    w.mul_(2)
    out.append((v.tolist(), v.grad_fn.name()))
    x = lib.arange(6.0).reshape(2, 3).requires_grad_()
    y = x * 1
    y.unsqueeze_(1).transpose_(0, 2)
    (g,) = lib.autograd.grad((y ** 3).sum(), x, create_graph=True)
    out.append((g.tolist(), lib.autograd.grad(g.sum(), x)[0].tolist()))
    return out


def test_in_place_shape_changes_match_torch():
    assert _in_place_shape_changes(ag) == _in_place_shape_changes(torch)
