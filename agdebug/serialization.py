"""``torch.save`` and ``torch.load`` for agdebug: tensors and the containers that hold them
(state dicts, optimizer states, checkpoints), stored as data, never as pickled code.

A file is a zip of ``data.json`` (the structure: dicts, lists, tuples, numbers, strings,
sizes, dtypes, devices) and one ``.npy`` array per tensor. Loading reads nothing but that
data (``allow_pickle=False``), so a file from anyone cannot run code, whatever
``weights_only`` says, and a damaged or hostile file is one ``RuntimeError`` line naming it.
A tensor saved twice (tied weights) loads as one tensor; a Parameter loads as a Parameter;
``requires_grad`` is kept.

A whole Module (``torch.save(model)``) is stored as data too: its class's name and its
attributes (parameters, buffers, submodules, numbers...), never its code. Loading rebuilds
it only from a class this process has already imported (agdebug never imports a module a
file names, and runs none of the class's code: no ``__init__``), and, as torch does for a
``weights_only`` load (the default), only from classes allowed with ``add_safe_globals`` or
``safe_globals``. Other Python objects are refused: save their data instead.

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
import pickle
import sys
import types
import zipfile

import numpy as np

from . import backend
from .backend import Device, dtype
from .creation import from_numpy
from .nn.modules.module import Module
from .nn.parameter import Parameter
from .tensor import Size, Tensor

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load",
           "safe_globals", "save"]

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
            decoder = _Decoder(archive, _device(map_location), weights_only is not False)
            return decoder.decode(header["object"], 0)
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
    if isinstance(obj, (list, tuple, set, frozenset)):
        kind = {tuple: "$tuple", list: "$list"}.get(type(obj), "$set")
        return {kind: [_encode(v, arrays, seen, depth + 1) for v in obj]}
    if isinstance(obj, Module):
        return _encode_module(obj, arrays, seen, depth)
    if isinstance(obj, types.FunctionType):
        return _encode_function(obj)
    raise TypeError(f"agdebug.save stores tensors, modules and containers of them (state "
                    f"dicts, optimizer states, checkpoints), not {type(obj).__name__}: save "
                    "its data instead")


def _encode_tensor(t: Tensor, arrays: list, seen: dict) -> dict:
    if id(t) not in seen:
        seen[id(t)] = len(arrays)
        arrays.append(backend.move_array(t.detach()._data, backend.CPU))
    return {"$tensor": seen[id(t)], "requires_grad": t.requires_grad,
            "parameter": isinstance(t, Parameter), "device": str(t.device)}


class _Decoder:
    """Rebuilds the saved object, reading each tensor's array once."""

    def __init__(self, archive: zipfile.ZipFile, device, weights_only: bool):
        self.archive, self.device, self.tensors = archive, device, {}
        self.weights_only = weights_only

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
        if kind in ("$list", "$tuple", "$set"):
            items = [self.decode(v, depth + 1) for v in _listed(payload)]
            return {"$list": list, "$tuple": tuple, "$set": set}[kind](items)
        if kind == "$function":   # agdebug's own functions only, as save stores them: a
            if not str(payload).startswith("agdebug."):   # file never names code to call
                raise ValueError(f"a function outside agdebug ({str(payload)[:60]!r})")
            return _find_global(payload, "function", self.weights_only)
        if "$module" in data:
            return self._module(data, depth)
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

    def _module(self, data: dict, depth: int) -> Module:
        cls = _find_global(data["$module"], "class", self.weights_only)
        state = {_attribute(name): self.decode(value, depth + 1)
                 for name, value in map(_pair, _listed(data.get("state")))}
        return _rebuilt_module(cls, state)

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


def _attribute(name) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a module attribute named {str(name)[:40]!r}")
    return name


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


_SAFE_GLOBALS: list = []   # the classes and functions a weights_only load may rebuild


def add_safe_globals(safe_globals) -> None:
    """Allow these Module classes (and functions they hold) in ``weights_only`` loads."""
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals() -> list:
    return list(_SAFE_GLOBALS)


def clear_safe_globals() -> None:
    del _SAFE_GLOBALS[:]


@contextlib.contextmanager
def safe_globals(safe_globals):
    """``add_safe_globals`` for the duration of the block."""
    before = list(_SAFE_GLOBALS)
    _SAFE_GLOBALS.extend(safe_globals)
    try:
        yield
    finally:
        _SAFE_GLOBALS[:] = before
# ------------------------------------------------------------------ whole modules, as data

def _encode_module(module: Module, arrays: list, seen: dict, depth: int) -> dict:
    """A Module as its class's name and its attributes' data; its code stays where it is."""
    state = [[name, _encode(value, arrays, seen, depth + 1)]
             for name, value in vars(module).items()]
    return {"$module": _global_name(type(module)), "state": state}


def _encode_function(function) -> dict:
    """A function a module holds (``activation = F.relu``): agdebug's own only, by name."""
    if not function.__module__.startswith("agdebug."):
        raise TypeError(f"agdebug.save stores no code: a module's attribute holds the "
                        f"function {function.__qualname__} of {function.__module__}")
    return {"$function": _global_name(function)}


def _global_name(obj) -> str:
    return f"{obj.__module__}:{obj.__qualname__}"


def _find_global(name, kind: str, weights_only: bool):
    """The class or function ``name`` names, found among the modules this process has
    imported (a file never makes agdebug import a module) and, for ``weights_only`` loads,
    allowed by ``add_safe_globals`` / ``safe_globals`` as torch requires."""
    if not isinstance(name, str) or ":" not in name:
        raise ValueError(f"a {kind} name that is not one")
    module_name, _, qualname = name.partition(":")
    found = sys.modules.get(module_name)
    for part in qualname.split(".") if found is not None else ():
        found = vars(found).get(part) if hasattr(found, "__dict__") else None
    if found is None:
        raise pickle.UnpicklingError(
            f"agdebug.load: the file names the {kind} {module_name}.{qualname}, which this "
            "process has not imported (agdebug imports nothing a file names: import it first)")
    if weights_only and not any(found is allowed for allowed in get_safe_globals()):
        raise pickle.UnpicklingError(
            f"Weights only load failed: {module_name}.{qualname} is not an allowed global; "
            "allow it with torch.serialization.add_safe_globals or safe_globals, or load "
            "with weights_only=False (for a file you trust)")
    return found


def _rebuilt_module(cls, state: dict) -> Module:
    """An instance of ``cls`` with ``state`` as its attributes, made without running any of
    its code (neither ``__init__`` nor ``__setattr__``)."""
    if not (isinstance(cls, type) and issubclass(cls, Module)):
        raise ValueError(f"{cls!r} is not a Module class")
    module = object.__new__(cls)
    vars(module).update(state)
    return module
