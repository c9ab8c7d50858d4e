"""``torch.save`` and ``torch.load`` for agdebug: tensors and the containers that hold them
(state dicts, optimizer states, checkpoints), stored as data, never as pickled code.

A file is a zip of ``data.json`` (the structure: dicts, lists, tuples, numbers, strings,
sizes, dtypes, devices) and one ``.npy`` array per tensor. Loading reads nothing but that
data (``allow_pickle=False``), so a file from anyone cannot run code, whatever
``weights_only`` says, and a damaged or hostile file is one ``RuntimeError`` line naming it.
A tensor saved twice (tied weights) loads as one tensor; a Parameter loads as a Parameter;
``requires_grad`` is kept. Whole Python objects (a Module) are refused: save its
``state_dict()``.

>>> import io, agdebug as ag
>>> buffer = io.BytesIO()
>>> ag.save({"epoch": 3, "w": ag.ones(2)}, buffer)
>>> _ = buffer.seek(0)
>>> ag.load(buffer)
{'epoch': 3, 'w': tensor([1., 1.])}
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import zipfile

import numpy as np

from . import backend
from .backend import Device, dtype
from .creation import from_numpy
from .nn.parameter import Parameter
from .tensor import Size, Tensor

__all__ = ["add_safe_globals", "get_safe_globals", "load", "safe_globals", "save"]

FORMAT = "agdebug-save"
VERSION = 1
MAX_DEPTH = 200   # containers nested deeper than any checkpoint (bounds a hostile file)


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Write ``obj`` (tensors and containers of them) to the path or binary file ``f``."""
    arrays = []
    structure = _encode(obj, arrays, {}, 0)
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("data.json", json.dumps(
            {"format": FORMAT, "version": VERSION, "object": structure}))
        for i, array in enumerate(arrays):
            with archive.open(f"tensors/{i}.npy", "w") as member:
                np.save(member, array, allow_pickle=False)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read what ``save`` wrote; tensors go to ``map_location`` (a device or its name)."""
    name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "<file>")
    try:
        with zipfile.ZipFile(f) as archive:
            header = json.loads(archive.read("data.json"))
            if not isinstance(header, dict) or header.get("format") != FORMAT:
                raise ValueError("data.json is not agdebug's")
            if header.get("version") != VERSION:
                raise ValueError(f"format version {header.get('version')!r} (this agdebug "
                                 f"reads {VERSION})")
            return _Decoder(archive, _device(map_location)).decode(header["object"], 0)
    except (zipfile.BadZipFile, KeyError, ValueError, TypeError, RecursionError,
            OverflowError, EOFError) as error:
        raise RuntimeError(f"{name} is not a file agdebug.save wrote, or it is damaged "
                           f"({_reason(error)}); agdebug reads no pickles, so a PyTorch "
                           "checkpoint must be re-saved from torch as tensors") from None


def _reason(error) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:200]


def _device(map_location):
    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return None if map_location is None else _unsupported_location(map_location)
    return backend.as_device(map_location)


def _unsupported_location(map_location):
    raise TypeError(f"agdebug.load takes a device or its name as map_location, not "
                    f"{type(map_location).__name__}")


def _encode(obj, arrays: list, seen: dict, depth: int):
    """``obj`` as JSON data; tensors appended to ``arrays`` (each object once)."""
    if depth > MAX_DEPTH:
        raise ValueError(f"agdebug.save: containers nested deeper than {MAX_DEPTH}")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, Tensor):
        return _encode_tensor(obj, arrays, seen)
    if isinstance(obj, Size):
        return {"$size": list(obj)}
    if isinstance(obj, dtype):
        return {"$dtype": obj.name}
    if isinstance(obj, Device):
        return {"$device": str(obj)}
    if isinstance(obj, dict):
        items = [[_encode(k, arrays, seen, depth + 1), _encode(v, arrays, seen, depth + 1)]
                 for k, v in obj.items()]
        return {"$dict": items, "ordered": isinstance(obj, collections.OrderedDict)}
    if isinstance(obj, (list, tuple)):
        kind = "$tuple" if isinstance(obj, tuple) else "$list"
        return {kind: [_encode(v, arrays, seen, depth + 1) for v in obj]}
    raise TypeError(f"agdebug.save stores tensors and containers of them (state dicts, "
                    f"optimizer states, checkpoints), not {type(obj).__name__}: save "
                    "its state_dict() instead")


def _encode_tensor(t: Tensor, arrays: list, seen: dict) -> dict:
    if id(t) not in seen:
        seen[id(t)] = len(arrays)
        arrays.append(backend.move_array(t.detach()._data, backend.CPU))
    return {"$tensor": seen[id(t)], "requires_grad": t.requires_grad,
            "parameter": isinstance(t, Parameter), "device": str(t.device)}


class _Decoder:
    """Rebuilds the saved object, reading each tensor's array once."""

    def __init__(self, archive: zipfile.ZipFile, device):
        self.archive, self.device, self.tensors = archive, device, {}

    def decode(self, data, depth: int):
        if depth > MAX_DEPTH:
            raise ValueError(f"containers nested deeper than {MAX_DEPTH}")
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if not isinstance(data, dict):
            raise ValueError(f"unexpected {type(data).__name__} in data.json")
        if "$tensor" in data:
            return self._tensor(data)
        (kind, payload), = data.items() if len(data) == 1 else [(None, None)]
        if kind == "$list" or kind == "$tuple":
            items = [self.decode(v, depth + 1) for v in _listed(payload)]
            return items if kind == "$list" else tuple(items)
        if kind == "$size":
            return Size(_integer(n) for n in _listed(payload))
        if kind == "$dtype":
            return _dtype_named(payload)
        if kind == "$device":
            return backend.as_device(str(payload))
        if "$dict" in data:
            pairs = [(self.decode(k, depth + 1), self.decode(v, depth + 1))
                     for k, v in map(_pair, _listed(data["$dict"]))]
            return collections.OrderedDict(pairs) if data.get("ordered") else dict(pairs)
        raise ValueError(f"unknown entry {sorted(data)[:3]} in data.json")

    def _tensor(self, data: dict) -> Tensor:
        index = _integer(data["$tensor"])
        if index not in self.tensors:
            self.tensors[index] = self._read(index, data)
        return self.tensors[index]

    def _read(self, index: int, data: dict) -> Tensor:
        member = f"tensors/{index}.npy"
        with self.archive.open(member) as stream:
            array = _read_array(stream, self.archive.getinfo(member).file_size)
        t = from_numpy(array)
        device = self.device or backend.as_device(data.get("device", "cpu"))
        if device.type != "cpu":
            t = t.to(device)
        if data.get("parameter"):
            return Parameter(t, requires_grad=bool(data.get("requires_grad")))
        return t.requires_grad_(True) if data.get("requires_grad") else t


def _listed(payload) -> list:
    if not isinstance(payload, list):
        raise ValueError(f"a {type(payload).__name__} where a list belongs")
    return payload


def _pair(item) -> list:
    if len(_listed(item)) != 2:
        raise ValueError("a dict entry that is not a key and a value")
    return item


def _integer(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"a {type(value).__name__} where an integer belongs")
    return value


def _dtype_named(name) -> dtype:
    found = getattr(backend, name, None) if isinstance(name, str) and name.isidentifier() \
        else None
    if not isinstance(found, dtype):
        raise ValueError(f"unknown dtype {str(name)[:40]!r}")
    return found


def _read_array(stream, size: int) -> np.ndarray:
    """An ``.npy`` member whose header must agree with its size (a header claiming a huge
    shape cannot make the loader allocate it)."""
    version = np.lib.format.read_magic(stream)
    read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}.get(version)
    if read_header is None:
        raise ValueError(f"npy version {version}")
    shape, fortran, kind = read_header(stream)
    if kind.hasobject:
        raise ValueError("an array of Python objects")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    body = stream.read(size)
    if count * kind.itemsize != len(body):
        raise ValueError(f"an array of shape {shape} with {len(body)} bytes")
    array = np.frombuffer(body, dtype=kind).reshape(shape, order="F" if fortran else "C")
    return array.copy()   # writable, owning its memory


def add_safe_globals(safe_globals) -> None:
    """Accepted for torch scripts: agdebug unpickles nothing, so there is nothing to allow."""


def get_safe_globals() -> list:
    return []


@contextlib.contextmanager
def safe_globals(safe_globals):
    """Accepted for torch scripts (see ``add_safe_globals``)."""
    yield
