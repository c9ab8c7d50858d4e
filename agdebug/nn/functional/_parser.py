"""torch's argument parser's words for the functions of ``torch.nn.functional`` (see
:mod:`agdebug.ops.core.arguments`), under aten's names and schemas where they differ from ours.

A family module gives its functions the words at home (``torch_words(globals(), ...)`` at
its end) where calls between them should go through the words, as they did when
``functional`` was one module (``cross_entropy`` calls the worded ``nll_loss``); the
functions whose nn modules call them bare (``interpolate`` by ``Upsample``, ``fold`` by
``Fold``) get them in the package's namespace only, in ``functional/__init__.py``.
"""

from __future__ import annotations

from ...ops.core.arguments import check_namespace

__all__ = ["torch_words"]

_ATEN_NAMES = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd",
               "logsigmoid": "log_sigmoid"}
_ATEN_PARAMS = {
    "batch_norm": {"weight": ("weight", 2), "bias": ("bias", 3),
                   "running_mean": ("running_mean", 4), "running_var": ("running_var", 5)},
    "embedding": {"input": ("indices", 2), "weight": ("weight", 1)},
}
# Functions whose torch Python code reads an argument before the parser sees it: a
# non-tensor fails there, with Python's AttributeError (``'list' object has no attribute
# 'size'``), as it does here.
_TOUCHED_FIRST = frozenset({
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool3d", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "embedding_bag", "gaussian_nll_loss", "glu", "group_norm", "huber_loss", "instance_norm",
    "interpolate", "l1_loss", "margin_ranking_loss", "mse_loss", "normalize", "smooth_l1_loss",
    "softsign", "tanhshrink", "upsample", "upsample_bilinear", "upsample_nearest"})


def torch_words(namespace: dict, names) -> None:
    """Give the functions ``names`` of a module's ``namespace`` torch's parser words."""
    check_namespace(namespace, names, _ATEN_NAMES, _ATEN_PARAMS, _TOUCHED_FIRST)
