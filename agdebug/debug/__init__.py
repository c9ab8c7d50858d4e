"""The debugger's model: recordings (``record``, ``Trace``) and ``GraphState``.

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     x = ag.tensor([2.0], requires_grad=True)
...     (x * x).backward()
>>> state = trace.state()
>>> state.leaves[state.nodes[1].leaf.id].grad.shape if 1 in state.nodes else (1,)
(1,)
"""

from .recorder import Trace, TraceError, load_trace, record
from .state import GraphState, NodeView, Timeline, reduce

__all__ = [
           "GraphState",
           "NodeView",
           "Timeline",
           "Trace",
           "TraceError",
           "load_trace",
           "record",
           "reduce",
]
