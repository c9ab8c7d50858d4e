"""Big graphs summarised: nodes of one module call or one source line drawn as one box.

Past ``max_nodes`` nodes, a diagram groups nodes by the ``nn.Module`` call that made them
(``layers.0.self_attn`` within ``layers.0`` within the outermost call) and, outside or
inside the innermost call, by the user's source line. A group is a connected set of nodes
sharing that key (a module called twice on unrelated inputs is two groups). Starting with
the outermost groups collapsed, the largest are opened while the drawing stays within
``boxes`` elements; ``expand`` opens groups by module path or line number ("all": every
one). Runs of 3+ single-parent single-child nodes left over collapse as chains. Everything
is computed from the layout's nodes, so every frame of an animation gets the same boxes.

>>> from agdebug.debug.state import NodeView
>>> nodes = {i: NodeView(i, "AddBackward0", edges=((i - 1, 0),) if i > 1 else (),
...                      source="a.py:3: y = y + 1") for i in range(1, 9)}
>>> [box.label for box in set(summarise(nodes, set(nodes), set(), 4, 10).values())]
['line 3: y = y + 1 — 8 nodes']
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BOX_RANK", "MAX_DRAWN", "Box", "TooLarge", "chains", "check_size", "neighbourhood", "summarise"]

# Nodes (a leaf counts as one more) a diagram may draw. graphviz-pure on a 2-core machine,
# an MLP's PNG drawn whole: 140 in 5 s and 0.3 GB, 280 in 7 s and 1 GB, 700 in 37 s and 6 GB.
MAX_DRAWN = 300
FANOUT = 12        # a group with more parts than this is opened as runs of its parts
# A box's status: the most telling one inside (an error, then what is running or due, then
# what ran, then what is gone; "created" only when nothing inside has done anything).
BOX_RANK = {status: i for i, status in enumerate(
    ("created", "freed", "released", "done", "waiting", "ready", "running", "errored"))}


class TooLarge(ValueError):
    """The diagram would draw more than ``MAX_DRAWN`` elements."""


@dataclass(frozen=True, eq=False)
class Box:
    """A collapsed group or chain: drawn as one node ``key`` standing for ``members``."""

    key: str
    label: str
    members: tuple[int, ...]


@dataclass(eq=False)
class _Group:
    level: int
    members: list
    head: str = ""                # what its label names
    names: tuple = ()             # what ``expand`` may call it: a module path, a line number
    parts: list | None = None     # sub-groups, then single nodes (None: not built yet)


def summarise(universe, keep: set, protected: set, boxes: int, max_nodes: int,
              expand=()) -> dict:
    """Node id -> the ``Box`` drawn for it, for the nodes of ``keep`` drawn collapsed."""
    top = _tree(universe, keep, _node_keys(universe, keep))
    weight = {n: 2 if universe[n].leaf is not None else 1 for n in keep}   # + its leaf
    opened = _open(top, protected, set(expand), boxes, weight)
    out: dict = {}
    drawn = 0
    for item in _leaves_of(top, opened):
        if isinstance(item, _Group):
            box = Box(f"g{min(item.members)}", _label(item), tuple(sorted(item.members)))
            out.update(dict.fromkeys(item.members, box))
        drawn += 1
    if drawn > max_nodes and "all" not in expand:
        single = {n for n in keep if n not in out}
        out.update(chains(universe, single, protected))
    return out


def check_size(universe, keep: set, collapsed: dict) -> None:
    """Refuse, in one line, a diagram Graphviz could not lay out in bounded time and memory."""
    single = [n for n in keep if n not in collapsed]
    drawn = len(single) + sum(universe[n].leaf is not None for n in single) \
        + len(set(collapsed.values()))
    if drawn > MAX_DRAWN:
        raise TooLarge(f"the diagram would draw {drawn:,} nodes (at most {MAX_DRAWN:,}): "
                       "draw part of it with --focus NODE, or fewer groups with --expand")


# ----------------------------------------------------------------------------- grouping

def _node_keys(universe, keep: set) -> dict:
    """Node id -> its group keys, outermost first; each key holds the one before it, so
    groups nest. A module call's nodes: each prefix of the module path, then the line; other
    nodes: the line. An AccumulateGrad: its module's keys, else those of its consumers when
    they agree (a leaf belongs with the line that used it). No source: no group."""
    keys: dict = {}
    for node_id in keep:
        node = universe[node_id]
        chain = []
        if node.module_type:
            parts = node.module.split(".") if node.module else []
            chain = [("m", ".".join(parts[:i])) for i in range(len(parts) + 1)]
        if node.source and not node.is_accumulator:
            chain.append(("l", node.source))
        if chain:
            keys[node_id] = _cumulative(chain)
    consumers = _consumers(universe, keep)
    for node_id in keep:
        if universe[node_id].is_accumulator:
            users = {keys.get(p, ()) for p in consumers.get(node_id, ())}
            own = keys.get(node_id, ())
            if len(users) == 1 and () not in users and users.copy().pop()[:len(own)] == own:
                keys[node_id] = users.pop()   # a parameter used inside its own module
    return keys


def _cumulative(chain: list) -> tuple:
    out, key = [], ()
    for part in chain:
        key = (*key, part)
        out.append(key)
    return tuple(out)


def _consumers(universe, keep: set) -> dict:
    parents: dict = {}
    for node_id in keep:
        for child, _ in universe[node_id].edges:
            if child in keep:
                parents.setdefault(child, []).append(node_id)
    return parents


def _tree(universe, keep: set, keys: dict) -> _Group:
    """The groups as a tree: at each level, the connected sets of nodes sharing a key."""
    root = _Group(-1, sorted(keep))
    todo = [root]
    while todo:
        group = todo.pop()
        found, single = _split(universe, group, keys)
        group.parts = []
        for members in found:
            head, names = _head(keys[members[0]][group.level + 1][-1], universe, members)
            if names and group.names and head.startswith("line ") \
                    and _one_line(universe, group.members):
                head = group.head   # a module's one line inside it says nothing new
            group.parts.append(_Group(group.level + 1, members, head, names))
        todo.extend(group.parts)
        _runs(group)
        group.parts += single
    return root


def _split(universe, group: _Group, keys: dict) -> tuple[list, list]:
    """The connected sets one level down, and the nodes with no key there. A group that
    would hold one set of all its nodes skips that level (a module's only line)."""
    while True:
        level = group.level + 1
        deeper = [n for n in group.members if len(keys.get(n, ())) > level]
        found = _components(universe, deeper, lambda n, lv=level: keys[n][lv])
        if group.level < 0 or len(found) != 1 or len(deeper) != len(group.members):
            return found, sorted(set(group.members) - set(deeper))
        group.level = level


def _components(universe, nodes: list, key) -> list:
    """Connected sets of ``nodes`` (edges either way) whose ``key`` is equal, in id order."""
    boss = {n: n for n in nodes}

    def find(n):
        while boss[n] != n:
            boss[n] = boss[boss[n]]
            n = boss[n]
        return n
    for n in nodes:
        for child, _ in universe[n].edges:
            if child in boss and key(child) == key(n):
                a, b = find(n), find(child)
                if a != b:
                    boss[max(a, b)] = min(a, b)
    out: dict = {}
    for n in sorted(nodes):
        out.setdefault(find(n), []).append(n)
    return list(out.values())


def _runs(group: _Group) -> None:
    """More than ``FANOUT`` sub-groups (a Sequential of 300 layers): open as runs of them."""
    if len(group.parts) <= FANOUT:
        return
    size = -(-len(group.parts) // FANOUT)
    ordered = sorted(group.parts, key=lambda g: min(g.members))
    runs = []
    for i in range(0, len(ordered), size):
        chunk = ordered[i:i + size]
        members = [m for part in chunk for m in part.members]
        head = f"{chunk[0].head} … {chunk[-1].head}"   # "Linear 0 … Tanh 49"
        runs.append(_Group(group.level, members, head, parts=chunk) if len(chunk) > 1
                    else chunk[0])
    group.parts = runs


def _head(key: tuple, universe, members: list) -> tuple[str, tuple]:
    """A group's name on its box, and the names ``expand`` knows it by."""
    kind, value = key
    lines = {universe[n].source for n in members if universe[n].source}
    line = _line_text(lines.pop()) if len(lines) == 1 else ""
    number = line[5:].partition(":")[0] if line else ""
    if kind == "l":
        return line, (number,)
    types = {universe[n].module_type for n in members if universe[n].module == value}
    kind_name = types.pop() if len(types) == 1 else ""
    if not value:   # the outermost call: its class, or the line calling it
        return kind_name or line or "module call", (number,) if number else ()
    return f"{kind_name} {value}".strip(), (value,)


def _one_line(universe, members: list) -> bool:
    return len({universe[n].source for n in members if universe[n].source}) == 1


def _line_text(source: str) -> str:
    """``file.py:42: h = attn(x)`` -> ``line 42: h = attn(x)``."""
    _, _, rest = source.partition(":")
    return f"line {rest}" if rest else source


def _label(group: _Group) -> str:
    return f"{group.head} — {len(group.members)} nodes" if group.head else \
        f"{len(group.members)} nodes"


# ----------------------------------------------------------------------------- opening

def _open(root: _Group, protected: set, expand: set, budget: int, weight: dict) -> set:
    """The groups drawn open: those ``expand`` names or holding a protected node, then the
    largest others while the drawing stays within ``budget`` elements."""
    opened = {id(root)}
    every = "all" in expand
    for group in _walk(root):
        if every or _named(group, expand) or protected.intersection(group.members):
            opened.update(id(g) for g in _path_to(root, group))
    def cost(part) -> int:
        return weight[part] if not isinstance(part, _Group) else 1
    drawn = sum(cost(p) for p in _leaves_of(root, opened))
    while True:   # a level at a time while the whole level fits, then its largest groups
        closed = sorted(_closed(root, opened), key=lambda g: (-len(g.members), g.members[0]))
        extra = [sum(cost(p) for p in g.parts) - 1 for g in closed]
        if closed and drawn + sum(extra) <= budget:
            opened.update(id(g) for g in closed)
            drawn += sum(extra)
            continue
        for group, more in zip(closed, extra):
            if drawn + more > budget:
                break
            opened.add(id(group))
            drawn += more
        return opened


def _named(group: _Group, expand: set) -> bool:
    return any(name in expand for name in group.names)


def _walk(root: _Group):
    todo = [root]
    while todo:
        group = todo.pop()
        yield group
        todo.extend(p for p in group.parts if isinstance(p, _Group))


def _path_to(root: _Group, target: _Group) -> list:
    """The groups from ``root`` down to ``target`` (a tree walk, no recursion)."""
    todo = [(root, [root])]
    while todo:
        group, path = todo.pop()
        if group is target:
            return path
        todo.extend((p, [*path, p]) for p in group.parts if isinstance(p, _Group))
    return []


def _closed(root: _Group, opened: set) -> list:
    return [p for p in _leaves_of(root, opened) if isinstance(p, _Group) and len(p.members) > 1]


def _leaves_of(root: _Group, opened: set):
    """What is drawn: the closed groups of several nodes, and single nodes."""
    todo = [root]
    while todo:
        group = todo.pop()
        for part in group.parts:
            if not isinstance(part, _Group):
                yield part
            elif id(part) in opened:
                todo.append(part)
            elif len(part.members) == 1:
                yield part.members[0]
            else:
                yield part


# ----------------------------------------------------------------------------- focus

def neighbourhood(universe, focus: int, radius: int) -> set:
    """The nodes at most ``radius`` edges (either way) from ``focus``."""
    adjacent: dict = {}
    for node in universe.values():
        for child, _ in node.edges:
            if child in universe:
                adjacent.setdefault(node.id, set()).add(child)
                adjacent.setdefault(child, set()).add(node.id)
    seen = {focus}
    frontier = [focus]
    for _ in range(radius):
        frontier = sorted({n for f in frontier for n in adjacent.get(f, ()) if n not in seen})
        seen.update(frontier)
    return seen


# ----------------------------------------------------------------------------- chains

def chains(universe, keep: set, protected: set) -> dict:
    """Node id -> a chain ``Box``, for runs of 3+ single-parent single-child op nodes."""
    parents = _consumers(universe, keep)

    def linear(node_id) -> bool:
        node = universe[node_id]
        children = [c for c, _ in node.edges if c in keep]
        return (not node.is_accumulator and node_id not in protected and len(children) == 1
                and len(parents.get(node_id, ())) == 1)

    out: dict = {}
    for node_id in sorted(keep):
        if not linear(node_id) or linear(parents[node_id][0]):
            continue   # not linear, or not the head of its chain
        run, members = [node_id], {node_id}
        nxt = next(c for c, _ in universe[node_id].edges if c in keep)
        while linear(nxt) and nxt not in members:
            run.append(nxt)
            members.add(nxt)
            nxt = next(c for c, _ in universe[nxt].edges if c in keep)
        if len(run) >= 3:
            first, last = universe[run[0]].name, universe[run[-1]].name
            label = f"{len(run)} nodes\n{_short(first)} ... {_short(last)}"
            out.update(dict.fromkeys(run, Box(f"c{run[0]}", label, tuple(run))))
    return out


def _short(name: str) -> str:
    return name.rpartition("::")[2]
