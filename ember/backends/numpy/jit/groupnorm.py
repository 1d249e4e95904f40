"""Group norm's C kernels and the NumPy backend's ``nn_group_norm`` / ``nn_group_norm_grads``
(listed by ember/backends/numpy/normalization.py).

A (N, C, *) input is (N * G) rows, one per sample and group, of ``C / G`` channels of ``L``
positions each. The forward makes its passes over a row while it sits in cache with layer
norm's row statistics (jit/rows.py ``ember_row_stats``: the mean, then the squares about it;
one pass of ``x`` and ``x**2`` loses the variance to cancellation where a row's mean is large
against its spread), then ``(x - mean) * (rstd * w[c]) + b[c]`` per channel. The backward sums ``g``
and ``g * (x - mean)`` per channel of a row, which give the row's sums of ``g * w`` and
``g * w * xhat`` for the input's gradient and the per-(sample, channel) terms of the weight's
and bias's; those are added over the samples in sample order after the rows, so the results do
not depend on the threads' timing. Float32 and float64 only; other dtypes, an empty input, or
no compiled kernel (compiling, no compiler, ``EMBER_JIT=0``) take the base's default.

>>> import numpy as np
>>> import ember
>>> from ember.backends.numpy.jit import groupnorm
>>> "ember_group_norm_f32" in groupnorm.source("group_norm", np.dtype(np.float32))
True
>>> x = np.array([[1.0, 3.0, 5.0, 7.0]])
>>> out, saved = groupnorm.nn_group_norm(x, None, None, 2, 0.0, ember.float64)
>>> out.tolist()
[[-1.0, 1.0, -1.0, 1.0]]
"""

import math

import numpy as np

from .. import jit
from . import rows as _rows
from ..core import NP, default_kernel
from ..nn import _np, _out

_TYPES = {np.dtype(np.float32): ("f32", "float"), np.dtype(np.float64): ("f64", "double")}


_BODIES = {
    # arrays (x, w, b, out, mean, rstd), ints (rows, cpg, hw, nt, has_w, has_b), floats (eps,):
    # rows = N * G, cpg channels of hw positions per row; an absent w or b is any array of the
    # dtype (never read)
    "group_norm": """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0], *w = (const T *)p[1], *b = (const T *)p[2];
    T *y = (T *)p[3], *mean = (T *)p[4], *rstd = (T *)p[5];
    const int64_t rows = n[0], cpg = n[1], hw = n[2], cols = cpg * hw;
    const int has_w = (int)n[4], has_b = (int)n[5];
    const double eps = f[0];
    const int64_t groups = n[6];
    int done = 0;
    #pragma omp parallel num_threads((int)n[3]) if(ROWS_PARALLEL)
    {
    #pragma omp for schedule(guided, ROWS_CHUNK) nowait
    for (int64_t r = 0; r < rows; r++) {
        const T *xr = x + r * cols;
        T *yr = y + r * cols;
        T m, rs;
        ember_prefetch_ahead(x, r, rows, cols);
        ember_row_stats(xr, cols, eps, &m, &rs);
        mean[r] = m;
        rstd[r] = rs;
        const int64_t c0 = (r % groups) * cpg;
        for (int64_t k = 0; k < cpg; k++) {
            const T sc = has_w ? rs * w[c0 + k] : rs, sh = has_b ? b[c0 + k] : (T)0;
            const T *xc = xr + k * hw;
            T *yc = yr + k * hw;
            #pragma omp simd
            for (int64_t i = 0; i < hw; i++) yc[i] = (xc[i] - m) * sc + sh;
        }
    }
    ember_join(&done);
    }
}
""",
    # arrays (g, x, mean, rstd, w, gx, gw, gb, scratch), ints (rows, cpg, hw, nt, has_w, need_x,
    # need_w, need_b, groups); scratch: 2 * rows * cpg doubles (the per-(sample, channel) sums
    # of g * xhat and of g) when gw or gb is needed; the arrays not needed are any array of the
    # dtype (never written)
    "group_norm_grads": """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *g = (const T *)p[0], *x = (const T *)p[1], *mean = (const T *)p[2],
            *rstd = (const T *)p[3], *w = (const T *)p[4];
    T *gx = (T *)p[5], *gw = (T *)p[6], *gb = (T *)p[7];
    const int64_t rows = n[0], cpg = n[1], hw = n[2], cols = cpg * hw, groups = n[8];
    const int has_w = (int)n[4], need_x = (int)n[5], need_w = (int)n[6], need_b = (int)n[7];
    const int columns = need_w || need_b;
    double *pw = columns ? (double *)p[8] : NULL, *pb = columns ? pw + rows * cpg : NULL;
    int done = 0;
    #pragma omp parallel num_threads((int)n[3]) if(ROWS_PARALLEL)
    {
    #pragma omp for schedule(guided, ROWS_CHUNK) nowait
    for (int64_t r = 0; r < rows; r++) {
        const T *gr = g + r * cols, *xr = x + r * cols;
        const T m = mean[r], rs = rstd[r];
        const int64_t c0 = (r % groups) * cpg;
        double a = 0.0, e = 0.0;  /* the row's sums of g * w and g * w * (x - m) */
        for (int64_t k = 0; k < cpg; k++) {
            const T *gc = gr + k * hw, *xc = xr + k * hw;
            double sg = 0.0, sx = 0.0;
            for (int64_t i0 = 0; i0 < hw; i0 += BLOCK) {
                const int64_t i1 = i0 + BLOCK < hw ? i0 + BLOCK : hw;
                T bg = 0, bx = 0;
                #pragma omp simd reduction(+:bg, bx)
                for (int64_t i = i0; i < i1; i++) {
                    bg += gc[i];
                    bx += gc[i] * (xc[i] - m);
                }
                sg += bg;
                sx += bx;
            }
            const double wk = has_w ? (double)w[c0 + k] : 1.0;
            a += wk * sg;
            e += wk * sx;
            if (columns) {
                pw[r * cpg + k] = sx * (double)rs;
                pb[r * cpg + k] = sg;
            }
        }
        ember_prefetch_ahead(g, r, rows, cols);
        ember_prefetch_ahead(x, r, rows, cols);
        if (!need_x) continue;
        T *o = gx + r * cols;
        const T am = (T)(a / (double)cols), cm = (T)(e * (double)rs / (double)cols);
        for (int64_t k = 0; k < cpg; k++) {
            const T wk = has_w ? w[c0 + k] : (T)1;
            const T *gc = gr + k * hw, *xc = xr + k * hw;
            T *oc = o + k * hw;
            #pragma omp simd
            for (int64_t i = 0; i < hw; i++)
                oc[i] = rs * ((gc[i] * wk - am) - ((xc[i] - m) * rs) * cm);
        }
    }
    ember_join(&done);
    }
    if (!columns) return;
    /* channel c of group q: the sums of rows (s, q) over the samples s, in sample order */
    const int64_t samples = rows / groups;
    for (int64_t q = 0; q < groups; q++)
        for (int64_t k = 0; k < cpg; k++) {
            double sw = 0.0, sb = 0.0;
            for (int64_t s = 0; s < samples; s++) {
                const int64_t at = (s * groups + q) * cpg + k;
                sw += pw[at];
                sb += pb[at];
            }
            if (need_w) gw[q * cpg + k] = (T)sw;
            if (need_b) gb[q * cpg + k] = (T)sb;
        }
}
""",
}

OPS = tuple(_BODIES)


def name(op, dtype):
    """The C symbol of ``op``'s kernel for NumPy ``dtype``."""
    return f"ember_{op}_{_TYPES[np.dtype(dtype)][0]}"


def source(op, dtype):
    """The C source of ``op``'s kernel for NumPy ``dtype`` (float32 or float64)."""
    ctype = _TYPES[np.dtype(dtype)][1]
    return (jit.PRELUDE + f"typedef {ctype} T;\n"
            + _rows.HEAD.format(parallel=_rows.PARALLEL_NUMEL)
            + _BODIES[op].replace("NAME", name(op, dtype)))


_named = {}  # (op, dtype) -> (name, source): one dict hit per call
# other dtypes, an empty input, or no compiled kernel
_forward_default = default_kernel("nn_group_norm")
_grads_default = default_kernel("nn_group_norm_grads")


def _kernel(op, dtype):
    found = _named.get((op, dtype))
    if found is None:
        found = _named[(op, dtype)] = (name(op, dtype), source(op, dtype))
    return jit.kernel(*found)


def _geometry(shape, groups):
    """(rows, channels per group, positions) of a (N, C, *) ``shape`` in ``groups`` groups."""
    return shape[0] * groups, shape[1] // groups, math.prod(shape[2:])


def nn_group_norm(x, w, b, groups, eps, dtype):
    """Group norm of a (N, C, *) ``x`` in ``groups`` groups of channels, then ``* w + b`` per
    channel (either may be None): (out, saved). The compiled kernel saves (x, mean, rstd, w,
    groups) and its backward recomputes ``xhat``; the base's default saves its own."""
    native = np.dtype(NP[dtype])
    rows, cpg, hw = _geometry(x.shape, groups)
    if (native in _TYPES and x.dtype == native and x.size and (w is None or w.dtype == native)
            and (b is None or b.dtype == native)):
        k = _kernel("group_norm", native)
        if k is not None:
            x = np.ascontiguousarray(x)
            wc = None if w is None else np.ascontiguousarray(w)
            bc = None if b is None else np.ascontiguousarray(b)
            out = np.empty(x.shape, native)
            mean = np.empty(rows, native)
            rstd = np.empty(rows, native)
            k((x, x if wc is None else wc, x if bc is None else bc, out, mean, rstd),
              (rows, cpg, hw, jit.num_threads(), wc is not None, bc is not None, groups),
              (float(eps),))
            return out, (x, mean, rstd, wc, groups)
    return _forward_default(x, w, b, groups, eps, dtype)


def nn_group_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    """Gradients of ``nn_group_norm``: (gx, gw, gb), ``gx = rstd * (gy - mean(gy) - xhat *
    mean(gy * xhat))`` with ``gy = g * w``, the means over each group."""
    dts = (x_dtype, w_dtype, b_dtype)
    if len(saved) == 5:  # the compiled forward's: (x, mean, rstd, w, groups)
        x, mean, rstd, wc, groups = saved
        k = _kernel("group_norm_grads", x.dtype)
        if k is not None:
            return tuple(None if a is None else _out(a, _np(d)) for a, d in zip(
                _grads_compiled(k, g, saved, need_x, need_w, need_b), dts))
        stat = (x.shape[0], groups, 1)  # the default's saved values, from the kernel's
        xhat = (x.reshape(stat[:2] + (-1,)) - mean.reshape(stat)) * rstd.reshape(stat)
        saved = (xhat, rstd.reshape(stat), wc, x.shape)
    return _grads_default(g, saved, need_x, need_w, need_b, *dts)


def _grads_compiled(k, g, saved, need_x, need_w, need_b):
    """(gx, gw, gb) of the compiled forward's ``saved`` by the compiled kernel ``k``."""
    x, mean, rstd, wc, groups = saved
    dtype = x.dtype
    g = np.ascontiguousarray(g, dtype=dtype).reshape(x.shape)
    rows, cpg, hw = _geometry(x.shape, groups)
    nothing = np.empty(0, dtype)  # stands for an array the kernel neither reads nor writes
    c = x.shape[1]
    gx = np.empty(x.shape, dtype) if need_x else nothing
    gw = np.empty(c, dtype) if need_w else nothing
    gb = np.empty(c, dtype) if need_b else nothing
    scratch = np.empty(2 * rows * cpg, np.float64) if need_w or need_b else nothing
    k((g, x, mean, rstd, x if wc is None else wc, gx, gw, gb, scratch),
      (rows, cpg, hw, jit.num_threads(), wc is not None, need_x, need_w, need_b, groups), ())
    return gx if need_x else None, gw if need_w else None, gb if need_b else None
