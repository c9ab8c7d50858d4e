"""Trace files are untrusted input: each corruption of a real recording gets one line naming
the file and line (from the loader, ``agdebug export`` in every format and ``agdebug replay``'s
loading step), or loads cleanly where the data is merely odd; never a traceback, a hang or
gigabytes."""

from __future__ import annotations

import json

import pytest

import agdebug as ag
from agdebug.cli import main
from agdebug.debug import TraceError, load_trace, record
from agdebug.debug.state import Timeline
from agdebug.events.records import BufferAccumulated

FORMATS = ("dot", "svg", "png", "html", "gif")


@pytest.fixture
def recorded(tmp_path):
    """A real recording's header line and events (as dicts), to corrupt."""
    path = tmp_path / "real.agtrace"
    with record(path, values=True):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        (x.exp() * x).sum().backward()
    header, *lines = path.read_text().splitlines()
    return header, [json.loads(line) for line in lines]


def _write(tmp_path, header: str, events: list, name: str = "bad.agtrace"):
    path = tmp_path / name
    path.write_text(header + "\n" + "".join(json.dumps(e) + "\n" for e in events))
    return path


def _index(events: list, kind: str) -> int:
    return next(i for i, e in enumerate(events) if e["kind"] == kind)


def _renumbered(events: list) -> list:
    return [dict(e, seq=i) for i, e in enumerate(events, 1)]


def _refused(path, line: int, *words: str) -> str:
    """The loader's error: one line, naming the file and ``line``."""
    with pytest.raises(TraceError) as info:
        load_trace(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}:{line}: ")
    assert all(w in message for w in words), message
    return message


def _export_refuses(path, tmp_path, capsys, message: str) -> None:
    for fmt in FORMATS:
        out = tmp_path / f"out.{fmt}"
        assert main(["export", str(path), "--format", fmt, "-o", str(out)]) == 2
        assert capsys.readouterr().err.splitlines() == [f"agdebug: {message}"]
        assert not out.exists()


def _replay_refuses(path, message: str) -> None:
    """``agdebug replay``'s loading step, as its app runs it (it exits 2 with this line)."""
    pytest.importorskip("textual")
    from agdebug_tui import AgDebugApp

    from ..tui.helpers import run, until

    async def go():
        app = AgDebugApp(trace_path=path)
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.error)
        assert app.return_code == 2 and app.error == message
    run(go())


def _corrupt(recorded, kind: str, **changes) -> list:
    events = [dict(e) for e in recorded[1]]
    events[_index(events, kind)].update(changes)
    return events


# ----------------------------------------------------------------------------- JSON itself

def test_json_nested_100000_levels(recorded, tmp_path, capsys):
    header, events = recorded
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.agtrace"
    path.write_text(header + "\n" + json.dumps(events[0]) + "\n"
                    + json.dumps(events[1])[:-1] + f', "x": {deep}}}\n')
    message = _refused(path, 3, "nested too deeply")
    _export_refuses(path, tmp_path, capsys, message)
    _replay_refuses(path, message)


def test_deep_header_is_not_a_trace(recorded, tmp_path):
    path = tmp_path / "deep.agtrace"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    _refused(path, 1, "not an agdebug trace")


def test_integer_of_5000_digits(recorded, tmp_path, capsys):
    header, events = recorded
    line = json.dumps(dict(events[0], seq=0)).replace('"seq": 0', '"seq": ' + "7" * 5000)
    path = tmp_path / "digits.agtrace"
    path.write_text(header + "\n" + line + "\n")
    message = _refused(path, 2, "invalid JSON", "integer too long")
    _export_refuses(path, tmp_path, capsys, message)


def test_integer_past_64_bits(recorded, tmp_path):
    path = _write(tmp_path, recorded[0], _corrupt(recorded, "node_freed", node=10 ** 400))
    _refused(path, len(recorded[1]) - 2, "node_freed.node", "out of range")


def test_utf8_bom_in_front_is_accepted(recorded, tmp_path):
    path = _write(tmp_path, recorded[0], recorded[1])
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert [e.to_dict() for e in load_trace(path).events] == recorded[1]


# ----------------------------------------------------------------------------- references

@pytest.mark.parametrize("slot", [-1, 1, 300_000_000])
def test_slot_out_of_range(recorded, tmp_path, capsys, slot):
    events = _corrupt(recorded, "buffer_accumulated", slot=slot)
    path = _write(tmp_path, recorded[0], events)
    line = _index(events, "buffer_accumulated") + 2
    message = _refused(path, line, f"slot {slot}", "1 slot")
    _export_refuses(path, tmp_path, capsys, message)
    _replay_refuses(path, message)


def test_graph_state_ignores_a_slot_out_of_range(recorded):
    """Events made in memory never pass the loader: the reducer itself stays bounded."""
    events = load_trace_events(recorded)
    at = next(i for i, e in enumerate(events) if e.kind == "buffer_accumulated")
    for slot in (-1, 300_000_000):
        bad = events[:at] + [BufferAccumulated(events[at].seq, events[at].node, slot, 0, None,
                                               1, 0)] + events[at + 1:]
        state = Timeline(bad).state(at + 1)
        assert len(state.nodes[events[at].node].buffer) == 0


def load_trace_events(recorded):
    from agdebug.events.records import event_from_dict
    return [event_from_dict(e) for e in recorded[1]]


@pytest.mark.parametrize("kind", ["node_started", "node_finished", "buffer_accumulated"])
def test_node_never_created(recorded, tmp_path, capsys, kind):
    events = _corrupt(recorded, kind, node=999)
    path = _write(tmp_path, recorded[0], events)
    message = _refused(path, _index(events, kind) + 2, "n999", "no earlier event")
    _export_refuses(path, tmp_path, capsys, message)


def test_edge_to_a_missing_output(recorded, tmp_path):
    events = [dict(e) for e in recorded[1]]
    exp = next(i for i, e in enumerate(events) if e.get("name") == "ExpBackward0")
    mul = next(i for i, e in enumerate(events) if e.get("name") == "MulBackward0")
    events[mul]["edges"] = [[events[exp]["node"], 5], events[mul]["edges"][1]]
    _refused(_write(tmp_path, recorded[0], events), mul + 2, "output 5", "1 output")


def test_self_edge_and_two_cycle(recorded, tmp_path, capsys):
    events = [dict(e) for e in recorded[1]]
    mul = next(i for i, e in enumerate(events) if e.get("name") == "MulBackward0")
    events[mul]["edges"] = [[events[mul]["node"], 0]]
    path = _write(tmp_path, recorded[0], events)
    message = _refused(path, mul + 2, "edge to itself")
    _export_refuses(path, tmp_path, capsys, message)
    events = [dict(e) for e in recorded[1]]
    acc, exp = 0, next(i for i, e in enumerate(events) if e.get("name") == "ExpBackward0")
    events[acc]["edges"] = [[events[exp]["node"], 0]]   # while exp's edge points at acc
    _refused(_write(tmp_path, recorded[0], events), exp + 2, "edges to each other")


def test_unknown_tensor_and_node_references_load(recorded, tmp_path, capsys):
    """Odd but harmless: a leaf or freed node the recording never saw (made before it)."""
    events = _corrupt(recorded, "grad_accumulated", tensor=777)
    events = [dict(e) for e in events]
    events[_index(events, "node_freed")]["node"] = 888
    path = _write(tmp_path, recorded[0], events)
    state = load_trace(path).state()
    assert 777 in state.leaves and 888 not in state.nodes
    for fmt in FORMATS:
        assert main(["export", str(path), "--format", fmt, "-o", str(tmp_path / "o")]) == 0
    capsys.readouterr()


# ----------------------------------------------------------------------------- order

def test_duplicate_sequence_numbers(recorded, tmp_path, capsys):
    events = [dict(e) for e in recorded[1]]
    events[5]["seq"] = events[4]["seq"]
    path = _write(tmp_path, recorded[0], events)
    message = _refused(path, 7, f"sequence number {events[4]['seq']}")
    _export_refuses(path, tmp_path, capsys, message)


def test_backward_finished_before_backward_started(recorded, tmp_path, capsys):
    events = [dict(e) for e in recorded[1]]
    finished = events.pop(_index(events, "backward_finished"))
    events = _renumbered([finished] + events)
    path = _write(tmp_path, recorded[0], events)
    message = _refused(path, 2, "backward_finished without a backward running")
    _export_refuses(path, tmp_path, capsys, message)
    _replay_refuses(path, message)


def test_backward_events_before_their_nodes(recorded, tmp_path, capsys):
    events = [dict(e) for e in recorded[1]]
    start = _index(events, "backward_started")
    events = _renumbered(events[start:] + events[:start])   # the whole backward first
    path = _write(tmp_path, recorded[0], events)
    first = _index(events, "node_created")
    message = _refused(path, first + 2, "node_created of node", "created or planned")
    _export_refuses(path, tmp_path, capsys, message)
    events = [dict(e) for e in recorded[1]]
    started = events.pop(_index(events, "node_started"))
    events = _renumbered([events[0], started] + events[1:])
    _refused(_write(tmp_path, recorded[0], events), 3, "node_started without a backward")


def test_export_html_and_gif_when_no_backward_finishes_after_one_starts(recorded, tmp_path):
    """In memory (a recording begun inside a backward): the frames are the last step."""
    from agdebug.render.export import export
    events = load_trace_events(recorded)
    finished = next(i for i, e in enumerate(events) if e.kind == "backward_finished")
    timeline = Timeline([events[finished]] + events[:finished])
    for fmt in ("html", "gif"):
        assert export(timeline, fmt, tmp_path / f"o.{fmt}") == [tmp_path / f"o.{fmt}"]


# ----------------------------------------------------------------------------- values

def test_stats_with_null_fields(recorded, tmp_path, capsys):
    events = [dict(e) for e in recorded[1]]
    at = _index(events, "buffer_accumulated")
    grad = dict(events[at]["grad"])
    grad["stats"] = dict(grad["stats"], max=None, mean=None)
    events[at] = dict(events[at], grad=grad)
    path = _write(tmp_path, recorded[0], events)
    message = _refused(path, at + 2, "buffer_accumulated.grad.stats", "all null")
    _export_refuses(path, tmp_path, capsys, message)
    _replay_refuses(path, message)


def test_export_step_past_the_end(recorded, tmp_path, capsys):
    path = _write(tmp_path, recorded[0], recorded[1], "good.agtrace")
    count = len(recorded[1])
    for fmt in FORMATS:
        for step in (999, -1):
            assert main(["export", str(path), "--format", fmt, "--step", str(step),
                         "-o", str(tmp_path / f"o.{fmt}")]) == 2
            assert capsys.readouterr().err.splitlines() == [
                f"agdebug: --step {step} is out of range: {path} has steps 0 to {count}"]
