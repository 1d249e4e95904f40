"""C kernels of the GELU activation (exact and tanh), of SiLU and of their gradients, float32
and float64.

float32 is computed in float32: ``Phi(x) = 1 - h`` (``x >= 0``) or ``h`` (``x < 0``) with
``h = erfc(|x|/sqrt(2))/2 = exp(-x*x/2) * t * R(t) / 2`` and ``t = 1/(1 + |x|/(2 sqrt(2)))``,
``R`` a degree-8 polynomial (relative error 4e-8, 3e-7 in float32 arithmetic), and an inline
exp polynomial, so the loop vectorises (the rounding of ``x*x`` costs ``exp(-x*x/2)`` a relative
``x*x * 6e-8``: 6e-6 at ``|x| = 10``, where GELU is below 1e-22). The tanh form is ``x * sigmoid(2y)``, its gradient
``s + 2 x s (1 - s) y'`` with ``s (1 - s) = m / (1 + m)^2``, ``m = exp(-2|y|)``: one exp each,
never an overflow. float64 calls the C library's erfc and exp.

On a CPU with AVX-512 (or AVX2 with FMA) the float32 exact kernels run the same operations, in
the same order, on two 16-lane (8-lane) vectors per iteration, with intrinsics: 1.96 -> 1.60 ms
for 4M elements on one thread of the machine of docs/performance.md (AVX2 build there: 3.10 ->
2.66 ms), where GCC's vectorisation of the portable loop runs one vector per iteration. The
elements past the last whole pair take the portable loop; both give the same bits
(tests/nn/test_compiled_gelu.py).

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


def _vector_exact(name, grad):
    """C text of ``name``'s vector half (AVX-512 or AVX2, ``cmath.VECTOR_ISA``):
    ``{name}_pairs(..., lo, hi)`` computes the elements ``lo`` to ``hi`` (a multiple of
    ``2 * EV`` apart) with the operations of ``_f32_exact``'s body in the same order."""
    half_r = tuple(0.5 * c for c in ERFC_R)
    horner = "\n".join(f"    p = EV_FMA(p, t, EV_SET1({c!r}f));" for c in half_r[1:])
    tail = (f"return EV_MUL(g, EV_FMA(EV_MUL(x, e), EV_SET1({_INV_SQRT_2PI!r}f), phi));"
            if grad else "return EV_MUL(x, phi);")
    args = "const float *g, const float *x, float *out" if grad else "const float *x, float *out"
    params = "ev_t g, ev_t x" if grad else "ev_t x"
    loads, *values = (("ev_t ga = EV_LOAD(g + i), gb = EV_LOAD(g + i + EV);\n        ", "ga, xa", "gb, xb")
                     if grad else ("", "xa", "xb"))
    return cmath.VECTOR_ISA + cmath.EXPF_NEG_VECTOR + f"""
#ifdef EV
static inline ev_t {name}_v({params}) {{
    const ev_t one = EV_SET1(1.0f);
    ev_t t = EV_DIV(one, EV_FMA(EV_ABS(x), EV_SET1({ERFC_T_SCALE * _SQRT_HALF!r}f), one));
    ev_t z = EV_MUL(EV_MUL(EV_SET1(-0.5f), x), x);
    ev_t e = ember_expf_neg_v(z);
    ev_t p = EV_SET1({half_r[0]!r}f);
{horner}
    ev_t h = EV_MUL(EV_MUL(e, t), p);
    ev_t phi = EV_SELECT(EV_LT(x, EV_ZERO()), h, EV_SUB(one, h));
    {tail}
}}
static void {name}_pairs({args}, int64_t lo, int64_t hi) {{
    for (int64_t i = lo; i < hi; i += 2 * EV) {{
        {loads}ev_t xa = EV_LOAD(x + i), xb = EV_LOAD(x + i + EV);
        EV_STORE(out + i, {name}_v({values[0]}));
        EV_STORE(out + i + EV, {name}_v({values[1]}));
    }}
}}
#endif
"""


def _pairs_first(name, grad):
    """C text that runs ``name``'s vector half on the whole pairs of vectors (on the threads
    from ``_THREADS_FROM`` elements) and moves the pointers past them, for the portable loop."""
    arrays, step_g = ("g, x, out", "g += head; ") if grad else ("x, out", "")
    return f"""#ifdef EV
    {{
    const int64_t head = size - size % (2 * EV);
    if (head >= {_THREADS_FROM} && nt > 1) {{
        const int64_t block = 4096, blocks = (head + block - 1) / block;
        int done = 0;
        #pragma omp parallel num_threads(nt)
        {{
        #pragma omp for schedule(guided, CHUNK_NUMEL / 4096) nowait
        for (int64_t b = 0; b < blocks; b++)
            {name}_pairs({arrays}, b * block, (b + 1) * block < head ? (b + 1) * block : head);
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
              + (_vector_exact(name, grad) if pairs else "") + f"""
EMBER_EXPORT void {name}(char **p, const int64_t *n, const double *f) {{
    {args}
    int64_t size = n[0];
    const int nt = (int)n[1];
    (void)f;
{_pairs_first(name, grad) if pairs else ""}{simd_loop("size", "nt", _THREADS_FROM, f"    const {ctype} xi = x[i];" + _BODIES[(dtype, approximate)](grad))}}}
""")
    _SOURCES[key] = (name, source)
    return name, source
