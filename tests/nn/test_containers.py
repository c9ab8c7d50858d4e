"""ModuleDict, ParameterList, ParameterDict and Module's buffers/traversal/modes against
torch.nn: registration, iteration, state_dict keys, repr and errors."""

from __future__ import annotations

import pytest

import agdebug as ag


def _net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.plist = nn.ParameterList([nn.Parameter(lib.ones(2, 3)), lib.zeros(2)])
            self.pdict = nn.ParameterDict({"b": nn.Parameter(lib.ones(2)),
                                           "a": lib.zeros(1, dtype=lib.float64)})
            self.heads = nn.ModuleDict({"cls": nn.Linear(2, 3), "box": nn.Linear(2, 1)})
            self.body = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("scratch", lib.ones(1), persistent=False)
            self.register_buffer("empty", None)
    return Net()


def test_state_dict_and_parameter_names_match_torch(torch):
    ours, theirs = _net(ag), _net(torch)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]


def test_repr_matches_torch(torch):
    assert repr(_net(ag)) == repr(_net(torch))
    for lib_pair in [(ag, torch)]:
        reprs = [repr(lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2))])) for lib in lib_pair]
        assert reprs[0] == reprs[1]
        assert repr(ag.nn.ParameterDict()) == repr(torch.nn.ParameterDict())
        assert repr(ag.nn.ModuleDict()) == repr(torch.nn.ModuleDict())


def test_parameter_list_behaves_like_torchs(lib):
    plist = lib.nn.ParameterList([lib.ones(2)])
    assert isinstance(plist[0], lib.nn.Parameter) and plist[0].requires_grad
    plist.append(lib.zeros(3))
    plist += [lib.nn.Parameter(lib.ones(1))]
    assert len(plist) == 3 and plist[-1].shape == (1,)
    assert [tuple(p.shape) for p in plist] == [(2,), (3,), (1,)]
    assert len(plist[1:]) == 2 and isinstance(plist[1:], lib.nn.ParameterList)
    new = lib.nn.Parameter(lib.ones(4))
    plist[0] = new
    assert plist[0] is new and list(plist.parameters())[0] is new
    with pytest.raises(IndexError, match="index 3 is out of range"):
        plist[3]


def test_parameter_dict_behaves_like_torchs(lib):
    pdict = lib.nn.ParameterDict({"w": lib.ones(2)})
    assert isinstance(pdict["w"], lib.nn.Parameter)
    pdict["v"] = lib.nn.Parameter(lib.zeros(1))
    pdict.update([("u", lib.ones(3))])
    assert list(pdict) == ["w", "v", "u"] and "v" in pdict and len(pdict) == 3
    assert [k for k, _ in pdict.items()] == list(pdict.keys())
    assert pdict.pop("v").shape == (1,) and "v" not in pdict
    assert [n for n, _ in pdict.named_parameters()] == ["w", "u"]
    assert pdict.get("missing") is None and pdict.setdefault("z", lib.ones(1)).shape == (1,)
    del pdict["w"]
    assert list(pdict.keys()) == ["u", "z"]


def test_module_dict_behaves_like_torchs(lib):
    heads = lib.nn.ModuleDict({"b": lib.nn.Linear(1, 1), "a": lib.nn.ReLU()})
    assert list(heads) == ["b", "a"]   # insertion order (ParameterDict sorts, ModuleDict not)
    heads["c"] = lib.nn.Tanh()
    heads.update([("d", lib.nn.Identity())])
    assert list(heads.keys()) == ["b", "a", "c", "d"] and len(heads) == 4 and "c" in heads
    assert isinstance(heads.pop("b"), lib.nn.Linear) and "b" not in heads
    assert [type(m).__name__ for m in heads.values()] == ["ReLU", "Tanh", "Identity"]
    pdict = lib.nn.ParameterDict({"b": lib.ones(1), "a": lib.ones(1)})
    assert list(pdict) == ["a", "b"]   # a plain dict is sorted by ParameterDict, as torch does
    assert list(heads.parameters()) == []


def test_optimizer_sees_container_parameters(lib):
    net = _net(lib)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    assert len(opt.param_groups[0]["params"]) == len(list(net.parameters())) == 10


def test_non_persistent_buffer_is_moved_but_not_saved(lib):
    net = _net(lib)
    assert "scratch" not in net.state_dict() and "running" in net.state_dict()
    net.double()
    assert net.scratch.dtype == lib.float64
    net.register_buffer("scratch", lib.ones(1))   # re-registered persistent
    assert "scratch" in net.state_dict()
    net.load_state_dict(net.state_dict())


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e)
    return None


def _set_buffer_to_int(lib):
    net = _net(lib)
    net.running = 3


BAD = [
    lambda lib: _net(lib).register_buffer("a.b", lib.ones(1)),
    lambda lib: _net(lib).register_buffer("", lib.ones(1)),
    lambda lib: _net(lib).register_buffer("plist", lib.ones(1)),
    lambda lib: _net(lib).register_buffer("q", 3),
    lambda lib: _net(lib).register_buffer(1, lib.ones(1)),
    _set_buffer_to_int,
    lambda lib: _net(lib).train("yes"),
]


@pytest.mark.parametrize("index", range(len(BAD)))
def test_errors_match_torch(torch, index):
    theirs = _error(torch, BAD[index])
    assert theirs is not None
    assert _error(ag, BAD[index]) == theirs


def test_apply_train_eval_requires_grad_zero_grad(lib):
    net = _net(lib)
    seen = []
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen[-1] == "Net" and seen[0] == "ParameterList"   # children first, as torch
    assert net.eval() is net and not any(m.training for m in net.modules())
    assert net.train() is net and all(m.training for m in net.modules())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_(True)
    sum(p.sum() for p in net.parameters()).backward()
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0
               for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_replacing_a_parameter_or_submodule_keeps_its_place(torch):
    def names(lib):
        net = _net(lib)
        net.heads = lib.nn.ModuleDict({"x": lib.nn.Linear(1, 1)})
        net.pdict["b"] = lib.nn.Parameter(lib.ones(5))
        return list(net.state_dict())
    assert names(ag) == names(torch)
