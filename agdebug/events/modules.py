"""Which ``nn.Module`` call is in progress on this thread: the path ``NodeCreated`` carries.

Module calls (agdebug's ``Module.__call__`` while watching, torch's global forward hooks
for the watcher) ``enter`` and ``leave``; the probe asks ``current()`` for the innermost
call's dotted path, named as ``named_modules()`` names it under the outermost module being
called (``"layers.0.self_attn"``; the outermost itself is ``""``), and its class name.
Modules are read duck-typed (``_modules``), so this layer imports nothing above it. Only
the stack holds modules, and only while their call runs: events get strings.

>>> class M:
...     def __init__(self, **children):
...         self._modules = children
>>> inner = M()
>>> outer = M(block=M(fc=inner))
>>> enter(outer); enter(outer._modules["block"]); enter(inner)
>>> current()
('block.fc', 'M')
>>> leave(inner); leave(outer._modules["block"]); leave(outer)
>>> current()
('', '')
"""

from __future__ import annotations

import threading

__all__ = ["current", "enter", "leave"]


class _Calls(threading.local):
    def __init__(self):
        self.stack: list = []            # [module, path] per call in progress, outermost first
        self.names: dict | None = None   # id(module) -> path under the outermost, when asked


_CALLS = _Calls()


def enter(module) -> None:
    """A call of ``module`` began on this thread."""
    stack = _CALLS.stack
    if not stack:
        _CALLS.names = None
        stack.append((module, ""))
        return
    parent, path = stack[-1]
    stack.append((module, _child_path(parent, path, module)))


def leave(module) -> None:
    """The call of ``module`` ended (returned or raised): it and any call it left open."""
    stack = _CALLS.stack
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] is module:
            del stack[i:]
            return


def current() -> tuple[str, str]:
    """``(path, class name)`` of the innermost module call, ``("", "")`` outside any."""
    stack = _CALLS.stack
    if not stack:
        return "", ""
    module, path = stack[-1]
    return path, type(module).__name__


def _child_path(parent, path: str, module) -> str:
    """``module``'s path: its name among the caller's children (the usual case, a short
    scan), else among all the outermost module's, else the caller's path."""
    for name, child in (getattr(parent, "_modules", None) or {}).items():
        if child is module:
            return f"{path}.{name}" if path else name
    names = _CALLS.names
    if names is None:
        names = _CALLS.names = _all_names(_CALLS.stack[0][0])
    return names.get(id(module), path)


def _all_names(root) -> dict:
    """id -> dotted path of every module under ``root``, first name first (as
    ``named_modules`` dedups), walked without recursion. Ids are valid while the
    outermost call runs: every module named is held by ``root``."""
    names: dict = {}
    todo = [("", root)]
    while todo:
        prefix, module = todo.pop()
        if id(module) in names:
            continue
        names[id(module)] = prefix
        children = list((getattr(module, "_modules", None) or {}).items())
        for name, child in reversed(children):
            if child is not None:
                todo.append((f"{prefix}.{name}" if prefix else name, child))
    return names
