"""One small, deterministic instance of every ``torch.nn`` module class, for the sweeps of
tests/torch/nn/test_torch_layer_hvp.py and test_torch_layer_safetensors.py.

A case builds its module from a namespace (``torch.nn`` or ``ember.torch.nn``) and draws its
inputs with NumPy: a float array is an input the sweeps differentiate, ``Const(array)`` one they
do not (targets, indices, lengths), and a tuple a nested argument (an LSTM's ``(h0, c0)``).
"""

import numpy as np
import torch


class Const:
    """An input that is passed as is and never differentiated (a target, indices, ...)."""

    def __init__(self, array):
        self.array = np.asarray(array)


class Case:
    """``build(nn)`` makes the module; ``inputs(rng)`` its positional arguments; ``train`` the
    mode it runs in (eval otherwise: dropout off, running statistics used); ``lazy``: a lazy
    module, materialized by a first call before its weights are set."""

    def __init__(self, cls, build, inputs, label="", train=False, lazy=False, call=True):
        self.cls, self.build, self.inputs = cls, build, inputs
        self.id = cls + (f"-{label}" if label else "")
        self.train, self.lazy, self.call = train, lazy, call

    def __repr__(self):
        return self.id


def _n(rng, *shape):
    return rng.standard_normal(shape)


def _x(*shape):
    return lambda rng: (_n(rng, *shape),)


def _pm1(rng, *shape):
    return Const(np.where(rng.random(shape) < 0.5, -1.0, 1.0))


def _ints(rng, high, *shape):
    return Const(rng.integers(0, high, shape))


def _pool_indices(fn, shape, *args):
    """(values, indices) of a max pool, as MaxUnpool's inputs."""
    def inputs(rng):
        out, idx = fn(torch.from_numpy(_n(rng, *shape)), *args, return_indices=True)
        return out.numpy(), Const(idx.numpy())
    return inputs


def _samples(nn, seed, *shape):
    """A fractional max pool's fixed ``_random_samples``."""
    return _tensor(nn, np.random.default_rng(seed).random(shape).tolist())


def _log_softmax(a, dim=-1):
    return torch.from_numpy(a).log_softmax(dim).numpy()


def _ctc(rng):
    t, n, c, s = 6, 2, 4, 3
    lp = _log_softmax(_n(rng, t, n, c))
    targets = Const(rng.integers(1, c, (n, s)))
    return lp, targets, Const(np.array([6, 5])), Const(np.array([3, 2]))


def _multilabel_margin_target(rng):
    y = rng.integers(0, 4, (3, 4))
    y[0, 2:] = -1
    y[1, 1] = -1
    return Const(y)


ACT = (2, 3, 4)
LAYER = 8  # transformer width

CASES = [
    # -- activations --------------------------------------------------------------------------
    *[Case(name, lambda nn, name=name: getattr(nn, name)(), _x(*ACT)) for name in (
        "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "LeakyReLU", "ReLU", "ReLU6", "Hardtanh",
        "Hardsigmoid", "Hardswish", "Hardshrink", "Softshrink", "Tanhshrink", "LogSigmoid",
        "Softplus", "Softsign", "Sigmoid", "Tanh", "RReLU", "Identity")],
    Case("GELU", lambda nn: nn.GELU("tanh"), _x(*ACT), "tanh"),
    Case("ELU", lambda nn: nn.ELU(alpha=0.5), _x(*ACT), "alpha"),
    Case("Softplus", lambda nn: nn.Softplus(beta=2.0, threshold=1.0), _x(*ACT), "beta"),
    Case("Threshold", lambda nn: nn.Threshold(0.1, 20.0), _x(*ACT)),
    Case("PReLU", lambda nn: nn.PReLU(3, init=0.2), _x(*ACT)),
    Case("PReLU", lambda nn: nn.PReLU(), _x(*ACT), "shared"),
    Case("Softmax", lambda nn: nn.Softmax(1), _x(*ACT)),
    Case("Softmin", lambda nn: nn.Softmin(1), _x(*ACT)),
    Case("LogSoftmax", lambda nn: nn.LogSoftmax(-1), _x(*ACT)),
    Case("Softmax2d", lambda nn: nn.Softmax2d(), _x(2, 3, 2, 2)),
    Case("GLU", lambda nn: nn.GLU(1), _x(2, 4, 3)),
    # -- linear and shape layers --------------------------------------------------------------
    Case("Linear", lambda nn: nn.Linear(4, 3), _x(2, 4)),
    Case("Linear", lambda nn: nn.Linear(4, 3, bias=False), _x(5, 2, 4), "nobias"),
    Case("LazyLinear", lambda nn: nn.LazyLinear(3), _x(2, 4), lazy=True),
    Case("Bilinear", lambda nn: nn.Bilinear(3, 4, 2), lambda rng: (_n(rng, 2, 3), _n(rng, 2, 4))),
    Case("Flatten", lambda nn: nn.Flatten(), _x(2, 3, 4)),
    Case("Unflatten", lambda nn: nn.Unflatten(1, (2, 2)), _x(3, 4)),
    Case("CosineSimilarity", lambda nn: nn.CosineSimilarity(1),
         lambda rng: (_n(rng, 3, 4), _n(rng, 3, 4))),
    Case("PairwiseDistance", lambda nn: nn.PairwiseDistance(),
         lambda rng: (_n(rng, 3, 4), _n(rng, 3, 4))),
    Case("Embedding", lambda nn: nn.Embedding(10, 3), lambda rng: (_ints(rng, 10, 2, 4),)),
    Case("Embedding", lambda nn: nn.Embedding(10, 3, padding_idx=0),
         lambda rng: (Const([[0, 3, 3], [9, 0, 1]]),), "padding_idx"),
    Case("EmbeddingBag", lambda nn: nn.EmbeddingBag(10, 3), lambda rng: (_ints(rng, 10, 2, 4),)),
    Case("EmbeddingBag", lambda nn: nn.EmbeddingBag(10, 3, mode="sum"),
         lambda rng: (_ints(rng, 10, 7), Const([0, 3, 3])), "sum-offsets"),
    # -- convolutions -------------------------------------------------------------------------
    Case("Conv1d", lambda nn: nn.Conv1d(2, 3, 3, padding=1), _x(2, 2, 6)),
    Case("Conv2d", lambda nn: nn.Conv2d(2, 4, 3, stride=2, padding=1, groups=2), _x(2, 2, 5, 5)),
    Case("Conv2d", lambda nn: nn.Conv2d(2, 3, 2, padding="same", padding_mode="reflect",
                                        dilation=2), _x(1, 2, 5, 4), "reflect"),
    Case("Conv3d", lambda nn: nn.Conv3d(2, 3, 2), _x(1, 2, 3, 3, 3)),
    Case("ConvTranspose1d", lambda nn: nn.ConvTranspose1d(2, 3, 3, stride=2), _x(2, 2, 4)),
    Case("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1,
                                                          output_padding=1, groups=2),
         _x(1, 2, 3, 3)),
    Case("ConvTranspose3d", lambda nn: nn.ConvTranspose3d(2, 2, 2), _x(1, 2, 2, 2, 2)),
    Case("LazyConv1d", lambda nn: nn.LazyConv1d(3, 3), _x(2, 2, 5), lazy=True),
    Case("LazyConv2d", lambda nn: nn.LazyConv2d(3, 2), _x(1, 2, 4, 4), lazy=True),
    Case("LazyConv3d", lambda nn: nn.LazyConv3d(2, 2), _x(1, 2, 3, 3, 3), lazy=True),
    Case("LazyConvTranspose1d", lambda nn: nn.LazyConvTranspose1d(3, 2), _x(2, 2, 4), lazy=True),
    Case("LazyConvTranspose2d", lambda nn: nn.LazyConvTranspose2d(3, 2), _x(1, 2, 3, 3),
         lazy=True),
    Case("LazyConvTranspose3d", lambda nn: nn.LazyConvTranspose3d(2, 2), _x(1, 2, 2, 2, 2),
         lazy=True),
    Case("Fold", lambda nn: nn.Fold((4, 5), 2), _x(2, 12, 12)),
    Case("Unfold", lambda nn: nn.Unfold(2, padding=1), _x(2, 3, 3, 4)),
    Case("PixelShuffle", lambda nn: nn.PixelShuffle(2), _x(1, 8, 2, 3)),
    Case("PixelUnshuffle", lambda nn: nn.PixelUnshuffle(2), _x(1, 2, 4, 6)),
    Case("ChannelShuffle", lambda nn: nn.ChannelShuffle(2), _x(1, 4, 2, 2)),
    Case("Upsample", lambda nn: nn.Upsample(scale_factor=2), _x(1, 2, 3, 4)),
    Case("Upsample", lambda nn: nn.Upsample(size=(5, 7), mode="bicubic", align_corners=False),
         _x(1, 2, 3, 4), "bicubic"),
    Case("UpsamplingNearest2d", lambda nn: nn.UpsamplingNearest2d(scale_factor=2),
         _x(1, 2, 3, 4)),
    Case("UpsamplingBilinear2d", lambda nn: nn.UpsamplingBilinear2d(scale_factor=2),
         _x(1, 2, 3, 4)),
    # -- normalization ------------------------------------------------------------------------
    Case("BatchNorm1d", lambda nn: nn.BatchNorm1d(3), _x(4, 3, 5), train=True),
    Case("BatchNorm1d", lambda nn: nn.BatchNorm1d(3), _x(4, 3), "eval"),
    Case("BatchNorm2d", lambda nn: nn.BatchNorm2d(3), _x(2, 3, 3, 3), train=True),
    Case("BatchNorm3d", lambda nn: nn.BatchNorm3d(3), _x(2, 3, 2, 2, 2), train=True),
    Case("LazyBatchNorm1d", lambda nn: nn.LazyBatchNorm1d(), _x(4, 3), train=True, lazy=True),
    Case("LazyBatchNorm2d", lambda nn: nn.LazyBatchNorm2d(), _x(2, 3, 2, 2), train=True,
         lazy=True),
    Case("LazyBatchNorm3d", lambda nn: nn.LazyBatchNorm3d(), _x(2, 3, 2, 2, 2), train=True,
         lazy=True),
    Case("SyncBatchNorm", lambda nn: nn.SyncBatchNorm(3), _x(4, 3, 5), train=True),
    Case("LayerNorm", lambda nn: nn.LayerNorm(4), _x(2, 3, 4)),
    Case("LayerNorm", lambda nn: nn.LayerNorm((3, 4), bias=False), _x(2, 3, 4), "2d"),
    Case("GroupNorm", lambda nn: nn.GroupNorm(2, 4), _x(2, 4, 5)),
    Case("InstanceNorm1d", lambda nn: nn.InstanceNorm1d(3, affine=True), _x(2, 3, 5)),
    Case("InstanceNorm2d", lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
         _x(2, 3, 3, 3), train=True),
    Case("InstanceNorm3d", lambda nn: nn.InstanceNorm3d(2), _x(2, 2, 2, 2, 3)),
    Case("LazyInstanceNorm1d", lambda nn: nn.LazyInstanceNorm1d(affine=True), _x(2, 3, 5),
         lazy=True),
    Case("LazyInstanceNorm2d", lambda nn: nn.LazyInstanceNorm2d(affine=True), _x(2, 3, 3, 3),
         lazy=True),
    Case("LazyInstanceNorm3d", lambda nn: nn.LazyInstanceNorm3d(affine=True), _x(2, 2, 2, 2, 3),
         lazy=True),
    Case("RMSNorm", lambda nn: nn.RMSNorm(4), _x(2, 3, 4)),
    Case("LocalResponseNorm", lambda nn: nn.LocalResponseNorm(3), _x(2, 5, 4)),
    Case("CrossMapLRN2d", lambda nn: nn.CrossMapLRN2d(3, alpha=0.1), _x(2, 5, 3, 3)),
    # -- dropout (eval mode: the identity) ----------------------------------------------------
    Case("Dropout", lambda nn: nn.Dropout(0.3), _x(*ACT)),
    Case("Dropout1d", lambda nn: nn.Dropout1d(), _x(2, 3, 4)),
    Case("Dropout2d", lambda nn: nn.Dropout2d(), _x(2, 3, 2, 2)),
    Case("Dropout3d", lambda nn: nn.Dropout3d(), _x(2, 3, 2, 2, 2)),
    Case("AlphaDropout", lambda nn: nn.AlphaDropout(), _x(*ACT)),
    Case("FeatureAlphaDropout", lambda nn: nn.FeatureAlphaDropout(), _x(2, 3, 2, 2)),
    # -- pooling ------------------------------------------------------------------------------
    Case("AvgPool1d", lambda nn: nn.AvgPool1d(2), _x(2, 3, 6)),
    Case("AvgPool2d", lambda nn: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
         _x(1, 2, 5, 5)),
    Case("AvgPool3d", lambda nn: nn.AvgPool3d(2), _x(1, 2, 4, 4, 4)),
    Case("LPPool1d", lambda nn: nn.LPPool1d(2, 2), _x(2, 3, 6)),
    Case("LPPool2d", lambda nn: nn.LPPool2d(2, 2), _x(1, 2, 4, 4)),
    Case("LPPool3d", lambda nn: nn.LPPool3d(2, 2), _x(1, 2, 4, 4, 4)),
    Case("AdaptiveAvgPool1d", lambda nn: nn.AdaptiveAvgPool1d(3), _x(2, 3, 7)),
    Case("AdaptiveAvgPool2d", lambda nn: nn.AdaptiveAvgPool2d((2, 3)), _x(1, 2, 5, 7)),
    Case("AdaptiveAvgPool3d", lambda nn: nn.AdaptiveAvgPool3d(2), _x(1, 2, 3, 5, 4)),
    Case("MaxPool1d", lambda nn: nn.MaxPool1d(2), _x(2, 3, 6)),
    Case("MaxPool2d", lambda nn: nn.MaxPool2d(3, stride=2, padding=1, return_indices=True),
         _x(1, 2, 5, 5)),
    Case("MaxPool3d", lambda nn: nn.MaxPool3d(2), _x(1, 2, 4, 4, 4)),
    Case("AdaptiveMaxPool1d", lambda nn: nn.AdaptiveMaxPool1d(3), _x(2, 3, 7)),
    Case("AdaptiveMaxPool2d", lambda nn: nn.AdaptiveMaxPool2d((2, 3)), _x(1, 2, 5, 7)),
    Case("AdaptiveMaxPool3d", lambda nn: nn.AdaptiveMaxPool3d(2), _x(1, 2, 3, 5, 4)),
    Case("FractionalMaxPool2d", lambda nn: nn.FractionalMaxPool2d(
        2, output_size=(3, 3), _random_samples=_samples(nn, 0, 1, 2, 2)),
         _x(1, 2, 6, 7)),
    Case("FractionalMaxPool3d", lambda nn: nn.FractionalMaxPool3d(
        2, output_size=(2, 2, 2), _random_samples=_samples(nn, 1, 1, 2, 3)),
         _x(1, 2, 4, 5, 4)),
    Case("MaxUnpool1d", lambda nn: nn.MaxUnpool1d(2),
         _pool_indices(torch.nn.functional.max_pool1d, (2, 3, 6), 2)),
    Case("MaxUnpool2d", lambda nn: nn.MaxUnpool2d(2),
         _pool_indices(torch.nn.functional.max_pool2d, (1, 2, 4, 6), 2)),
    Case("MaxUnpool3d", lambda nn: nn.MaxUnpool3d(2),
         _pool_indices(torch.nn.functional.max_pool3d, (1, 2, 4, 4, 2), 2)),
    # -- padding ------------------------------------------------------------------------------
    *[Case(f"{kind}Pad{d}d", lambda nn, kind=kind, d=d: getattr(nn, f"{kind}Pad{d}d")(
        *((1, 0.5) if kind == "Constant" else (1,))), _x(*((1, 2) + (3,) * d)))
      for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular") for d in (1, 2, 3)],
    Case("ZeroPad2d", lambda nn: nn.ZeroPad2d((1, 2, 0, 1)), _x(1, 2, 3, 3), "uneven"),
    # -- recurrent ----------------------------------------------------------------------------
    Case("RNN", lambda nn: nn.RNN(4, 5, num_layers=2), _x(3, 2, 4)),
    Case("RNN", lambda nn: nn.RNN(4, 3, nonlinearity="relu", batch_first=True),
         lambda rng: (_n(rng, 2, 3, 4), _n(rng, 1, 2, 3)), "relu-h0"),
    Case("LSTM", lambda nn: nn.LSTM(4, 5), _x(3, 2, 4)),
    Case("LSTM", lambda nn: nn.LSTM(4, 5, proj_size=2, bidirectional=True),
         lambda rng: (_n(rng, 3, 4), (_n(rng, 2, 2), _n(rng, 2, 5))), "proj-bidi-unbatched"),
    Case("GRU", lambda nn: nn.GRU(4, 5, bidirectional=True, batch_first=True), _x(2, 3, 4)),
    Case("RNNCell", lambda nn: nn.RNNCell(4, 5), lambda rng: (_n(rng, 2, 4), _n(rng, 2, 5))),
    Case("LSTMCell", lambda nn: nn.LSTMCell(4, 5),
         lambda rng: (_n(rng, 2, 4), (_n(rng, 2, 5), _n(rng, 2, 5)))),
    Case("GRUCell", lambda nn: nn.GRUCell(4, 5), _x(2, 4)),
    Case("RNNBase", lambda nn: nn.RNNBase("GRU", 4, 3), None, call=False),
    # -- attention and transformers -----------------------------------------------------------
    Case("MultiheadAttention", lambda nn: nn.MultiheadAttention(4, 2),
         lambda rng: (_n(rng, 3, 2, 4), _n(rng, 5, 2, 4), _n(rng, 5, 2, 4))),
    Case("MultiheadAttention", lambda nn: nn.MultiheadAttention(4, 2, kdim=3, vdim=5,
                                                                batch_first=True),
         lambda rng: (_n(rng, 2, 3, 4), _n(rng, 2, 4, 3), _n(rng, 2, 4, 5)), "kdim-vdim"),
    Case("TransformerEncoderLayer", lambda nn: nn.TransformerEncoderLayer(LAYER, 2, 16, 0.0),
         _x(3, 2, LAYER), train=True),
    Case("TransformerDecoderLayer", lambda nn: nn.TransformerDecoderLayer(
        LAYER, 2, 16, 0.0, norm_first=True), lambda rng: (_n(rng, 3, 2, LAYER),
                                                          _n(rng, 4, 2, LAYER)), train=True),
    Case("TransformerEncoder", lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(LAYER, 2, 16, 0.0), 2, enable_nested_tensor=False),
         _x(3, 2, LAYER), train=True),
    Case("TransformerDecoder", lambda nn: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(LAYER, 2, 16, 0.0), 2),
         lambda rng: (_n(rng, 3, 2, LAYER), _n(rng, 4, 2, LAYER)), train=True),
    Case("Transformer", lambda nn: nn.Transformer(LAYER, 2, 1, 1, 16, 0.0),
         lambda rng: (_n(rng, 4, 2, LAYER), _n(rng, 3, 2, LAYER)), train=True),
    # -- losses -------------------------------------------------------------------------------
    *[Case(name, lambda nn, name=name: getattr(nn, name)(),
           lambda rng: (_n(rng, 3, 4), Const(_n(rng, 3, 4))))
      for name in ("L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss")],
    Case("HuberLoss", lambda nn: nn.HuberLoss(reduction="sum", delta=0.5),
         lambda rng: (_n(rng, 3, 4), _n(rng, 3, 4)), "sum-target-grad"),
    Case("MSELoss", lambda nn: nn.MSELoss(reduction="none"),
         lambda rng: (_n(rng, 3, 4), _n(rng, 3, 4)), "none-target-grad"),
    Case("CrossEntropyLoss", lambda nn: nn.CrossEntropyLoss(),
         lambda rng: (_n(rng, 4, 5), _ints(rng, 5, 4))),
    Case("CrossEntropyLoss", lambda nn: nn.CrossEntropyLoss(
        weight=_tensor(nn, [1.0, 2.0, 0.5, 1.0, 3.0]), label_smoothing=0.1, ignore_index=2),
         lambda rng: (_n(rng, 4, 5, 2), _ints(rng, 5, 4, 2)), "weight-smoothing-2d"),
    Case("CrossEntropyLoss", lambda nn: nn.CrossEntropyLoss(),
         lambda rng: (_n(rng, 4, 5), Const(torch.from_numpy(_n(rng, 4, 5)).softmax(1).numpy())),
         "probabilities"),
    Case("NLLLoss", lambda nn: nn.NLLLoss(), lambda rng: (_n(rng, 4, 5), _ints(rng, 5, 4))),
    Case("NLLLoss2d", lambda nn: nn.NLLLoss2d(),
         lambda rng: (_n(rng, 2, 3, 2, 2), _ints(rng, 3, 2, 2, 2))),
    Case("BCELoss", lambda nn: nn.BCELoss(),
         lambda rng: (0.1 + 0.8 * rng.random((3, 4)), Const(rng.random((3, 4))))),
    Case("BCEWithLogitsLoss", lambda nn: nn.BCEWithLogitsLoss(),
         lambda rng: (_n(rng, 3, 4), Const(rng.random((3, 4))))),
    Case("BCEWithLogitsLoss", lambda nn: nn.BCEWithLogitsLoss(
        pos_weight=_tensor(nn, [1.0, 2.0, 0.5, 3.0]), weight=_tensor(nn, [0.5, 1.0, 1.5, 2.0])),
         lambda rng: (_n(rng, 3, 4), Const(rng.random((3, 4)))), "pos_weight"),
    Case("KLDivLoss", lambda nn: nn.KLDivLoss(reduction="batchmean"),
         lambda rng: (_log_softmax(_n(rng, 3, 4)),
                      Const(torch.from_numpy(_n(rng, 3, 4)).softmax(1).numpy()))),
    Case("KLDivLoss", lambda nn: nn.KLDivLoss(reduction="sum", log_target=True),
         lambda rng: (_log_softmax(_n(rng, 3, 4)), _log_softmax(_n(rng, 3, 4))), "log_target"),
    Case("SoftMarginLoss", lambda nn: nn.SoftMarginLoss(),
         lambda rng: (_n(rng, 3, 4), _pm1(rng, 3, 4))),
    Case("MultiLabelSoftMarginLoss", lambda nn: nn.MultiLabelSoftMarginLoss(),
         lambda rng: (_n(rng, 3, 4), Const(rng.integers(0, 2, (3, 4)).astype(float)))),
    Case("MultiLabelMarginLoss", lambda nn: nn.MultiLabelMarginLoss(),
         lambda rng: (_n(rng, 3, 4), _multilabel_margin_target(rng))),
    Case("MultiMarginLoss", lambda nn: nn.MultiMarginLoss(p=2, margin=0.5),
         lambda rng: (_n(rng, 3, 4), _ints(rng, 4, 3))),
    Case("MarginRankingLoss", lambda nn: nn.MarginRankingLoss(0.2),
         lambda rng: (_n(rng, 5), _n(rng, 5), _pm1(rng, 5))),
    Case("HingeEmbeddingLoss", lambda nn: nn.HingeEmbeddingLoss(),
         lambda rng: (_n(rng, 3, 4), _pm1(rng, 3, 4))),
    Case("CosineEmbeddingLoss", lambda nn: nn.CosineEmbeddingLoss(0.1),
         lambda rng: (_n(rng, 3, 4), _n(rng, 3, 4), _pm1(rng, 3))),
    Case("TripletMarginLoss", lambda nn: nn.TripletMarginLoss(margin=2.0),
         lambda rng: (_n(rng, 3, 4), _n(rng, 3, 4), _n(rng, 3, 4))),
    Case("TripletMarginWithDistanceLoss", lambda nn: nn.TripletMarginWithDistanceLoss(
        margin=2.0), lambda rng: (_n(rng, 3, 4), _n(rng, 3, 4), _n(rng, 3, 4))),
    Case("PoissonNLLLoss", lambda nn: nn.PoissonNLLLoss(),
         lambda rng: (_n(rng, 3, 4), Const(rng.poisson(2.0, (3, 4)).astype(float)))),
    Case("PoissonNLLLoss", lambda nn: nn.PoissonNLLLoss(log_input=False, full=True),
         lambda rng: (0.5 + rng.random((3, 4)), Const(rng.poisson(2.0, (3, 4)).astype(float))),
         "full"),
    Case("GaussianNLLLoss", lambda nn: nn.GaussianNLLLoss(),
         lambda rng: (_n(rng, 3, 4), Const(_n(rng, 3, 4)), 0.5 + rng.random((3, 4)))),
    Case("CTCLoss", lambda nn: nn.CTCLoss(), _ctc),
    Case("AdaptiveLogSoftmaxWithLoss", lambda nn: nn.AdaptiveLogSoftmaxWithLoss(
        LAYER, 10, [4, 8], div_value=2.0), lambda rng: (_n(rng, 5, LAYER), _ints(rng, 10, 5))),
    Case("LinearCrossEntropyLoss", lambda nn: nn.LinearCrossEntropyLoss(4, 5, bias=True),
         lambda rng: (_n(rng, 3, 4), _ints(rng, 5, 3))),
    # -- containers and wrappers --------------------------------------------------------------
    Case("Sequential", lambda nn: nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2)),
         _x(2, 4)),
    Case("DataParallel", lambda nn: nn.DataParallel(nn.Linear(4, 3)), _x(2, 4)),
    Case("ModuleList", lambda nn: nn.ModuleList([nn.Linear(2, 3), nn.BatchNorm1d(3)]), None,
         call=False),
    Case("ModuleDict", lambda nn: nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.PReLU()}), None,
         call=False),
    Case("ParameterList", lambda nn: nn.ParameterList(
        [nn.Parameter(_tensor(nn, [[1.5, 2.0], [0.5, -1.0]]))]), None,
         call=False),
    Case("ParameterDict", lambda nn: nn.ParameterDict(
        {"w": nn.Parameter(_tensor(nn, [0.25, -0.5, 3.0]))}), None,
         call=False),
    Case("Module", lambda nn: nn.Module(), None, call=False),
    Case("Container", lambda nn: nn.Container(a=nn.Linear(2, 2)), None, call=False),
    Case("RNNCellBase", lambda nn: nn.RNNCellBase(4, 5, True, 3), None, call=False),
]


def _tensor(nn, values):
    """A float64 tensor of ``values`` in the namespace of ``nn`` (torch.nn or ember.torch.nn)."""
    if nn is torch.nn:
        return torch.tensor(values, dtype=torch.float64)
    import ember.torch as et
    return et.tensor(values, dtype=et.float64)
