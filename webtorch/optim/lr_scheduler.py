"""torch.optim.lr_scheduler: the same formulas as PyTorch (chainable forms where PyTorch uses them)."""
import math


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def get_lr(self):
        raise NotImplementedError

    def get_last_lr(self):
        return self._last_lr

    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def _lrs(self):
        return [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer" and not callable(v)}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for base, f in zip(self.base_lrs, self.lr_lambdas)]


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        hits = self.milestones.count(self.last_epoch)
        return [lr * self.gamma ** hits for lr in self._lrs()]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return self._lrs() if self.last_epoch == 0 else [lr * self.gamma for lr in self._lrs()]


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._lrs()]
        if self.last_epoch > self.total_iters:
            return self._lrs()
        factor = 1.0 + (self.end_factor - self.start_factor) / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * (self.end_factor - self.start_factor))
        return [lr * factor for lr in self._lrs()]


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, T = self.last_epoch, self.T_max
        if e == 0:
            return self._lrs()
        if (e - 1 - T) % (2 * T) == 0:
            return [lr + (base - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
                    for lr, base in zip(self._lrs(), self.base_lrs)]
        return [(1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) * (lr - self.eta_min)
                + self.eta_min for lr in self._lrs()]


class OneCycleLR(LRScheduler):
    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        self.total_steps = total_steps if total_steps is not None else epochs * steps_per_epoch
        n = len(optimizer.param_groups)
        max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * n
        for group, m in zip(optimizer.param_groups, max_lrs):
            group["initial_lr"] = m / div_factor
            group["max_lr"] = m
            group["min_lr"] = group["initial_lr"] / final_div_factor
        end = self.total_steps - 1
        if three_phase:
            self.phases = [(float(pct_start * self.total_steps) - 1, "initial_lr", "max_lr"),
                           (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr"),
                           (end, "initial_lr", "min_lr")]
        else:
            self.phases = [(float(pct_start * self.total_steps) - 1, "initial_lr", "max_lr"),
                           (end, "max_lr", "min_lr")]
        self.anneal = self._cos if anneal_strategy == "cos" else self._linear
        self.cycle_momentum = cycle_momentum and "betas" in optimizer.defaults or "momentum" in optimizer.defaults
        self.cycle_momentum = cycle_momentum and self.cycle_momentum
        if self.cycle_momentum:
            for group in optimizer.param_groups:
                group["max_momentum"], group["base_momentum"] = max_momentum, base_momentum
                self._set_momentum(group, max_momentum)
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _cos(start, end, pct):
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear(start, end, pct):
        return (end - start) * pct + start

    @staticmethod
    def _set_momentum(group, m):
        if "betas" in group:
            group["betas"] = (m, *group["betas"][1:])
        else:
            group["momentum"] = m

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, (end_step, start_key, end_key) in enumerate(self.phases):
                if step <= end_step or i == len(self.phases) - 1:
                    pct = (step - start_step) / (end_step - start_step)
                    lr = self.anneal(group[start_key], group[end_key], pct)
                    if self.cycle_momentum:
                        mom_keys = {"initial_lr": "max_momentum", "max_lr": "base_momentum", "min_lr": "max_momentum"}
                        self._set_momentum(group, self.anneal(group[mom_keys[start_key]], group[mom_keys[end_key]],
                                                              pct))
                    break
                start_step = end_step
            lrs.append(lr)
        return lrs


class ReduceLROnPlateau:
    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.optimizer, self.mode, self.factor, self.patience = optimizer, mode, factor, patience
        self.threshold, self.threshold_mode, self.cooldown, self.eps = threshold, threshold_mode, cooldown, eps
        n = len(optimizer.param_groups)
        self.min_lrs = list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr] * n
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs, self.cooldown_counter, self.last_epoch = 0, 0, 0
        self._last_lr = [g["lr"] for g in optimizer.param_groups]

    def _better(self, a, best):
        if self.mode == "min":
            return a < (best * (1 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (1 + self.threshold) if self.threshold_mode == "rel" else best + self.threshold)

    def step(self, metrics):
        current = float(metrics)
        self.last_epoch += 1
        if self._better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
                new = max(group["lr"] * self.factor, min_lr)
                if group["lr"] - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def get_last_lr(self):
        return self._last_lr
