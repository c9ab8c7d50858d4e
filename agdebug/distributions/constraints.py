"""What a distribution's parameters and values must satisfy, checked as torch checks them."""

from __future__ import annotations

__all__ = ["Constraint", "boolean", "dependent", "greater_than", "integer_interval",
           "interval", "is_dependent", "less_than", "positive", "real", "real_vector",
           "simplex", "unit_interval"]


class Constraint:
    """``check(value)`` is a bool tensor: where ``value`` satisfies the constraint."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return f"{self._name()}()"

    def _name(self) -> str:
        return type(self).__name__[1:]   # torch's classes are private: _Real shows as Real


class _Dependent(Constraint):
    """A constraint that depends on other parameters: not checked."""

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


class _Real(Constraint):
    def check(self, value):
        return value == value   # NaN is the one real number that is not


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Bounded(Constraint):
    """A bound or two, shown with torch's field names."""

    def __init__(self, **bounds):
        self.bounds = bounds

    def __repr__(self):
        fields = ", ".join(f"{name}={bound}" for name, bound in self.bounds.items())
        return f"{self._name()}({fields})"


class _GreaterThan(_Bounded):
    def check(self, value):
        return self.bounds["lower_bound"] < value


class _LessThan(_Bounded):
    def check(self, value):
        return value < self.bounds["upper_bound"]


class _Interval(_Bounded):
    def check(self, value):
        return (self.bounds["lower_bound"] <= value) & (value <= self.bounds["upper_bound"])


class _IntegerInterval(_Bounded):
    is_discrete = True

    def check(self, value):
        low, high = self.bounds["lower_bound"], self.bounds["upper_bound"]
        return (value % 1 == 0) & (low <= value) & (value <= high)


class _IndependentConstraint(Constraint):
    """``base`` over the last ``dims`` dimensions at once."""

    def __init__(self, base: Constraint, dims: int):
        self.base, self.dims = base, dims
        self.event_dim = base.event_dim + dims

    def check(self, value):
        valid = self.base.check(value)
        for _ in range(self.dims):
            valid = valid.all(-1)
        return valid

    def __repr__(self):
        return f"{self._name()}({self.base!r}, {self.dims})"


def greater_than(lower_bound) -> _GreaterThan:
    return _GreaterThan(lower_bound=lower_bound)


def less_than(upper_bound) -> _LessThan:
    return _LessThan(upper_bound=upper_bound)


def interval(lower_bound, upper_bound) -> _Interval:
    return _Interval(lower_bound=lower_bound, upper_bound=upper_bound)


def integer_interval(lower_bound, upper_bound) -> _IntegerInterval:
    return _IntegerInterval(lower_bound=lower_bound, upper_bound=upper_bound)


dependent = _Dependent()
real = _Real()
real_vector = _IndependentConstraint(real, 1)
boolean = _Boolean()
simplex = _Simplex()
positive = greater_than(0.0)
unit_interval = interval(0.0, 1.0)
