"""The C math helpers of the compiled kernels, one copy each: the element-wise maps
(``maps.py``), the row programs (``rows.py``), the activations (``activations.py``) and the
recurrent gates (``recurrent.py``) paste the ones they use into their sources.

``EXPF``/``EXP``: exp as an inline polynomial (Cephes), which the compiler vectorises: x is
clamped (NaN stays NaN: both tests are false for it), reduced to r = x - k*ln2 with
|r| <= ln2/2, and scaled by 2^k in two halves so that subnormal results round once and overflow
gives inf. ``EXPF`` also holds ``ember_expf_neg``, the same polynomial for x <= 0 with one
scaling (0 below the normal range), which the GELU kernels use; ``EXPF_NEG_VECTOR`` is its twin
on the vectors of ``VECTOR_ISA`` (intrinsics where the compiler targets AVX-512 or AVX2), with
the same operations in the same order, so the same bits.

``TANHF``/``TANH``: Cephes tanh, an odd rational (float: polynomial) below 0.625, else
``1 - 2 / (exp(2|x|) + 1)`` through ``EXPF``/``EXP`` (pasted before them); the sign is copied
back, so -0.0 stays -0.0.
"""

__all__ = ["EXPF", "EXP", "TANHF", "TANH", "VECTOR_ISA", "EXPF_NEG_VECTOR"]

EXPF = """
/* exp(r) for |r| <= ln2/2: Cephes expf's degree-6 polynomial (EXPF_NEG_VECTOR's too) */
static inline float ember_expf_poly(float r) {
    float q = 1.9875691500e-4f;
    q = q * r + 1.3981999507e-3f;
    q = q * r + 8.3334519073e-3f;
    q = q * r + 4.1665795894e-2f;
    q = q * r + 1.6666665459e-1f;
    q = q * r + 5.0000001201e-1f;
    return q * r * r + r + 1.0f;
}
static inline float ember_expf(float x) {
    x = x < -104.0f ? -104.0f : x;
    x = x > 88.8f ? 88.8f : x;
    float k = __builtin_rintf(x * 1.44269504088896341f);
    float r = x - k * 0.693359375f;
    r = r - k * -2.12194440e-4f;
    float q = ember_expf_poly(r);
    uint32_t n = (uint32_t)(int32_t)k;
    uint32_t n1 = (uint32_t)((int32_t)n >> 1), n2 = n - n1;
    uint32_t b1 = (n1 + 127u) << 23, b2 = (n2 + 127u) << 23;
    float s1, s2;
    memcpy(&s1, &b1, 4);
    memcpy(&s2, &b2, 4);
    return q * s1 * s2;
}
/* exp(x) for x <= 0 or NaN, where a result below the normal range may be 0 (one scaling:
   cheaper, for the GELU kernels, whose exp(-x*x/2) multiplies a value that is tiny then) */
static inline float ember_expf_neg(float x) {
    float xs = !(x >= -87.3f) ? -87.3f : x;           /* a NaN takes -87.3 for the exponent */
    float k = __builtin_rintf(xs * 1.44269504088896341f);
    float r = x - k * 0.693359375f;
    r = r - k * -2.12194440e-4f;
    union { int32_t i; float f; } scale;
    scale.i = ((int32_t)k + 127) << 23;
    return x < -87.3f ? 0.0f : ember_expf_poly(r) * scale.f;
}
"""

# float32 vectors of intrinsics where the compiler targets AVX-512 (16 lanes; the power of two by
# vscalefps) or AVX2 with FMA (8 lanes; the power of two built in integer lanes, as the scalar
# code does), EV defined then; EV_POW2(q, k, low) is q * 2^k, 0 where ``low``
VECTOR_ISA = """
#if defined(__AVX512F__)
#include <immintrin.h>
#define EV 16
typedef __m512 ev_t;
typedef __mmask16 em_t;
#define EV_SET1 _mm512_set1_ps
#define EV_LOAD _mm512_loadu_ps
#define EV_STORE _mm512_storeu_ps
#define EV_ADD _mm512_add_ps
#define EV_SUB _mm512_sub_ps
#define EV_MUL _mm512_mul_ps
#define EV_DIV _mm512_div_ps
#define EV_MAX _mm512_max_ps
#define EV_FMA _mm512_fmadd_ps
#define EV_FNMA _mm512_fnmadd_ps
#define EV_ABS _mm512_abs_ps
#define EV_ZERO _mm512_setzero_ps
#define EV_ROUND(v) _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define EV_LT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define EV_SELECT(m, a, b) _mm512_mask_blend_ps(m, b, a)
#define EV_POW2(q, k, low) _mm512_maskz_scalef_ps((em_t)~(low), q, k)
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define EV 8
typedef __m256 ev_t;
typedef __m256 em_t;
#define EV_SET1 _mm256_set1_ps
#define EV_LOAD _mm256_loadu_ps
#define EV_STORE _mm256_storeu_ps
#define EV_ADD _mm256_add_ps
#define EV_SUB _mm256_sub_ps
#define EV_MUL _mm256_mul_ps
#define EV_DIV _mm256_div_ps
#define EV_MAX _mm256_max_ps
#define EV_FMA _mm256_fmadd_ps
#define EV_FNMA _mm256_fnmadd_ps
#define EV_ABS(v) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v)
#define EV_ZERO _mm256_setzero_ps
#define EV_ROUND(v) _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define EV_LT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define EV_SELECT(m, a, b) _mm256_blendv_ps(b, a, m)
#define EV_POW2(q, k, low) _mm256_andnot_ps(low, _mm256_mul_ps(q, _mm256_castsi256_ps( \
    _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(k), _mm256_set1_epi32(127)), 23))))
#endif
"""


# ember_expf_neg on a vector of VECTOR_ISA: the scalar function's operations in its order, so
# that both give the same bits (the polynomial's coefficients are ember_expf_poly's)
EXPF_NEG_VECTOR = """
#ifdef EV
static inline ev_t ember_expf_neg_v(ev_t x) {
    em_t low = EV_LT(x, EV_SET1(-87.3f));
    ev_t k = EV_ROUND(EV_MUL(EV_MAX(x, EV_SET1(-87.3f)), EV_SET1(1.44269504088896341f)));
    ev_t r = EV_FNMA(k, EV_SET1(0.693359375f), x);  /* (max: a NaN takes -87.3, as above) */
    r = EV_FNMA(k, EV_SET1(-2.12194440e-4f), r);
    ev_t q = EV_SET1(1.9875691500e-4f);
    q = EV_FMA(q, r, EV_SET1(1.3981999507e-3f));
    q = EV_FMA(q, r, EV_SET1(8.3334519073e-3f));
    q = EV_FMA(q, r, EV_SET1(4.1665795894e-2f));
    q = EV_FMA(q, r, EV_SET1(1.6666665459e-1f));
    q = EV_FMA(q, r, EV_SET1(5.0000001201e-1f));
    q = EV_ADD(EV_FMA(EV_MUL(q, r), r, r), EV_SET1(1.0f));
    return EV_POW2(q, k, low);
}
#endif
"""

EXP = """
static inline double ember_exp(double x) {
    x = x < -746.0 ? -746.0 : x;
    x = x > 710.0 ? 710.0 : x;
    double k = __builtin_rint(x * 1.4426950408889634073599);
    double r = x - k * 6.93145751953125e-1;
    r = r - k * 1.42860682030941723212e-6;
    double rr = r * r;
    double px = r * ((1.26177193074810590878e-4 * rr + 3.02994407707441961300e-2) * rr
                     + 9.99999999999999999910e-1);
    double qx = ((3.00198505138664455042e-6 * rr + 2.52448340349684104192e-3) * rr
                 + 2.27265548208155028766e-1) * rr + 2.00000000000000000009e0;
    double q = 1.0 + 2.0 * (px / (qx - px));
    /* 2^k1 and 2^k2 from the low bits of k + 1023 + 2^52 (AVX2 has no double to int64) */
    double k1 = __builtin_floor(k * 0.5), k2 = k - k1;
    double t1 = k1 + 1023.0 + 4503599627370496.0, t2 = k2 + 1023.0 + 4503599627370496.0;
    uint64_t b1, b2;
    memcpy(&b1, &t1, 8);
    memcpy(&b2, &t2, 8);
    b1 <<= 52;
    b2 <<= 52;
    double s1, s2;
    memcpy(&s1, &b1, 8);
    memcpy(&s2, &b2, 8);
    return q * s1 * s2;
}
"""

TANHF = """
static inline float em_tanhf(float x) {
    float a = fabsf(x);
    float z = a * a;
    float p = -5.70498872745E-3f;
    p = p * z + 2.06390887954E-2f;
    p = p * z - 5.37397155531E-2f;
    p = p * z + 1.33314422036E-1f;
    p = p * z - 3.33332819422E-1f;
    float small = a + a * (p * z);
    float big = 1.0f - 2.0f / (ember_expf(a + a) + 1.0f);
    return copysignf(a < 0.625f ? small : big, x);
}"""

TANH = """
static inline double em_tanh(double x) {
    double a = fabs(x);
    double z = a * a;
    double p = (-9.64399179425052238628E-1 * z - 9.92877231001918586564E1) * z
               - 1.61468768441708447952E3;
    double q = ((z + 1.12811678491632931402E2) * z + 2.23548839060100448583E3) * z
               + 4.84406305325125486048E3;
    double small = a + a * z * (p / q);
    double big = 1.0 - 2.0 / (ember_exp(a + a) + 1.0);
    return copysign(a < 0.625 ? small : big, x);
}"""
