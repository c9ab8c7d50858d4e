"""Watch PyTorch itself: real torch's autograd, observed through its public hooks.

Inside ``with agdebug.watch.torch() as trace:`` every node torch creates, every backward
step, saved-tensor release, node freed and reference cycle becomes the same event record
agdebug's own engine publishes, on the same bus: ``trace`` is a ``Trace`` like
``agdebug.debug.record`` gives, and ``agdebug.events.subscribe`` subscribers see the
events too. Torch is imported only when watching starts; nothing stays installed after
the block.

>>> import torch as real_torch                                     # doctest: +SKIP
>>> import agdebug.watch
>>> with agdebug.watch.torch() as trace:                           # doctest: +SKIP
...     x = real_torch.ones(2, requires_grad=True)
...     (x * x).sum().backward()
>>> [e.name for e in trace.events if e.kind == "node_started"]     # doctest: +SKIP
['SumBackward0', 'MulBackward0', 'torch::autograd::AccumulateGrad']
"""

from __future__ import annotations

from contextlib import contextmanager

from .session import watching

__all__ = ["torch", "watching"]


@contextmanager
def torch(path=None, values: bool = False, subscriber=None):
    """Record real torch's autograd events inside the block into a ``Trace`` (streamed to
    ``path`` when given); ``subscriber(event)`` also gets every event, as with
    ``agdebug.events.subscribe``; ``values=True`` adds value previews and statistics."""
    from ..debug.recorder import record   # (the recorder is a consumer: imported on use)
    from ..events.bus import subscribe
    with record(path, values=values) as trace:
        sub = subscribe(subscriber, values=values) if subscriber is not None else None
        try:
            with watching():
                yield trace
        finally:
            if sub is not None:
                sub.close()
