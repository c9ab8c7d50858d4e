"""``register_parameter``, ``register_buffer``, ``add_module`` and assigning a Parameter:
torch's checks on the name (and on the value)."""

from __future__ import annotations

import pytest

import agdebug as ag

torch = pytest.importorskip("torch")


def _outcome(lib, action):
    module = lib.nn.Linear(2, 2)
    module.register_buffer("stats", lib.zeros(2))
    module.note = 3
    try:
        action(lib, module)
    except Exception as e:   # noqa: BLE001 - the error itself is compared
        return type(e).__name__, str(e)
    return "ok", sorted(name for name, _ in module.named_parameters()), list(module._modules)


ACTIONS = {
    "replace a parameter": lambda lib, m: setattr(m, "weight", lib.nn.Parameter(lib.ones(2, 2))),
    "over a plain attribute": lambda lib, m: setattr(m, "note", lib.nn.Parameter(lib.ones(1))),
    "over a method": lambda lib, m: setattr(m, "forward", lib.nn.Parameter(lib.ones(1))),
    "register over a buffer": lambda lib, m: m.register_parameter(
        "stats", lib.nn.Parameter(lib.ones(1))),
    "register over a method": lambda lib, m: m.register_parameter(
        "extra_repr", lib.nn.Parameter(lib.ones(1))),
    "register over a plain attribute": lambda lib, m: m.register_parameter("note", None),
    "dotted name": lambda lib, m: m.register_parameter("a.b", None),
    "empty name": lambda lib, m: m.register_parameter("", None),
    "name not a string": lambda lib, m: m.register_parameter(3, None),
    "not a Parameter": lambda lib, m: m.register_parameter("extra", lib.ones(1)),
    "new name": lambda lib, m: m.register_parameter("extra", lib.nn.Parameter(lib.ones(1))),
    "None": lambda lib, m: m.register_parameter("extra", None),
    "buffer: dotted name": lambda lib, m: m.register_buffer("a.b", None),
    "buffer: empty name": lambda lib, m: m.register_buffer("", None),
    "buffer over a parameter": lambda lib, m: m.register_buffer("weight", None),
    "buffer: name not a string": lambda lib, m: m.register_buffer(3, None),
    "module: dotted name": lambda lib, m: m.add_module("a.b", lib.nn.ReLU()),
    "module: empty name": lambda lib, m: m.add_module("", lib.nn.ReLU()),
    "module over a method": lambda lib, m: m.add_module("forward", lib.nn.ReLU()),
    "module over a parameter": lambda lib, m: m.register_module("weight", None),
    "module: name not a string": lambda lib, m: m.add_module(3, lib.nn.ReLU()),
    "module: not a Module": lambda lib, m: m.add_module("act", 3),
    "module: new name, then replaced": lambda lib, m: [m.add_module("act", lib.nn.ReLU()),
                                                       m.add_module("act", None)],
    "module dict key over a method": lambda lib, m: lib.nn.ModuleDict({"keys": lib.nn.ReLU()}),
}


@pytest.mark.parametrize("action", ACTIONS, ids=list(ACTIONS))
def test_same_as_torch(action):
    assert _outcome(ag, ACTIONS[action]) == _outcome(torch, ACTIONS[action])


def test_before_init():
    class Early(ag.nn.Module):
        def __init__(self):
            self.register_parameter("w", None)

    with pytest.raises(AttributeError, match="cannot assign parameter before Module.__init__"):
        Early()


def test_parametrized_name_refuses_a_parameter():
    errors = []
    for lib in (ag, torch):
        lin = lib.nn.Linear(2, 2)
        lib.nn.utils.parametrize.register_parametrization(lin, "weight", lib.nn.Identity())
        with pytest.raises(KeyError) as info:
            lin.weight = lib.nn.Parameter(lib.ones(2, 2))
        errors.append(str(info.value))
    assert errors[0] == errors[1] == "\"attribute 'weight' already exists\""


@pytest.mark.parametrize("call", [
    lambda lib, m: m.add_module("x", lib.ones(2, dtype=lib.float64)),
    lambda lib, m: m.add_module("x", 3),
    lambda lib, m: setattr(m, "weight", lib.ones(2, dtype=lib.float64)),
    lambda lib, m: m.register_buffer("b", [1.0]),
])
def test_type_errors_name_the_value_as_torch_typename(call):
    # torch.typename: 'torch.DoubleTensor' for a float64 tensor, the qualified class else
    texts = []
    for lib in (ag, torch):
        with pytest.raises(TypeError) as info:
            call(lib, lib.nn.Linear(2, 2))
        texts.append(str(info.value))
    assert texts[0] == texts[1]
