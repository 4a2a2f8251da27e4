"""torch.autograd.graph: the graph's Node type and the saved-tensor hook contexts. webtorch keeps the
tensors a backward rule needs on their device; save_on_cpu (an offload with the same numbers) runs
as a plain context, custom pack/unpack hooks raise (they would change what backward sees)."""
import contextlib
from collections import namedtuple

from .._tape import Node

__all__ = ["Node", "GradientEdge", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "get_gradient_edge"]

GradientEdge = namedtuple("GradientEdge", ("node", "output_nr"))


class saved_tensors_hooks:
    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        raise NotImplementedError("webtorch: torch.autograd.graph.saved_tensors_hooks (custom pack/unpack of "
                                  "saved tensors) is not supported")

    def __exit__(self, *exc):
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors stay where webtorch keeps them: the same gradients, without the offload."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(None, None)

    def __enter__(self):
        return self


def disable_saved_tensors_hooks(error_message):
    return contextlib.nullcontext()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    raise NotImplementedError("webtorch: torch.autograd.graph.register_multi_grad_hook is not supported")


def get_gradient_edge(tensor):
    raise NotImplementedError("webtorch: torch.autograd.graph.get_gradient_edge is not supported")
