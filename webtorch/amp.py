"""torch.amp: autocast and GradScaler.

autocast(device_type="webgpu" | "cpu", dtype=...) runs the ops on torch's autocast lists in lower
precision (float16 by default on "webgpu", native where the adapter offers shader-f16 and
emulated in f32 elsewhere; bfloat16 by default on "cpu") and those on its float32 lists in float32: see webtorch/_autocast.py for the
policies. device_type "cuda" disables itself with torch's warning, as torch's CPU build does.
GradScaler works as torch's does (scale the loss, unscale the gradients, skip the step when they
hold inf/NaN, grow or back off the scale); for device "cuda", which is not here, it disables itself
with torch's warning, as torch's CPU build does.
"""
import functools
import math
import sys
import warnings

from . import _autocast, _ops
from . import _dtypes as dt
from .autograd import no_grad


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else (
            _autocast.dtype[device_type] if device_type in _autocast.dtype else dt.float16)
        self._cache_enabled = _autocast.cache_enabled if cache_enabled is None else cache_enabled
        if device_type == "cuda":
            if enabled:
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
            enabled = False
        elif device_type not in _autocast.enabled:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        elif enabled and device_type == "cpu" and self.fast_dtype not in (dt.bfloat16, dt.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.")
            enabled = False
        elif enabled and device_type == "webgpu":
            enabled = _webgpu_supports(self.fast_dtype)
        self._enabled = enabled
        self._saved = []  # the enclosing state, one entry per (re-)entry of this object

    def __enter__(self):
        d = self.device
        if d == "cuda":
            return self
        self._saved.append((_autocast.enabled[d], _autocast.dtype[d], _autocast.cache_enabled))
        _autocast.nesting += 1
        _autocast.set_enabled(d, self._enabled)
        _autocast.dtype[d] = self.fast_dtype
        _autocast.cache_enabled = self._cache_enabled
        return self

    def __exit__(self, *exc):
        d = self.device
        if d == "cuda":
            return False
        was_enabled, _autocast.dtype[d], _autocast.cache_enabled = self._saved.pop()
        _autocast.set_enabled(d, was_enabled)
        _autocast.nesting -= 1
        if _autocast.nesting == 0:
            _autocast.clear_cache()  # torch frees the cached weight casts on leaving the outermost region
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return run


def _webgpu_supports(dtype):
    if dtype not in (dt.float16, dt.bfloat16):
        warnings.warn("In webgpu autocast, but the target dtype is not supported. Disabling autocast.\n"
                      "webgpu Autocast only supports dtypes of torch.float16, torch.bfloat16 currently.")
        return False
    return True


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


# -- custom autograd Functions under autocast ----------------------------------------------------
def _cast_floats(value, dtype):
    if isinstance(value, _ops.Tensor) and value.is_floating_point():
        return value.to(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floats(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_floats(v, dtype) for k, v in value.items()}
    return value


def _autocast_on(device_type):
    return _autocast.enabled.get(device_type, False)


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """For a custom Function's forward: with cast_inputs, inside an autocast region the forward runs with
    autocast off and its floating-point tensor arguments cast to cast_inputs; the region's state is kept
    in ctx for custom_bwd."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = _autocast.dtype.get(device_type, dt.float16)
        if cast_inputs is None:
            ctx._fwd_used_autocast = _autocast_on(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if _autocast_on(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_floats(args, cast_inputs), **_cast_floats(kwargs, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """For a custom Function's backward: it runs in the autocast state its forward ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


autocast_mode = sys.modules[__name__]  # torch.amp.autocast_mode: autocast, is_autocast_available, custom_fwd/bwd
sys.modules[__name__ + ".autocast_mode"] = autocast_mode
