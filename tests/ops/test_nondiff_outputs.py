"""An output that is not differentiable (indices, pivots, a workspace) is no output of the
node, as in torch: the node's outputs, their ``output_nr`` and the gradients its hooks and
derivative receive are the differentiable outputs' alone, and so are the outputs its
``node_created`` event lists."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug.debug import record

A = np.random.default_rng(5).standard_normal((3, 4)).astype(np.float32)
SEQ = np.random.default_rng(6).standard_normal((3, 2, 4)).astype(np.float32)

CALLS = {
    "max_dim": lambda lib, a: a.max(1),
    "sort": lambda lib, a: lib.sort(a, 1),
    "topk": lambda lib, a: lib.topk(a, 2),
    "cummax": lambda lib, a: lib.cummax(a, 0),
    "frexp": lambda lib, a: lib.frexp(a),
    "linalg_lu": lambda lib, a: lib.linalg.lu(a[:, :3]),
    "linalg_inv_ex": lambda lib, a: lib.linalg.inv_ex(a[:, :3] + 3 * lib.eye(3)),
    "weight_norm": lambda lib, a: (lib._weight_norm_interface(a, a[:, :1].abs() + 1, 0)),
    "lstm_layer": lambda lib, a: lib.nn.LSTM(4, 3)(lib.tensor(SEQ))[1],
}


def _differentiable(outputs) -> list:
    flat = []
    for o in outputs if isinstance(outputs, tuple) else (outputs,):
        flat.extend(o if isinstance(o, tuple) else (o,))
    return [o for o in flat if o.grad_fn is not None]


def _observed(lib, name: str):
    """(each differentiable output's output_nr, how many gradients its node's pre-hook got)."""
    lib.manual_seed(0)
    a = lib.tensor(A.copy(), requires_grad=True)
    outs = _differentiable(CALLS[name](lib, a))
    received = []
    node = outs[0].grad_fn
    while node.name().endswith(("StackBackward0", "SelectBackward0")):   # (to the LSTM node)
        node = node.next_functions[0][0]
    node.register_prehook(lambda grads: received.append(len(grads)))
    sum(o.float().sum() for o in outs).backward()
    return [o.output_nr for o in outs], received


@pytest.mark.parametrize("name", list(CALLS))
def test_outputs_and_incoming_gradients_are_torchs(torch, name):
    assert _observed(ag, name) == _observed(torch, name)


def test_the_node_created_event_lists_only_the_nodes_outputs():
    with record() as trace:
        values, indices = ag.sort(ag.tensor(A, requires_grad=True), 1)
    created = [e for e in trace.events if e.kind == "node_created" and e.name == "SortBackward0"]
    assert len(created) == 1 and [tuple(o.shape) for o in created[0].outputs] == [(3, 4)]
    assert indices.grad_fn is None and values.output_nr == 0
