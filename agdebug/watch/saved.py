"""Saved tensors: a ``saved_tensors_hooks`` pair whose packed object dies when torch
releases the saved variable.

``pack`` returns a ``Holder`` that keeps the tensor itself (no copy: the numbers and the
memory stay those of an unwatched run); ``unpack`` returns it. The holder's death is the
release. A tensor saved by the node that made it (a saved output) is kept detached, as
torch itself keeps it: the tensor's ``grad_fn`` is that node, and holding it would make a
cycle through C++ that nothing frees. A program's own ``saved_tensors_hooks`` still apply
(torch applies only the innermost pair, so the watcher wraps the program's pair): the
program's ``pack`` sees the tensor, the holder keeps what it returned, and its ``unpack``
gets that back, as without the watcher.
"""

from __future__ import annotations

import itertools
import weakref
from types import SimpleNamespace

from ..events import probe
from ..graph.saved import version_error_text
from ..events import records as r
from ..events.bus import WATCH
from .state import LOCAL, STATE
from .tensors import dtype_name, tensor_id

__all__ = ["Holder", "named", "naming_end", "naming_start", "pack", "unpack",
           "wrap_program_hooks"]

_serials = itertools.count(1)


class Holder:
    """A saved tensor as packed (``value``), with what its release event will say."""

    __slots__ = ("__weakref__", "dtype", "nbytes", "origin", "serial", "shape", "tensor",
                 "unpack", "value", "version")

    def __init__(self, t, value, unpack_hook):
        self.value = value
        self.unpack = unpack_hook   # the program's unpack hook, or None
        self.tensor = tensor_id(t)
        self.shape = tuple(t.shape)
        self.dtype = dtype_name(t.dtype)
        self.nbytes = t.nbytes
        self.serial = 0
        self.version, self.origin = t._version, None   # (see ``unpack``)


class _HolderRef(weakref.ref):
    __slots__ = ("name", "nbytes", "node", "serial")


def _keep(t, value, unpack_hook) -> Holder:
    holder = Holder(t, value, unpack_hook)
    serial = next(_serials)
    ref = STATE.saved_refs[serial] = _HolderRef(holder, _released)
    ref.serial, ref.node, ref.name, ref.nbytes = serial, 0, "", holder.nbytes
    holder.serial = serial
    return holder


def pack(t):
    """The watcher's pack hook."""
    from .nodes import tag_of
    fn = t.grad_fn
    # A grad_fn not yet seen is the node being made: ``t`` is its output (see above).
    output = fn is not None and tag_of(fn) is None
    holder = _keep(t, t.detach() if output else t, None)
    if output:
        holder.origin = (t.output_nr, fn.name())
    return holder


def unpack(holder):
    if LOCAL.naming:   # the watcher reads a saved field to name it: the program sees nothing
        LOCAL.unpacked.append(holder)
        if holder.unpack is not None:
            return _placeholder()
    value = holder.value
    if holder.unpack is not None:
        return holder.unpack(value)
    if value._version != holder.version and not LOCAL.naming:
        # torch checks a saved tensor's version when it unpacks it, but not under
        # saved_tensors_hooks: the watcher's pair would let a changed tensor through (and
        # the gradient be wrong), so it checks as torch's own unpacking does, in its words.
        raise RuntimeError(_version_error(holder, value))
    return value


def _version_error(holder, value) -> str:
    import torch
    fn = value.grad_fn
    origin = holder.origin or ((value.output_nr, fn.name()) if fn is not None else None)
    return version_error_text(value.type(), tuple(value.shape), origin, value._version,
                              holder.version, torch.is_anomaly_enabled())


def _placeholder():
    import torch
    return torch.empty(0)   # (what torch gets while naming: the value is not looked at)


def naming_start() -> None:
    """Holders unpacked from now until ``naming_end`` are named (see ``nodes.saved_of``)."""
    LOCAL.unpacked.clear()
    LOCAL.busy += 1
    LOCAL.naming = True


def named(node: int, name: str) -> list | tuple:
    """Tie the holders unpacked since ``naming_start`` (or the last call) to saved field
    ``name`` of ``node``."""
    unpacked = LOCAL.unpacked
    if not unpacked:
        return ()
    holders: list = []
    for holder in unpacked:
        ref = STATE.saved_refs.get(holder.serial)
        if ref is not None and all(h is not holder for h in holders):
            ref.node, ref.name = node, name
            holders.append(holder)
    unpacked.clear()   # (holding a holder would hold its tensor)
    return holders


def naming_end() -> None:
    LOCAL.busy -= 1
    LOCAL.naming = False
    LOCAL.unpacked.clear()


def _released(ref: _HolderRef) -> None:
    STATE.saved_refs.pop(ref.serial, None)
    run = LOCAL.runs[-1] if LOCAL.runs else None
    # Only a release right after its node ran is an event (agdebug's saved_released); a
    # holder that dies with its node (the graph was dropped) is part of node_freed.
    if run is not None and run.finishing is not None and run.finishing[0] == ref.node:
        run.releases.append((ref.name, ref.nbytes))


def publish_releases(run) -> None:
    if run.releases and WATCH.on:
        names = tuple(name for name, _ in run.releases)
        nbytes = sum(n for _, n in run.releases)
        probe.send(r.SavedReleased(0, run.finishing[0], names, int(nbytes)))
    run.releases = []


def wrap_program_hooks(original_enter):
    """``saved_tensors_hooks.__enter__`` while watching: the program's pair, wrapped."""
    def __enter__(self):
        user_pack, user_unpack = self.pack_hook, self.unpack_hook

        def pack_hook(t):
            return _keep(t, user_pack(t), user_unpack)
        return original_enter(SimpleNamespace(pack_hook=pack_hook, unpack_hook=unpack))
    return __enter__
