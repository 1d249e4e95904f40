"""2-D pooling: ``max_pool2d``, ``max_unpool2d``, ``avg_pool2d`` (``ember.nn.functional``)."""

from .. import dtypes as _dt
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError

from .._tensor import Tensor, as_tensor, check_tensor, record, wrap
from .masking import where as _where
from .nn_args import _backend, _float_tensor, _int, _pair, _rank, _shape_str


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
    geo = (tuple(x.shape), kernel, stride, pads, dil, out_hw)

    def rule(g, needs, o):
        return (_max_pool_backward(g, saved, geo),)

    res = record(out, x._dtype, (x,), rule, op)
    if not return_indices:
        return res
    return res, wrap(be.nn_max_pool2d_indices(saved), _dt.int64)


def _max_pool_backward(g, saved, geo):
    """max_pool2d's backward as an op of its own (the backend's kernel): each window's gradient
    scattered to the element it selected. Linear in ``g`` with the selection fixed (max pooling
    has no second derivative): its rule gathers ``gg`` at the selected elements."""
    be = g._device.backend

    def rule(gg, needs, out):
        return (_max_pool_gather(gg, be.nn_max_pool2d_indices(saved), geo),)
    return record(be.nn_max_pool2d_grad(g._data, saved), g._dtype, (g,), rule,
                  "max_pool2d_backward")


def _max_pool_gather(v, idx, geo):
    """``v`` (the input's shape) read at the flat plane indices ``idx`` (a backend array of the
    output's shape) that max pooling selected; 0 for a window with no tap inside the input."""
    xshape, kernel, stride, pads, dil, out_hw = geo
    H, W = xshape[-2:]
    lead = xshape[:-2]
    it = wrap(idx, _dt.int64).reshape(lead + (out_hw[0] * out_hw[1],))
    inside = [[any(0 <= o * stride[a] - pads[2 * a] + k * dil[a] < size for k in range(kernel[a]))
               for o in range(out_hw[a])] for a, size in enumerate((H, W))]
    mask = None
    if not (all(inside[0]) and all(inside[1])):
        mask = as_tensor([[r and c for c in inside[1]] for r in inside[0]], _dt.bool_)
        if mask._device is not v._device:
            mask = mask.to_device(v._device)
        it = _where(mask.reshape(-1), it, 0)
    r = v.reshape(lead + (H * W,)).gather(-1, it).reshape(lead + tuple(out_hw))
    return r if mask is None else _where(mask, r, 0.0).cast(v._dtype)


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
    out = be.nn_max_unpool2d(x._data, indices._data, out_hw)
    it = wrap(indices._data, indices._dtype)
    xshape = tuple(x.shape)

    def rule(g, needs, o):
        return (_max_unpool_backward(g, it, xshape),)

    return record(out, x._dtype, (x,), rule, op)


def _max_unpool_backward(g, idx, xshape):
    """max_unpool2d's backward as an op of its own (the backend's kernel): ``g`` gathered at
    ``idx`` (int, the input's shape). Its rule adds ``gg`` back in at the indices."""
    be = g._device.backend
    gshape = tuple(g.shape)

    def rule(gg, needs, out):
        lead = gshape[:-2]
        n = xshape[-2] * xshape[-1]
        z = Tensor.zeros(lead + (gshape[-2] * gshape[-1],), dtype=gg._dtype, device=gg._device)
        r = z.scatter(-1, idx.reshape(lead + (n,)).cast(_dt.int64),
                      gg.reshape(lead + (n,)), "add")
        return (r.reshape(gshape),)
    return record(be.nn_max_unpool2d_grad(g._data, idx._data), g._dtype, (g,), rule,
                  "max_unpool2d_backward")


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
    return _avg_pool(x, (kernel, stride, pads, pad, out_hw, count_include_pad, divisor_override))


def _avg_pool(x, geo):
    """avg_pool2d of ``x`` with the checked geometry ``geo`` (the backend's kernel), recorded
    with its rule: the backend's backward kernel, an op of its own."""
    be = x._device.backend
    out, saved = be.nn_avg_pool2d(x._data, *geo)

    def rule(g, needs, o):
        return (_avg_pool_backward(g, saved, geo),)
    return record(out, x._dtype, (x,), rule, "avg_pool2d")


def _avg_pool_backward(g, saved, geo):
    """avg_pool2d's backward (each window's gradient, divided, spread over it): the backend's
    kernel, recorded. It is the adjoint of the linear avg_pool2d, so its rule is avg_pool2d."""
    be = g._device.backend

    def rule(gg, needs, out):
        return (_avg_pool(gg, geo),)
    return record(be.nn_avg_pool2d_grad(g._data, saved), g._dtype, (g,), rule,
                  "avg_pool2d_backward")
