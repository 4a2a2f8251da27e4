"""torch._C: the few names of torch's native module that libraries read at import or call as
switches (torchvision's autocast exclusion guards, TorchScript fuser settings, API-usage logging).
webtorch has no dispatcher and no TorchScript: the guards and switches do nothing, the queries
answer as torch's CPU build without tracing."""
import contextlib
import enum

__all__ = ["DispatchKey", "DispatchKeySet", "DisableTorchFunction", "DisableTorchFunctionSubclass"]

DispatchKey = enum.Enum("DispatchKey", "CPU CUDA Meta AutocastCPU AutocastCUDA AutocastXPU AutocastMPS Autograd "
                                       "AutogradCPU AutogradCUDA CompositeImplicitAutograd CompositeExplicitAutograd "
                                       "PrivateUse1 Python")


class DispatchKeySet(frozenset):
    def __new__(cls, *keys):
        return super().__new__(cls, keys)

    def __or__(self, other):
        return DispatchKeySet(*(set(self) | set(other)))

    def has(self, key):
        return key in self


def _ExcludeDispatchKeyGuard(keyset):
    return contextlib.nullcontext()


_DisableTorchDispatch = _DisableFuncTorch = _ExcludeDispatchKeyGuard


# DisableTorchFunctionSubclass, DisableTorchFunction, _disabled_torch_function_impl and
# _is_torch_function_enabled: attached by webtorch/_torch_function.py (the protocol's room)


def _log_api_usage_once(event):
    pass


def _get_tracing_state():
    return None


def _are_functorch_transforms_active():
    """torch.func.grad here is reverse-mode autograd on real tensors (no functorch wrappers): never."""
    return False


def _jit_set_switch(*args):
    return False


_jit_set_texpr_fuser_enabled = _jit_set_profiling_mode = _jit_set_profiling_executor = _jit_set_switch
_jit_override_can_fuse_on_gpu = _jit_override_can_fuse_on_cpu = _jit_set_nvfuser_enabled = _jit_set_switch
_jit_set_nvfuser_guard_mode = _jit_can_fuse_on_gpu = _jit_can_fuse_on_cpu = _jit_set_switch


def _get_privateuse1_backend_name():
    return "privateuseone"
