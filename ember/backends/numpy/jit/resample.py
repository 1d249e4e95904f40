"""Resampling's C kernels and the NumPy backend's ``nn_resample`` / ``nn_resample_grad``
(listed by ember/backends/numpy/pool.py): ``interpolate``'s separable taps along one dim.

The input is viewed as (outer, n, inner) about the resampled dim and the output as (outer, O,
inner). Output row (r, i) is ``sum_k weight[i, k] * x[r, index[i, k], :]``, the taps added in
order of ``k`` with no fused multiply-adds (the NumPy path's values, to the bit): along the last
dim (inner = 1) a gather per output, elsewhere a vectorized sum of ``K`` rows of ``inner``. The
transpose (the gradient) is a gather too: the taps sorted by input position (a stable sort, so
by output position within one input) give, for each input position ``j``, the outputs and
weights it receives from, so output rows are computed independently and in a fixed order. Both
deal the rows (r, i) out to the threads in guided chunks, as rows.py does. Float32 and float64
only; other dtypes, an empty array, or no compiled kernel (compiling, no compiler,
``EMBER_JIT=0``) take the NumPy path.

>>> import numpy as np
>>> from ember.backends.numpy.jit import resample
>>> "ember_resample_f32" in resample.source("resample", np.dtype(np.float32))
True
>>> x = np.array([[1.0, 2.0]])
>>> index = np.array([[0, 0], [0, 1], [0, 1], [1, 1]])
>>> weight = np.array([[1.0, 0.0], [0.75, 0.25], [0.25, 0.75], [0.0, 1.0]])
>>> resample.nn_resample(x, 1, index, weight).tolist()
[[1.0, 1.25, 1.75, 2.0]]
>>> resample.nn_resample_grad(np.ones((1, 4)), 1, index, weight, 2).tolist()
[[2.0, 2.0]]
"""

import math

import numpy as np

from .. import jit
from .compiler import NO_CONTRACT

PARALLEL_NUMEL = 262144  # below this many output elements one thread is faster than two

_TYPES = {np.dtype(np.float32): ("f32", "float"), np.dtype(np.float64): ("f64", "double")}

_HEAD = """
#define RS_PARALLEL (outer * rows * inner >= %d)
/* (r, i) rows per chunk: about CHUNK_NUMEL elements */
#define RS_CHUNK (inner >= CHUNK_NUMEL ? 1 : CHUNK_NUMEL / inner)
""" % PARALLEL_NUMEL

# the row (r, i) of the output: sum over the taps e in [e0, e1) of w[e] * x[r, at[e], :], where
# x is (outer, n, inner) and y (outer, rows, inner); tap e0 is assigned, the others added
_ROW = """
        const T *xr = x + r * n * inner;
        T *yr = y + (r * rows + i) * inner;
        if (e1 == e0) {
            memset(yr, 0, (size_t)inner * sizeof(T));
        } else if (e1 - e0 == 2) {
            const T w0 = w[e0], w1 = w[e0 + 1];
            const T *a = xr + at[e0] * inner, *b = xr + at[e0 + 1] * inner;
            #pragma omp simd
            for (int64_t j = 0; j < inner; j++) yr[j] = w0 * a[j] + w1 * b[j];
        } else {
            const T w0 = w[e0];
            const T *a = xr + at[e0] * inner;
            #pragma omp simd
            for (int64_t j = 0; j < inner; j++) yr[j] = w0 * a[j];
            for (int64_t e = e0 + 1; e < e1; e++) {
                const T we = w[e];
                const T *b = xr + at[e] * inner;
                #pragma omp simd
                for (int64_t j = 0; j < inner; j++) yr[j] += we * b[j];
            }
        }
"""

# arrays (x, at, w, start, y), ints (outer, n, inner, rows, nt, K): output row i of every r sums
# the taps start[i] .. start[i + 1] (input position at[e], weight w[e]); x is (outer, n, inner)
# and y (outer, rows, inner). The forward's taps are index and weight flattened (start[i] =
# i * K); the transpose's are the forward's sorted by input position (K = 0 where the rows'
# counts differ).
_BODY = """
EMBER_EXPORT void NAME(char **p, const int64_t *n_, const double *f) {
    const T *x = (const T *)p[0], *w = (const T *)p[2];
    const int64_t *at = (const int64_t *)p[1], *start = (const int64_t *)p[3];
    T *y = (T *)p[4];
    const int64_t outer = n_[0], n = n_[1], inner = n_[2], rows = n_[3], K = n_[5];
    int done = 0;
    if (inner == 1) {
        /* one output element per row: the rows of r together, as one unit; K taps to each
           output (the forward's) make a vectorized gather */
        #pragma omp parallel num_threads((int)n_[4]) if(RS_PARALLEL)
        {
        #pragma omp for schedule(guided, rows >= CHUNK_NUMEL ? 1 : CHUNK_NUMEL / rows) nowait
        for (int64_t r = 0; r < outer; r++) {
            const T *xr = x + r * n;
            T *yr = y + r * rows;
            if (K == 1) {
                #pragma omp simd
                for (int64_t i = 0; i < rows; i++) yr[i] = w[i] * xr[at[i]];
            } else if (K == 2) {
                #pragma omp simd
                for (int64_t i = 0; i < rows; i++)
                    yr[i] = w[2 * i] * xr[at[2 * i]] + w[2 * i + 1] * xr[at[2 * i + 1]];
            } else if (K == 4) {
                #pragma omp simd
                for (int64_t i = 0; i < rows; i++) {
                    const T *wi = w + 4 * i;
                    const int64_t *ai = at + 4 * i;
                    yr[i] = ((wi[0] * xr[ai[0]] + wi[1] * xr[ai[1]]) + wi[2] * xr[ai[2]])
                            + wi[3] * xr[ai[3]];
                }
            } else {
                for (int64_t i = 0; i < rows; i++) {
                    const int64_t e0 = start[i], e1 = start[i + 1];
                    T s = e1 > e0 ? w[e0] * xr[at[e0]] : (T)0;
                    for (int64_t e = e0 + 1; e < e1; e++) s += w[e] * xr[at[e]];
                    yr[i] = s;
                }
            }
        }
        ember_join(&done);
        }
        return;
    }
    #pragma omp parallel num_threads((int)n_[4]) if(RS_PARALLEL)
    {
    #pragma omp for collapse(2) schedule(guided, RS_CHUNK) nowait
    for (int64_t r = 0; r < outer; r++)
        for (int64_t i = 0; i < rows; i++) {
            const int64_t e0 = start[i], e1 = start[i + 1];
ROW
        }
    ember_join(&done);
    }
}
"""

OPS = ("resample",)


def name(op, dtype):
    """The C symbol of ``op``'s kernel for NumPy ``dtype``."""
    return f"ember_{op}_{_TYPES[np.dtype(dtype)][0]}"


def source(op, dtype):
    """The C source of ``op``'s kernel for NumPy ``dtype`` (float32 or float64)."""
    ctype = _TYPES[np.dtype(dtype)][1]
    return (jit.PRELUDE + NO_CONTRACT + f"typedef {ctype} T;\n" + _HEAD
            + _BODY.replace("ROW", _ROW).replace("NAME", name(op, dtype)))


_named = {}  # dtype -> (name, source): one dict hit per call


def _kernel(dtype):
    found = _named.get(dtype)
    if found is None:
        found = _named[dtype] = (name("resample", dtype), source("resample", dtype))
    return jit.kernel(*found)


def _run(x, axis, at, w, start, taps):
    """The compiled kernel's result for the taps (``at``, ``w``, ``start``; ``taps`` to each
    output, or 0 where they differ) along ``axis``, or None where it does not run."""
    dtype = x.dtype
    if dtype not in _TYPES or w.dtype != dtype or not x.size:
        return None
    k = _kernel(dtype)
    if k is None:
        return None
    x = np.ascontiguousarray(x)
    rows = start.shape[0] - 1
    shape = x.shape[:axis] + (rows,) + x.shape[axis + 1:]
    out = np.empty(shape, dtype)
    k((x, at, w, start, out), (math.prod(x.shape[:axis]), x.shape[axis],
                               math.prod(x.shape[axis + 1:]), rows, jit.num_threads(), taps),
      ())
    return out


def nn_resample(x, axis, index, weight):
    """``x`` resampled along ``axis`` by taps: ``out[..., i, ...] = sum_k weight[i, k] *
    x[..., index[i, k], ...]`` (``index`` (O, K) int64, ``weight`` (O, K) of x's dtype)."""
    rows, taps = index.shape
    out = _run(x, axis, np.ascontiguousarray(index, np.int64).reshape(-1),
               np.ascontiguousarray(weight).reshape(-1), np.arange(0, rows * taps + 1, taps),
               taps)
    if out is not None:
        return out
    view = (rows,) + (1,) * (x.ndim - 1 - axis)
    out = np.take(x, index[:, 0], axis=axis) * weight[:, 0].reshape(view)
    for k in range(1, taps):
        out += np.take(x, index[:, k], axis=axis) * weight[:, k].reshape(view)
    return out


def nn_resample_grad(g, axis, index, weight, n):
    """The transpose of ``nn_resample`` (its gradient): ``g`` sent back to the ``n`` input
    positions along ``axis``, ``gx[..., index[i, k], ...] += weight[i, k] * g[..., i, ...]``."""
    flat = np.ascontiguousarray(index, np.int64).reshape(-1)
    order = np.argsort(flat, kind="stable")
    start = np.searchsorted(flat[order], np.arange(n + 1))
    at = order // index.shape[1]
    counts = np.diff(start)
    out = _run(g, axis, at, np.ascontiguousarray(weight).reshape(-1)[order], start,
               int(counts[0]) if (counts == counts[0]).all() else 0)
    if out is not None:
        return out
    m = np.zeros((index.shape[0], n), weight.dtype)
    np.add.at(m, (np.arange(index.shape[0])[:, None], index), weight)
    return np.moveaxis(np.tensordot(g, m, axes=([axis], [0])), -1, axis)
