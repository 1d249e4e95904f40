"""C kernel of the embedding gradient: each row of ``g`` added into the row of ``out`` its
index names, in index order: the order, and so the float sums, of ``np.add.at(out, idx, g)``,
which takes 0.77 ms on a GPT's (1024, 64) rows where this loop takes about 0.1 ms.

The kernel's arguments: arrays (g, idx, out), ``g`` (count, D) and ``out`` (rows, D)
C-contiguous of one float dtype, ``idx`` (count,) int64 of indices in [0, rows) (the caller has
checked them); ints (count, D).

>>> from ember.backends.numpy.jit import scatter
>>> scatter.source("float32")[0]
'ember_rows_add_float32'
"""

from .compiler import PRELUDE

_ROWS_ADD = """
EMBER_EXPORT void NAME(char **p, const int64_t *n, const double *f) {
    const T *g = (const T *)p[0];
    const int64_t *idx = (const int64_t *)p[1];
    T *out = (T *)p[2];
    const int64_t count = n[0], d = n[1];
    (void)f;
    for (int64_t i = 0; i < count; i++) {
        T *o = out + idx[i] * d;
        const T *gi = g + i * d;
        #pragma omp simd
        for (int64_t j = 0; j < d; j++) o[j] += gi[j];
    }
}
"""

_SOURCES = {}


def source(dtype):
    """``(name, C source)`` of the row-adding kernel for ``dtype`` (``"float32"``/``"float64"``)."""
    found = _SOURCES.get(dtype)
    if found is None:
        name = f"ember_rows_add_{dtype}"
        ctype = "float" if dtype == "float32" else "double"
        found = _SOURCES[dtype] = (name, PRELUDE + f"typedef {ctype} T;\n"
                                   + _ROWS_ADD.replace("NAME", name))
    return found
