"""torch.nn: modules, layers, losses, functional, init, utils."""
from . import functional, init, utils  # noqa: F401
from .layers import *  # noqa: F401,F403
from .layers import (AdaptiveAvgPool2d, AvgPool2d, BatchNorm1d, BatchNorm2d, BCELoss, BCEWithLogitsLoss,  # noqa: F401
                     Conv1d, Conv2d, ConvTranspose2d, CosineSimilarity, CrossEntropyLoss, Dropout, ELU, Embedding,
                     Flatten, GELU, GroupNorm, Hardswish, Hardtanh, HuberLoss, Identity, KLDivLoss, L1Loss,
                     LayerNorm, LeakyReLU, Linear, LogSoftmax, MaxPool2d, Mish, ModuleDict, ModuleList, MSELoss,
                     MultiheadAttention, NLLLoss, ReLU, ReLU6, RMSNorm, Sequential, Sigmoid, SiLU, SmoothL1Loss,
                     Softmax, Softplus, Tanh, Transformer, TransformerDecoder, TransformerDecoderLayer,
                     TransformerEncoder, TransformerEncoderLayer, Unflatten)
from .module import Buffer, Module, Parameter  # noqa: F401
from .lazy import *  # noqa: F401,F403  (LazyLinear, ..., UninitializedParameter)
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from . import parallel  # noqa: F401
from . import attention, modules, parameter  # noqa: F401  (torch.nn.attention, torch.nn.modules.*, torch.nn.parameter)
from .parallel import DataParallel  # noqa: F401
