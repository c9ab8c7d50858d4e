"""The names a user gave tensors: the assignment target of the code that made one.

The statement starting at a source line is parsed with ``ast`` once (never evaluated)
into a table from the position of each assigned value to its target's text. The running
instruction's position (``code.co_positions()``) then says whether it computes that whole
value (``y = x * w``: the multiplication does) or a part of it (``y = (x * w).sum()``: the
multiplication is not ``y``, the ``sum`` is). Plain data only: any event source (agdebug's
probe, the torch watcher) can ask ``assigned_names(filename, position)``.

>>> import ast
>>> _targets(ast.parse("a, self.b = f(x)").body[0])
(('a', 'self.b'),)
"""

from __future__ import annotations

import ast
import linecache

__all__ = ["MAX_NAME", "RETURNED", "assigned_names", "frame_names", "forget", "parameter_names"]

_OPTIMIZED = 0x1   # a code object's flag (inspect.CO_OPTIMIZED): a function's fast locals
MAX_NAME = 200   # characters: a name is a label, not a program
RETURNED = ("<return>",)   # what the table gives the whole value of a ``return``

# (first line, last line, first column, end column) of an assigned value -> its targets
Span = tuple[int, int, int, int]
_TABLES: dict[tuple[str, int], dict[Span, tuple[str, ...]]] = {}   # by (file, line)
_FRAMES: dict[tuple, tuple[str, ...]] = {}   # (code, instruction offset) -> names


def frame_names(frame) -> tuple[str, ...]:
    """The names the statement running in ``frame`` gives the value being computed now."""
    code, lasti = frame.f_code, frame.f_lasti
    key = (code, lasti)
    names = _FRAMES.get(key)
    if names is None:
        if len(_FRAMES) >= 4096:
            _FRAMES.clear()
        names = _FRAMES[key] = assigned_names(code.co_filename, _position(code, lasti))
    return names


def parameter_names(module, caller):
    """``(name, tensor)`` for the parameters and buffers of ``module``, the outermost module
    being called: each named by its attribute path (``0.weight``, as ``named_parameters()``
    gives it). A module's own (a bare ``weight``, ambiguous beside another module's) is
    prefixed with the one variable the calling frame ``caller`` binds the module to:
    ``head = nn.Linear(...)`` names ``head.weight``. Only a script's top level (or code run
    with a namespace) is looked at: its variables are a dict; a function's ``f_locals``
    would be a snapshot kept on its frame, holding its tensors alive after the program
    deletes them."""
    variable = None
    for path, tensor in (*module.named_parameters(), *module.named_buffers()):
        if tensor is None:
            continue
        if "." not in path:
            if variable is None:   # (looked up once, and only for a module's own)
                variable = _variable(module, caller)
            path = f"{variable}.{path}" if variable else path
        yield path[:MAX_NAME], tensor


def _variable(module, caller) -> str:
    if caller is None or caller.f_code.co_flags & _OPTIMIZED:
        return ""
    bound = [name for name, value in caller.f_locals.items()
             if value is module and not name.startswith("_")]
    return bound[0] if len(bound) == 1 else ""


def _position(code, lasti: int) -> Span | None:
    for i, position in enumerate(code.co_positions()):
        if i == lasti // 2:   # one position per 2-byte code unit
            return position if None not in position else None
    return None


def assigned_names(filename: str, position: Span | None) -> tuple[str, ...]:
    """The targets of the value at ``position`` in ``filename``: ``("x",)``, ``("a", "b")``
    for a tuple target, ``()`` when that code is not an assigned value."""
    if position is None:
        return ()
    key = (filename, position[0])
    table = _TABLES.get(key)
    if table is None:
        if len(_TABLES) >= 4096:
            _TABLES.clear()
        table = _TABLES[key] = _table(*key)
    return table.get(tuple(position), ())


def forget() -> None:
    """Drop what was read (a later recording rereads files that may have changed)."""
    _TABLES.clear()
    _FRAMES.clear()


def _table(filename: str, lineno: int) -> dict[Span, tuple[str, ...]]:
    """Positions of assigned values -> targets, for the statement starting at ``lineno``."""
    tree = _statement(filename, lineno)
    indent = len(_indent(linecache.getline(filename, lineno)))
    table = {}
    for statement in ast.walk(tree) if tree is not None else ():
        pairs = ()
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            pairs = _pairs(statement)
        elif isinstance(statement, ast.Return) and statement.value is not None:
            pairs = ((statement.value, RETURNED),)   # a library function's result
        for node, names in pairs:
                # parsed dedented and from line 1: back to the file's lines and columns
                first = indent if node.lineno == 1 else 0
                last = indent if node.end_lineno == 1 else 0
                table[(node.lineno + lineno - 1, node.end_lineno + lineno - 1,
                       node.col_offset + first, node.end_col_offset + last)] = names
    return table


def _statement(filename: str, lineno: int, most: int = 20):
    """The statement starting at ``lineno`` (it may go on for ``most`` lines), or None."""
    lines = linecache.getlines(filename)[lineno - 1:lineno - 1 + most]
    if not lines:
        return None
    indent = _indent(lines[0])
    lines[0] = lines[0][len(indent):]
    for end in range(1, len(lines) + 1):
        try:
            return ast.parse("".join(lines[:end]))
        except (SyntaxError, ValueError):   # cut inside brackets (or not Python at all)
            continue
    return None


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def _pairs(statement):
    """(the node whose value gets the names, the names) for one assignment."""
    if statement.value is None:   # ``x: int``
        return
    targets = _targets(statement)
    if isinstance(statement, ast.AugAssign):   # ``x += y`` runs as one whole-statement step
        if targets:
            yield statement, targets[0]
        return
    for names in targets[:1]:   # ``a = b = f()``: the first target
        value = statement.value
        if len(names) > 1 and isinstance(value, ast.Tuple) and len(value.elts) == len(names):
            for elt, name in zip(value.elts, names):   # ``a, b = f(x), g(y)``
                yield elt, (name,)
        else:
            yield value, names


def _targets(statement) -> tuple[tuple[str, ...], ...]:
    """Each target's names; a target that is not a name, attribute or tuple of them: none."""
    targets = getattr(statement, "targets", None) or [statement.target]
    out = []
    for target in targets:
        elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        names = tuple(_dotted(e) for e in elts)
        if all(names):
            out.append(names)
    return tuple(out)


def _dotted(node) -> str:
    """``x``, ``self.w``, ``a.b.c``; "" for anything else (``x[0]``, ``*rest``)."""
    if isinstance(node, ast.Name):
        return node.id[:MAX_NAME]
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}"[:MAX_NAME] if base else ""
    return ""
