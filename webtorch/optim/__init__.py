"""torch.optim: the update rules follow PyTorch's single-tensor implementations step by step, so
the roundings (and so the trained weights) match."""
from .. import _ops as F
from ..backend import gpu, kernels
from . import lr_scheduler  # noqa: F401
from .optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def _update(self, p, grad, state, group):
        grad = -grad if group["maximize"] else grad
        if group["weight_decay"]:
            grad = grad + p * group["weight_decay"]
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            buf = grad.clone() if buf is None else buf * momentum + grad * (1 - group["dampening"])
            state["momentum_buffer"] = buf
            grad = grad + buf * momentum if group["nesterov"] else buf
        return p + grad * -group["lr"]

    def _fused_update(self, p, grad, state, group):
        momentum = group["momentum"]
        first = bool(momentum) and state.get("momentum_buffer") is None
        if first:
            state["momentum_buffer"] = F.empty_like(p)  # the kernel writes grad into it
        kernel = kernels.optimizer_step("sgd", group["maximize"], bool(group["weight_decay"]),
                                        (bool(momentum), first, group["nesterov"]))
        gpu.optimizer_step(kernel, p, grad, [state["momentum_buffer"]] if momentum else [],
                           [group["weight_decay"], momentum, 1 - group["dampening"], -group["lr"]])
        return True


class Adam(Optimizer):
    decoupled_weight_decay = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False,
                 maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    @staticmethod
    def _init_state(p, state, group):
        if not state:
            state["step"] = 0  # a Python number: a tensor would cost a GPU readback per step
            state["exp_avg"] = F.zeros_like(p)
            state["exp_avg_sq"] = F.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = F.zeros_like(p)
        state["step"] += 1
        return state["step"]

    def _fused_update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        step = self._init_state(p, state, group)
        states = [state["exp_avg"], state["exp_avg_sq"]] + ([state["max_exp_avg_sq"]] if group["amsgrad"] else [])
        kernel = kernels.optimizer_step("adam", group["maximize"], bool(wd),
                                        (self.decoupled_weight_decay, group["amsgrad"]))
        gpu.optimizer_step(kernel, p, grad, states, [
            1 - lr * wd if self.decoupled_weight_decay else wd, 1 - beta1, beta2, 1 - beta2,
            (1 - beta2 ** step) ** 0.5, group["eps"], -(lr / (1 - beta1 ** step))])
        return True

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        grad = -grad if group["maximize"] else grad
        step = self._init_state(p, state, group)
        if wd and self.decoupled_weight_decay:
            p = p * (1 - lr * wd)
        elif wd:
            grad = grad + p * wd
        m = state["exp_avg"]
        m = state["exp_avg"] = m + (grad - m) * (1 - beta1)                  # lerp, weight < 0.5 form
        v = state["exp_avg_sq"] = state["exp_avg_sq"] * beta2 + grad * (1 - beta2) * grad   # addcmul
        if group["amsgrad"]:
            v = state["max_exp_avg_sq"] = F.maximum(state["max_exp_avg_sq"], v)
        step_size = lr / (1 - beta1 ** step)
        denom = F.sqrt(v) / ((1 - beta2 ** step) ** 0.5) + group["eps"]
        return p + m * -step_size / denom                                       # addcdiv


class AdamW(Adam):
    decoupled_weight_decay = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 maximize=False):
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    def _update(self, p, grad, state, group):
        alpha = group["alpha"]
        grad = -grad if group["maximize"] else grad
        if not state:
            state["step"] = 0
            state["square_avg"] = F.zeros_like(p)
            if group["momentum"]:
                state["momentum_buffer"] = F.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = F.zeros_like(p)
        state["step"] += 1
        if group["weight_decay"]:
            grad = grad + p * group["weight_decay"]
        sq = state["square_avg"] = state["square_avg"] * alpha + grad * (1 - alpha) * grad
        if group["centered"]:
            ga = state["grad_avg"]
            ga = state["grad_avg"] = ga + (grad - ga) * (1 - alpha)
            avg = F.sqrt(sq + ga * -1 * ga) + group["eps"]
        else:
            avg = F.sqrt(sq) + group["eps"]
        if group["momentum"]:
            buf = state["momentum_buffer"] = state["momentum_buffer"] * group["momentum"] + grad / avg
            return p + buf * -group["lr"]
        return p + grad * -group["lr"] / avg


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 maximize=False):
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))

    def _update(self, p, grad, state, group):
        grad = -grad if group["maximize"] else grad
        if not state:
            state["step"] = 0
            state["sum"] = F.full_like(p, group["initial_accumulator_value"])
        state["step"] += 1
        if group["weight_decay"]:
            grad = grad + p * group["weight_decay"]
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        s = state["sum"] = state["sum"] + grad * 1 * grad
        return p + grad * -clr / (F.sqrt(s) + group["eps"])
