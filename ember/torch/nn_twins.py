"""PyTorch's neural-network functions at the top level of ``torch``, with ATen's signatures.

``torch.embedding(weight, indices)`` takes its arguments the other way round from
``F.embedding(input, weight)``; ``torch.dropout(input, p, train)`` has a positional
``train``; the losses take ``reduction`` as an int (0 ``"none"``, 1 ``"mean"``, 2 ``"sum"``);
``torch.batch_norm``, ``layer_norm``, ``group_norm`` and ``instance_norm`` take the
``cudnn_enabled`` flag (accepted, no effect); ``torch.lstm``, ``gru``, ``rnn_tanh`` and
``rnn_relu`` take flat weight lists and return tuples. Each maps onto the op of
ember.nn.functional that computes it (or ember's recurrent layers' machinery), so nothing is
computed twice; the ``*_`` forms rebind their first argument (ember/torch/inplace.py).

The ``batch_norm_*`` functions are ``nn.SyncBatchNorm``'s building blocks (per-process
statistics, their combination, and the pieces of the gradient), written from their math.

>>> import ember.torch as torch
>>> w = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
>>> torch.embedding(w, torch.tensor([1, 0])).tolist()
[[2.0, 3.0], [0.0, 1.0]]
>>> torch.dropout(torch.ones(2), 0.5, False).tolist()
[1.0, 1.0]
"""

import ember as _e

from .. import dtypes as _dt, linalg as _la
from ..autodiff import no_grad
from ..errors import InvalidParameterError, ShapeMismatchError
from ..nn import functional as _F
from ..nn.recurrent import RNNBase, _STEPS, _gru_step, _lstm_step
from ..ops.creation import arange, zeros
from ..ops.grid_sample_3d import grid_sample_3d
from ..ops.inplace import rebind
from ..ops.linear import linear
from ..ops.nn_args import _float_tensor, _int, _real
from ..ops.segments import stack
from ..ops.views import reshape_exact
from .._tensor import Tensor as _T, check_tensor
from ._tensor import torch_function, torch_method
from .indexing import index_add, scatter_reduce
from .inplace import apply_inplace

__all__ = []  # everything here is reached as ember.torch.<name>

_REDUCTIONS = ("none", "mean", "sum")


# -- PyTorch's enum ints and flags --------------------------------------------------------------

def _reduction(value, op):
    """PyTorch's reduction enum (0 "none", 1 "mean", 2 "sum") as F's string."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2:
        raise InvalidParameterError(f"{op}: reduction must be 0 (none), 1 (mean) or 2 (sum), "
                                    f"got {value!r}", "reduction", value)
    return _REDUCTIONS[value]


def _enum(value, names, op, param):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(names):
        choices = ", ".join(f"{i} ({n})" for i, n in enumerate(names))
        raise InvalidParameterError(f"{op}: {param} must be one of {choices}, got {value!r}",
                                    param, value)
    return names[value]


def _flag(value, op, param):
    if value is not True and value is not False:
        raise InvalidParameterError(f"{op}: {param} must be a bool, got {value!r}", param, value)
    return value


def _stride(stride):
    """ATen's empty stride list: the kernel size."""
    return None if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else stride


# -- activations ----------------------------------------------------------------------------------

@torch_function
def celu(input, alpha=1.0):
    """``torch.celu``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    >>> import ember.torch as torch
    >>> torch.celu(torch.tensor([1.0, 0.0])).tolist()
    [1.0, 0.0]
    """
    return _F.celu(input, alpha)


@torch_function
def celu_(input, alpha=1.0):
    """``torch.celu_``: ``celu`` rebound into ``input``; returns it.

    >>> import ember.torch as torch
    >>> x = torch.tensor([2.0]); torch.celu_(x) is x, x.tolist()
    (True, [2.0])
    """
    return apply_inplace(input, lambda t: celu(t, alpha), "celu_")


@torch_function
def selu(input):
    """``torch.selu``: ``scale * elu(x, alpha)`` with SELU's constants.

    >>> import ember.torch as torch
    >>> round(torch.selu(torch.tensor([1.0])).item(), 4)
    1.0507
    """
    return _F.selu(input)


@torch_function
def selu_(input):
    """``torch.selu_``: ``selu`` rebound into ``input``; returns it.

    >>> import ember.torch as torch
    >>> x = torch.tensor([0.0]); torch.selu_(x).tolist()
    [0.0]
    """
    return apply_inplace(input, selu, "selu_")


@torch_function
def threshold(input, threshold, value):
    """``torch.threshold``: ``x`` where ``x > threshold``, else ``value``.

    >>> import ember.torch as torch
    >>> torch.threshold(torch.tensor([1.0, 3.0]), 2.0, -1.0).tolist()
    [-1.0, 3.0]
    """
    return _F.threshold(input, threshold, value)


@torch_function
def threshold_(input, threshold, value):
    """``torch.threshold_``: ``threshold`` rebound into ``input``; returns it.

    >>> import ember.torch as torch
    >>> x = torch.tensor([1.0, 3.0]); torch.threshold_(x, 2.0, 0.0) is x, x.tolist()
    (True, [0.0, 3.0])
    """
    return apply_inplace(input, lambda t: _F.threshold(t, threshold, value), "threshold_")


@torch_function
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu``: leaky ReLU with a random slope in ``[lower, upper]`` per element in
    training, the mean slope otherwise. ``generator`` is accepted; the slopes come from
    ember's default generator (``manual_seed``), as ``F.rrelu``'s.

    >>> import ember.torch as torch
    >>> torch.rrelu(torch.tensor([-4.0, 1.0]), 0.25, 0.25).tolist()
    [-1.0, 1.0]
    """
    return _F.rrelu(input, lower, upper, _flag(training, "rrelu", "training"))


@torch_function
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu_``: ``rrelu`` rebound into ``input``; returns it.

    >>> import ember.torch as torch
    >>> torch.rrelu_(torch.tensor([-8.0]), 0.5, 0.5).tolist()
    [-4.0]
    """
    return apply_inplace(input, lambda t: rrelu(t, lower, upper, training), "rrelu_")


@torch_function
def hardshrink(input, lambd=0.5):
    """``torch.hardshrink``: ``x`` where ``|x| > lambd``, else 0.

    >>> import ember.torch as torch
    >>> torch.hardshrink(torch.tensor([0.3, -1.0])).tolist()
    [0.0, -1.0]
    """
    return _F.hardshrink(input, lambd)


@torch_function
def prelu(input, weight):
    """``torch.prelu``: ``x`` where positive, else ``weight * x`` (one slope, or one per
    channel of dim 1).

    >>> import ember.torch as torch
    >>> torch.prelu(torch.tensor([-2.0, 1.0]), torch.tensor([0.5])).tolist()
    [-1.0, 1.0]
    """
    return _F.prelu(input, weight)


torch_method(hardshrink.implementation, name="hardshrink")
torch_method(prelu.implementation, name="prelu")


# -- dropouts -------------------------------------------------------------------------------------

@torch_function
def dropout(input, p, train):
    """``torch.dropout``: zero each element with probability ``p`` and scale the rest by
    ``1/(1-p)`` when ``train``; the input itself otherwise.

    >>> import ember.torch as torch
    >>> torch.dropout(torch.ones(3), 1.0, True).tolist()
    [0.0, 0.0, 0.0]
    """
    return _F.dropout(input, p, _flag(train, "dropout", "train"))


@torch_function
def feature_dropout(input, p, train):
    """``torch.feature_dropout``: dropout of whole channels of a (N, C, *) input.

    >>> import ember.torch as torch
    >>> torch.feature_dropout(torch.ones(2, 3, 4), 1.0, True).sum().item()
    0.0
    """
    return _F.dropout2d(input, p, _flag(train, "feature_dropout", "train"))


@torch_function
def alpha_dropout(input, p, train):
    """``torch.alpha_dropout``: dropout that keeps SELU's mean and variance.

    >>> import ember.torch as torch
    >>> torch.alpha_dropout(torch.ones(2), 0.5, False).tolist()
    [1.0, 1.0]
    """
    return _F.alpha_dropout(input, p, _flag(train, "alpha_dropout", "train"))


@torch_function
def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout``: ``alpha_dropout`` of whole channels of (N, C, *).

    >>> import ember.torch as torch
    >>> torch.feature_alpha_dropout(torch.ones(1, 2, 2), 0.5, False).shape
    torch.Size([1, 2, 2])
    """
    return _F.feature_alpha_dropout(input, p, _flag(train, "feature_alpha_dropout", "train"))


@torch_function
def dropout_(input, p, train):
    """``torch.dropout_``: ``dropout`` rebound into ``input``; returns it.

    >>> import ember.torch as torch
    >>> x = torch.ones(2); torch.dropout_(x, 1.0, True) is x, x.tolist()
    (True, [0.0, 0.0])
    """
    return apply_inplace(input, lambda t: dropout(t, p, train), "dropout_")


@torch_function
def feature_dropout_(input, p, train):
    """``torch.feature_dropout_``: ``feature_dropout`` rebound into ``input``.

    >>> import ember.torch as torch
    >>> torch.feature_dropout_(torch.ones(1, 2, 2), 1.0, True).sum().item()
    0.0
    """
    return apply_inplace(input, lambda t: feature_dropout(t, p, train), "feature_dropout_")


@torch_function
def alpha_dropout_(input, p, train):
    """``torch.alpha_dropout_``: ``alpha_dropout`` rebound into ``input``.

    >>> import ember.torch as torch
    >>> torch.alpha_dropout_(torch.ones(2), 0.5, False).tolist()
    [1.0, 1.0]
    """
    return apply_inplace(input, lambda t: alpha_dropout(t, p, train), "alpha_dropout_")


@torch_function
def feature_alpha_dropout_(input, p, train):
    """``torch.feature_alpha_dropout_``: ``feature_alpha_dropout`` rebound into ``input``.

    >>> import ember.torch as torch
    >>> torch.feature_alpha_dropout_(torch.ones(1, 2, 2), 0.0, True).sum().item()
    4.0
    """
    return apply_inplace(input, lambda t: feature_alpha_dropout(t, p, train),
                         "feature_alpha_dropout_")


# -- embeddings -----------------------------------------------------------------------------------

@torch_function
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding``: the rows of ``weight`` that ``indices`` pick (weight first, unlike
    ``F.embedding``); ``padding_idx`` -1 (or below) for none, else that row gets no gradient.

    >>> import ember.torch as torch
    >>> torch.embedding(torch.tensor([[1.0], [2.0]]), torch.tensor([1, 1])).tolist()
    [[2.0], [2.0]]
    """
    padding_idx = _int(padding_idx, "embedding", "padding_idx")
    return _F.embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                        scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


@torch_function
def embedding_renorm_(input, indices, max_norm, norm_type):
    """``torch.embedding_renorm_``: each row of ``input`` that ``indices`` name and whose
    ``norm_type``-norm exceeds ``max_norm`` scaled to ``max_norm`` (``F.embedding``'s
    ``max_norm`` step), rebinding ``input``; returns it.

    >>> import ember.torch as torch
    >>> w = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> w = torch.embedding_renorm_(w, torch.tensor([0, 1]), 1.0, 2.0)
    >>> [round(v, 4) for v in w[0].tolist()]
    [0.6, 0.8]
    """
    op = "embedding_renorm_"
    _real(max_norm, op, "max_norm", 0.0)

    def renormed(t):
        w = t.detach()  # F.embedding rebinds this one to the renormalized rows
        with no_grad():
            _F.embedding(indices, w, max_norm=max_norm, norm_type=norm_type)
        return w
    return apply_inplace(input, renormed, op)


_BAG_MODES = ("sum", "mean", "max")


@torch_function
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``torch.embedding_bag``: ``F.embedding_bag`` of 1-d ``indices`` split into bags at
    ``offsets`` (``mode`` 0 sum, 1 mean, 2 max), returning PyTorch's four tensors:
    ``(output, offset2bag, bag_size, max_indices)`` as its CPU kernel fills them (the bag of
    each index, each bag's count of non-padding indices, the rows of the maxima for mode 2;
    mode 0 leaves the counts zero, and offset2bag empty for float32, float16 and bfloat16
    weights without ``padding_idx``).

    >>> import ember.torch as torch
    >>> w = torch.tensor([[1.0], [2.0], [4.0]])
    >>> idx, offsets = torch.tensor([0, 1, 2]), torch.tensor([0, 1])
    >>> out, o2b, size, _ = torch.embedding_bag(w, idx, offsets, mode=1)
    >>> out.tolist(), o2b.tolist(), size.tolist()
    ([[1.0], [3.0]], [0, 1, 1], [1, 2])
    """
    op = "embedding_bag"
    name = _enum(mode, _BAG_MODES, op, "mode")
    check_tensor(indices, op, "indices")
    check_tensor(offsets, op, "offsets")
    if indices.ndim != 1 or offsets.ndim != 1:
        raise ShapeMismatchError(f"{op}: indices and offsets must be 1-d, got shapes "
                                 f"{tuple(indices.shape)} and {tuple(offsets.shape)}",
                                 expected=1, actual=(indices.ndim, offsets.ndim))
    out = _F.embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                           mode=name, sparse=sparse, per_sample_weights=per_sample_weights,
                           include_last_offset=include_last_offset, padding_idx=padding_idx)
    bags, n, dev = out.shape[0], indices.shape[0], indices.device
    i64 = _dt.int64
    # each index's bag: the count of bag starts at or before it, less one
    marks = index_add(zeros(n + 1, dtype=i64, device=dev), 0, offsets.to(i64)[:bags],
                      zeros(bags, dtype=i64, device=dev) + 1)
    offset2bag = _e.cumsum(marks[:n], 0) - 1
    valid = (indices != _int(padding_idx, op, "padding_idx") % weight.shape[0]
             if padding_idx is not None else indices == indices)
    bag_size = index_add(zeros(bags, dtype=i64, device=dev), 0, offset2bag, valid.to(i64))
    if name == "sum":
        empty = zeros(bags, dtype=i64, device=dev)
        fast = padding_idx is None and weight.dtype.name in ("float32", "float16", "bfloat16")
        o2b = zeros(0, dtype=i64, device=dev) if fast else offset2bag
        return out, o2b, empty, empty
    if name == "mean":
        return out, offset2bag, bag_size, bag_size
    with no_grad():  # the row of each maximum: that of its bag's first index holding it
        rows = _F.embedding(indices, weight.detach())                       # (n, D)
        shape = tuple(rows.shape)
        hit = (rows == out.detach()[offset2bag]) & valid.reshape((-1, 1))
        position = arange(n, device=dev).reshape((-1, 1)).expand(*shape)
        first = scatter_reduce(zeros((bags, shape[1]), dtype=i64, device=dev) + n, 0,
                               offset2bag.reshape((-1, 1)).expand(*shape),
                               _e.where(hit, position, n), "amin")
        found = first < n
        picked = indices.to(i64)[_e.where(found, first, 0)] if n else first
        max_indices = _e.where(found, picked, 0)
    return out, offset2bag, bag_size, max_indices


# -- convolutions ---------------------------------------------------------------------------------

@torch_function
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.conv1d``: ``F.conv1d`` (``padding`` also "same" or "valid").

    >>> import ember.torch as torch
    >>> torch.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2)).tolist()
    [[[2.0, 2.0, 2.0]]]
    """
    return _F.conv1d(input, weight, bias, stride, padding, dilation, groups)


@torch_function
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.conv2d``: ``F.conv2d``.

    >>> import ember.torch as torch
    >>> torch.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)).shape
    torch.Size([1, 1, 2, 2])
    """
    return _F.conv2d(input, weight, bias, stride, padding, dilation, groups)


@torch_function
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.conv3d``: ``F.conv3d``.

    >>> import ember.torch as torch
    >>> torch.conv3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 2, 2, 2)).item()
    8.0
    """
    return _F.conv3d(input, weight, bias, stride, padding, dilation, groups)


@torch_function
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``torch.conv_transpose1d``: ``F.conv_transpose1d``.

    >>> import ember.torch as torch
    >>> torch.conv_transpose1d(torch.ones(1, 1, 2), torch.ones(1, 1, 2)).tolist()
    [[[1.0, 2.0, 1.0]]]
    """
    return _F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
                               dilation)


@torch_function
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``torch.conv_transpose2d``: ``F.conv_transpose2d``.

    >>> import ember.torch as torch
    >>> torch.conv_transpose2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2)).shape
    torch.Size([1, 1, 3, 3])
    """
    return _F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                               dilation)


@torch_function
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """``torch.conv_transpose3d``: ``F.conv_transpose3d``.

    >>> import ember.torch as torch
    >>> torch.conv_transpose3d(torch.ones(1, 1, 1, 1, 1), torch.ones(1, 2, 2, 2, 2)).shape
    torch.Size([1, 2, 2, 2, 2])
    """
    return _F.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups,
                               dilation)


_CONVS = {1: (_F.conv1d, _F.conv_transpose1d), 2: (_F.conv2d, _F.conv_transpose2d),
          3: (_F.conv3d, _F.conv_transpose3d)}


@torch_function
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """``torch.convolution``: the 1-, 2- or 3-d convolution (``transposed``: its transpose)
    that ``weight``'s rank names; every argument positional, as ATen's.

    >>> import ember.torch as torch
    >>> x, w = torch.ones(1, 1, 3), torch.ones(1, 1, 2)
    >>> torch.convolution(x, w, None, [1], [0], [1], False, [0], 1).tolist()
    [[[2.0, 2.0]]]
    """
    op = "convolution"
    check_tensor(weight, op, "weight")
    transposed = _flag(transposed, op, "transposed")
    if weight.ndim - 2 not in _CONVS:
        raise ShapeMismatchError(f"{op}: weight has {weight.ndim} dims; expected 3, 4 or 5 "
                                 "(a 1-, 2- or 3-d convolution)", expected=(3, 4, 5),
                                 actual=tuple(weight.shape))
    nd = weight.ndim - 2
    plain, transpose = _CONVS[nd]

    def per_dim(value):  # ATen's int lists: one value stands for every dim
        if isinstance(value, (list, tuple)):
            return tuple(value) * nd if len(value) == 1 else tuple(value)
        return value
    stride, padding, dilation = per_dim(stride), per_dim(padding), per_dim(dilation)
    if transposed:
        return transpose(input, weight, bias, stride, padding, per_dim(output_padding), groups,
                         dilation)
    return plain(input, weight, bias, stride, padding, dilation, groups)


@torch_function
def conv_tbc(input, weight, bias, pad=0):
    """``torch.conv_tbc``: 1-d convolution of a (time, batch, channels) input.

    >>> import ember.torch as torch
    >>> torch.conv_tbc(torch.ones(3, 1, 1), torch.ones(2, 1, 1), torch.zeros(1)).shape
    torch.Size([2, 1, 1])
    """
    return _F.conv_tbc(input, weight, bias, pad)


# -- pooling --------------------------------------------------------------------------------------

@torch_function
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    """``torch.avg_pool1d``: ``F.avg_pool1d`` (an empty ``stride``: the kernel size).

    >>> import ember.torch as torch
    >>> torch.avg_pool1d(torch.tensor([[[1.0, 3.0, 5.0, 7.0]]]), 2).tolist()
    [[[2.0, 6.0]]]
    """
    return _F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                         count_include_pad)


@torch_function
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d``: ``F.max_pool1d`` (an empty ``stride``: the kernel size).

    >>> import ember.torch as torch
    >>> torch.max_pool1d(torch.tensor([[1.0, 3.0, 5.0, 2.0]]), 2).tolist()
    [[3.0, 5.0]]
    """
    return _F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


@torch_function
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """``torch.max_pool1d_with_indices``: the maxima and their positions.

    >>> import ember.torch as torch
    >>> v, i = torch.max_pool1d_with_indices(torch.tensor([[1.0, 3.0, 5.0, 2.0]]), 2)
    >>> v.tolist(), i.tolist()
    ([[3.0, 5.0]], [[1, 2]])
    """
    return _F.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation,
                                      ceil_mode, True)


@torch_function
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool2d``: ``F.max_pool2d`` (an empty ``stride``: the kernel size).

    >>> import ember.torch as torch
    >>> torch.max_pool2d(torch.ones(1, 4, 4), 2).shape
    torch.Size([1, 2, 2])
    """
    return _F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


@torch_function
def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool3d``: ``F.max_pool3d`` (an empty ``stride``: the kernel size).

    >>> import ember.torch as torch
    >>> torch.max_pool3d(torch.ones(1, 2, 2, 2), 2).shape
    torch.Size([1, 1, 1, 1])
    """
    return _F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


@torch_function
def adaptive_avg_pool1d(input, output_size):
    """``torch.adaptive_avg_pool1d``: ``F.adaptive_avg_pool1d``.

    >>> import ember.torch as torch
    >>> torch.adaptive_avg_pool1d(torch.tensor([[1.0, 3.0, 5.0, 7.0]]), 2).tolist()
    [[2.0, 6.0]]
    """
    return _F.adaptive_avg_pool1d(input, output_size)


@torch_function
def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: the maxima and their positions (always both).

    >>> import ember.torch as torch
    >>> v, i = torch.adaptive_max_pool1d(torch.tensor([[1.0, 3.0, 5.0, 2.0]]), 2)
    >>> v.tolist(), i.tolist()
    ([[3.0, 5.0]], [[1, 2]])
    """
    return _F.adaptive_max_pool1d(input, output_size, True)


# -- shuffles, padding, sampling ------------------------------------------------------------------

@torch_function
def pixel_shuffle(input, upscale_factor):
    """``torch.pixel_shuffle``: (*, C r², H, W) to (*, C, H r, W r).

    >>> import ember.torch as torch
    >>> torch.pixel_shuffle(torch.ones(1, 4, 1, 1), 2).shape
    torch.Size([1, 1, 2, 2])
    """
    return _F.pixel_shuffle(input, upscale_factor)


@torch_function
def pixel_unshuffle(input, downscale_factor):
    """``torch.pixel_unshuffle``: the inverse of ``pixel_shuffle``.

    >>> import ember.torch as torch
    >>> torch.pixel_unshuffle(torch.ones(1, 1, 2, 2), 2).shape
    torch.Size([1, 4, 1, 1])
    """
    return _F.pixel_unshuffle(input, downscale_factor)


@torch_function
def channel_shuffle(input, groups):
    """``torch.channel_shuffle``: the channels (dim 1) regrouped, ``groups`` at a time.

    >>> import ember.torch as torch
    >>> torch.channel_shuffle(torch.arange(4.0).reshape(1, 4, 1), 2).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    return _F.channel_shuffle(input, groups)


@torch_function
def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: ``F.pad`` with a constant (``pad`` last dim first; negative
    amounts crop).

    >>> import ember.torch as torch
    >>> torch.constant_pad_nd(torch.tensor([1.0, 2.0]), [1, -1], 9).tolist()
    [9.0, 1.0]
    """
    return _F.pad(input, tuple(pad) if isinstance(pad, list) else pad, "constant", value)


@torch_function
def affine_grid_generator(theta, size, align_corners):
    """``torch.affine_grid_generator``: ``F.affine_grid`` (``align_corners`` required).

    >>> import ember.torch as torch
    >>> theta = torch.tensor([[[1.0, 0, 0], [0, 1.0, 0]]])
    >>> torch.affine_grid_generator(theta, [1, 1, 1, 2], False).tolist()
    [[[[-0.5, 0.0], [0.5, 0.0]]]]
    """
    op = "affine_grid_generator"
    if not isinstance(size, (list, tuple)):
        raise InvalidParameterError(f"{op}: size must be a list of ints (N, C, H, W) or (N, C, "
                                    f"D, H, W), got {size!r}", "size", size)
    return _F.affine_grid(theta, size, _flag(align_corners, op, "align_corners"))


_INTERPOLATION = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def _grid_sampler(op, input, grid, interpolation_mode, padding_mode, align_corners, sampler):
    mode = _enum(interpolation_mode, _INTERPOLATION, op, "interpolation_mode")
    pad = _enum(padding_mode, _PADDING, op, "padding_mode")
    return sampler(input, grid, mode, pad, _flag(align_corners, op, "align_corners"))


@torch_function
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler``: ``F.grid_sample`` with PyTorch's enum ints (mode 0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection), of a 4-d input or, as
    ``grid_sampler_3d``, a 5-d one.

    >>> import ember.torch as torch
    >>> x = torch.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> torch.grid_sampler(x, torch.zeros(1, 1, 1, 2), 0, 0, True).tolist()
    [[[[1.5]]]]
    """
    five = isinstance(input, _T) and input.ndim == 5
    return _grid_sampler("grid_sampler", input, grid, interpolation_mode, padding_mode,
                         align_corners, grid_sample_3d if five else _F.grid_sample)


@torch_function
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler_2d``: ``grid_sampler`` of a (N, C, H, W) input.

    >>> import ember.torch as torch
    >>> x = torch.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> torch.grid_sampler_2d(x, torch.zeros(1, 1, 1, 2), 1, 1, True).shape
    torch.Size([1, 1, 1, 1])
    """
    return _grid_sampler("grid_sampler_2d", input, grid, interpolation_mode, padding_mode,
                         align_corners, _F.grid_sample)


@torch_function
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler_3d``: ``grid_sampler`` of a (N, C, D, H, W) input at a (N, Do, Ho,
    Wo, 3) grid (mode 0 trilinear or 1 nearest).

    >>> import ember.torch as torch
    >>> x = torch.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> torch.grid_sampler_3d(x, torch.zeros(1, 1, 1, 1, 3), 0, 0, True).flatten().tolist()
    [3.5]
    """
    return _grid_sampler("grid_sampler_3d", input, grid, interpolation_mode, padding_mode,
                         align_corners, grid_sample_3d)


# -- normalizations -------------------------------------------------------------------------------

def _channels(t, ndim):
    """A per-channel (C,) tensor shaped to broadcast against a (N, C, *) input."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


def _other_dims(x, op):
    if x.ndim < 2:
        raise ShapeMismatchError(f"{op}: input has shape {tuple(x.shape)}; expected (N, C, *)",
                                 expected=2, actual=tuple(x.shape))
    return (0,) + tuple(range(2, x.ndim))


def _update_running(running_mean, running_var, mean, var, count, momentum, op):
    """Rebind the running statistics to their moving averages with ``mean`` and the biased
    ``var`` of ``count`` values (unbiased in the running variance, as PyTorch)."""
    m = _real(momentum, op, "momentum")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and tuple(check_tensor(t, op, name).shape) != tuple(mean.shape):
            raise ShapeMismatchError(f"{op}: {name} has shape {tuple(t.shape)}; expected "
                                     f"{tuple(mean.shape)} (one per channel)",
                                     expected=tuple(mean.shape), actual=tuple(t.shape))
    with no_grad():
        rm, rv = running_mean, running_var
        if rm is not None:
            rebind(rm, rm * (1 - m) + mean.detach().to(rm.dtype) * m, op)
        if rv is not None:
            unbiased = var.detach() * (count / (count - 1)) if count > 1 else var.detach()
            rebind(rv, rv * (1 - m) + unbiased.to(rv.dtype) * m, op)


@torch_function
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``torch.batch_norm``: ``F.batch_norm`` in ATen's order; in training the running
    statistics (when given) are rebound to their moving averages, as PyTorch updates them.

    >>> import ember.torch as torch
    >>> rm, rv = torch.zeros(1), torch.ones(1)
    >>> x = torch.tensor([[1.0], [3.0]])
    >>> torch.batch_norm(x, None, None, rm, rv, True, 0.5, 0.0, True).tolist()
    [[-1.0], [1.0]]
    >>> rm.tolist(), rv.tolist()
    ([1.0], [1.5])
    """
    op = "batch_norm"
    training = _flag(training, op, "training")
    out = _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if training and (running_mean is not None or running_var is not None):
        dims = _other_dims(input, op)
        count = input.numel() // input.shape[1]
        _update_running(running_mean, running_var, input.detach().mean(dims),
                        _e.var(input.detach(), dims, correction=0), count, momentum, op)
    return out


@torch_function
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """``torch.instance_norm``: ``F.instance_norm`` in ATen's order.

    >>> import ember.torch as torch
    >>> x = torch.tensor([[[1.0, 3.0]]])
    >>> torch.instance_norm(x, None, None, None, None, True, 0.1, 0.0, True).tolist()
    [[[-1.0, 1.0]]]
    """
    return _F.instance_norm(input, running_mean, running_var, weight, bias,
                            _flag(use_input_stats, "instance_norm", "use_input_stats"),
                            momentum, eps)


@torch_function
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``torch.layer_norm``: ``F.layer_norm`` (``cudnn_enable`` accepted).

    >>> import ember.torch as torch
    >>> torch.layer_norm(torch.tensor([[1.0, 3.0]]), [2], eps=0.0).tolist()
    [[-1.0, 1.0]]
    """
    return _F.layer_norm(input, normalized_shape, weight, bias, eps)


@torch_function
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``torch.group_norm``: ``F.group_norm`` (``cudnn_enabled`` accepted).

    >>> import ember.torch as torch
    >>> torch.group_norm(torch.tensor([[1.0, 3.0]]), 1, eps=0.0).tolist()
    [[-1.0, 1.0]]
    """
    return _F.group_norm(input, num_groups, weight, bias, eps)


@torch_function
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm``: ``F.rms_norm``.

    >>> import ember.torch as torch
    >>> torch.rms_norm(torch.tensor([[2.0, 2.0]]), [2], eps=0.0).tolist()
    [[1.0, 1.0]]
    """
    return _F.rms_norm(input, normalized_shape, weight, eps)


@torch_function
def norm_except_dim(v, pow=2, dim=0):
    """``torch.norm_except_dim``: the ``pow``-norm of ``v`` over every dim but ``dim``, kept
    as size-1 dims (weight normalization's norm); ``dim=-1``: the norm of all of ``v``.

    >>> import ember.torch as torch
    >>> torch.norm_except_dim(torch.tensor([[3.0, 0.0], [4.0, 1.0]]), 2, 1).tolist()
    [[5.0, 1.0]]
    """
    op = "norm_except_dim"
    check_tensor(v, op, "v")
    dim = _int(dim, op, "dim")
    p = _real(pow, op, "pow")
    if dim == -1:
        return v.norm(p)
    if not 0 <= dim < max(v.ndim, 1):
        raise InvalidParameterError(f"{op}: dim {dim} is out of range for a {v.ndim}-d tensor; "
                                    f"expected -1 or an int in [0, {max(v.ndim, 1) - 1}]",
                                    "dim", dim)
    others = tuple(d for d in range(v.ndim) if d != dim)
    return v.norm(p, dim=others, keepdim=True) if others else v.abs()


@torch_function
def frobenius_norm(input, dim, keepdim=False):
    """``torch.frobenius_norm``: the 2-norm over ``dim`` (an int or up to two dims).

    >>> import ember.torch as torch
    >>> torch.frobenius_norm(torch.tensor([[3.0, 4.0]]), [0, 1]).item()
    5.0
    """
    op = "frobenius_norm"
    check_tensor(input, op, "input")
    dims = (dim,) if isinstance(dim, int) else tuple(dim) if isinstance(dim, (list, tuple)) \
        else ()
    if not 1 <= len(dims) <= 2:
        raise InvalidParameterError(f"{op}: dim must name 1 or 2 dims, got {dim!r}", "dim", dim)
    return input.norm(2, dim=dims, keepdim=_flag(keepdim, op, "keepdim"))


@torch_function
def nuclear_norm(input, dim=None, keepdim=False):
    """``torch.nuclear_norm``: the sum of the singular values of the matrices over ``dim``
    (the last two dims of a matrix when omitted); ``torch.nuclear_norm(x, keepdim)`` too.

    >>> import ember.torch as torch
    >>> torch.nuclear_norm(torch.tensor([[3.0, 0.0], [0.0, -2.0]])).item()
    5.0
    """
    op = "nuclear_norm"
    check_tensor(input, op, "input")
    if isinstance(dim, bool):  # torch.nuclear_norm(x, keepdim)
        dim, keepdim = None, dim
    if dim is None:
        if input.ndim != 2:
            raise ShapeMismatchError(f"{op}: expected a 2-d tensor, got {input.ndim}-d; pass "
                                     "dim for the matrices of a batch", expected=2,
                                     actual=tuple(input.shape))
        dim = (0, 1)
    if not isinstance(dim, (list, tuple)) or len(dim) != 2:
        raise InvalidParameterError(f"{op}: dim must be a pair of dims, got {dim!r}", "dim", dim)
    return _la.matrix_norm(input, "nuc", dim=tuple(dim), keepdim=_flag(keepdim, op, "keepdim"))


# -- SyncBatchNorm's building blocks --------------------------------------------------------------

@torch_function
def batch_norm_stats(input, eps):
    """``torch.batch_norm_stats``: the mean and ``1 / sqrt(var + eps)`` (biased variance) of
    each channel (dim 1) of ``input``.

    >>> import ember.torch as torch
    >>> m, inv = torch.batch_norm_stats(torch.tensor([[1.0], [3.0]]), 0.0)
    >>> m.tolist(), inv.tolist()
    ([2.0], [1.0])
    """
    op = "batch_norm_stats"
    x = _float_tensor(input, op)
    dims = _other_dims(x, op)
    eps = _real(eps, op, "eps", 0.0)
    return x.mean(dims), (_e.var(x, dims, correction=0) + eps).rsqrt()


@torch_function
def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """``torch.batch_norm_elemt``: ``(x - mean) * invstd * weight + bias`` per channel.

    >>> import ember.torch as torch
    >>> x, mean, invstd = torch.tensor([[1.0], [3.0]]), torch.tensor([2.0]), torch.tensor([1.0])
    >>> torch.batch_norm_elemt(x, None, None, mean, invstd, 0.0).tolist()
    [[-1.0], [1.0]]
    """
    op = "batch_norm_elemt"
    x = _float_tensor(input, op)
    _other_dims(x, op)
    out = (x - _channels(mean, x.ndim)) * _channels(invstd, x.ndim)
    if weight is not None:
        out = out * _channels(weight, x.ndim)
    return out if bias is None else out + _channels(bias, x.ndim)


def _gather(op, mean, invstd, running_mean, running_var, momentum, eps, counts):
    """Combine per-process (mean, invstd) rows of ``counts`` values each into the global
    (mean, invstd), updating the running statistics."""
    check_tensor(mean, op, "mean")
    check_tensor(invstd, op, "invstd")
    if mean.ndim != 2 or tuple(invstd.shape) != tuple(mean.shape):
        raise ShapeMismatchError(f"{op}: mean and invstd must be (world_size, C), got "
                                 f"{tuple(mean.shape)} and {tuple(invstd.shape)}",
                                 expected=tuple(mean.shape), actual=tuple(invstd.shape))
    if counts.numel() != mean.shape[0]:
        raise ShapeMismatchError(f"{op}: counts has {counts.numel()} values for "
                                 f"{mean.shape[0]} rows of statistics; expected one per row",
                                 expected=mean.shape[0], actual=counts.numel())
    eps = _real(eps, op, "eps", 0.0)
    n = counts.to(mean.dtype).reshape((-1, 1))
    total = n.sum()
    gmean = (n * mean).sum(0) / total
    var_each = invstd.square().reciprocal() - eps
    var = (n * (var_each + (mean - gmean).square())).sum(0) / total
    _update_running(running_mean, running_var, gmean, var, total.item(), momentum, op)
    return gmean, (var + eps).rsqrt()


@torch_function
def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                        momentum, eps, counts):
    """``torch.batch_norm_gather_stats_with_counts``: the global mean and invstd of
    per-process statistics (rows of ``mean`` and ``invstd``, ``counts`` values each); the
    running statistics are rebound to their moving averages.

    >>> import ember.torch as torch
    >>> means, invstds = torch.tensor([[1.0], [3.0]]), torch.tensor([[1.0], [1.0]])
    >>> counts = torch.tensor([1.0, 1.0])
    >>> m, inv = torch.batch_norm_gather_stats_with_counts(torch.zeros(1), means, invstds, None,
    ...                                                    None, 0.1, 0.0, counts)
    >>> m.tolist(), round(inv.item(), 4)
    ([2.0], 0.7071)
    """
    op = "batch_norm_gather_stats_with_counts"
    check_tensor(counts, op, "counts")
    return _gather(op, mean, invstd, running_mean, running_var, momentum, eps, counts)


@torch_function
def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps,
                            count):
    """``torch.batch_norm_gather_stats``: ``batch_norm_gather_stats_with_counts`` with
    ``count`` values for every process.

    >>> import ember.torch as torch
    >>> means, invstds = torch.tensor([[1.0], [3.0]]), torch.tensor([[1.0], [1.0]])
    >>> m, _ = torch.batch_norm_gather_stats(torch.zeros(1), means, invstds, None, None, 0.1,
    ...                                      0.0, 4)
    >>> m.tolist()
    [2.0]
    """
    op = "batch_norm_gather_stats"
    count = _int(count, op, "count", 1)
    check_tensor(mean, op, "mean")
    counts = zeros(mean.shape[0], dtype=mean.dtype, device=mean.device) + count
    return _gather(op, mean, invstd, running_mean, running_var, momentum, eps, counts)


@torch_function
def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """``torch.batch_norm_update_stats``: each channel's mean and biased variance; the
    running statistics are rebound to their moving averages (unbiased variance).

    >>> import ember.torch as torch
    >>> rm = torch.zeros(1)
    >>> m, v = torch.batch_norm_update_stats(torch.tensor([[1.0], [3.0]]), rm, None, 0.5)
    >>> m.tolist(), v.tolist(), rm.tolist()
    ([2.0], [1.0], [1.0])
    """
    op = "batch_norm_update_stats"
    x = _float_tensor(input, op)
    dims = _other_dims(x, op)
    mean, var = x.mean(dims), _e.var(x, dims, correction=0)
    _update_running(running_mean, running_var, mean, var, x.numel() // x.shape[1], momentum, op)
    return mean, var


@torch_function
def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g,
                               bias_g):
    """``torch.batch_norm_backward_reduce``: per channel ``sum(dy)``, ``sum(dy * (x -
    mean))`` (when ``input_g``), the weight's gradient ``sum(dy * (x - mean)) * invstd``
    (``weight_g``) and the bias's ``sum(dy)`` (``bias_g``); None where not asked.

    >>> import ember.torch as torch
    >>> x, mean, invstd = torch.tensor([[1.0], [3.0]]), torch.tensor([2.0]), torch.tensor([1.0])
    >>> r = torch.batch_norm_backward_reduce(torch.ones(2, 1), x, mean, invstd, None, True,
    ...                                      True, True)
    >>> [t.tolist() for t in r]
    [[2.0], [0.0], [0.0], [2.0]]
    """
    op = "batch_norm_backward_reduce"
    x = _float_tensor(input, op)
    dy = _float_tensor(grad_out, op, "grad_out")
    dims = _other_dims(x, op)
    sum_dy = dy.sum(dims)
    sum_dy_xmu = (dy * (x - _channels(mean, x.ndim))).sum(dims)
    flags = [_flag(v, op, p) for v, p in ((input_g, "input_g"), (weight_g, "weight_g"),
                                          (bias_g, "bias_g"))]
    return (sum_dy if flags[0] else None, sum_dy_xmu if flags[0] else None,
            sum_dy_xmu * invstd if flags[1] else None, sum_dy if flags[2] else None)


@torch_function
def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu,
                              count):
    """``torch.batch_norm_backward_elemt``: the input's gradient of batch normalization from
    the global ``sum_dy`` and ``sum_dy_xmu`` over ``count`` (per process) values:
    ``(dy - sum_dy / N - (x - mean) * invstd² * sum_dy_xmu / N) * invstd * weight``.

    >>> import ember.torch as torch
    >>> x, mean, invstd = torch.tensor([[1.0], [3.0]]), torch.tensor([2.0]), torch.tensor([1.0])
    >>> sum_dy, sum_dy_xmu = torch.tensor([2.0]), torch.tensor([0.0])
    >>> torch.batch_norm_backward_elemt(torch.ones(2, 1), x, mean, invstd, None, sum_dy,
    ...                                 sum_dy_xmu, torch.tensor([2])).tolist()
    [[0.0], [0.0]]
    """
    op = "batch_norm_backward_elemt"
    x = _float_tensor(input, op)
    dy = _float_tensor(grad_out, op, "grad_out")
    _other_dims(x, op)
    check_tensor(count, op, "count")
    total = count.to(x.dtype).sum()
    nd = x.ndim
    inv = _channels(invstd, nd)
    scale = inv if weight is None else inv * _channels(weight, nd)
    return (dy - _channels(sum_dy, nd) / total
            - (x - _channels(mean, nd)) * inv.square() * _channels(sum_dy_xmu, nd) / total) \
        * scale


# -- losses and distances -------------------------------------------------------------------------

@torch_function
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    """``torch.binary_cross_entropy_with_logits``: ``F.binary_cross_entropy_with_logits``
    with ``reduction`` an int (0 none, 1 mean, 2 sum).

    >>> import ember.torch as torch
    >>> round(torch.binary_cross_entropy_with_logits(torch.zeros(2), torch.ones(2)).item(), 4)
    0.6931
    """
    return _F.binary_cross_entropy_with_logits(
        input, target, weight, _reduction(reduction, "binary_cross_entropy_with_logits"),
        pos_weight)


@torch_function
def kl_div(input, target, reduction=1, *, log_target=False):
    """``torch.kl_div``: ``F.kl_div`` with ``reduction`` an int (1: the mean over elements).

    >>> import ember.torch as torch
    >>> torch.kl_div(torch.zeros(2), torch.ones(2), 2).item()
    0.0
    """
    return _F.kl_div(input, target, reduction=_reduction(reduction, "kl_div"),
                     log_target=_flag(log_target, "kl_div", "log_target"))


@torch_function
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    """``torch.cosine_embedding_loss``: ``F.cosine_embedding_loss``, ``reduction`` an int.

    >>> import ember.torch as torch
    >>> torch.cosine_embedding_loss(torch.ones(1, 2), torch.ones(1, 2), torch.ones(1)).item()
    0.0
    """
    return _F.cosine_embedding_loss(input1, input2, target, margin,
                                    reduction=_reduction(reduction, "cosine_embedding_loss"))


@torch_function
def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    """``torch.hinge_embedding_loss``: ``F.hinge_embedding_loss``, ``reduction`` an int.

    >>> import ember.torch as torch
    >>> torch.hinge_embedding_loss(torch.tensor([0.5]), torch.tensor([-1.0])).item()
    0.5
    """
    return _F.hinge_embedding_loss(input, target, margin,
                                   reduction=_reduction(reduction, "hinge_embedding_loss"))


@torch_function
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    """``torch.margin_ranking_loss``: ``F.margin_ranking_loss``, ``reduction`` an int.

    >>> import ember.torch as torch
    >>> a, b = torch.tensor([1.0]), torch.tensor([2.0])
    >>> torch.margin_ranking_loss(a, b, torch.tensor([1.0])).item()
    1.0
    """
    return _F.margin_ranking_loss(input1, input2, target, margin,
                                  reduction=_reduction(reduction, "margin_ranking_loss"))


@torch_function
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss``: ``F.poisson_nll_loss`` with every argument positional and
    ``reduction`` an int.

    >>> import ember.torch as torch
    >>> torch.poisson_nll_loss(torch.zeros(1), torch.zeros(1), True, False, 1e-8, 1).item()
    1.0
    """
    return _F.poisson_nll_loss(input, target, _flag(log_input, "poisson_nll_loss", "log_input"),
                               _flag(full, "poisson_nll_loss", "full"), eps=eps,
                               reduction=_reduction(reduction, "poisson_nll_loss"))


@torch_function
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction=1):
    """``torch.triplet_margin_loss``: ``F.triplet_margin_loss``, ``reduction`` an int.

    >>> import ember.torch as torch
    >>> a, far = torch.zeros(1, 2), torch.ones(1, 2) * 9
    >>> torch.triplet_margin_loss(a, a, far).item()
    0.0
    """
    return _F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                  reduction=_reduction(reduction, "triplet_margin_loss"))


@torch_function
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    """``torch.ctc_loss``: ``F.ctc_loss`` with ``reduction`` an int (lengths as tensors or
    lists).

    >>> import ember.torch as torch
    >>> lp = torch.zeros(3, 1, 3).log_softmax(2)
    >>> round(torch.ctc_loss(lp, torch.tensor([[1, 2]]), [3], [2], 0, 2).item(), 4)
    1.6864
    """
    return _F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                       _reduction(reduction, "ctc_loss"), zero_infinity)


@torch_function
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``torch.cosine_similarity``: ``F.cosine_similarity``.

    >>> import ember.torch as torch
    >>> torch.cosine_similarity(torch.tensor([[1.0, 0.0]]), torch.tensor([[2.0, 0.0]])).tolist()
    [1.0]
    """
    return _F.cosine_similarity(x1, x2, dim, eps)


@torch_function
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``torch.pairwise_distance``: ``F.pairwise_distance``.

    >>> import ember.torch as torch
    >>> a, b = torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0]])
    >>> round(torch.pairwise_distance(a, b).item(), 4)
    5.0
    """
    return _F.pairwise_distance(x1, x2, p, eps, keepdim)


@torch_function
def bilinear(input1, input2, weight, bias=None):
    """``torch.bilinear``: ``x1^T W_k x2 + b_k`` for each output ``k``.

    >>> import ember.torch as torch
    >>> torch.bilinear(torch.ones(1, 2), torch.ones(1, 2), torch.ones(3, 2, 2)).tolist()
    [[4.0, 4.0, 4.0]]
    """
    return _F.bilinear(input1, input2, weight, bias)


# -- recurrent layers -----------------------------------------------------------------------------

class _FlatLayers:
    """What ``RNNBase._run`` reads of a layer, over ATen's flat parameter list: per layer and
    direction ``w_ih, w_hh`` (then ``b_ih, b_hh`` when ``has_biases``, then LSTM's ``w_hr``)."""

    def __init__(self, mode, params, has_biases, num_layers, dropout, train, bidirectional, op):
        if not isinstance(params, (list, tuple)) or not all(isinstance(p, _T) for p in params):
            raise InvalidParameterError(f"{op}: params must be a list of tensors, got "
                                        f"{type(params).__name__}", "params", params)
        self.mode = mode
        self.num_layers = _int(num_layers, op, "num_layers", 1)
        self.bidirectional = _flag(bidirectional, op, "bidirectional")
        self.training = _flag(train, op, "train")
        self.dropout = _real(dropout, op, "dropout", 0.0, 1.0)
        has_biases = _flag(has_biases, op, "has_biases")
        groups = self.num_layers * (2 if self.bidirectional else 1)
        base = 4 if has_biases else 2
        if len(params) not in (groups * base, groups * (base + 1)) or \
                (mode != "LSTM" and len(params) != groups * base):
            raise InvalidParameterError(
                f"{op}: got {len(params)} parameters; expected {groups * base} ({groups} "
                f"layer-directions of {base})" + (f" or {groups * (base + 1)} with "
                                                   "projections" if mode == "LSTM" else ""),
                "params", len(params))
        per = len(params) // groups
        self._groups = [params[k * per:(k + 1) * per] for k in range(groups)]
        self._biases = has_biases
        self.directions = 2 if self.bidirectional else 1

    def _layer_weights(self, index):
        g = self._groups[index]
        if self._biases:
            return g[0], g[1], g[2], g[3], (g[4] if len(g) == 5 else None)
        return g[0], g[1], None, None, (g[2] if len(g) == 3 else None)

    run = RNNBase._run


def _check_states(layers, h0, c0, batch, op):
    """The initial states against the weights: (layers * directions, batch, out) for ``h_0``
    (out: the projection's size, else the hidden size), (..., hidden) for ``c_0``."""
    w_hh = layers._layer_weights(0)[1]
    gates = {"LSTM": 4, "GRU": 3}.get(layers.mode, 1)
    hidden = w_hh.shape[0] // gates
    lead = len(layers._groups)
    for name, t, size in (("h_0", h0, w_hh.shape[1]), ("c_0", c0, hidden)):
        if t is not None and tuple(t.shape) != (lead, batch, size):
            raise ShapeMismatchError(f"{op}: {name} has shape {tuple(t.shape)}; expected "
                                     f"{(lead, batch, size)}", expected=(lead, batch, size),
                                     actual=tuple(t.shape))


def _states(hx, lstm, op):
    if lstm:
        if not isinstance(hx, (list, tuple)) or len(hx) != 2 or \
                not all(isinstance(t, _T) for t in hx):
            raise InvalidParameterError(f"{op}: hx must be a list [h_0, c_0] of tensors, got "
                                        f"{type(hx).__name__}", "hx", hx)
        h0, c0 = hx
    else:
        h0, c0 = check_tensor(hx, op, "hx"), None
    for name, t in (("h_0", h0), ("c_0", c0)):
        if t is not None and t.ndim != 3:
            raise ShapeMismatchError(f"{op}: {name} must be 3-d (layers * directions, batch, "
                                     f"hidden), got shape {tuple(t.shape)}", expected=3,
                                     actual=tuple(t.shape))
    return h0, c0


def _recurrent(mode, op, args, kwargs):
    """Both of ATen's overloads: ``(input, hx, params, has_biases, num_layers, dropout, train,
    bidirectional, batch_first)`` over a padded (T, B, F) input, and ``(data, batch_sizes, hx,
    params, has_biases, num_layers, dropout, train, bidirectional)`` over packed data."""
    lstm = mode == "LSTM"
    second = args[1] if len(args) > 1 else kwargs.get("batch_sizes", kwargs.get("hx"))
    third = args[2] if len(args) > 2 else kwargs.get("hx", kwargs.get("params"))
    packed = "batch_sizes" in kwargs or (isinstance(second, _T) and
                                         (lstm or isinstance(third, _T)))
    names = (("data", "batch_sizes", "hx", "params", "has_biases", "num_layers", "dropout",
              "train", "bidirectional") if packed else
             ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train",
              "bidirectional", "batch_first"))
    if len(args) > len(names) or set(kwargs) - set(names):
        raise InvalidParameterError(f"{op}: expected the arguments {', '.join(names)}",
                                    "args", args)
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key in bound:
            raise InvalidParameterError(f"{op}: got {key} twice", key, value)
        bound[key] = value
    missing = [n for n in names if n not in bound]
    if missing:
        raise InvalidParameterError(f"{op}: missing the arguments {', '.join(missing)}",
                                    missing[0], None)
    layers = _FlatLayers(mode, bound["params"], bound["has_biases"], bound["num_layers"],
                         bound["dropout"], bound["train"], bound["bidirectional"], op)
    h0, c0 = _states(bound["hx"], lstm, op)
    if packed:
        data = check_tensor(bound["data"], op, "data")
        sizes_t = check_tensor(bound["batch_sizes"], op, "batch_sizes")
        if data.ndim != 2 or sizes_t.ndim != 1:
            raise ShapeMismatchError(f"{op}: data must be 2-d and batch_sizes 1-d, got shapes "
                                     f"{tuple(data.shape)} and {tuple(sizes_t.shape)}",
                                     expected=(2, 1), actual=(data.ndim, sizes_t.ndim))
        sizes = [int(b) for b in sizes_t.tolist()]
        if sum(sizes) != data.shape[0] or not sizes or sizes[-1] < 1 or \
                any(b < a for a, b in zip(sizes[1:], sizes)):
            raise ShapeMismatchError(f"{op}: batch_sizes {sizes} must be positive, not "
                                     f"increasing, and add up to data's {data.shape[0]} rows",
                                     expected=data.shape[0], actual=sum(sizes))
        _check_states(layers, h0, c0, sizes[0], op)
        out, hn, cn = layers.run(data, sizes, h0, c0)
    else:
        x = check_tensor(bound["input"], op, "input")
        if x.ndim != 3:
            raise ShapeMismatchError(f"{op}: input must be 3-d (seq, batch, feature), got "
                                     f"shape {tuple(x.shape)}", expected=3,
                                     actual=tuple(x.shape))
        if _flag(bound["batch_first"], op, "batch_first"):
            x = x.transpose(0, 1)
        steps, batch = x.shape[0], x.shape[1]
        if steps == 0:
            raise ShapeMismatchError(f"{op}: expected a sequence length larger than 0, got "
                                     f"input of shape {tuple(bound['input'].shape)}",
                                     expected="T > 0", actual=tuple(bound["input"].shape))
        _check_states(layers, h0, c0, batch, op)
        data = reshape_exact(x, (steps * batch, x.shape[2]))
        out, hn, cn = layers.run(data, [batch] * steps, h0, c0)
        out = reshape_exact(out, (steps, batch, out.shape[-1]))
        if bound["batch_first"]:
            out = out.transpose(0, 1)
    hn = stack(hn, 0)
    return (out, hn, stack(cn, 0)) if lstm else (out, hn)


@torch_function
def lstm(*args, **kwargs):
    """``torch.lstm``: a multi-layer LSTM over flat weights, ``(input, hx=[h_0, c_0], params,
    has_biases, num_layers, dropout, train, bidirectional, batch_first)`` or over packed data
    ``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
    bidirectional)``; returns ``(output, h_n, c_n)``. nn.LSTM's machinery runs it.

    >>> import ember.torch as torch
    >>> p = [torch.zeros(8, 3), torch.zeros(8, 2)]
    >>> x, hx = torch.ones(4, 1, 3), [torch.zeros(1, 1, 2)] * 2
    >>> out, h, c = torch.lstm(x, hx, p, False, 1, 0.0, False, False, False)
    >>> out.shape, h.shape, c.shape
    (torch.Size([4, 1, 2]), torch.Size([1, 1, 2]), torch.Size([1, 1, 2]))
    """
    return _recurrent("LSTM", "lstm", args, kwargs)


@torch_function
def gru(*args, **kwargs):
    """``torch.gru``: ``torch.lstm``'s two overloads for a GRU (``hx`` one tensor); returns
    ``(output, h_n)``.

    >>> import ember.torch as torch
    >>> p = [torch.zeros(6, 3), torch.zeros(6, 2)]
    >>> x, h0 = torch.ones(4, 1, 3), torch.zeros(1, 1, 2)
    >>> out, h = torch.gru(x, h0, p, False, 1, 0.0, False, False, False)
    >>> out.shape
    torch.Size([4, 1, 2])
    """
    return _recurrent("GRU", "gru", args, kwargs)


@torch_function
def rnn_tanh(*args, **kwargs):
    """``torch.rnn_tanh``: ``torch.gru``'s overloads for an Elman RNN with tanh.

    >>> import ember.torch as torch
    >>> p = [torch.zeros(2, 3), torch.zeros(2, 2)]
    >>> x, h0 = torch.ones(4, 1, 3), torch.zeros(1, 1, 2)
    >>> torch.rnn_tanh(x, h0, p, False, 1, 0.0, False, False, False)[0].shape
    torch.Size([4, 1, 2])
    """
    return _recurrent("RNN_TANH", "rnn_tanh", args, kwargs)


@torch_function
def rnn_relu(*args, **kwargs):
    """``torch.rnn_relu``: ``torch.gru``'s overloads for an Elman RNN with ReLU.

    >>> import ember.torch as torch
    >>> p = [torch.zeros(2, 3), torch.zeros(2, 2)]
    >>> x, h0 = torch.ones(4, 1, 3), torch.zeros(1, 1, 2)
    >>> torch.rnn_relu(x, h0, p, False, 1, 0.0, False, False, False)[1].shape
    torch.Size([1, 1, 2])
    """
    return _recurrent("RNN_RELU", "rnn_relu", args, kwargs)


def _cell_input(op, input, hx, w_ih, w_hh, b_ih, b_hh, summed):
    """The input's projection ``x W_ih^T`` plus the biases that go in with it, after checking
    the shapes of ``input`` (batch, input_size) and the states (batch, hidden_size)."""
    x = check_tensor(input, op, "input")
    check_tensor(w_hh, op, "w_hh")
    if x.ndim != 2:
        raise ShapeMismatchError(f"{op}: input must be 2-d (batch, input_size), got shape "
                                 f"{tuple(x.shape)}", expected=2, actual=tuple(x.shape))
    want = (x.shape[0], w_hh.shape[-1])
    for t, name in ((hx, "hx"),) if isinstance(hx, _T) else zip(hx, ("h", "c")):
        if tuple(check_tensor(t, op, name).shape) != want:
            raise ShapeMismatchError(f"{op}: {name} has shape {tuple(t.shape)}; expected "
                                     f"{want} (batch, hidden_size)", expected=want,
                                     actual=tuple(t.shape))
    bias = b_ih
    if summed and b_hh is not None:
        bias = b_hh if b_ih is None else b_ih + b_hh
    return linear(x, w_ih, bias)


@torch_function
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.lstm_cell``: one LSTM step from ``hx = [h, c]``; returns ``(h', c')``.

    >>> import ember.torch as torch
    >>> w_ih, w_hh = torch.zeros(8, 3), torch.zeros(8, 2)
    >>> h, c = torch.lstm_cell(torch.ones(1, 3), [torch.zeros(1, 2)] * 2, w_ih, w_hh)
    >>> c.tolist()
    [[0.0, 0.0]]
    """
    op = "lstm_cell"
    if not isinstance(hx, (list, tuple)) or len(hx) != 2:
        raise InvalidParameterError(f"{op}: hx must be a list [h, c], got "
                                    f"{type(hx).__name__}", "hx", hx)
    gx = _cell_input(op, input, hx, w_ih, w_hh, b_ih, b_hh, True)
    return _lstm_step(gx, hx[0], hx[1], w_hh, None, None, None, 0)


@torch_function
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.gru_cell``: one GRU step; returns ``h'``.

    >>> import ember.torch as torch
    >>> w_ih, w_hh = torch.zeros(6, 3), torch.zeros(6, 2)
    >>> torch.gru_cell(torch.ones(1, 3), torch.ones(1, 2), w_ih, w_hh).tolist()
    [[0.5, 0.5]]
    """
    gx = _cell_input("gru_cell", input, check_tensor(hx, "gru_cell", "hx"), w_ih, w_hh, b_ih,
                     b_hh, False)
    return _gru_step(gx, hx, None, w_hh, b_hh, None, None, 0)[0]


def _elman_cell(mode, op, input, hx, w_ih, w_hh, b_ih, b_hh):
    gx = _cell_input(op, input, check_tensor(hx, op, "hx"), w_ih, w_hh, b_ih, b_hh, True)
    return _STEPS[mode](gx, hx, None, w_hh, None, None, None, 0)[0]


@torch_function
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_tanh_cell``: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    >>> import ember.torch as torch
    >>> w_ih, w_hh = torch.zeros(2, 3), torch.zeros(2, 2)
    >>> torch.rnn_tanh_cell(torch.ones(1, 3), torch.ones(1, 2), w_ih, w_hh).tolist()
    [[0.0, 0.0]]
    """
    return _elman_cell("RNN_TANH", "rnn_tanh_cell", input, hx, w_ih, w_hh, b_ih, b_hh)


@torch_function
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_relu_cell``: ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    >>> import ember.torch as torch
    >>> one = torch.ones(1, 1)
    >>> torch.rnn_relu_cell(one, one, one, one).tolist()
    [[2.0]]
    """
    return _elman_cell("RNN_RELU", "rnn_relu_cell", input, hx, w_ih, w_hh, b_ih, b_hh)
