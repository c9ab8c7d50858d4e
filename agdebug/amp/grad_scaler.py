"""``torch.amp.GradScaler``: loss scaling for float16 training, as torch does it on one
device: scale the loss, unscale the gradients (finding infs and NaNs), skip the step that
had any, and grow or shrink the scale."""

from __future__ import annotations

import math
import warnings

from .. import cuda
from ..graph.grad_mode import no_grad

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """A disabled scaler (``enabled=False``, or ``"cuda"`` without a GPU, as torch says)
    passes everything through: ``scale(loss)`` is ``loss``, ``step`` is ``optimizer.step()``."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        if enabled and device == "cuda" and not cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            enabled = False
        self._device, self._enabled = device, enabled
        self._scale, self._growth_tracker = float(init_scale), 0
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._per_optimizer = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def get_scale(self) -> float:
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        """``outputs`` (a tensor, or an iterable of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(output) for output in outputs)
        return outputs * self._scale

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale, noting whether any is inf/NaN."""
        if not self._enabled:
            return
        state = self._per_optimizer.setdefault(id(optimizer), {"stage": _READY})
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        state["found_inf"] = self._unscale_grads(optimizer, 1.0 / self._scale)
        state["stage"] = _UNSCALED

    def _unscale_grads(self, optimizer, inverse: float) -> bool:
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        param.grad.mul_(inverse)
                        found_inf = found_inf or not bool(param.grad.isfinite().all())
        return found_inf

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless the unscaled gradients held an inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        state = self._per_optimizer.setdefault(id(optimizer), {"stage": _READY})
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Shrink the scale after a step with infs, grow it after ``growth_interval`` without."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale)
        elif any(state.get("found_inf") for state in self._per_optimizer.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                grown = self._scale * self._growth_factor
                self._scale = grown if math.isfinite(grown) else self._scale
                self._growth_tracker = 0
        self._per_optimizer = {}

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
