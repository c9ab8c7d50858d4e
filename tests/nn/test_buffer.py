"""nn.Buffer against torch: its attributes and repr, isinstance, registration when assigned to a
Module (persistent or not, replacing a buffer, a plain tensor keeping the buffer's setting),
storage shared with its data, deepcopy and pickle, and torch's errors."""

from __future__ import annotations

import copy
import pickle

import pytest

import agdebug as ag


def _made(lib):
    b = lib.nn.Buffer(lib.ones(2), persistent=False)
    return (repr(b), b.persistent, b._is_buffer, isinstance(b, lib.nn.Buffer),
            isinstance(lib.ones(1), lib.nn.Buffer), repr(lib.nn.Buffer()),
            isinstance(lib.nn.Buffer(), lib.nn.parameter.Buffer))


def _registered(lib):
    b = lib.nn.Buffer(lib.ones(2), persistent=False)
    m = lib.nn.Module()
    m.a, m.b = lib.nn.Buffer(lib.ones(2)), b
    seen = [list(m.state_dict()), [n for n, _ in m.named_buffers()], m.b is b,
            sorted(m._non_persistent_buffers_set)]
    m.b = lib.nn.Buffer(lib.zeros(2))                      # a Buffer brings its own setting
    seen.append(sorted(m._non_persistent_buffers_set))
    m.b = lib.nn.Buffer(lib.zeros(2), persistent=False)
    m.b = lib.zeros(3)                                     # a plain tensor keeps the buffer's
    seen.append((sorted(m._non_persistent_buffers_set), list(m.state_dict())))
    lin = lib.nn.Linear(1, 1)
    lin.extra = lib.nn.Buffer(lib.ones(1))
    return seen + [list(lin.state_dict()), [n for n, _ in copy.deepcopy(lin).named_buffers()]]


def _data(lib):
    x = lib.ones(2, requires_grad=True)
    c = lib.nn.Buffer(x * 2)                               # detached, keeping requires_grad
    v = lib.ones(2)
    w = lib.nn.Buffer(v)
    w.add_(1)                                              # the same storage and version
    return c.requires_grad, c.is_leaf, c.grad_fn, v.tolist(), w._version, v._version


def _copies(lib):
    b = lib.nn.Buffer(lib.arange(3.0), persistent=False)
    d, e = copy.deepcopy(b), pickle.loads(pickle.dumps(b))
    return [(t.__dict__, repr(t), isinstance(t, lib.nn.Buffer)) for t in (d, e)]


@pytest.mark.parametrize("check", [_made, _registered, _data, _copies])
def test_buffer_as_torch(torch, check):
    assert check(ag) == check(torch)


def _errors(lib):
    seen = []
    m = lib.nn.Module()
    m.x = 1
    m.p = lib.nn.Parameter(lib.ones(1))
    m.s = lib.nn.Linear(1, 1)
    for name in "xps":
        with pytest.raises((KeyError, TypeError)) as caught:
            setattr(m, name, lib.nn.Buffer(lib.ones(1)))
        seen.append((caught.type, str(caught.value)))
    with pytest.raises(TypeError) as caught:
        lib.nn.Buffer(lib.ones(1), False)
    return seen + [str(caught.value)]


def test_buffer_errors_as_torch(torch):
    assert _errors(ag) == _errors(torch)


def test_a_buffer_before_module_init_refuses_as_torch(torch):
    def assign(lib):
        class Early(lib.nn.Module):
            def __init__(self):
                self.b = lib.nn.Buffer(lib.ones(1))
        with pytest.raises(AttributeError) as caught:
            Early()
        return str(caught.value)
    assert assign(ag) == assign(torch)


def test_a_buffer_is_an_agdebug_tensor_of_its_own_type():
    """What differs from torch: type(b) is Buffer (torch: Tensor); ops on it give Tensors."""
    b = ag.nn.Buffer(ag.ones(2))
    assert type(b) is ag.nn.Buffer and isinstance(b, ag.Tensor)
    assert type(b * 2) is ag.Tensor and type(b.detach()) is ag.Tensor
