"""torch spellings of what agdebug already computes: the in-place ``ldexp_``, ``polygamma_``
and ``mvlgamma_``; ``torch.adjoint``, ``torch.real``, ``torch.imag`` (the methods, as torch's
functions are); ``torch.can_cast``, torch's casting rule between dtypes."""

from __future__ import annotations

from ... import backend
from ...tensor import Tensor
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..pointwise import special


def ldexp_(self, other):
    """``self *= 2 ** other`` in place (``LdexpBackward0``); also ``torch.ldexp_(input, other)``.
    """
    return apply_inplace(special.ldexp, self, (other,), {})


@defop("polygamma_", node="PolygammaBackward1", saves=("x",))
def polygamma_op(xp, x, n=0):
    """torch's in-place schema ``polygamma_(self, n)`` has its own node, PolygammaBackward1."""
    return special.polygamma.forward(xp, x, n)


@polygamma_op.vjp
def polygamma_vjp(ctx, grad):
    return (grad * special.polygamma(ctx.x, n=ctx.n + 1),)


def polygamma_(self, n):
    """``self = polygamma(n, self)`` in place (``PolygammaBackward1``)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return apply_inplace(polygamma_op, self, (), {"n": int(n)})


def mvlgamma_(self, p):
    """``self = mvlgamma(self, p)`` in place (``MvlgammaBackward0``)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return apply_inplace(special.mvlgamma, self, (), {"p": int(p)})


def _kind(dtype) -> int:
    return 3 if dtype.is_complex else 2 if dtype.is_floating_point else \
        0 if dtype.np.kind == "b" else 1


def can_cast(from_, to=None) -> bool:
    """Whether torch's type promotion allows casting ``from_`` to ``to``: never to a lower kind
    (complex, floating, integral, bool, in that order).

    >>> import agdebug as ag
    >>> ag.can_cast(ag.float32, ag.int32), ag.can_cast(ag.int32, ag.float32)
    (False, True)
    """
    if to is None:
        raise TypeError('can_cast() missing 1 required positional arguments: "to"')
    for position, (argument, value) in enumerate((("from_", from_), ("to", to)), start=1):
        if not isinstance(value, backend.dtype):
            raise TypeError(f"can_cast(): argument '{argument}' (position {position}) must be "
                            f"torch.dtype, not {type(value).__name__}")
    return _kind(from_) <= _kind(to)


def _method_function(name: str):
    def function(input):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        attribute = getattr(input, name)
        return attribute() if callable(attribute) else attribute
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input)``: ``input.{name}``."
    return function


METHODS = {"ldexp_": ldexp_, "polygamma_": polygamma_, "mvlgamma_": mvlgamma_}
FUNCTIONS = {"can_cast": can_cast, "ldexp_": ldexp_,
             **{name: _method_function(name) for name in ("adjoint", "real", "imag")}}
