"""C kernels of copies whose layout is a transpose: a permuted view made C-contiguous.

A view is first reduced to as few axes as its layout allows (neighbouring axes that are
contiguous in the source merge). When an axis ``u`` other than the last then reads with unit
stride, the copy is a batch of 2-D transposes ``out[b][i, j] = src[b][i + j * ld]``, copied
in square tiles (reads and writes each touch a few cache lines per tile row), by element
size: 4 or 8 bytes move as bit patterns, so every dtype of that size (float32, int32, uint32,
float64, int64, complex64...) shares the kernel.

>>> import numpy as np
>>> from ember.backends.numpy.jit import transpose
>>> x = np.zeros((64, 32), dtype=np.float32).T
>>> plan = transpose.plan(x)
>>> plan[:4]
(1, 32, 64, 32)
"""

import numpy as np

from .compiler import PRELUDE

TILE = 64
# elements from which a copy runs on the threads (a second thread's wake-up, 40-70 µs on the
# 2-core machine of docs/performance.md, costs more than it saves below: a (512, 512) float32
# copy took 147 µs on one thread, 166 on two)
PARALLEL_NUMEL = 524288
_SOURCES = {}

_AVX_8x8 = """
#if defined(__AVX__)
#include <immintrin.h>
#define EMBER_HAVE_TILE8 1
/* the 8x8 block at src (row stride ls) transposed into dst (row stride ld), 4-byte elements */
static inline void tile8x8(const float *src, int64_t ls, float *dst, int64_t ld) {
    __m256 r0 = _mm256_loadu_ps(src + 0 * ls), r1 = _mm256_loadu_ps(src + 1 * ls);
    __m256 r2 = _mm256_loadu_ps(src + 2 * ls), r3 = _mm256_loadu_ps(src + 3 * ls);
    __m256 r4 = _mm256_loadu_ps(src + 4 * ls), r5 = _mm256_loadu_ps(src + 5 * ls);
    __m256 r6 = _mm256_loadu_ps(src + 6 * ls), r7 = _mm256_loadu_ps(src + 7 * ls);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(dst + 0 * ld, _mm256_permute2f128_ps(s0, s4, 0x20));
    _mm256_storeu_ps(dst + 1 * ld, _mm256_permute2f128_ps(s1, s5, 0x20));
    _mm256_storeu_ps(dst + 2 * ld, _mm256_permute2f128_ps(s2, s6, 0x20));
    _mm256_storeu_ps(dst + 3 * ld, _mm256_permute2f128_ps(s3, s7, 0x20));
    _mm256_storeu_ps(dst + 4 * ld, _mm256_permute2f128_ps(s0, s4, 0x31));
    _mm256_storeu_ps(dst + 5 * ld, _mm256_permute2f128_ps(s1, s5, 0x31));
    _mm256_storeu_ps(dst + 6 * ld, _mm256_permute2f128_ps(s2, s6, 0x31));
    _mm256_storeu_ps(dst + 7 * ld, _mm256_permute2f128_ps(s3, s7, 0x31));
}
#endif
"""

_AVX_4x4 = """
#if defined(__AVX__)
#include <immintrin.h>
#define EMBER_HAVE_TILE4 1
/* the 4x4 block at src (row stride ls) transposed into dst (row stride ld), 8-byte elements */
static inline void tile4x4(const double *src, int64_t ls, double *dst, int64_t ld) {
    __m256d r0 = _mm256_loadu_pd(src + 0 * ls), r1 = _mm256_loadu_pd(src + 1 * ls);
    __m256d r2 = _mm256_loadu_pd(src + 2 * ls), r3 = _mm256_loadu_pd(src + 3 * ls);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(dst + 0 * ld, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(dst + 1 * ld, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(dst + 2 * ld, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(dst + 3 * ld, _mm256_permute2f128_pd(t1, t3, 0x31));
}
#endif
"""


def source(itemsize):
    """``(name, C source)`` of the tiled transpose copy of ``itemsize``-byte elements (4 or 8).
    Arrays: ``(src, out, src_offsets, out_offsets)`` (int64 element offsets of each batch
    entry); ints: ``(batch, rows, cols, src_ld, out_ld, threads)``; ``out[o + i * out_ld + j] =
    src[s + i + j * src_ld]`` for ``i < rows, j < cols``."""
    found = _SOURCES.get(itemsize)
    if found is not None:
        return found
    name = f"ember_transpose_copy_{itemsize}"
    if itemsize == 4:
        ctype, block, helper, call = "uint32_t", 8, _AVX_8x8, "EMBER_HAVE_TILE8"
        fast = "tile8x8((const float *)(s + i + j * ls), ls, (float *)(d + i * ld + j), ld);"
    else:
        ctype, block, helper, call = "uint64_t", 4, _AVX_4x4, "EMBER_HAVE_TILE4"
        fast = "tile4x4((const double *)(s + i + j * ls), ls, (double *)(d + i * ld + j), ld);"
    text = PRELUDE + helper + f"""
#define TB {TILE}
EMBER_EXPORT void {name}(char **p, const int64_t *n, const double *f) {{
    const {ctype} *src = (const {ctype} *)p[0];
    {ctype} *out = ({ctype} *)p[1];
    const int64_t *soff = (const int64_t *)p[2], *ooff = (const int64_t *)p[3];
    const int64_t batch = n[0], rows = n[1], cols = n[2], ls = n[3], ld = n[4];
    const int nt = (int)n[5];
    const int64_t tr = (rows + TB - 1) / TB, tc = (cols + TB - 1) / TB, tiles = batch * tr * tc;
    (void)f;
    int done = 0;
    #pragma omp parallel num_threads(nt) if(batch * rows * cols >= {PARALLEL_NUMEL})
    {{
    #pragma omp for schedule(guided, 4) nowait
    for (int64_t t = 0; t < tiles; t++) {{
        const int64_t b = t / (tr * tc), r = t % (tr * tc);
        const int64_t i0 = (r / tc) * TB, j0 = (r % tc) * TB;
        const int64_t i1 = i0 + TB < rows ? i0 + TB : rows, j1 = j0 + TB < cols ? j0 + TB : cols;
        const {ctype} *s = src + soff[b];
        {ctype} *d = out + ooff[b];
#ifdef {call}
        if (i1 - i0 == TB && j1 - j0 == TB) {{
            for (int64_t j = j0; j < j1; j += {block})
                for (int64_t i = i0; i < i1; i += {block})
                    {fast}
            continue;
        }}
#endif
        for (int64_t i = i0; i < i1; i++)
            for (int64_t j = j0; j < j1; j++)
                d[i * ld + j] = s[i + j * ls];
    }}
    ember_join(&done);
    }}
}}
"""
    _SOURCES[itemsize] = (name, text)
    return name, text


def plan(a):
    """How to copy the view ``a`` into a C-contiguous array with the kernel: ``(batch, rows,
    cols, src_ld, out_ld, src_offsets, out_offsets)``, or None when its layout is no transpose
    (no axis but the last reads with unit stride, or the last does)."""
    size = a.itemsize
    dims = []                                  # (length, source stride in elements), merged
    for n, s in zip(a.shape, a.strides):
        if n == 1:
            continue
        if s % size:
            return None
        s //= size
        if dims and dims[-1][1] == s * n:
            dims[-1] = (dims[-1][0] * n, s)
        else:
            dims.append((n, s))
    if len(dims) < 2 or dims[-1][1] == 1:
        return None
    unit = [k for k, (_, s) in enumerate(dims) if s == 1]
    if not unit:
        return None
    u = unit[0]
    out_strides = [1] * len(dims)
    for k in range(len(dims) - 2, -1, -1):
        out_strides[k] = out_strides[k + 1] * dims[k + 1][0]
    src_off = np.zeros(1, dtype=np.int64)
    out_off = np.zeros(1, dtype=np.int64)
    for k, (n, s) in enumerate(dims[:-1]):
        if k == u:
            continue
        steps = np.arange(n, dtype=np.int64)
        src_off = (src_off[:, None] + steps * s).ravel()
        out_off = (out_off[:, None] + steps * out_strides[k]).ravel()
    return (src_off.size, dims[u][0], dims[-1][0], dims[-1][1], out_strides[u], src_off,
            out_off)
