"""What complex-aware code asks of agdebug's real tensors, answered as torch answers for a
real tensor: ``conj()``, ``resolve_conj()``, ``resolve_neg()`` and ``real`` are the tensor
itself, ``is_conj()``/``is_neg()`` False, ``imag`` refused; ``H``, ``mH`` and ``adjoint()``
are transposes (the conjugate of a real value is itself)."""

from __future__ import annotations

import warnings


def _itself(self):
    return self


def _false(self) -> bool:
    return False


def _imag(self):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _h(self):
    if self.ndim == 0:
        return _deprecated_on_0d(self, "H")
    if self.ndim != 2:
        advice = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor.{advice}")
    return self.transpose(0, 1)


def _mh(self):
    if self.ndim == 0:
        return _deprecated_on_0d(self, "mH")
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {self.ndim}-D tensor.")
    return self.transpose(-2, -1)


def _deprecated_on_0d(self, name: str):
    warnings.warn(f"Tensor.{name} is deprecated on 0-D tensors. Consider using x.conj().",
                  UserWarning, stacklevel=3)
    return self


METHODS = {"conj": _itself, "resolve_conj": _itself, "resolve_neg": _itself,
           "conj_physical": _itself, "is_conj": _false, "is_neg": _false,
           "real": property(_itself), "imag": property(_imag), "H": property(_h),
           "mH": property(_mh), "adjoint": _mh}
