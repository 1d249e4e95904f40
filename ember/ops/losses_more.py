"""PyTorch's other losses and distances, composed of ember's ops with PyTorch's formulas:
``kl_div``, ``poisson_nll_loss``, ``gaussian_nll_loss``, ``cosine_embedding_loss``,
``margin_ranking_loss``, ``hinge_embedding_loss``, ``soft_margin_loss``,
``multilabel_soft_margin_loss``, ``multilabel_margin_loss``, ``multi_margin_loss``,
``triplet_margin_loss``, ``triplet_margin_with_distance_loss``, ``cosine_similarity``,
``pairwise_distance`` and ``pdist``. Each takes ``reduction`` "none", "mean" or "sum" (and
PyTorch's deprecated ``size_average``/``reduce`` where PyTorch has them).

>>> import ember
>>> import ember.nn.functional as F
>>> F.margin_ranking_loss(ember.tensor([1.0]), ember.tensor([2.0]), ember.tensor([1.0])).item()
1.0
"""

import math

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import broadcast_shapes
from .._tensor import check_tensor
from .activation_more import logsigmoid
from .masking import where
from .nn_args import _float_tensor, _int, _opt_float, _real, _reduction, _shape_str
from .robust_losses import _legacy, _reduce
from .creation import arange, tensor

__all__ = ["kl_div", "poisson_nll_loss", "gaussian_nll_loss", "cosine_embedding_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "cosine_similarity",
           "pairwise_distance", "pdist"]


def broadcast_pair(a, b, op):
    shape = broadcast_shapes(tuple(a.shape), tuple(b.shape), op=op)
    return (a if tuple(a.shape) == shape else a.expand(*shape),
            b if tuple(b.shape) == shape else b.expand(*shape))


def _red(op, size_average, reduce, reduction, extra=()):
    r = _legacy(size_average, reduce, reduction)
    if r in extra:
        return r
    return _reduction(r, op)


def _straight_clamp(t, low):
    """``t`` clamped below at ``low`` with the gradient of ``t`` itself (PyTorch clamps
    these in place under no_grad)."""
    return t + (t.clamp(min=low) - t).detach()


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``target * (log(target) - input)`` (``input`` holds log-probabilities; ``target``
    probabilities, or log-probabilities with ``log_target=True``), PyTorch's ``F.kl_div``;
    ``reduction="batchmean"`` divides the sum by the batch size.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.kl_div(ember.tensor([0.0]), ember.tensor([1.0]), reduction="sum").item()
    0.0
    """
    op = "kl_div"
    x = _float_tensor(input, op)
    t = _float_tensor(target, op, "target")
    r = _red(op, size_average, reduce, reduction, ("batchmean",))
    if log_target:
        loss = t.exp() * (t - x)
    else:
        positive = t > 0
        safe = where(positive, t, 1.0)
        loss = where(positive, t * safe.log(), 0.0) - t * x
    if r == "batchmean":
        return loss.sum() / (x.shape[0] if x.ndim else 1)
    return _reduce(loss, r)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log-likelihood, PyTorch's ``F.poisson_nll_loss``: ``exp(input) -
    target * input`` (``log_input``) or ``input - target * log(input + eps)``; ``full`` adds
    Stirling's term for targets > 1.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.poisson_nll_loss(ember.tensor([0.0]), ember.tensor([1.0])).item()
    1.0
    """
    op = "poisson_nll_loss"
    x = _float_tensor(input, op)
    t = _float_tensor(target, op, "target")
    r = _red(op, size_average, reduce, reduction)
    eps = _real(eps, op, "eps")
    loss = x.exp() - t * x if log_input else x - t * (x + eps).log()
    if full:
        big = t > 1
        safe = where(big, t, 2.0)
        stirling = safe * safe.log() - safe + (safe * (2 * math.pi)).log() * 0.5
        loss = loss + where(big, stirling, 0.0)
    return _reduce(loss, r)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log-likelihood ``0.5 * (log(var) + (input - target)**2 / var)``,
    PyTorch's ``F.gaussian_nll_loss``: ``var`` has the input's shape, or one dim fewer, or a
    last dim of 1; it is clamped below at ``eps`` (the gradient passes the clamp, as
    PyTorch's); ``full`` adds ``0.5 * log(2 * pi)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.gaussian_nll_loss(ember.tensor([1.0]), ember.tensor([1.0]), ember.tensor([1.0])).item()
    0.0
    """
    op = "gaussian_nll_loss"
    x = _float_tensor(input, op)
    t = _float_tensor(target, op, "target")
    v = _float_tensor(var, op, "var")
    r = _reduction(reduction, op)
    eps = _real(eps, op, "eps")
    if tuple(v.shape) != tuple(x.shape):
        if tuple(x.shape[:-1]) == tuple(v.shape):
            v = v.unsqueeze(-1)
        elif not (tuple(x.shape[:-1]) == tuple(v.shape[:-1]) and v.shape[-1] == 1):
            raise ShapeMismatchError(
                f"{op}: var has shape {_shape_str(v.shape)}; expected the input's "
                f"{_shape_str(x.shape)}, that without its last dim, or a last dim of 1",
                expected=tuple(x.shape), actual=tuple(v.shape))
    if bool((v < 0).any().item()):
        raise InvalidParameterError(f"{op}: var has negative entries", "var", "negative")
    v = _straight_clamp(v, eps)
    loss = ((v.log() + (x - t).square() / v)) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, r)


def _target_pm1(op, target):
    check_tensor(target, op, "target")
    return target


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is
    -1, PyTorch's ``F.cosine_embedding_loss`` ((N, D) or (D,) inputs).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.tensor([[1.0, 0.0]])
    >>> F.cosine_embedding_loss(x, x, ember.tensor([1])).item()
    0.0
    """
    op = "cosine_embedding_loss"
    a = _float_tensor(input1, op, "input1")
    b = _float_tensor(input2, op, "input2")
    y = _target_pm1(op, target)
    r = _red(op, size_average, reduce, reduction)
    margin = _real(margin, op, "margin")
    if a.ndim not in (1, 2) or tuple(a.shape) != tuple(b.shape):
        raise ShapeMismatchError(
            f"{op}: input1 {_shape_str(a.shape)} and input2 {_shape_str(b.shape)} must have "
            "the same (N, D) or (D,) shape", expected=tuple(a.shape), actual=tuple(b.shape))
    d = a.ndim - 1
    prod = (a * b).sum(d)
    m1 = (a * a).sum(d) + 1e-12
    m2 = (b * b).sum(d) + 1e-12
    cos = prod / (m1 * m2).sqrt()
    loss = where(y == 1, 1 - cos, 0.0) + where(y == -1, (cos - margin).clamp(min=0.0), 0.0)
    return _reduce(loss, r)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, PyTorch's ``F.margin_ranking_loss``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.margin_ranking_loss(ember.tensor([3.0]), ember.tensor([1.0]), ember.tensor([1.0])).item()
    0.0
    """
    op = "margin_ranking_loss"
    a = _float_tensor(input1, op, "input1")
    b = _float_tensor(input2, op, "input2")
    y = _target_pm1(op, target)
    r = _red(op, size_average, reduce, reduction)
    margin = _real(margin, op, "margin")
    if not (a.ndim == b.ndim == y.ndim):
        raise ShapeMismatchError(
            f"{op}: input1 {_shape_str(a.shape)}, input2 {_shape_str(b.shape)} and target "
            f"{_shape_str(y.shape)} must have the same number of dims", expected=a.ndim,
            actual=(b.ndim, y.ndim))
    return _reduce((-y * (a - b) + margin).clamp(min=0.0), r)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1, PyTorch's
    ``F.hinge_embedding_loss``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.hinge_embedding_loss(ember.tensor([0.25, 2.0]), ember.tensor([-1, 1])).item()
    1.375
    """
    op = "hinge_embedding_loss"
    x = _float_tensor(input, op)
    y = _target_pm1(op, target)
    r = _red(op, size_average, reduce, reduction)
    margin = _real(margin, op, "margin")
    loss = where(y != 1, (margin - x).clamp(min=0.0), 0.0) + where(y != -1, x, 0.0)
    return _reduce(loss, r)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``, PyTorch's ``F.soft_margin_loss``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> round(F.soft_margin_loss(ember.tensor([0.0]), ember.tensor([1.0])).item(), 4)
    0.6931
    """
    op = "soft_margin_loss"
    x = _float_tensor(input, op)
    y = _target_pm1(op, target)
    r = _red(op, size_average, reduce, reduction)
    return _reduce((-(x * y)).exp().log1p(), r)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """The mean over classes of the binary logistic losses of (N, C) ``input`` against 0/1
    ``target``, optionally weighted per class, PyTorch's
    ``F.multilabel_soft_margin_loss``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> round(F.multilabel_soft_margin_loss(ember.zeros(1, 2), ember.ones(1, 2)).item(), 4)
    0.6931
    """
    op = "multilabel_soft_margin_loss"
    x = _float_tensor(input, op)
    t = target
    check_tensor(t, op, "target")
    w = _opt_float(weight, op, "weight")
    r = _red(op, size_average, reduce, reduction)
    loss = -(t * logsigmoid(x) + (1 - t) * logsigmoid(-x))
    if w is not None:
        loss = loss * w
    loss = loss.sum(-1) / x.shape[-1] if x.ndim else loss
    return _reduce(loss, r)


def _class_target(op, x, target):
    check_tensor(target, op, "target")
    if target.dtype.kind != "int":
        raise KindError(f"{op}: target has dtype {target.dtype.name}; expected an int tensor "
                        "of class indices")
    return target


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss ``sum over i != y of max(0, margin - x[y] + x[i]) ** p / C``
    (times ``weight[y]``), PyTorch's ``F.multi_margin_loss``; ``p`` is 1 or 2.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.multi_margin_loss(ember.tensor([[0.0, 1.0]]), ember.tensor([1])).item()
    0.0
    """
    op = "multi_margin_loss"
    x = _float_tensor(input, op)
    y = _class_target(op, x, target)
    p = _int(p, op, "p")
    if p not in (1, 2):
        raise InvalidParameterError(f"{op}: p is {p}; only p == 1 and p == 2 are supported",
                                    "p", p)
    w = _opt_float(weight, op, "weight")
    r = _red(op, size_average, reduce, reduction)
    margin = _real(margin, op, "margin")
    if x.ndim not in (1, 2) or y.ndim != x.ndim - 1 or (x.ndim == 2 and
                                                        y.shape[0] != x.shape[0]):
        raise ShapeMismatchError(
            f"{op}: input {_shape_str(x.shape)} and target {_shape_str(y.shape)}; expected "
            "(N, C) with (N,), or (C,) with ()", expected="(N, C) and (N,)",
            actual=(tuple(x.shape), tuple(y.shape)))
    xb = x if x.ndim == 2 else x.unsqueeze(0)
    yb = y.reshape((-1, 1)).cast(_dt.int64)
    c = xb.shape[1]
    picked = xb.gather(1, yb)
    z = (xb - picked + margin).clamp(min=0.0)
    if p == 2:
        z = z.square()
    if w is not None:
        z = z * w.gather(0, yb.reshape((-1,))).reshape((-1, 1))
    not_y = (yb != _arange_like(c, yb)).cast(x.dtype)
    loss = (z * not_y).sum(1) / c
    loss = loss if x.ndim == 2 else loss.reshape(())
    return _reduce(loss, r)


def _arange_like(n, like):
    return arange(n, dtype=like.dtype, device=like.device).reshape((1, n))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss, PyTorch's ``F.multilabel_margin_loss``: ``target`` (N, C) int
    holds each sample's classes, ended by the first -1; the loss sums ``max(0, 1 - (x[j] -
    x[i]))`` over target classes ``j`` and the other classes ``i``, divided by C.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.multilabel_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]),
    ...                          ember.tensor([[3, 0, -1, 1]])).item()
    0.8500000238418579
    """
    op = "multilabel_margin_loss"
    x = _float_tensor(input, op)
    y = _class_target(op, x, target)
    r = _red(op, size_average, reduce, reduction)
    if x.ndim not in (1, 2) or tuple(y.shape) != tuple(x.shape):
        raise ShapeMismatchError(
            f"{op}: input {_shape_str(x.shape)} and target {_shape_str(y.shape)}; expected "
            "the same (N, C) or (C,) shape", expected=tuple(x.shape), actual=tuple(y.shape))
    xb = x if x.ndim == 2 else x.unsqueeze(0)
    yb = (y if y.ndim == 2 else y.unsqueeze(0)).cast(_dt.int64)
    c = xb.shape[1]
    valid = (yb >= 0).cast(_dt.int64).cumprod(1)                 # before the first -1
    slots = (yb.clamp(min=0).one_hot(c) * valid.unsqueeze(-1)).sum(1)   # (N, C) counts
    is_target = (slots > 0).cast(x.dtype)
    diff = (1 - (xb.unsqueeze(-1) - xb.unsqueeze(-2))).clamp(min=0.0)  # [n, j, i]
    # a class listed twice before the -1 counts twice, as in PyTorch
    pair = slots.cast(x.dtype).unsqueeze(-1) * (1 - is_target).unsqueeze(-2)
    loss = (diff * pair).sum((1, 2)) / c
    loss = loss if x.ndim == 2 else loss.reshape(())
    return _reduce(loss, r)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine similarity along ``dim`` of broadcast ``x1`` and ``x2``, PyTorch's
    ``F.cosine_similarity`` (each norm clamped below at ``eps``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.cosine_similarity(ember.tensor([[1.0, 0.0]]), ember.tensor([[1.0, 1.0]])).tolist()
    [0.7071067690849304]
    """
    op = "cosine_similarity"
    a = _float_tensor(x1, op, "x1")
    b = _float_tensor(x2, op, "x2")
    a, b = broadcast_pair(a, b, op)
    nd = max(a.ndim, 1)
    d = _int(dim, op, "dim", -nd)
    if d >= nd:
        raise InvalidParameterError(f"{op}: dim {dim} is out of range for {a.ndim}-d inputs",
                                    "dim", dim)
    eps = _real(eps, op, "eps")
    na = _straight_clamp(a.norm(2, d, keepdim=True), eps)
    nb = _straight_clamp(b.norm(2, d, keepdim=True), eps)
    return ((a / na) * (b / nb)).sum(d)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dim, PyTorch's ``F.pairwise_distance``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.pairwise_distance(ember.tensor([[3.0, 0.0]]), ember.tensor([[0.0, 4.0]]), eps=0.0).tolist()
    [5.0]
    """
    op = "pairwise_distance"
    a = _float_tensor(x1, op, "x1")
    b = _float_tensor(x2, op, "x2")
    p = _real(p, op, "p")
    eps = _real(eps, op, "eps")
    diff = a - b + eps
    if diff.ndim == 0:
        diff = diff.reshape((1,))
        return diff.norm(p, 0, keepdim=keepdim)
    return diff.norm(p, -1, keepdim=keepdim)


def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input, for each pair i < j in
    row-major order (N * (N - 1) / 2 values), PyTorch's ``F.pdist``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.pdist(ember.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])).tolist()
    [5.0, 1.0, 4.242640495300293]
    """
    op = "pdist"
    x = _float_tensor(input, op)
    p = _real(p, op, "p", 0.0)
    if x.ndim != 2:
        raise ShapeMismatchError(f"{op}: input has shape {_shape_str(x.shape)}; expected a "
                                 "2-d (N, M) tensor", expected=2, actual=tuple(x.shape))
    n = x.shape[0]
    i = [a for a in range(n) for b in range(a + 1, n)]
    j = [b for a in range(n) for b in range(a + 1, n)]
    if not i:
        return x.sum(1)[:0]
    ii = tensor(i, dtype=_dt.int64, device=x.device)
    jj = tensor(j, dtype=_dt.int64, device=x.device)
    return (x[ii] - x[jj]).norm(p, 1)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the
    ``pairwise_distance`` of norm ``p`` (``swap``: the smaller of d(a, n) and d(p, n)),
    PyTorch's ``F.triplet_margin_loss``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> a = ember.tensor([[0.0, 0.0]])
    >>> F.triplet_margin_loss(a, a, ember.tensor([[3.0, 4.0]]), eps=0.0).item()
    0.0
    """
    op = "triplet_margin_loss"
    r = _red(op, size_average, reduce, reduction)
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _float_tensor(t, op, name)
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise ShapeMismatchError(
            f"{op}: anchor {_shape_str(anchor.shape)}, positive {_shape_str(positive.shape)} "
            f"and negative {_shape_str(negative.shape)} must have the same number of dims",
            expected=anchor.ndim, actual=(positive.ndim, negative.ndim))

    def dist(a, b):
        return pairwise_distance(a, b, p, eps)
    return _triplet(anchor, positive, negative, dist, margin, swap, r, op)


def _triplet(anchor, positive, negative, dist, margin, swap, r, op):
    margin = _real(margin, op, "margin")
    d_ap = dist(anchor, positive)
    d_an = dist(anchor, negative)
    if swap:
        d_an = d_an.minimum(dist(positive, negative))
    return _reduce((d_ap - d_an + margin).clamp(min=0.0), r)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``triplet_margin_loss`` with any ``distance_function(x1, x2)`` (default
    ``pairwise_distance``), PyTorch's ``F.triplet_margin_with_distance_loss``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> a = ember.tensor([[0.0, 0.0]])
    >>> F.triplet_margin_with_distance_loss(a, a, a, margin=0.5).item()
    0.5
    """
    op = "triplet_margin_with_distance_loss"
    r = _reduction(reduction, op)
    if margin <= 0:
        raise InvalidParameterError(f"{op}: margin must be greater than 0, got {margin}",
                                    "margin", margin)
    if distance_function is not None and not callable(distance_function):
        raise InvalidParameterError(f"{op}: distance_function must be callable, got "
                                    f"{distance_function!r}", "distance_function",
                                    distance_function)
    dist = pairwise_distance if distance_function is None else distance_function
    return _triplet(anchor, positive, negative, dist, margin, swap, r, op)
