"""``torch.backends.mps``: Apple's Metal backend, which agdebug does not have."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
