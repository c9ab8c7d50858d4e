"""Names from the user's program: what the events call a tensor (``x``, ``h``, ``0.weight``)."""

from __future__ import annotations

import contextlib
import gc
import io
import runpy
import weakref

import numpy as np
import pytest

import agdebug as ag
from agdebug import nn
from agdebug.debug import record
from agdebug.debug.narration import Narrator
from agdebug.debug.recorder import load_trace
from agdebug.demos import find
from agdebug.events.names import assigned_names
from agdebug.events.records import RecordError, TensorSummary, event_from_dict


def created(trace) -> list:
    return [e for e in trace.events if e.kind == "node_created"]


def leaf_names(trace) -> list:
    return [e.leaf.name for e in created(trace) if e.leaf is not None]


def output_names(trace) -> dict:
    """node name -> the names of its outputs, for the nodes made by ops."""
    return {e.name: [s.name for s in e.outputs] for e in created(trace) if e.leaf is None}


def test_leaves_and_outputs_are_named_after_the_assignment_target():
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        w = ag.randn(2).requires_grad_()
        y = x * w
        z = (y.exp()).sum()   # the exp is not z; the sum is
        (x * 3).sum().backward()   # no target: no name
    assert leaf_names(trace) == ["x", "w"]
    names = [[s.name for s in e.outputs] for e in created(trace) if e.leaf is None]
    assert names == [["y"], [""], ["z"], [""], [""]]
    assert z.grad_fn is not None


def _leaf():
    return ag.tensor([1.0, 2.0], requires_grad=True)


def _loss_of(x):
    return (x * x).sum()


def test_a_value_the_users_function_returns_is_not_named_return():
    """A ``return`` names nothing: the value is the caller's (here unnamed) to name."""
    with record() as trace:
        _loss_of(_leaf()).backward()
    assert leaf_names(trace) == [""]
    assert output_names(trace) == {"MulBackward0": [""], "SumBackward0": [""]}


def test_tuple_and_attribute_targets():
    class Box:
        pass

    self = Box()
    with record() as trace:
        self.w = ag.ones(2, requires_grad=True)
        a, b = self.w * 2, self.w * 3
        first, second = self.w.unbind()
        parts = self.w.unbind()
    assert leaf_names(trace) == ["self.w"]
    outputs = [[s.name for s in e.outputs] for e in created(trace) if e.leaf is None]
    assert outputs == [["a"], ["b"], ["first", "second"], ["parts[0]", "parts[1]"]]
    assert (a, b, first, second, parts) is not None


def test_assigned_names_reads_the_statement_without_running_it(tmp_path):
    source = tmp_path / "prog.py"
    source.write_text("def f():\n    loss = boom(\n        1)\n    x[0] = g()\n")
    assert assigned_names(str(source), (2, 3, 11, 10)) == ("loss",)
    assert assigned_names(str(source), (2, 3, 11, 9)) == ()   # not the whole value
    assert assigned_names(str(source), (4, 4, 11, 14)) == ()  # a subscript is no name


def test_an_mlps_parameters_are_named_as_named_parameters_gives_them(torch):
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    twin = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    with record() as trace:
        out = model(ag.ones(4, 2))
        loss = out.sum()
        loss.backward()
    assert leaf_names(trace) == [name for name, _ in twin.named_parameters()]
    sum_node = next(e for e in created(trace) if e.name == "SumBackward0")
    # a module call makes several nodes: only the last one's output is ``out``, named
    # once the user's code goes on (here: as the sum's input)
    assert [s.name for s in sum_node.inputs] == ["out"]
    assert [s.name for s in sum_node.outputs] == ["loss"]
    assert output_names(trace)["ReluBackward0"] == [""]


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(2, 2)
        self.register_buffer("scale", ag.ones(2))

    def forward(self, x):
        return self.layer1(x) * self.scale


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = _Block()

    def forward(self, x):
        return self.encoder(x)


def test_a_nested_modules_paths_are_relative_to_the_outermost_call():
    net = _Net()
    with record() as trace:
        net(ag.ones(1, 2)).sum().backward()
    assert leaf_names(trace) == ["encoder.layer1.weight", "encoder.layer1.bias"]
    mul = next(e for e in created(trace) if e.name == "MulBackward0")
    assert mul.inputs[1].name == "encoder.scale"   # a buffer too


_TOP_LEVEL = """
head = nn.Linear(2, 1)
body = nn.Sequential(nn.Linear(2, 2))
loss = head(body(ones(1, 2))).sum()
loss.backward()
"""


def _run_top_level(lib) -> None:
    """``_TOP_LEVEL`` as a script's top level runs: in a namespace dict of its own."""
    exec(compile(_TOP_LEVEL, "<script>", "exec"), {"nn": lib.nn, "ones": lib.ones})


def test_a_top_level_modules_own_parameters_carry_its_variable():
    """``head.weight``, not a bare ``weight`` beside another module's; a child's path is
    named_parameters()' as before; a function's locals are not read (see below)."""
    with record() as trace:
        _run_top_level(ag)
    assert sorted(leaf_names(trace)) == ["0.bias", "0.weight", "head.bias", "head.weight"]


def test_watched_torch_names_a_top_level_modules_parameters_alike():
    torch = pytest.importorskip("torch")
    import agdebug.watch
    with agdebug.watch.torch() as trace:
        _run_top_level(torch)
    assert sorted(leaf_names(trace)) == ["0.bias", "0.weight", "head.bias", "head.weight"]


def test_naming_keeps_nothing_alive():
    with record():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        model = nn.Linear(2, 1)
        y = model(x * 2)
        loss = y.sum()
        refs = [weakref.ref(t) for t in (x, y, loss, model.weight)] + [weakref.ref(model)]
        loss.backward()
        del x, y, loss, model
        gc.collect()
        assert [r() for r in refs] == [None] * len(refs)


def _forward_only(refs: list) -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    x = ag.ones(2, requires_grad=True)
    out = model(x)   # a library call: its name waits for the program to go on
    refs += [weakref.ref(t) for t in (x, out, model[0].weight)] + [weakref.ref(model)]


def test_a_name_waiting_for_the_program_keeps_nothing_alive():
    refs: list = []
    with record():
        _forward_only(refs)
        gc.collect()
        assert [r() for r in refs] == [None] * len(refs)


def _train(watch: bool):
    rng = np.random.default_rng(0)
    x = ag.tensor(rng.standard_normal((8, 3)).astype(np.float32))
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    with contextlib.ExitStack() as stack:
        if watch:
            stack.enter_context(record(values=True))
        loss = nn.functional.cross_entropy(model(x), ag.tensor([0, 1] * 4))
        loss.backward()
    return [loss.detach().numpy(), *(p.grad.numpy() for p in model.parameters())]


def test_a_watched_runs_numbers_are_bitwise_an_unwatched_ones():
    ag.manual_seed(0)
    watched = _train(True)
    ag.manual_seed(0)
    plain = _train(False)
    assert [a.tobytes() for a in watched] == [b.tobytes() for b in plain]


def test_names_survive_a_trace_file_and_older_traces_still_load(tmp_path):
    with record() as trace:
        x = ag.tensor([1.0], requires_grad=True)
        y = x * 2
    path = tmp_path / "t.agtrace"
    trace.save(path)
    loaded = load_trace(path)
    assert leaf_names(loaded) == ["x"]
    assert [s.name for s in created(loaded)[1].outputs] == ["y"]
    old = created(trace)[1].to_dict()
    for summary in (*old["inputs"], *old["outputs"]):
        if summary is not None:
            del summary["name"]
    assert event_from_dict(old).outputs[0].name == ""
    assert y is not None


@pytest.mark.parametrize("name", ["x" * 201, "a\x1b[2Jb", "two\nlines"])
def test_a_trace_cannot_give_a_tensor_a_name_that_is_no_name(name):
    event = {"kind": "grad_set", "seq": 1, "tensor": 1, "grad_fn": 0,
             "grad": {"id": 1, "shape": [1], "dtype": "float32", "device": "cpu",
                      "nbytes": 4, "stats": None, "name": name}}
    with pytest.raises(RecordError, match="not a name"):
        event_from_dict(event)
    event["grad"]["name"] = "0.weight"
    assert event_from_dict(event).grad == TensorSummary(1, (1,), "float32", "cpu", 4,
                                                        name="0.weight")


def test_narration_says_the_users_names():
    with record() as trace:
        w = ag.tensor([1.0, 2.0], requires_grad=True)
        y = (w * w).sum()
        y.backward()
        w.grad = None
    narrator = Narrator(trace.events)
    said = [narrator.sentence(i) for i in range(len(trace.events))]
    assert said[0].endswith("its AccumulateGrad will put the gradient of w into w.grad")
    into = "AccumulateGrad adds a gradient of shape [2] into w.grad"
    assert any(s.startswith(into) for s in said)
    assert "The program sets w.grad = None: the next backward starts from zero" in said


def test_the_demos_name_their_tensors():
    with contextlib.redirect_stdout(io.StringIO()), record() as trace:
        runpy.run_path(str(find("retain-graph").path), run_name="__main__")
    assert leaf_names(trace)[:2] == ["x", "w"]
    assert output_names(trace)["SumBackward0"] == ["y"]
    with contextlib.redirect_stdout(io.StringIO()), record() as trace:
        runpy.run_path(str(find("mlp").path), run_name="__main__")
    assert leaf_names(trace)[:4] == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_a_library_calls_result_is_named_and_its_parts_are_not():
    lin = nn.Linear(2, 3)
    with record() as trace:
        h = lin(ag.ones(4, 2))   # F.linear: addmm(bias, x, weight.t())
        loss = nn.functional.cross_entropy(h, ag.tensor([0, 1, 2, 0]))
        loss.backward()
    outputs = output_names(trace)
    assert outputs["AddmmBackward0"] == ["h"] and outputs["TBackward0"] == [""]
    # cross_entropy makes log_softmax in a statement of its own (``logp = ...``: it might
    # be the value, until a later node of the call is), then returns nll_loss: that is
    # ``loss``, at once
    assert outputs["NllLossBackward0"] == ["loss"] and outputs["LogSoftmaxBackward0"] == [""]


def test_a_name_waiting_for_a_later_node_of_the_call_is_dropped_when_that_node_is_the_value():
    from agdebug.events import probe
    with record() as trace:
        loss = nn.functional.cross_entropy(ag.ones(4, 3, requires_grad=True),
                                           ag.tensor([0, 1, 2, 0]))
        loss.backward()   # (a backward names what still waits: here nothing may)
        logp = next(e.outputs[0].id for e in created(trace) if e.name == "LogSoftmaxBackward0")
        # (the probe's table: the name any later summary of that tensor would carry)
        assert probe._TENSOR_NAMES.get(logp, "") == ""
