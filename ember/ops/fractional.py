"""PyTorch's fractional max pooling (``F.fractional_max_pool2d``/``3d``): windows of
``kernel_size`` at pseudo-random starts (PyTorch's interval formula, one sample per plane and
dim, from ``_random_samples`` or ember's generator), maxima taken one dim at a time by gather
and max, so the gradient is theirs.

>>> import ember
>>> import ember.nn.functional as F
>>> F.fractional_max_pool2d(ember.ones(1, 1, 5, 5), 2, output_size=3).shape
(1, 1, 3, 3)
"""

import struct

from .. import dtypes as _dt
from ..errors import InvalidParameterError, ShapeMismatchError
from .creation import tensor
from .nn_args import _float_tensor, _int, _rank, _real, _shape_str
from .random import rand

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]


def _f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def _intervals(sample, n, o, k, single):
    """PyTorch's ``generate_intervals``: the window starts of one dim (float32 arithmetic for
    float32 inputs)."""
    r = _f32 if single else float
    seq = [0] * o
    if o > 1:
        alpha = r(r(n - k) / r(o - 1))
        base = int(r(sample * alpha))
        for i in range(o - 1):
            seq[i] = int(r(r(i + sample) * alpha)) - base
    if o > 0:
        seq[-1] = n - k
    return seq


def _fractional(op, input, kernel_size, output_size, output_ratio, return_indices,
                samples, nd):
    x = _float_tensor(input, op)
    _rank(x, (nd + 1, nd + 2), op, f"(N, C, *{nd} dims) or (C, *{nd} dims)")
    unbatched = x.ndim == nd + 1
    if unbatched:
        x = x.unsqueeze(0)
    size = tuple(x.shape[2:])
    k = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * nd
    if len(k) != nd:
        raise InvalidParameterError(f"{op}: kernel_size {kernel_size!r} must be an int or "
                                    f"{nd} ints", "kernel_size", kernel_size)
    k = tuple(_int(v, op, "kernel_size", 1) for v in k)
    if (output_size is None) == (output_ratio is None):
        raise InvalidParameterError(f"{op}: give exactly one of output_size and output_ratio",
                                    "output_size", output_size)
    if output_size is not None:
        out = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * nd
        out = tuple(_int(v, op, "output_size", 1) for v in out)
    else:
        ratio = output_ratio if isinstance(output_ratio, (tuple, list)) else \
            (output_ratio,) * nd
        ratio = tuple(_real(v, op, "output_ratio") for v in ratio)
        if any(not 0 < r < 1 for r in ratio):
            raise InvalidParameterError(f"{op}: output_ratio {output_ratio!r} must be in "
                                        "(0, 1)", "output_ratio", output_ratio)
        out = tuple(int(n * r) for n, r in zip(size, ratio))
    if len(out) != nd or any(o + kk - 1 > n for o, kk, n in zip(out, k, size)):
        raise ShapeMismatchError(
            f"{op}: output_size {out} with kernel_size {k} does not fit the input "
            f"{_shape_str(x.shape)} (needs output_size + kernel_size - 1 <= input size)",
            expected=size, actual=out)
    N, C = x.shape[:2]
    if samples is None:
        samples = rand(N, C, nd, dtype=x.dtype, device=x.device)
    elif tuple(samples.shape) != (N, C, nd):
        raise ShapeMismatchError(f"{op}: _random_samples has shape "
                                 f"{_shape_str(samples.shape)}; expected ({N}, {C}, {nd})",
                                 expected=(N, C, nd), actual=tuple(samples.shape))
    draws = samples.detach().reshape((-1,)).tolist()
    order = (1, 0) if nd == 2 else (0, 1, 2)         # PyTorch's sample of each dim
    single = x.dtype.name != "float64"
    starts = []
    for a in range(nd):
        rows = [_intervals(draws[p * nd + order[a]], size[a], out[a], k[a], single)
                for p in range(N * C)]
        starts.append(tensor(rows, dtype=_dt.int64, device=x.device).reshape((N, C, out[a])))
    v = x
    picks = []
    for a in range(nd):
        offs = tensor(list(range(k[a])), dtype=_dt.int64, device=x.device)
        idx = (starts[a].unsqueeze(-1) + offs).reshape((N, C, out[a] * k[a]))
        after = tuple(v.shape[3 + a:])
        shape = (N, C) + tuple(v.shape[2:2 + a]) + (out[a] * k[a],) + after
        idx = idx.reshape((N, C) + (1,) * a + (out[a] * k[a],) + (1,) * len(after))
        taken = v.gather(2 + a, idx.expand(*shape))
        taken = taken.reshape((N, C) + tuple(v.shape[2:2 + a]) + (out[a], k[a]) + after)
        r = taken.max(dim=3 + a)
        v = r.values
        picks.append(r.indices)                      # (N, C, o_0..o_a, S_{a+1}..)
    if not return_indices:
        return v.squeeze(0) if unbatched else v
    pos = [None] * nd
    for a in reversed(range(nd)):
        arg = picks[a]
        later = list(range(a + 1, nd))
        if later:
            flat = None
            for b in later:
                flat = pos[b] if flat is None else flat * size[b] + pos[b]
            lead = tuple(arg.shape[:3 + a])
            arg = arg.reshape(lead + (-1,))
            chosen = flat.reshape(tuple(flat.shape[:3 + a]) + (-1,))
            arg = arg.gather(-1, chosen).reshape(tuple(flat.shape))
        st = starts[a].reshape((N, C) + (1,) * a + (out[a],) + (1,) * (nd - 1 - a))
        pos[a] = st + arg
    index = None
    for a in range(nd):
        index = pos[a] if index is None else index * size[a] + pos[a]
    if unbatched:
        return v.squeeze(0), index.squeeze(0)
    return v, index


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Fractional max pooling of a (N, C, H, W) or (C, H, W) input, PyTorch's
    ``F.fractional_max_pool2d``; ``_random_samples`` (N, C, 2) in [0, 1) fixes the windows.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=ember.zeros(1, 1, 2)).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return _fractional("fractional_max_pool2d", input, kernel_size, output_size, output_ratio,
                       return_indices, _random_samples, 2)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``fractional_max_pool2d(..., return_indices=True)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.fractional_max_pool2d_with_indices(ember.ones(1, 3, 3), 2, output_size=2)[1].shape
    (1, 2, 2)
    """
    return _fractional("fractional_max_pool2d", input, kernel_size, output_size, output_ratio,
                       True, _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Fractional max pooling of a (N, C, D, H, W) or (C, D, H, W) input, PyTorch's
    ``F.fractional_max_pool3d``; ``_random_samples`` (N, C, 3).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.fractional_max_pool3d(ember.ones(1, 4, 4, 4), 2, output_ratio=0.5).shape
    (1, 2, 2, 2)
    """
    return _fractional("fractional_max_pool3d", input, kernel_size, output_size, output_ratio,
                       return_indices, _random_samples, 3)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``fractional_max_pool3d(..., return_indices=True)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.fractional_max_pool3d_with_indices(ember.ones(1, 3, 3, 3), 2, 2)[1].shape
    (1, 2, 2, 2)
    """
    return _fractional("fractional_max_pool3d", input, kernel_size, output_size, output_ratio,
                       True, _random_samples, 3)
