"""ONNX converters of the less common operators: more activations and math, bitwise ops,
losses (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss), RMS/group/LP normalizations,
TopK, scatters, NonZero, Compress, EyeLike, DepthToSpace/SpaceToDepth, Hardmax, LRN.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> CONVERTERS["Softsign"]([ember.tensor([1.0, -3.0])], {}, Context(18)).tolist()
[0.5, -0.75]
"""

import math

import numpy as np

import ember
import ember.nn.functional as F

from .registry import axes_arg, axis_of, converter, ints, scalar, widened


def _same(fn):
    return lambda x, a, c: fn(*x)


converter("Acos")(_same(lambda p: p.acos()))
converter("Asin")(_same(lambda p: p.asin()))
converter("Acosh")(_same(lambda p: p.acosh()))
converter("Asinh")(_same(lambda p: p.asinh()))
converter("Atanh")(_same(lambda p: p.atanh()))
converter("Cosh")(_same(lambda p: p.cosh()))
converter("Sinh")(_same(lambda p: p.sinh()))
converter("Softsign")(_same(lambda p: p / (p.abs() + 1)))
converter("Mish")(_same(lambda p: p * ember.where(p > 20, p, (p.exp() + 1).log()).tanh()))
converter("BitwiseAnd")(_same(lambda p, q: p.bitwise_and(q)))
converter("BitwiseOr")(_same(lambda p, q: p.bitwise_or(q)))
converter("BitwiseXor")(_same(lambda p, q: p.bitwise_xor(q)))
converter("BitwiseNot")(_same(lambda p: p.bitwise_not()))


@converter("Swish")
def swish(x, a, c):
    return x[0] * F.sigmoid(x[0] * a.get("alpha", 1.0))


@converter("Celu")
@widened
def celu(x, a, c):
    alpha = a.get("alpha", 1.0)
    return x[0].clamp(0, None) + ((x[0] / alpha).exp() - 1).clamp(None, 0) * alpha


@converter("ThresholdedRelu")
def thresholded_relu(x, a, c):
    return ember.where(x[0] > a.get("alpha", 1.0), x[0], x[0] * 0)


@converter("Shrink")
def shrink(x, a, c):
    t, lam, bias = x[0], a.get("lambd", 0.5), a.get("bias", 0.0)
    return ember.where(t < -lam, t + bias, ember.where(t > lam, t - bias, t * 0))


@converter("IsInf")
def is_inf(x, a, c):
    t = x[0]
    pos, neg = a.get("detect_positive", 1), a.get("detect_negative", 1)
    inf = t.is_inf()
    if not pos:
        inf = inf.logical_and(t < 0)
    if not neg:
        inf = inf.logical_and(t > 0)
    return inf


@converter("BitShift")
def bit_shift(x, a, c):
    p, q = x
    if a["direction"] == "LEFT":
        return p.bitwise_left_shift(q)
    return p.bitwise_right_shift(q)


@converter("CumProd")
def cumprod(x, a, c):
    t, axis = x[0], axis_of(ints(x[1])[0], x[0].ndim)
    if a.get("reverse", 0):
        t = t.flip([axis])
    if a.get("exclusive", 0):
        ones = ember.ones(*[1 if i == axis else n for i, n in enumerate(t.shape)],
                          dtype=t.dtype, device=t.device)
        t = ember.cat([ones, t.narrow(axis, 0, t.shape[axis] - 1)], dim=axis)
    out = t.cumprod(axis).cast(x[0].dtype)
    return out.flip([axis]) if a.get("reverse", 0) else out


@converter("ReduceLogSum")
def reduce_log_sum(x, a, c):
    t = x[0]
    axes = axes_arg(x, a)
    dims = tuple(range(t.ndim)) if not axes else tuple(axis_of(d, t.ndim) for d in axes)
    return t.sum(dim=dims, keepdim=bool(a.get("keepdims", 1))).log()


@converter("Hardmax")
def hardmax(x, a, c):
    t = x[0]
    axis = axis_of(a.get("axis", -1), t.ndim)
    idx = t.argmax(axis)
    hot = idx == c.const(np.arange(t.shape[axis]).reshape(
        [-1 if i == axis else 1 for i in range(t.ndim)]), "int64")
    return hot.cast(t.dtype)


@converter("LpNormalization")
def lp_normalization(x, a, c):
    t, axis, p = x[0], a.get("axis", -1), a.get("p", 2)
    norm = t.abs().sum(dim=(axis,), keepdim=True) if p == 1 else \
        (t * t).sum(dim=(axis,), keepdim=True).sqrt()
    return ember.where(norm == 0, t * 0, t / ember.where(norm == 0, norm + 1, norm))


@converter("RMSNormalization")
def rms_normalization(x, a, c):
    t, scale = x[0], x[1]
    axis = axis_of(a.get("axis", -1), t.ndim)
    dims = tuple(range(axis, t.ndim))
    ms = (t * t).mean(dim=dims, keepdim=True)
    return t / (ms + a.get("epsilon", 1e-5)).sqrt() * scale


@converter("MeanVarianceNormalization")
def mean_variance_normalization(x, a, c):
    t = x[0]
    dims = tuple(a.get("axes", [0, 2, 3]))
    mean = t.mean(dim=dims, keepdim=True)
    var = ((t - mean) ** 2).mean(dim=dims, keepdim=True)
    return (t - mean) / (var.sqrt() + 1e-9)


@converter("GroupNormalization")
def group_normalization(x, a, c):
    t, scale, bias = x
    g = a["num_groups"]
    n, ch = t.shape[0], t.shape[1]
    grouped = t.reshape(n, g, -1)
    mean = grouped.mean(dim=(2,), keepdim=True)
    var = ((grouped - mean) ** 2).mean(dim=(2,), keepdim=True)
    norm = ((grouped - mean) / (var + a.get("epsilon", 1e-5)).sqrt()).reshape(tuple(t.shape))
    shape = (1, ch) + (1,) * (t.ndim - 2)
    if tuple(scale.shape) != (ch,):  # opset 18's per-group scale
        scale = scale.reshape(g, 1).expand(g, ch // g).reshape(ch)
        bias = bias.reshape(g, 1).expand(g, ch // g).reshape(ch)
    return norm * scale.reshape(shape) + bias.reshape(shape)


def _nll(logp, target, weight, reduction, ignore_index):
    """ONNX's NegativeLogLikelihoodLoss on log-probabilities ``logp`` (N, C, d...)."""
    target = target.cast("int64")
    valid = None
    if ignore_index is not None:
        valid = target != ignore_index
        target = ember.where(valid, target, target * 0)
    picked = logp.gather(1, target.unsqueeze(1)).squeeze(1)
    w = weight.take(0, target) if weight is not None else None
    if valid is not None:
        mask = valid.cast(logp.dtype)
        w = mask if w is None else w * mask
    loss = -picked if w is None else -picked * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum() if w is not None else loss.mean()


@converter("NegativeLogLikelihoodLoss")
def nll_loss(x, a, c):
    weight = x[2] if len(x) > 2 else None
    return _nll(x[0], x[1], weight, a.get("reduction", "mean"), a.get("ignore_index"))


@converter("SoftmaxCrossEntropyLoss")
def softmax_cross_entropy(x, a, c):
    logp = F.log_softmax(x[0], dim=1)
    weight = x[2] if len(x) > 2 else None
    return [_nll(logp, x[1], weight, a.get("reduction", "mean"), a.get("ignore_index")), logp]


@converter("TopK")
def topk(x, a, c):
    t, k = x[0], int(scalar(x[1]))
    axis = axis_of(a.get("axis", -1), t.ndim)
    values, indices = t.topk_with_indices(k, axis, bool(a.get("largest", 1)))
    return [values, indices.cast("int64")]


@converter("ScatterElements", "Scatter")
def scatter_elements(x, a, c):
    t, idx, upd = x
    axis = axis_of(a.get("axis", 0), t.ndim)
    idx = idx.cast("int64")
    idx = ember.where(idx < 0, idx + t.shape[axis], idx)
    mode = {"none": "assign", "add": "add", "mul": "mul", "max": "max", "min": "min"}[
        a.get("reduction", "none")]
    return t.scatter(axis, idx, upd, mode)


@converter("ScatterND")
def scatter_nd(x, a, c):
    t, idx, upd = x
    mode = {"none": "assign", "add": "add", "mul": "mul", "max": "max", "min": "min"}[
        a.get("reduction", "none")]
    return t.scatter_nd(idx.cast("int64"), upd, mode)


@converter("GatherND")
def gather_nd(x, a, c):
    """With ``batch_dims`` b, the first b dims of data and indices pair up: they fold into one
    batch dim whose position becomes a leading index column."""
    data, idx = x[0], x[1].cast("int64")
    b = a.get("batch_dims", 0)
    if not b:
        return data.gather_nd(idx)
    batch = tuple(data.shape[:b])
    count = math.prod(batch)
    flat = data.reshape(count, *data.shape[b:])
    inner = idx.reshape(count, *idx.shape[b:])
    rows = ember.arange(count, dtype="int64", device=idx.device)
    rows = rows.reshape(count, *([1] * (inner.ndim - 1))).expand(*inner.shape[:-1], 1)
    out = flat.gather_nd(ember.cat([rows, inner], dim=-1))
    return out.reshape(*batch, *out.shape[1:])


@converter("NonZero")
def nonzero(x, a, c):
    t = x[0]
    parts = (t if t.ndim else t.reshape(1)).nonzero()
    return ember.stack(list(parts), dim=0) if t.ndim else parts[0].reshape(0, -1)[:0]


@converter("Compress")
def compress(x, a, c):
    t, cond = x
    axis = a.get("axis")
    if axis is None:
        t, axis = t.reshape(-1), 0
    idx = cond.nonzero()[0]
    idx = idx[idx < t.shape[axis_of(axis, t.ndim)]] if idx.numel() else idx
    return t.take(axis_of(axis, t.ndim), idx)


@converter("EyeLike")
def eye_like(x, a, c):
    from .proto import ember_dtype
    t = x[0]
    dtype = ember_dtype(a["dtype"]) if "dtype" in a else t.dtype
    n, m = t.shape
    return c.const(np.eye(n, m, a.get("k", 0)), dtype)


@converter("DepthToSpace")
def depth_to_space(x, a, c):
    t, b = x[0], a["blocksize"]
    n, ch, h, w = t.shape
    if a.get("mode", "DCR") == "DCR":
        t = t.reshape(n, b, b, ch // (b * b), h, w).permute(0, 3, 4, 1, 5, 2)
    else:
        t = t.reshape(n, ch // (b * b), b, b, h, w).permute(0, 1, 4, 2, 5, 3)
    return t.reshape(n, ch // (b * b), h * b, w * b)


@converter("SpaceToDepth")
def space_to_depth(x, a, c):
    t, b = x[0], a["blocksize"]
    n, ch, h, w = t.shape
    order = (0, 1, 3, 5, 2, 4) if a.get("mode", "DCR") == "CRD" else (0, 3, 5, 1, 2, 4)
    t = t.reshape(n, ch, h // b, b, w // b, b).permute(*order)
    return t.reshape(n, ch * b * b, h // b, w // b)


@converter("LRN")
def lrn(x, a, c):
    """Local response normalization across channels: a sum of ``size`` shifted squares."""
    t, size = x[0], a["size"]
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    sq = (t * t).pad([(0, 0), (before, after)] + [(0, 0)] * (t.ndim - 2))
    channels = t.shape[1]
    total = sq.narrow(1, 0, channels)
    for k in range(1, size):
        total = total + sq.narrow(1, k, channels)
    scale = total * (a.get("alpha", 1e-4) / size) + a.get("bias", 1.0)
    return t / scale ** a.get("beta", 0.75)
