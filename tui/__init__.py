"""agdebug's terminal debugger (installed as ``agdebug_tui``): step through autograd.

    agdebug run SCRIPT      live: the script runs in a worker thread, paused between events
    agdebug replay TRACE    a recording, with time travel
    agdebug demo [NAME]     the classroom demos

>>> from agdebug_tui import AgDebugApp    # doctest: +SKIP
>>> AgDebugApp(trace_path="run.agtrace").run()    # doctest: +SKIP
"""

from .app import AgDebugApp

__all__ = ["AgDebugApp"]
from .bench import step_latency

__all__ += ["step_latency"]
