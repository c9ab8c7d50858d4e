"""An advanced index is saved as torch saves it: IndexBackward0 and IndexPutBackward0 keep
each index tensor as a saved tensor (``_saved_indices``), released with the node's other
saved tensors, so a second backward through an index fails as in torch, and the events
count those bytes."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.debug import record


def _indices(node) -> list:
    return [None if t is None else t.tolist() for t in node._saved_indices]


@pytest.mark.parametrize("index", ["lib.tensor([0, 2])", "(slice(1, None), [0, 2])",
                                   "([0, 1],)", "(lib.tensor([1, 3]), lib.tensor([2, 0]))"])
def test_saved_indices_and_a_second_backward_match_torch(torch, index):
    found = []
    for lib in (torch, ag):
        x = lib.arange(12.0).reshape(4, 3).requires_grad_()
        y = x[eval(index, {"lib": lib})]
        seen = [y.grad_fn.name(), _indices(y.grad_fn)]
        y.sum().backward()
        with pytest.raises(RuntimeError) as second:
            y.sum().backward()
        with pytest.raises(RuntimeError):
            _ = y.grad_fn._saved_indices
        found.append((seen, str(second.value).split(".")[0], x.grad.tolist()))
    assert found[0] == found[1]


def test_an_index_put_saves_its_indices_as_torch(torch):
    found = []
    for lib in (torch, ag):
        x = lib.ones(4, 3, requires_grad=True)
        z = x.clone()
        z[lib.tensor([3, 1])] = lib.tensor(2.0)
        found.append((z.grad_fn.name(), _indices(z.grad_fn), z.grad_fn._saved_accumulate))
    assert found[0] == found[1]


def test_the_events_count_the_saved_index_and_its_release():
    with record() as trace:
        x = ag.ones(5, 3, requires_grad=True)
        y = x[ag.tensor([4, 0, 4])]
        y.sum().backward()
    made = next(e for e in trace.events if e.kind == "node_created"
                and e.name == "IndexBackward0")
    assert [(s.name, s.shape, s.nbytes) for s in made.saved] == [("indices", (3,), 24)]
    released = [e for e in trace.events if e.kind == "saved_released" and e.node == made.node]
    assert len(released) == 1
    assert np.array_equal(x.grad.numpy()[:, 0], [1, 0, 0, 0, 2])
