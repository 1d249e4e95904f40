"""The affine map ``linear`` (``ember.nn.functional.linear``, ``nn.Linear``)."""

from ..errors import ShapeMismatchError

from ..tensor import record_arrays
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
    be = device.backend
    xd, wd = x._data, w._data
    out = be.nn_linear(xd, wd, None if b is None else b._data, dt)
    inputs = (x, w) if b is None else (x, w, b)
    bdt = None if b is None else b._dtype

    def backward(g, needs):
        gx, gw, gb = be.nn_linear_grads(g, xd, wd, needs[0], needs[1],
                                        len(needs) > 2 and needs[2], bdt)
        return (gx, gw) if b is None else (gx, gw, gb)

    return record_arrays(out, dt, inputs, backward, op)
