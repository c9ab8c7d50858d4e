"""Narration: each event as one plain sentence, in torch's words, with its why.

The TUI, the GIF captions and the HTML player all read their sentences from here, so
they say the same thing. A ``Narrator`` indexes a stream of events (node names, the
user's source lines, saved tensors, which ``.grad`` belongs to which leaf) and
narrates any of them. Sentences are plain strings: text that came from the program
(source lines, error messages, printed output) is data, and whoever shows a sentence
escapes it.

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     x = ag.tensor([1.0, 2.0], requires_grad=True)
...     y = x.exp().sum()
...     y.backward()
>>> narrator = Narrator(trace.events)
>>> said = [narrator.sentence(i) for i, e in enumerate(trace.events) if e.kind == "saved_released"]
>>> said[0].partition(":")[0]
'retain_graph=False, so ExpBackward0 releases its saved `result` (8 B)'
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
import weakref

__all__ = ["Narrator", "caption", "narrator_of", "source_phrase"]

_SOURCE = re.compile(r"(.*?):(\d+): (.*)", re.S)
WINDOW = 65_536   # events a far sentence of a long trace indexes (``Narrator._catch_up``)


@functools.lru_cache(maxsize=4096)
def source_phrase(source: str) -> str:
    """``"demo.py:28: y = x * w  # why"`` -> ``"`y = x * w`, line 28"`` ("" for no source)."""
    match = _SOURCE.fullmatch(source or "")
    if match is None:
        return f"`{source}`" if source else ""
    return f"`{_code(match.group(3))}`, line {match.group(2)}"


def _code(line: str) -> str:
    """The line without its trailing comment (read aloud, the comment is noise)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.COMMENT and token.start[1] > 0:
                return line[:token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):   # a line cut inside brackets
        pass
    return line


def _short(name: str) -> str:
    return name.rpartition("::")[2] or name


def _amount(nbytes: int) -> str:
    for unit in ("B", "KB", "MB"):
        if nbytes < 1024:
            return f"{nbytes} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} GB"


def _names(names) -> str:
    """``a``, ```a` and `b```, ```a`, `b` and `c```."""
    quoted = [f"`{n}`" for n in names]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _grad(summary) -> str:
    if summary is None:
        return "no gradient (None)"
    return f"a gradient of shape {list(summary.shape)}"


def _grads(summaries) -> str:
    shapes = [str(list(s.shape)) if s is not None else "None" for s in summaries]
    if len(shapes) == 1:
        return _grad(summaries[0])
    return "gradients of shape " + ", ".join(shapes[:-1]) + " and " + shapes[-1]


class Narrator:
    """Sentences for a stream of events: ``Narrator(events).sentence(index)``.

    ``extend(events)`` indexes events that arrived later (a live session). A long trace's
    events (read from its file) are indexed only as far as a sentence asks: a name given
    later than the event told is not used for it, where a whole pass would have used it.
    Given its timeline too (``follow``), a sentence far past what is indexed indexes only the
    ``WINDOW`` events before it (the graph a late step shows was made in them): pressing
    ``G`` on a million events reads 65,536 of them, not all.
    """

    def __init__(self, events=()):
        self._forget()
        if hasattr(events, "steps_of"):   # a trace file's events: indexed when asked for
            self.follow(events)
        else:
            self.extend(events)

    def _forget(self) -> None:
        """Know no event yet."""
        self.events: list = []
        self._created: dict = {}     # node id -> its NodeCreated event
        self._names: dict = {}       # node id -> name seen in a backward (made before recording)
        self._grads: dict = {}       # tensor id of a .grad -> the leaf's tensor id
        self._released: dict = {}    # node id -> event indices where its saved tensors went
        self._leaves: set = set()    # tensor ids of leaves
        self._tensor_names: dict = {}   # tensor id -> the user's name for it (``x``, ``0.weight``)
        self._depth = 0              # backwards running at the event being indexed
        self._recorded: set = set()  # nodes created while a backward ran (create_graph)
        self._indexed = 0            # events indexed so far (the end of the first range)
        self._ranges: list = []      # [start, end) of the ranges indexed after a far jump
        self._timeline = None        # a trace file's (``follow``): far sentences use it
        self._at = 0                 # the sentence being told
        self._depth_end = 0          # where ``_depth`` was counted up to
        self._unmade: set = set()    # nodes looked for in vain (made before recording)

    def follow(self, events, timeline=None) -> None:
        """Tell the sentences of ``events`` (a trace file's; what it knew before is
        forgotten), indexing them only as far as a sentence asks; with their ``timeline``, a
        far sentence only its ``WINDOW``."""
        self._forget()
        self.events, self._timeline = events, timeline

    def extend(self, events) -> None:
        for event in events:
            self._index(len(self.events), event)
            self.events.append(event)
        self._indexed = self._depth_end = len(self.events)

    def _catch_up(self, stop: int) -> None:
        """Index the events before ``stop`` (a trace file's, read in pieces: only the kinds
        ``_index`` learns from) from the end of the indexed range before it; when that is
        more than ``WINDOW`` events back and the timeline is known, only the ``WINDOW``
        before it (a seek far ahead), as many backwards deep as the state there is."""
        ranges = [(0, self._indexed), *self._ranges]
        start = max(end for begin, end in ranges if begin < stop)
        if start >= stop:
            return
        timeline = self._timeline
        if stop - start > WINDOW and timeline is not None:
            start = stop - WINDOW
        if start != self._depth_end and timeline is not None:
            self._depth = sum(map(len, timeline.state(start).running.values()))
        for begin in range(start, stop, 65536):
            for i, event in self.events.only(_INDEXED, begin, min(stop, begin + 65536)):
                self._index(i, event)
        self._depth_end = stop
        if start == self._indexed:
            self._indexed = stop
        else:
            self._ranges = [r for r in self._ranges if r[1] != start] + [
                (next((b for b, e in self._ranges if e == start), start), stop)]
        for begin, end in self._ranges:   # (a range the first one reached joins it)
            if begin <= self._indexed:
                self._indexed = max(self._indexed, end)
        self._ranges = [r for r in self._ranges if r[1] > self._indexed]

    def _index(self, i: int, e) -> None:   # (learns from the kinds in ``_INDEXED`` only)
        kind = e.kind
        if kind == "node_created":
            self._note_created(e, self._depth > 0)
        elif kind == "backward_planned":
            for p in e.nodes:
                self._names.setdefault(p.node, p.name)
        elif kind == "node_started":
            self._names.setdefault(e.node, e.name)
        elif kind == "grad_accumulated":
            self._grads[e.grad.id] = e.tensor
        elif kind == "saved_released":
            self._released.setdefault(e.node, []).append(i)
        elif kind == "backward_started":
            self._depth += 1
        elif kind == "backward_finished":
            self._depth = max(0, self._depth - 1)

    def _note_created(self, e, in_backward: bool) -> None:
        self._created[e.node] = e
        if e.leaf is not None:
            self._leaves.add(e.leaf.id)
        elif in_backward:
            self._recorded.add(e.node)
        for s in (e.leaf, *e.inputs, *e.outputs):
            if s is not None and s.name:   # a name can come later (``h = lin(x)``)
                self._tensor_names[s.id] = s.name

    def sentence(self, index: int) -> str:
        """The sentence for ``events[index]``."""
        if index >= self._indexed and hasattr(self.events, "only"):   # (a trace file's)
            self._catch_up(index + 1)
        event = self.events[index]
        self._at = index
        return _SENTENCES[event.kind](self, event, index)

    # ------------------------------------------------------------------ names

    def created(self, node_id: int):
        """The ``NodeCreated`` event of a node, else ``None``. A node made before what a
        far sentence indexed is found through the state its sentence shows (its view names
        the step that made it): one event read, never a wrong "nowhere"."""
        created = self._created.get(node_id)
        timeline, at = self._timeline, self._at
        if created is not None or timeline is None or at < self._indexed \
                or node_id in self._unmade or not node_id:
            return created   # (all before ``at`` was read: it was made before recording)
        self._unmade.add(node_id)   # (looked for once)
        for step in (at + 1, at):
            view = timeline.state(step).nodes.get(node_id)
            if view is not None and 0 <= view.created_step < at:
                event = self.events[view.created_step]
                if event.kind == "node_created" and event.node == node_id:
                    made = timeline.state(view.created_step)
                    self._note_created(event, any(made.running.values()))
                    self._unmade.discard(node_id)
                    return event
        return None

    def named(self, tensor_id: int) -> str:
        """What the user called the tensor (``x``, ``0.weight``), else ""."""
        return self._tensor_names.get(tensor_id, "")

    def label(self, tensor_id: int) -> str:
        """What the user called the tensor, else ``t<id>``."""
        return self.named(tensor_id) or f"t{tensor_id}"

    def node(self, node_id: int) -> str:
        """``MulBackward0``; an accumulator as ``AccumulateGrad of leaf x``."""
        created = self.created(node_id)
        if created is not None and created.leaf is not None:
            return f"AccumulateGrad of leaf {self.label(created.leaf.id)}"
        if created is not None:
            return _short(created.name)
        name = self._names.get(node_id)
        return _short(name) if name else f"node n{node_id}"

    def node_at(self, node_id: int) -> str:
        """The node's name with the line that made it: ``MulBackward0 (`y = x * w`, line 3)``."""
        created = self.created(node_id)
        where = source_phrase(created.source) if created is not None else ""
        return f"{self.node(node_id)} ({where})" if where else self.node(node_id)

    def tensor(self, tensor_id: int) -> str:
        """``leaf x``, or ``x.grad`` for a leaf's gradient, or ``tensor h`` (``t7``: unnamed)."""
        leaf = self._grads.get(tensor_id)
        if leaf is not None:
            return f"{self.label(leaf)}.grad"
        if tensor_id in self._leaves:
            return f"leaf {self.label(tensor_id)}"
        return f"tensor {self.label(tensor_id)}"

    def path_part(self, part: str) -> str:
        if part.startswith("n") and part[1:].isdigit():
            return self.node(int(part[1:]))
        if part.startswith("t") and part[1:].isdigit():
            return self.tensor(int(part[1:]))
        return part

    def released_before(self, node_id: int, index: int) -> bool:
        return any(i < index for i in self._released.get(node_id, ()))

    def in_backward(self, node_id: int) -> bool:
        return node_id in self._recorded

    def saved_names(self, node_id: int) -> tuple:
        created = self.created(node_id)
        return tuple(s.name for s in created.saved) if created is not None else ()


_INDEXED = ("node_created", "backward_planned", "node_started", "grad_accumulated",
            "saved_released", "backward_started", "backward_finished")


# ----------------------------------------------------------------------- one per kind

def _node_created(n: Narrator, e, i: int) -> str:
    if e.leaf is not None:
        leaf = n.label(e.leaf.id)
        return (f"The forward pass uses leaf {leaf} (shape {list(e.leaf.shape)}, "
                f"requires_grad=True) for the first time: its AccumulateGrad will put the "
                f"gradient of {leaf} into {leaf}.grad")
    what = (f"create_graph=True, so the backward itself records {_short(e.name)}"
            if n.in_backward(e.node) else f"The forward pass records {_short(e.name)}")
    where = source_phrase(e.source)
    what += f" for {where}" if where else ""
    tensors = [s for s in e.saved if s.tensor]
    if not e.saved:
        return what + "; it saves nothing (its derivative needs no saved tensors)"
    held = f" ({_amount(sum(s.nbytes for s in tensors))})" if tensors else ""
    return (what + f"; it saves {_names(s.name for s in e.saved)}{held}, which its "
            "derivative needs in the backward")


def _backward_started(n: Narrator, e, i: int) -> str:
    call = "backward()" if e.api == "backward" else "autograd.grad()"
    roots = " and ".join(n.node_at(r) for r in e.roots) or "its outputs"
    text = f"{call} starts at {roots} with {_grads(e.grads)}"
    if e.create_graph:
        text += ("; create_graph=True, so the gradients are computed with recorded ops and "
                 "get graphs of their own")
    if e.retain_graph:
        return text + "; retain_graph=True, so every node keeps its saved tensors"
    return text + "; retain_graph=False, so each node frees its saved tensors once it has run"


def _backward_planned(n: Narrator, e, i: int) -> str:
    runs = sum(1 for p in e.nodes if p.runs)
    text = (f"The engine finds {len(e.nodes)} node(s) reachable from the root and counts "
            "the gradients each must wait for; the ready node with the highest sequence "
            "number runs first")
    skipped = len(e.nodes) - runs
    if skipped:
        text += f"; {skipped} of them will not run, because inputs= does not need them"
    return text


def _buffer_accumulated(n: Narrator, e, i: int) -> str:
    if n.created(e.source) is not None or e.source in n._names:
        text = f"{n.node(e.node)} receives {_grad(e.grad)} from {n.node(e.source)}"
    else:   # the root's gradient comes from the call itself, not from a node
        shape = list(e.grad.shape) if e.grad is not None else "None"
        text = f"{n.node(e.node)} receives the starting gradient, of shape {shape}"
    if e.contributions > 1:
        text += f", summed with the others in its input buffer ({e.contributions} so far)"
    if e.remaining:
        return text + f"; it waits for {e.remaining} more before it can run"
    return text + "; all its gradients have arrived, so it is ready to run"


def _node_started(n: Narrator, e, i: int) -> str:
    if not e.runs:
        return (f"{n.node(e.node)} does not run: autograd.grad() returns the "
                f"{_grads(e.grads)[2:]} arriving here as its result for this input")
    saved = n.saved_names(e.node)
    uses = f"uses its saved {_names(saved)}" if saved else "needs no saved tensors"
    return f"{n.node_at(e.node)} runs: it receives {_grads(e.grads)} and {uses}"


def _node_finished(n: Narrator, e, i: int) -> str:
    created = n.created(e.node)
    edges = created.edges if created is not None else ()
    if not e.grads:
        return f"{n.node(e.node)} is done"
    parts = []
    for k, grad in enumerate(e.grads):
        to = edges[k][0] if k < len(edges) else 0
        target = n.node(to) if to else "nowhere (that input needs no gradient)"
        parts.append(f"{_grad(grad)} to {target}")
    return f"{n.node(e.node)} is done: it passes " + "; ".join(parts)


def _grad_accumulated(n: Narrator, e, i: int) -> str:
    into = f"{n.label(e.tensor)}.grad"
    text = f"AccumulateGrad adds {_grad(e.grad)} into {into}"
    if e.mode == "new":
        text += f" (it was None, so {into} becomes this gradient)"
    elif e.mode == "inplace":
        text += (" (it already held a gradient: gradients add up across backward calls, "
                 "summed in place)")
    else:
        text += (" (it already held a gradient: with create_graph=True the sum is a new "
                 "tensor, .grad is replaced)")
    if e.grad_fn:
        text += (f"; the new {into} has grad_fn {n.node(e.grad_fn)}, so it is part of a "
                 "graph itself")
    return text


def _grad_set(n: Narrator, e, i: int) -> str:
    name = n.label(e.tensor)
    if e.grad is None:
        return f"The program sets {name}.grad = None: the next backward starts from zero"
    return f"The program assigns {name}.grad a tensor of shape {list(e.grad.shape)}"


_HOOKS = {
    "tensor": "A tensor hook `{name}` (Tensor.register_hook) runs on the gradient flowing "
              "into {node}",
    "pre": "A pre-hook `{name}` (Node.register_prehook) runs before {node}",
    "post": "A hook `{name}` (Node.register_hook) runs after {node}",
    "post_accumulate": "A post-accumulate-grad hook `{name}` runs after {node} updated .grad",
}


def _hook_called(n: Narrator, e, i: int) -> str:
    text = _tensor_hook(n, e) if e.hook == "tensor" else None
    if text is None:
        text = _HOOKS.get(e.hook, "A hook `{name}` runs at {node}").format(
            name=e.name, node=n.node(e.node))
    if e.replaced:
        return text + "; it returns a new value, which replaces the gradient"
    return text + "; it returns None, so the gradient is unchanged"


def _tensor_hook(n: Narrator, e) -> str | None:
    """Whose gradient a tensor hook runs on: a leaf's, before its accumulator; the node's
    only output's, by the user's name (``loss``); None where that is not known."""
    created = n.created(e.node)
    if created is None:
        return None
    start = f"A tensor hook `{e.name}` (Tensor.register_hook) runs on the gradient of"
    if created.leaf is not None:
        leaf = n.label(created.leaf.id)
        return f"{start} leaf {leaf}, before AccumulateGrad puts it in {leaf}.grad"
    outputs = created.outputs
    name = n.named(outputs[0].id) if len(outputs) == 1 else ""
    return f"{start} {name}, flowing into {n.node(e.node)}" if name else None


def _saved_released(n: Narrator, e, i: int) -> str:
    return (f"retain_graph=False, so {n.node(e.node)} releases its saved {_names(e.names)} "
            f"({_amount(e.nbytes)}): a later backward through it would fail")


def _node_freed(n: Narrator, e, i: int) -> str:
    if e.by == "gc":
        return (f"Python's cyclic garbage collector frees {n.node(e.node)}: it was reachable "
                "only through a reference cycle")
    return f"{n.node(e.node)} is freed: nothing refers to it any more"


def _cycle_detected(n: Narrator, e, i: int) -> str:
    path = " -> ".join(n.path_part(p) for p in e.path)
    return (f"backward(create_graph=True) forms a reference cycle: {path}. It keeps the "
            f"graph alive until {n.label(e.leaf)}.grad is set to None")


_BROKEN = {"grad_cleared": "{leaf}.grad was set to None",
           "grad_reassigned": "{leaf}.grad was given another value"}


def _cycle_broken(n: Narrator, e, i: int) -> str:
    leaf = n.label(e.leaf)
    why = _BROKEN.get(e.reason, "{reason}").format(leaf=leaf, reason=e.reason)
    return f"The reference cycle through leaf {leaf} is broken ({why}): its graph can be freed"


def _gc_pass(n: Narrator, e, i: int) -> str:
    return (f"Python's cyclic garbage collector ran (generation {e.generation}) and "
            f"collected {e.collected} object(s)")


def _error(n: Narrator, e, i: int) -> str:
    error = f"{e.type}: {e.message}"
    if not e.node:
        return f"The program raised {error}"
    if n.released_before(e.node, i):
        saved = _names(n.saved_names(e.node)) or "saved tensors"
        return (f"{n.node_at(e.node)} cannot run again: an earlier backward released its "
                f"saved {saved}, and this backward needs them. {error}")
    return f"{n.node_at(e.node)} fails: {error}"


def _backward_finished(n: Narrator, e, i: int) -> str:
    call = "backward()" if e.api == "backward" else "autograd.grad()"
    if e.ok:
        return f"{call} finished: every gradient it computes has been delivered"
    return f"{call} stopped because of the error above"


def _printed(n: Narrator, e, i: int) -> str:
    where = "printed" if e.stream == "stdout" else "wrote to stderr"
    return f"The program {where}: {e.text.strip()}"


_SENTENCES = {
    "node_created": _node_created, "backward_started": _backward_started,
    "backward_planned": _backward_planned, "buffer_accumulated": _buffer_accumulated,
    "node_started": _node_started, "node_finished": _node_finished,
    "grad_accumulated": _grad_accumulated, "grad_set": _grad_set,
    "hook_called": _hook_called, "saved_released": _saved_released,
    "node_freed": _node_freed, "cycle_detected": _cycle_detected,
    "cycle_broken": _cycle_broken, "gc_pass": _gc_pass, "error": _error,
    "backward_finished": _backward_finished, "printed": _printed,
}


# ----------------------------------------------------------------------- timelines

_BY_TIMELINE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def narrator_of(timeline) -> Narrator:
    """The ``Narrator`` of a ``Timeline`` (built once, kept while the timeline lives)."""
    narrator = _BY_TIMELINE.get(timeline)
    if narrator is None or len(narrator.events) != len(timeline.events):
        narrator = _BY_TIMELINE[timeline] = Narrator(timeline.events)
    return narrator


def caption(timeline, step: int) -> str:
    """The sentence for the event that led to ``step`` (``"(start)"`` at step 0)."""
    if not step:
        return "(start)"
    return narrator_of(timeline).sentence(step - 1)
