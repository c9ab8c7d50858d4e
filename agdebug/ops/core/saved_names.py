"""How a node's ``_saved_<name>`` attributes read: torch's names and values (issue 21).

Resolved once, when an op's node class is built: the derivative keeps reading ``ctx.<name>``
as the forward was given it, while ``grad_fn._saved_<name>`` reads as torch's does (a
reduction as its ``at::Reduction`` number, a ``dim`` list as a tuple, an input's shape as
``_saved_self_sym_sizes``).
"""

from __future__ import annotations

from .gradients import input_shape

# at::Reduction, which torch's loss nodes keep as ``_saved_reduction``
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def reduction_enum(value):
    return REDUCTIONS.get(value, value)


def as_ints(value):
    """An int or a list of ints as torch's ``int[]``: a tuple (None stays None)."""
    if value is None:
        return None
    return (value,) if isinstance(value, int) else tuple(value)


def _converted(field: property, convert) -> property:
    return property(lambda node: convert(field.fget(node)))


def sizes_field(index: int) -> property:
    """An input's shape, as torch's ``_saved_<input>_sym_sizes`` (``()`` where that input
    gets no gradient, as torch's unsaved ``int[]``): read from the node its edge leads to,
    so recording keeps nothing more."""
    def get(node):
        return tuple(input_shape(node, index)) if node._next[index] is not None else ()
    return property(get)


def torch_fields(declared: dict, renamed: dict, sizes: dict) -> dict:
    """The ``_saved_<torch name>`` properties of a node class: ``renamed`` maps a forward
    name to torch's, to None (torch has no such attribute) or to ``(name, convert)``
    (torch's value is ``convert(ctx.<name>)``); ``sizes`` maps a torch name to the input
    whose shape it reads."""
    fields = {}
    for name, field in declared.items():
        torch_name = renamed.get(name, name)
        if isinstance(torch_name, tuple):
            torch_name, convert = torch_name
            field = _converted(field, convert)
        elif torch_name == "reduction":
            field = _converted(field, reduction_enum)
        if torch_name is not None:
            fields[f"_saved_{torch_name}"] = field
    fields.update({f"_saved_{n}": sizes_field(i) for n, i in sizes.items()})
    return fields


def event_names(renamed: dict) -> dict:
    """Forward name -> torch's, for the events (hidden values and conversions left out)."""
    return {n: t[0] if isinstance(t, tuple) else t for n, t in renamed.items() if t is not None}


# The ``sizes=`` of an op whose node torch gives ``_saved_self_sym_sizes``
SELF_SIZES = {"self_sym_sizes": 0}
