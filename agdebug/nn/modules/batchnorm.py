"""``BatchNorm1d/2d/3d``: batch statistics in training, running ones in eval (and their lazy
forms, ``LazyBatchNorm1d/2d/3d``, whose ``num_features`` is the first input's).

>>> import agdebug as ag
>>> bn = ag.nn.BatchNorm1d(2)
>>> sorted(bn.state_dict())
['bias', 'num_batches_tracked', 'running_mean', 'running_var', 'weight']
"""

from __future__ import annotations

from ... import backend, creation
from .. import functional as F
from .. import init
from ...graph.grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .normalization import _affine_parameters

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d"]


class _NormBase(Module):
    """torch's ``_NormBase``: the affine parameters and the running statistics' buffers."""

    _version = 2   # version 2 added ``num_batches_tracked``

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine_parameters(self, affine, num_features, device, dtype, bias)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, device=device,
                                                                dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, device=device,
                                                              dtype=dtype))
            self.register_buffer("num_batches_tracked",
                                 creation.tensor(0, dtype=backend.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        # A checkpoint from before version 2 has no ``num_batches_tracked``: the module keeps
        # its own count (0 if it has none), as torch does.
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and \
                key not in state_dict:
            state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None \
                else creation.tensor(0, dtype=backend.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # momentum=None: a cumulative moving average (1 / batches seen so far)
            factor = 1.0 / float(self.num_batches_tracked.item()) if self.momentum is None \
                else self.momentum
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias,
                            use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs.

    >>> import agdebug as ag
    >>> bn = ag.nn.BatchNorm1d(3)
    >>> _ = bn(ag.randn(8, 3))
    >>> int(bn.num_batches_tracked)
    1
    """

    def _check_input_dim(self, input) -> None:
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) images."""

    def _check_input_dim(self, input) -> None:
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) volumes."""

    def _check_input_dim(self, input) -> None:
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """torch's: built with no features and no tensors, then uninitialized ones in their
    place; the first input's dim 1 gives ``num_features``."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=backend.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                for name in ("weight", "bias", "running_mean", "running_var"):
                    tensor = getattr(self, name)
                    if tensor is not None:
                        tensor.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose ``num_features`` is the first input's dim 1."""

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose ``num_features`` is the first input's dim 1."""

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose ``num_features`` is the first input's dim 1."""

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim
