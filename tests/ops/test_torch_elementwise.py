"""The torch backend gives the NumPy backend's results for the elementwise ops (ember/ops/arith.py,
float_math.py, clamps.py, operators.py): dtypes, values, NaN and -0.0, gradients and errors."""

import os

import numpy as np
import pytest

import ember
from test_elementwise import FLOATS, INTS, RNG, data


# the torch device the comparisons run on: torch:cpu, or the suite's torch device (CUDA)
TORCH_DEVICE = os.environ.get("EMBER_DEVICE", "") if os.environ.get(
    "EMBER_DEVICE", "").startswith("torch:") else "torch:cpu"


ALL_INTS = INTS + ["uint16", "uint32", "uint64"]


def on_both(arrays, dtype):
    """The same values as tensors on "cpu" (NumPy) and TORCH_DEVICE."""
    np_side = [ember.Tensor(np.asarray(a), device="cpu").cast(dtype) for a in arrays]
    torch_side = [ember.Tensor(np.asarray(a), device=TORCH_DEVICE).cast(dtype) for a in arrays]
    return np_side, torch_side


def same_values(ours, theirs, what):
    """``ours`` (torch:cpu) equals ``theirs`` (cpu): dtype, shape and values, NaN and -0.0 too."""
    assert ours.device == ember.Device(TORCH_DEVICE), what
    assert ours.dtype is theirs.dtype, f"{what}: dtype {ours.dtype} != {theirs.dtype}"
    a, b = np.asarray(ours.numpy()), np.asarray(theirs.numpy())
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    if a.dtype.kind in "fV":
        a, b = a.astype(np.float64), b.astype(np.float64)
        np.testing.assert_array_equal(np.signbit(a[a == 0]), np.signbit(b[b == 0]), err_msg=what)
        np.testing.assert_allclose(a, b, rtol=1e-6 if ours.dtype.name in ("float64", "float32")
                                   else 1e-2, atol=0, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


# (+ - * / are the operators' own short paths; the methods take the general path of each op)
PARITY_BINARY = {
    "add": lambda a, b: a.add(b), "sub": lambda a, b: a.sub(b), "mul": lambda a, b: a.mul(b),
    "truediv": lambda a, b: a.true_divide(b), "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "fmod": lambda a, b: a.fmod(b), "div": lambda a, b: a.div(b),
    "max_pair": lambda a, b: a.max_pair(b), "min_pair": lambda a, b: a.min_pair(b),
    "pow": lambda a, b: a ** b,
    "clamp": lambda a, b: a.clamp(b, 2), "eq": lambda a, b: a == b, "lt": lambda a, b: a < b,
    "ge": lambda a, b: a >= b,
}


def parity_data(dtype, shape=(3, 4), nonzero=False):
    if dtype in FLOATS:
        arr = data(shape, dtype, special=True).astype(np.float64)
    elif dtype.startswith("uint"):
        info = np.iinfo(dtype)
        arr = RNG.integers(0, int(info.max), shape, dtype=np.uint64, endpoint=True).astype(dtype)
        arr.flat[:3] = [0, 1, info.max]
    else:
        info = np.iinfo(dtype)
        arr = RNG.integers(int(info.min), int(info.max), shape, endpoint=True).astype(dtype)
        arr.flat[:4] = [0, -1, info.min, info.max]
    if nonzero and dtype not in FLOATS:
        arr[arr == 0] = 3
    return arr


@pytest.mark.parametrize("name", sorted(PARITY_BINARY))
@pytest.mark.parametrize("dtype", FLOATS + ALL_INTS)
def test_torch_backend_matches_numpy_binary(name, dtype):
    fn = PARITY_BINARY[name]
    a, b = parity_data(dtype), parity_data(dtype, nonzero=True)
    if name == "pow" and dtype not in FLOATS:
        b = (b.astype(np.int64) % 5).astype(dtype)
    (na, nb), (ta, tb) = on_both([a, b], dtype)
    same_values(fn(ta, tb), fn(na, nb), f"{name} {dtype}")
    same_values(fn(ta, tb[0]), fn(na, nb[0]), f"{name} {dtype} broadcast")
    for s in (3, -1, 2**40, 2.5) if name not in ("pow",) else (2, 3):
        if s in (-1, 2**40) and name in ("floordiv", "mod", "fmod", "div") and dtype in ALL_INTS \
                and np.asarray(s).astype(dtype) == 0 if s == 2**40 else dtype.startswith("uint"):
            continue                                  # the scalar wraps to 0 in the dtype
        same_values(fn(ta, s), fn(na, s), f"{name} {dtype} scalar {s}")


PARITY_UNARY = ["neg", "abs", "sign", "square", "relu", "floor", "ceil", "trunc", "round", "exp",
                "log", "log1p", "expm1", "sqrt", "rsqrt", "recip", "erf", "sin", "cos", "tan",
                "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
                "deg2rad", "rad2deg", "sigmoid"]


@pytest.mark.parametrize("dtype", FLOATS + ALL_INTS)
def test_torch_backend_matches_numpy_unary(dtype):
    a = parity_data(dtype)
    (na,), (ta,) = on_both([a], dtype)
    for name in PARITY_UNARY:
        same_values(getattr(ta, name)(), getattr(na, name)(), f"{name} {dtype}")
    if dtype in FLOATS:
        same_values(ta.round(2), na.round(2), f"round(2) {dtype}")
        same_values(ta.round(-1), na.round(-1), f"round(-1) {dtype}")
        same_values(ta.lerp(ta.mul(2), 0.25), na.lerp(na.mul(2), 0.25), f"lerp {dtype}")
        same_values(ta.atan2(ta.add(1)), na.atan2(na.add(1)), f"atan2 {dtype}")
        same_values(ta.hypot(ta.add(1)), na.hypot(na.add(1)), f"hypot {dtype}")


def test_torch_backend_gradients_match_numpy():
    a = RNG.standard_normal((3, 4))
    b = RNG.standard_normal((4,)) + 3
    grads = {}
    for device in ("cpu", TORCH_DEVICE):
        x = ember.Tensor(a, dtype="float64", device=device).require_grad()
        y = ember.Tensor(b, dtype="float64", device=device).require_grad()
        terms = [x.mul(y).add(x.true_divide(y)).sub(x.abs().pow(2.5)).add(
                     x.abs().pow(y.abs()).true_divide(10)).sin(), x.exp().tanh(),
                 x.max_pair(y), x.clamp(-0.5, y), x.lerp(y, 0.3), x.atan2(y), x.erf(),
                 x.sigmoid(), x % y, x.fmod(y), x.abs().sqrt(), x.hypot(y), x.relu(),
                 x.square().log1p(), y.rsqrt(), x.sub_scalar(3).recip()]
        loss = terms[0]
        for t in terms[1:]:
            loss = loss.add(t)
        # (no sum, an explicit seed: reductions and creation are other families')
        loss.backward(ember.Tensor(np.ones((3, 4)), dtype="float64", device=device))
        grads[device] = (x.grad.numpy(), y.grad.numpy())
    for ours, theirs in zip(grads[TORCH_DEVICE], grads["cpu"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_integer_division_by_minus_one_wraps_on_every_backend():
    for dtype in ("int32", "int64", "int8"):
        info = np.iinfo(dtype)
        (na, nb), (ta, tb) = on_both([[info.min, 7], [-1, -1]], dtype)
        for fn in (lambda a, b: a // b, lambda a, b: a % b, lambda a, b: a.fmod(b),
                   lambda a, b: a // -1, lambda a, b: a % -1):
            same_values(fn(ta, tb), fn(na, nb), dtype)


def test_mixing_devices_raises_device_error():
    a = ember.Tensor([1.0, 2.0], device="cpu")
    b = ember.Tensor([1.0, 2.0], device="torch:cpu")
    for fn in (lambda: a.add(b), lambda: b.sub(a), lambda: a.max_pair(b), lambda: a.atan2(b),
               lambda: a.clamp(b, None), lambda: a.lerp(b, 0.5), lambda: b.pow(a)):
        with pytest.raises(ember.DeviceError, match="different devices, cpu and torch:cpu|"
                                                    "different devices, torch:cpu and cpu"):
            fn()


def test_torch_ew_scalar_gives_the_numpy_backends_operands():
    numpy_be = ember.Device("cpu").backend
    torch_be = ember.Device(TORCH_DEVICE).backend
    values = [0, 1, -1, 255, 256, -129, 2**63 - 1, 2**63, 2**64 - 1, -(2**63), 2**60 + 1, 0.1,
              -2.5, 1e10, 1e300, float("inf"), float("nan"), np.float32(0.1), np.int16(-7),
              np.uint64(2**64 - 1)]
    for dtype in FLOATS + ALL_INTS:
        dt = ember.as_dtype(dtype) if hasattr(ember, "as_dtype") else getattr(ember, dtype)
        for v in values:
            if dtype in ALL_INTS and isinstance(v, (float, np.floating)):
                continue
            ours, theirs = torch_be.ew_scalar(v, dt), numpy_be.ew_scalar(v, dt)
            t = float(theirs) if dtype in FLOATS else int(theirs)
            if isinstance(t, float) and t != t:
                assert ours != ours, (dtype, v)
            else:
                assert ours == t and type(ours) is type(t), (dtype, v, ours, t)
        for v in (2**64, -(2**63) - 1):
            with pytest.raises(OverflowError):
                torch_be.ew_scalar(v, dt) if dtype in ALL_INTS else torch_be.ew_scalar(10**400, dt)
