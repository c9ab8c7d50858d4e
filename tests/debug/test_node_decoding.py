"""An index's node versions decoded the quick way (items of the usual shape, built without
checking each field again) and the checked way give the same views; anything odd or damaged
takes the checked way, which refuses it."""

from __future__ import annotations

import pytest

import agdebug as ag
from agdebug.debug import checkpoint_shapes, checkpoints
from agdebug.debug.checkpoints import NodeReader, NodeWriter
from agdebug.debug.state import EMPTY, reduce

from .scenarios import run


def _program():
    """Modules, names, hooks, retained and released saved tensors, an error, a double
    backward: nodes of many shapes."""
    layer = ag.nn.Linear(3, 2)
    x = ag.tensor([[1.0, -2.0, 0.5]], requires_grad=True)
    y = layer(x).tanh()
    y.register_hook(lambda g: g * 2)
    y.retain_grad()
    loss = (y * y).sum()
    loss.backward(retain_graph=True)
    try:
        loss.backward()
        loss.backward()
        loss.backward(inputs=[ag.tensor(1.0)])
    except RuntimeError:
        pass
    g, = ag.autograd.grad((x * x).sin().sum(), x, create_graph=True)
    g.sum().backward()


def _versions(values: bool) -> list:
    """Every node version the program's states hold (each once), in order."""
    state, seen = EMPTY, {}
    for event in run(_program, values=values).events:
        state = reduce(state, event)
        for node in state.nodes.values():
            seen.setdefault(node, None)
    return list(seen)


def _written(versions):
    writer = NodeWriter()
    texts = [writer.node_json(v) for v in versions]
    tables = {"summaries": writer.summaries, "shared": writer.shared}
    return texts, tables


def _reader(tables) -> NodeReader:
    return NodeReader(lambda table, ns: [tables[table][n] for n in ns],
                      {t: len(v) for t, v in tables.items()})


class _Never:
    """A shape no text has: the reader then checks every field."""

    @staticmethod
    def fullmatch(text):
        return None


@pytest.mark.parametrize("values", [False, True], ids=["summaries", "with values"])
def test_the_quick_and_the_checked_decoding_give_the_same_views(monkeypatch, values):
    versions = _versions(values)
    texts, tables = _written(versions)
    assert len(versions) > 50
    quick = _reader(tables)
    assert quick.nodes(texts) == versions
    with monkeypatch.context() as patched:
        for name in ("OWN", "SHARED", "SUMMARY"):
            patched.setattr(checkpoint_shapes, name, _Never)
        assert _reader(tables).nodes(texts) == versions


def test_most_versions_have_the_usual_shape(monkeypatch):
    """The quick way is the usual one (else it would only add the patterns' cost)."""
    texts, tables = _written(_versions(False))
    built = []
    monkeypatch.setattr(checkpoints, "_usual_node",
                        lambda *a, f=checkpoints._usual_node: built.append(1) or f(*a))
    _reader(tables).nodes(texts)
    assert len(built) == len(texts)


def test_a_usual_looking_item_naming_what_is_not_there_is_refused():
    texts, tables = _written(_versions(False))
    count = len(tables["summaries"])
    own = checkpoints._loads(texts[-1], "x")
    own[3] = [count + 5]                                 # a buffer summary past the table
    text = checkpoints._dumps(own)
    assert checkpoint_shapes.OWN.fullmatch(text)
    with pytest.raises(ValueError, match="summaries"):
        _reader(tables).nodes([text])
    own[0] = len(tables["shared"])                       # a shared part past the table
    with pytest.raises(ValueError, match="shared"):
        _reader(tables).nodes([checkpoints._dumps(own)])


@pytest.mark.parametrize("name", ["\x1b[31mred", "x" * 201, "tab\there"])
def test_a_summary_name_that_is_no_label_is_refused_as_before(name):
    summary = checkpoints._dumps([1, [2], "float32", "cpu", 8, None, name])
    assert not checkpoint_shapes.SUMMARY.fullmatch(summary)
    with pytest.raises(ValueError):
        checkpoints._summary(checkpoints._loads(summary, "x"))
