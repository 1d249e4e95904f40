"""2-D convolution (``ember.nn.functional.conv2d``, ``nn.Conv2d``)."""

from ..errors import InvalidParameterError, ShapeMismatchError

from .._tensor import record, saved
from .nn_args import _backend, _common, _float_tensor, _int, _opt_float, _pair, _rank, _shape_str


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
    inputs = (x, w) if b is None else (x, w, b)
    geo = (stride, pads, dilation, groups, out_hw)
    xs, ws = saved(x), saved(w)
    bdt = None if b is None else b._dtype

    def rule(g, needs, out):
        # one call of the fused kernel gives all gradients from the forward's saved columns;
        # each is recorded as an op of its own with its rule (so they differentiate again)
        nb = len(needs) > 2 and needs[2]
        gx, gw, gb = be.nn_conv2d_grads(g._data, saved_, needs[0], needs[1], nb, xs._dtype,
                                        ws._dtype, bdt)
        return (_conv_input_grad(g, ws, xs, geo, gx) if needs[0] else None,
                _conv_weight_grad(xs, g, ws, geo, gw) if needs[1] else None) + \
            ((_conv_bias_grad(g, bdt, gb) if nb else None,) if len(needs) > 2 else ())

    out, saved_ = be.nn_conv2d(x._data, w._data, None if b is None else b._data, stride, pads,
                               dilation, groups, out_hw, dt)
    return record(out, dt, inputs, rule, op)


# The gradients of conv2d as ops of their own, each with its rule, so that they differentiate
# again. With ``conv(x, w)`` the cross-correlation, ``A(g, w)`` the gradient of its input (a
# transposed convolution of g with the weight) and ``B(x, g)`` that of its weight (a
# correlation of the input with g), all three are bilinear and
# ``<conv(x, w), g> = <x, A(g, w)> = <w, B(x, g)>``, so:
# d<A(g, w), gg> = (conv(gg, w), B(gg, g)) and d<B(x, g), gg> = (A(g, gg), conv(x, gg)).
# Each runs the backend's kernels: conv2d and its fused gradient kernel; ``like`` is a tensor
# of the shape and dtype of the operand that is not given (only its layout is read).

def _as(t, dtype):
    return t if t._dtype is dtype else t.cast(dtype)


def _conv_grads(x, w, g, geo, need_x, need_w):
    """(A(g, w), B(x, g)) as arrays, from the backend's conv2d and its gradient kernel."""
    stride, pads, dilation, groups, out_hw = geo
    be = g._device.backend
    dt = _common((x, w))
    sv = be.nn_conv2d_saved(x._data, w._data, stride, pads, dilation, groups, out_hw, dt, need_w)
    gx, gw, _ = be.nn_conv2d_grads(g._data, sv, need_x, need_w, False, x._dtype, w._dtype, None)
    return gx, gw


def _conv(x, w, geo):
    """conv(x, w) without bias, recorded with its rule (A(g, w), B(x, g))."""
    stride, pads, dilation, groups, out_hw = geo
    be = x._device.backend
    dt = _common((x, w))
    out, _ = be.nn_conv2d(x._data, w._data, None, stride, pads, dilation, groups, out_hw, dt)
    xs, ws = saved(x), saved(w)

    def rule(g, needs, out):
        return (_conv_input_grad(g, ws, xs, geo) if needs[0] else None,
                _conv_weight_grad(xs, g, ws, geo) if needs[1] else None)
    return record(out, dt, (x, w), rule, "conv2d")


def _conv_input_grad(g, w, like, geo, data=None):
    """A(g, w): the gradient of conv2d's input (shape and dtype of ``like``)."""
    if data is None:
        data = _conv_grads(like, w, g, geo, True, False)[0]
    gs, ws = saved(g), saved(w)

    def rule(gg, needs, out):
        return (_as(_conv(gg, ws, geo), gs._dtype) if needs[0] else None,
                _conv_weight_grad(gg, gs, ws, geo) if needs[1] else None)
    return record(data, like._dtype, (g, w), rule, "conv2d_input_backward")


def _conv_weight_grad(x, g, like, geo, data=None):
    """B(x, g): the gradient of conv2d's weight (shape and dtype of ``like``)."""
    if data is None:
        data = _conv_grads(x, like, g, geo, False, True)[1]
    xs, gs = saved(x), saved(g)

    def rule(gg, needs, out):
        return (_conv_input_grad(gs, gg, xs, geo) if needs[0] else None,
                _as(_conv(xs, gg, geo), gs._dtype) if needs[1] else None)
    return record(data, like._dtype, (x, g), rule, "conv2d_weight_backward")


def _conv_bias_grad(g, dtype, data):
    """The bias gradient, ``g`` summed over every dim but the channels', from the fused kernel;
    its rule spreads ``gg`` back over those dims."""
    shape = tuple(g.shape)
    gdt = g._dtype
    lead = 1 if len(shape) == 4 else 0

    def rule(gg, needs, out):
        r = gg.reshape((shape[lead], 1, 1)).expand(*shape)
        return (_as(r, gdt),)
    return record(data, dtype, (g,), rule, "conv2d_bias_backward")
