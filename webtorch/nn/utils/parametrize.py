"""torch.nn.utils.parametrize: a tensor attribute computed by modules from "original" parameters.

As in PyTorch, registering a parametrization moves the parameter into
`module.parametrizations[name]` (a ParametrizationList holding `original`, or `original0`,
`original1`, ... when right_inverse returns several tensors) and swaps the module's class for a
subclass whose `name` property evaluates the parametrizations on every access."""
from ... import _ops as F
from ...autograd import no_grad
from ..layers import ModuleDict, ModuleList
from ..module import Module, Parameter

__all__ = ["register_parametrization", "is_parametrized", "remove_parametrizations", "ParametrizationList"]


class ParametrizationList(ModuleList):
    def __init__(self, modules, original):
        super().__init__(modules)
        first = modules[0]
        new = first.right_inverse(original) if hasattr(first, "right_inverse") else original
        self.is_tensor = isinstance(new, F.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        with no_grad():
            if self.is_tensor:
                self.original = Parameter(new.detach(), original.requires_grad)
            else:
                for i, t in enumerate(new):
                    self.register_parameter(f"original{i}", Parameter(t.detach(), original.requires_grad))

    def forward(self):
        first, *rest = list(self)
        x = first(self.original) if self.is_tensor else first(*(getattr(self, f"original{i}")
                                                                  for i in range(self.ntensors)))
        for module in rest:
            x = module(x)
        return x


def is_parametrized(module, tensor_name=None):
    lists = module.__dict__.get("_modules", {}).get("parametrizations")
    return lists is not None and (tensor_name is None or tensor_name in lists)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    if is_parametrized(module, tensor_name):
        module.parametrizations[tensor_name].append(parametrization)
        return module
    original = getattr(module, tensor_name)
    if not is_parametrized(module):
        module.parametrizations = ModuleDict()
        cls = type(module)
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})
    delattr(module, tensor_name)
    module.parametrizations[tensor_name] = ParametrizationList([parametrization], original)
    setattr(type(module), tensor_name, property(lambda self: self.parametrizations[tensor_name]()))
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    with no_grad():
        value = plist() if leave_parametrized else plist.original
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    module.register_parameter(tensor_name, Parameter(value.detach(), True))
    if not module.parametrizations:
        del module.parametrizations
        module.__class__ = type(module).__bases__[0]
    return module
