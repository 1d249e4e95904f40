"""The LSTM and GRU steps' gate math as C kernels: the NumPy backend's ``nn_lstm_gates`` /
``nn_gru_gates`` (listed by ember/backends/numpy/activation.py; the math and what they keep
for the backward are the base's defaults', ember/backends/base/activation.py).

One pass over a step's (B, 4H) or (B, 3H) gates, a row at a time, writes the results and, when
asked, the local derivatives, where NumPy's path makes some thirty passes. Sigmoid is
``1 / (1 + e)`` (``x >= 0``) or ``e / (1 + e)`` with ``e = exp(-|x|)``, tanh Cephes' (jit/cmath.py),
both inline and vectorised; float32 computes in float32, and nothing is contracted into fused
multiply-adds, as in NumPy. Rows are dealt to threads from ``PARALLEL_NUMEL`` elements of the
state. Float32 and float64 C-contiguous arrays of one dtype only; others, an empty batch, or no
compiled kernel (compiling, no compiler, ``EMBER_JIT=0``) take the base's default.

>>> import numpy as np
>>> from ember.backends.numpy.jit import recurrent
>>> "ember_lstm_gates_f32" in recurrent.source("lstm_gates", np.dtype(np.float32))
True
>>> h, c, kept = recurrent.nn_lstm_gates(np.zeros((1, 8)), np.ones((1, 2)), False)
>>> np.round(c, 4).tolist(), np.round(h, 4).tolist(), kept
([[0.5, 0.5]], [[0.2311, 0.2311]], None)
"""

import numpy as np

from .. import jit
from ..core import default_kernel
from . import cmath
from .compiler import NO_CONTRACT

PARALLEL_NUMEL = 65536  # (B, H) elements: below, one thread (the calling one) does every row

_TYPES = {np.dtype(np.float32): ("f32", "float"), np.dtype(np.float64): ("f64", "double")}

_MATH = {
    "float": cmath.EXPF + cmath.TANHF + """
static inline float em_sig(float x) {
    const float e = ember_expf(-fabsf(x)), q = 1.0f / (1.0f + e);
    return x >= 0.0f ? q : e * q;
}
#define TANH em_tanhf
""",
    "double": cmath.EXP + cmath.TANH + """
static inline double em_sig(double x) {
    const double e = ember_exp(-fabs(x)), q = 1.0 / (1.0 + e);
    return x >= 0.0 ? q : e * q;
}
#define TANH em_tanh
""",
}

# the rows loop: ROW(b) is the body for row b (T *, const T * pointers from p, n = H)
_ROWS = """
    const int64_t rows = ni[0], n = ni[1];
    const int nt = (int)ni[2], grad = (int)ni[3];
    (void)f;
    int done = 0;
    #pragma omp parallel num_threads(nt) if(nt > 1 && rows * n >= %d)
    {
    #pragma omp for schedule(static) nowait
    for (int64_t b = 0; b < rows; b++) {
        if (grad) ROW_GRAD(b) else ROW(b)
    }
    ember_join(&done);
    }
""" % PARALLEL_NUMEL

_BODIES = {
    # arrays (gates, c, h, c2, k_c, k_h, f_c, f_h), ints (rows, n, threads, need_grad); the
    # last four are written only when need_grad
    "lstm_gates": """
#define LSTM_ROW(b, GRAD) { \\
    const T *gi = G + (b) * 4 * n, *gf = gi + n, *gg = gf + n, *go = gg + n, *cb = C + (b) * n; \\
    T *hb = H + (b) * n, *c2b = C2 + (b) * n, *kcb = KC + (b) * 4 * n, *khb = KH + (b) * 4 * n; \\
    T *fcb = FC + (b) * n, *fhb = FH + (b) * n; \\
    _Pragma("omp simd") \\
    for (int64_t j = 0; j < n; j++) { \\
        const T si = em_sig(gi[j]), sf = em_sig(gf[j]), g = TANH(gg[j]), so = em_sig(go[j]); \\
        const T cj = cb[j], c2 = sf * cj + si * g, tc = TANH(c2); \\
        hb[j] = so * tc; \\
        c2b[j] = c2; \\
        if (GRAD) { \\
            const T di = g * (si - si * si), df = cj * (sf - sf * sf), dg = si * (1 - g * g); \\
            const T e = so * (1 - tc * tc); \\
            kcb[j] = di; kcb[n + j] = df; kcb[2 * n + j] = dg; kcb[3 * n + j] = 0 * so; \\
            khb[j] = di * e; khb[n + j] = df * e; khb[2 * n + j] = dg * e; \\
            khb[3 * n + j] = tc * (so - so * so); \\
            fcb[j] = sf; fhb[j] = sf * e; \\
        } \\
    } }
#define ROW(b) LSTM_ROW(b, 0)
#define ROW_GRAD(b) LSTM_ROW(b, 1)
EMBER_EXPORT void NAME(char **p, const int64_t *ni, const double *f) {
    const T *G = (const T *)p[0], *C = (const T *)p[1];
    T *H = (T *)p[2], *C2 = (T *)p[3], *KC = (T *)p[4], *KH = (T *)p[5], *FC = (T *)p[6],
      *FH = (T *)p[7];
ROWS}
""",
    # arrays (gx, gh, h, out, k_x, k_h, k_z), ints (rows, n, threads, need_grad); the last
    # three are written only when need_grad
    "gru_gates": """
#define GRU_ROW(b, GRAD) { \\
    const T *xb = X + (b) * 3 * n, *yb = Y + (b) * 3 * n, *hb = Hs + (b) * n; \\
    T *ob = O + (b) * n, *kxb = KX + (b) * 3 * n, *khb = KH + (b) * 3 * n, *kzb = KZ + (b) * n; \\
    _Pragma("omp simd") \\
    for (int64_t j = 0; j < n; j++) { \\
        const T r = em_sig(xb[j] + yb[j]), z = em_sig(xb[n + j] + yb[n + j]); \\
        const T yn = yb[2 * n + j], nw = TANH(xb[2 * n + j] + r * yn), hj = hb[j]; \\
        ob[j] = nw + z * (hj - nw); \\
        if (GRAD) { \\
            const T q = (1 - z) * (1 - nw * nw), dr = q * yn * (r - r * r); \\
            const T dz = (hj - nw) * (z - z * z); \\
            kxb[j] = dr; kxb[n + j] = dz; kxb[2 * n + j] = q; \\
            khb[j] = dr; khb[n + j] = dz; khb[2 * n + j] = q * r; \\
            kzb[j] = z; \\
        } \\
    } }
#define ROW(b) GRU_ROW(b, 0)
#define ROW_GRAD(b) GRU_ROW(b, 1)
EMBER_EXPORT void NAME(char **p, const int64_t *ni, const double *f) {
    const T *X = (const T *)p[0], *Y = (const T *)p[1], *Hs = (const T *)p[2];
    T *O = (T *)p[3], *KX = (T *)p[4], *KH = (T *)p[5], *KZ = (T *)p[6];
ROWS}
""",
}

OPS = tuple(_BODIES)


def name(op, dtype):
    """The C symbol of ``op``'s kernel for NumPy ``dtype``.

    >>> name("gru_gates", np.float64)
    'ember_gru_gates_f64'
    """
    return f"ember_{op}_{_TYPES[np.dtype(dtype)][0]}"


def source(op, dtype):
    """The C source of ``op``'s kernel for NumPy ``dtype`` (float32 or float64)."""
    ctype = _TYPES[np.dtype(dtype)][1]
    return (jit.PRELUDE + NO_CONTRACT + f"typedef {ctype} T;\n" + _MATH[ctype]
            + _BODIES[op].replace("NAME", name(op, dtype)).replace("ROWS", _ROWS))


_named = {}  # (op, dtype) -> (name, source): one dict hit per call


def _kernel(op, first, *others):
    """The compiled kernel of ``op`` for the arrays, or None: not all float32 (or all float64)
    and C-contiguous, nothing to compute, or the kernel is not compiled (yet)."""
    dtype = first.dtype
    if dtype not in _TYPES or not first.size:
        return None
    for a in (first,) + others:
        if a.dtype != dtype or not a.flags.c_contiguous:
            return None
    found = _named.get((op, dtype))
    if found is None:
        found = _named[(op, dtype)] = (name(op, dtype), source(op, dtype))
    return jit.kernel(*found)


_lstm_default = default_kernel("nn_lstm_gates")
_gru_default = default_kernel("nn_gru_gates")


def nn_lstm_gates(gates, c, need_grad):
    """One LSTM step: ``(h, c', kept)`` as the base's default gives them (see the module).

    >>> [a.shape for a in nn_lstm_gates(np.zeros((3, 8)), np.zeros((3, 2)), True)[2]]
    [(3, 8), (3, 8), (3, 2), (3, 2)]
    """
    k = _kernel("lstm_gates", gates, c)
    if k is None:
        return _lstm_default(gates, c, need_grad)
    h, c2 = np.empty_like(c), np.empty_like(c)
    kept = None
    if need_grad:
        kept = (np.empty_like(gates), np.empty_like(gates), np.empty_like(c), np.empty_like(c))
    k((gates, c, h, c2) + (kept or (h, h, h, h)), (c.shape[0], c.shape[1], jit.num_threads(),
                                                   need_grad), ())
    return h, c2, kept


def nn_gru_gates(gx, gh, h, need_grad):
    """One GRU step: ``(h', kept)`` as the base's default gives them (see the module).

    >>> nn_gru_gates(np.zeros((1, 3)), np.zeros((1, 3)), np.ones((1, 1)), False)[0].tolist()
    [[0.5]]
    """
    k = _kernel("gru_gates", gx, gh, h)
    if k is None:
        return _gru_default(gx, gh, h, need_grad)
    out = np.empty_like(h)
    kept = None
    if need_grad:
        kept = (np.empty_like(gx), np.empty_like(gx), np.empty_like(h))
    k((gx, gh, h, out) + (kept or (out, out, out)), (h.shape[0], h.shape[1], jit.num_threads(),
                                                     need_grad), ())
    return out, kept
