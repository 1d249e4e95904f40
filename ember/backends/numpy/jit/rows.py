"""Row programs: C kernels for the ops that reduce along the last axis and broadcast the result
back into the same row (softmax, log-softmax, layer norm, cross entropy of (N, C) logits and
their backwards).

Each kernel makes all its passes over one row while the row sits in the L1/L2 cache, and runs
rows in parallel with OpenMP above ``PARALLEL_NUMEL`` elements. Sums over float32 rows end in
float64 (layer norm's add up blocks of 512 float32 sums, its column sums blocks of 16 rows);
``exp`` is an inline Cephes polynomial that the compiler vectorises
(exact for -inf, +inf, NaN, overflow and subnormal results).

``kernel(op, dtype)`` gives the compiled kernel of one op for NumPy dtype float32 or float64, or
None while it compiles or when nothing compiles (the caller takes its NumPy path):

>>> import numpy as np
>>> from ember.backends.numpy.jit import rows
>>> sorted(rows.OPS)  # doctest: +NORMALIZE_WHITESPACE
['cross_entropy', 'cross_entropy_grad', 'layer_norm', 'layer_norm_grads', 'log_softmax',
 'log_softmax_grad', 'softmax', 'softmax_causal', 'softmax_grad']
>>> "ember_rows_softmax_f32" in rows.source("softmax", np.dtype(np.float32))
True

The kernels' arguments (rows, cols: the 2-D C-contiguous shape; nt: ``jit.num_threads()``):

- softmax, log_softmax: arrays (x, out), ints (rows, cols, nt)
- softmax_grad, log_softmax_grad: arrays (g, y, out), ints (rows, cols, nt)
- softmax_causal: arrays (x, out), ints (rows, cols, nt, queries), floats (scale,): attention's
  causal softmax of the scores ``x * scale``; row r is query ``r % queries`` of its (queries,
  cols) matrix and sees the columns up to its own index (``np.tri``'s lower triangle), the
  others get exactly 0 (NaN in a NaN row); a row that sees only -inf gets zeros
- cross_entropy: arrays (x, target, loss, max, lse), ints (rows, cols, nt); target int64 (rows,),
  the others (rows,) of x's dtype
- cross_entropy_grad: arrays (x, target, max, lse, scale, gx), ints (rows, cols, nt); scale
  (rows,): the loss gradient of each row
- layer_norm: arrays (x, w, b, out, mean, rstd), ints (rows, cols, nt, has_w, has_b),
  floats (eps,); an absent w or b is any array of the dtype (never read)
- layer_norm_grads: arrays (g, x, mean, rstd, w, gx, gw, gb, scratch), ints (rows, cols, nt,
  has_w, need_x, need_w, need_b); the arrays not needed are any array of the dtype (never
  written); scratch is ``scratch_bytes(...)`` zeroed bytes when gw or gb is needed
"""

import numpy as np

from . import cmath, compiler

MIN_NUMEL = 1  # measured: a compiled row program is the faster from one element on (through the
# launcher's `rows`: 1.4 against 4.6 µs for a (1, 18) log_softmax; 64 before `rows` was in C)
PARALLEL_NUMEL = 262144  # below this many elements one thread is faster than two

_TYPES = {np.dtype(np.float32): ("f32", "float"), np.dtype(np.float64): ("f64", "double")}

# ember_exp(T): the row programs are written once for float and double
# ember_exp_low(x): ember_exp(x), with 0 below ember_exp's lowest input (where it gives 0) taken
# without calling it: its underflow to 0 costs a microcode assist per element on x86 (a softmax
# row half -inf, a mask, took 3x the time of an unmasked one)
_EXP_LOW = """
static inline T ember_exp_low(T x) {
    const int low = x < (T)EXP_LOW;
    const T e = ember_exp(low ? (T)0 : x);
    return low ? (T)0 : e;
}
"""
_EXP = {"float": cmath.EXPF + "\nstatic inline float ember_exp(float x) { return ember_expf(x); }\n"
                 "#define EXP_LOW -104.0f\n" + _EXP_LOW,
        "double": cmath.EXP + "#define EXP_LOW -746.0\n" + _EXP_LOW}


# the rows ahead are asked for while the current row is worked on in cache: a row of 4 KB is a
# page, and the hardware prefetcher stops at page ends; the row statistics of layer and group norm
HEAD = """
#define ROWS_PARALLEL (rows * cols >= {parallel})
#define ROWS_CHUNK (cols >= CHUNK_NUMEL ? 1 : CHUNK_NUMEL / (cols > 0 ? cols : 1))
#define BLOCK 512

/* prefetch the first bytes (up to 8 KB) of the row at least 4 KB past row r of a */
static inline void ember_prefetch_ahead(const T *a, int64_t r, int64_t rows, int64_t cols) {{
    const int64_t rb = cols * (int64_t)sizeof(T);
    const char *p = (const char *)(a + r * cols) + (rb > 4096 ? rb : 4096);
    const char *end = (const char *)(a + rows * cols);
    int64_t n = rb < 8192 ? rb : 8192;
    if (p >= end) return;
    if (n > end - p) n = end - p;
    for (int64_t i = 0; i < n; i += 64) __builtin_prefetch(p + i);
}}

/* the mean (rounded to T, *mo) and 1 / sqrt(var + eps) (*rso) of the row xr: two passes
   (sums of the dtype in blocks of BLOCK, added up in double), the squares about m = (T)mean
   corrected for m's rounding c: sum((x - m)^2) = sum((x - mean)^2) + cols * c^2 */
static inline void ember_row_stats(const T *xr, int64_t cols, double eps, T *mo, T *rso) {{
    double s = 0.0;
    for (int64_t i0 = 0; i0 < cols; i0 += BLOCK) {{
        const int64_t i1 = i0 + BLOCK < cols ? i0 + BLOCK : cols;
        T sb = 0;
        #pragma omp simd reduction(+:sb)
        for (int64_t i = i0; i < i1; i++) sb += xr[i];
        s += sb;
    }}
    const double mu = s / (double)cols;
    const T m = (T)mu;
    const double c = mu - (double)m;
    double v = 0.0;
    for (int64_t i0 = 0; i0 < cols; i0 += BLOCK) {{
        const int64_t i1 = i0 + BLOCK < cols ? i0 + BLOCK : cols;
        T vb = 0;
        #pragma omp simd reduction(+:vb)
        for (int64_t i = i0; i < i1; i++) {{
            const T d = xr[i] - m;
            vb += d * d;
        }}
        v += vb;
    }}
    v = v / (double)cols - c * c;
    *mo = m;
    *rso = (T)(1.0 / sqrt((v < 0.0 ? 0.0 : v) + eps));
}}
"""

# the row max skips NaN (a NaN row still comes out NaN through its sum); +inf gives inf - inf =
# NaN and a row of -inf gives -inf - -inf = NaN, as NumPy and PyTorch
_ROW_MAX = """
        T m = -INFINITY;
        #pragma omp simd reduction(max:m)
        for (int64_t i = 0; i < cols; i++) m = xr[i] > m ? xr[i] : m;
"""

# softmax and log_softmax of each row: the row max, the sum of exp(x - m) (SUM), then FINISH
_ROW_SOFTMAX = """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0];
    T *y = (T *)p[1];
    const int64_t rows = n[0], cols = n[1];
    int done = 0;
    #pragma omp parallel num_threads((int)n[2]) if(ROWS_PARALLEL)
    {
    #pragma omp for schedule(guided, ROWS_CHUNK) nowait
    for (int64_t r = 0; r < rows; r++) {
        const T *xr = x + r * cols;
        T *yr = y + r * cols;
ROW_MAX
        ember_prefetch_ahead(x, r, rows, cols);
        double s = 0.0;
        #pragma omp simd reduction(+:s)
        for (int64_t i = 0; i < cols; i++) SUM
        FINISH
    }
    ember_join(&done);
    }
}
"""

# attention's causal softmax: the scaled scores of the columns a query may see, in the passes of
# _ROW_SOFTMAX; the others are never read and come out 0 (NaN in a row whose sum is NaN, as the
# masked softmax gives them); a row whose every score it sees is -inf gets weights 0 (PyTorch's
# safe softmax, as a fully masked row)
_ROW_SOFTMAX_CAUSAL = """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0];
    T *y = (T *)p[1];
    const int64_t rows = n[0], cols = n[1], queries = n[3];
    const T scale = (T)f[0];
    int done = 0;
    #pragma omp parallel num_threads((int)n[2]) if(ROWS_PARALLEL)
    {
    #pragma omp for schedule(guided, ROWS_CHUNK) nowait
    for (int64_t r = 0; r < rows; r++) {
        const T *xr = x + r * cols;
        T *yr = y + r * cols;
        const int64_t q = r % queries, seen = q + 1 < cols ? q + 1 : cols;
        /* the columns up to a whole number of 64-byte vectors past those it sees, the others
           as -inf (exp gives 0): loops over a short row's own length ran their scalar
           remainders, 2x the time of the whole row's softmax (no test of i against seen in a
           loop: GCC splits the loop there, remainders again) */
        const int64_t lanes = 64 / (int64_t)sizeof(T), wide = (seen + lanes - 1) / lanes * lanes,
                      upto = wide < cols ? wide : cols;
        /* the scaled score, stored: read back, it is the rounded value the max saw (a product
           recomputed in x * scale - m may be fused, exact, and then differ from m by its
           rounding error: exp of that overflowed for scores of 1e30) */
        #pragma omp simd
        for (int64_t i = 0; i < upto; i++) yr[i] = xr[i] * scale;
        for (int64_t i = seen; i < upto; i++) yr[i] = (T)-INFINITY;
        T m = -INFINITY;
        #pragma omp simd reduction(max:m)
        for (int64_t i = 0; i < upto; i++) m = yr[i] > m ? yr[i] : m;
        if (m == -INFINITY) {  /* every score it sees -inf: weights 0, unless one is NaN */
            int nan = 0;
            for (int64_t i = 0; i < seen; i++) nan |= yr[i] != yr[i];
            if (!nan) {
                for (int64_t i = 0; i < cols; i++) yr[i] = (T)0;
                continue;
            }
        }
        ember_prefetch_ahead(x, r, rows, cols);
        double s = 0.0;
        #pragma omp simd reduction(+:s)
        for (int64_t i = 0; i < upto; i++) {
            T e = ember_exp_low(yr[i] - m);
            yr[i] = e;
            s += e;
        }
        const T inv = (T)(1.0 / s);
        for (int64_t i = 0; i < upto; i++) yr[i] *= inv;
        for (int64_t i = upto; i < cols; i++) yr[i] = (T)0 * inv;  /* NaN in a NaN row */
    }
    ember_join(&done);
    }
}
"""

# the backward of softmax and log_softmax from the output y: a sum of TERM per row, then OUT
_ROW_GRAD = """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *g = (const T *)p[0], *y = (const T *)p[1];
    T *out = (T *)p[2];
    const int64_t rows = n[0], cols = n[1];
    int done = 0;
    #pragma omp parallel num_threads((int)n[2]) if(ROWS_PARALLEL)
    {
    #pragma omp for schedule(guided, ROWS_CHUNK) nowait
    for (int64_t r = 0; r < rows; r++) {
        const T *gr = g + r * cols, *yr = y + r * cols;
        T *o = out + r * cols;
        double s = 0.0;
        #pragma omp simd reduction(+:s)
        for (int64_t i = 0; i < cols; i++) s += TERM;
        ember_prefetch_ahead(g, r, rows, cols);
        ember_prefetch_ahead(y, r, rows, cols);
        const T st = (T)s;
        for (int64_t i = 0; i < cols; i++) o[i] = OUT;
    }
    ember_join(&done);
    }
}
"""

_BODIES = {
    "softmax": _ROW_SOFTMAX.replace("SUM", """{
            T e = ember_exp_low(xr[i] - m);
            yr[i] = e;
            s += e;
        }""").replace("FINISH", """const T inv = (T)(1.0 / s);
        for (int64_t i = 0; i < cols; i++) yr[i] *= inv;"""),
    "log_softmax": _ROW_SOFTMAX.replace("SUM", "s += ember_exp_low(xr[i] - m);").replace(
        "FINISH", """const T lse = (T)log(s);
        for (int64_t i = 0; i < cols; i++) yr[i] = (xr[i] - m) - lse;"""),
    "softmax_causal": _ROW_SOFTMAX_CAUSAL,
    "softmax_grad": _ROW_GRAD.replace("TERM", "gr[i] * yr[i]").replace(
        "OUT", "(gr[i] - st) * yr[i]"),
    "log_softmax_grad": _ROW_GRAD.replace("TERM", "gr[i]").replace(
        "OUT", "gr[i] - ember_exp_low(yr[i]) * st"),
    # the loss of each row against its target class t: logsumexp(x) - x[t], as (x[t] - m) and
    # lse = log(sum(exp(x - m))) with m the row max, kept for the gradient; a target outside
    # [0, cols) gives nan (the caller checks targets first)
    "cross_entropy": """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0];
    const int64_t *target = (const int64_t *)p[1];
    T *loss = (T *)p[2], *mx = (T *)p[3], *lses = (T *)p[4];
    const int64_t rows = n[0], cols = n[1];
    int done = 0;
    #pragma omp parallel num_threads((int)n[2]) if(ROWS_PARALLEL)
    {
    #pragma omp for schedule(guided, ROWS_CHUNK) nowait
    for (int64_t r = 0; r < rows; r++) {
        const T *xr = x + r * cols;
ROW_MAX
        ember_prefetch_ahead(x, r, rows, cols);
        double s = 0.0;
        #pragma omp simd reduction(+:s)
        for (int64_t i = 0; i < cols; i++) s += ember_exp_low(xr[i] - m);
        const T lse = (T)log(s);
        const int64_t t = target[r];
        mx[r] = m;
        lses[r] = lse;
        loss[r] = t >= 0 && t < cols ? lse - (xr[t] - m) : (T)NAN;
    }
    ember_join(&done);
    }
}
""",
    # its gradient: (softmax(x) - onehot(t)) * scale[r], softmax as exp((x - m) - lse)
    "cross_entropy_grad": """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0], *mx = (const T *)p[2], *lses = (const T *)p[3],
            *scale = (const T *)p[4];
    const int64_t *target = (const int64_t *)p[1];
    T *gx = (T *)p[5];
    const int64_t rows = n[0], cols = n[1];
    int done = 0;
    #pragma omp parallel num_threads((int)n[2]) if(ROWS_PARALLEL)
    {
    #pragma omp for schedule(guided, ROWS_CHUNK) nowait
    for (int64_t r = 0; r < rows; r++) {
        const T *xr = x + r * cols;
        T *o = gx + r * cols;
        const T m = mx[r], lse = lses[r], c = scale[r];
        ember_prefetch_ahead(x, r, rows, cols);
        for (int64_t i = 0; i < cols; i++) o[i] = ember_exp_low((xr[i] - m) - lse) * c;
        const int64_t t = target[r];
        if (t >= 0 && t < cols) o[t] = (ember_exp((xr[t] - m) - lse) - (T)1) * c;
    }
    ember_join(&done);
    }
}
""",
    # two passes for the statistics (mean, then the mean square deviation), each summed in
    # blocks of the dtype whose totals add up in float64
    "layer_norm": """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *x = (const T *)p[0], *w = (const T *)p[1], *b = (const T *)p[2];
    T *y = (T *)p[3], *mean = (T *)p[4], *rstd = (T *)p[5];
    const int64_t rows = n[0], cols = n[1];
    const int has_w = (int)n[3], has_b = (int)n[4];
    const double eps = f[0];
    int done = 0;
    #pragma omp parallel num_threads((int)n[2]) if(ROWS_PARALLEL)
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
        if (has_w && has_b)
            for (int64_t i = 0; i < cols; i++) yr[i] = (xr[i] - m) * rs * w[i] + b[i];
        else if (has_w)
            for (int64_t i = 0; i < cols; i++) yr[i] = (xr[i] - m) * rs * w[i];
        else if (has_b)
            for (int64_t i = 0; i < cols; i++) yr[i] = (xr[i] - m) * rs + b[i];
        else
            for (int64_t i = 0; i < cols; i++) yr[i] = (xr[i] - m) * rs;
    }
    ember_join(&done);
    }
}
""",
    # gx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) with dxhat = g * w. gw and gb
    # are column sums over the rows: each thread sums 16 rows (BLOCK_ROWS) in the dtype, then adds
    # that into its float64 partial sums; the threads' partial sums are added up at the end
    "layer_norm_grads": """
#define BLOCK_ROWS 16

static void ember_flush(T *pt, double *pd, int64_t cols) {
    for (int64_t i = 0; i < cols; i++) {
        pd[i] += (double)pt[i];
        pt[i] = 0;
    }
}

EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *g = (const T *)p[0], *x = (const T *)p[1], *mean = (const T *)p[2],
            *rstd = (const T *)p[3], *w = (const T *)p[4];
    T *gx = (T *)p[5], *gw = (T *)p[6], *gb = (T *)p[7];
    const int64_t rows = n[0], cols = n[1];
    const int nt = (int)n[2], has_w = (int)n[3], need_x = (int)n[4], need_w = (int)n[5],
              need_b = (int)n[6];
    const int threads = ROWS_PARALLEL ? nt : 1;
    const int columns = need_w || need_b;
    /* per thread: gw and gb partial sums in T (2 * cols), then in double (2 * cols) */
    const size_t each = 2 * (size_t)cols * (sizeof(T) + sizeof(double));
    char *part = columns ? p[8] : NULL;
    int joined = 0;
    #pragma omp parallel num_threads(threads) if(threads > 1)
    {
        const int t = omp_get_thread_num();
        T *pw = part ? (T *)(part + (size_t)t * each) : NULL;
        T *pb = part ? pw + cols : NULL;
        double *dw = part ? (double *)(pb + cols) : NULL;
        double *db = part ? dw + cols : NULL;
        int64_t done = 0;
        #pragma omp for schedule(static) nowait
        for (int64_t r = 0; r < rows; r++) {  /* (nowait: no barrier before the region's end) */
            const T *gr = g + r * cols, *xr = x + r * cols;
            const T m = mean[r], rs = rstd[r];
            double a = 0.0, c = 0.0;
            /* one pass for the column sums and the row sums of dxhat and dxhat * xhat */
            if (columns && need_x) {
                #pragma omp simd reduction(+:a, c)
                for (int64_t i = 0; i < cols; i++) {
                    const T xh = (xr[i] - m) * rs, d = has_w ? gr[i] * w[i] : gr[i];
                    pw[i] += gr[i] * xh;
                    pb[i] += gr[i];
                    a += d;
                    c += d * xh;
                }
            } else if (columns) {
                #pragma omp simd
                for (int64_t i = 0; i < cols; i++) {
                    pw[i] += gr[i] * ((xr[i] - m) * rs);
                    pb[i] += gr[i];
                }
            } else if (need_x) {
                #pragma omp simd reduction(+:a, c)
                for (int64_t i = 0; i < cols; i++) {
                    const T xh = (xr[i] - m) * rs, d = has_w ? gr[i] * w[i] : gr[i];
                    a += d;
                    c += d * xh;
                }
            }
            if (columns && ++done == BLOCK_ROWS) {
                ember_flush(pw, dw, cols);
                ember_flush(pb, db, cols);
                done = 0;
            }
            ember_prefetch_ahead(g, r, rows, cols);
            ember_prefetch_ahead(x, r, rows, cols);
            if (!need_x) continue;
            T *o = gx + r * cols;
            const T am = (T)(a / (double)cols), cm = (T)(c / (double)cols);
            if (has_w)
                for (int64_t i = 0; i < cols; i++)
                    o[i] = rs * ((gr[i] * w[i] - am) - ((xr[i] - m) * rs) * cm);
            else
                for (int64_t i = 0; i < cols; i++)
                    o[i] = rs * ((gr[i] - am) - ((xr[i] - m) * rs) * cm);
        }
        if (columns) {
            ember_flush(pw, dw, cols);
            ember_flush(pb, db, cols);
        }
        ember_join(&joined);
    }
    if (!columns) return;
    for (int64_t i = 0; i < cols; i++) {
        double sw = 0.0, sb = 0.0;
        for (int t = 0; t < threads; t++) {
            const double *dw = (const double *)(part + (size_t)t * each + 2 * (size_t)cols * sizeof(T));
            sw += dw[i];
            sb += dw[cols + i];
        }
        if (need_w) gw[i] = (T)sw;
        if (need_b) gb[i] = (T)sb;
    }
}
""",
}

OPS = tuple(_BODIES)
_sources = {}  # (op, dtype) -> the rendered C source


def name(op, dtype):
    """The C symbol of ``op``'s kernel for NumPy ``dtype``."""
    return f"ember_rows_{op}_{_TYPES[np.dtype(dtype)][0]}"


def source(op, dtype):
    """The C source of ``op``'s kernel for NumPy ``dtype`` (float32 or float64), rendered once."""
    key = (op, np.dtype(dtype))
    found = _sources.get(key)
    if found is None:
        ctype = _TYPES[key[1]][1]
        body = (_BODIES[op].replace("ROW_MAX", _ROW_MAX.rstrip("\n"))
                .replace("NAME", name(op, dtype)))
        found = (compiler.PRELUDE + f"typedef {ctype} T;\n"
                 + HEAD.format(parallel=PARALLEL_NUMEL) + _EXP[ctype] + body)
        _sources[key] = found
    return found


def threads(rows, cols, nt):
    """The threads a kernel runs on for a (rows, cols) array given ``nt`` threads."""
    return nt if rows * cols >= PARALLEL_NUMEL else 1


def scratch_bytes(rows, cols, nt, dtype):
    """The size of layer_norm_grads' zeroed scratch buffer: per thread, partial column sums."""
    return threads(rows, cols, nt) * 2 * cols * (np.dtype(dtype).itemsize + 8)


_named = {}  # (op, dtype) -> (name, source): one dict hit per call


def kernel(op, dtype):
    """The compiled kernel of ``op`` for NumPy ``dtype``, or None (compiling, or no compiler)."""
    found = _named.get((op, dtype))
    if found is None:
        found = _named[(op, dtype)] = (name(op, dtype), source(op, dtype))
    return compiler.kernel(*found)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def find(op, axis, a, *others):
    """The compiled kernel ``op`` for ``a`` (and ``others`` of its dtype) reduced along
    ``axis``, or None for the caller's NumPy path: a float32/float64 ``a`` of at least
    ``MIN_NUMEL`` elements reduced along its last axis, the kernel compiled."""
    dt = a.dtype
    if (a.size < MIN_NUMEL or not a.size or axis != a.ndim - 1 or (dt != _F32 and dt != _F64)
            or others and any(o.dtype != dt for o in others)):
        return None
    return kernel(op, dt)


def run(op, axis, a, *others):
    """The fresh output of ``op``'s compiled kernel (``find``) over ``a`` and ``others`` (of
    ``a``'s shape), rows along the last axis, or None for the caller's NumPy path. The
    launcher's ``rows`` makes the C-contiguous copies and the output (1 µs less than NumPy)."""
    k = find(op, axis, a, *others)
    if k is not None:
        return compiler.calls["rows"](k.args[0], compiler.num_threads(), a, *others)
