"""torch.nn.functional: the functional forms of layers and activations."""
from .._ops import gelu, linear, log_softmax, relu, sigmoid, silu, softmax, tanh  # noqa: F401
