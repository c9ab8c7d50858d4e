"""The fast paths of issue 27 give the general path's bytes, graph and saved values.

``F.linear`` calls the ``t`` op directly and ``addmm`` passes a good call with one test;
``chunk``/``unsafe_chunk`` call their split op directly; each op saves through a plan
built at its declaration. Each is compared with the general path it skips and with torch.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
import agdebug.nn.functional as F


def _graph(t) -> list:
    """(node name, saved names, input edges by name), breadth first from ``t.grad_fn``."""
    out, todo = [], [t.grad_fn]
    while todo:
        node = todo.pop(0)
        if node is None:
            continue
        edges = [fn.name() if fn is not None else None for fn, _ in node.next_functions]
        out.append((node.name(), sorted(n for n in dir(node) if n.startswith("_saved_")), edges))
        todo.extend(fn for fn, _ in node.next_functions)
    return out


def _leaves(lib, dtype):
    rng = np.random.default_rng(3)
    x = lib.tensor(rng.standard_normal((5, 3)).astype(dtype))
    w = lib.tensor(rng.standard_normal((4, 3)).astype(dtype), requires_grad=True)
    b = lib.tensor(rng.standard_normal(4).astype(dtype), requires_grad=True)
    return x, w, b


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_is_addmm_of_the_transposed_weight(dtype):
    x, w, b = _leaves(ag, dtype)
    fast, general = F.linear(x, w, b), ag.addmm(b, x, w.t())
    assert fast._data.tobytes() == general._data.tobytes()
    assert _graph(fast) == _graph(general)
    node = fast.grad_fn   # x needs no gradient: torch keeps mat1 for mat2's, not mat2
    assert node._saved_mat1._data is x._data and node._saved_mat2 is None
    t_node = node.next_functions[2][0]
    assert t_node.name() == "TBackward0" and t_node.next_functions[0][0].variable is w
    fast.sum().backward()
    grads = w.grad._data.tobytes(), b.grad._data.tobytes()
    w.grad = b.grad = None
    general.sum().backward()
    assert (w.grad._data.tobytes(), b.grad._data.tobytes()) == grads


def test_linear_graph_and_saved_values_match_torch(torch):
    ours, theirs = F.linear(*_leaves(ag, "float32")), torch.nn.functional.linear(
        *_leaves(torch, "float32"))
    # (bitwise only against our general path: torch's MKL and NumPy's OpenBLAS sum apart)
    np.testing.assert_allclose(ours._data, theirs.detach().numpy(), rtol=1e-6)
    assert _graph(ours) == _graph(theirs)
    for name in ("_saved_mat1_sym_sizes", "_saved_mat2_sym_sizes", "_saved_mat2_sym_strides",
                 "_saved_alpha", "_saved_beta"):
        assert repr(getattr(ours.grad_fn, name)) == repr(getattr(theirs.grad_fn, name)), name


@pytest.mark.parametrize("call", [
    "F.linear(x, w, b.double())", "F.linear(x, w[:, :2], b)", "F.linear(x, w, b[:3])",
    "F.linear(x, w.t(), b)", "lib.addmm(b, x.t(), w)", "lib.addmm(b[:1], x, w.t())",
    "lib.addmm(b.reshape(1, 4), x, w.t())", "lib.addmm(b, x[0], w.t())"])
def test_linear_and_addmm_checks_off_the_fast_path_match_torch(torch, call):
    results = []
    for lib in (ag, torch):
        x, w, b = _leaves(lib, "float32")
        functional = F if lib is ag else torch.nn.functional
        try:
            value = eval(call, {"lib": lib, "F": functional, "x": x, "w": w, "b": b})
            results.append(("ok", value.shape, value.grad_fn.name()))
        except Exception as error:   # noqa: BLE001 - the error itself is compared
            results.append((type(error).__name__, str(error).splitlines()[0]))
    assert results[0] == results[1]


@pytest.mark.parametrize("name, general", [("chunk", "split"), ("unsafe_chunk", "unsafe_split")])
@pytest.mark.parametrize("shape, chunks, dim", [((20, 64), 4, 1), ((7, 5), 3, 0), ((7, 5), 2, -1),
                                               ((6,), 4, 0), ((0, 3), 2, 0)])
def test_chunk_is_its_split(torch, name, general, shape, chunks, dim):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    results = []
    for lib, method in ((ag, name), (ag, general), (torch, name)):
        x = lib.tensor(data, requires_grad=True) * 1
        size = shape[dim]
        if method == general and size:
            pieces = getattr(x, method)(-(-size // chunks), dim)
        elif method == general:
            pieces = getattr(x, f"{method}_with_sizes")([0] * chunks, dim)
        else:
            pieces = getattr(x, method)(chunks, dim)
        if pieces[0].numel():
            sum(p.sum() * (i + 1) for i, p in enumerate(pieces)).backward()
        results.append([(tuple(p.shape), p.detach().numpy().tobytes(), p.grad_fn.name(),
                         p._base is not None) for p in pieces])
    assert results[0] == results[2]
    assert results[0] == results[1]


@pytest.mark.parametrize("name", ["chunk", "unsafe_chunk"])
@pytest.mark.parametrize("chunks", [2.0, True, None, "2", np.int64(2), np.float64(2.0), "int",
                                    "float"])
def test_chunk_takes_ints_as_torch(torch, name, chunks):
    """An int, a numpy integer or a one-element integer tensor; torch's TypeError for the
    rest, its position counted after ``self`` for the method."""
    said = []
    for lib in (torch, ag):
        given = {"int": lib.tensor(2), "float": lib.tensor(2.0)}.get(chunks, chunks) \
            if isinstance(chunks, str) else chunks
        for call in (lambda: getattr(lib.ones(4), name)(given),
                     lambda: getattr(lib, name)(lib.ones(4), given)):
            try:
                said.append(len(call()))
            except TypeError as error:
                said.append(str(error))
    assert said[:2] == said[2:]


def test_save_plan_follows_the_declared_specs():
    from agdebug.ops.core.running import _ARG, _RESULT, _STRIDES, _SIZES
    from agdebug.ops import OPS
    from agdebug.ops.linalg.products import addmm_op
    kinds = [(name, kind, needed) for name, kind, _, needed in addmm_op.save_plan]
    assert kinds == [("mat1", _ARG, 2), ("mat2", _ARG, 1), ("mat2_sym_strides", _STRIDES, 2),
                     ("mat1_sym_strides", _STRIDES, 1), ("mat1_sym_sizes", _SIZES, None),
                     ("mat2_sym_sizes", _SIZES, None)]
    assert all(len(step) == 4 for op in OPS.values() for step in op.save_plan)
    assert OPS["exp"].save_plan == (("result", _RESULT, 0, None),)


def test_saved_strides_are_those_of_each_layout(torch):
    for lib in (ag, torch):
        x = lib.ones(6, 4, requires_grad=True)
        w = lib.ones(3, 6, requires_grad=True)
        out = lib.addmm(lib.zeros(3), x.t(), w.t())
        first = (tuple(out.grad_fn._saved_mat1_sym_strides),
                 tuple(out.grad_fn._saved_mat2_sym_strides))
        out = lib.addmm(lib.zeros(3), x.t().contiguous(), w.t().contiguous())
        second = (tuple(out.grad_fn._saved_mat1_sym_strides),
                  tuple(out.grad_fn._saved_mat2_sym_strides))
        if lib is ag:
            ours = first, second
    assert ours == (first, second)


def test_unsqueeze_forward_is_expand_dims_view():
    # the op reshapes itself (expand_dims' own call, without its argument handling): the same
    # shape, strides and view of the input for every dim, layout and size; out of range, its
    # error
    from agdebug.ops.shape.views_copies import unsqueeze
    base = np.random.default_rng(0).standard_normal((4, 6, 5))
    for a in (base, base.T, base[:, ::2], base[1], np.asarray(3.0), np.zeros((0, 3)),
              base.transpose(1, 0, 2)[::-1]):
        for dim in range(-a.ndim - 1, a.ndim + 1):
            want, got = np.expand_dims(a, dim), unsqueeze.forward(np, a, dim)
            assert (got.shape, got.strides) == (want.shape, want.strides)
            assert (got.base is None, np.shares_memory(got, a)) == \
                (want.base is None, np.shares_memory(want, a))
        with pytest.raises(np.exceptions.AxisError):
            unsqueeze.forward(np, a, a.ndim + 1)


@pytest.mark.parametrize("key", [2, -1, 0, slice(1, 3), slice(None), slice(None, None, 2),
                                 slice(-2, None), slice(5, 1), slice(2, 100)])
def test_an_int_or_slice_key_takes_the_steps_torch_takes(torch, key):
    # x[i] and x[a:b] skip the key's plan: the same values, layout, node, saved values,
    # version sharing and gradient as torch's, and as the general path's x[(i,)]
    values = np.arange(24.0).reshape(4, 6)
    got, want = ag.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    ours, theirs = got[key], want[key]
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert ours.stride() == theirs.stride() and ours._base is got
    assert _graph(ours) == _graph(theirs)
    ours.sum().backward(), theirs.sum().backward()
    np.testing.assert_array_equal(got.grad.numpy(), want.grad.numpy())
    if type(key) is int:
        general = got[(key,)]
        assert general.stride() == ours.stride() and _graph(general) == _graph(ours)


@pytest.mark.parametrize("key", [4, -5, 7])
def test_an_int_key_out_of_range_keeps_torchs_error(torch, key):
    with pytest.raises(IndexError) as ours:
        ag.ones(4, 2)[key]
    with pytest.raises(IndexError) as theirs:
        torch.ones(4, 2)[key]
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("make", [lambda x: x.view(6, 4), lambda x: x.reshape(24),
                                  lambda x: x.unsqueeze(1).squeeze(1),
                                  lambda x: x.t().reshape(24), lambda x: x.view(4, 6, 1)])
@pytest.mark.parametrize("transposed_grad", [False, True])
def test_reshaping_derivatives_take_the_view_op_as_torchs(torch, make, transposed_grad):
    # a view's, squeeze's and unsafe_view's derivative calls the view op for a contiguous
    # gradient (reshape's own call): the gradient and, with create_graph, its graph are torch's
    results = []
    for lib in (ag, torch):
        x = lib.tensor(np.arange(24.0).reshape(4, 6), requires_grad=True)
        y = make(x)
        seed = lib.tensor(np.arange(24.0)[::-1].copy()).reshape(y.shape[::-1])
        seed = seed.permute(*reversed(range(seed.dim()))) if transposed_grad else \
            seed.reshape(y.shape)
        (g,) = lib.autograd.grad(y, x, seed, create_graph=True)
        results.append((g.detach().numpy().tobytes(), g.stride(), _graph(g)))
    assert results[0] == results[1]


@pytest.mark.parametrize("shapes, dim, dtypes", [
    (((2, 3), (2, 4)), 1, None), (((2, 3), (2, 4)), 0, None), (((2, 3), (3,)), 0, None),
    (((2, 3), ()), 0, None), (((0,), (2, 3)), 1, None), (((2, 3), (2, 3, 1)), 1, None),
    (((0,), (0,)), 0, None), (((2, 3), (2, 3)), -1, ("float32", "float64")),
    (((4, 2), (4, 2), (4, 2), (4, 2)), 1, None), (((1, 2), (0,), (3, 2)), 0, None)])
def test_cat_reads_the_arrays_shapes_as_torch_checks_them(torch, shapes, dim, dtypes):
    # cat's checks read the arrays' shapes (no Size per read) and skip the cast of arrays of
    # one dtype: the same result, node, gradients and errors as torch's
    results = []
    for lib in (ag, torch):
        types = [getattr(lib, d) for d in dtypes] if dtypes else [lib.float32] * len(shapes)
        xs = [lib.ones(s, dtype=t, requires_grad=True) for s, t in zip(shapes, types)]
        try:
            y = lib.cat(xs, dim)
        except (RuntimeError, IndexError) as error:
            results.append((type(error).__name__, str(error)))
            continue
        y.sum().backward()
        results.append((y.detach().numpy().tobytes(), str(y.dtype), tuple(y.shape),
                        y.grad_fn.name(), [tuple(x.grad.shape) for x in xs]))
    assert results[0] == results[1]
