"""C kernels of reductions of a C-contiguous ``(rows, cols)`` float32/float64 array: the sum
or mean of each row (over the last axes), of each column (over the leading axes), over a run
of middle axes (each block of the leading axes summed as columns, one thread a block), and
each row's max or min.

Sums end in float64, so they are at least as accurate as NumPy's float32 pairwise sums: a
float64 row pairwise in blocks of 256 like NumPy's, each block added with vector accumulators; a
float32 row in blocks of 256 elements, each summed in float32 by 32 partial sums (8 values each,
four AVX2 vectors whose adds overlap), the blocks' sums added in float64 (twice as fast as
converting every element to float64, and as fast as PyTorch's float32 sums); columns row after
row like NumPy's, four rows at a time added pairwise in the input's dtype and every 32 rows
into float64 sums (1.6x faster than converting every element, and far more accurate than
NumPy's float32 running sums), each thread over its own share of rows into its own partial
sums (``scratch``), the partials added in thread order.
(A float32 sum whose running total leaves float32's range but whose total does not is that
total here, inf in NumPy's and PyTorch's float32 accumulators.)
A max or min is NaN when the row holds a NaN (a flag kept beside the comparisons, so the loop
vectorises); which of two equal zeros of opposite sign a max gives is not specified.

``sum_of`` and ``extreme`` run them where they apply (a C-contiguous float32/float64 array of
at least ``MIN_NUMEL`` elements reduced over its leading or trailing axes, or all of them) and
give None elsewhere, where the NumPy kernels of ember/backends/numpy/reduce.py compute.

>>> from ember.backends.numpy.jit import reduce
>>> reduce.source("row_sum", "float32")[0]
'ember_row_sum_float32'
"""

import numpy as np

from ...base.reduce import _count, _kept_shape
from .. import jit
from .compiler import FLOAT_NAMES, PRELUDE

# elements from which a reduction runs on the threads: on the 2-core machine of
# docs/performance.md a second OpenMP thread costs 40-70 µs to wake and join (its "Threads"),
# more than it saves below this (a 1M-element float32 sum: 150 µs on one thread, 204 on two)
PARALLEL_NUMEL = 2097152
_SOURCES = {}

_PAIRWISE = """
/* the sum of x[0..n) in double, pairwise above 256 elements like NumPy's; 16 partial sums
   (four vectors, so the adds overlap) in a block */
static double pairwise(const T *x, int64_t n) {
    if (n <= 256) {
        double acc[16] = {0.0};
        int64_t i = 0;
        for (; i + 16 <= n; i += 16)
            for (int k = 0; k < 16; k++) acc[k] += (double)x[i + k];
        double s = 0.0;
        for (; i < n; i++) s += (double)x[i];
        for (int k = 0; k < 16; k += 2) s += acc[k] + acc[k + 1];
        return s;
    }
    int64_t half = (n / 2) & ~(int64_t)7;
    return pairwise(x, half) + pairwise(x + half, n - half);
}
"""

# float32: the same sum, each block of 256 in float32 vectors (GCC vector extensions: the
# partial sums stay in registers), the blocks' sums in double
_PAIRWISE_F32 = """
typedef float ember_v8 __attribute__((vector_size(32)));
static double pairwise(const T *x, int64_t n) {
    double s = 0.0;
    int64_t i = 0;
    for (; i + 256 <= n; i += 256) {
        ember_v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, t;
        for (int64_t j = i; j < i + 256; j += 32) {
            memcpy(&t, x + j, 32);
            a0 += t;
            memcpy(&t, x + j + 8, 32);
            a1 += t;
            memcpy(&t, x + j + 16, 32);
            a2 += t;
            memcpy(&t, x + j + 24, 32);
            a3 += t;
        }
        a0 = (a0 + a1) + (a2 + a3);
        s += (double)(((a0[0] + a0[4]) + (a0[1] + a0[5])) + ((a0[2] + a0[6]) + (a0[3] + a0[7])));
    }
    for (; i < n; i++) s += (double)x[i];
    return s;
}
"""

_ROW_SUM = """
/* out[r] = sum (or mean, n[3] != 0) of row r; ints: rows, cols, threads, mean */
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0];
    T *out = (T *)p[1];
    const int64_t rows = n[0], cols = n[1];
    const int nt = (int)n[2], mean = (int)n[3];
    (void)f;
    const int64_t chunk = cols >= CHUNK_NUMEL ? 1 : CHUNK_NUMEL / (cols > 0 ? cols : 1);
    int done = 0;
    #pragma omp parallel num_threads(nt) if(rows * cols >= PARALLEL_NUMEL && rows > 1)
    {
        #pragma omp for schedule(guided, chunk) nowait
        for (int64_t r = 0; r < rows; r++) {
            double s = pairwise(x + r * cols, cols);
            out[r] = (T)(mean ? s / (double)cols : s);
        }
        ember_join(&done);
    }
}
"""

_ROW_TOTALS = """
/* out[r] = the sum of row r, in double (the parts of a sum over every element); ints: rows,
   cols, threads */
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0];
    double *out = (double *)p[1];
    const int64_t rows = n[0], cols = n[1];
    const int nt = (int)n[2];
    (void)f;
    int done = 0;
    #pragma omp parallel num_threads(nt) if(rows * cols >= PARALLEL_NUMEL && rows > 1)
    {
        #pragma omp for schedule(guided, 1) nowait
        for (int64_t r = 0; r < rows; r++) out[r] = pairwise(x + r * cols, cols);
        ember_join(&done);
    }
}
"""

_COL_BLOCK = """
#define BLOCK 1024
#define GROUPS 8
/* acc[c] = the sum of column c over rows [r0, r1) of x (rows of cols), in double: rows four
   at a time, pairwise, into a block of T partial sums, added to acc every GROUPS * 4 rows */
static void col_block(const T *x, int64_t cols, int64_t r0, int64_t r1, double *acc) {
    T part[BLOCK];
    for (int64_t c0 = 0; c0 < cols; c0 += BLOCK) {
        const int64_t w = cols - c0 < BLOCK ? cols - c0 : BLOCK;
        double *a = acc + c0;
        for (int64_t j = 0; j < w; j++) a[j] = 0.0;
        int64_t r = r0;
        while (r < r1) {
            int g = 0;
            for (int64_t j = 0; j < w; j++) part[j] = 0;
            for (; g < GROUPS && r + 4 <= r1; g++, r += 4) {
                const T *x0 = x + r * cols + c0, *x1 = x0 + cols, *x2 = x1 + cols,
                        *x3 = x2 + cols;
                #pragma omp simd
                for (int64_t j = 0; j < w; j++) part[j] += (x0[j] + x1[j]) + (x2[j] + x3[j]);
            }
            for (; g == 0 && r < r1; r++) {  /* the last one to three rows */
                const T *x0 = x + r * cols + c0;
                #pragma omp simd
                for (int64_t j = 0; j < w; j++) part[j] += x0[j];
            }
            #pragma omp simd
            for (int64_t j = 0; j < w; j++) a[j] += (double)part[j];
        }
    }
}
"""

_COL_SUM = """
/* out[c] = sum (or mean, n[3] != 0) of column c; scratch: threads * cols doubles;
   ints: rows, cols, threads, mean. Each thread sums its share of rows (col_block). */
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0];
    T *out = (T *)p[1];
    double *scratch = (double *)p[2];
    const int64_t rows = n[0], cols = n[1];
    const int mean = (int)n[3];
    int nt = (int)n[2];
    (void)f;
    if (rows * cols < PARALLEL_NUMEL || rows < 2 * nt) nt = 1;
    int used = 1, done = 0;  /* used: the threads OpenMP gave, at most nt */
    #pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), team = omp_get_num_threads();
        if (t == 0) used = team;
        col_block(x, cols, rows * t / team, rows * (t + 1) / team, scratch + (int64_t)t * cols);
        ember_join(&done);
    }
    for (int64_t c = 0; c < cols; c++) {  /* (a barrier here costs a thread's wake-up) */
        double s = scratch[c];
        for (int k = 1; k < used; k++) s += scratch[(int64_t)k * cols + c];
        out[c] = (T)(mean ? s / (double)rows : s);
    }
}
"""

_MID_SUM = """
/* out[b, c] = sum (or mean, n[4] != 0) over the middle axis of x (batch, rows, cols);
   scratch: threads * cols doubles; ints: batch, rows, cols, threads, mean. Each block of the
   batch is summed by one thread (col_block), so the result does not depend on the threads. */
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0];
    T *out = (T *)p[1];
    double *scratch = (double *)p[2];
    const int64_t batch = n[0], rows = n[1], cols = n[2];
    const int mean = (int)n[4];
    int nt = (int)n[3];
    (void)f;
    if (batch * rows * cols < PARALLEL_NUMEL || batch < 2 * nt) nt = 1;
    int done = 0;
    #pragma omp parallel num_threads(nt)
    {
        double *acc = scratch + (int64_t)omp_get_thread_num() * cols;
        #pragma omp for schedule(dynamic, 1) nowait
        for (int64_t b = 0; b < batch; b++) {
            col_block(x + b * rows * cols, cols, 0, rows, acc);
            T *o = out + b * cols;
            for (int64_t c = 0; c < cols; c++) o[c] = (T)(mean ? acc[c] / (double)rows : acc[c]);
        }
        ember_join(&done);
    }
}
"""

_ROW_EXTREME = """
/* out[r] = the OP of row r, NaN when the row holds one; ints: rows, cols, threads */
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0];
    T *out = (T *)p[1];
    const int64_t rows = n[0], cols = n[1];
    const int nt = (int)n[2];
    (void)f;
    const int64_t chunk = cols >= CHUNK_NUMEL ? 1 : CHUNK_NUMEL / (cols > 0 ? cols : 1);
    int done = 0;
    #pragma omp parallel num_threads(nt) if(rows * cols >= PARALLEL_NUMEL && rows > 1)
    {
        #pragma omp for schedule(guided, chunk) nowait
        for (int64_t r = 0; r < rows; r++) {
            const T *row = x + r * cols;
            T m = START;
            int nan = 0;
            #pragma omp simd reduction(OP:m) reduction(|:nan)
            for (int64_t j = 0; j < cols; j++) {
                T v = row[j];
                m = v CMP m ? v : m;
                nan |= v != v;
            }
            out[r] = nan ? (T)NAN : m;
        }
        ember_join(&done);
    }
}
"""

_TEMPLATES = {"row_sum": _ROW_SUM, "row_totals": _ROW_TOTALS, "col_sum": _COL_BLOCK + _COL_SUM,
              "mid_sum": _COL_BLOCK + _MID_SUM, "row_max": _ROW_EXTREME, "row_min": _ROW_EXTREME}


def source(kind, dtype):
    """``(name, C source)`` of the ``kind`` kernel (``"row_sum"``, ``"row_totals"``, ``"col_sum"``,
    ``"mid_sum"``, ``"row_max"``, ``"row_min"``) for ``dtype`` (``"float32"``/``"float64"``)."""
    key = (kind, dtype)
    found = _SOURCES.get(key)
    if found is not None:
        return found
    name = f"ember_{kind}_{dtype}"
    text = _TEMPLATES[kind].replace("NAME", name)
    if kind == "row_max":
        text = text.replace("START", "-INFINITY").replace("CMP", ">").replace("OP", "max")
    elif kind == "row_min":
        text = text.replace("START", "INFINITY").replace("CMP", "<").replace("OP", "min")
    if kind in ("row_sum", "row_totals"):
        text = (_PAIRWISE_F32 if dtype == "float32" else _PAIRWISE) + text
    text = (PRELUDE + f"#define PARALLEL_NUMEL {PARALLEL_NUMEL}\n" + "typedef "
            + ("float" if dtype == "float32" else "double") + " T;\n" + text)
    _SOURCES[key] = (name, text)
    return name, text


MIN_NUMEL = 32768  # below it NumPy's reductions are as fast as a compiled kernel
_F64 = np.dtype(np.float64)


def plan(a, axes, keepdims, kinds):
    """A compiled reduction of the C-contiguous float32/float64 ``a`` over ``axes`` when they
    are its leading axes (``kinds[0]``, per column) or its trailing axes (``kinds[1]``, per
    row; None: not compiled), as ``(kernel, rows, cols, per_row, out_shape)``, else None."""
    if a.size < MIN_NUMEL or a.dtype not in FLOAT_NAMES or \
            not a.flags.c_contiguous or not axes or len(axes) == a.ndim:
        return None
    axes = tuple(sorted(axes))
    k = len(axes)
    if axes == tuple(range(k)):
        per_row, split = False, k
    elif axes == tuple(range(a.ndim - k, a.ndim)):
        per_row, split = True, a.ndim - k
    else:
        return None
    kind = kinds[per_row]
    if kind is None:
        return None
    kernel = jit.kernel(*source(kind, FLOAT_NAMES[a.dtype]))
    if kernel is None:
        return None
    rows = _count(a.shape, range(split))
    cols = a.size // rows
    out_shape = _kept_shape(a.shape, axes) if keepdims else tuple(
        s for i, s in enumerate(a.shape) if i not in axes)
    return kernel, rows, cols, per_row, out_shape


def _total(a, keepdims, mean):
    """The sum (or mean) of every element of the C-contiguous float32/float64 ``a`` by a
    compiled kernel, or None: the sums of up to 64 equal rows in float64 (over the threads),
    then their sum."""
    if a.size < MIN_NUMEL or a.dtype not in FLOAT_NAMES or \
            not a.flags.c_contiguous:
        return None
    kernel = jit.kernel(*source("row_totals", FLOAT_NAMES[a.dtype]))
    if kernel is None:
        return None
    n = a.size
    rows = next(r for r in (64, 32, 16, 8, 4, 2, 1) if n % r == 0)
    parts = np.empty(rows, dtype=_F64)
    kernel((a, parts), (rows, n // rows, jit.num_threads()), ())
    total = parts.sum()
    return np.full((1,) * a.ndim if keepdims else (), total / n if mean else total, a.dtype)


def _middle(a, axes, keepdims, mean):
    """The sum (or mean) of the C-contiguous float32/float64 ``a`` over ``axes``, a run of its
    middle axes (neither its first nor its last), by a compiled kernel, or None."""
    axes = tuple(sorted(axes))
    first, last = axes[0], axes[-1]
    if a.size < MIN_NUMEL or a.dtype not in FLOAT_NAMES or not a.flags.c_contiguous or \
            first == 0 or last == a.ndim - 1 or last - first + 1 != len(axes):
        return None
    kernel = jit.kernel(*source("mid_sum", FLOAT_NAMES[a.dtype]))
    if kernel is None:
        return None
    batch = _count(a.shape, range(first))
    rows = _count(a.shape, axes)
    cols = a.size // (batch * rows)
    nt = jit.num_threads()
    out = np.empty(batch * cols, dtype=a.dtype)
    kernel((a, out, np.empty((nt, cols), dtype=_F64)), (batch, rows, cols, nt, int(mean)), ())
    return out.reshape(_kept_shape(a.shape, axes) if keepdims else
                       a.shape[:first] + a.shape[last + 1:])


def sum_of(a, axes, keepdims, mean):
    """The sum (or mean) of ``a`` over ``axes`` by a compiled kernel, or None."""
    if axes and len(axes) == a.ndim:
        return _total(a, keepdims, mean)
    if axes and a.ndim > 2 and 0 not in axes and a.ndim - 1 not in axes:
        return _middle(a, axes, keepdims, mean)
    found = plan(a, axes, keepdims, ("col_sum", "row_sum"))
    if found is None:
        return None
    kernel, rows, cols, per_row, out_shape = found
    nt = jit.num_threads()
    if per_row:
        out = np.empty(rows, dtype=a.dtype)
        kernel((a, out), (rows, cols, nt, int(mean)), ())
    else:
        out = np.empty(cols, dtype=a.dtype)
        kernel((a, out, np.empty((nt, cols), dtype=_F64)), (rows, cols, nt, int(mean)), ())
    return out.reshape(out_shape)


def extreme(a, axes, keepdims, kind):
    """The max or min (``kind``) of each row of ``a`` (``axes`` its trailing axes) by a
    compiled kernel, or None."""
    found = plan(a, axes, keepdims, (None, kind))
    if found is None:
        return None
    kernel, rows, cols, _, out_shape = found
    out = np.empty(rows, dtype=a.dtype)
    kernel((a, out), (rows, cols, jit.num_threads()), ())
    return out.reshape(out_shape)
