"""``torch.distributed``: agdebug has no distributed training (one process, one device).

``is_available()`` is False, as in a torch built without it, so a script that checks first
runs on; the process-group calls refuse in one line that names them.

>>> import agdebug as ag
>>> ag.distributed.is_available(), ag.distributed.is_initialized()
(False, False)
"""

from __future__ import annotations

__all__ = ["all_gather", "all_reduce", "barrier", "broadcast", "destroy_process_group",
           "get_rank", "get_world_size", "init_process_group", "is_available",
           "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available",
           "is_torchelastic_launched", "new_group", "reduce"]


def is_available() -> bool:
    """False: agdebug has no torch.distributed."""
    return False


def is_initialized() -> bool:
    """False: no process group can exist."""
    return False


def is_nccl_available() -> bool:
    return False


def is_gloo_available() -> bool:
    return False


def is_mpi_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return False


def refusal(name: str) -> RuntimeError:
    """The one line every distributed call raises."""
    return RuntimeError(f"torch.distributed.{name}: agdebug has no distributed training "
                        "(torch.distributed.is_available() is False)")


def _refuses(name: str):
    def refused(*args, **kwargs):
        raise refusal(name)
    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = f"Refused: agdebug has no torch.distributed.{name}."
    return refused


init_process_group = _refuses("init_process_group")
destroy_process_group = _refuses("destroy_process_group")
new_group = _refuses("new_group")
get_rank = _refuses("get_rank")
get_world_size = _refuses("get_world_size")
barrier = _refuses("barrier")
all_reduce = _refuses("all_reduce")
all_gather = _refuses("all_gather")
broadcast = _refuses("broadcast")
reduce = _refuses("reduce")
