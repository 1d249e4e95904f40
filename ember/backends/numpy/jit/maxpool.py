"""max_pool2d's C kernels, in front of the NumPy backend's ``nn_max_pool2d``,
``nn_max_pool2d_grad`` and ``nn_max_pool2d_indices`` (ember/backends/numpy/pool.py: ``compiled``).

The forward scans each window once, PyTorch's CPU way: taps in the padding are skipped, a tap
is taken when ``v > best or isnan(v)`` (the first maximum in kernel order, the last NaN), and
writes each window's value and the plane index of its element (int32; -1 for a window with no
tap inside the input, whose value is -inf). The gradient zeroes each plane and adds each
window's gradient at its element in window order, as PyTorch's CPU kernel (an element several
windows select gets their sum in that order: PyTorch's bits). Planes (N * C) are dealt out to
threads from ``PARALLEL_NUMEL`` input elements. Float32 and float64 C-contiguous inputs; other
dtypes or layouts, a plane of 2**31 elements or more, or no compiled kernel (compiling, no
compiler, ``EMBER_JIT=0``) take the NumPy path of pool.py (its ``saved`` differs, so each
gradient follows its forward). (16, 64, 64, 64) float32, 2x2 windows: about 3 ms against the
NumPy path's 11 ms and PyTorch's 19 ms (one thread).

>>> import numpy as np
>>> from ember.backends.numpy.jit import maxpool
>>> x = np.arange(16.0).reshape(1, 1, 4, 4)
>>> found = maxpool.forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (2, 2))  # None: compiling
>>> found is None or (found[0].tolist(), maxpool.indices(found[1]).tolist()) == (
...     [[[[5.0, 7.0], [13.0, 15.0]]]], [[[[5, 7], [13, 15]]]])
True
"""

import numpy as np

import functools

from .. import jit

# input elements from which planes go to threads (a second thread's wake-up costs 40-70 µs)
PARALLEL_NUMEL = 262144

_TYPES = {np.dtype(np.float32): ("f32", "float"), np.dtype(np.float64): ("f64", "double")}
_I32 = np.dtype(np.int32)

# ints: planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, threads
_GEOMETRY = """
    const int64_t planes = n[0], H = n[1], W = n[2], OH = n[3], OW = n[4], kh = n[5], kw = n[6];
    const int64_t sh = n[7], sw = n[8], ph = n[9], pw = n[10], dh = n[11], dw = n[12];
    const int nt = (int)n[13];
    (void)f;
    int done = 0;
    #pragma omp parallel num_threads(nt) if(nt > 1 && planes > 1 && planes * H * W >= %d)
    {
    #pragma omp for schedule(guided) nowait
    for (int64_t q = 0; q < planes; q++) {
""" % PARALLEL_NUMEL

_END = """
    }
    ember_join(&done);
    }
}
"""

# arrays (x, out, idx). Each output row starts at -inf and its window's first tap inside the
# input (or -1), then takes the taps in kernel order, each over the row's windows where that
# tap is inside the input (a loop without branches, which the compiler vectorises).
_FORWARD = """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *X = (const T *)p[0];
    T *OUT = (T *)p[1];
    int32_t *IDX = (int32_t *)p[2];
GEOMETRY
        const T *x = X + q * H * W;
        for (int64_t oh = 0; oh < OH; oh++) {
            T *restrict out = OUT + (q * OH + oh) * OW;
            int32_t *restrict idx = IDX + (q * OH + oh) * OW;
            const int64_t r0 = oh * sh - ph;
            const int64_t i0 = r0 < 0 ? (-r0 + dh - 1) / dh : 0;  /* the first tap at row >= 0 */
            const int64_t rf = r0 + i0 * dh;
            for (int64_t ow = 0; ow < OW; ow++) {
                const int64_t c0 = ow * sw - pw;
                const int64_t cf = c0 < 0 ? c0 + (-c0 + dw - 1) / dw * dw : c0;
                out[ow] = -(T)INFINITY;
                idx[ow] = (i0 < kh && rf < H && cf < c0 + kw * dw && cf < W) ?
                    (int32_t)(rf * W + cf) : -1;
            }
            for (int64_t i = i0; i < kh; i++) {
                const int64_t r = r0 + i * dh;
                if (r >= H) break;
                const T *row = x + r * W;
                for (int64_t j = 0; j < kw; j++) {
                    const int64_t off = j * dw - pw;  /* the tap's column: ow * sw + off */
                    const int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
                    int64_t hi = off >= W ? 0 : (W - 1 - off) / sw + 1;
                    if (hi > OW) hi = OW;
                    const int32_t base = (int32_t)(r * W + off);
                    #pragma omp simd
                    for (int64_t ow = lo; ow < hi; ow++) {
                        const T v = row[ow * sw + off];
                        const int take = (v > out[ow]) | (v != v);
                        out[ow] = take ? v : out[ow];
                        idx[ow] = take ? base + (int32_t)(ow * sw) : idx[ow];
                    }
                }
            }
        }
END"""

# arrays (g, idx, dx)
_BACKWARD = """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *G = (const T *)p[0];
    const int32_t *IDX = (const int32_t *)p[1];
    T *DX = (T *)p[2];
GEOMETRY
        const T *g = G + q * OH * OW;
        const int32_t *idx = IDX + q * OH * OW;
        T *dx = DX + q * H * W;
        memset(dx, 0, (size_t)(H * W) * sizeof(T));
        for (int64_t o = 0; o < OH * OW; o++)
            if (idx[o] >= 0) dx[idx[o]] += g[o];
END"""


def source(dtype, grad):
    """``(name, C source)`` of the forward (or, with ``grad``, the gradient) kernel for NumPy
    ``dtype``.

    >>> source(np.float32, True)[0]
    'ember_max_pool2d_bwd_f32'
    """
    suffix, ctype = _TYPES[np.dtype(dtype)]
    name = f"ember_max_pool2d_{'bwd' if grad else 'fwd'}_{suffix}"
    body = (_BACKWARD if grad else _FORWARD).replace("GEOMETRY", _GEOMETRY).replace("END", _END)
    return name, jit.PRELUDE + f"typedef {ctype} T;\n" + body.replace("NAME", name)


_named = {}  # (dtype, grad) -> (name, source)


def _kernel(dtype, grad):
    found = _named.get((dtype, grad))
    if found is None:
        found = _named[(dtype, grad)] = source(dtype, grad)
    return jit.kernel(*found)


class _Saved:
    """What the compiled forward keeps for its gradient and indices: each window's plane index
    (-1: none), the kernels' ints (the pooling's geometry), the input's shape and dtype."""

    __slots__ = ("idx", "ints", "xshape", "dtype")

    def __init__(self, idx, ints, xshape, dtype):
        self.idx, self.ints, self.xshape, self.dtype = idx, ints, xshape, dtype


def forward(x, kernel, stride, pads, dilation, out_hw):
    """``nn_max_pool2d``'s (out, saved) by the compiled scan, or None (see the module)."""
    k = None
    if x.dtype in _TYPES and x.flags.c_contiguous and x.shape[-2] * x.shape[-1] < 2**31:
        k = _kernel(x.dtype, False)
    if k is None:
        return None
    lead, (H, W), (OH, OW) = x.shape[:-2], x.shape[-2:], out_hw
    out = np.empty(lead + (OH, OW), x.dtype)
    idx = np.empty(out.shape, _I32)
    ints = (int(np.prod(lead)), H, W, OH, OW, kernel[0], kernel[1], stride[0], stride[1],
            pads[0], pads[2], dilation[0], dilation[1], jit.num_threads())
    if out.size:
        k((x, out, idx), ints, ())
    return out, _Saved(idx, ints, x.shape, x.dtype)


def grad(g, saved):
    """The gradient of ``forward``'s pooling (each window's gradient added at its element, in
    window order), or None for the NumPy path's ``saved``."""
    if not isinstance(saved, _Saved):
        return None
    work = np.ascontiguousarray(g, dtype=saved.dtype)
    dx = np.empty(saved.xshape, saved.dtype)
    k = _kernel(saved.dtype, True)
    if k is None:  # (still compiling): the same sums, one window at a time in NumPy
        flat, planes = dx.reshape(-1), saved.idx.reshape(saved.ints[0], -1)
        flat[:] = 0
        offsets = (np.arange(planes.shape[0], dtype=np.int64) * (saved.ints[1] * saved.ints[2]))
        where = planes >= 0
        np.add.at(flat, (planes + offsets[:, None])[where], work.reshape(planes.shape)[where])
    elif dx.size:
        k((work, saved.idx, dx), saved.ints[:-1] + (jit.num_threads(),), ())
    return dx.astype(g.dtype, copy=False)


def start_index(r0, c0, dh, dw, W):
    """PyTorch's index of a window with no tap inside the input, from its corners' rows ``r0``
    (an (OH, 1) int64 array) and columns ``c0`` ((1, OW)): the flat plane index of its first row
    and column at or past 0 (both paths of max pooling use it).

    >>> start_index(np.array([[-3]]), np.array([[5]]), 2, 1, 4).tolist()
    [[9]]
    """
    rs = np.where(r0 < 0, r0 + (-r0 + dh - 1) // dh * dh, r0)
    cs = np.where(c0 < 0, c0 + (-c0 + dw - 1) // dw * dw, c0)
    return rs * W + cs


def indices(saved):
    """PyTorch's ``return_indices`` of ``forward``'s pooling: each window's flat plane index
    (int64; ``start_index`` for a window with no tap inside the input), or None for the NumPy
    path's ``saved``."""
    if not isinstance(saved, _Saved):
        return None
    idx = saved.idx.astype(np.int64)
    empty = idx < 0
    if empty.any():
        _, _, W, OH, OW, _, _, sh, sw, ph, pw, dh, dw, _ = saved.ints
        r0 = np.arange(OH, dtype=np.int64)[:, None] * sh - ph
        c0 = np.arange(OW, dtype=np.int64)[None, :] * sw - pw
        np.copyto(idx, np.broadcast_to(start_index(r0, c0, dh, dw, W), idx.shape), where=empty)
    return idx


_COMPILED = {"forward": forward, "grad": grad, "indices": indices}


def compiled(kind):
    """A decorator: the NumPy backend's max-pool kernel (the NumPy path) behind this module's
    ``kind`` ("forward", "grad" or "indices"), which runs first and answers where it applies."""
    first = _COMPILED[kind]

    def wrap(numpy_path):
        @functools.wraps(numpy_path)
        def kernel(*args):
            found = first(*args)
            return numpy_path(*args) if found is None else found
        return kernel
    return wrap
