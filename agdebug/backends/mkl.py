"""``torch.backends.mkl``: agdebug does not call MKL itself (NumPy's BLAS may be any)."""


def is_available() -> bool:
    return False
