"""torch.optim: the update rules follow PyTorch's single-tensor implementations step by step, so
the roundings (and so the trained weights) match."""
import struct

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
                           lambda: [group["weight_decay"], group["momentum"], 1 - group["dampening"], -group["lr"]])
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

    def _fused_update(self, p, grad, state, group):
        self._init_state(p, state, group)
        states = [state["exp_avg"], state["exp_avg_sq"]] + ([state["max_exp_avg_sq"]] if group["amsgrad"] else [])
        kernel = kernels.optimizer_step("adam", group["maximize"], bool(group["weight_decay"]),
                                        (self.decoupled_weight_decay, group["amsgrad"]))

        def scalars():  # this step's, the step count advanced (again at each replay of a compiled step)
            beta1, beta2 = group["betas"]
            lr, wd = group["lr"], group["weight_decay"]
            state["step"] += 1
            step = state["step"]
            return [1 - lr * wd if self.decoupled_weight_decay else wd, 1 - beta1, beta2, 1 - beta2,
                    (1 - beta2 ** step) ** 0.5, group["eps"], -(lr / (1 - beta1 ** step))]
        gpu.optimizer_step(kernel, p, grad, states, scalars)
        return True

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        grad = -grad if group["maximize"] else grad
        self._init_state(p, state, group)
        state["step"] += 1
        step = state["step"]
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


def _float32(x):
    """x rounded to float32, as PyTorch's float32 state tensors (NAdam's mu_product) hold it."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _new_state(state, **tensors):
    """Creates the state on the first step; counts the step; returns it."""
    if not state:
        state["step"] = 0
        state.update(tensors)
    state["step"] += 1
    return state["step"]


def _prepare_grad(p, grad, group, decoupled=False):
    """maximize and (L2 or decoupled) weight decay -> (p, grad) as PyTorch applies them first."""
    grad = -grad if group["maximize"] else grad
    wd = group["weight_decay"]
    if wd and decoupled:
        p = p * (1 - group["lr"] * wd)
    elif wd:
        grad = grad + p * wd
    return p, grad


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))

    def _update(self, p, grad, state, group):
        rho, eps = group["rho"], group["eps"]
        _new_state(state, square_avg=F.zeros_like(p), acc_delta=F.zeros_like(p))
        p, grad = _prepare_grad(p, grad, group)
        sq = state["square_avg"] = state["square_avg"] * rho + grad * (1 - rho) * grad
        delta = F.sqrt(state["acc_delta"] + eps) / F.sqrt(sq + eps) * grad
        state["acc_delta"] = state["acc_delta"] * rho + delta * (1 - rho) * delta
        return p + delta * -group["lr"]


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check(lr=lr, eps=eps, weight_decay=weight_decay, betas=betas)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        step = _new_state(state, exp_avg=F.zeros_like(p), exp_inf=F.zeros_like(p))
        p, grad = _prepare_grad(p, grad, group)
        m = state["exp_avg"] = state["exp_avg"] + (grad - state["exp_avg"]) * (1 - beta1)
        u = state["exp_inf"] = F.maximum(state["exp_inf"] * beta2, F.abs(grad) + group["eps"])
        return p + m * -(group["lr"] / (1 - beta1 ** step)) / u


class NAdam(Optimizer):
    _SCALAR_STATE = ("step", "mu_product")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check(lr=lr, eps=eps, weight_decay=weight_decay, betas=betas)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize))

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr, decay = group["lr"], group["momentum_decay"]
        step = _new_state(state, mu_product=1.0, exp_avg=F.zeros_like(p), exp_avg_sq=F.zeros_like(p))
        p, grad = _prepare_grad(p, grad, group, group["decoupled_weight_decay"])
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        mu_product = state["mu_product"] = _float32(state["mu_product"] * mu)
        m = state["exp_avg"] = state["exp_avg"] + (grad - state["exp_avg"]) * (1 - beta1)
        v = state["exp_avg_sq"] = state["exp_avg_sq"] * beta2 + grad * (1 - beta2) * grad
        denom = F.sqrt(v / (1 - beta2 ** step)) + group["eps"]
        p = p + grad * (-lr * (1.0 - mu) / (1.0 - mu_product)) / denom
        return p + m * ((-lr * mu_next) / (1.0 - mu_product * mu_next)) / denom


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check(lr=lr, eps=eps, weight_decay=weight_decay, betas=betas)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      decoupled_weight_decay=decoupled_weight_decay, maximize=maximize))

    def _update(self, p, grad, state, group):
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        step = _new_state(state, exp_avg=F.zeros_like(p), exp_avg_sq=F.zeros_like(p))
        p, grad = _prepare_grad(p, grad, group, group["decoupled_weight_decay"])
        m = state["exp_avg"] = state["exp_avg"] + (grad - state["exp_avg"]) * (1 - beta1)
        v = state["exp_avg_sq"] = state["exp_avg_sq"] * beta2 + grad * (1 - beta2) * grad
        bias_correction2 = 1 - beta2 ** step
        m_hat = m / (1 - beta1 ** step)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t <= 5.0:  # the variance is not tractable yet: an SGD-with-momentum step
            return p - m_hat * lr
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        return p - m_hat * lr * ((bias_correction2 ** 0.5) / (F.sqrt(v) + group["eps"])) * rect


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        raise NotImplementedError("SparseAdam needs sparse gradients, and webtorch has no sparse tensors "
                                  "(nn.Embedding(sparse=True) is not supported): use Adam")


def _check(lr, eps, weight_decay, betas=None):
    """PyTorch's argument checks, with its messages."""
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    for i, beta in enumerate(betas or ()):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


from .lbfgs import LBFGS  # noqa: E402,F401  (after Optimizer's subclasses, like torch.optim's namespace)
