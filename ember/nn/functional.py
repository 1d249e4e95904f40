"""ember.nn.functional: the stateless neural-network ops, PyTorch's ``torch.nn.functional``.

Import it as ``import ember.nn.functional as F``. Every op here checks its arguments first,
computes through one backend kernel and records its own gradient rule (``log_softmax``,
``cross_entropy``, ``conv2d`` ... are single recorded steps, not chains of small ops).

Inputs of the layer ops (linear, conv, pools, norms, losses) must be float tensors (KindError
otherwise); a float input meeting float weights of another dtype computes in the promoted dtype,
and each gradient comes back in its own input's dtype. Activations follow ember's rule for float
math: int inputs compute in the default float dtype, bool inputs raise KindError.

Tensors are immutable, so ``batch_norm`` returns the normalized output only: it never updates
running statistics in place (``nn.BatchNorm1d``/``BatchNorm2d`` keep and rebind them).

>>> import ember
>>> import ember.nn.functional as F
>>> F.softmax(ember.tensor([[0.0, 0.0]]), dim=1).tolist()
[[0.5, 0.5]]
"""

import math

from .. import dtypes as _dt
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import broadcast_shapes, normalize_dim
from ..ops.random import _gen
from .init import _random
from ..tensor import _adopt_device, check_tensor, device_error, record, wrap

__all__ = [
    "relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax",
    "linear", "conv2d", "max_pool2d", "max_unpool2d", "avg_pool2d", "batch_norm", "layer_norm",
    "dropout", "embedding",
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy_with_logits",
    "pad", "one_hot", "scaled_dot_product_attention",
]

REDUCTIONS = ("none", "mean", "sum")


# -- argument checks ----------------------------------------------------------------------------

def _float_tensor(x, op, param="input"):
    """``x`` itself; InvalidParameterError unless a Tensor, KindError unless a float one."""
    check_tensor(x, op, param)
    if x._dtype.kind != "float":
        if x._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
            raise _dt.complex_error(op, param, x._dtype)
        raise KindError(f"{op}: {param} has dtype {x._dtype.name}; expected a float tensor "
                        f"(cast it with .float())")
    return x


def _opt_float(x, op, param):
    return None if x is None else _float_tensor(x, op, param)


def _float_math(x, op, param="input"):
    """A float tensor for float math: floats as they are, ints in the default float dtype."""
    check_tensor(x, op, param)
    kind = x._dtype.kind
    if kind == "float":
        return x
    if kind == "int":
        return x.cast(_dt.default_float)
    if kind == "complex":  # docs/complex.md: nn takes real tensors only
        raise _dt.complex_error(op, param, x._dtype)
    raise KindError(f"{op}: not defined for bool tensors ({param}); expected a float or int "
                    "tensor")


def _backend(tensors, op):
    """The backend of the given tensors (None entries skipped; the first is a tensor);
    DeviceError naming two devices that differ."""
    first = tensors[0]
    device = first._device
    for t in tensors:
        if t is not None and t._device is not device:
            raise device_error(op, first, t)
    return device.backend


def _common(tensors):
    """The promoted float dtype of the given tensors (None entries skipped)."""
    dt = None
    for t in tensors:
        if t is not None:
            dt = t._dtype if dt is None else _dt.promote_types(dt, t._dtype)
    return dt


def _int(value, op, param, low=None):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InvalidParameterError(
            f"{op}: {param} must be an int, got {type(value).__name__} {value!r}", param, value)
    value = value.__index__()
    if low is not None and value < low:
        raise InvalidParameterError(f"{op}: {param} is {value}; expected an int >= {low}",
                                    param, value)
    return value


def _pair(value, op, param, low):
    """An int or a pair of ints, each >= ``low``, as a tuple of two ints."""
    cls = type(value)
    if cls is int and value >= low:  # the common spellings, checked in a few operations
        return value, value
    if cls is tuple and len(value) == 2 and type(value[0]) is int is type(value[1]) and \
            value[0] >= low and value[1] >= low:
        return value
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise InvalidParameterError(
                f"{op}: {param} {tuple(value)!r} must be an int or a pair of ints", param, value)
        out = tuple(_int(v, op, param) for v in value)
    else:
        v = _int(value, op, param)
        out = (v, v)
    for v in out:
        if v < low:
            raise InvalidParameterError(
                f"{op}: {param} is {value!r}; expected ints >= {low}", param, value)
    return out


def _real(value, op, param, low=None, high=None):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        item = getattr(value, "item", None)
        if item is None or isinstance(value, bool):
            raise InvalidParameterError(
                f"{op}: {param} must be a real number, got {type(value).__name__} {value!r}",
                param, value)
        held = value
        value = item()
        if isinstance(value, complex):  # a complex 0-d tensor: no real number to take
            raise _dt.complex_error(op, param, held.dtype)
    value = float(value)
    if math.isnan(value) or (low is not None and value < low) or (
            high is not None and value > high):
        rng = f"in [{low}, {high}]" if high is not None else f">= {low}" if low is not None \
            else "that is not NaN"
        raise InvalidParameterError(f"{op}: {param} is {value}; expected a number {rng}",
                                    param, value)
    return value


def _reduction(reduction, op):
    if reduction not in REDUCTIONS:
        raise InvalidParameterError(
            f"{op}: reduction {reduction!r} is unknown; expected 'none', 'mean' or 'sum'",
            "reduction", reduction)
    return reduction


def _shape_str(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _rank(x, ranks, op, what, param="input"):
    if x.ndim not in ranks:
        want = " or ".join(f"{r}-d" for r in ranks)
        raise ShapeMismatchError(
            f"{op}: {param} has shape {_shape_str(x.shape)} ({x.ndim}-d); expected a {want} "
            f"tensor {what}", expected=what, actual=tuple(x.shape))


def _softmax_dim(x, dim, op):
    nd = x.ndim
    if dim is None:
        return 0 if nd in (0, 1, 3) else 1  # PyTorch's implicit choice
    if nd == 0:
        d = normalize_dim(dim, 1, op)
        return d
    return normalize_dim(dim, nd, op)


# -- activations --------------------------------------------------------------------------------

def relu(input):
    """``max(input, 0)`` elementwise (PyTorch's ``F.relu``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.relu(ember.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    check_tensor(input, "relu", "input")
    if input._dtype.kind != "float":
        if input._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
            raise _dt.complex_error("relu", "input", input._dtype)
        return input.relu()  # ints keep their dtype; bools raise Tensor.relu's KindError
    xd = input._data
    be = input._device.backend
    return record(be.nn_relu(xd), input._dtype, (input,), _relu_backward((xd,), None, be),
                  "relu", _RELU_RECOMPUTE)


def _relu_forward(x):
    return _backend_of_array(x).nn_relu(x)


def _relu_backward(arrays, out, be=None):
    x = arrays[0]
    if be is None:
        be = _backend_of_array(x)
    return lambda g, needs: (be.nn_relu_grad(g, x),)


def _backend_of_array(a):
    """The backend of a backend array (the recompute path of checkpointing gets arrays only)."""
    return _adopt_device(a).backend


# under the "balanced" checkpointing strategy relu keeps no arrays and recomputes in backward
_RELU_RECOMPUTE = (_relu_forward, _relu_backward)


def sigmoid(input):
    """The logistic function ``1 / (1 + exp(-input))``, stable for large ``|input|``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.sigmoid(ember.tensor([0.0])).tolist()
    [0.5]
    """
    check_tensor(input, "sigmoid", "input")
    if input._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
        raise _dt.complex_error("sigmoid", "input", input._dtype)
    return input.sigmoid()


def tanh(input):
    """The hyperbolic tangent elementwise.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.tanh(ember.tensor([0.0])).tolist()
    [0.0]
    """
    check_tensor(input, "tanh", "input")
    if input._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
        raise _dt.complex_error("tanh", "input", input._dtype)
    return input.tanh()


def gelu(input, approximate="none"):
    """GELU: ``x * Phi(x)`` with the exact normal CDF (``approximate="none"``, through erf) or
    its tanh approximation (``approximate="tanh"``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.gelu(ember.tensor([-1.0, 0.0, 1.0])).tolist()]
    [-0.1587, 0.0, 0.8413]
    >>> round(F.gelu(ember.tensor(1.0), approximate="tanh").item(), 4)
    0.8412
    """
    op = "gelu"
    if approximate not in ("none", "tanh"):
        raise InvalidParameterError(
            f"{op}: approximate {approximate!r} is unknown; expected 'none' or 'tanh'",
            "approximate", approximate)
    x = _float_math(input, op)
    xd = x._data
    be = x._device.backend

    def backward(g, needs):
        return (be.nn_gelu_grad(g, xd, approximate),)

    return record(be.nn_gelu(xd, approximate), x._dtype, (x,), backward, op)


def silu(input):
    """SiLU (swish): ``x * sigmoid(x)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.silu(ember.tensor([-1.0, 0.0, 1.0])).tolist()]
    [-0.2689, 0.0, 0.7311]
    """
    op = "silu"
    x = _float_math(input, op)
    xd = x._data
    be = x._device.backend

    def backward(g, needs):
        return (be.nn_silu_grad(g, xd),)

    return record(be.nn_silu(xd), x._dtype, (x,), backward, op)


def _softmax_like(input, dim, dtype, op, log):
    x = _float_math(input, op)
    if dtype is not None:
        want = _dt.as_dtype(dtype)
        if want.kind != "float":
            raise KindError(f"{op}: dtype {want.name} is not a float dtype; expected a float "
                            "dtype", )
        x = x.cast(want)
    axis = _softmax_dim(x, dim, op)
    xd = x._data
    be = x._device.backend
    scalar = x.ndim == 0
    rs = be.nn_reshape
    if scalar:
        xd = rs(xd, (1,))
    out = be.nn_log_softmax(xd, axis) if log else be.nn_softmax(xd, axis)
    if scalar:
        out = rs(out, ())

    def backward(g, needs):
        gg, yy = (rs(g, (1,)), rs(out, (1,))) if scalar else (g, out)
        r = be.nn_log_softmax_grad(gg, yy, axis) if log else be.nn_softmax_grad(gg, yy, axis)
        return (rs(r, ()) if scalar else r,)

    return record(out, x._dtype, (x,), backward, op)


def softmax(input, dim=None, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably (the max is subtracted first).

    ``dim=None`` picks PyTorch's implicit dim (0 for 0-, 1- and 3-d inputs, else 1); ``dtype``
    casts the input first. As in PyTorch, a slice holding +inf or NaN, or only -inf, is NaN
    throughout, and so is its gradient (also for ``log_softmax`` and ``cross_entropy``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.softmax(ember.tensor([1000.0, 1000.0]), dim=0).tolist()
    [0.5, 0.5]
    >>> F.softmax(ember.tensor([float("inf"), 0.0]), dim=0).tolist()
    [nan, nan]
    """
    return _softmax_like(input, dim, dtype, "softmax", False)


def log_softmax(input, dim=None, dtype=None):
    """``x - log(sum(exp(x)))`` along ``dim``, computed stably; one recorded op whose gradient is
    ``g - softmax * sum(g)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.log_softmax(ember.tensor([0.0, 0.0]), dim=0).tolist()]
    [-0.6931, -0.6931]
    """
    return _softmax_like(input, dim, dtype, "log_softmax", True)


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

    return record(out, dt, inputs, backward, op)


# -- convolution --------------------------------------------------------------------------------

def _conv_padding(padding, op):
    """(kind, pair): kind "same", "valid" or "explicit"."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise InvalidParameterError(
                f"{op}: padding {padding!r} is unknown; expected an int, a pair of ints, "
                "'same' or 'valid'", "padding", padding)
        return padding, (0, 0)
    return "explicit", _pair(padding, op, "padding", 0)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation, PyTorch's ``F.conv2d``: ``input`` (N, C, H, W) or (C, H, W),
    ``weight`` (O, C/groups, kh, kw), ``bias`` (O,).

    ``stride``, ``dilation`` (ints >= 1) and ``padding`` (ints >= 0) take an int or a pair;
    ``padding="same"`` keeps the size (stride 1 only; odd totals put the extra row and column at
    the bottom and right), ``"valid"`` is no padding. Computed through im2col: the windows are a
    strided view of the padded input and one matmul contracts them; the gradient is one matmul
    and a col2im over the kernel positions.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.conv2d(x, ember.ones(1, 1, 2, 2), stride=2).tolist()
    [[[[10.0, 18.0], [42.0, 50.0]]]]
    """
    return _conv2d("conv2d", input, weight, bias, stride, padding, dilation, groups)


def _conv2d(op, input, weight, bias, stride, padding, dilation, groups, padding_mode="zeros"):
    x = _float_tensor(input, op, "input")
    w = _float_tensor(weight, op, "weight")
    b = _opt_float(bias, op, "bias")
    stride = _pair(stride, op, "stride", 1)
    dilation = _pair(dilation, op, "dilation", 1)
    pkind, pad = _conv_padding(padding, op)
    groups = _int(groups, op, "groups", 1)
    if w.ndim != 4:
        raise ShapeMismatchError(
            f"{op}: weight has shape {_shape_str(w.shape)}; expected a 4-d (out_channels, "
            "in_channels/groups, kh, kw) tensor", expected=4, actual=tuple(w.shape))
    O, Cg, kh, kw = w.shape
    if O % groups:
        raise InvalidParameterError(
            f"{op}: groups={groups} does not divide out_channels={O} (weight shape "
            f"{_shape_str(w.shape)})", "groups", groups)
    C = Cg * groups
    _rank(x, (3, 4), op, f"(N, {C}, H, W) or ({C}, H, W)")
    cdim = x.ndim - 3
    if x.shape[cdim] != C:
        want = (f"(N, {C}, H, W)" if x.ndim == 4 else f"({C}, H, W)")
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)} with {x.shape[cdim]} channels; "
            f"expected {want}: weight {_shape_str(w.shape)} with groups={groups} takes {C} "
            "input channels", expected=C, actual=tuple(x.shape))
    if b is not None and tuple(b.shape) != (O,):
        raise ShapeMismatchError(f"{op}: bias has shape {_shape_str(b.shape)}; expected ({O},)",
                                 expected=(O,), actual=tuple(b.shape))
    H, W = x.shape[-2:]
    eh, ew = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    if pkind == "same":
        if stride != (1, 1):
            raise InvalidParameterError(
                f"{op}: padding='same' needs stride 1, got stride={stride}", "padding", padding)
        th, tw = eh - 1, ew - 1
        pads = (th // 2, th - th // 2, tw // 2, tw - tw // 2)
    else:
        pads = (pad[0], pad[0], pad[1], pad[1])
    if padding_mode != "zeros" and any(pads):
        mode = {"reflect": "reflect", "replicate": "edge", "circular": "circular"}[padding_mode]
        x = x.pad(((pads[0], pads[1]), (pads[2], pads[3])), mode)
        H, W = x.shape[-2:]
        pads = (0, 0, 0, 0)
    Hp, Wp = H + pads[0] + pads[1], W + pads[2] + pads[3]
    if Hp < eh or Wp < ew or kh == 0 or kw == 0:
        raise ShapeMismatchError(
            f"{op}: input of spatial size ({H}, {W}) (padded: ({Hp}, {Wp})) is smaller than the "
            f"effective kernel size ({eh}, {ew}); expected a larger input or more padding",
            expected=(eh, ew), actual=(Hp, Wp))
    out_hw = ((Hp - eh) // stride[0] + 1, (Wp - ew) // stride[1] + 1)
    dt = _common((x, w, b))
    be = _backend((x, w, b), op)
    out, saved = be.nn_conv2d(x._data, w._data, None if b is None else b._data, stride, pads,
                              dilation, groups, out_hw, dt)
    inputs = (x, w) if b is None else (x, w, b)
    xdt, wdt, bdt = x._dtype, w._dtype, (None if b is None else b._dtype)

    def backward(g, needs):
        gx, gw, gb = be.nn_conv2d_grads(g, saved, needs[0], needs[1],
                                        len(needs) > 2 and needs[2], xdt, wdt, bdt)
        return (gx, gw) if b is None else (gx, gw, gb)

    return record(out, dt, inputs, backward, op)


# -- pooling ------------------------------------------------------------------------------------

def _pool_args(op, x, kernel_size, stride, padding, dilation, ceil_mode):
    x = _float_tensor(x, op, "input")
    kernel = _pair(kernel_size, op, "kernel_size", 1)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _pair(stride, op, "stride", 1)
    pad = _pair(padding, op, "padding", 0)
    dil = _pair(dilation, op, "dilation", 1)
    if not isinstance(ceil_mode, bool):
        raise InvalidParameterError(f"{op}: ceil_mode must be a bool, got {ceil_mode!r}",
                                    "ceil_mode", ceil_mode)
    for p, k in zip(pad, kernel):
        if p > k // 2:
            raise InvalidParameterError(
                f"{op}: padding {padding!r} is more than half the kernel size {kernel}; expected "
                f"padding <= kernel_size // 2", "padding", padding)
    _rank(x, (3, 4), op, "(N, C, H, W) or (C, H, W)")
    H, W = x.shape[-2:]
    out_hw, pads = [], [pad[0], pad[0], pad[1], pad[1]]
    for a, size in enumerate((H, W)):
        k, s, p, d = kernel[a], stride[a], pad[a], dil[a]
        eff = d * (k - 1) + 1
        n = size + 2 * p - eff + (s - 1 if ceil_mode else 0)
        o = n // s + 1 if n >= 0 else 0
        if ceil_mode and o > 0 and (o - 1) * s >= size + p:
            o -= 1
        if o < 1:
            raise ShapeMismatchError(
                f"{op}: input of spatial size ({H}, {W}) is too small for kernel_size={kernel}, "
                f"stride={stride}, padding={pad}, dilation={dil}; the output would be empty",
                expected=kernel, actual=(H, W))
        out_hw.append(o)
        need = (o - 1) * s + eff - (size + p)
        pads[2 * a + 1] = max(p, need)
    return x, kernel, stride, pad, dil, tuple(pads), tuple(out_hw)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each ``kernel_size`` window (PyTorch's ``F.max_pool2d``); ``stride`` defaults to
    ``kernel_size``; padding counts as -inf and is at most half the kernel.

    Each window selects one element, as PyTorch's CPU kernel does: its first maximum in
    row-major kernel order, or its last NaN when it has NaNs (the output is then NaN); taps in
    the padding are never selected. The gradient of the window goes to that element, and
    ``return_indices=True`` returns ``(output, indices)``: its flat index into the input's
    H*W plane, int64, as PyTorch. (A window with no tap inside the input, possible with
    dilation, outputs -inf and its gradient is dropped; PyTorch writes it into a neighbouring
    plane.)

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.max_pool2d(x, 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    >>> out, idx = F.max_pool2d(ember.tensor([[[3.0, 1.0, 3.0, 2.0]]]), (1, 2),
    ...                         return_indices=True)
    >>> out.tolist(), idx.tolist(), idx.dtype
    ([[[3.0, 3.0]]], [[[0, 2]]], ember.int64)
    """
    return _max_pool2d("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode,
                       return_indices)


def _max_pool2d(op, input, kernel_size, stride, padding, dilation, ceil_mode,
                return_indices=False):
    if not isinstance(return_indices, bool):
        raise InvalidParameterError(f"{op}: return_indices must be a bool, got "
                                    f"{return_indices!r}", "return_indices", return_indices)
    x, kernel, stride, pad, dil, pads, out_hw = _pool_args(
        op, input, kernel_size, stride, padding, dilation, ceil_mode)
    be = x._device.backend
    out, saved = be.nn_max_pool2d(x._data, kernel, stride, pads, dil, out_hw)

    def backward(g, needs):
        return (be.nn_max_pool2d_grad(g, saved),)

    res = record(out, x._dtype, (x,), backward, op)
    if not return_indices:
        return res
    return res, wrap(be.nn_max_pool2d_indices(saved), _dt.int64)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d(..., return_indices=True)`` (PyTorch's
    ``F.max_unpool2d``): zeros with each value of ``input`` put at its flat plane index in
    ``indices`` (int, the input's shape). The output's spatial size is
    ``(H - 1) * stride - 2 * padding + kernel_size`` per dim, or ``output_size`` ((H, W) or
    (N, C, H, W), of which the last two count; each strictly within ``stride`` of that size).
    Where indices repeat (overlapping windows), the last value in row-major order is kept
    (PyTorch leaves that unspecified); the gradient reads the output gradient at every index,
    as PyTorch's.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.tensor([[[[1.0, 5.0], [3.0, 2.0]]]])
    >>> out, idx = F.max_pool2d(x, 2, return_indices=True)
    >>> F.max_unpool2d(out, idx, 2).tolist()
    [[[[0.0, 5.0], [0.0, 0.0]]]]
    """
    op = "max_unpool2d"
    x = _float_tensor(input, op, "input")
    check_tensor(indices, op, "indices")
    if indices._dtype.kind != "int":
        raise KindError(f"{op}: indices has dtype {indices._dtype.name}; expected an int tensor "
                        "(the indices of max_pool2d(..., return_indices=True))")
    kernel = _pair(kernel_size, op, "kernel_size", 1)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _pair(stride, op, "stride", 1)
    pad = _pair(padding, op, "padding", 0)
    _rank(x, (3, 4), op, "(N, C, H, W) or (C, H, W)")
    if tuple(indices.shape) != tuple(x.shape):
        raise ShapeMismatchError(
            f"{op}: indices has shape {_shape_str(indices.shape)}; expected the input's shape "
            f"{_shape_str(x.shape)}", expected=tuple(x.shape), actual=tuple(indices.shape))
    H, W = x.shape[-2:]
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip((H, W), stride, pad, kernel))
    if output_size is None:
        out_hw = default
    else:
        if not isinstance(output_size, (tuple, list)) or len(output_size) not in (2, 4):
            raise InvalidParameterError(
                f"{op}: output_size {output_size!r} must be a sequence of 2 ints (H, W) or 4 "
                "ints (N, C, H, W), as PyTorch", "output_size", output_size)
        out_hw = tuple(_int(v, op, "output_size") for v in output_size[-2:])
        for d, s, o in zip(default, stride, out_hw):
            if not d - s < o < d + s:
                raise InvalidParameterError(
                    f"{op}: output_size {tuple(output_size)!r} is not a possible size; expected "
                    f"each of the last two entries strictly between {default[0] - stride[0]} "
                    f"and {default[0] + stride[0]} (H), {default[1] - stride[1]} and "
                    f"{default[1] + stride[1]} (W)", "output_size", output_size)
    if min(out_hw) < 0 or (x.numel() and min(out_hw) == 0):
        raise ShapeMismatchError(
            f"{op}: the output's spatial size would be {out_hw}; expected a positive size "
            "(check kernel_size, stride and padding)", expected="a positive size",
            actual=out_hw)
    be = _backend((x, indices), op)
    bad = be.nn_index_bad(indices._data, out_hw[0] * out_hw[1])
    if bad is not None:
        raise DimensionError(f"{op}: index {bad} is out of range for an output plane of "
                             f"{out_hw[0]}x{out_hw[1]}; expected indices in "
                             f"[0, {out_hw[0] * out_hw[1] - 1}]")
    idx = indices._data
    out = be.nn_max_unpool2d(x._data, idx, out_hw)

    def backward(g, needs):
        return (be.nn_max_unpool2d_grad(g, idx),)

    return record(out, x._dtype, (x,), backward, op)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over each ``kernel_size`` window (PyTorch's ``F.avg_pool2d``, same divisors:
    zero padding counts unless ``count_include_pad=False``; ``divisor_override`` replaces it).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.avg_pool2d(x, 2).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    return _avg_pool2d("avg_pool2d", input, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override)


def _avg_pool2d(op, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override):
    x, kernel, stride, pad, _, pads, out_hw = _pool_args(
        op, input, kernel_size, stride, padding, 1, ceil_mode)
    if not isinstance(count_include_pad, bool):
        raise InvalidParameterError(
            f"{op}: count_include_pad must be a bool, got {count_include_pad!r}",
            "count_include_pad", count_include_pad)
    if divisor_override is not None:
        divisor_override = _int(divisor_override, op, "divisor_override", 1)
    be = x._device.backend
    out, saved = be.nn_avg_pool2d(x._data, kernel, stride, pads, pad, out_hw, count_include_pad,
                                  divisor_override)

    def backward(g, needs):
        return (be.nn_avg_pool2d_grad(g, saved),)

    return record(out, x._dtype, (x,), backward, op)


# -- normalization ------------------------------------------------------------------------------

def _record_norm(out, dt, x, w, b, grads_kernel, saved, op):
    """Record a normalization step with optional affine ``w`` and ``b``; ``grads_kernel(g, saved,
    need_x, need_w, need_b, x_dtype, w_dtype, b_dtype)`` gives the three gradients."""
    inputs = tuple(t for t in (x, w, b) if t is not None)
    xdt = x._dtype
    wdt = None if w is None else w._dtype
    bdt = None if b is None else b._dtype

    def backward(g, needs):
        nw = w is not None and needs[1]
        nb = b is not None and needs[len(needs) - 1]
        gx, gw, gb = grads_kernel(g, saved, needs[0], nw, nb, xdt, wdt, bdt)
        return (gx,) + ((gw,) if w is not None else ()) + ((gb,) if b is not None else ())

    return record(out, dt, inputs, backward, op)


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
    return _record_norm(out, dt, x, w, b, be.nn_batch_norm_grads, saved, op), mean, var


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
    if x.ndim < k or tuple(x.shape[x.ndim - k:]) != shape:
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected (*, "
            f"{', '.join(str(s) for s in shape)}) to match normalized_shape {_shape_str(shape)}",
            expected=shape, actual=tuple(x.shape))
    w = _opt_float(weight, op, "weight")
    b = _opt_float(bias, op, "bias")
    for name, t in (("weight", w), ("bias", b)):
        if t is not None and tuple(t.shape) != shape:
            raise ShapeMismatchError(f"{op}: {name} has shape {_shape_str(t.shape)}; expected "
                                     f"{_shape_str(shape)}", expected=shape,
                                     actual=tuple(t.shape))
    eps = _real(eps, op, "eps", 0.0)
    dt = _common((x, w, b))
    be = _backend((x, w, b), op)
    out, saved = be.nn_layer_norm(x._data, None if w is None else w._data,
                                  None if b is None else b._data, k, eps, dt)
    return _record_norm(out, dt, x, w, b, be.nn_layer_norm_grads, saved, op)


def _norm_shape(normalized_shape, op):
    if isinstance(normalized_shape, (tuple, list)):
        shape = tuple(_int(s, op, "normalized_shape", 0) for s in normalized_shape)
    else:
        shape = (_int(normalized_shape, op, "normalized_shape", 0),)
    if not shape:
        raise InvalidParameterError(f"{op}: normalized_shape is empty; expected at least one dim",
                                    "normalized_shape", normalized_shape)
    return shape


# -- dropout, embedding -------------------------------------------------------------------------

def dropout(input, p=0.5, training=True):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` when
    ``training``; the input itself otherwise. Draws from ember's generator
    (``ember.manual_seed`` reproduces the mask).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.ones(4)
    >>> F.dropout(x, 0.5, training=False) is x
    True
    >>> sorted(set(F.dropout(x, 0.5).tolist()) - {0.0, 2.0})
    []
    """
    op = "dropout"
    check_tensor(input, op, "input")
    p = _real(p, op, "p", 0.0, 1.0)
    if not isinstance(training, bool):
        raise InvalidParameterError(f"{op}: training must be a bool, got {training!r}",
                                    "training", training)
    x = input
    if x._dtype.kind != "float":
        if x._dtype.kind == "complex":
            raise _dt.complex_error(op, "input", x._dtype)
        raise KindError(f"{op}: input has dtype {x._dtype.name}; expected a float tensor")
    if not training or p == 0.0:
        return x
    npd = x._dtype
    be = x._device.backend
    if p == 1.0:
        mask = be.nn_full_like_shape(tuple(x.shape), 0, npd)
        scale = 0.0
    else:
        mask = _random("random_bernoulli", (be, _gen(None, "dropout", x._device)), "dropout",
                       tuple(x.shape), 1.0 - p, npd)
        scale = 1.0 / (1.0 - p)
    out = be.nn_dropout_apply(x._data, mask, scale)

    def backward(g, needs):
        return (be.nn_dropout_apply(g, mask, scale),)

    return record(out, x._dtype, (x,), backward, op)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` (num, dim) picked by the int tensor ``input``: shape ``(*, dim)``;
    the row ``padding_idx`` gets no gradient (PyTorch's ``F.embedding``).

    ``max_norm`` (a number >= 0): first, each row that ``input`` picks and whose
    ``norm_type``-norm (a real number; ``inf`` for the largest absolute value) exceeds it is
    scaled by ``max_norm / (norm + 1e-7)``, as PyTorch. PyTorch writes that into the weight in
    place; ember's values are immutable, so ``weight`` (the same Tensor object) is *rebound* to
    the renormalized value, untracked, as an optimizer step rebinds a parameter: a leaf stays
    that leaf, tensors taken from it before keep the old values. ``scale_grad_by_freq`` divides
    each row's gradient by how often its index occurs in ``input``. ``sparse=True`` raises
    InvalidParameterError: ember has no sparse gradients.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> w = ember.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
    >>> F.embedding(ember.tensor([2, 1]), w).tolist()
    [[3.0, 4.0], [1.0, 2.0]]
    >>> [round(v, 4) for v in F.embedding(ember.tensor([2]), w, max_norm=1.0)[0].tolist()]
    [0.6, 0.8]
    >>> [round(v, 4) for v in w[2].tolist()]          # w was rebound: row 2 renormalized
    [0.6, 0.8]
    """
    op = "embedding"
    check_tensor(input, op, "input")
    if input._dtype.kind != "int":
        raise KindError(f"{op}: input has dtype {input._dtype.name}; expected an int tensor of "
                        "indices")
    w = _float_tensor(weight, op, "weight")
    if w.ndim != 2:
        raise ShapeMismatchError(f"{op}: weight has shape {_shape_str(w.shape)}; expected a 2-d "
                                 "(num_embeddings, embedding_dim) tensor", expected=2,
                                 actual=tuple(w.shape))
    num = w.shape[0]
    if padding_idx is not None:
        padding_idx = _int(padding_idx, op, "padding_idx")
        if not -num <= padding_idx < num:
            raise InvalidParameterError(
                f"{op}: padding_idx {padding_idx} is out of range for {num} embeddings; expected "
                f"an int in [{-num}, {num - 1}]", "padding_idx", padding_idx)
        padding_idx %= num
    if max_norm is not None:
        max_norm = _real(max_norm, op, "max_norm", 0.0)
    norm_type = _real(norm_type, op, "norm_type")
    for name, flag in (("scale_grad_by_freq", scale_grad_by_freq), ("sparse", sparse)):
        if not isinstance(flag, bool):
            raise InvalidParameterError(f"{op}: {name} must be a bool, got {flag!r}", name, flag)
    if sparse:
        raise InvalidParameterError(
            f"{op}: sparse=True is not supported: ember has no sparse gradients; expected "
            "sparse=False (the gradient of the weight is a dense tensor)", "sparse", sparse)
    idx = input._data
    be = _backend((w, input), op)
    bad = be.nn_target_bad(idx, num, None)
    if bad is not None:
        raise DimensionError(f"{op}: index {bad} is out of range for {num} embeddings; expected "
                             f"indices in [0, {num - 1}]")
    if max_norm is not None:
        renormed = be.nn_embedding_renorm(w._data, idx, max_norm, norm_type)
        if renormed is not None:
            w._data = renormed      # PyTorch's in-place renorm: rebinds, records nothing
    out = be.nn_embedding(w._data, idx)

    def backward(g, needs):
        return (be.nn_embedding_grad(g, idx, num, padding_idx, scale_grad_by_freq),)

    return record(out, w._dtype, (w,), backward, op)


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

    return record(loss, dt, (x,), backward, op)


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

    return record(loss, dt, (x, target), backward, op)


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

    return record(loss, dt, (x, t), backward, op)


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

    return record(loss, dt, inputs, backward, op)


# -- passthroughs -------------------------------------------------------------------------------

def pad(input, pad, mode="constant", value=None):
    """PyTorch's ``F.pad``: ``pad`` is a flat ``(left, right, top, bottom, ...)`` tuple, the last
    dim first; ``mode`` "constant", "reflect", "replicate" or "circular". ``Tensor.pad`` does
    the work.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.pad(ember.tensor([[1, 2]]), (1, 0), value=9).tolist()
    [[9, 1, 2]]
    """
    op = "pad"
    check_tensor(input, op, "input")
    if not isinstance(pad, (tuple, list)) or len(pad) % 2:
        raise InvalidParameterError(
            f"{op}: pad {pad!r} must be a flat tuple of (before, after) amounts, last dim first "
            "(an even number of ints)", "pad", pad)
    amounts = tuple(_int(v, op, "pad") for v in pad)
    if len(amounts) // 2 > input.ndim:
        raise InvalidParameterError(
            f"{op}: pad {amounts} pads {len(amounts) // 2} dims but the input has {input.ndim}",
            "pad", pad)
    pairs = [(amounts[2 * i], amounts[2 * i + 1]) for i in range(len(amounts) // 2)][::-1]
    return input.pad(pairs, mode, 0.0 if value is None else value)


def one_hot(tensor, num_classes=-1):
    """PyTorch's ``F.one_hot``: int64 one-hot codes in a new last dim; ``num_classes=-1`` takes
    one more than the largest class.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.one_hot(ember.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    op = "one_hot"
    check_tensor(tensor, op, "tensor")
    if tensor._dtype.kind != "int":
        raise KindError(f"{op}: tensor has dtype {tensor._dtype.name}; expected an int tensor "
                        "of class indices")
    num_classes = _int(num_classes, op, "num_classes", -1)
    if num_classes == -1:
        if tensor.numel() == 0:
            raise InvalidParameterError(
                f"{op}: cannot infer num_classes from an empty tensor; pass num_classes",
                "num_classes", num_classes)
        num_classes = tensor._device.backend.nn_int_max(tensor._data) + 1
    return tensor.cast(_dt.int64).one_hot(num_classes)


# -- attention ----------------------------------------------------------------------------------

def _attention_gqa(q, k, v, enable_gqa, op):
    """How many times each key and value head is repeated: (1, 1) without grouped-query
    attention, else Hq // Hk and Hq // Hv (each must divide Hq)."""
    if not enable_gqa:
        return 1, 1
    for name, t in (("query", q), ("key", k), ("value", v)):
        if t.ndim < 3:
            raise ShapeMismatchError(f"{op}: {name} has shape {_shape_str(t.shape)}; "
                                     "enable_gqa expects heads at dim -3 (*, H, L, E)",
                                     expected=3, actual=t.ndim)
    hq = q.shape[-3]
    groups = []
    for name, t in (("key", k), ("value", v)):
        h = t.shape[-3]
        if h == 0 or hq % h:
            raise ShapeMismatchError(f"{op}: {name} has {h} heads, which does not divide the "
                                     f"{hq} heads of query; expected a divisor of {hq}",
                                     expected=hq, actual=h)
        groups.append(hq // h)
    return tuple(groups)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key^T * scale + mask) @ value``, PyTorch's
    ``F.scaled_dot_product_attention``: query (*, L, E), key (*, S, E), value (*, S, Ev) give
    (*, L, Ev); the batch dims broadcast.

    ``attn_mask`` broadcasts to (*, L, S): a bool mask says where to attend (False: masked),
    a float mask of the query's dtype is added to the scores. ``is_causal`` masks the keys
    after each query (the top-left lower triangle of L x S) and excludes ``attn_mask``.
    ``scale`` defaults to ``1 / sqrt(E)``. A query whose every score is masked gets zeros, as
    PyTorch. ``dropout_p`` > 0 zeroes attention weights with that probability (always, as in
    PyTorch: pass ``dropout_p=0.0`` outside training) and scales the rest by ``1/(1-p)``; the
    mask comes from ember's generator and the backward pass uses the same one.
    ``enable_gqa`` repeats the key and value heads (dim -3) to the query's head count.

    One recorded step: the backward computes the gradients of query, key, value and of a
    float mask from the saved attention weights.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> q = ember.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> v = ember.tensor([[[1.0, 2.0], [3.0, 4.0]]])
    >>> F.scaled_dot_product_attention(q, q, v, is_causal=True)[0, 0].tolist()
    [1.0, 2.0]
    >>> mask = ember.tensor([[True, False], [True, False]])
    >>> F.scaled_dot_product_attention(q, q, v, attn_mask=mask).tolist()
    [[[1.0, 2.0], [1.0, 2.0]]]
    """
    op = "scaled_dot_product_attention"
    q = _float_tensor(query, op, "query")
    k = _float_tensor(key, op, "key")
    v = _float_tensor(value, op, "value")
    if k._dtype is not q._dtype or v._dtype is not q._dtype:
        raise KindError(f"{op}: query, key and value have dtypes {q._dtype.name}, "
                        f"{k._dtype.name} and {v._dtype.name}; expected one dtype")
    for name, t in (("query", q), ("key", k), ("value", v)):
        if t.ndim < 2:
            raise ShapeMismatchError(f"{op}: {name} has shape {_shape_str(t.shape)}; expected at "
                                     "least 2 dims (*, L, E)", expected=2, actual=t.ndim)
    E, S = q.shape[-1], k.shape[-2]
    if k.shape[-1] != E:
        raise ShapeMismatchError(f"{op}: key has shape {_shape_str(k.shape)} and query "
                                 f"{_shape_str(q.shape)}; expected the same last dim (E = {E})",
                                 expected=E, actual=k.shape[-1])
    if v.shape[-2] != S:
        raise ShapeMismatchError(f"{op}: value has shape {_shape_str(v.shape)} and key "
                                 f"{_shape_str(k.shape)}; expected the same dim -2 (S = {S})",
                                 expected=S, actual=v.shape[-2])
    p = _real(dropout_p, op, "dropout_p", 0.0, 1.0)
    for name, flag in (("is_causal", is_causal), ("enable_gqa", enable_gqa)):
        if flag is not True and flag is not False:
            raise InvalidParameterError(f"{op}: {name} must be a bool, got {flag!r}", name, flag)
    sc = None if scale is None else _real(scale, op, "scale")
    groups_k, groups_v = _attention_gqa(q, k, v, enable_gqa, op)

    def heads(shape, groups):
        return shape[:-3] + (shape[-3] * groups,) + shape[-2:] if groups != 1 else shape

    batch = broadcast_shapes(q.shape[:-2], heads(k.shape, groups_k)[:-2],
                             heads(v.shape, groups_v)[:-2], op=op)
    scores = batch + (q.shape[-2], S)
    bias = allowed = mask = None
    if attn_mask is not None:
        check_tensor(attn_mask, op, "attn_mask")
        if is_causal:
            raise InvalidParameterError(f"{op}: attn_mask is given and is_causal is True; "
                                        "expected one of them", "attn_mask", attn_mask.shape)
        if attn_mask._dtype.kind == "bool":
            allowed = attn_mask._data
        elif attn_mask._dtype is q._dtype:
            bias, mask = attn_mask._data, attn_mask
        else:
            raise KindError(f"{op}: attn_mask has dtype {attn_mask._dtype.name}; expected bool "
                            f"or the query's dtype {q._dtype.name}")
        try:
            fits = broadcast_shapes(attn_mask.shape, scores) == scores
        except ShapeMismatchError:
            fits = False
        if not fits:
            raise ShapeMismatchError(f"{op}: attn_mask has shape {_shape_str(attn_mask.shape)}; "
                                     f"expected a shape that broadcasts to the scores' "
                                     f"{_shape_str(scores)}", expected=scores,
                                     actual=tuple(attn_mask.shape))
    be = _backend((q, k, v, attn_mask), op)
    keep, keep_scale = None, 1.0
    if p > 0.0:
        work = q._dtype if q._dtype.name in ("float32", "float64") else _dt.float32
        if p == 1.0:
            keep, keep_scale = be.nn_full_like_shape(tuple(scores), 0, work), 0.0
        else:
            keep = _random("random_bernoulli",
                           (be, _gen(None, "scaled_dot_product_attention", q._device)),
                           "scaled_dot_product_attention", tuple(scores), 1.0 - p, work)
            keep_scale = 1.0 / (1.0 - p)
    if sc is None:
        sc = 1.0 / math.sqrt(E) if E else 1.0
    out, saved = be.nn_attention(q._data, k._data, v._data, bias, allowed, is_causal, sc,
                                 groups_k, groups_v, keep, keep_scale)
    inputs = (q, k, v) if mask is None else (q, k, v, mask)
    shapes = (q.shape, k.shape, v.shape, None if mask is None else mask.shape)

    def backward(g, needs):
        wants = tuple(needs) + (False,) * (4 - len(needs))
        grads = be.nn_attention_grads(g, saved, shapes, wants)
        return grads[:len(inputs)]

    return record(out, q._dtype, inputs, backward, op)
