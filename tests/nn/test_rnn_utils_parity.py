"""``nn.utils.rnn`` and the recurrent layers on PackedSequence against torch: values,
gradients, grad_fn names, the PackedSequence fields and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, evaluate

SETUP = {
    "R": "lib.nn.utils.rnn",
    "x": "lib.arange(24, dtype=lib.float64).reshape(4, 3, 2).mul(0.37).sin().requires_grad_()",
    "a": "lib.arange(6, dtype=lib.float64).reshape(3, 2).cos().requires_grad_()",
    "b": "lib.arange(2, dtype=lib.float64).reshape(1, 2).exp().requires_grad_()",
    "c": "lib.arange(8, dtype=lib.float64).reshape(4, 2).sin().requires_grad_()",
}


def _grads_match(torch, expr: str) -> None:
    """The same expression's gradients (of every leaf) for one fixed upstream gradient."""
    grads = []
    for lib in (ag, torch):
        kind, out = evaluate(lib, f"(({expr}), x, a, b, c)", SETUP)
        assert kind == "ok", out
        result = out[0][0] if isinstance(out[0], tuple) else out[0]
        upstream = lib.arange(result.numel(), dtype=result.dtype).reshape(result.shape).cos()
        (result * upstream).sum().backward()
        grads.append([None if t.grad is None else t.grad.numpy() for t in out[1:]])
    for got, want in zip(*grads):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-12)


VALUES = [
    "R.pack_padded_sequence(x, [4, 2, 1]).data",
    "R.pack_padded_sequence(x, [4, 2, 1]).batch_sizes",
    "R.pack_padded_sequence(x, lib.tensor([3, 3, 1])).data",
    "R.pack_padded_sequence(x, lib.tensor([3, 3, 1], dtype=lib.int32)).batch_sizes",
    "R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False).data",
    "R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False).sorted_indices",
    "R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False).unsorted_indices",
    "R.pack_padded_sequence(x, [2, 3, 1, 2], batch_first=True, enforce_sorted=False).data",
    "R.pack_padded_sequence(x.transpose(0, 1), [2, 4, 1], True, False).data",
    "R.pad_packed_sequence(R.pack_padded_sequence(x, [4, 2, 1]))",
    "R.pad_packed_sequence(R.pack_padded_sequence(x, [3, 2, 2]), padding_value=-2.5)",
    "R.pad_packed_sequence(R.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False), "
    "batch_first=True, total_length=6)",
    "R.pad_packed_sequence(R.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False))",
    "R.pad_sequence([a, b, c])", "R.pad_sequence([a, b, c], batch_first=True)",
    "R.pad_sequence((a, b), padding_value=9.0, padding_side='left')",
    "R.pad_sequence([a, b, c], True, -1.0, 'left')", "R.pad_sequence(x)",
    "R.pad_sequence([a, b.float()])", "R.pad_sequence([a.float(), b])",
    "R.pad_sequence([a.detach().long(), b.detach().long()])",
    "R.pack_sequence([c, a, b]).data", "R.pack_sequence([c, a, b]).batch_sizes",
    "R.pack_sequence([a, c, b], enforce_sorted=False).data",
    "tuple(R.unpack_sequence(R.pack_sequence([a, c, b], enforce_sorted=False)))",
    "tuple(R.unpad_sequence(R.pad_sequence([a, c, b], batch_first=True), "
    "lib.tensor([3, 4, 1]), batch_first=True))",
    "tuple(R.unpad_sequence(R.pad_sequence([a, c, b]), lib.tensor([3, 4, 1])))",
    "R.invert_permutation(lib.tensor([2, 0, 3, 1]))",
    "R.PackedSequence(lib.ones(3), lib.tensor([2, 1])).data",
    "R.PackedSequence((lib.ones(3), lib.tensor([2, 1]))).batch_sizes",
    "R.pack_padded_sequence(x, [4, 2, 1]).double().data",
    "R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False).float().unsorted_indices",
    "R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False).to(lib.float32).data",
    "R.pack_padded_sequence(x, [4, 2, 1]).cpu().data",
]

ERRORS = [
    "R.pack_padded_sequence(x, [2, 4, 1])", "R.pack_padded_sequence(x, [4, 2, 0])",
    "R.pack_padded_sequence(x, [4, 2, -1], enforce_sorted=False)",
    "R.pack_padded_sequence(x, [4, 2])", "R.pack_padded_sequence(x[:0], [4, 2, 1])",
    "R.pack_padded_sequence(x, lib.tensor([[4, 2, 1]]))",
    "R.pad_packed_sequence(R.pack_padded_sequence(x, [4, 2, 1]), total_length=3)",
    "R.pad_sequence([])", "R.pad_sequence(3)", "R.pad_sequence([a, c.t()])",
    "R.pad_sequence([a, b], padding_side='middle')", "R.pad_sequence([a[0, 0], b[0, 0]])",
    "R.pack_sequence([a, c])", "R.unpad_sequence(x, lib.tensor([4, 2, 1]))",
    "R.PackedSequence(lib.ones(3))",
]


@pytest.mark.parametrize("expr", VALUES)
def test_values_like_torch(torch, expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_like_torch(torch, expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", [
    "R.pack_padded_sequence(x, [4, 2, 1]).data",
    "R.pack_padded_sequence(x, [2, 3, 1, 2], batch_first=True, enforce_sorted=False).data",
    "R.pad_packed_sequence(R.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False), "
    "batch_first=True, total_length=5)[0]",
    "R.pad_sequence([a, b, c], True, 0.5, 'left')",
    "lib.cat(R.unpack_sequence(R.pack_sequence([a, c, b], enforce_sorted=False)))",
])
def test_grads_like_torch(torch, expr):
    _grads_match(torch, expr)


def _graph(t) -> list:
    """grad_fn names, breadth-first (AccumulateGrad and None edges skipped)."""
    names, todo = [], [t.grad_fn]
    while todo:
        node = todo.pop(0)
        names.append(node.name().split("::")[-1])
        todo += [n for n, _ in node.next_functions if n is not None and
                 type(n).__name__ != "AccumulateGrad"]
    return names


@pytest.mark.parametrize("expr", [
    "R.pad_packed_sequence(R.pack_padded_sequence(x, [4, 2, 1]))[0]",
    "R.pad_packed_sequence(R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False), "
    "batch_first=True)[0]",
    "R.pad_sequence([a, b, c], batch_first=True)",
    "R.unpack_sequence(R.pack_sequence([a, c, b], enforce_sorted=False))[1]",
])
def test_graph_like_torch(torch, expr):
    got = _graph(evaluate(ag, expr, SETUP)[1])
    assert got == _graph(evaluate(torch, expr, SETUP)[1])


def test_packed_sequence_is_torchs_named_tuple():
    packed = ag.nn.utils.rnn.pack_padded_sequence(ag.ones(3, 2, 1), [3, 1])
    assert packed._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert sorted_indices is None and unsorted_indices is None and not packed.is_cuda
    assert packed.to(ag.float32) is packed
    assert repr(packed).startswith("PackedSequence(data=tensor(")


def test_import_paths():
    from agdebug.nn.utils.rnn import pack_padded_sequence
    import agdebug.nn.utils.rnn as rnn
    assert pack_padded_sequence is rnn.pack_padded_sequence
    assert ag.nn.utils.clip_grad_norm_ is not None and ag.nn.utils.rnn is rnn


# ----------------------------------------------------------------------------- layers

def _run(lib, mode, bidirectional, enforce_sorted, batch_first, with_hx, state):
    lib.manual_seed(0)
    net = getattr(lib.nn, mode)(3, 4, num_layers=2, bidirectional=bidirectional,
                               batch_first=batch_first).double()
    if state is not None:
        net.load_state_dict({k: ag.tensor(v) for k, v in state.items()})
    rng = np.random.default_rng(5)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    x = lib.tensor(rng.standard_normal((4, 5, 3) if batch_first else (5, 4, 3)),
                   requires_grad=True)
    shape = (2 * (1 + bidirectional), 4, 4)
    h = lib.tensor(rng.standard_normal(shape), requires_grad=True)
    c = lib.tensor(rng.standard_normal(shape), requires_grad=True)
    packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    hx = ((h, c) if mode == "LSTM" else h) if with_hx else None
    out, hn = net(packed, hx)
    finals = hn if isinstance(hn, tuple) else (hn,)
    padded = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first)[0]
    loss = (padded ** 2).sum() + sum((t ** 3).sum() for t in finals)
    loss.backward()
    states = ([h, c] if mode == "LSTM" else [h]) if with_hx else []
    leaves = [x] + states + list(net.parameters())
    names = [type(out).__name__, out.data.grad_fn.name()] + \
        [t.grad_fn.name() for t in finals] + [out.batch_sizes.tolist()]
    values = [padded, *finals] + [t.grad for t in leaves]
    return names, [v.detach().numpy() for v in values], \
        {k: v.detach().numpy() for k, v in net.state_dict().items()}


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("enforce_sorted,batch_first,with_hx",
                         [(True, False, True), (False, True, True), (False, False, False)])
def test_layers_on_packed_like_torch(torch, mode, bidirectional, enforce_sorted, batch_first,
                                     with_hx):
    want_names, want, state = _run(torch, mode, bidirectional, enforce_sorted, batch_first,
                                   with_hx, None)
    names, got, _ = _run(ag, mode, bidirectional, enforce_sorted, batch_first, with_hx, state)
    assert names == want_names
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("expr", [
    "lib.nn.GRU(2, 3).double()(R.pack_padded_sequence(x, [4, 2, 1]), lib.zeros(1, 2, 3, "
    "dtype=lib.float64))",
    "lib.nn.LSTM(3, 3).double()(R.pack_padded_sequence(x, [4, 2, 1]))",
    "lib.nn.RNN(2, 3)(R.pack_padded_sequence(x, [4, 2, 1]))",
])
def test_layer_errors_on_packed_like_torch(torch, expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_unpad_sequence_transposes_its_input_in_place_like_torch(torch):
    """Not batch_first, torch's unpad_sequence transposes the caller's tensor (transpose_)."""
    seen = []
    for lib in (ag, torch):
        padded = lib.arange(12.0).reshape(4, 3).requires_grad_() * 1
        pieces = lib.nn.utils.rnn.unpad_sequence(padded, lib.tensor([4, 2, 1]))
        seen.append((tuple(padded.shape), padded.grad_fn.name(), padded._version,
                     [p.tolist() for p in pieces]))
    assert seen[0] == seen[1] and seen[0][0] == (3, 4)
