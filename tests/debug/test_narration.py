"""Narration: one plain sentence per event, on real traces of the demos."""

from __future__ import annotations

import contextlib
import io
import runpy

import pytest

from agdebug.debug import record
from agdebug.debug.narration import Narrator, caption, source_phrase
from agdebug.debug.recorder import load_trace
from agdebug.demos import find
from agdebug.events.records import EVENT_TYPES, Printed, describe
from tests.tui.helpers import TRACES


def demo_trace(name: str):
    """A demo run now, under the recorder (its printed output swallowed)."""
    with contextlib.redirect_stdout(io.StringIO()), record() as trace:
        runpy.run_path(str(find(name).path), run_name="__main__")
    return trace


def sentences(trace) -> dict:
    """kind -> the sentences of its events, in order."""
    narrator = Narrator(trace.events)
    out: dict = {}
    for i, e in enumerate(trace.events):
        out.setdefault(e.kind, []).append(narrator.sentence(i))
    return out


def committed(name: str):
    return load_trace(TRACES / f"{name}.agtrace")


def test_every_event_kind_has_a_sentence():
    examples = {}
    for path in sorted(TRACES.glob("*.agtrace")):
        trace = load_trace(path)
        narrator = Narrator(trace.events)
        for i, e in enumerate(trace.events):
            examples.setdefault(e.kind, (narrator, i))
    narrator = Narrator([Printed(seq=1, stream="stdout", text="hello\n")])
    examples.setdefault("printed", (narrator, 0))
    for kind in EVENT_TYPES:
        assert kind in examples, f"no example of {kind}: add one to this test"
        narrator, i = examples[kind]
        text = narrator.sentence(i)
        assert text and text != describe(narrator.events[i]), kind
        assert f"{kind} " not in text and "node=" not in text, text


def test_a_node_running_names_its_line_gradient_and_saved_tensors():
    trace = committed("retain-graph")
    mul = next(e for e in trace.events if e.kind == "node_created" and e.op == "mul")
    saved = " and ".join(f"`{s.name}`" for s in mul.saved)
    assert sentences(trace)["node_started"][1] == (
        f"MulBackward0 (`y = (x * w).sum()`, line 28) runs: it receives a gradient of shape [3] "
        f"and uses its saved {saved}")


def test_released_saved_tensors_say_why_and_how_much():
    trace = committed("retain-graph")
    released = next(e for e in trace.events if e.kind == "saved_released")
    names = " and ".join(f"`{n}`" for n in released.names)
    assert sentences(trace)["saved_released"][0] == (
        f"retain_graph=False, so MulBackward0 releases its saved {names} (24 B): a later "
        "backward through it would fail")


def test_the_second_backward_error_gives_torchs_whole_message(torch):
    trace = demo_trace("retain-graph")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError) as caught:
        y.backward()
    sentence = sentences(trace)["error"][0]
    assert sentence.startswith("MulBackward0 (`y = (x * w).sum()`, line 28) cannot run again: "
                               "an earlier backward released its saved ")
    assert sentence.endswith(f"and this backward needs them. RuntimeError: {caught.value}")


def test_an_error_not_after_a_release_says_where_it_happened(torch):
    trace = demo_trace("inplace")
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.exp()
    b.add_(1)
    with pytest.raises(RuntimeError) as caught:
        b.sum().backward()
    first = sentences(trace)["error"][0]
    assert first.startswith("ExpBackward0 (`b = a.exp()`, line 41) fails: RuntimeError: ")
    # Torch's message names the tensor and versions; both engines give the same words.
    assert first.endswith(str(caught.value))


def test_accumulate_grad_says_what_happened_to_dot_grad():
    said = sentences(committed("retain-graph"))["grad_accumulated"]
    assert said[0] == ("AccumulateGrad adds a gradient of shape [3] into x.grad (it was None, "
                       "so x.grad becomes this gradient)")
    assert said[3] == ("AccumulateGrad adds a gradient of shape [3] into w.grad (it already "
                       "held a gradient: gradients add up across backward calls, summed in "
                       "place)")


def test_create_graph_cycle_is_named_through_the_grad():
    said = sentences(committed("create-graph-cycle"))
    assert said["cycle_detected"] == [
        "backward(create_graph=True) forms a reference cycle: leaf x -> x.grad -> "
        "CopyBackwards -> MulBackward0 -> MulBackward1 -> PowBackward0 -> AccumulateGrad of "
        "leaf x -> leaf x. It keeps the graph alive until x.grad is set to None"]
    assert said["cycle_broken"] == ["The reference cycle through leaf x is broken (x.grad "
                                    "was set to None): its graph can be freed"]
    assert said["node_created"][3].startswith(
        "create_graph=True, so the backward itself records PowBackward0 for "
        "`y.backward(create_graph=True)`, line 40")


def test_backward_start_says_what_retain_graph_means():
    said = sentences(committed("retain-graph"))["backward_started"]
    assert said[0] == ("backward() starts at SumBackward0 (`y = (x * w).sum()`, line 28) with a "
                       "gradient of shape []; retain_graph=False, so each node frees its saved "
                       "tensors once it has run")
    assert said[2].endswith("retain_graph=True, so every node keeps its saved tensors")


def test_hooks_say_which_and_whether_they_replaced_the_gradient():
    said = sentences(committed("hooks"))["hook_called"]
    assert said[0] == ("A tensor hook `scale_by_ten` (Tensor.register_hook) runs on the "
                       "gradient of h, flowing into MulBackward0; it returns a new value, which "
                       "replaces the gradient")
    assert said[1].startswith("A pre-hook `<lambda>` (Node.register_prehook) runs before ")
    assert ("A tensor hook `<lambda>` (Tensor.register_hook) runs on the gradient of leaf x, "
            "before AccumulateGrad puts it in x.grad; it returns None, so the gradient is "
            "unchanged") in said


def test_a_gradient_autograd_grad_only_captures_is_not_run():
    said = sentences(committed("grad-vs-backward"))["node_started"]
    captured = [s for s in said if "does not run" in s]
    assert captured[0] == ("AccumulateGrad of leaf x does not run: autograd.grad() returns the "
                           "gradient of shape [3] arriving here as its result for this input")


def test_extending_a_narrator_says_the_same_as_building_it_at_once():
    events = committed("diamond").events
    whole = Narrator(events)
    live = Narrator()
    for k in range(0, len(events), 5):
        live.extend(events[k:k + 5])
    assert [live.sentence(i) for i in range(len(events))] == [
        whole.sentence(i) for i in range(len(events))]


def test_captions_are_the_sentences():
    timeline = committed("retain-graph").timeline()
    narrator = Narrator(timeline.events)
    assert caption(timeline, 0) == "(start)"
    assert [caption(timeline, s) for s in (1, 13, 25)] == [
        narrator.sentence(i) for i in (0, 12, 24)]


def test_program_text_is_kept_as_it_is():
    # Markup-like text is data: the sentence keeps it, whoever shows it escapes it.
    narrator = Narrator([Printed(seq=1, stream="stderr", text="[bold]x[/] \x1b[2J\n")])
    assert narrator.sentence(0) == "The program wrote to stderr: [bold]x[/] \x1b[2J"
    assert source_phrase("a.py:3: y = x[0]") == "`y = x[0]`, line 3"
    assert source_phrase("") == ""
    assert source_phrase("a.py:3: y = x.exp()  # saves result") == "`y = x.exp()`, line 3"
    assert source_phrase("a.py:3: s = '#' + f(x,") == "`s = '#' + f(x,`, line 3"
