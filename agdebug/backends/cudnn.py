"""``torch.backends.cudnn``: agdebug has no cuDNN; its flags are torch's defaults."""

enabled = True
benchmark = False
benchmark_limit = None   # torch without cuDNN reports none
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: agdebug does not use cuDNN."""
    return False


def version():
    """None: no cuDNN library is loaded."""
    return None


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would take ``tensor``: never, here."""
    return False
