"""Optimizer base: param groups, per-parameter state, state_dict, zero_grad."""
import copy

from .. import _ops as F
from ..autograd import no_grad
from ..backend import recording


def _fusable(p, grad):
    """A fused update needs float32 tensors on webgpu, each one dense from its buffer's start."""
    return (p._storage.device_type == "webgpu" and p.dtype is F.dt.float32 and grad.dtype is F.dt.float32
            and p._offset == 0 and p.is_contiguous())


def _dense(t):
    return t if t._offset == 0 and t.is_contiguous() else F.clone(t)


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = {}
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
                            p._storage.version += 1
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
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params = {}
        for mine, saved in zip(self.param_groups, groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
            params.update(zip(saved["params"], mine["params"]))
            mine.update({k: copy.deepcopy(v) for k, v in saved.items() if k != "params"})
        self.state = {}
        for idx, s in state_dict["state"].items():
            p = params[int(idx)]
            self.state[p] = {k: (v.to(p.device.type) if isinstance(v, F.Tensor) and v.dim() else v)
                             for k, v in s.items()}

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(group.items()) if k != "params"]
        return "\n".join(lines) + "\n)"
