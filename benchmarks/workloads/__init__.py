"""The workload groups, in table order: ``GROUPS[id]`` is a module with ``rows(cfg)`` and
``THREAD_SENSITIVE`` (False: its arrays are too small for BLAS threads to matter).
``OPT_IN`` groups run only when ``--only`` names them (slow: real programs)."""

from __future__ import annotations

import importlib

MODULES = {"W1": "chain", "W2": "mlp", "W3": "long_chain", "W4": "fanin", "W5": "memory",
           "W6": "double_grad", "W7": "dot", "REC": "recorder", "TUI": "tui", "TRACE": "trace"}
OPT_IN = {"PROG": "programs"}


def group(name: str):
    """The module of workload group ``name`` (``"W1"``...)."""
    return importlib.import_module(f"{__name__}.{MODULES.get(name) or OPT_IN[name]}")
