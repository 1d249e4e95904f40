"""C kernel of the outer product of two vectors, ``out[i, j] = a[i] * b[j]``.

A matrix product with one term, ``(m, 1) @ (1, n)`` (the weight gradient of a linear layer at
batch 1), is this product. NumPy's broadcast multiply of an (m, 1) and a (1, n) array runs a
scalar loop per row: 9.6 µs for (128, 1) * (1, 185) float32 on the machine of
docs/performance.md (0.4 ns an element, where an add of two (128, 185) arrays takes 0.1); the
kernel's rows are vector loops. One rounding per element, as NumPy's: the same values, signs of
zero included.

>>> import numpy as np
>>> from ember.backends.numpy.jit import outer
>>> outer.source("float32")[0]
'ember_outer_float32'
>>> out = outer.product(np.ones((16, 1)), np.arange(16.0)[None])  # None while it compiles
>>> out is None or out[3].tolist() == list(range(16))
True
"""

import numpy as np

from .. import jit
from .compiler import C_TYPES, FLOAT_NAMES, PRELUDE

MIN_NUMEL = 256  # elements of the product below which NumPy's call costs less than a launch
_SOURCES = {}


def product(a, b):
    """``a * b`` of an (m, 1) and a (1, n) array by the kernel, or None where it does not
    apply (other dtypes, a small product, strides that are no whole elements, the kernel
    still compiling)."""
    m, n = a.shape[0], b.shape[1]
    name = FLOAT_NAMES.get(a.dtype)
    if (name is None or m * n < MIN_NUMEL or a.dtype is not b.dtype or a.strides[0] % a.itemsize
            or b.strides[1] % b.itemsize):
        return None
    k = jit.kernel(*source(name))
    if k is None:
        return None
    out = np.empty((m, n), a.dtype)
    k((a, b, out), (m, n, a.strides[0] // a.itemsize, b.strides[1] // b.itemsize), ())
    return out


def source(dtype_name):
    """``(name, C source)`` of the outer product of ``dtype_name`` ("float32" or "float64")
    vectors. Arrays: ``(a, b, out)``; ints: ``(m, n, a's stride, b's stride)`` in elements;
    ``out`` is C-contiguous (m, n)."""
    found = _SOURCES.get(dtype_name)
    if found is not None:
        return found
    ctype = C_TYPES[dtype_name]
    name = f"ember_outer_{dtype_name}"
    text = PRELUDE + f"""
EMBER_EXPORT void {name}(char **p, const int64_t *n, const double *f) {{
    const {ctype} *a = (const {ctype} *)p[0], *b = (const {ctype} *)p[1];
    {ctype} *out = ({ctype} *)p[2];
    const int64_t m = n[0], k = n[1], sa = n[2], sb = n[3];
    (void)f;
    for (int64_t i = 0; i < m; i++) {{
        const {ctype} x = a[i * sa];
        {ctype} *o = out + i * k;
        if (sb == 1) {{
            for (int64_t j = 0; j < k; j++) o[j] = x * b[j];
        }} else {{
            for (int64_t j = 0; j < k; j++) o[j] = x * b[j * sb];
        }}
    }}
}}
"""
    _SOURCES[dtype_name] = (name, text)
    return name, text
