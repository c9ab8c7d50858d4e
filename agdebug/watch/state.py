"""What the watcher knows while it watches: plain data and weak references only.

One watch at a time per process (torch's function modes and saved-tensor hooks are
per thread: the thread that started watching is the one watched). A backward that another
thread runs meanwhile is still seen through the patched entry points and node hooks (its
events carry that thread's number): what a backward is doing, and whether the watcher's
own code is running, are kept per thread (``LOCAL``), so two threads' backwards at once
do not mix.
"""

from __future__ import annotations

import threading

__all__ = ["LOCAL", "STATE", "Early", "Run"]


class Run:
    """One running backward()/grad(), as the hooks see it (ids and counts only)."""

    __slots__ = ("accumulated", "api", "contributions", "create", "current", "deps", "early",
                 "edges", "finishing", "keep_graph", "releases")

    def __init__(self, api: str, keep_graph: bool, deps: dict, create: bool = False):
        self.api = api
        self.keep_graph = keep_graph
        self.create = create             # create_graph: gradients have graphs of their own
        self.deps = deps                 # node id -> edges still to arrive
        self.contributions: dict = {}    # (node id, slot) -> gradients summed so far
        self.edges: dict = {}            # node id -> (target id, slot) it sends along
        self.current = 0                 # the node running (0: none)
        # (node id, outgoing summaries) of the node
        # whose post-hook ran: its node_finished waits until torch released its saved
        # tensors (torch releases them after the post-hooks; agdebug before it finishes).
        self.finishing = None
        self.releases: list = []         # (name, nbytes) released since it finished
        self.early: Early | None = None  # the program's hooks run before a node_started
        self.accumulated = 0             # the AccumulateGrad whose grad_accumulated is out


class Early:
    """What the program's hooks saw before the watcher knew which node runs next."""

    __slots__ = ("events", "grads", "slots")

    def __init__(self):
        self.slots: dict = {}   # slot -> the summary of its gradient before any hook ran
        self.grads = None       # the summaries a pre-hook got (slots' hooks may have run)
        self.events: list = []  # publish(node) of each hook that ran, in order

    def incoming(self, grads: tuple) -> tuple:
        """The node's incoming gradients as they arrived (before the hooks replaced any)."""
        out = list(self.grads if self.grads is not None else grads)
        for slot, summary in self.slots.items():
            if slot < len(out):
                out[slot] = summary
        return tuple(out)


class _State:
    def __init__(self):
        self.session = 0          # the current watch's number (0: not watching)
        self.thread: threading.Thread | None = None
        self.node_refs: dict = {}     # node id -> weak reference to its tag
        self.saved_refs: dict = {}    # holder serial -> weak reference to the holder
        self.leaf_handles: list = []  # leaves' post-accumulate-grad hooks (weak handles)
        self.leaves: dict = {}        # AccumulateGrad id -> data_ptr of .grad (0: None)
        self.cycles: set = set()      # leaf tensor ids on a live cycle
        self.program_hooks: dict = {}  # serial -> (weak ref to a torch hook dict, key)


class _Local(threading.local):
    def __init__(self):
        self.busy = 0             # >0 while the watcher's own code runs (the mode passes)
        self.naming = False       # saved fields are being read to name their holders
        self.unpacked: list = []  # the holders unpacked meanwhile (see ``saved.named``)
        self.runs: list[Run] = []   # this thread's backwards in progress, innermost last


STATE = _State()
LOCAL = _Local()
