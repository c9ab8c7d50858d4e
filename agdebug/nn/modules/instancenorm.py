"""``InstanceNorm1d/2d/3d``: each sample's channels normalized over their own positions.

>>> import agdebug as ag
>>> ag.nn.InstanceNorm1d(2)(ag.tensor([[[1.0, 3.0], [2.0, 2.0]]]))
tensor([[[-1.0000,  1.0000],
         [ 0.0000,  0.0000]]])
"""

from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *,
                 bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.ndim - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.ndim == self._no_batch_dim:
            return self._normalize(input.unsqueeze(0)).squeeze(0)
        return self._normalize(input)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        # Before version 1, instance norms kept running statistics they did not track.
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var")
                    if prefix + name in state_dict]
            if keys:
                names = " and ".join(f'"{k}"' for k in keys)
                klass = type(self).__name__
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {klass} does not track running "
                    "stats by default since 0.4.0. Please remove these keys from state_dict. "
                    "If the running stats are actually needed, instead set "
                    f"track_running_stats=True in {klass} to enable them. See the "
                    f"documentation of {klass} for details.")
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def _normalize(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or unbatched (C, L) inputs."""

    _no_batch_dim = 2

    def _check_input_dim(self, input) -> None:
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or unbatched (C, H, W) inputs."""

    _no_batch_dim = 3

    def _check_input_dim(self, input) -> None:
        if input.ndim not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.ndim}D input)")


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or unbatched (C, D, H, W) volumes."""

    _no_batch_dim = 4

    def _check_input_dim(self, input) -> None:
        if input.ndim not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.ndim}D input)")


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm1d whose ``num_features`` is the first input's dim 1 (affine and
    tracking running statistics by default, as torch's lazy form is)."""

    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2
    _check_input_dim = InstanceNorm1d._check_input_dim


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm2d whose ``num_features`` is the first input's dim 1."""

    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3
    _check_input_dim = InstanceNorm2d._check_input_dim


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm3d whose ``num_features`` is the first input's dim 1."""

    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
    _check_input_dim = InstanceNorm3d._check_input_dim
