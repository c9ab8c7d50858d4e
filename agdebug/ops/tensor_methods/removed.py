"""What torch removed and keeps only to say so: ``torch.solve``, ``eig``, ``symeig``, ``lstsq``,
``matrix_rank`` (removed in 1.9), ``Tensor.reinforce`` and ``Tensor.volatile``.

Each raises torch's RuntimeError in torch's words, which name the replacement, so a program
written for an old torch fails as it does on torch 2.13, at the same line.
"""

from __future__ import annotations

import warnings

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "
SOLVE = (_REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
         "`torch.linalg.solve` has its arguments reversed and does not return the LU "
         "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
         "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
         "replaced with:\nX = torch.linalg.solve(A, B)")
SYMEIG = (_REMOVED + "The default behavior has changed from using the upper triangular portion "
          "of the matrix by default to using the lower triangular portion.\n\nL, _ = "
          "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, "
          "UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) "
          "should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")
EIG = (_REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
       "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
       "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
       "eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
       "torch.linalg.eig(A)")
LSTSQ = (_REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
         "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
         "in the returned tuple (although it returns other information about the problem).\n\n"
         "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned "
         "solution in `torch.lstsq` stored the residuals of the solution in the last m - n "
         "columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals "
         "are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
         "solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
         "with:\nX = torch.linalg.lstsq(A, B).solution")
MATRIX_RANK = ("This function was deprecated since version 1.9 and is now removed.\nPlease use "
               "the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
               "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")
REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""
VOLATILE_GET = "volatile was removed (Variable.volatile is always False)"
VOLATILE_SET = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


def solve(input, A, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError naming ``torch.linalg.solve``."""
    raise RuntimeError(SOLVE)


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError naming ``torch.linalg.eigh``."""
    raise RuntimeError(SYMEIG)


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed in torch 1.9: raises torch's RuntimeError naming ``torch.linalg.eig``."""
    raise RuntimeError(EIG)


def lstsq(input, A, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError naming ``torch.linalg.lstsq``."""
    raise RuntimeError(LSTSQ)


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError naming ``torch.linalg.matrix_rank``."""
    raise RuntimeError(MATRIX_RANK)


def reinforce(self, reward):
    """Removed: raises torch's RuntimeError showing the ``torch.distributions`` way."""
    raise RuntimeError(REINFORCE)


def _get_volatile(self) -> bool:
    warnings.warn(VOLATILE_GET, UserWarning, stacklevel=2)
    return False


def _set_volatile(self, value) -> None:
    warnings.warn(VOLATILE_SET, UserWarning, stacklevel=2)


FUNCTIONS = {"solve": solve, "symeig": symeig, "eig": eig, "lstsq": lstsq,
             "matrix_rank": matrix_rank}
METHODS = {**{name: FUNCTIONS[name] for name in ("solve", "symeig", "eig", "lstsq")},
           "reinforce": reinforce, "volatile": property(_get_volatile, _set_volatile)}
