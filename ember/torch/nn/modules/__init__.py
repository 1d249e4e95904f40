"""``ember.torch.nn.modules``: PyTorch's submodule layout of ``torch.nn``'s layers
(``torch.nn.modules.rnn.LSTM``, ``torch.nn.modules.linear.Linear`` ...), the same classes as
``ember.torch.nn``'s, so programs that name a layer by its full path (a list of globals for
``torch.serialization.safe_globals``, an ``isinstance`` check) run unchanged. Each submodule is
made here from one table and registered, so ``import ember.torch.nn.modules.rnn`` works too.

>>> import ember.torch as torch
>>> torch.nn.modules.rnn.LSTM is torch.nn.LSTM
True
>>> torch.nn.modules.linear.NonDynamicallyQuantizableLinear(2, 3).weight.shape
torch.Size([3, 2])
"""

import sys
import types

from .. import containers as _containers, layers as _layers
from ....nn import transformer as _transformer
from ..module import Module, torch_class

# submodule -> the ember.torch.nn classes PyTorch defines in it
_LAYOUT = {
    "activation": "CELU ELU GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU "
                  "LogSigmoid LogSoftmax Mish MultiheadAttention PReLU RReLU ReLU ReLU6 SELU SiLU "
                  "Sigmoid Softmax Softmax2d Softmin Softplus Softshrink Softsign Tanh Tanhshrink "
                  "Threshold",
    "adaptive": "AdaptiveLogSoftmaxWithLoss",
    "batchnorm": "BatchNorm1d BatchNorm2d BatchNorm3d LazyBatchNorm1d LazyBatchNorm2d "
                 "LazyBatchNorm3d",
    "channelshuffle": "ChannelShuffle",
    "container": "Container ModuleDict ModuleList ParameterDict ParameterList Sequential",
    "conv": "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d "
            "LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d",
    "distance": "CosineSimilarity PairwiseDistance",
    "dropout": "AlphaDropout Dropout Dropout1d Dropout2d Dropout3d FeatureAlphaDropout",
    "flatten": "Flatten Unflatten",
    "fold": "Fold Unfold",
    "instancenorm": "InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d "
                    "LazyInstanceNorm2d LazyInstanceNorm3d",
    "linear": "Bilinear Identity LazyLinear Linear",
    "loss": "BCELoss BCEWithLogitsLoss CTCLoss CosineEmbeddingLoss CrossEntropyLoss "
            "GaussianNLLLoss HingeEmbeddingLoss HuberLoss KLDivLoss L1Loss LinearCrossEntropyLoss "
            "MSELoss MarginRankingLoss MultiLabelMarginLoss MultiLabelSoftMarginLoss "
            "MultiMarginLoss NLLLoss NLLLoss2d PoissonNLLLoss SmoothL1Loss SoftMarginLoss "
            "TripletMarginLoss TripletMarginWithDistanceLoss",
    "module": "Module",
    "normalization": "GroupNorm LayerNorm LocalResponseNorm RMSNorm",
    "padding": "CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d "
               "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d "
               "ReplicationPad2d ReplicationPad3d ZeroPad1d ZeroPad2d ZeroPad3d",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "pooling": "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d "
               "AdaptiveMaxPool2d AdaptiveMaxPool3d AvgPool1d AvgPool2d AvgPool3d "
               "FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d LPPool3d MaxPool1d "
               "MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d",
    "rnn": "GRU GRUCell LSTM LSTMCell RNN RNNBase RNNCell RNNCellBase",
    "sparse": "Embedding EmbeddingBag",
    "transformer": "Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder "
                   "TransformerEncoderLayer",
    "upsampling": "Upsample UpsamplingBilinear2d UpsamplingNearest2d",
}

# the output projection of MultiheadAttention: a Linear that PyTorch names only here; its class
# lives in this submodule, so a model holding one pickles (torch.save) and unpickles
NonDynamicallyQuantizableLinear = torch_class(_transformer.NonDynamicallyQuantizableLinear)

__all__ = sorted(_LAYOUT)
_CLASSES = {**vars(_layers), **vars(_containers), "Module": Module}

for _name, _classes in _LAYOUT.items():
    _sub = types.ModuleType(f"{__name__}.{_name}",
                            f"PyTorch's torch.nn.modules.{_name}: ember.torch.nn's classes.")
    _sub.__all__ = _classes.split()
    for _cls in _sub.__all__:
        setattr(_sub, _cls, _CLASSES[_cls])
    sys.modules[_sub.__name__] = _sub
    globals()[_name] = _sub
linear.NonDynamicallyQuantizableLinear = NonDynamicallyQuantizableLinear  # noqa: F821
linear.__all__.append("NonDynamicallyQuantizableLinear")  # noqa: F821
NonDynamicallyQuantizableLinear.__module__ = linear.__name__  # noqa: F821
del _name, _classes, _sub, _cls, NonDynamicallyQuantizableLinear
