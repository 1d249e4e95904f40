"""PyTorch's other normalizations and the channel-wise dropouts, composed of ember's ops:
``group_norm``, ``instance_norm``, ``rms_norm``, ``normalize``, ``local_response_norm``,
``dropout1d/2d/3d``, ``alpha_dropout`` and ``feature_alpha_dropout``.

``instance_norm`` given running statistics and ``use_input_stats=True`` updates them as
PyTorch does in place: ember rebinds the tensors (ember/ops/inplace.py). The dropouts draw
from ember's generator (``ember.manual_seed``); ``inplace=True`` writes the result into the
input and its views, as PyTorch's.

>>> import ember
>>> import ember.nn.functional as F
>>> F.normalize(ember.tensor([[3.0, 4.0]])).tolist()
[[0.6000000238418579, 0.800000011920929]]
"""

import math

from .._tensor import wrap
from ..errors import InvalidParameterError, ShapeMismatchError
from .activation import _done
from .inplace import _check_update, rebind
from .nn_args import _backend, _common, _float_tensor, _int, _opt_float, _real, _shape_str
from .normalization import _record_norm
from .random import _gen, _random

__all__ = ["group_norm", "instance_norm", "rms_norm", "normalize", "local_response_norm",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


# machine epsilon of each float dtype (torch.finfo(dtype).eps)
_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
        "float64": 2.0 ** -52}


def _affine(out, weight, bias, ndim, axis=1):
    shape = (-1,) + (1,) * (ndim - 1 - axis)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _check_channels(op, t, c, param):
    if t is not None and (t.ndim != 1 or t.shape[0] != c):
        raise ShapeMismatchError(f"{op}: {param} has shape {_shape_str(t.shape)}; expected "
                                 f"({c},)", expected=(c,), actual=tuple(t.shape))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize each group of ``C / num_groups`` channels of a (N, C, *) input over its
    channels and positions, then ``* weight + bias`` per channel, PyTorch's
    ``F.group_norm``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.group_norm(ember.tensor([[1.0, 3.0]]), 1)[0].tolist()]
    [-1.0, 1.0]
    """
    op = "group_norm"
    x = _float_tensor(input, op)
    w, b = _opt_float(weight, op, "weight"), _opt_float(bias, op, "bias")
    g = _int(num_groups, op, "num_groups", 1)
    eps = _real(eps, op, "eps", 0.0)
    if x.ndim < 2 or x.shape[1] % g:
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected (N, C, *) with C divisible "
            f"by num_groups = {g}", expected=f"C divisible by {g}", actual=tuple(x.shape))
    c = x.shape[1]
    _check_channels(op, w, c, "weight")
    _check_channels(op, b, c, "bias")
    n = x.shape[0]
    view = (n, g, c // g, math.prod(x.shape[2:]))  # (no -1: n may be 0)
    if math.prod(view) == 0:  # nothing to normalize: the shape, with its NaN-free emptiness
        return _affine(x.reshape(tuple(x.shape)), w, b, x.ndim)
    dt = _common((x, w, b))
    be = _backend((x, w, b), op)
    out, saved = be.nn_group_norm(x._data, None if w is None else w._data,
                                  None if b is None else b._data, g, eps, dt)
    wview = (g, c // g)

    def grads(gy, saved, *args):
        # the kernel's gradients, in the shapes of the views recorded below
        return tuple(None if a is None else be.mv_reshape(a, s) for a, s in zip(
            be.nn_group_norm_grads(gy, saved, *args), (view, wview, wview)))

    # recorded on the (N, G, C/G, L) view, where each group's statistics reduce two axes
    x4, w2, b2 = (None if t is None else t.reshape(s) for t, s in ((x, view), (w, wview),
                                                                 (b, wview)))
    geo = ((2, 3), (0, 3), wview + (1,), None, None, eps)
    rec = _record_norm(be.mv_reshape(out, view), dt, x4, w2, b2, grads, saved, op, geo)
    return rec.reshape(tuple(x.shape))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalize each channel of each sample of a (N, C, *) input over its positions,
    PyTorch's ``F.instance_norm``; with ``use_input_stats=False`` the running statistics
    normalize instead, and with running statistics and ``use_input_stats=True`` they are
    updated (rebound) with the batch's mean and unbiased variance.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.instance_norm(ember.tensor([[[1.0, 3.0]]]))[0, 0].tolist()]
    [-1.0, 1.0]
    """
    op = "instance_norm"
    x = _float_tensor(input, op)
    rm, rv = _opt_float(running_mean, op, "running_mean"), _opt_float(running_var, op,
                                                                      "running_var")
    w, b = _opt_float(weight, op, "weight"), _opt_float(bias, op, "bias")
    eps = _real(eps, op, "eps", 0.0)
    if x.ndim < 3:
        raise ShapeMismatchError(f"{op}: input has shape {_shape_str(x.shape)}; expected "
                                 "(N, C, *) with at least one position dim", expected=3,
                                 actual=tuple(x.shape))
    c = x.shape[1]
    for t, param in ((rm, "running_mean"), (rv, "running_var"), (w, "weight"), (b, "bias")):
        _check_channels(op, t, c, param)
    if not isinstance(use_input_stats, bool):
        raise InvalidParameterError(f"{op}: use_input_stats must be a bool, got "
                                    f"{use_input_stats!r}", "use_input_stats", use_input_stats)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if not use_input_stats:
        if rm is None or rv is None:
            raise InvalidParameterError(f"{op}: use_input_stats=False needs running_mean and "
                                        "running_var", "use_input_stats", use_input_stats)
        out = (x - rm.reshape(bshape)) * (rv.reshape(bshape) + eps).rsqrt()
        return _affine(out, w, b, x.ndim)
    dims = tuple(range(2, x.ndim))
    mean = x.mean(dims, keepdim=True)
    centred = x - mean
    sq = centred.square().sum(dims, keepdim=True)
    count = math.prod(x.shape[2:])
    out = centred * (sq / count + eps).rsqrt()
    if rm is not None or rv is not None:
        m = _real(momentum, op, "momentum")
        stats_mean = mean.detach().reshape((x.shape[0], c)).mean(0)
        stats_var = (sq.detach() / max(count - 1, 1)).reshape((x.shape[0], c)).mean(0)
        if rm is not None:
            rebind(rm, rm * (1 - m) + stats_mean.cast(rm.dtype) * m, op)
        if rv is not None:
            rebind(rv, rv * (1 - m) + stats_var.cast(rv.dtype) * m, op)
    return _affine(out, w, b, x.ndim)


def _norm_dims(op, x, normalized_shape):
    shape = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else \
        (normalized_shape,)
    shape = tuple(_int(s, op, "normalized_shape", 0) for s in shape)
    if x.ndim < len(shape) or tuple(x.shape[x.ndim - len(shape):]) != shape:
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected (*, "
            f"{', '.join(map(str, shape))})", expected=shape, actual=tuple(x.shape))
    return shape, tuple(range(x.ndim - len(shape), x.ndim))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x**2) + eps) * weight`` over the last dims ``normalized_shape``,
    PyTorch's ``F.rms_norm`` (``eps`` None: the dtype's machine epsilon).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.rms_norm(ember.tensor([[3.0, 4.0]]), (2,), eps=0.0)[0].tolist()]
    [0.8485, 1.1314]
    """
    op = "rms_norm"
    x = _float_tensor(input, op)
    w = _opt_float(weight, op, "weight")
    shape, dims = _norm_dims(op, x, normalized_shape)
    if w is not None and tuple(w.shape) != shape:
        raise ShapeMismatchError(f"{op}: weight has shape {_shape_str(w.shape)}; expected "
                                 f"{_shape_str(shape)}", expected=shape, actual=tuple(w.shape))
    eps = _EPS[x.dtype.name] if eps is None else _real(eps, op, "eps", 0.0)
    out = x * (x.square().mean(dims, keepdim=True) + eps).rsqrt()
    return out if w is None else out * w


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(||x||_p, eps)`` along ``dim``, PyTorch's ``F.normalize``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.normalize(ember.tensor([[1.0, 1.0]]), p=1).tolist()
    [[0.5, 0.5]]
    """
    op = "normalize"
    x = _float_tensor(input, op)
    if out is not None:
        raise InvalidParameterError(f"{op}: out= is not supported (tensors are immutable); "
                                    "expected out=None", "out", out)
    p = _real(p, op, "p")
    eps = _real(eps, op, "eps", 0.0)
    d = _int(dim, op, "dim", -max(x.ndim, 1))
    if d >= max(x.ndim, 1):
        raise InvalidParameterError(f"{op}: dim {dim} is out of range for a {x.ndim}-d input",
                                    "dim", dim)
    if x.ndim == 0:
        return x / x.abs().clamp(min=eps)
    return x / x.norm(p, d, keepdim=True).clamp(min=eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha * mean of x**2 over size neighbouring channels) ** beta``, PyTorch's
    ``F.local_response_norm`` (N, C, *).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.local_response_norm(ember.ones(1, 2, 1), 2, alpha=1.0, beta=1.0).tolist()
    [[[0.6666666865348816], [0.5]]]
    """
    op = "local_response_norm"
    x = _float_tensor(input, op)
    size = _int(size, op, "size", 1)
    alpha, beta, k = (_real(alpha, op, "alpha"), _real(beta, op, "beta"), _real(k, op, "k"))
    if x.ndim < 3:
        raise ShapeMismatchError(f"{op}: input has shape {_shape_str(x.shape)}; expected "
                                 "(N, C, *) with 3 or more dims", expected=3,
                                 actual=tuple(x.shape))
    c = x.shape[1]
    pads = [(0, 0)] * x.ndim
    pads[1] = (size // 2, (size - 1) // 2)
    sq = x.square().pad(tuple(pads))
    total = sq.narrow(1, 0, c)
    for j in range(1, size):
        total = total + sq.narrow(1, j, c)
    return x / (total * (alpha / size) + k).pow(beta)


def _p(op, p, training, inplace):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise InvalidParameterError(f"{op}: dropout probability has to be between 0 and 1, "
                                    f"but got {p!r}", "p", p)
    for param, v in (("training", training), ("inplace", inplace)):
        if not isinstance(v, bool):
            raise InvalidParameterError(f"{op}: {param} must be a bool, got {v!r}", param, v)
    return float(p)


def _feature_dropout(op, input, p, training, inplace, nd, alpha=False):
    """Channel dropout; the mask covers the leading (N, C) dims as PyTorch's: dropout1d takes
    (N, C, L) or (C, L); dropout2d any input of 2 or more dims as (N, C, *) (a 3-d input is
    (N, C, L), as PyTorch still reads it); dropout3d (N, C, D, H, W), any other rank as
    unbatched (C, *); feature_alpha_dropout (N, C, *)."""
    x = _float_tensor(input, op)
    p = _p(op, p, training, inplace)
    if nd == 1 and x.ndim not in (2, 3):
        raise ShapeMismatchError(f"{op}: input has shape {_shape_str(x.shape)}; expected "
                                 "(N, C, L) or (C, L)", expected=(2, 3), actual=tuple(x.shape))
    if nd != 3 and x.ndim < 2:
        raise ShapeMismatchError(f"{op}: input has shape {_shape_str(x.shape)}; expected "
                                 "(N, C, *)", expected=2, actual=tuple(x.shape))
    if nd == 3 and x.ndim < 1:
        raise ShapeMismatchError(f"{op}: input is 0-d; expected (N, C, D, H, W) or "
                                 "(C, D, H, W)", expected=5, actual=())
    if inplace and (nd == 1 and x.ndim == 2 or nd == 3 and x.ndim != 5):
        # PyTorch first unsqueezes an unbatched input in place: a leaf that requires grad
        # raises even when nothing is dropped
        _check_update(input, op)
    if not training or p == 0.0:
        return input
    lead = {1: x.ndim - 1, 2: 2, 3: 2 if x.ndim == 5 else 1}.get(nd, 2)
    shape = tuple(x.shape[:lead]) + (1,) * (x.ndim - lead)
    return _dropout_with(op, input, x, p, shape, inplace, alpha)


def _dropout_with(op, input, x, p, shape, inplace, alpha):
    if p == 1.0:
        return _done(input, lambda: x * 0.0, inplace, op)
    # the mask keeps each entry with probability 1 - p: Bernoulli draws, as F.dropout's (and
    # PyTorch's, so a run that shares PyTorch's generator sees PyTorch's masks)
    keep = wrap(_random("random_bernoulli", (x._device.backend, _gen(None, op, x._device)), op,
                        shape, 1.0 - p, x._dtype), x._dtype)
    if alpha:
        sa = 1.7580993408473766
        a = 1.0 / math.sqrt((sa * sa * p + 1) * (1 - p))
        return _done(input, lambda: x * (keep * a) + ((keep - 1) * (sa * a) + sa * a * p),
                     inplace, op)
    return _done(input, lambda: x * (keep / (1 - p)), inplace, op)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, L) or (C, L) input with probability ``p`` and scale the
    rest by ``1/(1-p)`` in training, PyTorch's ``F.dropout1d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.dropout1d(ember.ones(2, 3), 0.5, training=False).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    return _feature_dropout("dropout1d", input, p, training, inplace, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, H, W) or (C, H, W) input, PyTorch's ``F.dropout2d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.dropout2d(ember.ones(1, 2, 2, 2), 0.0).shape
    (1, 2, 2, 2)
    """
    return _feature_dropout("dropout2d", input, p, training, inplace, 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, D, H, W) or (C, D, H, W) input, PyTorch's
    ``F.dropout3d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.dropout3d(ember.ones(2, 1, 1, 1), 1.0).sum().item()
    0.0
    """
    return _feature_dropout("dropout3d", input, p, training, inplace, 3)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalizing mean and variance, PyTorch's
    ``F.alpha_dropout`` (dropped elements take SELU's negative saturation value, then an
    affine map restores the statistics).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.alpha_dropout(ember.ones(3), 0.5).tolist()
    [1.0, 1.0, 1.0]
    """
    op = "alpha_dropout"
    x = _float_tensor(input, op)
    p = _p(op, p, training, inplace)
    if not training or p == 0.0:
        return input
    return _dropout_with(op, input, x, p, tuple(x.shape), inplace, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` of whole channels of a (N, C, *) input, PyTorch's
    ``F.feature_alpha_dropout``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.feature_alpha_dropout(ember.ones(1, 2, 2), 0.5).shape
    (1, 2, 2)
    """
    return _feature_dropout("feature_alpha_dropout", input, p, training, inplace, None, True)
