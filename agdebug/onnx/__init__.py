"""``torch.onnx``: importable, so a script that imports it runs; agdebug has no ONNX export.

>>> import agdebug as ag
>>> ag.onnx.is_in_onnx_export()
False
"""

from __future__ import annotations

__all__ = ["export", "is_in_onnx_export"]


def export(model, args=(), f=None, **kwargs):
    """Refused: agdebug has no ONNX export."""
    raise RuntimeError("torch.onnx.export: agdebug has no ONNX export (export the model "
                       "with PyTorch)")


def is_in_onnx_export() -> bool:
    """False: agdebug never traces a model for ONNX."""
    return False
