"""PyTorch's other convolutions, built on conv2d's kernels (ember/ops/conv.py): ``conv1d`` (a
conv2d of height 1), ``conv_transpose1d``/``conv_transpose2d`` (conv2d's input gradient, an op
whose own gradients are conv2d and its weight gradient, so they differentiate to any order),
and ``unfold``/``fold`` (a conv2d and a transposed conv2d with a constant one-hot weight).

>>> import ember
>>> import ember.nn.functional as F
>>> F.conv_transpose2d(ember.ones(1, 1, 2, 2), ember.ones(1, 1, 2, 2), stride=2).shape
(1, 1, 4, 4)
"""

from ..errors import InvalidParameterError, ShapeMismatchError
from .conv import _common, _conv2d, _conv_input_grad
from .creation import eye, zeros
from .nn_args import _float_tensor, _int, _opt_float, _pair, _rank, _shape_str

__all__ = ["conv1d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "unfold", "fold",
           "assert_int_or_pair"]


def _single(value, op, param, low):
    """An int or a 1-tuple of ints >= ``low`` as an int."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise InvalidParameterError(f"{op}: {param} {value!r} must be an int or a 1-tuple",
                                        param, value)
        value = value[0]
    return _int(value, op, param, low)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation, PyTorch's ``F.conv1d``: ``input`` (N, C, L) or (C, L), ``weight``
    (O, C/groups, k); ``padding`` an int, ``"same"`` or ``"valid"``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.conv1d(ember.arange(5.0).reshape(1, 1, 5), ember.ones(1, 1, 2)).tolist()
    [[[1.0, 3.0, 5.0, 7.0]]]
    """
    return _conv1d("conv1d", input, weight, bias, stride, padding, dilation, groups)


def _conv1d(op, input, weight, bias, stride, padding, dilation, groups, padding_mode="zeros"):
    x = _float_tensor(input, op, "input")
    w = _float_tensor(weight, op, "weight")
    _rank(x, (2, 3), op, "(N, C, L) or (C, L)")
    if w.ndim != 3:
        raise ShapeMismatchError(f"{op}: weight has shape {_shape_str(w.shape)}; expected a 3-d "
                                 "(out_channels, in_channels/groups, k) tensor", expected=3,
                                 actual=tuple(w.shape))
    s = _single(stride, op, "stride", 1)
    d = _single(dilation, op, "dilation", 1)
    p = padding if isinstance(padding, str) else (0, _single(padding, op, "padding", 0))
    out = _conv2d(op, x.unsqueeze(-2), w.unsqueeze(-2), bias, (1, s), p, (1, d), groups,
                  padding_mode)
    return out.squeeze(-2)


def conv_tbc(input, weight, bias, pad=0):
    """PyTorch's ``F.conv_tbc``: a 1-D convolution of a time-first (T, B, C_in) input with a
    (k, C_in, C_out) weight and a (C_out,) bias, ``pad`` zeros at both ends of T; the result
    is (T + 2 * pad - k + 1, B, C_out).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.conv_tbc(ember.ones(4, 1, 2), ember.ones(3, 2, 1), ember.zeros(1)).flatten().tolist()
    [6.0, 6.0]
    """
    op = "conv_tbc"
    x = _float_tensor(input, op)
    w = _float_tensor(weight, op, "weight")
    b = _float_tensor(bias, op, "bias")
    _rank(x, (3,), op, "(T, B, C_in)")
    if w.ndim != 3 or w.shape[1] != x.shape[2]:
        raise ShapeMismatchError(
            f"{op}: weight has shape {_shape_str(w.shape)}; expected (k, {x.shape[2]}, C_out) "
            f"for input {_shape_str(x.shape)}", expected=x.shape[2], actual=tuple(w.shape))
    out = _conv1d(op, x.permute((1, 2, 0)), w.permute((2, 1, 0)), b, 1,
                  _int(pad, op, "pad", 0), 1, 1)
    return out.permute((2, 0, 1))


def assert_int_or_pair(arg, arg_name, message):
    """PyTorch's ``F.assert_int_or_pair``: InvalidParameterError (``message`` formatted with
    ``arg_name``) unless ``arg`` is an int or a pair.

    >>> import ember.nn.functional as F
    >>> F.assert_int_or_pair((1, 2), "stride", "{} must be an int or a pair")
    """
    if isinstance(arg, bool) or not (isinstance(arg, int) or (
            isinstance(arg, (tuple, list)) and len(arg) == 2)):
        raise InvalidParameterError(str(message).format(arg_name), str(arg_name), arg)


def _transpose_geometry(op, x, w, stride, padding, output_padding, dilation, groups, nd,
                        output_size=None):
    """Checked arguments of a transposed convolution over the last ``nd`` dims."""
    spatial = "(N, C, L) or (C, L)" if nd == 1 else "(N, C, H, W) or (C, H, W)"
    _rank(x, (nd + 1, nd + 2), op, spatial)
    if w.ndim != nd + 2:
        raise ShapeMismatchError(
            f"{op}: weight has shape {_shape_str(w.shape)}; expected a {nd + 2}-d (in_channels, "
            "out_channels/groups, *kernel) tensor", expected=nd + 2, actual=tuple(w.shape))
    groups = _int(groups, op, "groups", 1)
    cin = x.shape[-nd - 1]
    if w.shape[0] != cin or cin % groups:
        raise ShapeMismatchError(
            f"{op}: input has {cin} channels but weight {_shape_str(w.shape)} with "
            f"groups={groups} expects {w.shape[0]} (divisible by groups)",
            expected=w.shape[0], actual=tuple(x.shape))
    if nd == 1:
        fix = (lambda v, name, low: (1 if low else 0, _single(v, op, name, low)))
        stride, dilation = fix(stride, "stride", 1), fix(dilation, "dilation", 1)
        padding, output_padding = fix(padding, "padding", 0), fix(output_padding,
                                                                 "output_padding", 0)
        padding = (0, padding[1])
        output_padding = (0, output_padding[1])
    else:
        stride, dilation = _pair(stride, op, "stride", 1), _pair(dilation, op, "dilation", 1)
        padding = _pair(padding, op, "padding", 0)
        output_padding = _pair(output_padding, op, "output_padding", 0)
    kernel = tuple(w.shape[-2:]) if nd == 2 else (1, w.shape[-1])
    size = tuple(x.shape[-2:]) if nd == 2 else (1, x.shape[-1])
    out = []
    for a in range(2):
        if output_padding[a] >= max(stride[a], dilation[a]):
            raise InvalidParameterError(
                f"{op}: output_padding {output_padding[a]} must be smaller than stride "
                f"{stride[a]} or dilation {dilation[a]}", "output_padding", output_padding)
        n = ((size[a] - 1) * stride[a] - 2 * padding[a] + dilation[a] * (kernel[a] - 1)
             + output_padding[a] + 1)
        if n < 1 and size[a] > 0:
            raise ShapeMismatchError(
                f"{op}: the output size would be {n}; expected a positive size (input "
                f"{_shape_str(x.shape)}, kernel {kernel}, stride {stride}, padding {padding})",
                expected=1, actual=n)
        out.append(n)
    return stride, padding, dilation, groups, tuple(out)


def _conv_transpose(x, w, b, stride, padding, dilation, groups, out_hw):
    """The transposed 2-D convolution of a 4-d ``x`` to spatial size ``out_hw``: the gradient
    of conv2d's input (``_conv_input_grad``, recorded with its own rule)."""
    dt = _common((x, w))
    n, cout = x.shape[0], w.shape[1] * groups
    H, W = out_hw
    kh, kw = w.shape[-2:]
    eff = (dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1)
    span = [(o + 2 * p - e) // s + 1 for o, p, e, s in zip(out_hw, padding, eff, stride)]
    extra = (span[0] - x.shape[2], span[1] - x.shape[3])
    if extra != (0, 0):  # output_padding >= stride (< dilation): windows the input lacks
        x = x.pad(((0, 0), (0, 0), (0, extra[0]), (0, extra[1])))
    if x.dtype != dt:
        x = x.cast(dt)
    if w.dtype != dt:
        w = w.cast(dt)
    like = zeros(n, cout, H, W, dtype=dt, device=x.device)
    geo = (stride, (padding[0], padding[0], padding[1], padding[1]), dilation, groups,
           tuple(span))
    out = _conv_input_grad(x, w, like, geo)
    if b is not None:
        out = out + b.reshape((cout, 1, 1))
    return out


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution, PyTorch's ``F.conv_transpose2d``: ``input`` (N, C, H, W) or
    (C, H, W), ``weight`` (C, O/groups, kh, kw); the output size is
    ``(H - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.conv_transpose2d(ember.ones(1, 1, 1, 2), ember.ones(1, 1, 1, 2)).tolist()
    [[[[1.0, 2.0, 1.0]]]]
    """
    return _conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-D convolution, PyTorch's ``F.conv_transpose1d``: ``input`` (N, C, L) or
    (C, L), ``weight`` (C, O/groups, k).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.conv_transpose1d(ember.ones(1, 1, 2), ember.ones(1, 1, 2), stride=2).tolist()
    [[[1.0, 1.0, 1.0, 1.0]]]
    """
    return _conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding,
                              output_padding, groups, dilation)


def _conv_transpose_nd(op, nd, input, weight, bias, stride, padding, output_padding, groups,
                       dilation, output_size=None):
    x = _float_tensor(input, op, "input")
    w = _float_tensor(weight, op, "weight")
    b = _opt_float(bias, op, "bias")
    stride, padding, dilation, groups, out_hw = _transpose_geometry(
        op, x, w, stride, padding, output_padding, dilation, groups, nd)
    cout = w.shape[1] * groups
    if b is not None and tuple(b.shape) != (cout,):
        raise ShapeMismatchError(f"{op}: bias has shape {_shape_str(b.shape)}; expected "
                                 f"({cout},)", expected=(cout,), actual=tuple(b.shape))
    if output_size is not None:
        out_hw = output_size
    unbatched = x.ndim == nd + 1
    if unbatched:
        x = x.unsqueeze(0)
    if nd == 1:
        x, w = x.unsqueeze(-2), w.unsqueeze(-2)
    out = _conv_transpose(x, w, b, stride, padding, dilation, groups, out_hw)
    if nd == 1:
        out = out.squeeze(-2)
    return out.squeeze(0) if unbatched else out


def _one_hot_kernel(channels, kernel, dtype, device):
    """(C*kh*kw, 1, kh, kw): filter ``c*kh*kw + j`` picks kernel position ``j``."""
    kh, kw = kernel
    k = eye(kh * kw, dtype=dtype, device=device).reshape((kh * kw, 1, kh, kw))
    return k.repeat((channels, 1, 1, 1)) if channels > 1 else k


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """PyTorch's ``F.unfold`` (im2col): the sliding ``kernel_size`` blocks of a (N, C, H, W)
    or (C, H, W) input as columns, (N, C*kh*kw, L).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.unfold(ember.arange(4.0).reshape(1, 1, 2, 2), 1).tolist()
    [[[0.0, 1.0, 2.0, 3.0]]]
    """
    op = "unfold"
    x = _float_tensor(input, op, "input")
    _rank(x, (3, 4), op, "(N, C, H, W) or (C, H, W)")
    kernel = _pair(kernel_size, op, "kernel_size", 1)
    c = x.shape[-3]
    w = _one_hot_kernel(c, kernel, x.dtype, x.device)
    cols = _conv2d(op, x, w, None, stride, padding, dilation, max(c, 1))
    return cols.flatten(-2, -1)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """PyTorch's ``F.fold`` (col2im), the adjoint of ``unfold``: sums (N, C*kh*kw, L) or
    (C*kh*kw, L) columns into a (N, C, *output_size) image.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.fold(ember.ones(1, 4, 1), (2, 2), 2).tolist()
    [[[[1.0, 1.0], [1.0, 1.0]]]]
    """
    op = "fold"
    x = _float_tensor(input, op, "input")
    _rank(x, (2, 3), op, "(N, C*kh*kw, L) or (C*kh*kw, L)")
    out_hw = _pair(output_size, op, "output_size", 1)
    kernel = _pair(kernel_size, op, "kernel_size", 1)
    dil, pad = _pair(dilation, op, "dilation", 1), _pair(padding, op, "padding", 0)
    st = _pair(stride, op, "stride", 1)
    kk = kernel[0] * kernel[1]
    rows = x.shape[-2]
    if rows % kk:
        raise ShapeMismatchError(
            f"{op}: input has {rows} rows (dim -2), not divisible by kh*kw = {kk}",
            expected=f"a multiple of {kk}", actual=tuple(x.shape))
    blocks = [(o + 2 * p - (d * (k - 1) + 1)) // s + 1
              for o, p, d, k, s in zip(out_hw, pad, dil, kernel, st)]
    if blocks[0] < 1 or blocks[1] < 1 or blocks[0] * blocks[1] != x.shape[-1]:
        raise ShapeMismatchError(
            f"{op}: input has {x.shape[-1]} blocks (dim -1); output_size {out_hw}, "
            f"kernel_size {kernel}, dilation {dil}, padding {pad} and stride {st} give "
            f"{max(blocks[0], 0) * max(blocks[1], 0)}", expected=blocks[0] * blocks[1],
            actual=x.shape[-1])
    unbatched = x.ndim == 2
    if unbatched:
        x = x.unsqueeze(0)
    c = rows // kk
    w = _one_hot_kernel(c, kernel, x.dtype, x.device)
    cols = x.reshape((x.shape[0], rows, blocks[0], blocks[1]))
    out = _conv_transpose(cols, w, None, st, pad, dil, max(c, 1), out_hw)
    return out.squeeze(0) if unbatched else out
