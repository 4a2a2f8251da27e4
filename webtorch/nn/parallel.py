"""torch.nn.parallel. DataParallel without a CUDA device runs the module as it is (as torch does
when no GPU is visible); DistributedDataParallel needs torch.distributed, which webtorch lacks."""
import sys

from .module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    def __init__(self, module, *args, **kwargs):
        raise RuntimeError("DistributedDataParallel needs torch.distributed, which webtorch does not have (one "
                           "process, one WebGPU device): use the module directly")


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    return module(*inputs, **(module_kwargs or {}))


distributed = sys.modules[__name__]  # torch.nn.parallel.distributed: where DistributedDataParallel lives
