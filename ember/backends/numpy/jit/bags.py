"""embedding_bag's C kernel and the NumPy backend's ``nn_embedding_bag`` (listed by
ember/backends/numpy/dropout.py).

One pass per bag gathers and reduces its rows into the bag's output row, never holding the
(N, D) gathered rows: a sum adds the rows (each times its per-sample weight) in index order in
the weight's dtype and a mean divides it by the bag's count: the base default's float values,
and PyTorch's (whose per-sample weights are fused multiply-adds); a maximum keeps, per
column, the first row holding it (a NaN wins, as NumPy's ``max``) and its position. Bags are
dealt out to threads when there is enough to gather. Float32 and float64 weights only;
others, or no compiled kernel (compiling, no compiler, ``EMBER_JIT=0``), take the base's
default. The means of 64 bags of 50
rows of (10000, 128) float32: about 60 µs against the base default's 450 µs (one thread).

>>> import numpy as np
>>> from ember.backends.numpy.jit import bags
>>> w = np.array([[1.0], [2.0], [4.0]])
>>> out, pos = bags.nn_embedding_bag(w, np.array([0, 1, 2]), np.array([0, 1, 3]), "max", None,
...                                  None)
>>> out.tolist(), pos.tolist()
([[1.0], [4.0]], [[0], [2]])
"""

import numpy as np

from .. import jit
from .compiler import NO_CONTRACT
from ..core import default_kernel

# gathered elements below which one thread is faster: a second one's wake-up (40-70 µs here)
# costs more than it saves at 409,600 (64 bags of 50 rows of 128: 91 µs on one thread, 109 on
# two) and less at 1,638,400 (345 against 290 µs)
PARALLEL_NUMEL = 1048576

_TYPES = {np.dtype(np.float32): ("f32", "float"), np.dtype(np.float64): ("f64", "double")}
_MODES = {"sum": 0, "mean": 1, "max": 2}

# arrays (weight, idx, bounds, psw, out, pos), ints (bags, d, per, mode, has_psw, padding,
# threads, n): bag b is idx[b * per : (b + 1) * per] when per >= 0, else idx[bounds[b] :
# bounds[b + 1]]; padding is -1 for none; pos (bags, d) is written for mode 2 only
_BODY = """
#define AHEAD 6
/* the first KB of the row AHEAD positions on (the next bag's too: every index is in range) */
static inline void ember_fetch_row(const T *w, const int64_t *idx, int64_t j, int64_t total,
                                   int64_t d) {
    if (j + AHEAD >= total) return;
    const char *row = (const char *)(w + idx[j + AHEAD] * d);
    const int64_t bytes = d * (int64_t)sizeof(T) < 1024 ? d * (int64_t)sizeof(T) : 1024;
    for (int64_t i = 0; i < bytes; i += 64) __builtin_prefetch(row + i);
}

EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *w = (const T *)p[0], *psw = (const T *)p[3];
    const int64_t *idx = (const int64_t *)p[1], *bounds = (const int64_t *)p[2];
    T *out = (T *)p[4];
    int64_t *pos = (int64_t *)p[5];
    const int64_t bags = n[0], d = n[1], per = n[2], mode = n[3], has_psw = n[4], pad = n[5];
    const int64_t total = n[7];
    (void)f;
    int done = 0;
    #pragma omp parallel num_threads((int)n[6]) if(total * d >= PARALLEL_NUMEL)
    {
    #pragma omp for schedule(guided) nowait
    for (int64_t b = 0; b < bags; b++) {
        const int64_t s = per >= 0 ? b * per : bounds[b], e = per >= 0 ? s + per : bounds[b + 1];
        T *o = out + b * d;
        int64_t count = 0;
        for (int64_t c = 0; c < d; c++) o[c] = 0;
        if (mode == 2) {
            int64_t *q = pos + b * d;
            for (int64_t c = 0; c < d; c++) q[c] = total;
            for (int64_t j = s; j < e; j++) {
                if (idx[j] == pad) continue;
                ember_fetch_row(w, idx, j, total, d);
                const T *r = w + idx[j] * d;
                if (count++ == 0) {
                    for (int64_t c = 0; c < d; c++) { o[c] = r[c]; q[c] = j; }
                    continue;
                }
                #pragma omp simd
                for (int64_t c = 0; c < d; c++) {
                    const T v = r[c], m = o[c];
                    const int take = (v > m) | ((v != v) & (m == m));
                    o[c] = take ? v : m;
                    q[c] = take ? j : q[c];
                }
            }
            continue;
        }
        for (int64_t j = s; j < e; j++) {
            if (idx[j] == pad) continue;
            ember_fetch_row(w, idx, j, total, d);
            const T *r = w + idx[j] * d;
            count++;
            if (has_psw) {
                const T x = psw[j];
                #pragma omp simd
                for (int64_t c = 0; c < d; c++) o[c] += r[c] * x;
            } else {
                #pragma omp simd
                for (int64_t c = 0; c < d; c++) o[c] += r[c];
            }
        }
        if (mode == 1 && count > 0) {
            const T k = (T)count;
            #pragma omp simd
            for (int64_t c = 0; c < d; c++) o[c] /= k;
        }
    }
    ember_join(&done);
    }
}
"""


def name(dtype):
    """The C symbol of the kernel for NumPy ``dtype``."""
    return f"ember_embedding_bag_{_TYPES[np.dtype(dtype)][0]}"


def source(dtype):
    """The C source of the kernel for NumPy ``dtype`` (float32 or float64)."""
    return (jit.PRELUDE + NO_CONTRACT + f"typedef {_TYPES[np.dtype(dtype)][1]} T;\n"
            + f"#define PARALLEL_NUMEL {PARALLEL_NUMEL}\n" + _BODY.replace("NAME", name(dtype)))


_named = {}  # dtype -> (name, source): one dict hit per call
_default = default_kernel("nn_embedding_bag")  # other dtypes, or no compiled kernel


def nn_embedding_bag(weight, idx, offsets, mode, per_sample_weights, padding_idx):
    """Bags of rows of ``weight`` (num, D) reduced by ``mode`` ("sum", "mean" or "max"):
    ``idx`` (B, n) with ``offsets`` None (each row a bag), or 1-d with ``offsets`` the B + 1
    bounds of the bags; (out (B, D), for "max" the (B, D) int64 positions in the flattened
    ``idx`` of the maxima, idx's size for an empty bag; else None)."""
    dt = weight.dtype
    psw = per_sample_weights
    if dt in _TYPES and (psw is None or psw.dtype == dt):
        found = _named.get(dt)
        if found is None:
            found = _named[dt] = (name(dt), source(dt))
        k = jit.kernel(*found)
        if k is not None:
            return _compiled(k, weight, idx, offsets, mode, psw, padding_idx)
    return _default(weight, idx, offsets, mode, psw, padding_idx)


def _compiled(k, weight, idx, offsets, mode, psw, padding_idx):
    """``nn_embedding_bag`` by the compiled kernel ``k``."""
    weight = np.ascontiguousarray(weight)
    flat = np.ascontiguousarray(idx, dtype=np.int64).reshape(-1)
    nb = idx.shape[0] if offsets is None else offsets.shape[0] - 1
    d = weight.shape[1]
    bounds = flat if offsets is None else np.ascontiguousarray(offsets, dtype=np.int64)
    out = np.empty((nb, d), weight.dtype)
    pos = np.empty((nb, d), np.int64) if mode == "max" else bounds
    k((weight, flat, bounds, weight if psw is None else np.ascontiguousarray(psw).reshape(-1),
       out, pos),
      (nb, d, idx.shape[1] if offsets is None else -1, _MODES[mode], psw is not None,
       -1 if padding_idx is None else padding_idx, jit.num_threads(), flat.size), ())
    return out, (pos if mode == "max" else None)
