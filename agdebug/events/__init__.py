"""Events: typed records of every step the engine takes, and the bus they travel on.

The engine publishes one immutable record per step (see ``records``); anyone can
listen with ``subscribe``. With nobody listening, the engine pays one attribute
test (``WATCH.on``) per step.

>>> import agdebug as ag
>>> from agdebug.events import subscribe
>>> kinds = []
>>> with subscribe(lambda e: kinds.append(e.kind)):
...     x = ag.tensor([1.0, 2.0], requires_grad=True)
...     (x * x).sum().backward()
>>> kinds[0], 'backward_finished' in kinds
('node_created', True)
"""

from . import records
from .bus import WATCH, Subscription, publish, subscribe
from .records import EVENT_TYPES, Event, TensorSummary, event_from_dict

__all__ = [
           "EVENT_TYPES",
           "WATCH",
           "Event",
           "Subscription",
           "TensorSummary",
           "event_from_dict",
           "publish",
           "records",
           "subscribe",
]
