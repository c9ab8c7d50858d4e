"""Trace lines decoded the quick way (a line of the recorder's own shape, built without
checking each field again) and the checked way give the same events; any other line takes
the checked way, with its errors."""

from __future__ import annotations

import json

import pytest

import agdebug as ag
from agdebug.events import json_shapes, records
from agdebug.events.encoding import to_json

from .scenarios import run


def _program():
    """Every kind of event a run of agdebug's engine makes: hooks, a retained graph, a
    cycle, an error, a GC pass."""
    import gc
    w = ag.nn.Linear(3, 2)
    x = ag.tensor([[1.0, -2.0, 0.5]], requires_grad=True)
    y = w(x).tanh()
    y.register_hook(lambda g: g * 2)
    loss = (y * y).sum()
    loss.backward(retain_graph=True)
    try:
        loss.backward()
        loss.backward()
    except RuntimeError:
        pass
    x.grad = None
    g, = ag.autograd.grad((x * x).sin().sum(), x, create_graph=True)
    x.grad = g
    x.grad = None
    print("printed")
    gc.collect()


def _lines(values: bool) -> list[str]:
    return [to_json(e) for e in run(_program, values=values).events]


def _quick_count(monkeypatch) -> list:
    taken = []
    usual = records._usual_line

    def spy(kind):
        shape, build = usual(kind)
        return shape, lambda data: taken.append(kind) or build(data)
    monkeypatch.setattr(records, "_usual_line", spy)
    return taken


@pytest.mark.parametrize("values", [False, True], ids=["summaries", "with values"])
def test_the_quick_and_the_checked_decoding_give_the_same_events(monkeypatch, values):
    lines = _lines(values)
    kinds = {json.loads(line)["kind"] for line in lines}
    assert len(kinds) >= 12
    taken = _quick_count(monkeypatch)
    for line in lines:
        assert records.event_from_json(line, json.loads(line)) == \
            records.event_from_dict(json.loads(line))
    assert len(taken) == len(lines)   # every line the recorder writes is the usual shape


def test_an_older_line_without_the_fields_added_since_is_read_alike(monkeypatch):
    """Fields with defaults (``thread``, ``source_path``, a saved tensor's ``version``) are
    left out of lines written before they were added."""
    taken = _quick_count(monkeypatch)
    for line in _lines(False):
        data = json.loads(line)
        for name in ("thread", "source_path", "module", "module_type"):
            data.pop(name, None)
        for saved in data.get("saved", ()):
            saved.pop("version", None)
        old = json.dumps(data, separators=(",", ":"))
        assert records.event_from_json(old, json.loads(old)) == records.event_from_dict(data)
    assert taken


_NODE_FREED = '{"kind":"node_freed","seq":4,"thread":0,"node":2,"by":"gc"}'
_SUMMARY = '{"id":1,"shape":[2],"dtype":"float32","device":"cpu","nbytes":8,"stats":%s,"name":%s}'
_GRAD_SET = '{"kind":"grad_set","seq":1,"thread":0,"tensor":1,"grad":%s,"grad_fn":0}'


@pytest.mark.parametrize("line", [
    _NODE_FREED.replace('"node":2', '"node":"2"'),                      # a string for an int
    _NODE_FREED.replace('"node":2', '"node":2.0'),                      # a float for an int
    _NODE_FREED.replace('"node":2', '"node":true'),                     # a bool for an int
    _NODE_FREED.replace('"node":2', '"node":12345678901234567890123'),  # past 64 bits
    _NODE_FREED.replace(',"by":"gc"', ''),                              # a field missing
    _NODE_FREED.replace('}', ',"extra":1}'),                            # a field too many
    _GRAD_SET % (_SUMMARY % ("null", '"\\u001b[31mred"')),              # no label: control
    _GRAD_SET % (_SUMMARY % ("null", '"' + "x" * 201 + '"')),           # no label: too long
    _GRAD_SET % (_SUMMARY % ('{"preview":[1.0],"min":1.0,"max":null,"mean":1.0,"norm":1.0,'
                             '"nan":0,"inf":0}', '""')),                 # statistics half given
])
def test_a_line_that_is_wrong_has_the_checked_ways_error(line):
    with pytest.raises(records.RecordError) as checked:
        records.event_from_dict(json.loads(line))
    with pytest.raises(records.RecordError) as quick:
        records.event_from_json(line, json.loads(line))
    assert str(quick.value) == str(checked.value)


def test_a_line_with_spaces_or_escapes_is_read_alike():
    spaced = _NODE_FREED.replace(",", ", ").replace(":", ": ")
    escaped = _NODE_FREED.replace('"gc"', '"g\\u0063"')
    for line in (spaced, escaped):
        assert records.event_from_json(line, json.loads(line)) == \
            records.event_from_dict(json.loads(_NODE_FREED))


def test_a_float_field_holding_an_integer_is_a_float():
    line = _GRAD_SET % (_SUMMARY % ('{"preview":[1],"min":1,"max":2,"mean":1.5,"norm":3,'
                                    '"nan":0,"inf":0}', '""'))
    event = records.event_from_json(line, json.loads(line))
    assert event == records.event_from_dict(json.loads(line))
    assert type(event.grad.stats.min) is float and type(event.grad.stats.preview[0]) is float


def test_every_event_kind_has_a_shape():
    for kind, cls in records.EVENT_TYPES.items():
        assert json_shapes.pattern(cls, kind=kind).startswith(r'\{"kind":"' + kind)
