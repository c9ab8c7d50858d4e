"""Trace files: round trips, streaming, and one-line errors for bad files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import agdebug as ag
from agdebug.debug import Trace, TraceError, load_trace, record
from agdebug.debug.recorder import FORMAT_VERSION


def _trace(tmp_path, values=False):
    path = tmp_path / "t.agtrace"
    with record(path, values=values) as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        (x.exp() * x).sum().backward()
    return path, trace


def test_round_trip(tmp_path):
    path, trace = _trace(tmp_path, values=True)
    loaded = load_trace(path)
    assert loaded.events == trace.events
    head = json.loads(path.read_text().splitlines()[0])
    assert head["format"] == "agdebug-trace" and head["version"] == FORMAT_VERSION
    assert all('"kind"' in line for line in path.read_text().splitlines()[1:])
    again = tmp_path / "again.agtrace"
    loaded.save(again)
    assert again.read_bytes() == path.read_bytes()


def _error(path) -> str:
    with pytest.raises(TraceError) as info:
        load_trace(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def test_truncated_file(tmp_path):
    path, _ = _trace(tmp_path)
    text = path.read_text()
    path.write_text(text[:-15])
    lines = text.count("\n")
    assert f":{lines}: truncated" in _error(path)


def test_corrupted_line(tmp_path):
    path, _ = _trace(tmp_path)
    lines = path.read_text().splitlines()
    lines[3] = "#" + lines[3][1:]
    path.write_text("\n".join(lines) + "\n")
    assert ":4: corrupted" in _error(path)


def test_wrong_field_type(tmp_path):
    path, _ = _trace(tmp_path)
    lines = path.read_text().splitlines()
    event = json.loads(lines[2])
    event["node"] = "seven"
    lines[2] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    message = _error(path)
    assert ":3: invalid event" in message and "node" in message


def test_unknown_kind_and_foreign_and_binary(tmp_path):
    path, _ = _trace(tmp_path)
    lines = path.read_text().splitlines()
    lines[1] = '{"kind": "teleported", "seq": 1}'
    path.write_text("\n".join(lines) + "\n")
    assert "unknown event kind" in _error(path)
    foreign = tmp_path / "notes.txt"
    foreign.write_text("hello\nworld\n")
    assert ":1: not an agdebug trace" in _error(foreign)
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x89PNG\r\n\xff\xfe")
    assert "blob.bin" in _error(binary)


def test_newer_format_version(tmp_path):
    path, _ = _trace(tmp_path)
    lines = path.read_text().splitlines()
    lines[0] = json.dumps({"format": "agdebug-trace", "version": FORMAT_VERSION + 1,
                           "agdebug": "9.0"})
    path.write_text("\n".join(lines) + "\n")
    assert "newer" in _error(path)


def test_killed_script_leaves_valid_trace(tmp_path):
    path = tmp_path / "killed.agtrace"
    code = ("import os, agdebug as ag\nfrom agdebug.debug import record\n"
            f"with record({str(path)!r}):\n"
            "    x = ag.tensor([1.0], requires_grad=True)\n"
            "    (x * x).sum().backward()\n"
            "    os._exit(3)\n")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 3
    trace = load_trace(path)
    assert "backward_finished" in [e.kind for e in trace.events]


def test_trace_object_api():
    trace = Trace()
    assert len(trace) == 0 and trace.state().nodes == {}
