"""Losses: ``cross_entropy``, ``nll_loss``, ``mse_loss``, ``l1_loss`` and
``binary_cross_entropy_with_logits`` (``ember.nn.functional``)."""

from .. import dtypes as _dt
from ..errors import DimensionError, KindError, ShapeMismatchError
from ..shapes import broadcast_shapes
from ..autodiff.graph import _mode
from ..autodiff.rules import fit
from .._tensor import check_tensor, record, saved, wrap
from .activation import log_softmax as _log_softmax
from .masking import where as _where
from .nn_args import (_backend, _common, _float_tensor, _int, _opt_float, _real, _reduction,
                      _shape_str)


# -- losses -------------------------------------------------------------------------------------

def _class_args(op, input, target, weight, ignore_index):
    """Checks of cross_entropy/nll_loss; returns (x, target, weight, ignore, unbatched, probs)."""
    x = _float_tensor(input, op, "input")
    check_tensor(target, op, "target")
    xshape, tshape = tuple(x._data.shape), tuple(target._data.shape)  # plain tuples, read once
    if not xshape:
        raise ShapeMismatchError(f"{op}: input is 0-d; expected (C,), (N, C) or (N, C, d1, ...)",
                                 expected="(N, C, ...)", actual=())
    ignore_index = _int(ignore_index, op, "ignore_index")
    tkind = target._dtype.kind
    unbatched = len(xshape) == 1
    C = xshape[0] if unbatched else xshape[1]
    if tkind == "bool" or tkind == "complex":
        if tkind == "complex":
            raise _dt.complex_error(op, "target", target._dtype)
        raise KindError(f"{op}: target has dtype bool; expected class indices (int) or class "
                        "probabilities (float)")
    probs = tkind == "float"
    if probs:
        if tshape != xshape:
            raise ShapeMismatchError(
                f"{op}: target of class probabilities has shape {_shape_str(tshape)}; "
                f"expected the input's shape {_shape_str(xshape)}", expected=xshape,
                actual=tshape)
    else:
        want = () if unbatched else (xshape[0],) + xshape[2:]
        if tshape != want:
            raise ShapeMismatchError(
                f"{op}: target of class indices has shape {_shape_str(tshape)}; expected "
                f"{_shape_str(want)} (the input's shape {_shape_str(xshape)} without the class "
                "dim)", expected=want, actual=tshape)
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
    loss, saved_kernel = be.nn_class_loss(xd, td, None if w is None else w._data, ignore_index,
                                          smoothing, reduction, from_logits, dt)
    if unbatched and reduction == "none":
        loss = rs(loss, ())
    xdt = x._dtype
    xshape = tuple(x._data.shape)
    xs = saved(x)
    tc = wrap(target._data, target._dtype)
    wc = None if w is None else wrap(w._data, w._dtype)

    def rule(g, needs, out):
        if _mode.enabled:  # create_graph: the same gradient with ember ops, recorded in turn
            return (_class_loss_grad(g, xs, tc, wc, ignore_index, smoothing, reduction,
                                     from_logits, dt),)
        gg = g._data
        if unbatched and reduction == "none":
            gg = rs(gg, (1,))
        gx = be.nn_class_loss_grad(gg, saved_kernel, xdt)
        return (wrap(rs(gx, xshape) if unbatched else gx, xdt),)

    return record(loss, dt, (x,), rule, op)


def _work(dt):
    """The dtype the loss kernels compute in: float64 stays, others compute in float32."""
    return _dt.float64 if dt is _dt.float64 else _dt.float32


def _cast(t, dtype):
    return t if t._dtype is dtype else t.cast(dtype)


def _scale(g, reduction, denom, shape):
    """The loss gradient ``g`` spread over the per-element losses of ``shape``."""
    if reduction == "none":
        return g
    if reduction == "mean":
        g = g / denom
    return g.expand(*shape) if shape else g


def _class_loss_grad(g, x, target, w, ignore_index, smoothing, reduction, from_logits, dt):
    """The input gradient of the class-index cross entropy (``from_logits``) or NLL loss with
    ember ops: ``softmax * sum(q) - q`` (or ``-q``) scaled, ``q`` the per-class coefficients
    (constants); rows of ignored targets get none."""
    work = _work(dt)
    unbatched = x.ndim == 1
    xw = _cast(x, work)
    t = target
    if unbatched:
        xw, t = xw.reshape((1,) + tuple(x.shape)), t.reshape((1,))
        if reduction == "none":
            g = g.reshape((1,))
    xl = xw.movedim(1, -1)                                      # (N, *rest, C)
    C = xl.shape[-1]
    valid = t != ignore_index
    tt = _where(valid, t, 0).cast(_dt.int64)
    if w is None:
        w_t = valid.cast(work)
        wv = None
    else:
        wv = _cast(w, work)
        w_t = _where(valid, wv.gather(0, tt.reshape(-1)).reshape(tuple(tt.shape)), 0.0)
    q = tt.one_hot(C).cast(work) * (w_t * (1.0 - smoothing)).unsqueeze(-1)
    if smoothing:
        base = valid.cast(work).unsqueeze(-1)
        q = q + (base if wv is None else base * wv) * (smoothing / C)
    denom = w_t.sum()
    scale = _scale(_cast(g, work), reduction, denom, tuple(tt.shape)).unsqueeze(-1)
    if from_logits:
        gx = _log_softmax(xl, -1).exp() * q.sum(-1, keepdim=True) - q
    else:
        gx = -q
    gx = _where(valid.unsqueeze(-1), gx * scale, 0.0).movedim(-1, 1)
    if unbatched:
        gx = gx.reshape(tuple(x.shape))
    return _cast(gx, x._dtype)


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
    loss, saved_kernel = be.nn_prob_loss(xd, td, None if w is None else w._data, smoothing,
                                         reduction, dt)
    if unbatched and reduction == "none":
        loss = rs(loss, ())
    xdt, tdt = x._dtype, target._dtype
    xs, ts = saved(x), saved(target)
    wc = None if w is None else wrap(w._data, w._dtype)

    def rule(g, needs, out):
        if _mode.enabled:  # create_graph: the same gradients with ember ops, recorded in turn
            return _prob_loss_grads(g, xs, ts, wc, smoothing, reduction, needs, dt)
        gg = g._data
        if unbatched and reduction == "none":
            gg = rs(gg, (1,))
        gx, gt = be.nn_prob_loss_grads(gg, saved_kernel, needs[0], needs[1], xdt, tdt)
        if unbatched:
            gx = None if gx is None else rs(gx, xshape)
            gt = None if gt is None else rs(gt, xshape)
        return (None if gx is None else wrap(gx, xdt), None if gt is None else wrap(gt, tdt))

    return record(loss, dt, (x, target), rule, op)


def _prob_loss_grads(g, x, target, w, smoothing, reduction, needs, dt):
    """The gradients of the class-probability cross entropy with ember ops: ``softmax * sum(q)
    - q`` for the logits and ``-(1 - smoothing) * log_softmax * weight`` for the target, scaled,
    where ``q = (target (1 - smoothing) + smoothing / C) * weight``."""
    work = _work(dt)
    shape = tuple(x.shape)
    unbatched = x.ndim == 1
    xw, tw = _cast(x, work), _cast(target, work)
    if unbatched:
        xw, tw = xw.reshape((1,) + shape), tw.reshape((1,) + shape)
        if reduction == "none":
            g = g.reshape((1,))
    xl, tl = xw.movedim(1, -1), tw.movedim(1, -1)
    C = xl.shape[-1]
    wv = None if w is None else _cast(w, work)
    tt = tl * (1.0 - smoothing) + smoothing / C if smoothing else tl
    q = tt if wv is None else tt * wv
    pshape = tuple(xl.shape[:-1])
    denom = float(_prod(pshape)) if C else 0.0
    scale = _scale(_cast(g, work), reduction, denom, pshape).unsqueeze(-1)
    logp = _log_softmax(xl, -1)
    gx = gt = None
    if needs[0]:
        gx = ((logp.exp() * q.sum(-1, keepdim=True) - q) * scale).movedim(-1, 1)
        gx = _cast(gx.reshape(shape) if unbatched else gx, x._dtype)
    if needs[1]:
        d = logp * -(1.0 - smoothing)
        if wv is not None:
            d = d * wv
        gt = (d * scale).movedim(-1, 1)
        gt = _cast(gt.reshape(shape) if unbatched else gt, target._dtype)
    return gx, gt


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


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
    loss, saved_kernel = be.nn_pair_loss(x._data, t._data, kind, reduction, dt)
    xshape, tshape = tuple(x.shape), tuple(t.shape)
    xdt, tdt = x._dtype, t._dtype
    xs, ts = saved(x), saved(t)

    def rule(g, needs, out):
        if _mode.enabled:  # create_graph: the same gradient with ember ops, recorded in turn
            d = _pair_loss_grad(g, xs, ts, kind, reduction, dt)
            return (fit(d, xs) if needs[0] else None, fit(-d, ts) if needs[1] else None)
        d = be.nn_pair_loss_grads(g._data, saved_kernel)
        gx = wrap(be.cast(be.sum_to_shape(d, xshape), xdt), xdt) if needs[0] else None
        gt = wrap(be.cast(be.sum_to_shape(-d, tshape), tdt), tdt) if needs[1] else None
        return gx, gt

    return record(loss, dt, (x, t), rule, op)


def _pair_loss_grad(g, x, t, kind, reduction, dt):
    """The gradient of mse_loss (``2 (x - t)``) or l1_loss (``sign(x - t)``) with respect to
    ``x`` at the broadcast shape, scaled by ``g``, with ember ops."""
    work = _work(dt)
    diff = _cast(x, work) - _cast(t, work)
    shape = tuple(diff.shape)
    d = diff * 2.0 if kind == "mse" else diff.sign()
    return d * _scale(_cast(g, work), reduction, float(_prod(shape)), shape)


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
    loss, saved_kernel = be.nn_bce_logits(x._data, t._data, None if w is None else w._data,
                                          None if pw is None else pw._data, reduction, dt)
    inputs = tuple(v for v in (x, t, w, pw) if v is not None)
    present = [v is not None for v in (x, t, w, pw)]
    kept = tuple(None if v is None else saved(v) for v in (x, t, w, pw))

    def rule(g, needs, out):
        full, k = [], 0
        for here in present:
            full.append(here and needs[k])
            k += here
        if _mode.enabled:  # create_graph: the same gradients with ember ops, recorded in turn
            grads = _bce_logits_grads(g, *kept, reduction, full, dt)
        else:
            grads = be.nn_bce_logits_grads(g._data, saved_kernel)
        res = []
        for v, gr, here, need in zip(kept, grads, present, full):
            if not here:
                continue
            if not need:
                res.append(None)
            elif _mode.enabled:
                res.append(fit(gr, v))
            else:
                res.append(wrap(be.cast(be.sum_to_shape(gr, tuple(v.shape)), v._dtype),
                                v._dtype))
        return tuple(res)

    return record(loss, dt, inputs, rule, op)


def _bce_logits_grads(g, x, t, w, pw, reduction, needs, dt):
    """The gradients of binary_cross_entropy_with_logits at the broadcast shape with ember ops:
    (x, target, weight, pos_weight), each None unless ``needs`` it. With ``ls = logsigmoid(x)``
    and ``lw = 1 + (pos_weight - 1) t``: ``((1 - t) - lw sigmoid(-x)) w``, ``(-x - (pos_weight
    - 1) ls) w``, ``(1 - t) x - lw ls`` and ``-t ls w``, each times the loss gradient."""
    work = _work(dt)
    xw, tw = _cast(x, work), _cast(t, work)
    ww = None if w is None else _cast(w, work)
    pww = None if pw is None else _cast(pw, work)
    ax = xw.abs()
    ls = (xw - ax) * 0.5 - (-ax).exp().log1p()                  # min(x, 0) - log1p(exp(-|x|))
    lw = 1.0 if pww is None else (pww - 1.0) * tw + 1.0
    raw = (1.0 - tw) * xw - ls * lw
    shape = tuple(xw.shape)  # weight and pos_weight broadcast to it
    scale = _scale(_cast(g, work), reduction, float(_prod(shape)), shape)
    wscale = scale if ww is None else scale * ww
    gx = gt = gw = gpw = None
    if needs[0]:
        gx = ((1.0 - tw) - (ls - xw).exp() * lw) * wscale
    if needs[1]:
        gt = (-xw if pww is None else -xw - (pww - 1.0) * ls) * wscale
    if needs[2]:
        gw = raw * scale
    if needs[3]:
        gpw = -tw * ls * wscale
    return gx, gt, gw, gpw
