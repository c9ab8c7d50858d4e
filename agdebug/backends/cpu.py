"""``torch.backends.cpu``: agdebug's CPU code is NumPy's, with no kernels of its own."""


def get_cpu_capability() -> str:
    """``"DEFAULT"``: agdebug picks no vector instruction set itself (NumPy does)."""
    return "DEFAULT"
