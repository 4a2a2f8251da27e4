"""torch.distributed.device_mesh as in a torch built without distributed: DeviceMesh and
init_device_mesh are stubs, there for annotations and isinstance checks (no mesh can exist)."""


class DeviceMesh:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.distributed is not available in webtorch (one process, one WebGPU device): "
                           "no DeviceMesh")


def init_device_mesh(*args, **kwargs):
    DeviceMesh()
