"""ember.torch.special against torch.special: values, dtypes, shapes and gradients on random
inputs (0-d, size-0, 1-D, 2-D and non-contiguous; float32 and float64), PyTorch's documented
special values, the top-level twins and Tensor methods, and the share of torch.special's names
that ember.torch.special has."""

import math

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.autodiff import grad

SHAPES = [(), (0,), (7,), (3, 4)]
DTYPES = ["float32", "float64"]
TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-7, atol=1e-9)}
# torch's CPU kernels of these (Cephes' rational approximations) are accurate to about 1e-7
# absolute in float64 in the mid range; ember's agree with SciPy to 1e-15 there.
LOOSE = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"}

# name: (low, high, torch has a gradient)
UNARY = {
    "gammaln": (-4.5, 8.0, True), "digamma": (-4.5, 8.0, True), "psi": (0.1, 8.0, True),
    "erf": (-3.0, 3.0, True), "erfc": (-5.0, 6.0, True), "erfcx": (-5.0, 30.0, True),
    "erfinv": (-0.999, 0.999, True), "exp2": (-5.0, 5.0, True), "expit": (-6.0, 6.0, True),
    "expm1": (-3.0, 3.0, True), "log1p": (-0.9, 5.0, True), "i0": (-12.0, 12.0, True),
    "i0e": (-40.0, 40.0, True), "i1": (-12.0, 12.0, True), "i1e": (-40.0, 40.0, True),
    "ndtr": (-8.0, 8.0, True), "ndtri": (0.001, 0.999, True), "log_ndtr": (-20.0, 6.0, True),
    "entr": (0.01, 3.0, True), "sinc": (-3.0, 3.0, True), "logit": (0.01, 0.99, True),
    "round": (-5.0, 5.0, True),
    "modified_bessel_i0": (-12.0, 12.0, False), "modified_bessel_i1": (-12.0, 12.0, False),
    "modified_bessel_k0": (0.05, 40.0, False), "modified_bessel_k1": (0.05, 40.0, False),
    "scaled_modified_bessel_k0": (0.05, 60.0, False),
    "scaled_modified_bessel_k1": (0.05, 60.0, False),
    "bessel_j0": (-40.0, 40.0, False), "bessel_j1": (-40.0, 40.0, False),
    "bessel_y0": (0.1, 40.0, False), "bessel_y1": (0.1, 40.0, False),
    "spherical_bessel_j0": (-10.0, 10.0, False), "airy_ai": (-12.0, 6.0, False),
}


def pair(arr, requires_grad=False):
    """The same values as an ember.torch tensor and a torch tensor."""
    a = np.array(arr, copy=True)
    e = et.tensor(a, requires_grad=requires_grad)
    t = torch.tensor(a, requires_grad=requires_grad)
    return e, t


def check(actual, expected, dtype, loose=False):
    assert isinstance(actual, et.Tensor), type(actual)
    assert tuple(actual.shape) == tuple(expected.shape)
    assert actual.dtype.name == str(expected.dtype).replace("torch.", ""), (actual.dtype,
                                                                          expected.dtype)
    tol = dict(TOL[dtype])
    if loose:
        tol["atol"] = max(tol["atol"], 1e-5)
    np.testing.assert_allclose(np.asarray(actual.detach().numpy(), dtype=np.float64),
                               expected.detach().double().numpy(), equal_nan=True, **tol)


def uniform(rng, shape, dtype, low, high):
    return rng.uniform(low, high, size=shape).astype(dtype)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_values_and_gradients(name, dtype, shape, rng):
    low, high, has_grad = UNARY[name]
    e, t = pair(uniform(rng, shape, dtype, low, high), requires_grad=has_grad)
    out_e = getattr(et.special, name)(e)
    out_t = getattr(torch.special, name)(t)
    check(out_e, out_t, dtype, name in LOOSE)
    assert out_e.requires_grad == out_t.requires_grad
    if has_grad and out_t.numel():
        out_e.sum().backward()
        out_t.sum().backward()
        check(e.grad, t.grad, dtype)


@pytest.mark.parametrize("name", ["gammaln", "erfinv", "i1", "ndtri", "erfcx"])
def test_unary_non_contiguous_and_int_inputs(name, rng):
    low, high, _ = UNARY[name]
    base = uniform(rng, (4, 3), "float64", low, high)
    e = et.tensor(base).T
    t = torch.tensor(base).T
    check(getattr(et.special, name)(e), getattr(torch.special, name)(t), "float64")
    if name in ("gammaln", "i1"):
        ints = np.array([1, 2, 3, 5])
        check(getattr(et.special, name)(et.tensor(ints)),
              getattr(torch.special, name)(torch.tensor(ints)), "float32")


@pytest.mark.parametrize("dtype", DTYPES)
def test_second_derivatives(dtype, rng):
    """The gradient rules differentiate again (d2 lgamma = trigamma, d2 erfinv, d2 i0)."""
    for name, low, high in (("gammaln", 0.2, 6.0), ("erfinv", -0.9, 0.9), ("i0", -4.0, 4.0),
                            ("digamma", 0.3, 5.0), ("ndtri", 0.05, 0.95)):
        a = uniform(rng, (5,), dtype, low, high)
        e, t = pair(a)
        t.requires_grad_(True)
        fn = getattr(et.special, name)
        first = grad(lambda v: fn(v).sum())
        (gt,) = torch.autograd.grad(getattr(torch.special, name)(t).sum(), t,
                                    create_graph=True)
        check(et.as_torch(first(e)), gt, dtype)
        (ggt,) = torch.autograd.grad(gt.sum(), t)
        check(et.as_torch(grad(lambda v: first(v).sum())(e)), ggt, dtype)


# -- functions of two arguments ------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_zeta_gammainc_xlogy(dtype, shape, rng):
    cases = [
        ("zeta", (1.1, 6.0), (0.1, 5.0), (False, True)),
        ("gammainc", (0.1, 10.0), (0.01, 15.0), (False, True)),
        ("gammaincc", (0.1, 10.0), (0.01, 15.0), (False, True)),
        ("xlogy", (-3.0, 3.0), (0.1, 5.0), (True, True)),
        ("xlog1py", (-3.0, 3.0), (-0.9, 5.0), (True, True)),
    ]
    for name, (la, ha), (lb, hb), grads in cases:
        a, b = uniform(rng, shape, dtype, la, ha), uniform(rng, shape, dtype, lb, hb)
        if name.startswith("xlog") and a.size:
            a.flat[0] = 0.0
        ea, ta = pair(a, grads[0])
        eb, tb = pair(b, grads[1])
        out_e = getattr(et.special, name)(ea, eb)
        out_t = getattr(torch.special, name)(ta, tb)
        check(out_e, out_t, dtype)
        if out_t.numel():
            out_e.sum().backward()
            out_t.sum().backward()
            for ee, tt, g in ((ea, ta, grads[0]), (eb, tb, grads[1])):
                if g:
                    check(ee.grad, tt.grad, dtype)


def test_scalar_operands(rng):
    a = uniform(rng, (6,), "float64", 0.5, 4.0)
    e, t = pair(a)
    check(et.special.zeta(e, 2.0), torch.special.zeta(t, 2.0), "float64")
    check(et.special.zeta(3.0, e), torch.special.zeta(3.0, t), "float64")
    check(et.special.xlogy(2.0, e), torch.special.xlogy(2.0, t), "float64")
    check(et.special.xlogy(e, 3.0), torch.special.xlogy(t, 3.0), "float64")
    check(et.special.gammainc(e, et.tensor(1.5, dtype=et.float64)),
          torch.special.gammainc(t, torch.tensor(1.5, dtype=torch.float64)), "float64")
    b = uniform(rng, (3, 1), "float64", 0.5, 4.0)
    eb, tb = pair(b)
    check(et.special.gammaincc(e, eb), torch.special.gammaincc(t, tb), "float64")  # broadcast


@pytest.mark.parametrize("dtype", DTYPES)
def test_polygamma_and_multigammaln(dtype, rng):
    for n in (0, 1, 2, 3):
        x = uniform(rng, (3, 5), dtype, 0.1, 6.0)
        e, t = pair(x, True)
        out_e, out_t = et.special.polygamma(n, e), torch.special.polygamma(n, t)
        check(out_e, out_t, dtype)
        out_e.sum().backward()
        out_t.sum().backward()
        check(e.grad, t.grad, dtype)
    neg = np.array([-2.5, -1.3, -0.7, 0.3], dtype=dtype)
    e, t = pair(neg)
    check(et.special.polygamma(1, e), torch.special.polygamma(1, t), dtype)
    check(et.special.polygamma(2, e), torch.special.polygamma(2, t), dtype)
    for p in (1, 2, 3):
        x = uniform(rng, (4,), dtype, 2.0, 7.0)
        e, t = pair(x, True)
        out_e, out_t = et.special.multigammaln(e, p), torch.special.multigammaln(t, p)
        check(out_e, out_t, dtype)
        out_e.sum().backward()
        out_t.sum().backward()
        check(e.grad, t.grad, dtype)


POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_polynomials(name, dtype, rng):
    low, high = (0.0, 3.0) if name.startswith("laguerre") else \
        (-0.2, 1.2) if name.startswith("shifted") else (-1.2, 1.2)
    x = uniform(rng, (4, 6), dtype, low, high)
    n = rng.integers(-1, 9, size=(4, 6)).astype(dtype)
    ex, tx = pair(x)
    en, tn = pair(n)
    check(getattr(et.special, name)(ex, en), getattr(torch.special, name)(tx, tn), dtype)
    check(getattr(et.special, name)(ex, 3), getattr(torch.special, name)(tx, 3), dtype)
    check(getattr(et.special, name)(ex[0, 0], en[:0]),
          getattr(torch.special, name)(tx[0, 0], tn[:0]), dtype)
    out = getattr(et.special, name)(et.tensor([0.5, -0.5]), et.tensor([2.5, 3]))
    ref = getattr(torch.special, name)(torch.tensor([0.5, -0.5]), torch.tensor([2.5, 3]))
    check(out, ref, "float32")


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_softmax_round_logit(dtype, rng):
    x = uniform(rng, (3, 4), dtype, -3.0, 3.0)
    for dim, keepdim in ((0, False), (-1, True), ((0, 1), False)):
        e, t = pair(x, True)
        out_e = et.special.logsumexp(e, dim, keepdim=keepdim)
        out_t = torch.special.logsumexp(t, dim, keepdim=keepdim)
        check(out_e, out_t, dtype)
        out_e.sum().backward()
        out_t.sum().backward()
        check(e.grad, t.grad, dtype)
    inf = np.array([[-np.inf, -np.inf], [0.0, -np.inf]], dtype=dtype)
    check(et.special.logsumexp(et.tensor(inf), 1), torch.special.logsumexp(torch.tensor(inf), 1),
          dtype)
    for fn in ("softmax", "log_softmax"):
        e, t = pair(x, True)
        w = np.arange(12, dtype=dtype).reshape(3, 4)
        out_e = getattr(et.special, fn)(e, 1)
        out_t = getattr(torch.special, fn)(t, 1)
        check(out_e, out_t, dtype)
        (out_e * et.tensor(w)).sum().backward()
        (out_t * torch.tensor(w)).sum().backward()
        check(e.grad, t.grad, dtype)
    e, t = pair(x)
    check(et.special.round(e, decimals=1), torch.special.round(t, decimals=1), dtype)
    check(et.special.logit(e.sigmoid(), eps=0.1), torch.special.logit(t.sigmoid(), eps=0.1),
          dtype)
    p, tp = pair(uniform(rng, (5,), dtype, -0.2, 1.2), True)
    out_e, out_t = et.special.logit(p, eps=1e-2), torch.special.logit(tp, eps=1e-2)
    check(out_e, out_t, dtype)
    out_e.sum().backward()
    out_t.sum().backward()
    check(p.grad, tp.grad, dtype)


# -- documented special values ------------------------------------------------------------

SPECIAL_VALUES = {
    "gammaln": [0.0, -1.0, -2.0, math.inf, -math.inf, 1.0, 2.0, math.nan],
    "digamma": [0.0, -0.0, -1.0, -3.0, math.inf, math.nan],
    "erfinv": [1.0, -1.0, 1.5, -2.0, 0.0, math.nan],
    "erfc": [math.inf, -math.inf, 0.0, 30.0, -30.0],
    "erfcx": [math.inf, -30.0, 0.0, 1e8, 1e300],
    "ndtri": [0.0, 1.0, 0.5, -0.5, 1.5],
    "ndtr": [math.inf, -math.inf, 0.0],
    "log_ndtr": [math.inf, -math.inf, 0.0, -40.0],
    "entr": [0.0, -1.0, math.inf, math.nan],
    "sinc": [0.0, math.nan],
    "i0e": [0.0, math.inf, -math.inf],
    "i1e": [0.0, math.inf, -math.inf],
    "modified_bessel_k0": [0.0, -1.0, math.inf],
    "modified_bessel_k1": [0.0, -1.0, math.inf],
    "scaled_modified_bessel_k0": [0.0, -1.0],
    "scaled_modified_bessel_k1": [0.0, -1.0],
    "bessel_y0": [0.0, -1.0],
    "bessel_y1": [0.0, -1.0],
    "spherical_bessel_j0": [0.0, math.inf],
    "airy_ai": [0.0],
}


@pytest.mark.parametrize("name", sorted(SPECIAL_VALUES))
def test_special_values(name):
    e, t = pair(np.array(SPECIAL_VALUES[name], dtype=np.float64))
    check(getattr(et.special, name)(e), getattr(torch.special, name)(t), "float64")


def test_special_values_of_two_arguments():
    x = [1.0, 0.5, 2.0, 2.0, 3.0]
    q = [1.0, 1.0, 0.0, -2.0, -2.5]
    check(et.special.zeta(et.tensor(x, dtype=et.float64), et.tensor(q, dtype=et.float64)),
          torch.special.zeta(torch.tensor(x, dtype=torch.float64),
                             torch.tensor(q, dtype=torch.float64)), "float64")
    a = [0.0, 0.0, 1.0, math.inf, 2.0, -1.0]
    x = [0.0, 1.0, 0.0, 1.0, math.inf, 1.0]
    for name in ("gammainc", "gammaincc"):
        check(getattr(et.special, name)(et.tensor(a, dtype=et.float64),
                                        et.tensor(x, dtype=et.float64)),
              getattr(torch.special, name)(torch.tensor(a, dtype=torch.float64),
                                           torch.tensor(x, dtype=torch.float64)), "float64")
    xs = [0.0, 0.0, 0.0, 1.0]
    ys = [0.0, math.nan, math.inf, 0.0]
    check(et.special.xlogy(et.tensor(xs, dtype=et.float64), et.tensor(ys, dtype=et.float64)),
          torch.special.xlogy(torch.tensor(xs, dtype=torch.float64),
                              torch.tensor(ys, dtype=torch.float64)), "float64")


# -- errors -------------------------------------------------------------------------------

def test_errors():
    x = et.tensor([1.0, 2.0])
    with pytest.raises(ember.InvalidParameterError):
        et.special.polygamma(-1, x)
    with pytest.raises(ember.InvalidParameterError):
        et.special.multigammaln(x, 4)  # needs every element > 1.5
    with pytest.raises(ember.KindError):
        et.special.gammaln(et.tensor([True]))
    with pytest.raises(RuntimeError):  # as torch: no derivative in x
        et.special.zeta(et.tensor([2.0], requires_grad=True), 1.0).sum().backward()
    with pytest.raises(RuntimeError):
        torch.special.zeta(torch.tensor([2.0], requires_grad=True), 1.0).sum().backward()
    with pytest.raises(RuntimeError):
        et.special.gammainc(et.tensor([2.0], requires_grad=True), 1.0).sum().backward()


# -- the top-level twins and Tensor methods -----------------------------------------------

def test_top_level_twins_and_methods(rng):
    x = uniform(rng, (2, 3), "float64", 0.2, 0.9)
    y = uniform(rng, (2, 3), "float64", 0.5, 3.0)
    e, t = pair(x)
    ey, ty = pair(y)
    for name in ("lgamma", "digamma", "erfinv", "erfc", "exp2", "i0", "sinc"):
        check(getattr(et, name)(e), getattr(torch, name)(t), "float64")
        check(getattr(e, name)(), getattr(t, name)(), "float64")
    check(et.polygamma(2, e), torch.polygamma(2, t), "float64")
    check(e.polygamma(2), t.polygamma(2), "float64")
    check(et.xlogy(e, ey), torch.xlogy(t, ty), "float64")
    check(e.xlogy(ey), t.xlogy(ty), "float64")
    check(et.logit(e), torch.logit(t), "float64")
    check(e.logit(0.3), t.logit(0.3), "float64")
    check(et.mvlgamma(ey + 2, 2), torch.mvlgamma(ty + 2, 2), "float64")
    check((ey + 2).mvlgamma(3), (ty + 2).mvlgamma(3), "float64")
    check(et.igamma(ey, e), torch.igamma(ty, t), "float64")
    check(ey.igammac(e), ty.igammac(t), "float64")


# -- the surface --------------------------------------------------------------------------

def test_namespace_covers_torch_special():
    names = [n for n in dir(torch.special)
             if not n.startswith("_") and callable(getattr(torch.special, n))]
    missing = [n for n in names if not hasattr(et.special, n)]
    share = 1 - len(missing) / len(names)
    assert share >= 0.9, f"ember.torch.special has {share:.0%} of torch.special; missing {missing}"
    assert et.special.Tensor is et.Tensor


@pytest.mark.half_precision
def test_large_inputs_and_half_precision(rng):
    """A very negative ``q`` of zeta (shifted in blocks of terms), a tensor larger than one
    block of the Bessel functions' trapezoid sums, and float16/bfloat16 results."""
    q = np.array([-1000.5, -3.25, -20000.75])
    x = np.array([3.0, 4.0, 2.0])
    check(et.special.zeta(et.tensor(x), et.tensor(q)),
          torch.special.zeta(torch.tensor(x), torch.tensor(q)), "float64")
    big = rng.uniform(-30.0, 30.0, 20000)
    e, t = pair(big)
    check(et.special.bessel_j0(e), torch.special.bessel_j0(t), "float64", loose=True)
    for dtype in (torch.float16, torch.bfloat16):
        v = torch.tensor([0.3, 1.5, 2.5, 7.0], dtype=dtype)
        e = et.tensor(v.float().numpy()).to(getattr(et, str(dtype).replace("torch.", "")))
        for name in ("gammaln", "erfinv", "i0e", "ndtr"):
            out_e, out_t = getattr(et.special, name)(e / 8 if name == "erfinv" else e), \
                getattr(torch.special, name)(v / 8 if name == "erfinv" else v)
            assert out_e.dtype.name == str(out_t.dtype).replace("torch.", "")
            np.testing.assert_allclose(out_e.float().numpy(), out_t.float().numpy(), rtol=1e-2,
                                       atol=1e-2)
