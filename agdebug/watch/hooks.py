"""The program's own hooks, seen as they run: ``hook_called``, as agdebug's engine tells it.

A hook the program registers while watching (``Tensor.register_hook``,
``register_post_accumulate_grad_hook``, a node's ``register_hook``/``register_prehook``) is
kept by torch wrapped in a ``ProgramHook``: it calls the hook with what torch gives it and
returns what the hook returns (exceptions pass through untouched), and publishes the hook's
``hook_called`` in agdebug's order: after the node's ``node_started``, before its
``node_finished``. When watching ends every wrapper is put back to the hook itself.

Node hooks reach torch's dicts through ``Function._register_hook`` (called by the C++
``register_hook``/``register_prehook`` of every node class: those classes cannot be
patched), which says neither the node nor which kind: the call does (a pre-hook gets one
argument, a post-hook two), and the node is the one running or about to run. A pre-hook
registered before the watcher's own runs before the node's ``node_started`` can be known:
its event waits for it (see ``backward.start``).
"""

from __future__ import annotations

import itertools
import weakref
from functools import partial

from ..events import probe
from ..events import records as r
from ..events.bus import WATCH
from . import backward, nodes
from .state import LOCAL, STATE, Early
from .tensors import summaries, summarize

__all__ = ["OWN_KEY", "ProgramHook", "register_node_hook", "register_tensor_hook",
           "restore"]


class ProgramHook:
    """A program's hook as torch keeps it while watching (``__name__`` and any attribute
    are the hook's: torch's error messages name it)."""

    __slots__ = ("hook", "kind", "leaf", "line", "name", "node", "session", "slot",
                 "slots")

    def __init__(self, hook, kind: str, node: int = 0, slot: int = 0, slots: int = 1,
                 leaf=None):
        self.hook, self.kind, self.node, self.slot, self.slots = hook, kind, node, slot, slots
        self.leaf = leaf   # a weak reference to the leaf of a leaf's hook, else None
        self.name = str(getattr(hook, "__name__", type(hook).__name__))
        self.line = probe.hook_line(hook)
        self.session = STATE.session

    def __getattr__(self, attr):
        return getattr(self.hook, attr)

    def __call__(self, *args):
        run = _run(self.session)
        if run is None:
            return self.hook(*args)
        if self.kind == "tensor":
            return self._tensor(run, args[0])
        if self.kind == "post_accumulate":
            return self._accumulated(run, args[0])
        if len(args) == 2:   # a node's post-hook: (grad_inputs, grad_outputs)
            node = run.finishing[0] if run.finishing is not None else run.current
            return self._then_publish(node, "post", args)
        return self._pre(run, args[0])

    def publish(self, node: int, kind: str, replaced: bool) -> None:
        probe.send(r.HookCalled(0, node, kind, self.name, replaced, self.line,
                                probe.source_path(self.line)))

    def _then_publish(self, node: int, kind: str, args):
        result = self.hook(*args)
        if WATCH.on:
            self.publish(node, kind, result is not None)
        return result

    def _tensor(self, run, grad):
        node = self.node or _leaf_node(self.leaf)
        if run.current == node:
            return self._then_publish(node, "tensor", (grad,))
        if self.slots == 1:   # its node's whole incoming gradient: the node starts now
            _busy(backward.start, run, node, (grad,))
            return self._then_publish(node, "tensor", (grad,))
        early = _early(run)
        early.slots.setdefault(self.slot, _busy(summarize, grad))
        return self._waiting(early, "tensor", (grad,))

    def _pre(self, run, grads):
        if run.finishing is None and run.current:   # registered after the watcher's own
            return self._then_publish(run.current, "pre", (grads,))
        early = _early(run)
        if early.grads is None:
            early.grads = _busy(summaries, grads)
        return self._waiting(early, "pre", (grads,))

    def _waiting(self, early: Early, kind: str, args):
        result = self.hook(*args)
        early.events.append(partial(self.publish, kind=kind, replaced=result is not None))
        return result

    def _accumulated(self, run, leaf):
        # agdebug tells the accumulation, then each hook as it is called
        _busy(backward.accumulated_once, run, leaf)
        if WATCH.on:
            self.publish(run.current, "post_accumulate", False)
        return self.hook(leaf)


def _run(session: int):
    """The backward these hooks belong to (None: not watched, pass the call through)."""
    if session != STATE.session or not LOCAL.runs or not WATCH.on:
        return None
    return LOCAL.runs[-1]


def _busy(fn, *args):
    LOCAL.busy += 1
    try:
        return fn(*args)
    finally:
        LOCAL.busy -= 1


def _early(run) -> Early:
    if run.early is None:
        run.early = Early()
    return run.early


def _leaf_node(leaf) -> int:
    from torch.autograd.graph import get_gradient_edge
    t = leaf()
    return 0 if t is None else nodes.node_id(get_gradient_edge(t).node)


def register_tensor_hook(register, tensor, hook, kind: str):
    """``tensor.register_hook(hook)`` (``kind`` "tensor") or its post-accumulate-grad
    hook, through torch's own ``register``, with ``hook`` wrapped."""
    fn = tensor.grad_fn
    if fn is None or kind != "tensor":
        wrapped = ProgramHook(hook, kind, leaf=weakref.ref(tensor))
    else:
        if nodes.tag_of(fn) is None:
            nodes.walk_new([fn], "")
        slots = len(getattr(fn, "_input_metadata", ())) or 2   # (unknown: as for several)
        wrapped = ProgramHook(hook, kind, nodes.node_id(fn), tensor.output_nr, slots)
    handle = register(tensor, wrapped)
    hooks = tensor._backward_hooks if kind == "tensor" else tensor._post_accumulate_grad_hooks
    _remember(hooks, handle.id, wrapped)
    return handle


def register_node_hook(original):
    """``Function._register_hook`` while watching: the program's node hooks wrapped."""
    def _register_hook(backward_hooks, hook):
        if LOCAL.busy:
            return _own(backward_hooks, hook)
        if not STATE.session:
            return original(backward_hooks, hook)
        wrapped = ProgramHook(hook, "node")
        hooks, handle = original(backward_hooks, wrapped)
        _remember(hooks, handle.id, wrapped)
        return hooks, handle
    return staticmethod(_register_hook)


# The key of the watcher's own hook in a node's hook dicts: torch's handles count up from 0,
# and the watcher puts at most one hook of each kind on a node (``backward._hook``).
OWN_KEY = -1


def _own(backward_hooks, hook):
    """What torch's ``_register_hook`` does for the watcher's own hooks, without its
    ``RemovableHandle`` (which cost most of the registration): the handle is the dict
    itself, and ``dict.pop(OWN_KEY)`` removes the hook."""
    hooks = {} if backward_hooks is None else backward_hooks   # (torch keeps the dict)
    hooks[OWN_KEY] = hook
    return hooks, hooks


def _remember(hooks, key, wrapped: ProgramHook) -> None:
    # Only a weak reference to torch's dict and the key: the wrapper holds the hook, and
    # the hook what it closes over (tensors, perhaps): they must die when torch drops them.
    serial = next(_serials)
    STATE.program_hooks[serial] = (weakref.ref(hooks, partial(_forget, serial)), key)


def _forget(serial: int, ref) -> None:
    STATE.program_hooks.pop(serial, None)


_serials = itertools.count(1)


def restore() -> None:
    """Put the program's hooks back in torch's dicts in place of their wrappers."""
    for ref, key in list(STATE.program_hooks.values()):
        hooks = ref()
        wrapped = hooks.get(key) if hooks is not None else None
        if type(wrapped) is ProgramHook:
            hooks[key] = wrapped.hook
    STATE.program_hooks.clear()
