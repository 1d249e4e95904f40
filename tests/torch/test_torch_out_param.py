"""``out=`` of the ember.torch functions (ember/torch/out_param.py), compared with PyTorch 2.13:
values, the returned object (``out`` itself), dtype casting and refusals, resizing with its
warning, ``out`` as a view of another tensor, tuple outs, and the autograd refusal."""

import warnings

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import DeviceError, GraphError, InvalidParameterError, KindError
from ember.torch.out_param import OUT_FUNCTIONS
from tests.oracle import assert_close

# name -> call (without out), in terms of `torch` (either library) and the inputs of `inputs()`
SPECS = {
    # elementwise, one operand
    "abs": "torch.abs(a)", "absolute": "torch.absolute(a)", "angle": "torch.angle(a)",
    "ceil": "torch.ceil(a)", "cos": "torch.cos(a)", "cosh": "torch.cosh(a)",
    "deg2rad": "torch.deg2rad(a)", "erf": "torch.erf(a)", "erfc": "torch.erfc(a)",
    "exp": "torch.exp(a)", "exp2": "torch.exp2(a)", "expm1": "torch.expm1(a)",
    "fix": "torch.fix(a)", "floor": "torch.floor(a)", "frac": "torch.frac(a)", "i0": "torch.i0(a)",
    "lgamma": "torch.lgamma(a)", "neg": "torch.neg(a)", "negative": "torch.negative(a)",
    "rad2deg": "torch.rad2deg(a)", "round": "torch.round(a)", "sgn": "torch.sgn(a)",
    "sigmoid": "torch.sigmoid(a)", "sign": "torch.sign(a)", "signbit": "torch.signbit(a)",
    "sin": "torch.sin(a)", "sinc": "torch.sinc(a)", "sinh": "torch.sinh(a)",
    "square": "torch.square(a)", "tan": "torch.tan(a)", "tanh": "torch.tanh(a)",
    "trunc": "torch.trunc(a)", "nan_to_num": "torch.nan_to_num(a)",
    "conj_physical": "torch.conj_physical(a)", "isneginf": "torch.isneginf(a)",
    "isposinf": "torch.isposinf(a)", "logical_not": "torch.logical_not(a)",
    "digamma": "torch.digamma(a)", "log": "torch.log(p)", "log10": "torch.log10(p)",
    "log1p": "torch.log1p(p)", "log2": "torch.log2(p)", "reciprocal": "torch.reciprocal(p)",
    "rsqrt": "torch.rsqrt(p)", "sqrt": "torch.sqrt(p)", "acos": "torch.acos(u)",
    "asin": "torch.asin(u)", "atanh": "torch.atanh(u)", "arccos": "torch.arccos(u)",
    "arcsin": "torch.arcsin(u)", "arctanh": "torch.arctanh(u)", "erfinv": "torch.erfinv(u)",
    "logit": "torch.logit(u)", "acosh": "torch.acosh(g)", "arccosh": "torch.arccosh(g)",
    "asinh": "torch.asinh(a)", "atan": "torch.atan(a)", "arcsinh": "torch.arcsinh(a)",
    "arctan": "torch.arctan(a)", "bitwise_not": "torch.bitwise_not(i)",
    # two operands
    "add": "torch.add(a, b)", "sub": "torch.sub(a, b)", "subtract": "torch.subtract(a, b)",
    "mul": "torch.mul(a, b)", "multiply": "torch.multiply(a, b)", "div": "torch.div(a, b)",
    "divide": "torch.divide(a, b)", "true_divide": "torch.true_divide(a, b)",
    "atan2": "torch.atan2(a, b)", "arctan2": "torch.arctan2(a, b)",
    "maximum": "torch.maximum(a, b)", "minimum": "torch.minimum(a, b)", "fmax": "torch.fmax(a, b)",
    "fmin": "torch.fmin(a, b)", "hypot": "torch.hypot(a, b)", "copysign": "torch.copysign(a, b)",
    "nextafter": "torch.nextafter(a, b)", "logaddexp": "torch.logaddexp(a, b)",
    "logaddexp2": "torch.logaddexp2(a, b)", "eq": "torch.eq(a, b)", "ne": "torch.ne(a, b)",
    "not_equal": "torch.not_equal(a, b)", "ge": "torch.ge(a, b)", "gt": "torch.gt(a, b)",
    "le": "torch.le(a, b)", "lt": "torch.lt(a, b)", "greater": "torch.greater(a, b)",
    "greater_equal": "torch.greater_equal(a, b)", "less": "torch.less(a, b)",
    "less_equal": "torch.less_equal(a, b)", "logical_and": "torch.logical_and(a, b)",
    "logical_or": "torch.logical_or(a, b)", "logical_xor": "torch.logical_xor(a, b)",
    "heaviside": "torch.heaviside(a, b)", "xlogy": "torch.xlogy(a, b)", "fmod": "torch.fmod(a, p)",
    "remainder": "torch.remainder(a, p)", "floor_divide": "torch.floor_divide(a, p)",
    "bitwise_and": "torch.bitwise_and(i, j)", "bitwise_or": "torch.bitwise_or(i, j)",
    "bitwise_xor": "torch.bitwise_xor(i, j)", "gcd": "torch.gcd(i, j)", "lcm": "torch.lcm(i, j)",
    "bitwise_left_shift": "torch.bitwise_left_shift(i, j)",
    "bitwise_right_shift": "torch.bitwise_right_shift(i, j)", "pow": "torch.pow(p, b)",
    "float_power": "torch.float_power(p, 2)", "ldexp": "torch.ldexp(a, j)",
    "add_scalar": "torch.add(a, 2, alpha=3)", "igamma": "torch.igamma(p, g)",
    "igammac": "torch.igammac(p, g)", "polygamma": "torch.polygamma(1, p)",
    "mvlgamma": "torch.mvlgamma(g + 1, 2)", "lerp": "torch.lerp(a, b, 0.3)",
    "addcmul": "torch.addcmul(a, b, p, value=0.5)", "addcdiv": "torch.addcdiv(a, b, p, value=0.5)",
    "clamp": "torch.clamp(a, -0.5, 0.5)", "clip": "torch.clip(a, -0.5, 0.5)",
    "clamp_min": "torch.clamp_min(a, 0.1)", "clamp_max": "torch.clamp_max(a, 0.1)",
    "where": "torch.where(mask, a, b)", "hardshrink": "torch.hardshrink(a, 0.5)",
    "threshold": "torch.threshold(a, 0.1, 20.0)", "complex": "torch.complex(a, b)",
    "polar": "torch.polar(p, a)",
    # products
    "matmul": "torch.matmul(m, m)", "mm": "torch.mm(a, m)", "bmm": "torch.bmm(bm, bn)",
    "mv": "torch.mv(m, v)", "dot": "torch.dot(v, w)", "vdot": "torch.vdot(v, w)",
    "inner": "torch.inner(a, b)", "outer": "torch.outer(v, w)", "ger": "torch.ger(v, w)",
    "addmm": "torch.addmm(a, a, m, beta=0.5, alpha=2)", "addmv": "torch.addmv(v, m, w)",
    "addr": "torch.addr(m, v, w)", "baddbmm": "torch.baddbmm(bc, bm, bn)",
    "addbmm": "torch.addbmm(bc[0], bm, bn)", "kron": "torch.kron(a, b)",
    "chain_matmul": "torch.chain_matmul(m, m, m)",
    "tensordot": "torch.tensordot(a, b, dims=([1], [1]))", "cross": "torch.cross(c3, d3, dim=1)",
    "matrix_power": "torch.matrix_power(m, 3)",
    # joining
    "cat": "torch.cat([a, b], 1)", "concat": "torch.concat([a, b])",
    "concatenate": "torch.concatenate([a, b], 1)", "stack": "torch.stack([a, b], 1)",
    "hstack": "torch.hstack([a, b])", "vstack": "torch.vstack([a, b])",
    "dstack": "torch.dstack([a, b])", "column_stack": "torch.column_stack([v, w])",
    "row_stack": "torch.row_stack([a, b])",
    # reductions
    "sum": "torch.sum(a, 1)", "sum_keep": "torch.sum(a, (0, 1), keepdim=True)",
    "mean": "torch.mean(a, 0)", "prod": "torch.prod(a, 1)", "nansum": "torch.nansum(a, 1)",
    "nanmean": "torch.nanmean(a, 1)", "amax": "torch.amax(a, 1)", "amin": "torch.amin(a, (0, 1))",
    "all": "torch.all(mask, 1)", "any": "torch.any(mask)", "argmax": "torch.argmax(a, 1)",
    "argmin": "torch.argmin(a)", "logsumexp": "torch.logsumexp(a, 1)", "std": "torch.std(a, 1)",
    "var": "torch.var(a, 0)", "norm": "torch.norm(a, dim=1)",
    "frobenius_norm": "torch.frobenius_norm(a, (0, 1))", "nuclear_norm": "torch.nuclear_norm(a)",
    "cumsum": "torch.cumsum(a, 1)", "cumprod": "torch.cumprod(a, 0)",
    "logcumsumexp": "torch.logcumsumexp(a, 1)", "softmax": "torch.softmax(a, 1)",
    "log_softmax": "torch.log_softmax(a, 1)", "quantile": "torch.quantile(a, 0.3, dim=1)",
    "nanquantile": "torch.nanquantile(a, 0.3, dim=1)", "diff": "torch.diff(a, dim=1)",
    "msort": "torch.msort(a)", "argsort": "torch.argsort(a, dim=1, stable=True)",
    "renorm": "torch.renorm(a, 2, 0, 1.0)", "histc": "torch.histc(a, 5)",
    # several results
    "max_dim": "torch.max(a, 1)", "min_dim": "torch.min(a, 0)", "max": "torch.max(a)",
    "min": "torch.min(a)", "max_other": "torch.max(a, b)", "sort": "torch.sort(a, 1)",
    "sort_desc": "torch.sort(a, 0, descending=True)", "topk": "torch.topk(a, 2)",
    "kthvalue": "torch.kthvalue(a, 2, 1)", "median_dim": "torch.median(a, 1)",
    "nanmedian_dim": "torch.nanmedian(a, 0)", "mode": "torch.mode(i, 1)",
    "cummax": "torch.cummax(a, 1)", "cummin": "torch.cummin(a, 0)",
    "aminmax": "torch.aminmax(a, dim=1)", "frexp": "torch.frexp(a)",
    "histogram": "torch.histogram(a64, 4)", "slogdet": "torch.slogdet(s)", "qr": "torch.qr(m)",
    "svd": "torch.svd(s)", "geqrf": "torch.geqrf(m)",
    "triangular_solve": "torch.triangular_solve(b4, tri, upper=False)",
    "lu_unpack": "torch.lu_unpack(*torch.linalg.lu_factor(s))",
    # indexing
    "gather": "torch.gather(a, 1, idx)", "take_along_dim": "torch.take_along_dim(a, idx, 1)",
    "index_select": "torch.index_select(a, 1, idx1)",
    "masked_select": "torch.masked_select(a, mask)", "take": "torch.take(a, idx1)",
    "nonzero": "torch.nonzero(mask)", "narrow_copy": "torch.narrow_copy(a, 1, 1, 2)",
    "index_add": "torch.index_add(a, 1, idx1, b[:, :2])",
    "index_copy": "torch.index_copy(a, 1, idx1, b[:, :2])",
    "index_reduce": "torch.index_reduce(a, 1, idx1, b[:, :2], 'amax')",
    "scatter": "torch.scatter(a, 1, idx, b)", "scatter_add": "torch.scatter_add(a, 1, idx, b)",
    "scatter_reduce": "torch.scatter_reduce(a, 1, idx, b, 'sum')",
    "slice_scatter": "torch.slice_scatter(a, b[:, :2], 1, 0, 2)",
    "searchsorted": "torch.searchsorted(sv, a)", "bucketize": "torch.bucketize(a, sv)",
    "isin": "torch.isin(i, j[0])", "diag": "torch.diag(v)", "tril": "torch.tril(a)",
    "triu": "torch.triu(a, 1)",
    # linear algebra (torch namespace)
    "cholesky": "torch.cholesky(s)",
    "cholesky_inverse": "torch.cholesky_inverse(torch.linalg.cholesky(s))",
    "cholesky_solve": "torch.cholesky_solve(b4, torch.linalg.cholesky(s))",
    "inverse": "torch.inverse(s)", "lu_solve": "torch.lu_solve(b4, *torch.linalg.lu_factor(s))",
    "orgqr": "torch.orgqr(*torch.geqrf(m))", "ormqr": "torch.ormqr(*torch.geqrf(m), b4)",
    # creation
    "arange": "torch.arange(5)", "arange3": "torch.arange(0, 2, 0.5)",
    "range": "torch.range(0, 2, 0.5)", "zeros": "torch.zeros(2, 3)", "ones": "torch.ones((2, 3))",
    "full": "torch.full((2, 3), 1.5)", "eye": "torch.eye(3)", "eye2": "torch.eye(2, 3)",
    "linspace": "torch.linspace(0, 1, 5)", "logspace": "torch.logspace(0, 1, 5)",
    "empty": "torch.empty(2, 3).shape",
    # torch.linalg
    "linalg.cholesky": "torch.linalg.cholesky(s)",
    "linalg.cholesky_ex": "torch.linalg.cholesky_ex(s)", "linalg.det": "torch.linalg.det(s)",
    "linalg.eigh": "torch.linalg.eigh(s)", "linalg.eigvalsh": "torch.linalg.eigvalsh(s)",
    "linalg.inv": "torch.linalg.inv(s)", "linalg.inv_ex": "torch.linalg.inv_ex(s)",
    "linalg.lu": "torch.linalg.lu(s)", "linalg.lu_factor": "torch.linalg.lu_factor(s)",
    "linalg.lu_factor_ex": "torch.linalg.lu_factor_ex(s)",
    "linalg.matrix_norm": "torch.linalg.matrix_norm(s)",
    "linalg.matrix_rank": "torch.linalg.matrix_rank(s)", "linalg.pinv": "torch.linalg.pinv(s)",
    "linalg.qr": "torch.linalg.qr(s)", "linalg.slogdet": "torch.linalg.slogdet(s)",
    "linalg.svd": "torch.linalg.svd(s)", "linalg.svdvals": "torch.linalg.svdvals(s)",
    "linalg.cond": "torch.linalg.cond(s)",
    "linalg.vector_norm": "torch.linalg.vector_norm(a, dim=1)",
    "linalg.norm": "torch.linalg.norm(a)", "linalg.matmul": "torch.linalg.matmul(a, m)",
    "linalg.vecdot": "torch.linalg.vecdot(a, b)", "linalg.cross": "torch.linalg.cross(c3, d3)",
    "linalg.matrix_power": "torch.linalg.matrix_power(m, 2)",
    "linalg.solve": "torch.linalg.solve(s, b4)", "linalg.solve_ex": "torch.linalg.solve_ex(s, b4)",
    "linalg.lu_solve": "torch.linalg.lu_solve(*torch.linalg.lu_factor(s), b4)",
    "linalg.multi_dot": "torch.linalg.multi_dot([a, m, m])",
    "linalg.lstsq": "torch.linalg.lstsq(s, b4)",
    "linalg.householder_product": "torch.linalg.householder_product(*torch.geqrf(m))",
    "linalg.solve_triangular": "torch.linalg.solve_triangular(tri, b4, upper=False)",
    "linalg.tensorinv": "torch.linalg.tensorinv(s, 1)",
    "linalg.tensorsolve": "torch.linalg.tensorsolve(s, v)",
    "linalg.eigvals": "torch.linalg.eigvals(s)", "linalg.eig": "torch.linalg.eig(s)",
    "linalg.ldl_factor": "torch.linalg.ldl_factor(s)",
    # torch.special
    "special.bessel_j0": "torch.special.bessel_j0(p)",
    "special.bessel_j1": "torch.special.bessel_j1(p)",
    "special.digamma": "torch.special.digamma(p)", "special.psi": "torch.special.psi(p)",
    "special.entr": "torch.special.entr(p)", "special.erf": "torch.special.erf(p)",
    "special.erfc": "torch.special.erfc(p)", "special.erfcx": "torch.special.erfcx(p)",
    "special.exp2": "torch.special.exp2(p)", "special.expit": "torch.special.expit(p)",
    "special.expm1": "torch.special.expm1(p)", "special.gammaln": "torch.special.gammaln(p)",
    "special.i0": "torch.special.i0(p)", "special.i0e": "torch.special.i0e(p)",
    "special.i1": "torch.special.i1(p)", "special.i1e": "torch.special.i1e(p)",
    "special.log1p": "torch.special.log1p(p)", "special.log_ndtr": "torch.special.log_ndtr(p)",
    "special.ndtr": "torch.special.ndtr(p)", "special.round": "torch.special.round(p)",
    "special.sinc": "torch.special.sinc(p)",
    "special.spherical_bessel_j0": "torch.special.spherical_bessel_j0(p)",
    "special.modified_bessel_i0": "torch.special.modified_bessel_i0(p)",
    "special.modified_bessel_i1": "torch.special.modified_bessel_i1(p)",
    "special.modified_bessel_k0": "torch.special.modified_bessel_k0(p)",
    "special.modified_bessel_k1": "torch.special.modified_bessel_k1(p)",
    "special.erfinv": "torch.special.erfinv(u)", "special.logit": "torch.special.logit(u.abs())",
    "special.ndtri": "torch.special.ndtri(u.abs())", "special.xlogy": "torch.special.xlogy(a, p)",
    "special.xlog1py": "torch.special.xlog1py(a, p)", "special.zeta": "torch.special.zeta(g, p)",
    "special.gammainc": "torch.special.gammainc(p, g)",
    "special.logsumexp": "torch.special.logsumexp(a, 1)",
    "special.multigammaln": "torch.special.multigammaln(g + 1, 2)",
    "special.polygamma": "torch.special.polygamma(2, p)",
    # torch.fft
    "fft.fft": "torch.fft.fft(a)", "fft.ifft": "torch.fft.ifft(a)",
    "fft.rfft": "torch.fft.rfft(a)", "fft.ihfft": "torch.fft.ihfft(a)",
    "fft.fft2": "torch.fft.fft2(a)", "fft.ifft2": "torch.fft.ifft2(a)",
    "fft.rfft2": "torch.fft.rfft2(a)", "fft.fftn": "torch.fft.fftn(a)",
    "fft.ifftn": "torch.fft.ifftn(a)", "fft.rfftn": "torch.fft.rfftn(a)",
    "fft.irfft": "torch.fft.irfft(ca)", "fft.hfft": "torch.fft.hfft(ca)",
    "fft.irfft2": "torch.fft.irfft2(ca)", "fft.irfftn": "torch.fft.irfftn(ca)",
    "fft.fftfreq": "torch.fft.fftfreq(5)", "fft.rfftfreq": "torch.fft.rfftfreq(6, 0.5)",
}
RANDOM = {"rand": "torch.rand(2, 3)", "randn": "torch.randn(2, 3)",
          "randint": "torch.randint(0, 5, (2, 3))", "randperm": "torch.randperm(5)",
          "normal": "torch.normal(a, p)", "bernoulli": "torch.bernoulli(u.abs())",
          "multinomial": "torch.multinomial(p, 2)"}
FACTORIES = {"arange", "arange3", "range", "zeros", "ones", "full", "eye", "eye2", "linspace",
             "logspace", "fft.fftfreq", "fft.rfftfreq"}
# decompositions whose factors are fixed only up to signs (or phases): compared through the
# product they factor, not factor by factor
SIGNED = {"qr", "svd", "geqrf", "linalg.qr", "linalg.svd", "linalg.eigh", "linalg.eig",
          "linalg.eigvals", "orgqr", "ormqr", "linalg.householder_product"}
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]


def _device_has(name):
    """Whether the default device has the dtype ``name`` (array-api-strict lacks float16): a
    dtype it lacks is left out, as the conftest leaves out such parameters."""
    try:
        ember.zeros(0).device.backend.native_dtype(ember.dtypes.as_dtype(name))
    except KindError:
        return False
    return True


def inputs(lib, seed=0):
    r = np.random.default_rng(seed)

    def f(*s):
        return r.standard_normal(s).astype(np.float32)

    m = f(4, 4)
    arrays = dict(a=f(3, 4), b=f(3, 4), p=np.abs(f(3, 4)) + 0.5, u=np.tanh(f(3, 4)) * 0.9,
                  g=np.abs(f(3, 4)) + 1.1, v=f(4), w=f(4), m=m,
                  s=m @ m.T + 4 * np.eye(4, dtype=np.float32), bm=f(2, 3, 4), bn=f(2, 4, 5),
                  bc=f(2, 3, 5), c3=f(2, 3), d3=f(2, 3), b4=f(4, 2),
                  tri=np.tril(m) + 4 * np.eye(4, dtype=np.float32),
                  a64=f(3, 4).astype(np.float64), i=r.integers(1, 5, (3, 4)),
                  j=r.integers(1, 5, (3, 4)), mask=f(3, 4) > 0, idx=r.integers(0, 4, (3, 2)),
                  idx1=np.array([2, 0]), sv=np.sort(f(5)),
                  ca=(f(3, 4) + 1j * f(3, 4)).astype(np.complex64))
    env = {k: lib.tensor(v) for k, v in arrays.items()}
    env["torch"] = lib
    return env


def with_out(expr):
    """``expr`` (a call) with ``, out=_out`` added to its outermost argument list."""
    return expr[:-1] + (", out=_out)" if not expr.endswith("()") else "out=_out)")


def empties(lib, like, dtype=None):
    """Outs of zero elements (resized without a warning) of ``like``'s dtypes."""
    def one(x):
        return lib.empty(0, dtype=getattr(lib, dtype) if dtype else x.dtype)
    return tuple(map(one, like)) if isinstance(like, tuple) else one(like)


def assert_same(actual, expected, key):
    if key in SIGNED:  # the same shapes and dtypes; the values through the product checked below
        assert tuple(actual.shape) == tuple(expected.shape)
        assert actual.dtype.name == str(expected.dtype)[6:]
        return
    tol = 1e-4 if expected.dtype in (torch.float32, torch.complex64) else None
    assert_close(actual, expected, rtol=tol, atol=tol)


# -- the list ---------------------------------------------------------------------------------

def _lookup(lib, ns, name):
    module = lib if ns == "torch" else getattr(lib, ns)
    return getattr(module, name, None)


def test_every_listed_function_exists_in_both_and_takes_out():
    assert sum(map(len, OUT_FUNCTIONS.values())) >= 300
    for ns, names in OUT_FUNCTIONS.items():
        for name in names:
            assert _lookup(et, ns, name) is not None, (ns, name)
            assert _lookup(torch, ns, name) is not None, (ns, name)
            assert hasattr(_lookup(et, ns, name), "out_original"), (ns, name)
    for name in ("add", "matmul", "cat", "sum", "sort", "topk", "arange", "where", "clamp"):
        assert et._tensor.functions[name] is getattr(et, name)
        assert name in OUT_FUNCTIONS["torch"]


def test_the_specs_cover_the_brief():
    keys = set(SPECS) | set(RANDOM)
    for name in ("add", "sub", "mul", "div", "pow", "exp", "log", "sin", "clamp", "where",
                 "matmul", "mm", "bmm", "addmm", "dot", "cat", "stack", "sum", "mean", "prod",
                 "amax", "amin", "cumsum", "cumprod", "max_dim", "min_dim", "sort", "topk",
                 "arange", "zeros", "ones", "full", "linspace", "eye", "linalg.inv",
                 "linalg.solve", "linalg.qr"):
        assert name in keys
    assert len(SPECS) > 300


# -- values and the returned object -----------------------------------------------------------

@pytest.mark.parametrize("key", sorted(k for k in SPECS if not SPECS[k].endswith(".shape")))
def test_values_and_identity(key):
    expr = SPECS[key]
    env_t, env_e = inputs(torch), inputs(et)
    like_t, like_e = eval(expr, env_t), eval(expr, env_e)
    env_t["_out"], env_e["_out"] = empties(torch, like_t), empties(et, like_e)
    got_t = eval(with_out(expr), env_t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a zero-element out is resized silently
        got_e = eval(with_out(expr), env_e)
    out_t, out_e = env_t["_out"], env_e["_out"]
    if isinstance(out_t, tuple):
        assert isinstance(got_e, tuple) and len(got_e) == len(out_e)
        assert all(g is o for g, o in zip(got_e, out_e))
        names = getattr(type(got_t), "__match_args__", None)  # a torch.return_types result
        assert getattr(got_e, "_fields", None) == names
        for field in names or ():
            assert getattr(got_e, field) is out_e[names.index(field)]
        for o_e, o_t in zip(out_e, out_t):
            assert_same(o_e, o_t, key)
    else:
        assert got_e is out_e
        assert_same(out_e, out_t, key)
    if key in SIGNED:  # each factor written is the function's own result
        outs = out_e if isinstance(out_e, tuple) else (out_e,)
        mine = like_e if isinstance(like_e, tuple) else (like_e,)
        for o, r in zip(outs, mine):
            assert_close(o, torch.from_numpy(np.asarray(ember.Tensor.numpy(r))))


@pytest.mark.parametrize("key", ["qr", "linalg.qr", "svd", "linalg.svd", "linalg.eigh"])
def test_decompositions_written_into_out_factor_the_input(key):
    env = inputs(et)
    outs = tuple(et.empty(0) for _ in range(3 if "svd" in key else 2))
    got = eval(with_out(SPECS[key]), {**env, "_out": outs})
    a = inputs(torch)["m" if key == "qr" else "s"]
    if "qr" in key:
        q, r = got
        rebuilt = et.matmul(q, r)
    elif key == "svd":
        u, s, v = got
        rebuilt = et.matmul(u * s, v.mT)
    elif key == "linalg.svd":
        u, s, vh = got
        rebuilt = et.matmul(u * s, vh)
    else:
        w, q = got
        rebuilt = et.matmul(q * w, q.mT)
    assert_close(rebuilt, a, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("key", sorted(FACTORIES))
@pytest.mark.parametrize("dtype", ["float64", "float16", "int64"])
def test_creation_makes_its_result_in_outs_dtype(key, dtype):
    if dtype == "int64" and key in ("arange3", "range", "fft.fftfreq", "fft.rfftfreq",
                                    "logspace"):
        return  # PyTorch: no int steps of 0.5 (range crashes), fftfreq needs floats
    expr = SPECS[key]
    o_t = torch.empty(0, dtype=getattr(torch, dtype))
    o_e = et.empty(0, dtype=getattr(et, dtype))
    r_t = eval(with_out(expr), {"torch": torch, "_out": o_t})
    r_e = eval(with_out(expr), {"torch": et, "_out": o_e})
    assert r_e is o_e and r_t is o_t
    assert_close(o_e, o_t)


@pytest.mark.parametrize("key", sorted(RANDOM))
def test_random_functions_fill_out(key):
    expr = RANDOM[key]
    like_t = eval(expr, inputs(torch))
    env = inputs(et)
    env["_out"] = o = et.zeros(1, dtype=getattr(et, str(like_t.dtype)[6:]))
    with pytest.warns(UserWarning, match="resized"):
        got = eval(with_out(expr), env)
    assert got is o
    assert tuple(o.shape) == tuple(like_t.shape)
    assert o.dtype.name == str(like_t.dtype)[6:]


# -- dtypes: cast where PyTorch casts, refuse where it refuses --------------------------------

def _dtype_cases():
    for key in sorted(SPECS):
        if key in FACTORIES or SPECS[key].endswith(".shape") or key in ("special.logit",
                                                                        "special.ndtri"):
            continue
        yield key


@pytest.mark.parametrize("key", list(_dtype_cases()))
def test_dtype_cast_or_refusal(key):
    expr = SPECS[key]
    env_t, env_e = inputs(torch), inputs(et)
    like_t, like_e = eval(expr, env_t), eval(expr, env_e)
    several = isinstance(like_t, tuple)
    for dtype in filter(_device_has, DTYPES):
        for pos in range(len(like_t) if several else 1):
            def outs(lib, like):
                if not several:
                    return lib.empty(0, dtype=getattr(lib, dtype))
                return tuple(lib.empty(0, dtype=getattr(lib, dtype) if q == pos else x.dtype)
                             for q, x in enumerate(like))
            env_t["_out"], env_e["_out"] = outs(torch, like_t), outs(et, like_e)
            try:
                eval(with_out(expr), env_t)
                refused = False
            except (RuntimeError, TypeError):
                refused = True
            if refused:
                before = [o.shape for o in (env_e["_out"] if several else (env_e["_out"],))]
                with pytest.raises(KindError):
                    eval(with_out(expr), env_e)
                after = [o.shape for o in (env_e["_out"] if several else (env_e["_out"],))]
                assert before == after  # nothing written
                continue
            eval(with_out(expr), env_e)
            o_t = env_t["_out"][pos] if several else env_t["_out"]
            o_e = env_e["_out"][pos] if several else env_e["_out"]
            if key in SIGNED:
                assert o_e.dtype.name == dtype and tuple(o_e.shape) == tuple(o_t.shape)
                continue
            tol = 1e-2 if dtype == "float16" else 1e-4
            assert_close(o_e, o_t, rtol=tol, atol=tol)


# -- resizing ---------------------------------------------------------------------------------

def _both(program):
    """``program(lib)`` run on PyTorch and ember.torch, with the warnings each emitted."""
    results = []
    for lib in (torch, et):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = program(lib)
        results.append((got, [w for w in caught if issubclass(w.category, UserWarning)
                              and "resized" in str(w.message)]))
    return results


def _values(lib, x):
    return torch.from_numpy(np.asarray(ember.Tensor.numpy(x))) if lib is et else x


@pytest.mark.parametrize("shape", [(3,), (1, 2), (2, 2, 2), (0,), (0, 4), ()])
def test_resize_warns_when_out_had_elements(shape):
    def program(lib):
        o = lib.full(shape, 7.0)
        r = lib.add(lib.tensor([1.0, 2.0]), 1, out=o)
        assert r is o
        return o
    (o_t, w_t), (o_e, w_e) = _both(program)
    assert_close(o_e, o_t)
    assert len(w_e) == len(w_t) == (0 if 0 in shape else 1)


def _into_view(base_shape, view, call, later=True):
    """A program: ``call(lib, out)`` with ``out`` the view ``view(base)`` of a zero tensor of
    ``base_shape`` (then, if ``later``, ``out.add_(100)``); gives the base and the out."""
    def program(lib):
        base = lib.zeros(base_shape)
        o = view(base)
        assert call(lib, o) is o
        if later:  # a later write through the out reaches the base where they share memory
            o.add_(100)
        return base, o
    return program


VIEW_PROGRAMS = {
    # out a view of another tensor, of the result's shape: the base sees the result
    "row": _into_view((2, 3), lambda b: b[1],
                      lambda lib, o: lib.add(lib.tensor([1.0, 2.0, 3.0]), 10, out=o)),
    "column": _into_view((3, 2), lambda b: b[:, 1],
                         lambda lib, o: lib.mul(lib.tensor([1.0, 2.0, 3.0]), 2, out=o)),
    "transposed": _into_view((2, 3), lambda b: b.t(),
                             lambda lib, o: lib.matmul(lib.ones(3, 4), lib.ones(4, 2), out=o)),
    "reshaped": _into_view((6,), lambda b: b.view(2, 3),
                           lambda lib, o: lib.cat([lib.ones(1, 3), lib.zeros(1, 3) - 1], out=o)),
    "stepped": _into_view((8,), lambda b: b[::2],
                          lambda lib, o: lib.cumsum(lib.tensor([1.0, 2.0, 3.0, 4.0]), 0, out=o)),
    "reduction": _into_view((2, 3), lambda b: b[0, :2], lambda lib, o: lib.sum(
        lib.tensor([[1.0, 2.0], [3.0, 4.0]]), 0, out=o)),
    "0-d": _into_view((3,), lambda b: b[1], lambda lib, o: lib.dot(lib.ones(3), lib.ones(3),
                                                                    out=o)),
    "detached": _into_view((2, 2), lambda b: b.detach()[0],
                           lambda lib, o: lib.exp(lib.zeros(2), out=o)),
    # resized views keep their memory from their first element on
    "grows in its base": _into_view((6,), lambda b: b[:2],
                                    lambda lib, o: lib.add(lib.ones(3), 1, out=o)),
    "grows at an offset": _into_view((6,), lambda b: b[1:3],
                                     lambda lib, o: lib.add(lib.ones(3), 1, out=o)),
    "column grows": _into_view((2, 3), lambda b: b[:, 0],
                               lambda lib, o: lib.add(lib.ones(3), 1, out=o)),
    "view reshaped": _into_view((4,), lambda b: b.view(2, 2),
                                lambda lib, o: lib.add(lib.ones(4), 1, out=o)),
    "grows past its base": _into_view((2,), lambda b: b[:],
                                      lambda lib, o: lib.add(lib.ones(5), 1, out=o)),
    "shrinks": _into_view((2, 3), lambda b: b[1],
                          lambda lib, o: lib.add(lib.ones(2), 1, out=o)),
    "tuple of views": _into_view(
        (2, 3), lambda b: (b[0], b[1].long()[:0]),
        lambda lib, o: lib.sort(lib.tensor([3.0, 1.0, 2.0]), out=o) and o, later=False),
}


def _base_grows(shape, view_of, n):
    def program(lib):
        base = lib.zeros(shape)
        view = view_of(base)
        assert lib.add(lib.ones(n), 1, out=base) is base
        base.add_(100)
        return base, view
    return program


VIEW_PROGRAMS["base grows past its view"] = _base_grows(4, lambda b: b[:2], 6)
VIEW_PROGRAMS["base shrinks under its view"] = _base_grows(4, lambda b: b[1:], 2)
VIEW_PROGRAMS["matrix base shrinks"] = _base_grows((2, 3), lambda b: b[:, 1], 4)


@pytest.mark.parametrize("case", sorted(VIEW_PROGRAMS))
def test_out_as_a_view_of_another_tensor(case):
    (got_t, w_t), (got_e, w_e) = _both(VIEW_PROGRAMS[case])
    for e, t in zip(got_e, got_t):
        if isinstance(t, tuple):
            for e1, t1 in zip(e, t):
                assert_close(e1, t1)
        else:
            assert_close(e, t)
    assert len(w_e) == len(w_t)


# -- refusals: nothing is written -------------------------------------------------------------

def _refused(program, ember_error, torch_error=RuntimeError):
    """``program(lib, out)`` raises on both (ember: ``ember_error``) and leaves out (and the
    tensor it views) as it was."""
    for lib, error in ((torch, torch_error), (et, ember_error)):
        base = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        o = base[1]
        with pytest.raises(error):
            program(lib, o)
        assert base.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
        assert o.tolist() == [4.0, 5.0, 6.0]


@pytest.mark.parametrize("call", [
    lambda lib, o: lib.add(lib.ones(3, requires_grad=True), 1, out=o),
    lambda lib, o: lib.mul(lib.ones(3), lib.ones(3, requires_grad=True) * 2, out=o),
    lambda lib, o: lib.cat([lib.ones(1), lib.ones(2, requires_grad=True)], out=o),
    lambda lib, o: lib.sum(lib.ones(2, 3, requires_grad=True), 0, out=o),
    lambda lib, o: lib.where(lib.ones(3) > 0, lib.ones(3, requires_grad=True), lib.zeros(3),
                             out=o),
    lambda lib, o: lib.sort(lib.ones(3, requires_grad=True),
                            out=(o, lib.empty(0, dtype=lib.long))),
])
def test_autograd_refusal(call):
    _refused(call, GraphError)


def test_an_out_that_requires_grad_is_refused():
    for lib, error in ((torch, RuntimeError), (et, GraphError)):
        o = lib.zeros(2, requires_grad=True)
        with pytest.raises(error, match="automatic differentiation"):
            lib.add(lib.ones(2), 1, out=o)
        assert o.tolist() == [0.0, 0.0]


def test_under_no_grad_inputs_that_require_grad_are_fine():
    got = []
    for lib in (torch, et):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        p = lib.zeros(2, requires_grad=True)  # a leaf parameter updated in place, as optimizers do
        with lib.no_grad():
            assert lib.mul(x, 3, out=p) is p
        assert p.requires_grad and p.is_leaf
        got.append(p.detach())
    assert_close(got[1], got[0])


@pytest.mark.parametrize("call", [
    lambda lib, o: lib.add(lib.ones(3), 1, out=[1.0, 2.0]),
    lambda lib, o: lib.add(lib.ones(3), 1, out=np.zeros(3)),
    lambda lib, o: lib.max(lib.ones(2, 3), 1, out=o),  # a single tensor for (values, indices)
    lambda lib, o: lib.add(lib.ones(3), 1, out=(o,)),  # a tuple for one result
])
def test_out_must_be_tensors_of_the_results_number(call):
    _refused(call, InvalidParameterError, TypeError)


@pytest.mark.parametrize("call", [
    lambda lib, o: lib.add(lib.ones(3), 0.5, out=o.long()[:0]),
    lambda lib, o: lib.add(lib.ones(3), 0.5, out=o.long()),
    lambda lib, o: lib.add(lib.ones(3, dtype=lib.complex64), 1, out=o),
    lambda lib, o: lib.exp(lib.tensor([1, 2, 3]), out=o.long()),
    lambda lib, o: lib.matmul(lib.ones(3, 2), lib.ones(2), out=o.double()),
    lambda lib, o: lib.sort(lib.ones(3), out=(o, lib.empty(0, dtype=lib.int32))),
    lambda lib, o: lib.sort(lib.ones(3), out=(o.double(), lib.empty(0, dtype=lib.long))),
    lambda lib, o: lib.argmax(lib.ones(3), out=o),
    lambda lib, o: lib.all(lib.ones(3) > 0, out=o),
])
def test_dtype_refusal(call):
    _refused(call, KindError)


def test_a_refused_tuple_out_writes_none_of_its_tensors():
    for lib, error in ((torch, RuntimeError), (et, KindError)):
        v, i = lib.zeros(2), lib.zeros(2, dtype=lib.int32)
        with pytest.raises(error):
            lib.topk(lib.tensor([3.0, 1.0, 2.0]), 2, out=(v, i))
        assert v.tolist() == [0.0, 0.0] and i.tolist() == [0, 0]


@pytest.mark.parametrize("call", [
    lambda lib, o: lib.add(o[:2], 1, out=o[1:]),
    lambda lib, o: lib.exp(o[:2], out=o[1:]),
    lambda lib, o: lib.cat([o[1:2], o[:1]], out=o[1:]),
    lambda lib, o: lib.where(o[:2] > 0, o[:2], lib.zeros(2), out=o[1:]),
    lambda lib, o: lib.sort(o[:2], out=(o[1:], lib.empty(0, dtype=lib.long))),
])
def test_an_input_sharing_part_of_out_is_refused(call):
    _refused(call, GraphError)


def test_cat_refuses_even_an_input_that_is_out():
    for lib, error in ((torch, RuntimeError), (et, GraphError)):
        x = lib.tensor([1.0, 2.0])
        with pytest.raises(error, match="unsupported operation"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's resize warning
            lib.cat([x, x], out=x)
    assert x.tolist() == [1.0, 2.0]  # ember's is untouched (PyTorch resized it first)


@pytest.mark.parametrize("call", [
    lambda lib, o: lib.add(o, 1, out=o),
    lambda lib, o: lib.cumsum(o, 0, out=o),
    lambda lib, o: lib.mul(o[:2], 2, out=o[:2]),
    lambda lib, o: lib.add(o[:1], o[2:], out=o[1:2]),
])
def test_an_input_that_is_out_or_apart_from_it_is_fine(call):
    got = []
    for lib in (torch, et):
        base = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        call(lib, base[1])
        got.append(base)
    assert_close(got[1], got[0])


def test_out_on_another_device_is_refused():
    other = "torch:cpu" if et.ones(1).device.type != "torch" else "cpu"
    for device, x_device in ((other, None), (None, other)):
        o = et.tensor([1.0, 2.0], device=device)
        x = et.tensor([5.0, 6.0], device=x_device)
        if o.device == x.device:
            continue
        with pytest.raises(DeviceError):
            et.add(x, 1, out=o)
        assert o.tolist() == [1.0, 2.0]


def test_creation_functions_make_their_result_on_outs_device():
    for device in ("cpu", "torch:cpu"):
        o = et.empty(0, device=device)
        assert et.arange(3, out=o) is o
        assert str(o.device) == device and o.tolist() == [0.0, 1.0, 2.0]


# -- awkward inputs ---------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda lib: lib.add(lib.tensor(2.0), lib.tensor(3.0), out=lib.empty(())),
    lambda lib: lib.mul(lib.ones(0, 3), 2, out=lib.empty(0, 3)),
    lambda lib: lib.sum(lib.ones(0, 3), 0, out=lib.full((3,), 5.0)),
    lambda lib: lib.exp(lib.arange(6.0).reshape(2, 3).t(), out=lib.empty(3, 2)),
    lambda lib: lib.add(lib.arange(12.0).reshape(3, 4)[:, ::2], 1, out=lib.zeros(2, 3).t()),
    lambda lib: lib.matmul(lib.arange(6.0).reshape(2, 3).t(), lib.ones(2, 2), out=lib.empty(0)),
    lambda lib: lib.cat([lib.ones(0), lib.arange(3.0)], out=lib.empty(3)),
    lambda lib: lib.amax(lib.arange(6.0).reshape(2, 3), 1, keepdim=True, out=lib.empty(2, 1)),
    lambda lib: lib.clamp(lib.arange(-3.0, 3.0), min=-1, max=1, out=lib.empty(6)),
    lambda lib: lib.pow(lib.arange(4), 2, out=lib.empty(4, dtype=lib.float64)),
    lambda lib: lib.div(lib.arange(4), 2, rounding_mode="floor", out=lib.empty(4, dtype=lib.long)),
])
def test_awkward_inputs(call):
    got_t, got_e = call(torch), call(et)
    assert_close(got_e, got_t)


def test_the_wrapper_keeps_the_function():
    assert et.add.__name__ == "add"
    assert et.add.implementation is et.add.out_original.implementation
    assert et.add(et.ones(2), 1).tolist() == [2.0, 2.0]
