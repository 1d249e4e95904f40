"""Normalization layers' ops: ``batch_norm`` and ``layer_norm`` (``ember.nn.functional``)."""

from ..errors import InvalidParameterError, ShapeMismatchError

from .. import dtypes as _dt
from ..autodiff.graph import _mode
from .._tensor import record, saved as _saved, wrap
from .nn_args import _backend, _common, _float_tensor, _int, _opt_float, _real, _shape_str


# -- normalization ------------------------------------------------------------------------------

def _record_norm(out, dt, x, w, b, grads_kernel, saved, op, geo, restore=None):
    """Record a normalization step with optional affine ``w`` and ``b``; ``grads_kernel(g, saved,
    need_x, need_w, need_b, x_dtype, w_dtype, b_dtype)`` gives the three gradients.

    The rule runs the fused kernel when its results are not recorded (a first-order backward);
    under ``create_graph`` it is the same gradient written with ember ops (``_norm_grads``, with
    the geometry ``geo``), so that it differentiates again. ``restore()``, when given, gives
    the value of ``x`` back from what the kernel saved (a Tensor): the step then keeps no
    reference to ``x``'s buffer (only its graph node), so it holds no more memory than the
    kernel's saved values."""
    inputs = ((x, w, b) if w is not None and b is not None else
              tuple([t for t in (x, w, b) if t is not None]))
    dts = (x._dtype, None if w is None else w._dtype, None if b is None else b._dtype)
    has_w, has_b = w is not None, b is not None
    xs = _saved(x)
    if restore is not None:
        xs._data = None  # the node only: the value is restored when needed
    ws = None if w is None else _saved(w)

    def rule(g, needs, o):
        nw = has_w and needs[1]
        nb = has_b and needs[len(needs) - 1]
        if _mode.enabled:  # create_graph: the rule is recorded in turn
            xv = xs
            if restore is not None:
                xv = _saved(xs)
                xv._data = restore()._data
            gx, gw, gb = _norm_grads(g, xv, ws, needs[0], nw, nb, geo, dt, dts)
        else:
            gx, gw, gb = (None if a is None else wrap(a, d) for a, d in zip(
                grads_kernel(g._data, saved, needs[0], nw, nb, *dts), dts))
        return (gx,) + ((gw,) if has_w else ()) + ((gb,) if has_b else ())

    return record(out, dt, inputs, rule, op)


def _norm_grads(g, x, w, need_x, need_w, need_b, geo, dt, dts):
    """(gx, gw, gb) of ``(x - mean) * rstd * w + b`` with ember ops. ``geo`` = (axes, waxes,
    wview, mean, var, eps): the statistics reduce ``axes``; ``w`` and ``b`` (reshaped to
    ``wview``) broadcast over ``waxes``; ``mean`` and ``var`` are constant tensors (eval batch
    norm) or None for the statistics of ``x`` itself, whose gradient
    ``rstd * (gy - mean(gy) - xhat * mean(gy * xhat))`` (``gy = g * w``) they add."""
    axes, waxes, wview, mean, var, eps = geo
    work = _dt.float32 if dt in (_dt.float16, _dt.bfloat16) else dt
    xw = _cast(x, work)
    gw_ = _cast(g, work)
    batch = mean is None
    if batch:
        mean = xw.mean(axes, keepdim=True)
        xc = xw - mean
        var = (xc * xc).mean(axes, keepdim=True)
    else:
        xc = xw - _cast(mean, work)
        var = _cast(var, work)
    rstd = (var + eps).rsqrt()
    xhat = xc * rstd
    gx = gw = gb = None
    if need_b:
        gb = _cast(gw_.sum(waxes), dts[2])
    if need_w:
        gw = _cast((gw_ * xhat).sum(waxes), dts[1])
    if need_x:
        gy = gw_ if w is None else gw_ * _cast(w, work).reshape(wview)
        if batch:
            gx = rstd * (gy - gy.mean(axes, keepdim=True)
                         - xhat * (gy * xhat).mean(axes, keepdim=True))
        else:
            gx = gy * rstd
        gx = _cast(gx, dts[0])
    return gx, gw, gb


def _cast(t, dtype):
    return t if t._dtype is dtype else t.cast(dtype)


def _batch_norm(x, running_mean, running_var, weight, bias, use_batch, eps, op):
    """The recorded batch-norm step; returns (out, batch_mean, batch_var_unbiased) with the batch
    statistics as backend arrays (None when the running ones are used)."""
    w, b = weight, bias
    dt = _common((x, w, b))
    be = _backend((x, w, b, running_mean, running_var), op)
    out, saved, mean, var = be.nn_batch_norm(
        x._data, None if w is None else w._data, None if b is None else b._data,
        None if running_mean is None else running_mean._data,
        None if running_var is None else running_var._data, use_batch, eps, dt)
    nd = x.ndim
    view = (1, x.shape[1]) + (1,) * (nd - 2)
    axes = (0,) + tuple(range(2, nd))
    stats = (None, None) if use_batch else (
        wrap(running_mean._data, running_mean._dtype).reshape(view),
        wrap(running_var._data, running_var._dtype).reshape(view))
    geo = (axes, axes, view) + stats + (eps,)
    shape, xdt = tuple(x.shape), x._dtype
    center = mean if use_batch else running_mean._data

    def restore():
        # x = xhat / invstd + mean, from the kernel's saved (xhat (N, C, L), invstd (C,), ...)
        # and the mean it normalized with
        xhat, invstd = saved[0], saved[1]
        wdt = be.dtype_of(xhat)
        c = wrap(center, be.dtype_of(center)).cast(wdt).reshape((-1, 1))
        xv = wrap(xhat, wdt) / wrap(invstd, wdt).reshape((-1, 1)) + c
        return xv.reshape(shape).cast(xdt)

    rec = _record_norm(out, dt, x, w, b, be.nn_batch_norm_grads, saved, op, geo, restore)
    return rec, mean, var


def _check_bn(op, input, running_mean, running_var, weight, bias, training, eps):
    x = _float_tensor(input, op, "input")
    if x.ndim < 2:
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected at least 2 dims (N, C, ...)",
            expected=2, actual=tuple(x.shape))
    C = x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None:
            _float_tensor(t, op, name)
            if tuple(t.shape) != (C,):
                raise ShapeMismatchError(
                    f"{op}: {name} has shape {_shape_str(t.shape)}; expected ({C},) for input "
                    f"of shape {_shape_str(x.shape)} with {C} channels", expected=(C,),
                    actual=tuple(t.shape))
    if not isinstance(training, bool):
        raise InvalidParameterError(f"{op}: training must be a bool, got {training!r}",
                                    "training", training)
    eps = _real(eps, op, "eps", 0.0)
    if training and C and x.numel() == C:  # (an empty batch is fine, as in PyTorch)
        raise ShapeMismatchError(
            f"{op}: expected more than 1 value per channel when training, got input of shape "
            f"{_shape_str(x.shape)}", expected="more than 1 value per channel",
            actual=tuple(x.shape))
    if not training and (running_mean is None or running_var is None):
        raise InvalidParameterError(
            f"{op}: running_mean and running_var are needed when training=False",
            "running_mean", None)
    return x, eps


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization over every dim but dim 1 (PyTorch's ``F.batch_norm``).

    ``training=True`` normalizes with the batch statistics, else with ``running_mean`` and
    ``running_var``. Returns the output only: the running statistics are never changed
    (``momentum`` is accepted for PyTorch's signature); ``nn.BatchNorm2d`` tracks them.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.tensor([[1.0], [3.0]])
    >>> F.batch_norm(x, None, None, training=True, eps=0.0).tolist()
    [[-1.0], [1.0]]
    """
    op = "batch_norm"
    x, eps = _check_bn(op, input, running_mean, running_var, weight, bias, training, eps)
    if momentum is not None:
        _real(momentum, op, "momentum", 0.0, 1.0)
    return _batch_norm(x, running_mean, running_var, weight, bias, training, eps, op)[0]


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the last dims given by ``normalized_shape``, then ``* weight + bias``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.layer_norm(ember.tensor([[1.0, 3.0]]), (2,), eps=0.0).tolist()
    [[-1.0, 1.0]]
    """
    op = "layer_norm"
    x = _float_tensor(input, op, "input")
    shape = _norm_shape(normalized_shape, op)
    k = len(shape)
    xs = x._data.shape  # (not x.shape: an ember.torch tensor's is a torch.Size, sliced slowly)
    if len(xs) < k or tuple(xs[len(xs) - k:]) != shape:
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected (*, "
            f"{', '.join(str(s) for s in shape)}) to match normalized_shape {_shape_str(shape)}",
            expected=shape, actual=tuple(x.shape))
    w = _opt_float(weight, op, "weight")
    b = _opt_float(bias, op, "bias")
    for name, t in (("weight", w), ("bias", b)):
        if t is not None and tuple(t._data.shape) != shape:
            raise ShapeMismatchError(f"{op}: {name} has shape {_shape_str(t.shape)}; expected "
                                     f"{_shape_str(shape)}", expected=shape,
                                     actual=tuple(t.shape))
    eps = _real(eps, op, "eps", 0.0)
    dt = _common((x, w, b))
    be = _backend((x, w, b), op)
    out, saved = be.nn_layer_norm(x._data, None if w is None else w._data,
                                  None if b is None else b._data, k, eps, dt)
    nd = len(xs)
    axes = _LAST_AXES.get((nd, k))
    if axes is None:  # (at most MAX_RANK ** 2 pairs)
        axes = _LAST_AXES[nd, k] = (tuple(range(nd - k, nd)), tuple(range(nd - k)))
    geo = (axes[0], axes[1], shape, None, None, eps)
    return _record_norm(out, dt, x, w, b, be.nn_layer_norm_grads, saved, op, geo)


_LAST_AXES = {}  # (rank, k) -> (the last k dims, the others): layer norm's axes


def _norm_shape(normalized_shape, op):
    if isinstance(normalized_shape, (tuple, list)):
        shape = tuple([_int(s, op, "normalized_shape", 0) for s in normalized_shape])
    else:
        shape = (_int(normalized_shape, op, "normalized_shape", 0),)
    if not shape:
        raise InvalidParameterError(f"{op}: normalized_shape is empty; expected at least one dim",
                                    "normalized_shape", normalized_shape)
    return shape
