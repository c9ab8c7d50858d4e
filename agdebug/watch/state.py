"""What the watcher knows while it watches: plain data and weak references only.

One watch at a time per process (torch's function modes and saved-tensor hooks are
per thread: the thread that started watching is the one watched).
"""

from __future__ import annotations

import threading

__all__ = ["STATE", "Run"]


class Run:
    """One running backward()/grad(), as the hooks see it (ids and counts only)."""

    __slots__ = ("api", "contributions", "current", "deps", "edges", "finishing",
                 "keep_graph", "releases")

    def __init__(self, api: str, keep_graph: bool, deps: dict):
        self.api = api
        self.keep_graph = keep_graph
        self.deps = deps                 # node id -> edges still to arrive
        self.contributions: dict = {}    # (node id, slot) -> gradients summed so far
        self.edges: dict = {}            # node id -> (target id, slot) it sends along
        self.current = 0                 # the node running (0: none)
        # (node id, outgoing summaries) of the node
        # whose post-hook ran: its node_finished waits until torch released its saved
        # tensors (torch releases them after the post-hooks; agdebug before it finishes).
        self.finishing = None
        self.releases: list = []         # (name, nbytes) released since it finished


class _State:
    def __init__(self):
        self.session = 0          # the current watch's number (0: not watching)
        self.thread: threading.Thread | None = None
        self.busy = 0             # >0 while the watcher's own code runs (the mode passes)
        self.naming = False       # saved fields are being read to name their holders
        self.node_refs: dict = {}     # node id -> weak reference to its tag
        self.saved_refs: dict = {}    # holder serial -> weak reference to the holder
        self.runs: list[Run] = []
        self.handles: dict = {}       # node id -> its hook handles (removed at the end)
        self.leaf_handles: list = []  # leaves' post-accumulate-grad hooks (weak handles)
        self.leaves: dict = {}        # AccumulateGrad id -> data_ptr of .grad (0: None)
        self.cycles: set = set()      # leaf tensor ids on a live cycle


STATE = _State()
