"""Module.register_full_backward_hook / register_full_backward_pre_hook, as torch's BackwardHook.

A call of a module with such hooks passes its tensor inputs that require grad, and its tensor outputs,
through an alias each (a view node of this call alone). The outputs' aliases collect grad_output (a
pre-hook sees it first and may replace it); the inputs' aliases see grad_input once the module's own
backward has produced it, and then the hooks run: hook(module, grad_input, grad_output), whose return
value (a tuple) replaces grad_input. Where no input requires grad, the hooks run as the last
grad_output arrives, with grad_input all None (as torch).

A hook that returns a replacement while several inputs require grad is refused (NotImplementedError):
each input's gradient flows on as soon as it is complete here, so one replacement for all of them cannot
be applied at one point as torch's single BackwardHookFunction node applies it.
"""
import warnings

from .. import _tape
from .._tensor import Tensor


def _alias(x):
    return x.view(tuple(x.shape))


class BackwardHook:
    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_positions = []
        self.grad_inputs = []
        self.pending_outputs = 0

    def setup_inputs(self, args):
        """args with every tensor that requires grad passed through a hooked alias."""
        self.n_inputs = len(args)
        self.grad_inputs = [None] * len(args)
        args = list(args)
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and a.requires_grad and _tape.is_grad_enabled():
                args[i] = _alias(a)
                self.input_positions.append(i)
                args[i].register_hook(self._input_hook(i))
        self.waiting_inputs = set(self.input_positions)
        return tuple(args)

    def setup_outputs(self, out):
        single = isinstance(out, Tensor)
        outs = [out] if single else list(out) if isinstance(out, (tuple, list)) else None
        if outs is None or not _tape.is_grad_enabled():
            return out
        self.grad_outputs = [None] * len(outs)
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and o.requires_grad:
                outs[i] = _alias(o)
                outs[i].register_hook(self._output_hook(i))
                self.pending_outputs += 1
        return outs[0] if single else type(out)(outs)

    def _output_hook(self, i):
        def hook(grad):
            self.grad_outputs[i] = grad
            self.pending_outputs -= 1
            if self.pending_outputs:
                return None
            replaced = None
            for pre_hook in list(self.pre_hooks.values()):
                result = pre_hook(self.module, tuple(self.grad_outputs))
                if result is not None:
                    self.grad_outputs = list(result)
                    replaced = result[i]
            if not self.input_positions and self.hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                              "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                              "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                              UserWarning, stacklevel=2)
                self._run_hooks()
            return replaced
        return hook

    def _input_hook(self, i):
        def hook(grad):
            self.grad_inputs[i] = grad
            self.waiting_inputs.discard(i)
            if self.waiting_inputs:
                return None
            result = self._run_hooks()
            return None if result is None else result[i]
        return hook

    def _run_hooks(self):
        replaced = None
        for hook in list(self.hooks.values()):
            result = hook(self.module, tuple(self.grad_inputs), tuple(self.grad_outputs or ()))
            if result is not None:
                if len(self.input_positions) > 1:
                    raise NotImplementedError(
                        "webtorch: a full backward hook that returns new grad_input for a module with several "
                        "inputs requiring grad is not supported (return None, or register_hook on each input)")
                if len(result) != self.n_inputs:
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(result)}, "
                                       f"but expected {self.n_inputs}")
                self.grad_inputs = list(result)
                replaced = result
        return replaced
