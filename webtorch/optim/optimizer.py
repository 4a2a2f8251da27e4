"""Optimizer base: param groups, per-parameter state, state_dict, zero_grad."""
import copy
from collections import defaultdict
from itertools import chain

from .. import _ops as F
from ..autograd import no_grad
from ..backend import recording
from .._tensor import versions


class _RequiredParameter:
    """The default of an optimizer argument that has none (torch.optim.optimizer.required)."""
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _fusable(p, grad):
    """A fused update needs float32 tensors on webgpu, each one dense from its buffer's start."""
    return (p._storage.device_type == "webgpu" and p.dtype is F.dt.float32 and grad.dtype is F.dt.float32
            and p._offset == 0 and p.is_contiguous())


def _cast_state(param, value, group, key=None):
    """torch's Optimizer.load_state_dict._cast: value with its tensors on param's device, cast to param's
    dtype where param is floating point, except "step" (cast to float32 there only for a fused or
    capturable group). Strings stay strings (torch's would become the text of a generator)."""
    if isinstance(value, F.Tensor):
        if key == "step":
            fused = group.get("fused") or group.get("capturable")
            return value.to(F.dt.float32).to(param.device) if fused else value
        return value.to(param.dtype).to(param.device) if param.dtype.is_floating_point else value.to(param.device)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, group, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, group) for v in value)
    return value


def _dense(t):
    return t if t._offset == 0 and t.is_contiguous() else F.clone(t)


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)  # as torch's: a custom optimizer's step() writes self.state[p] on first use
        self.param_groups = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        for group in params if isinstance(params[0], dict) else [{"params": params}]:
            self.add_param_group(group)

    def add_param_group(self, group):
        group = dict(group)
        group["params"] = [group["params"]] if isinstance(group["params"], F.Tensor) else list(group["params"])
        for p in group["params"]:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad = F.zeros_like(p.grad)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from ..autograd import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        state = self.state.setdefault(p, {})
                        if _fusable(p, p.grad) and self._fused_update(p, _dense(p.grad), state, group):
                            versions(p).version += 1
                        else:
                            recording.unreplayable(f"{type(self).__name__}.step() updates a parameter with separate "
                                                   "ops, whose scalars (learning rate, step count) a replay would "
                                                   "repeat")
                            F.write_(p, self._update(p, p.grad, state, group))
        return loss

    def _update(self, param, grad, state, group):
        """The new value of param (a tensor); updates `state` in place."""
        raise NotImplementedError

    def _fused_update(self, param, grad, state, group):
        """Updates param and state in place with one kernel; False where there is none."""
        return False

    def state_dict(self):
        index, groups = {}, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state = {(index[id(p)] if isinstance(p, F.Tensor) else p): dict(s) for p, s in self.state.items()
                 if id(p) in index or not isinstance(p, F.Tensor)}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """torch's Optimizer.load_state_dict: the new groups and state are built and checked in full before
        anything of the optimizer changes (a bad second group or state leaves the first group's lr and the
        old state as they were). Saved groups replace the optimizer's, keeping its params; the state of a
        saved parameter index maps to that parameter, its tensors moved to the parameter's device and,
        where the parameter is floating point, cast to its dtype ("step" stays as saved: torch's
        _process_value_according_to_param_policy); the state of an index no group has is kept as saved.
        Stricter than torch, and checked here rather than failing at the next step: a parameter's state
        must be a dict and its tensors other than _SCALAR_STATE must have the parameter's shape."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for index, value in state_dict["state"].items():
            if index not in id_map:
                state[index] = value
                continue
            param = id_map[index]
            if not isinstance(value, dict):
                raise TypeError(f"loaded state dict: the state of parameter {index!r} is a {type(value).__name__}, "
                                "not a dict")
            group = next(g for g in state_dict["param_groups"] if index in g["params"])
            state[param] = self._checked_state(index, param, _cast_state(param, value, group))
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state, self.param_groups = state, saved_groups

    # state tensors that are not shaped like their parameter (None: no check, the state is not per element)
    _SCALAR_STATE = ("step",)

    def _checked_state(self, index, param, state):
        if self._SCALAR_STATE is None:
            return state
        for key, value in state.items():
            if isinstance(value, F.Tensor) and key not in self._SCALAR_STATE and value.shape != param.shape:
                raise RuntimeError(f"loaded state dict: state {key!r} of parameter {index!r} has shape "
                                   f"{list(value.shape)}, its parameter {list(param.shape)} (torch fails at the next "
                                   "step)")
        return state

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(group.items()) if k != "params"]
        return "\n".join(lines) + "\n)"
