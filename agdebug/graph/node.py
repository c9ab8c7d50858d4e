"""Graph nodes: the backward functions a forward pass records.

``Node`` is torch's ``grad_fn``: it has ``next_functions`` (edges to the nodes
that produced its forward inputs), saved tensors, hooks and metadata. The edges
are kept as two flat tuples, ``_next`` (the nodes, None where an input gets no
gradient) and ``_next_nr`` (which output of each), rather than torch's tuple of
``(node, nr)`` pairs: a pair per edge would be one more object for Python's cyclic
GC to track and scan for as long as the graph lives, and a graph can have a
million nodes. ``next_functions`` builds torch's pairs when asked.

Every node gets a stable id from one counter (events name nodes by it, never by
``id()``); op nodes also use it as their sequence number, which orders
execution (highest first).

Ownership is torch's: a node holds the nodes of its inputs; an
``AccumulateGrad`` holds its leaf; a leaf holds its accumulator only weakly.
"""

from __future__ import annotations

import itertools

from ..backend import xp_of
from ..events import WATCH, probe
from .anomaly_flag import ANOMALY
from .hooks import add_hook
from .saved import SAVED_FREED_MESSAGE, SavedTensor

__all__ = ["Node", "OpNode", "AccumulateGrad", "GraphRoot", "next_id", "LEAVES", "split_edges",
           "shared_nrs"]

_ids = itertools.count(1)
next_id = _ids.__next__

_NRS: dict[tuple, tuple] = {}


def shared_nrs(nrs: tuple) -> tuple:
    """One ``_next_nr`` tuple per distinct value, shared by the nodes (nearly all are
    ``(0,)`` or ``(0, 0)``): one object fewer for the GC to count per node."""
    shared = _NRS.get(nrs)
    if shared is None:
        shared = nrs
        if len(_NRS) < 4096:   # bounded: a program with endless arities just misses
            _NRS[nrs] = nrs
    return shared


def split_edges(edges) -> tuple:
    """``(nodes, nrs)`` from torch-style ``(node, nr)`` pairs, for ``Node.__init__``."""
    edges = tuple(edges)
    return tuple(fn for fn, _ in edges), shared_nrs(tuple(nr for _, nr in edges))


class _Hooks:
    """A node's hooks, allocated on the first registration (most nodes have none)."""

    __slots__ = ("pre", "post", "tensor_pre", "retains_grad")

    def __init__(self):
        self.pre: dict = {}
        self.post: dict = {}
        self.tensor_pre: dict[int, dict] = {}   # output_nr -> hooks from Tensor.register_hook
        self.retains_grad: dict[int, object] = {}  # output_nr -> retains_grad hook


class Node:
    """A backward function. Subclasses implement ``apply(grads) -> tuple``."""

    __slots__ = ("_next", "_next_nr", "_id", "_out_meta", "_saved", "_attrs", "_hooks",
                 "_metadata", "_released", "__weakref__")

    # Whether ``apply`` gives its missing gradients zeros itself (a custom Function's node,
    # as torch's PyNode: not for its non-differentiable outputs when asked not to); else the
    # caller fills them.
    fills_missing_grads = False

    def __init__(self, next_nodes: tuple, next_nrs: tuple, out_meta: tuple):
        self._next = next_nodes        # per forward input: its node, or None (no gradient)
        self._next_nr = next_nrs       # per forward input: which output of that node
        self._id = next_id()
        self._out_meta = out_meta      # ((shape, array dtype), ...) per forward output
        self._saved = None             # {name: SavedTensor or a saved Python value} or None
        self._attrs = None             # {name: value} the keywords of the call, or None
        self._hooks = None
        # Anomaly mode keeps the forward's traceback where torch does; otherwise the dict
        # is made on first use. (No slot of its own: an 11th slot moves nodes into the
        # allocator's 128-byte class, which short-lived objects of each op share, so a big
        # graph's nodes lie twice as far apart and each full GC pass over them is slower:
        # 0.15 s against 0.10 s on a 300,000-node chain.)
        self._metadata = {"traceback_": capture_trace()} if ANOMALY.enabled else None
        self._released = False

    # -- torch's public surface ------------------------------------------------------------

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        """``((node, output_nr), ...)``, one pair per forward input, as torch gives them."""
        return tuple(zip(self._next, self._next_nr))

    def _sequence_nr(self) -> int:
        return self._id

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after the node runs; may return new grad_inputs."""
        return add_hook(self._hook_table().post, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before the node runs; may return new grad_outputs."""
        return add_hook(self._hook_table().pre, fn)

    def _hook_table(self) -> _Hooks:
        if self._hooks is None:
            self._hooks = _Hooks()
        return self._hooks

    def __call__(self, *grads):
        """Run the node on one gradient per forward output, as torch's ``grad_fn(...)``."""
        expected = len(self._out_meta)
        if expected and len(grads) != expected:   # (the root and accumulators have none)
            raise TypeError(f"expected {expected} arguments, got {len(grads)} instead")
        if expected and all(g is None for g in grads):   # torch: nothing flows, no call
            count = len(self._next)
            return None if count == 1 else (None,) * count
        if any(g is None for g in grads) and not self.fills_missing_grads:
            grads = materialized(self, grads)
        result = self.apply(grads)
        # torch returns a one-input node's gradient itself, a tuple only for several
        return result[0] if isinstance(result, tuple) and len(result) == 1 else result

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    # -- saved state -------------------------------------------------------------------------

    def _own(self, name: str, missing):
        """The saved value (unpacked) or attribute called ``name``; else ``missing``."""
        # ``_saved`` and ``_attrs`` are slots always set in __init__: plain access is safe.
        saved = self._saved
        if saved is not None and name in saved:
            return self._unpack(saved[name])
        attrs = self._attrs
        if attrs is not None and name in attrs:
            return attrs[name]
        return missing

    def _unpack(self, saved):
        if type(saved) is SavedTensor:
            return saved.unpack(self)
        if self._released:   # a saved Python value goes with the node's saved tensors
            raise RuntimeError(SAVED_FREED_MESSAGE)
        return saved

    def release_variables(self) -> None:
        """Free the saved tensors (after the node ran without ``retain_graph``)."""
        if WATCH.on:
            probe.saved_released(self)
        self._released = True
        if self._saved is not None:
            for saved in self._saved.values():
                if type(saved) is SavedTensor:
                    saved.release()

    def check_saved_versions(self) -> None:
        if self._saved is not None:
            for saved in self._saved.values():
                # The version test inline (every node of a backward passes here first); only
                # a changed version calls in, to see if it matters and raise torch's error.
                if type(saved) is SavedTensor and saved._version.value != saved._saved_version:
                    saved.check_version(self)

    # -- engine interface ----------------------------------------------------------------------

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        return tuple(fn is not None for fn in self._next)


def capture_trace() -> list[str]:
    """The forward call stack up to the user's line, for anomaly mode's traceback."""
    import traceback
    stack = traceback.extract_stack()[:-1]
    while stack and _is_engine_file(stack[-1].filename):
        stack.pop()
    return traceback.format_list(stack)


def _is_engine_file(filename: str) -> bool:
    import os
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.abspath(filename)
    return path.startswith(package + os.sep) and not path.startswith(
        os.path.join(package, "demos") + os.sep)


class _SavedIndex:
    """Where an index's array was, in a key whose arrays are saved tensors."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "saved"


SAVED_INDEX = _SavedIndex()


class OpNode(Node):
    """The node of a registered op; ``op`` is set on each generated subclass."""

    __slots__ = ()
    op = None
    defaults = None   # the forward's keyword defaults, for attributes not passed explicitly
    saved_as: dict = {}   # forward name -> torch's (x -> self), for the events

    def apply(self, grads):
        return self.op.backward(self, *grads)

    @staticmethod
    def field(name: str, fallback) -> property:
        """``ctx.<name>`` for one of the op's saved values or attributes (nodes have no
        ``__getattr__``: each op's node class has a property per name it declares).
        ``fallback`` is the forward's default, or None for a value saved only when a
        gradient needs it. A saved tensor, the usual case, is unpacked here without
        ``_own``'s two calls."""
        def get(self):
            saved = self._saved
            if saved is not None and type(value := saved.get(name)) is SavedTensor:
                return value.unpack(self)
            return self._own(name, fallback)
        return property(get)

    @staticmethod
    def array_field(name: str) -> property:
        """``ctx.<name>`` for a keyword array saved as a tensor (``"index=array"``): the
        array, as the forward was given it (``_saved_<name>`` is the tensor)."""
        def get(self):
            saved = self._saved
            if saved is not None and type(value := saved.get(name)) is SavedTensor:
                return value.unpack(self)._data
            return self._own(name, None)
        return property(get)

    @staticmethod
    def key_fields(name: str) -> tuple[property, property]:
        """``ctx.key`` (an advanced index whose arrays are saved as ``name[i]``: see
        ``SAVED_INDEX``) and torch's ``_saved_<name>``: a tensor per indexed dimension, None
        for a sliced one."""
        def parts(self):
            """The key's basic part, and its advanced parts with the saved arrays unpacked
            (tensors: this layer knows no Tensor, only what has ``_data``), or None."""
            basic, advanced = self._own("key", ((), None))
            if advanced is None:
                return basic, None
            return basic, tuple(self._unpack(self._saved[f"{name}[{i}]"])
                                if part is SAVED_INDEX else part
                                for i, part in enumerate(advanced))

        def key(self):
            basic, found = parts(self)
            if found is None:
                return basic, None
            return basic, tuple(p._data if hasattr(p, "_data") else p for p in found)

        def saved(self):
            found = parts(self)[1] or ()
            return tuple(p if hasattr(p, "_data") else None for p in found)
        return property(key), property(saved)

    @staticmethod
    def attr_field(name: str, default) -> property:
        """``ctx.<name>`` for a keyword attribute the op never saves: read from ``_attrs``
        alone (None when the call passed no keywords), else the forward's default."""
        def get(self):
            attrs = self._attrs
            return default if attrs is None else attrs.get(name, default)
        return property(get)


# -- leaves --------------------------------------------------------------------------------

# AccumulateGrad -> its leaf. The reference lives here, where Python's cyclic GC never
# traverses it, and is dropped when the accumulator dies. This reproduces torch, where
# the accumulator holds its leaf from C++: after ``backward(create_graph=True)`` the
# cycle leaf -> .grad -> grad_fn -> ... -> AccumulateGrad -> leaf is invisible to the
# cyclic GC and leaks until ``leaf.grad = None``, exactly as the torch docs warn.
LEAVES: dict[int, object] = {}

# torch gives accumulators the largest sequence number: among ready nodes they run first.
_ACCUMULATOR_SEQUENCE_NR = 2 ** 64 - 1


class AccumulateGrad(Node):
    """Sums incoming gradients into its leaf's ``.grad``."""

    __slots__ = ()

    def __init__(self, leaf):
        super().__init__((), (), ((leaf._data.shape, leaf._data.dtype),))
        LEAVES[self._id] = leaf
        if WATCH.on:
            probe.accumulator_created(self, leaf)

    def __del__(self):
        try:
            LEAVES.pop(self._id, None)
        except (AttributeError, TypeError):  # interpreter shutdown
            pass

    @property
    def variable(self):
        return LEAVES[self._id]

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _sequence_nr(self) -> int:
        return _ACCUMULATOR_SEQUENCE_NR

    def apply(self, grads):
        raise RuntimeError("AccumulateGrad is run by the engine, which owns the accumulation")


class GraphRoot(Node):
    """The engine's entry point: hands the root gradients to the roots' edges."""

    __slots__ = ("_grads",)

    def __init__(self, edges: tuple, grads: list):
        super().__init__(*split_edges(edges), ())
        self._grads = grads

    def apply(self, grads):
        return self._grads


def materialized(node, grads) -> list:
    """Zeros for the outputs that received no gradient (torch does this for its own ops).
    Made like a gradient that is there (its type, its array module): this layer knows no
    Tensor."""
    present = next(g for g in grads if g is not None)
    xp = xp_of(present._data)
    return [type(present)._wrap(xp.zeros(shape, dtype=dtype)) if g is None else g
            for g, (shape, dtype) in zip(grads, node._out_meta)]
