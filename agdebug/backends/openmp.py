"""``torch.backends.openmp``: agdebug starts no OpenMP threads itself."""


def is_available() -> bool:
    return False
