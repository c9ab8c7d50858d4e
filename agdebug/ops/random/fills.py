"""torch's random fills and samplers on tensors: ``normal_``, ``uniform_``, ``bernoulli_``,
``random_``, ``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``, ``bernoulli``
and ``multinomial``, with torch's nodes (NormalBackward0...) and argument checks.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from ... import backend
from ...backend import cpp_name, dtype_name, get_dtype
from ...tensor import Tensor
from ..tensor_methods import views
from ..tensor_methods.inplace_variants import _invalid
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..core.checks import kernel_missing
from ..core.gradients import zero_grads

# ----------------------------------------------------------------------------- random fills
# Drawn on the host from torch's generator (agdebug/generator.py: the default one, seeded by
# ``agdebug.manual_seed``, or the ``generator=`` given), then moved to the target's device.
# torch records each fill on a tensor that requires grad (NormalBackward0...) with a zero
# gradient for the target; a leaf requiring grad is refused outside no_grad.

_chosen = threading.local()   # the ``generator=`` of the fill running on this thread


@contextlib.contextmanager
def drawing_from(generator):
    """Draws inside the block come from ``generator`` (None: the default one); it is not
    an op attribute, so that events and saved attributes never hold it."""
    before = getattr(_chosen, "generator", None)
    _chosen.generator = generator
    try:
        yield
    finally:
        _chosen.generator = before


def chosen_generator():
    """The ``generator=`` of the op drawing on this thread (None: the default one)."""
    return getattr(_chosen, "generator", None)


def _draw(xp, x, sample):
    from ... import creation  # (creation imports the ops package: import it late)
    values = sample(creation.generator(chosen_generator()), x)
    values = np.asarray(values).astype(x.dtype, copy=False)
    return values if xp is np else xp.asarray(values)


def _random_op(name: str, node: str, sample):
    op = defop(name, node=node)(sample)
    op.vjp(zero_grads)
    return op


def _contiguous(x) -> bool:
    return bool(x.flags.c_contiguous)


normal_op = _random_op("normal_", "NormalBackward0", lambda xp, x, mean=0.0, std=1.0: _draw(
    xp, x, lambda g, a: g.normal(a.shape, dtype_name(a.dtype), mean, std, _contiguous(a))))
uniform_op = _random_op("uniform_", "UniformBackward0", lambda xp, x, low=0.0, high=1.0: _draw(
    xp, x, lambda g, a: g.uniform(a.shape, dtype_name(a.dtype), low, high)))
exponential_op = _random_op("exponential_", "ExponentialBackward0", lambda xp, x, lambd=1.0:
                            _draw(xp, x, lambda g, a: g.exponential(a.shape, dtype_name(a.dtype),
                                                                    lambd)))
geometric_op = _random_op("geometric_", "GeometricBackward0", lambda xp, x, p=0.5: _draw(
    xp, x, lambda g, a: g.geometric(a.shape, dtype_name(a.dtype), p)))
log_normal_op = _random_op("log_normal_", "LogNormalBackward0", lambda xp, x, mean=1.0, std=2.0:
                           _draw(xp, x, lambda g, a: g.log_normal(a.shape, dtype_name(a.dtype),
                                                                  mean, std)))
cauchy_op = _random_op("cauchy_", "CauchyBackward0", lambda xp, x, median=0.0, sigma=1.0: _draw(
    xp, x, lambda g, a: g.cauchy(a.shape, dtype_name(a.dtype), median, sigma)))
bernoulli_scalar_op = _random_op("bernoulli_", "BernoulliBackward2", lambda xp, x, p=0.5: _draw(
    xp, x, lambda g, a: g.bernoulli(a.shape, p)))
# random_(from, to), random_(to), random_(): three nodes; ``high`` is exclusive
random_op = _random_op("random_", "RandomBackward0", lambda xp, x, low=0, high=1: _draw(
    xp, x, lambda g, a: g.randint(low, high, a.shape)))
random_to_op = _random_op("random_to_", "RandomBackward1", lambda xp, x, high=1: _draw(
    xp, x, lambda g, a: g.randint(0, high, a.shape)))
random_full_op = _random_op("random_full_", "RandomBackward2", lambda xp, x, high=1: _draw(
    xp, x, lambda g, a: g.randint(0, high, a.shape)))


@defop("bernoulli_tensor_", node="BernoulliBackward1")
def bernoulli_tensor_op(xp, x, p):
    p = backend_cpu(xp.broadcast_to(p, x.shape))
    return _draw(xp, x, lambda g, a: g.bernoulli_each(p))


bernoulli_tensor_op.vjp(zero_grads)


@defop("bernoulli", node="BernoulliBackward0")
def bernoulli_op(xp, p):
    return _draw(xp, p, lambda g, a: g.bernoulli_each(backend_cpu(p)))


bernoulli_op.vjp(zero_grads)


@defop("bernoulli_p", node="NotImplemented")
def bernoulli_p_op(xp, x, p=0.5):
    return _draw(xp, x, lambda g, a: g.bernoulli(a.shape, p))


@bernoulli_p_op.vjp
def bernoulli_p_vjp(ctx, grad):
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


def backend_cpu(array):
    """``array`` on the host (the draws are made there)."""
    return backend.move_array(array, backend.CPU)


def _floating_fill(name: str, self: Tensor) -> None:
    kind = self._data.dtype.kind
    if kind not in "f":
        kernel = {"normal": "normal_kernel_cpu", "uniform": "check_uniform_bounds",
                  "log_normal": "log_normal_cpu"}.get(name)
        dt = get_dtype(self._data.dtype)
        if kernel is not None:
            raise kernel_missing(kernel, dt)
        title = name.capitalize()
        raise RuntimeError(f"{title} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{dt._legacy if name == 'exponential' else cpp_name(dt.np)}")


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples of N(mean, std²) (NormalBackward0 on a tensor requiring grad)."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    _floating_fill("normal", self)
    with drawing_from(generator):
        return apply_inplace(normal_op, self, (), {"mean": mean, "std": std})


def uniform_(self, *args, generator=None, **kwargs):
    """``x.uniform_(from=0, to=1)``: fill with samples of U[from, to) (UniformBackward0)."""
    low = kwargs.pop("from", args[0] if args else 0.0)
    high = kwargs.pop("to", args[1] if len(args) > 1 else 1.0)
    _floating_fill("uniform", self)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_num(low)} > to={_num(high)}")
    with drawing_from(generator):
        return apply_inplace(uniform_op, self, (), {"low": low, "high": high})


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples of Exp(lambd) (ExponentialBackward0)."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    _floating_fill("exponential", self)
    with drawing_from(generator):
        return apply_inplace(exponential_op, self, (), {"lambd": lambd})


def geometric_(self, p, *, generator=None):
    """Fill with the trial of the first success, success probability p (GeometricBackward0)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    with drawing_from(generator):
        return apply_inplace(geometric_op, self, (), {"p": p})


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp of samples of N(mean, std²) (LogNormalBackward0)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    _floating_fill("log_normal", self)
    with drawing_from(generator):
        return apply_inplace(log_normal_op, self, (), {"mean": mean, "std": std})


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples of Cauchy(median, sigma) (CauchyBackward0)."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    _floating_fill("cauchy", self)
    with drawing_from(generator):
        return apply_inplace(cauchy_op, self, (), {"median": median, "sigma": sigma})


_P_MESSAGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
              "message be improved?  If so, please report an enhancement request to PyTorch.)")


def _check_probabilities(p: Tensor, kernel: str) -> None:
    if p._data.dtype.kind != "f":
        raise kernel_missing(kernel, get_dtype(p._data.dtype))
    if p._data.size and not bool(((p._data >= 0) & (p._data <= 1)).all()):
        raise RuntimeError(_P_MESSAGE)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 1 with probability p, else 0: BernoulliBackward2 (a number p) or
    BernoulliBackward1 (a tensor p, broadcast to x)."""
    if isinstance(p, Tensor):
        _check_probabilities(p, "bernoulli_tensor_cpu_p_")
        views.expand(p, self.shape)   # torch's expand error where p does not broadcast to x
        with drawing_from(generator):
            return apply_inplace(bernoulli_tensor_op, self, (p,), {})
    _check_p(p)
    with drawing_from(generator):
        return apply_inplace(bernoulli_scalar_op, self, (), {"p": p})


def _check_p(p) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")


def bernoulli(input, p=None, *, generator=None):
    """``x.bernoulli()``: 1 with probability x, else 0 (BernoulliBackward0); with a number
    ``p``, that probability everywhere (torch records NotImplemented)."""
    if p is not None:
        _check_p(p)
        with drawing_from(generator):
            return bernoulli_p_op(input, p=p)
    _check_probabilities(input, "bernoulli_tensor_cpu_p_")
    with drawing_from(generator):
        return bernoulli_op(input)


# random_(): the largest value each dtype holds exactly, inclusive (torch's ranges)
_RANDOM_TOP = {"float16": 2 ** 11, "float32": 2 ** 24, "float64": 2 ** 53, "bool": 1}


def random_(self, *args, generator=None, **kwargs):
    """``random_(from, to)``, ``random_(to)`` or ``random_()``: integers in [from, to)
    (RandomBackward0/1/2); without bounds, all those the dtype holds exactly."""
    low, high = kwargs.pop("from", None), kwargs.pop("to", None)
    values = [*args, *(v for v in (low, high) if v is not None)]
    if any(not isinstance(v, int) or isinstance(v, bool) for v in values):
        raise _invalid("random_", *values)
    if len(values) == 2:
        low, high = values
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        with drawing_from(generator):
            return apply_inplace(random_op, self, (), {"low": low, "high": high})
    if len(values) == 1:
        with drawing_from(generator):
            return apply_inplace(random_to_op, self, (), {"high": values[0]})
    dt = self._data.dtype
    top = _RANDOM_TOP.get(dt.name) or int(np.iinfo(dt).max)
    with drawing_from(generator):
        return apply_inplace(random_full_op, self, (), {"high": top + 1})


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` indices drawn from each row's distribution ``input`` (int64)."""
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{get_dtype(data.dtype)._legacy}")
    if data.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > data.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if data.shape[-1] == 0:   # (torch's check of the values reduces the empty rows first)
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    rows = backend_cpu(data).reshape(-1, data.shape[-1])
    total = rows.sum(axis=1)
    # a good distribution passes in three passes; the exact checks say what is wrong
    if rows.size and not (rows.min() >= 0 and np.isfinite(total).all() and total.min() > 0):
        if not np.isfinite(rows).all() or (rows < 0).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (total <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    from ... import creation
    drawn = creation.generator(generator).multinomial(rows, num_samples, replacement)
    drawn = drawn.reshape(data.shape[:-1] + (num_samples,)).astype(np.int64)
    return Tensor._wrap(backend.move_array(drawn, input.device))


def _num(value) -> str:
    """A number as torch's messages print it (``-1``, not ``-1.0``; ``1.5``)."""
    return str(int(value)) if float(value).is_integer() else str(value)


METHODS = {"normal_": normal_, "uniform_": uniform_, "exponential_": exponential_,
                "geometric_": geometric_, "log_normal_": log_normal_, "cauchy_": cauchy_,
                "bernoulli_": bernoulli_, "bernoulli": bernoulli, "random_": random_,
                "multinomial": multinomial}
FUNCTIONS = {"bernoulli": bernoulli, "multinomial": multinomial}
