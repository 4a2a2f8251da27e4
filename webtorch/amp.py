"""torch.amp: autocast and GradScaler.

autocast is a documented no-op in webtorch for now: code inside it computes in the tensors' own
dtypes (float32 stays float32), so results match torch without autocast, not torch's reduced
precision. GradScaler works as torch's does (scale the loss, unscale the gradients, skip the
step when they hold inf/NaN, grow or back off the scale); for device "cuda", which is not here,
it disables itself with torch's warning, as torch's CPU build does.
"""
import contextlib
import math
import warnings

from . import _ops
from .autograd import no_grad


class autocast(contextlib.ContextDecorator):
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device_type, self.fast_dtype, self._enabled = device_type, dtype, enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def is_autocast_available(device_type):
    return device_type in ("cpu", "webgpu")


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        if enabled and device == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            enabled = False
        self._enabled = enabled
        self._scale, self._growth_tracker = float(init_scale), 0
        self._growth_factor, self._backoff_factor, self._growth_interval = growth_factor, backoff_factor, \
            growth_interval
        self._per_optimizer = {}  # id(optimizer) -> {"stage": ..., "found_inf": bool}

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        return _ops.mul(outputs, self._scale)

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": "ready", "found_inf": False})

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = _f32(1.0 / self._scale)  # torch: the reciprocal in float64, then float32
        flags = []
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv_scale)
                    flags.append(_ops.logical_not(_ops.all(_ops.isfinite(p.grad))))
        found = flags[0] if flags else None
        for f in flags[1:]:
            found = _ops.logical_or(found, f)
        state["found_inf"] = bool(found.item()) if found is not None else False  # one readback, as torch's step
        state["stage"] = "unscaled"

    def step(self, optimizer, *args, **kwargs):
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        state = self._state(optimizer)
        if state["stage"] == "stepped":
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == "ready":
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = "stepped"
        return result

    def update(self, new_scale=None):
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if hasattr(new_scale, "item") else new_scale)
        else:
            if not self._per_optimizer:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(s["found_inf"] for s in self._per_optimizer.values()):
                self._scale, self._growth_tracker = _f32(self._scale * self._backoff_factor), 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    grown = _f32(self._scale * self._growth_factor)
                    if math.isfinite(grown):
                        self._scale = grown
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_growth_factor(self):
        return self._growth_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def get_growth_interval(self):
        return self._growth_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor, self._backoff_factor = state_dict["growth_factor"], state_dict["backoff_factor"]
        self._growth_interval, self._growth_tracker = state_dict["growth_interval"], state_dict["_growth_tracker"]


def _f32(v):
    """v rounded to float32, as torch's scale tensor holds it."""
    import struct
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)
