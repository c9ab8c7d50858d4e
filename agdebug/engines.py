"""The two engines a script can run on: real PyTorch, watched, or agdebug's own.

On agdebug's engine a script's ``import torch`` gets agdebug: inside ``torch_on_agdebug()``
``torch`` and its packages that agdebug mirrors (``torch.nn``, ``torch.nn.functional``,
``torch.optim``, ``torch.autograd``, ``torch.linalg``, ``torch.cuda``, ``torch.utils.data``,
``torch.distributions`` and their submodules that agdebug has) resolve to agdebug's modules,
so a classroom without PyTorch can run and watch an unmodified torch script. A torch name
agdebug lacks fails with one line that names it, as an ``ImportError`` or ``AttributeError``
(so ``hasattr`` and ``try: import`` still work). Whatever ``torch`` the process had before is
back when the block ends.

>>> with torch_on_agdebug():
...     import torch
...     x = torch.ones(2, requires_grad=True)
...     (x * x).sum().backward()
>>> type(x).__module__, x.grad.tolist()
('agdebug.tensor', [2.0, 2.0])
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
from contextlib import contextmanager

from . import gaps
from .watch import watching

__all__ = ["engine_context", "torch_on_agdebug"]

# torch's packages that agdebug mirrors; torch.<package>.<sub> maps to agdebug.<package>.<sub>
# where agdebug has it. Anything else under ``torch`` is refused by name.
MIRRORED = ("nn", "optim", "autograd", "linalg", "cuda", "utils", "distributions",
            "serialization", "accelerator", "amp", "backends", "distributed", "onnx", "special")
ADVICE = "run the script with --engine torch to use PyTorch"
_MISSING = object()


def engine_context(engine: str):
    """What a script runs inside on ``engine``: real torch watched for "torch", else
    agdebug's engine under the name ``torch``."""
    return watching() if engine == "torch" else torch_on_agdebug()


@contextmanager
def torch_on_agdebug():
    """Inside the block, ``import torch`` (and its mirrored submodules) give agdebug."""
    saved = {name: sys.modules.pop(name) for name in list(sys.modules) if _is_torch(name)}
    finder = _TorchFinder()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [name for name in sys.modules if _is_torch(name)]:
            del sys.modules[name]
        sys.modules.update(saved)


def _is_torch(name: str) -> bool:
    return name == "torch" or name.startswith("torch.")


def agdebug_name(torch_name: str) -> str | None:
    """The agdebug module that stands for ``torch_name``, or None where agdebug has none."""
    if torch_name == "torch":
        return "agdebug"
    parts = torch_name.split(".")
    if parts[1] not in MIRRORED:
        return None
    name = ".".join(["agdebug", *parts[1:]])
    try:
        return name if importlib.util.find_spec(name) is not None else None
    except ModuleNotFoundError:   # a parent that is a module, not a package
        return None


class _TorchFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and its submodules among agdebug's modules."""

    def find_spec(self, fullname, path=None, target=None):
        if not _is_torch(fullname):
            return None
        if agdebug_name(fullname) is None:
            raise ModuleNotFoundError(
                f"No module named '{fullname}': agdebug's engine does not have it ({ADVICE})",
                name=fullname)
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        return TorchAlias(spec.name, importlib.import_module(agdebug_name(spec.name)))

    def exec_module(self, module):
        pass   # the agdebug module it stands for is already imported


class TorchAlias(types.ModuleType):
    """A torch module name standing for an agdebug module: its attributes are the agdebug
    module's, its mirrored submodules are aliases too, and a missing name says so."""

    def __init__(self, torch_name: str, module: types.ModuleType):
        super().__init__(torch_name, module.__doc__)
        self.__dict__["_agdebug_module"] = module

    def __getattr__(self, name: str):
        module = self.__dict__["_agdebug_module"]
        value = getattr(module, name, _MISSING)
        submodule = isinstance(value, types.ModuleType) and \
            value.__name__ == f"{module.__name__}.{name}"
        if submodule and agdebug_name(f"{self.__name__}.{name}") is not None:
            return importlib.import_module(f"{self.__name__}.{name}")   # its alias
        if value is _MISSING or submodule:   # (agdebug's own modules are not torch's)
            said = gaps.refusal(self.__name__.partition(".")[2], name) \
                or f"agdebug's engine does not have {self.__name__}.{name}"
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}': "
                                 f"{said}; {ADVICE}", name=name)
        return value

    def __dir__(self):
        return sorted(set(dir(self.__dict__["_agdebug_module"])) | set(self.__dict__))

