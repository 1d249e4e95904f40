"""Losses: ``cross_entropy``, ``nll_loss``, ``mse_loss``, ``l1_loss`` and
``binary_cross_entropy_with_logits`` (``ember.nn.functional``)."""

from .. import dtypes as _dt
from ..errors import DimensionError, KindError, ShapeMismatchError
from ..shapes import broadcast_shapes
from ..tensor import check_tensor, record_arrays
from .nn_args import (_backend, _common, _float_tensor, _int, _opt_float, _real, _reduction,
                      _shape_str)


# -- losses -------------------------------------------------------------------------------------

def _class_args(op, input, target, weight, ignore_index):
    """Checks of cross_entropy/nll_loss; returns (x, target, weight, ignore, unbatched, probs)."""
    x = _float_tensor(input, op, "input")
    check_tensor(target, op, "target")
    if x.ndim == 0:
        raise ShapeMismatchError(f"{op}: input is 0-d; expected (C,), (N, C) or (N, C, d1, ...)",
                                 expected="(N, C, ...)", actual=())
    ignore_index = _int(ignore_index, op, "ignore_index")
    tkind = target._dtype.kind
    unbatched = x.ndim == 1
    C = x.shape[0] if unbatched else x.shape[1]
    if tkind == "bool" or tkind == "complex":
        if tkind == "complex":
            raise _dt.complex_error(op, "target", target._dtype)
        raise KindError(f"{op}: target has dtype bool; expected class indices (int) or class "
                        "probabilities (float)")
    probs = tkind == "float"
    if probs:
        if tuple(target.shape) != tuple(x.shape):
            raise ShapeMismatchError(
                f"{op}: target of class probabilities has shape {_shape_str(target.shape)}; "
                f"expected the input's shape {_shape_str(x.shape)}", expected=tuple(x.shape),
                actual=tuple(target.shape))
    else:
        want = () if unbatched else (x.shape[0],) + tuple(x.shape[2:])
        if tuple(target.shape) != want:
            raise ShapeMismatchError(
                f"{op}: target of class indices has shape {_shape_str(target.shape)}; expected "
                f"{_shape_str(want)} (the input's shape {_shape_str(x.shape)} without the class "
                "dim)", expected=want, actual=tuple(target.shape))
        bad = _backend((x, target), op).nn_target_bad(target._data, C, ignore_index)
        if bad is not None:
            raise DimensionError(f"{op}: target class {bad} is out of range for {C} classes; "
                                 f"expected values in [0, {C - 1}] or ignore_index="
                                 f"{ignore_index}")
    w = _opt_float(weight, op, "weight")
    if w is not None and tuple(w.shape) != (C,):
        raise ShapeMismatchError(f"{op}: weight has shape {_shape_str(w.shape)}; expected ({C},),"
                                 f" one weight per class", expected=(C,), actual=tuple(w.shape))
    return x, target, w, ignore_index, unbatched, probs


def _class_loss(op, x, target, w, ignore_index, unbatched, smoothing, reduction, from_logits):
    dt = x._dtype if w is None else _dt.promote_types(x._dtype, w._dtype)
    xd, td = x._data, target._data
    be = _backend((x, target, w), op)
    rs = be.nn_reshape
    if unbatched:
        xd, td = rs(xd, (1,) + tuple(xd.shape)), rs(td, (1,))
    loss, saved = be.nn_class_loss(xd, td, None if w is None else w._data, ignore_index,
                                   smoothing, reduction, from_logits, dt)
    if unbatched and reduction == "none":
        loss = rs(loss, ())
    xdt = x._dtype
    xshape = tuple(x.shape)

    def backward(g, needs):
        gg = rs(g, (1,)) if unbatched and reduction == "none" else g
        gx = be.nn_class_loss_grad(gg, saved, xdt)
        return ((rs(gx, xshape) if unbatched else gx),)

    return record_arrays(loss, dt, (x,), backward, op)


def cross_entropy(input, target, weight=None, reduction="mean", label_smoothing=0.0,
                  ignore_index=-100):
    """Cross entropy of logits ``input`` (C,), (N, C) or (N, C, d1, ...) against ``target``:
    class indices (int, the input's shape without dim 1) or class probabilities (float, the
    input's shape). PyTorch's ``F.cross_entropy``: per-class ``weight``, ``label_smoothing`` in
    [0, 1], ``ignore_index`` (index targets), ``reduction`` "mean" (weighted mean over the
    non-ignored targets), "sum" or "none". One recorded op: log-softmax and NLL fused, the
    gradient ``softmax - target`` scaled.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> logits = ember.tensor([[0.0, 0.0], [0.0, 0.0]])
    >>> round(F.cross_entropy(logits, ember.tensor([0, 1])).item(), 4)
    0.6931
    """
    op = "cross_entropy"
    reduction = _reduction(reduction, op)
    smoothing = _real(label_smoothing, op, "label_smoothing", 0.0, 1.0)
    x, target, w, ignore_index, unbatched, probs = _class_args(op, input, target, weight,
                                                               ignore_index)
    if not probs:
        return _class_loss(op, x, target, w, ignore_index, unbatched, smoothing, reduction, True)
    dt = _common((x, w, target))
    xd, td = x._data, target._data
    be = _backend((x, target, w), op)
    rs = be.nn_reshape
    xshape = tuple(x.shape)
    if unbatched:
        xd, td = rs(xd, (1,) + xshape), rs(td, (1,) + xshape)
    loss, saved = be.nn_prob_loss(xd, td, None if w is None else w._data, smoothing, reduction,
                                  dt)
    if unbatched and reduction == "none":
        loss = rs(loss, ())
    xdt, tdt = x._dtype, target._dtype

    def backward(g, needs):
        gg = rs(g, (1,)) if unbatched and reduction == "none" else g
        gx, gt = be.nn_prob_loss_grads(gg, saved, needs[0], needs[1], xdt, tdt)
        if unbatched:
            gx = None if gx is None else rs(gx, xshape)
            gt = None if gt is None else rs(gt, xshape)
        return gx, gt

    return record_arrays(loss, dt, (x, target), backward, op)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of log-probabilities ``input`` (C,), (N, C) or (N, C, d1, ...)
    at the int class indices ``target`` (PyTorch's ``F.nll_loss``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> logp = ember.tensor([[-0.5, -1.0], [-2.0, -0.1]])
    >>> round(F.nll_loss(logp, ember.tensor([0, 1]), reduction="sum").item(), 4)
    0.6
    """
    op = "nll_loss"
    reduction = _reduction(reduction, op)
    x, target, w, ignore_index, unbatched, probs = _class_args(op, input, target, weight,
                                                               ignore_index)
    if probs:
        raise KindError(f"{op}: target has dtype {target._dtype.name}; expected int class "
                        "indices")
    return _class_loss(op, x, target, w, ignore_index, unbatched, 0.0, reduction, False)


def _pair_loss(op, kind, input, target, reduction):
    reduction = _reduction(reduction, op)
    x = _float_tensor(input, op, "input")
    check_tensor(target, op, "target")
    tkind = target._dtype.kind
    if tkind == "bool" or tkind == "complex":
        if tkind == "complex":
            raise _dt.complex_error(op, "target", target._dtype)
        raise KindError(f"{op}: target has dtype bool; expected a float or int tensor")
    be = _backend((x, target), op)
    t = target if target._dtype.kind == "float" else target.cast(x._dtype)
    broadcast_shapes(tuple(x.shape), tuple(t.shape), op=op)
    dt = _dt.promote_types(x._dtype, t._dtype)
    loss, saved = be.nn_pair_loss(x._data, t._data, kind, reduction, dt)
    xs, ts = tuple(x.shape), tuple(t.shape)
    xdt, tdt = x._dtype, t._dtype

    def backward(g, needs):
        d = be.nn_pair_loss_grads(g, saved)
        gx = be.cast(be.sum_to_shape(d, xs), xdt) if needs[0] else None
        gt = be.cast(be.sum_to_shape(-d, ts), tdt) if needs[1] else None
        return gx, gt

    return record_arrays(loss, dt, (x, t), backward, op)


def mse_loss(input, target, reduction="mean"):
    """Mean squared error ``(input - target) ** 2``, reduced (the shapes broadcast).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.mse_loss(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 4.0])).tolist()
    2.0
    """
    return _pair_loss("mse_loss", "mse", input, target, reduction)


def l1_loss(input, target, reduction="mean"):
    """Mean absolute error ``|input - target|``, reduced (the shapes broadcast); the gradient at
    a zero difference is 0.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.l1_loss(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 4.0]), reduction="sum").tolist()
    2.0
    """
    return _pair_loss("l1_loss", "l1", input, target, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of logits against targets in [0, 1], stable for large logits:
    ``(1 - t) x - (1 + (pos_weight - 1) t) logsigmoid(x)``, times ``weight``. ``target`` has the
    input's shape; ``weight`` and ``pos_weight`` broadcast to it (``pos_weight`` along the last
    dim, one per class).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.tensor([0.0, 0.0])
    >>> round(F.binary_cross_entropy_with_logits(x, ember.tensor([1.0, 0.0])).item(), 4)
    0.6931
    """
    op = "binary_cross_entropy_with_logits"
    reduction = _reduction(reduction, op)
    x = _float_tensor(input, op, "input")
    check_tensor(target, op, "target")
    tkind = target._dtype.kind
    if tkind == "bool" or tkind == "complex":
        if tkind == "complex":
            raise _dt.complex_error(op, "target", target._dtype)
        raise KindError(f"{op}: target has dtype bool; expected a float tensor")
    t = target if target._dtype.kind == "float" else target.cast(x._dtype)
    if tuple(t.shape) != tuple(x.shape):
        raise ShapeMismatchError(
            f"{op}: target has shape {_shape_str(t.shape)}; expected the input's shape "
            f"{_shape_str(x.shape)}", expected=tuple(x.shape), actual=tuple(t.shape))
    w = _opt_float(weight, op, "weight")
    pw = _opt_float(pos_weight, op, "pos_weight")
    for name, v in (("weight", w), ("pos_weight", pw)):
        if v is None:
            continue
        try:
            fits = broadcast_shapes(tuple(v.shape), tuple(x.shape), op=op) == tuple(x.shape)
        except ShapeMismatchError:
            fits = False
        if not fits:
            raise ShapeMismatchError(
                f"{op}: {name} has shape {_shape_str(v.shape)}; expected a shape that broadcasts "
                f"to the input's {_shape_str(x.shape)}", expected=tuple(x.shape),
                actual=tuple(v.shape))
    dt = _common((x, t, w, pw))
    be = _backend((x, t, w, pw), op)
    loss, saved = be.nn_bce_logits(x._data, t._data, None if w is None else w._data,
                                   None if pw is None else pw._data, reduction, dt)
    inputs = tuple(v for v in (x, t, w, pw) if v is not None)
    present = [v is not None for v in (x, t, w, pw)]

    def backward(g, needs):
        grads = be.nn_bce_logits_grads(g, saved)
        res, k = [], 0
        for v, gr, here in zip((x, t, w, pw), grads, present):
            if not here:
                continue
            res.append(be.cast(be.sum_to_shape(gr, tuple(v.shape)), v._dtype)
                       if needs[k] else None)
            k += 1
        return tuple(res)

    return record_arrays(loss, dt, inputs, backward, op)
