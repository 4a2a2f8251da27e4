"""torch.nn.modules: torch's module files (torch.nn.modules.activation, .conv, ...) as modules naming
webtorch.nn's layers, so `from torch.nn.modules.batchnorm import _BatchNorm`-style imports and class
paths (torch.nn.modules.activation.Tanh under install_as_torch) resolve. The layers live in
webtorch.nn.layers / module / rnn; a torch name webtorch.nn lacks is left out of its module."""
import sys
import types

from .. import layers as _layers, lazy as _lazy, module as _module, rnn as _rnn
from . import utils  # noqa: F401  (torch.nn.modules.utils: _pair and friends, real functions)

# torch.nn.modules.<file>: the names torch defines there (public ones and the private bases libraries subclass)
FILES = {
    "activation": "Threshold ReLU RReLU Hardtanh ReLU6 Sigmoid Hardsigmoid Tanh SiLU Mish Hardswish ELU CELU SELU GLU "
                  "GELU Hardshrink LeakyReLU LogSigmoid Softplus Softshrink MultiheadAttention PReLU Softsign "
                  "Tanhshrink Softmin Softmax Softmax2d LogSoftmax",
    "adaptive": "AdaptiveLogSoftmaxWithLoss",
    "batchnorm": "_BatchNorm BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm LazyBatchNorm1d LazyBatchNorm2d "
                 "LazyBatchNorm3d",
    "channelshuffle": "ChannelShuffle",
    "container": "Container Sequential ModuleList ModuleDict ParameterList ParameterDict",
    "conv": "_ConvNd Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d LazyConv2d "
            "LazyConv3d",
    "distance": "PairwiseDistance CosineSimilarity",
    "dropout": "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout",
    "flatten": "Flatten Unflatten",
    "fold": "Fold Unfold",
    "instancenorm": "_InstanceNorm InstanceNorm1d InstanceNorm2d InstanceNorm3d",
    "lazy": "LazyModuleMixin",
    "linear": "Identity Linear Bilinear LazyLinear NonDynamicallyQuantizableLinear",
    "loss": "L1Loss NLLLoss PoissonNLLLoss GaussianNLLLoss KLDivLoss MSELoss BCELoss BCEWithLogitsLoss "
            "HingeEmbeddingLoss MultiLabelMarginLoss SmoothL1Loss HuberLoss SoftMarginLoss CrossEntropyLoss "
            "MultiLabelSoftMarginLoss CosineEmbeddingLoss MarginRankingLoss MultiMarginLoss TripletMarginLoss "
            "TripletMarginWithDistanceLoss CTCLoss",
    "module": "Module _EXTRA_STATE_KEY_SUFFIX",
    "normalization": "LocalResponseNorm CrossMapLRN2d LayerNorm GroupNorm RMSNorm",
    "padding": "_PadNd CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d ConstantPad3d "
               "ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d "
               "ZeroPad1d ZeroPad2d ZeroPad3d",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "pooling": "MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d AvgPool1d AvgPool2d AvgPool3d "
               "FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d LPPool3d AdaptiveMaxPool1d "
               "AdaptiveMaxPool2d AdaptiveMaxPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d",
    "rnn": "RNNBase RNN LSTM GRU RNNCellBase RNNCell LSTMCell GRUCell",
    "sparse": "Embedding EmbeddingBag",
    "transformer": "Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer "
                   "TransformerDecoderLayer",
    "upsampling": "Upsample UpsamplingNearest2d UpsamplingBilinear2d",
}
_SOURCES = (_layers, _lazy, _module, _rnn)


def _file_module(file, names):
    module = types.ModuleType(f"{__name__}.{file}", f"torch.nn.modules.{file}: webtorch.nn's layers of that file")
    found = {name: getattr(source, name) for name in names.split() for source in reversed(_SOURCES)
             if hasattr(source, name)}
    vars(module).update(found)
    module.__all__ = [name for name in found if not name.startswith("_")]
    sys.modules[module.__name__] = module
    return module


for _file, _names in FILES.items():
    globals()[_file] = _file_module(_file, _names)
    globals().update({name: getattr(globals()[_file], name) for name in globals()[_file].__all__})
__all__ = [name for file in FILES for name in globals()[file].__all__]
