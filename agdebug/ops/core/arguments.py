"""torch's argument parser's words for an argument of the wrong type.

torch checks every argument against the op's schema before running it; agdebug lets the
arguments reach the op and, only when it fails (or hands the registry something that is
not an input), works out which argument torch would have refused and says it in torch's
words: ``exp(): argument 'input' (position 1) must be Tensor, not list``. Nothing here runs
on a call that succeeds, so the op call path costs what it did.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import re
import sys

from ...backend import dtype as _dtype
from ...tensor import Tensor

__all__ = ["type_name", "must_be", "invalid_combination", "input_error", "arity_error",
           "torch_function", "torch_method", "check_namespace", "warning_level",
           "warns"]

_NUMBERS = (bool, int, float, complex)
# Our forwards' and functions' spellings of torch's ``input`` and ``other``.
_INPUT_NAMES = frozenset({"x", "t", "a", "self", "tensor", "input"})
_OTHER_NAMES = frozenset({"y", "b", "other"})
# Optional arguments that are tensors in torch's schemas (``Tensor? bias``): anything but a
# tensor or None there is refused by torch's parser.
_OPTIONAL_TENSORS = frozenset({"weight", "bias", "running_mean", "running_var", "pos_weight",
                               "tau", "offsets", "per_sample_weights", "src", "source"})


_HEAP_TYPE = 1 << 9   # Py_TPFLAGS_HEAPTYPE: a class made by ``class`` (its C name is bare)


def type_name(value) -> str:
    """The type as torch's parser names it: C's name of the type (``list``, ``NoneType``,
    ``numpy.float64``: a C type outside builtins carries its module), ``Tensor``."""
    if isinstance(value, Tensor):
        return "Tensor"
    kind = type(value)
    if kind.__flags__ & _HEAP_TYPE or kind.__module__ == "builtins":
        return kind.__name__
    return f"{kind.__module__}.{kind.__name__}"


def must_be(function: str, param: str, position, expected: str, value) -> TypeError:
    """``exp(): argument 'input' (position 1) must be Tensor, not list``."""
    where = f" (position {position})" if position else ""
    return TypeError(f"{function}(): argument '{param}'{where} must be {expected}, not "
                     f"{type_name(value)}")


def invalid_combination(function: str, args: tuple, kwargs: dict) -> TypeError:
    """The first line of torch's error for a call no overload of an op accepts."""
    got = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    # (torch's formatter ends a keywords-only list with ", ": ``got (dim=str, )``)
    text = ", ".join(got) + (", " if kwargs and not args else "")
    return TypeError(f"{function}() received an invalid combination of arguments - got "
                     f"({text}), but expected one of:")


def torch_param(name: str, index: int) -> str:
    """torch's name of a positional parameter spelled ``name`` here."""
    if index == 0 and name in _INPUT_NAMES:
        return "input"
    return "other" if index == 1 and name in _OTHER_NAMES else name


def input_error(op, args: tuple, index: int) -> TypeError:
    """An op's positional input ``index`` is neither a tensor nor a number."""
    params = [p for p in list(inspect.signature(op.forward).parameters)[1:]]
    name = torch_param(params[index] if index < len(params) else params[-1], index)
    error = must_be(op.name, name, index + 1, "Tensor", args[index])
    # called as a method, torch counts the positions after ``self``
    error.method_words = str(must_be(op.name, name, index, "Tensor", args[index]))
    return error


_TAKES = re.compile(r"\w+\(\) takes (\d+) positional arguments? but (\d+) (?:was|were) given")


def arity_error(function: str, error: TypeError, hidden: int):
    """Python's arity error of a forward, counted without its ``hidden`` leading parameters
    (the array module): ``exp() takes 1 positional argument but 2 were given``."""
    found = _TAKES.fullmatch(str(error))
    if found is None:
        return None
    takes, given = int(found[1]) - hidden, int(found[2]) - hidden
    return TypeError(f"{function}() takes {takes} positional argument{'s' * (takes != 1)} "
                     f"but {given} {'were' if given != 1 else 'was'} given")


# The openings of torch's parser errors, which agdebug's own checks already use.
_TORCH_WORDS = re.compile(r"\w+\(\): argument |\w+\(\) received an invalid combination|"
                          r"expected Tensor as element")


def torch_function(fn, name: str | None = None, method: bool = False, params=None,
                   touched: bool = False, inputs: bool = True):
    """``fn`` with torch's parser errors for its arguments, worked out only when it fails.

    ``params`` maps a parameter to torch's ``(name, position)`` where torch's schema differs
    (``F.embedding``'s ``input`` is aten's ``indices``, position 2); ``touched``: torch's own
    Python code reads the arguments first, so its AttributeError stands (``'list' object has
    no attribute 'size'``) and only a TypeError is put in the parser's words; ``inputs``:
    whether its required arguments are tensors (not a creation function's data and sizes)."""
    name = name or fn.__name__
    caught = TypeError if touched else (TypeError, AttributeError)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except caught as error:
            nested = getattr(error, "_agdebug_refusal", False)   # an inner function's words
            if not nested and (_TORCH_WORDS.match(str(error)) or _deliberate(error) and
                               not str(error).startswith("unsupported operand type")):
                raise   # agdebug's own check already said it (in torch's words)
            refused = _refusal(fn, name, method, args, kwargs, params or {}, inputs)
            if refused is None:
                raise
            refused._agdebug_refusal = True
            raise refused from error
    return call


def _deliberate(error: Exception) -> bool:
    """Whether agdebug raised ``error`` itself (a ``raise`` statement, not Python's or
    NumPy's complaint about an argument it was handed)."""
    tb = error.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
    return line.lstrip().startswith("raise ")


def torch_method(fn, name: str | None = None):
    """``torch_function`` for a Tensor method (``self`` is not counted in positions)."""
    return torch_function(fn, name, method=True)


def _refusal(fn, name: str, method: bool, args: tuple, kwargs: dict, params: dict,
             inputs: bool = True):
    """The TypeError torch's parser gives for this call (its first refused argument in
    torch's order), or None where none is found."""
    try:
        signature = inspect.signature(fn)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None   # an arity error: Python's own words are torch's
    shown = args[1:] if method else args
    found = []
    for index, (param, value) in enumerate(bound.arguments.items()):
        if method and index == 0:
            continue
        spec = signature.parameters[param]
        position = index + (0 if method else 1) if index < len(args) else None
        param, position = params.get(param, (param, position))
        refused = _refuse(name, param, spec, index - method, position, value, shown, kwargs,
                          inputs)
        if refused is not None:
            found.append((position or len(args) + 1, index, refused))
    return min(found, key=lambda f: f[:2])[2] if found else None


def _refuse(name, param, spec, index, position, value, args, kwargs, inputs=True):
    """The parser's error for one argument, or None where torch would take it."""
    if isinstance(value, Tensor) or spec.kind is spec.VAR_KEYWORD:
        return None
    if inputs and spec.default is spec.empty and spec.kind is not spec.VAR_POSITIONAL:
        if index > 0 and (isinstance(value, _NUMBERS) or isinstance(value, (list, tuple))
                          and all(isinstance(v, int) for v in value)):
            return None   # a Scalar ``other``, a shape
        if param == "tensors" and isinstance(value, (list, tuple)):
            return _element_error(value, position)   # (``cat``'s)
        if isinstance(value, (list, tuple)) and value and \
                all(isinstance(v, Tensor) for v in value):
            return None   # a sequence of tensors
        expected = "tuple of Tensors" if param == "tensors" else "Tensor"
        return must_be(name, torch_param(param, index), position, expected, value)
    if param == "dim" and not _is_dims(value):
        if spec.default is None:   # torch's reductions overload dim (ints, names)
            return invalid_combination(name, args, kwargs)
        return must_be(name, "dim", position, "int", value)
    if param == "keepdim" and not isinstance(value, bool):
        return must_be(name, "keepdim", position, "bool", value)
    if param == "dtype" and not isinstance(value, (_dtype, type, type(None))):
        return must_be(name, "dtype", position, "torch.dtype", value)
    if spec.default is None and param in _OPTIONAL_TENSORS and value is not None:
        return must_be(name, param, position, "Tensor", value)
    return None


def check_namespace(namespace: dict, names, renamed=None, params=None, touched=(),
                    inputs: bool = True):
    """Give the public functions ``names`` of a module torch's parser words on failure
    (``torch_function``), under torch's names (``renamed``: ours -> aten's) and schemas
    (``params``: function -> {ours: (torch's name, position)}). Functions that warn are left
    as they are: a wrapper frame would move the line a ``stacklevel`` names."""
    renamed, params = renamed or {}, params or {}
    for public in names:
        fn = namespace[public]
        if not inspect.isfunction(fn) or fn.__name__ == "<lambda>" or warns(fn):
            continue
        namespace[public] = torch_function(fn, renamed.get(public, public),
                                           params=params.get(public), touched=public in touched,
                                           inputs=inputs)


def warns(fn) -> bool:
    """Whether ``fn`` or a function of its module it calls issues a warning whose
    ``stacklevel`` does not count past wrappers (``warning_level``)."""
    if _counts_frames(fn) or "_stacklevel" in fn.__code__.co_varnames:
        return True
    helpers = (fn.__globals__.get(n) for n in fn.__code__.co_names)
    return any(inspect.isfunction(h) and _counts_frames(h) for h in helpers)


def _counts_frames(fn) -> bool:
    names = fn.__code__.co_names
    return "warn" in names and "warning_level" not in names


_WRAPPER = torch_function(type_name).__code__


def warning_level(level: int) -> int:
    """The ``stacklevel`` that names the frame ``level`` would name without the wrappers
    of ``torch_function`` in between, for a warning raised by the caller."""
    frame, depth, counted = sys._getframe(1), 1, 1
    while counted < level and frame.f_back is not None:
        frame, depth = frame.f_back, depth + 1
        counted += frame.f_code is not _WRAPPER
    return depth


def _element_error(values, position):
    """torch's words for a sequence of tensors with something else in it."""
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            return TypeError(f"expected Tensor as element {i} in argument "
                             f"{(position or 1) - 1}, but got {type_name(v)}")
    return None


def _is_dims(value) -> bool:
    if value is None or isinstance(value, int):
        return True
    return isinstance(value, (list, tuple)) and all(isinstance(d, int) for d in value)
