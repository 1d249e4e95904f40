"""PyTorch's ``F.linear_cross_entropy`` (a linear projection followed by ``cross_entropy``)
and its ``LinearCrossEntropyOptions``. PyTorch may compute it in batch chunks to save memory;
the options are kept and the result is the reference composition's.

>>> import ember
>>> import ember.nn.functional as F
>>> round(F.linear_cross_entropy(ember.ones(2, 3), ember.zeros(4, 3), ember.tensor([0, 1])).item(), 4)
1.3863
"""

import math
from dataclasses import dataclass

from ..errors import InvalidParameterError, ShapeMismatchError
from .linear import linear
from .loss import cross_entropy
from .nn_args import _float_tensor, _opt_float, _shape_str

__all__ = ["linear_cross_entropy", "LinearCrossEntropyOptions"]


@dataclass
class LinearCrossEntropyOptions:
    """PyTorch's ``nn.LinearCrossEntropyOptions``: how PyTorch may chunk the computation
    (kept; ember computes the reference composition).

    >>> from ember.ops.linear_ce import LinearCrossEntropyOptions
    >>> LinearCrossEntropyOptions(batch_chunk_size=8).batch_chunk_size
    8
    """

    allow_retain_graph: bool = False
    batch_chunk_size: "int | None" = None
    chunking_method: "str | None" = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """``cross_entropy(linear(input, linear_weight) + linear_bias, target, ...)``, PyTorch's
    ``F.linear_cross_entropy``: ``linear_weight`` (C, in) or (C, d_1, ..., d_K, in) for a
    K-dimensional loss; ``ignore_index=None`` means -100.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.linear_cross_entropy(ember.ones(1, 2), ember.zeros(3, 2), ember.tensor([2]),
    ...                        reduction="none").shape
    (1,)
    """
    op = "linear_cross_entropy"
    x = _float_tensor(input, op)
    w = _float_tensor(linear_weight, op, "linear_weight")
    b = _opt_float(linear_bias, op, "linear_bias")
    if options is not None and not isinstance(options, LinearCrossEntropyOptions):
        raise InvalidParameterError(f"{op}: options must be a LinearCrossEntropyOptions or "
                                    "None", "options", options)
    if w.ndim < 2 or x.ndim < 1 or x.shape[-1] != w.shape[-1]:
        raise ShapeMismatchError(
            f"{op}: input {_shape_str(x.shape)} and linear_weight {_shape_str(w.shape)} do "
            "not fit; expected (*, in) and (C, *out_features, in)", expected=w.shape[-1:],
            actual=tuple(x.shape))
    out = tuple(w.shape[:-1])
    if b is not None and tuple(b.shape) != out:
        raise ShapeMismatchError(f"{op}: linear_bias has shape {_shape_str(b.shape)}; expected "
                                 f"{_shape_str(out)}", expected=out, actual=tuple(b.shape))
    flat = w.reshape((math.prod(out), w.shape[-1]))
    logits = linear(x, flat, None if b is None else b.reshape((-1,)))
    logits = logits.reshape(tuple(x.shape[:-1]) + out)
    return cross_entropy(logits, target, weight, reduction, label_smoothing,
                         -100 if ignore_index is None else ignore_index)
