"""Removable hook handles, shared by tensor hooks and node hooks."""

from __future__ import annotations

import itertools

_next_handle_id = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook.

    >>> import agdebug as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 2)
    >>> h.remove()
    """

    __slots__ = ("_hooks", "id")

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self.id = next(_next_handle_id)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks: dict, fn) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle
