"""C kernels of the GELU activation (exact and tanh), of SiLU and of their gradients, float32
and float64.

float32 is computed in float32: ``Phi(x) = 1 - h`` (``x >= 0``) or ``h`` (``x < 0``) with
``h = erfc(|x|/sqrt(2))/2 = exp(-x*x/2) * t * R(t) / 2`` and ``t = 1/(1 + |x|/(2 sqrt(2)))``,
``R`` a degree-8 polynomial (relative error 4e-8, 3e-7 in float32 arithmetic), and an inline
exp polynomial, so the loop vectorises (the rounding of ``x*x`` costs ``exp(-x*x/2)`` a relative
``x*x * 6e-8``: 6e-6 at ``|x| = 10``, where GELU is below 1e-22). The tanh form is ``x * sigmoid(2y)``, its gradient
``s + 2 x s (1 - s) y'`` with ``s (1 - s) = m / (1 + m)^2``, ``m = exp(-2|y|)``: one exp each,
never an overflow. float64 calls the C library's erfc and exp.

On a CPU with AVX-512 the float32 exact kernels run the same operations, in the same order,
on two 16-lane vectors per iteration (intrinsics; ``vscalefps`` multiplies by the power of two,
exactly as the portable multiply does): 1.96 -> 1.74 ms for 4M elements on one thread of the
machine of docs/performance.md, where GCC's vectorisation of the portable loop runs one vector
per iteration and builds the power of two in integer registers. The elements past the last whole
pair take the portable loop; both give the same bits (tests/nn/test_compiled_gelu.py).

>>> from ember.backends.numpy.jit import activations
>>> name, source = activations.gelu_source("float32", "none", grad=False)
>>> name
'ember_gelu_none_fwd_float32'
"""

from . import cmath
from .compiler import PRELUDE, simd_loop

# erfc(a) = exp(-a*a) * t * R(t), t = 1 / (1 + a/2), a >= 0; R's coefficients, highest first
ERFC_R = (-0.05907003315333424, 0.2845800338876153, -0.4872100153229698, 0.27807824364756545,
          -0.026632923815108928, 0.20268976310213016, 0.24310308031302796, 0.28237539509106496,
          0.2820864133599883)
ERFC_T_SCALE = 0.5

_SQRT_HALF = 0.70710678118654752440
_INV_SQRT_2PI = 0.39894228040143267794
_SQRT_2_OVER_PI = 0.79788456080286535588
_GELU_C = 0.044715


def _horner(var, coefs, suffix):
    expr = f"{coefs[0]!r}{suffix}"
    for c in coefs[1:]:
        expr = f"({expr} * {var} + {c!r}{suffix})"
    return expr




def _f32_exact(grad):
    half_r = tuple(0.5 * c for c in ERFC_R)
    body = f"""
    float ax = xi < 0.0f ? -xi : xi;
    float t = 1.0f / (1.0f + ax * {ERFC_T_SCALE * _SQRT_HALF!r}f);
    float e = ember_expf_neg(-0.5f * xi * xi);
    float h = e * t * {_horner("t", half_r, "f")};
    float phi = xi < 0.0f ? h : 1.0f - h;"""
    if grad:
        return body + f"""
    out[i] = g[i] * (phi + xi * e * {_INV_SQRT_2PI!r}f);"""
    return body + """
    out[i] = xi * phi;"""


def _f32_tanh(grad):
    body = f"""
    float y = {_SQRT_2_OVER_PI!r}f * (xi + {_GELU_C!r}f * xi * xi * xi);
    float ay = y < 0.0f ? -y : y;
    float m = ember_expf_neg(-2.0f * ay);
    float q = 1.0f / (1.0f + m);
    float s = y < 0.0f ? m * q : q;"""
    if grad:
        return body + f"""
    float dy = {_SQRT_2_OVER_PI!r}f * (1.0f + {3.0 * _GELU_C!r}f * xi * xi);
    out[i] = g[i] * (s + 2.0f * xi * (m * q * q) * dy);"""
    return body + """
    out[i] = xi * s;"""


def _f64_exact(grad):
    body = f"""
    double phi = 0.5 * erfc(-xi * {_SQRT_HALF!r});"""
    if grad:
        return body + f"""
    out[i] = g[i] * (phi + xi * exp(-0.5 * xi * xi) * {_INV_SQRT_2PI!r});"""
    return body + """
    out[i] = xi * phi;"""


def _f64_tanh(grad):
    body = f"""
    double y = {_SQRT_2_OVER_PI!r} * (xi + {_GELU_C!r} * xi * xi * xi);
    double m = exp(-2.0 * fabs(y));
    double q = 1.0 / (1.0 + m);
    double s = y < 0.0 ? m * q : q;"""
    if grad:
        return body + f"""
    double dy = {_SQRT_2_OVER_PI!r} * (1.0 + {3.0 * _GELU_C!r} * xi * xi);
    out[i] = g[i] * (s + 2.0 * xi * (m * q * q) * dy);"""
    return body + """
    out[i] = xi * s;"""


def _f32_silu(grad):
    return _silu_body("float", "ember_expf", "fabsf", "f", grad)


def _f64_silu(grad):
    return _silu_body("double", "exp", "fabs", "", grad)


def _silu_body(ctype, exp, fabs, suffix, grad):
    """SiLU ``x * s`` and its gradient ``g * (s * (1 + x * (1 - s)))``, ``s`` the sigmoid of the
    NumPy path and of ``sigmoid``'s compiled map: ``e = exp(-|x|)``, ``1 / (1 + e)`` at
    ``x >= 0``, else ``e / (1 + e)``."""
    one = f"1.0{suffix}"
    body = f"""
    {ctype} e = {exp}(-{fabs}(xi));
    {ctype} s = xi >= 0.0{suffix} ? {one} / ({one} + e) : e / ({one} + e);"""
    if grad:
        return body + f"""
    out[i] = g[i] * (s * ({one} + xi * ({one} - s)));"""
    return body + """
    out[i] = xi * s;"""


def _avx512_exact(name, grad):
    """C text of ``name``'s AVX-512 half: ``{name}_pairs(..., lo, hi)`` computes the elements
    ``lo`` to ``hi`` (a multiple of 32 apart) exactly as ``_f32_exact``'s body does."""
    half_r = tuple(0.5 * c for c in ERFC_R)
    horner = "\n".join(f"    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps({c!r}f));" for c in half_r[1:])
    tail = ("return _mm512_mul_ps(g, _mm512_fmadd_ps(_mm512_mul_ps(x, e), "
            f"_mm512_set1_ps({_INV_SQRT_2PI!r}f), phi));" if grad else "return _mm512_mul_ps(x, phi);")
    args = "const float *g, const float *x, float *out" if grad else "const float *x, float *out"
    params = "__m512 g, __m512 x" if grad else "__m512 x"
    loads = [("_mm512_loadu_ps(g + i + {o}), " if grad else "") + "_mm512_loadu_ps(x + i + {o})"
             for o in ("0", "16")]
    return f"""
#if defined(__AVX512F__)
#include <immintrin.h>
#define EMBER_HAVE_PAIRS 1
static inline __m512 {name}_v({params}) {{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 ax = _mm512_abs_ps(x);
    __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(ax, _mm512_set1_ps({ERFC_T_SCALE * _SQRT_HALF!r}f), one));
    __m512 z = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), x), x);
    __mmask16 low = _mm512_cmp_ps_mask(z, _mm512_set1_ps(-87.3f), _CMP_LT_OQ);
    __m512 zs = _mm512_max_ps(z, _mm512_set1_ps(-87.3f));  /* a NaN z takes -87.3, as in C */
    __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(zs, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), z);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 q = _mm512_set1_ps(1.9875691500e-4f);
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.3981999507e-3f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(8.3334519073e-3f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(4.1665795894e-2f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.6666665459e-1f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(5.0000001201e-1f));
    q = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(q, r), r, r), one);
    __m512 e = _mm512_maskz_scalef_ps((__mmask16)~low, q, k);
    __m512 p = _mm512_set1_ps({half_r[0]!r}f);
{horner}
    __m512 h = _mm512_mul_ps(_mm512_mul_ps(e, t), p);
    __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
    __m512 phi = _mm512_mask_blend_ps(neg, _mm512_sub_ps(one, h), h);
    {tail}
}}
static void {name}_pairs({args}, int64_t lo, int64_t hi) {{
    for (int64_t i = lo; i < hi; i += 32) {{
        __m512 a = {name}_v({loads[0].format(o=0)});
        __m512 b = {name}_v({loads[1].format(o=16)});
        _mm512_storeu_ps(out + i, a);
        _mm512_storeu_ps(out + i + 16, b);
    }}
}}
#endif
"""


def _pairs_first(name, grad):
    """C text that runs ``name``'s AVX-512 half on the whole pairs of vectors (on the threads
    from ``_THREADS_FROM`` elements) and moves the pointers past them, for the portable loop."""
    arrays, step_g = ("g, x, out", "g += head; ") if grad else ("x, out", "")
    return f"""#ifdef EMBER_HAVE_PAIRS
    {{
    const int64_t head = size - size % 32;
    if (head >= {_THREADS_FROM} && nt > 1) {{
        const int64_t blocks = head / 4096 + (head % 4096 != 0);
        int done = 0;
        #pragma omp parallel num_threads(nt)
        {{
        #pragma omp for schedule(guided, CHUNK_NUMEL / 4096) nowait
        for (int64_t b = 0; b < blocks; b++)
            {name}_pairs({arrays}, b * 4096, b * 4096 + 4096 < head ? b * 4096 + 4096 : head);
        ember_join(&done);
        }}
    }} else {{
        {name}_pairs({arrays}, 0, head);
    }}
    {step_g}x += head;
    out += head;
    size -= head;
    }}
#endif
"""


_BODIES = {("float32", "none"): _f32_exact, ("float32", "tanh"): _f32_tanh,
           ("float64", "none"): _f64_exact, ("float64", "tanh"): _f64_tanh,
           ("float32", "silu"): _f32_silu, ("float64", "silu"): _f64_silu}
_SOURCES = {}
_THREADS_FROM = 262144  # elements from which a kernel runs on the threads


def gelu_source(dtype, approximate, grad):
    """``(name, C source)`` of the GELU kernel for ``dtype`` (``"float32"``/``"float64"``),
    ``approximate`` (``"none"``/``"tanh"``; ``"silu"``: SiLU's kernel), forward or gradient.
    The kernel's arrays are ``(x, out)`` or ``(g, x, out)``, contiguous, of ``dtype``; its ints
    ``(numel, threads)``."""
    key = (dtype, approximate, grad)
    found = _SOURCES.get(key)
    if found is not None:
        return found
    ctype = "float" if dtype == "float32" else "double"
    kind = "silu" if approximate == "silu" else f"gelu_{approximate}"
    name = f"ember_{kind}_{'bwd' if grad else 'fwd'}_{dtype}"
    args = ("const T *g = (const T *)p[0]; const T *x = (const T *)p[1]; T *out = (T *)p[2];"
            if grad else "const T *x = (const T *)p[0]; T *out = (T *)p[1];").replace("T", ctype)
    pairs = (dtype, approximate) == ("float32", "none")
    source = (PRELUDE + (cmath.EXPF if dtype == "float32" else "")
              + (_avx512_exact(name, grad) if pairs else "") + f"""
EMBER_EXPORT void {name}(char **p, const int64_t *n, const double *f) {{
    {args}
    int64_t size = n[0];
    const int nt = (int)n[1];
    (void)f;
{_pairs_first(name, grad) if pairs else ""}{simd_loop("size", "nt", _THREADS_FROM, f"    const {ctype} xi = x[i];" + _BODIES[(dtype, approximate)](grad))}}}
""")
    _SOURCES[key] = (name, source)
    return name, source
