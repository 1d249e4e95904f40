"""The C math helpers of the compiled kernels, one copy each: the element-wise maps
(``maps.py``), the row programs (``rows.py``), the activations (``activations.py``) and the
recurrent gates (``recurrent.py``) paste the ones they use into their sources.

``EXPF``/``EXP``: exp as an inline polynomial (Cephes), which the compiler vectorises: x is
clamped (NaN stays NaN: both tests are false for it), reduced to r = x - k*ln2 with
|r| <= ln2/2, and scaled by 2^k in two halves so that subnormal results round once and overflow
gives inf. ``EXPF`` also holds ``ember_expf_neg``, the same polynomial for x <= 0 with one
scaling (0 below the normal range), which the GELU kernels use.

``TANHF``/``TANH``: Cephes tanh, an odd rational (float: polynomial) below 0.625, else
``1 - 2 / (exp(2|x|) + 1)`` through ``EXPF``/``EXP`` (pasted before them); the sign is copied
back, so -0.0 stays -0.0.
"""

__all__ = ["EXPF", "EXP", "TANHF", "TANH"]

EXPF = """
/* exp(r) for |r| <= ln2/2: Cephes expf's degree-6 polynomial (the one copy of it) */
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
