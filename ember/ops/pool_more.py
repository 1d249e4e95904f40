"""PyTorch's other pooling functions: 1-D max and average pooling (2-D pooling of height 1,
ember/ops/pool.py), adaptive average pooling (a matmul with the constant averaging matrix of
each spatial dim), adaptive max pooling (a gather of each window and a max, with PyTorch's
indices) and power-average (LP) pooling.

>>> import ember
>>> import ember.nn.functional as F
>>> F.adaptive_avg_pool2d(ember.arange(16.0).reshape(1, 1, 4, 4), 1).tolist()
[[[[7.5]]]]
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, ShapeMismatchError
from .creation import tensor
from .conv_more import _single
from .nn_args import _float_tensor, _int, _pair, _rank, _real, _shape_str
from .pool import _avg_pool2d, _max_pool2d

__all__ = ["max_pool1d", "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
           "adaptive_max_pool2d_with_indices", "lp_pool1d", "lp_pool2d"]


def _rows(x, op, nd):
    x = _float_tensor(x, op, "input")
    _rank(x, (nd + 1, nd + 2), op, "(N, C, L) or (C, L)" if nd == 1 else
          "(N, C, H, W) or (C, H, W)")
    return x


def _opt_single(stride, op):
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        return None
    return (1, _single(stride, op, "stride", 1))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each window of a (N, C, L) or (C, L) input, PyTorch's ``F.max_pool1d`` (see
    ``F.max_pool2d``); ``return_indices=True`` also returns the int64 positions in L.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.max_pool1d(ember.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[3.0, 2.0]]
    """
    op = "max_pool1d"
    x = _rows(input, op, 1)
    k = _single(kernel_size, op, "kernel_size", 1)
    out = _max_pool2d(op, x.unsqueeze(-2), (1, k), _opt_single(stride, op),
                      (0, _single(padding, op, "padding", 0)),
                      (1, _single(dilation, op, "dilation", 1)), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool1d(..., return_indices=True)``: ``(output, indices)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.max_pool1d_with_indices(ember.tensor([[1.0, 3.0]]), 2)[1].tolist()
    [[1]]
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool2d(..., return_indices=True)``: ``(output, indices)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.max_pool2d_with_indices(ember.tensor([[[1.0, 3.0]]]), (1, 2))[1].tolist()
    [[[1]]]
    """
    return _max_pool2d("max_pool2d_with_indices", input, kernel_size, stride, padding,
                       dilation, ceil_mode, True)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over each window of a (N, C, L) or (C, L) input, PyTorch's ``F.avg_pool1d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.avg_pool1d(ember.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[2.0, 1.0]]
    """
    op = "avg_pool1d"
    x = _rows(input, op, 1)
    k = _single(kernel_size, op, "kernel_size", 1)
    out = _avg_pool2d(op, x.unsqueeze(-2), (1, k), _opt_single(stride, op),
                      (0, _single(padding, op, "padding", 0)), ceil_mode, count_include_pad,
                      None)
    return out.squeeze(-2)


def _out_sizes(output_size, shape, op, nd):
    """The adaptive output size: ints >= 0 (None keeps the input's size)."""
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * nd
    if len(sizes) != nd:
        raise InvalidParameterError(
            f"{op}: output_size {output_size!r} must be an int or {nd} ints (or None)",
            "output_size", output_size)
    return tuple(s if s is None else _int(s, op, "output_size", 0) for s in sizes), \
        tuple(shape[i] if s is None else s for i, s in enumerate(sizes))


def _windows(n, o):
    """PyTorch's adaptive windows of a dim of size ``n`` into ``o``: [floor(i*n/o),
    ceil((i+1)*n/o))."""
    return [((i * n) // o, -((-(i + 1) * n) // o)) for i in range(o)]


def _averaging(n, o, x):
    rows = [[0.0] * n for _ in range(o)]
    for i, (a, b) in enumerate(_windows(n, o)):
        for j in range(a, b):
            rows[i][j] = 1.0 / (b - a)
    return tensor(rows, dtype=x.dtype, device=x.device).reshape((o, n))


def _adaptive_avg(op, input, output_size, nd):
    x = _rows(input, op, nd)
    _, sizes = _out_sizes(output_size, x.shape[-nd:], op, nd)
    if any(n == 0 for n in x.shape[-nd:]):
        raise ShapeMismatchError(f"{op}: input {_shape_str(x.shape)} has an empty spatial dim",
                                 expected="non-empty", actual=tuple(x.shape))
    if nd == 1:
        return x.matmul(_averaging(x.shape[-1], sizes[0], x).mT)
    ah = _averaging(x.shape[-2], sizes[0], x)
    aw = _averaging(x.shape[-1], sizes[1], x)
    return ah.matmul(x).matmul(aw.mT)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of a (N, C, L) or (C, L) input to ``output_size`` positions, PyTorch's
    ``F.adaptive_avg_pool1d`` (window ``i`` spans ``[floor(i*L/o), ceil((i+1)*L/o))``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_avg_pool1d(ember.tensor([[1.0, 2.0, 3.0]]), 2).tolist()
    [[1.5, 2.5]]
    """
    return _adaptive_avg("adaptive_avg_pool1d", input, output_size, 1)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling of a (N, C, H, W) or (C, H, W) input to ``output_size`` (an int, or a
    pair whose None entries keep the input's size), PyTorch's ``F.adaptive_avg_pool2d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_avg_pool2d(ember.ones(2, 3, 5, 7), (None, 1)).shape
    (2, 3, 5, 1)
    """
    return _adaptive_avg("adaptive_avg_pool2d", input, output_size, 2)


def _window_index(n, o, device):
    """(o, kmax) int64 positions of each window, short windows repeating their last."""
    wins = _windows(n, o)
    kmax = max(b - a for a, b in wins)
    rows = [[min(a + j, b - 1) for j in range(kmax)] for a, b in wins]
    return tensor(rows, dtype=_dt.int64, device=device).reshape((o, kmax))


def _adaptive_max(op, input, output_size, nd, return_indices):
    if not isinstance(return_indices, bool):
        raise InvalidParameterError(f"{op}: return_indices must be a bool, got "
                                    f"{return_indices!r}", "return_indices", return_indices)
    x = _rows(input, op, nd)
    _, sizes = _out_sizes(output_size, x.shape[-nd:], op, nd)
    if any(n == 0 for n in x.shape[-nd:]):
        raise ShapeMismatchError(f"{op}: input {_shape_str(x.shape)} has an empty spatial dim",
                                 expected="non-empty", actual=tuple(x.shape))
    W = x.shape[-1]
    iw = _window_index(W, sizes[-1], x.device)
    if nd == 1:
        r = x[..., iw].max(dim=-1)          # (*, ow, kw) -> (*, ow)
        out, arg = r.values, r.indices
        return (out, _pick(iw, arg)) if return_indices else out
    H = x.shape[-2]
    ih = _window_index(H, sizes[0], x.device)
    rows = x[..., ih, :].max(dim=-2)      # (*, oh, kh, W) -> (*, oh, W)
    cols = rows.values[..., iw].max(dim=-1)  # (*, oh, ow, kw) -> (*, oh, ow)
    out = cols.values
    if not return_indices:
        return out
    col = _pick(iw, cols.indices)                          # (*, oh, ow): the input column
    row_in_win = rows.indices.gather(-1, col)              # (*, oh, ow): its row in the window
    row = _pick(ih, row_in_win, across=-2)
    return out, row * W + col


def _pick(windows, arg, across=-1):
    """``windows[o, arg[..., o(, j)]]``: the input position of each window's pick, ``o`` the
    output position along dim ``across`` (negative: the dims after it are trailing output
    dims)."""
    o, k = windows.shape
    lead = (1,) * (arg.ndim + across)
    w = windows.reshape(lead + (o,) + (1,) * (-across - 1) + (k,))
    return w.expand(*arg.shape, k).gather(-1, arg.unsqueeze(-1)).squeeze(-1)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling of a (N, C, L) or (C, L) input to ``output_size`` positions, PyTorch's
    ``F.adaptive_max_pool1d``; ``return_indices=True`` also returns the int64 positions.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_max_pool1d(ember.tensor([[1.0, 4.0, 3.0]]), 2).tolist()
    [[4.0, 4.0]]
    """
    return _adaptive_max("adaptive_max_pool1d", input, output_size, 1, return_indices)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d(..., return_indices=True)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_max_pool1d_with_indices(ember.tensor([[1.0, 4.0, 3.0]]), 1)[1].tolist()
    [[1]]
    """
    return _adaptive_max("adaptive_max_pool1d", input, output_size, 1, True)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling of a (N, C, H, W) or (C, H, W) input to ``output_size``, PyTorch's
    ``F.adaptive_max_pool2d``; the indices are flat positions in the H*W plane.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_max_pool2d(ember.arange(9.0).reshape(1, 3, 3), 1, True)[1].tolist()
    [[[8]]]
    """
    return _adaptive_max("adaptive_max_pool2d", input, output_size, 2, return_indices)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d(..., return_indices=True)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_max_pool2d_with_indices(ember.ones(1, 2, 2), 1)[0].tolist()
    [[[1.0]]]
    """
    return _adaptive_max("adaptive_max_pool2d", input, output_size, 2, True)


def _lp(op, x, pooled, norm_type, count):
    # PyTorch's formula: (sign(s) * relu(|s|) * count) ** (1/p), s the mean of x ** p
    return (pooled.sign() * pooled.abs().relu() * count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling ``(sum of x ** p over the window) ** (1/p)``, PyTorch's
    ``F.lp_pool1d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.lp_pool1d(ember.tensor([[3.0, 4.0]]), 2, 2).tolist()
    [[5.0]]
    """
    op = "lp_pool1d"
    x = _rows(input, op, 1)
    p = _real(norm_type, op, "norm_type")
    k = _single(kernel_size, op, "kernel_size", 1)
    s = avg_pool1d(x.pow(p), k, stride, 0, ceil_mode)
    return _lp(op, x, s, p, k)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 2-D windows, PyTorch's ``F.lp_pool2d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.lp_pool2d(ember.tensor([[[3.0, 4.0]]]), 2, (1, 2)).tolist()
    [[[5.0]]]
    """
    op = "lp_pool2d"
    x = _rows(input, op, 2)
    p = _real(norm_type, op, "norm_type")
    kh, kw = _pair(kernel_size, op, "kernel_size", 1)
    s = _avg_pool2d(op, x.pow(p), (kh, kw), stride, 0, ceil_mode, True, None)
    return _lp(op, x, s, p, kh * kw)

