"""The huge-view guard (ember/backends/guard.py ``check_result``/``check_shaped``): an op that
computes a result of its operands' broadcast shape (elementwise math, arithmetic and
operators, comparisons and logic, ``where`` and the masks, casts, scans, softmax) raises the
allocation guard's InvalidParameterError naming the op and the result's shape when that result
needs more bytes than the machine's memory, before any kernel runs, on every backend; a
broadcast view such as ``ones(1).expand(2**40)`` holds 4 bytes, its result would hold 4 TiB.
Results that fit are computed as before."""

import math

import numpy as np
import pytest

import ember
from ember import InvalidParameterError
from ember.backends import guard

pytestmark = pytest.mark.layout  # a device without views computes ``expand`` itself

N = 2 ** 40  # float32 elements: 4 TiB, more than any machine this suite runs on
WIDE = (2 ** 20, 2 ** 20)


def _view(dtype="float32", requires_grad=False):
    base = ember.ones(1, dtype=dtype)
    if requires_grad:
        base = base.require_grad()
    return base.expand(N)


def _x():
    return _view()


def _b():
    return _view("bool")


def _i():
    return _view("int32")


def _col():
    return ember.ones(WIDE[0], 1)


def _row():
    return ember.ones(1, WIDE[1])


# name: (call, the op named, the result's shape)
CASES = {
    # float math
    "exp": (lambda: _x().exp(), "exp", (N,)),
    "log": (lambda: _x().log(), "log", (N,)),
    "sqrt": (lambda: _x().sqrt(), "sqrt", (N,)),
    "tanh": (lambda: _x().tanh(), "tanh", (N,)),
    "sigmoid": (lambda: _x().sigmoid(), "sigmoid", (N,)),
    "erf": (lambda: _x().erf(), "erf", (N,)),
    "exp of ints": (lambda: _i().exp(), "exp", (N,)),
    "relu": (lambda: _x().relu(), "relu", (N,)),
    "gelu": (lambda: _x().gelu(), "gelu", (N,)),
    "silu": (lambda: _x().silu(), "silu", (N,)),
    "round": (lambda: _x().round(), "round", (N,)),
    "round(2)": (lambda: _x().round(2), "round", (N,)),
    "floor": (lambda: _x().floor(), "floor", (N,)),
    # unary arithmetic
    "neg": (lambda: -_x(), "neg", (N,)),
    "abs": (lambda: _x().abs(), "abs", (N,)),
    "sign": (lambda: _x().sign(), "sign", (N,)),
    "square": (lambda: _x().square(), "square", (N,)),
    # binary arithmetic, operators and their short paths
    "x + y": (lambda: _x() + _x(), "add", (N,)),
    "add": (lambda: _x().add(_x()), "add", (N,)),
    "x - y": (lambda: _x() - _x(), "sub", (N,)),
    "x * 2.0": (lambda: _x() * 2.0, "mul", (N,)),
    "2.0 * x": (lambda: 2.0 * _x(), "mul", (N,)),
    "x / y": (lambda: _x() / _x(), "true_divide", (N,)),
    "x ** 2": (lambda: _x() ** 2, "pow", (N,)),
    "x // y": (lambda: _x() // _x(), "floor_divide", (N,)),
    "x % 2.0": (lambda: _x() % 2.0, "remainder", (N,)),
    "ints + 1": (lambda: _i() + 1, "add", (N,)),
    "ints + floats": (lambda: _i() + _x(), "add", (N,)),
    "broadcast +": (lambda: _col() + _row(), "add", WIDE),
    "broadcast *": (lambda: _col() * _row(), "mul", WIDE),
    "maximum": (lambda: ember.maximum(_x(), _x()), "maximum", (N,)),
    "clamp_min": (lambda: _x().clamp_min(0.5), "clamp_min", (N,)),
    "clamp": (lambda: _x().clamp(0, 1), "clamp", (N,)),
    "atan2": (lambda: _x().atan2(_x()), "atan2", (N,)),
    "lerp": (lambda: _x().lerp(_x(), 0.5), "lerp", (N,)),
    "fmod": (lambda: _x().fmod(2.0), "fmod", (N,)),
    # tracked operands
    "tracked x + y": (lambda: _view(requires_grad=True) + _x(), "add", (N,)),
    "tracked x * 2.0": (lambda: _view(requires_grad=True) * 2.0, "mul", (N,)),
    "tracked exp": (lambda: _view(requires_grad=True).exp(), "exp", (N,)),
    # comparisons and logic
    "x > 0": (lambda: _x() > 0, "greater (>)", (N,)),
    "x > y": (lambda: _x() > _x(), "greater (>)", (N,)),
    "x == y": (lambda: _x() == _x(), "equal (==)", (N,)),
    "broadcast !=": (lambda: _col() != _row(), "not_equal (!=)", WIDE),
    "isnan": (lambda: _x().isnan(), "is_nan", (N,)),
    "isfinite": (lambda: _x().isfinite(), "is_finite", (N,)),
    "isclose": (lambda: _x().isclose(_x()), "is_close", (N,)),
    "logical_not": (lambda: _b().logical_not(), "logical_not", (N,)),
    "logical_and": (lambda: _b().logical_and(_b()), "logical_and", (N,)),
    "bool_not": (lambda: _b().bool_not(), "bool_not", (N,)),
    "ints & 1": (lambda: _i() & 1, "bitwise_and (&)", (N,)),
    "~ints": (lambda: ~_i(), "bitwise_not (~)", (N,)),
    "ints ^ ints": (lambda: _i() ^ _i(), "bitwise_xor (^)", (N,)),
    "ints << 1": (lambda: _i() << 1, "bitwise_left_shift (<<)", (N,)),
    # where and the masks
    "where": (lambda: ember.where(_b(), _x(), _x()), "where", (N,)),
    "where with a number": (lambda: ember.where(_b(), _x(), 0.0), "where", (N,)),
    "broadcast where": (lambda: ember.where(_col() > 0, _row(), 0.0), "where", WIDE),
    "masked_fill": (lambda: _x().masked_fill(_b(), 0.0), "masked_fill", (N,)),
    "mask_where": (lambda: _x().mask_where(_b(), _x()), "mask_where", (N,)),
    # casts
    "to(float64)": (lambda: _x().to(ember.float64), "cast", (N,)),
    "cast float16": (lambda: _x().cast("float16"), "cast", (N,)),
    "cast int32": (lambda: _x().cast("int32"), "cast", (N,)),
    "cast bool": (lambda: _x().cast("bool"), "cast", (N,)),
    "bools as floats": (lambda: _b().float(), "cast", (N,)),
    # scans
    "cumsum": (lambda: _x().cumsum(0), "cumsum", (N,)),
    "cumprod": (lambda: _x().cumprod(0), "cumprod", (N,)),
    "cummax": (lambda: _x().cummax(0), "cummax", (N,)),
    "cummin": (lambda: _x().cummin(0), "cummin", (N,)),
    "cumsum of ints": (lambda: _i().cumsum(0), "cumsum", (N,)),
    "cumsum of bools": (lambda: _b().cumsum(0), "cumsum", (N,)),
    # reductions that keep the shape
    "softmax": (lambda: _x().softmax(0), "softmax", (N,)),
    "log_softmax": (lambda: _x().log_softmax(0), "log_softmax", (N,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_huge_results_raise_the_typed_error(name):
    call, op, shape = CASES[name]
    with pytest.raises(InvalidParameterError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{op}: a result of shape {shape} is too large to allocate ("), \
        message
    assert "bytes, more than the machine's" in message
    assert info.value.param == "shape" and info.value.value == shape


def test_views_and_reductions_of_huge_views_still_work():
    x = _x()
    assert x.shape == (N,) and (+x) is x and x.real() is x and x.conj() is x
    np.testing.assert_allclose(x[:3].exp().numpy(), [math.e] * 3, rtol=1e-6)
    assert (x[5:9] + x[:4]).tolist() == [2.0] * 4
    assert x.reshape(2 ** 20, 2 ** 20)[:2, :2].cumsum(1).tolist() == [[1.0, 2.0]] * 2


LARGE = 2 ** 22  # 16 MiB of float32: a broadcast view that fits, computed as before


@pytest.mark.parametrize("name,call,expected", [
    ("exp", lambda x: x.exp(), math.e * LARGE),
    ("x + y", lambda x: x + x, 2.0 * LARGE),
    ("x * 2.0", lambda x: x * 2.0, 2.0 * LARGE),
    ("x > 0", lambda x: (x > 0).int(), LARGE),
    ("where", lambda x: ember.where(x > 0, x, 0.0), LARGE),
    ("cast", lambda x: x.to(ember.float64), LARGE),
    ("softmax", lambda x: x.softmax(0) * LARGE, LARGE),
])
def test_large_views_that_fit_still_compute(name, call, expected):
    out = call(ember.ones(1).expand(LARGE))
    assert out.shape == (LARGE,)
    assert math.isclose(out.sum().item(), expected, rel_tol=1e-4)


def test_cumsum_of_a_large_view_that_fits():
    out = ember.ones(1).expand(LARGE).cumsum(0)
    np.testing.assert_array_equal(out[-3:].numpy(), [LARGE - 2, LARGE - 1, LARGE])


def test_the_limit_is_the_machines_memory(monkeypatch):
    # a machine of 1 MiB: 2**17 float32 (512 KiB) fit, 2**19 (2 MiB) do not
    monkeypatch.setattr(guard, "_PHYSICAL_BYTES", 2 ** 20)
    monkeypatch.setattr(guard, "_SMALL_BYTES", 2 ** 16)
    assert ember.ones(1).expand(2 ** 17).exp().shape == (2 ** 17,)
    assert (ember.ones(2 ** 8, 1) + ember.ones(1, 2 ** 9)).shape == (2 ** 8, 2 ** 9)
    with pytest.raises(InvalidParameterError, match=r"^exp: a result of shape \(524288,\) is "
                       r"too large to allocate \(2097152 bytes, more than the machine's "
                       r"1048576 bytes of memory\)"):
        ember.ones(1).expand(2 ** 19).exp()
    with pytest.raises(InvalidParameterError, match=r"^add: a result of shape \(512, 1024\)"):
        ember.ones(2 ** 9, 1) + ember.ones(1, 2 ** 10)
    # the result's dtype counts: 2**18 elements are 1 MiB of float32 but 2 MiB of float64
    assert ember.ones(1).expand(2 ** 18).cast("float32").shape == (2 ** 18,)
    with pytest.raises(InvalidParameterError, match=r"^cast: a result of shape \(262144,\)"):
        ember.ones(1).expand(2 ** 18).cast("float64")
