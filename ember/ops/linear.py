"""The affine map ``linear`` (``ember.nn.functional.linear``, ``nn.Linear``)."""

import math

from .. import dtypes as _dt
from ..autodiff.graph import _mode
from ..errors import ShapeMismatchError
from .._tensor import Tensor, record, saved, wrap
from .linalg import _product
from .views import reshape_exact as _reshape
from .nn_args import _backend, _common, _float_tensor, _opt_float, _shape_str


# -- linear -------------------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: ``input`` (*, in), ``weight`` (out, in), ``bias`` (out,).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.tensor([[1.0, 2.0]])
    >>> w = ember.tensor([[1.0, 1.0], [0.0, 1.0], [2.0, 0.0]])
    >>> F.linear(x, w, ember.tensor([0.0, 0.0, 1.0])).tolist()
    [[3.0, 2.0, 3.0]]
    """
    return _linear(input, weight, bias, "linear")


def _linear(input, weight, bias, op):
    if (isinstance(input, Tensor) and isinstance(weight, Tensor) and weight.ndim == 2
            and (bias is None or isinstance(bias, Tensor))):
        dt = input._dtype  # the common case, checked in one pass: one float dtype, one device
        device = input._device
        if (dt.kind == "float" and weight._dtype is dt and weight._device is device
                and input.ndim and input._data.shape[-1] == weight._data.shape[1]
                and (bias is None or (bias._dtype is dt and bias._device is device
                                      and bias._data.shape == weight._data.shape[:1]))):
            return _linear_step(input, weight, bias, dt, device, op)
    x = _float_tensor(input, op, "input")
    w = _float_tensor(weight, op, "weight")
    b = _opt_float(bias, op, "bias")
    if w.ndim != 2:
        raise ShapeMismatchError(f"{op}: weight has shape {_shape_str(w.shape)}; expected a 2-d "
                                 "(out_features, in_features) tensor", expected=2,
                                 actual=tuple(w.shape))
    O, I = w.shape
    if x.ndim == 0 or x.shape[-1] != I:
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected (*, {I}) (the last dim must "
            f"be in_features={I})", expected=(I,), actual=tuple(x.shape))
    if b is not None and tuple(b.shape) != (O,):
        raise ShapeMismatchError(f"{op}: bias has shape {_shape_str(b.shape)}; expected ({O},)",
                                 expected=(O,), actual=tuple(b.shape))
    dt = _common((x, w, b))
    device = x._device
    if w._device is not device or (b is not None and b._device is not device):
        _backend((x, w, b), op)  # raises DeviceError
    return _linear_step(x, w, b, dt, device, op)


def _linear_step(x, w, b, dt, device, op):
    out = device.backend.nn_linear(x._data, w._data, None if b is None else b._data, dt)
    inputs = (x, w) if b is None else (x, w, b)
    tracked = x._node is not None or w._node is not None or (b is not None and b._node is not None)
    if not tracked or not _mode.enabled:
        return record(out, dt, inputs, None, op)  # nothing to differentiate: no rule to build
    return record(out, dt, inputs, _linear_rule(saved(x), saved(w), b), op)


def _linear_rule(xs, ws, b):
    bdt = None if b is None else b._dtype

    def rule(g, needs, out):
        be = g._device.backend
        dt = g._dtype
        if (not _mode.enabled and xs._dtype is dt and ws._dtype is dt
                and bdt in (None, dt) and dt.kind == "float" and dt.itemsize >= 4
                and g._ad == xs._ad == ws._ad):
            return _linear_grads(be, g, xs, ws, needs)
        # the GEMMs of the backward as ember matmuls: gx = g @ w, gw = g2^T @ x2, gb = sum(g2)
        if g._dtype is not _dt.float32 and g._dtype is not _dt.float64:
            g = g.cast(_dt.float32)  # the half floats compute in float32, as the forward
        gx = gw = gb = None
        if needs[0]:
            gx = _as(_product(g, ws, be), xs._dtype)
        if needs[1] or (len(needs) > 2 and needs[2]):
            O, I = ws.shape
            rows = 1
            for n in g.shape[:-1]:
                rows *= n
            g2 = _reshape(g, (rows, O))
            if needs[1]:
                gw = _as(_product(g2.mT, _reshape(xs, (rows, I)), be), ws._dtype)
            if len(needs) > 2 and needs[2]:
                gb = _as(g2.sum(0), bdt)
        return (gx, gw) if len(needs) == 2 else (gx, gw, gb)
    return rule


def _linear_grads(be, g, xs, ws, needs):
    """The rule's first-order step for an input of the weight's float32/float64 dtype: the
    kernels the ember ops of the general path call (so the same values), on the arrays."""
    dt, ad, ga = g._dtype, g._ad, g._data
    gx = gw = gb = None
    if needs[0]:
        gx = wrap(be.linalg_matmul(ga, ws._data, op="matmul"), dt, ad)
    if needs[1] or (len(needs) > 2 and needs[2]):
        O, I = ws.shape
        rows = math.prod(ga.shape[:-1])
        g2 = ga if tuple(ga.shape) == (rows, O) else be.mv_reshape(ga, (rows, O), "reshape")
        if needs[1]:
            x2 = xs._data
            if tuple(x2.shape) != (rows, I):
                x2 = be.mv_reshape(x2, (rows, I), "reshape")
            gw = wrap(be.linalg_matmul(be.mv_permute(g2, [1, 0]), x2, op="matmul"), dt, ad)
        if len(needs) > 2 and needs[2]:
            gb = wrap(be.reduce_sum(g2, (0,), False, dt), dt, ad)
    return (gx, gw) if len(needs) == 2 else (gx, gw, gb)


def _as(g, dtype):
    return g if g._dtype is dtype else g.cast(dtype)

