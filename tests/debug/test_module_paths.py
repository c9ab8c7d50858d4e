"""NodeCreated names the nn.Module call making each node, as named_modules() names it."""

from __future__ import annotations

import agdebug as ag
from agdebug import nn
from agdebug.debug import record


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
        self.out = nn.Linear(3, 2)

    def forward(self, x):
        return self.out(self.inner(x) * 2)


def module_of(trace) -> dict:
    """op name -> the set of (module path, class) of its nodes."""
    found: dict = {}
    for e in trace.events:
        if e.kind == "node_created":
            found.setdefault(e.name, set()).add((e.module, e.module_type))
    return found


def test_nested_modules_are_named_as_named_modules_names_them():
    model = nn.Sequential(Block(), nn.ReLU())
    with record() as trace:
        y = model(ag.ones(1, 3))
        loss = y.sum()
    loss.backward()
    names = {name for name, _ in model.named_modules()}
    found = module_of(trace)
    assert found["TanhBackward0"] == {("0.inner.1", "Tanh")}
    assert found["MulBackward0"] == {("0", "Block")}
    assert found["ReluBackward0"] == {("1", "ReLU")}
    assert found["SumBackward0"] == {("", "")}          # outside any module call
    assert {path for op in found.values() for path, _ in op if path} <= names
    paths = {p for p, _ in found["AddmmBackward0"]}
    assert paths == {"0.inner.0", "0.out"}
    assert ("0.out", "Linear") in found[next(n for n in found if "AccumulateGrad" in n)]


def test_no_path_while_nobody_watches_and_the_stack_unwinds_on_errors():
    from agdebug.events import modules
    model = nn.Linear(2, 2)
    model(ag.ones(1, 2))
    assert modules.current() == ("", "")
    with record():
        try:
            model(ag.ones(1, 3))
        except RuntimeError:
            pass
        assert modules.current() == ("", "")


def test_the_watcher_records_the_same_paths_for_torch(torch):
    from agdebug.watch import watching
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 16),
                                torch.nn.TransformerEncoder(layer, 2,
                                                            enable_nested_tensor=False))
    with record() as trace, watching():
        model(torch.randn(4, 2, 16)).sum().backward()
    paths = {p for op in module_of(trace).values() for p, _ in op}
    names = {name for name, _ in model.named_modules()}
    assert paths <= names
    assert {"0", "1.layers.0.self_attn", "1.layers.1.linear2", "1.layers.1.norm2"} <= paths
    hooks = torch.nn.modules.module
    assert not hooks._global_forward_hooks and not hooks._global_forward_pre_hooks


def test_both_engines_name_a_sequential_alike(torch):
    from agdebug.watch import watching
    twin = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    mine = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    with record() as theirs, watching():
        twin(torch.ones(4, 2)).sum().backward()
    with record() as ours:
        mine(ag.ones(4, 2)).sum().backward()
    assert module_of(theirs) == module_of(ours)
