"""The rule of docs/devices.md for the ops the torch backend computes with torch's own kernels
in the tensor's dtype (issue 31): exact GELU and its gradient, layer_norm and its gradients,
gather and scatter-add along a dim agree with the NumPy backend within float32 rounding (they
no longer agree bit for bit), and keep ember's documented values at non-finite inputs."""

import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F

pytestmark = pytest.mark.torch_only

DEVICES = ("cpu", "torch:cpu")
RTOL = {"float32": 1e-5, "float64": 1e-12, "float16": 1e-3, "bfloat16": 1e-2}


def _both(fn, *arrays, dtype="float32", grad=True):
    """``fn`` of the arrays as tensors on each device: (outputs, gradients of the first input)
    per device, as float64 NumPy arrays."""
    found = []
    for device in DEVICES:
        ts = [ember.tensor(a, device=device).cast(dtype) for a in arrays]
        if grad:
            ts[0] = ts[0].require_grad()
        out = fn(*ts)
        g = None
        if grad:
            out.backward(ember.ones_like(out) * 0.5 + ts[0].detach())
            g = ts[0].grad.cast("float64").numpy()
        found.append((out.detach().cast("float64").numpy(), g))
    return found


def _close(a, b, dtype):
    np.testing.assert_allclose(a, b, rtol=RTOL[dtype], atol=RTOL[dtype], equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_exact_gelu_and_its_gradient_agree_within_rounding(dtype):
    x = np.random.default_rng(0).standard_normal((64, 33)) * 4
    (o1, g1), (o2, g2) = _both(F.gelu, x, dtype=dtype)
    _close(o1, o2, dtype)
    _close(g1, g2, dtype)


@pytest.mark.parametrize("n", [1, 3, 8, 100])
def test_gelu_keeps_its_values_at_non_finite_inputs(n):
    x = np.zeros(n)
    x[0] = math.inf
    x[-1] = math.inf if n == 1 else -math.inf
    if n > 3:
        x[1] = math.nan
    for device in DEVICES:
        for dtype in ("float32", "bfloat16", "float64"):
            out = F.gelu(ember.tensor(x, device=device).cast(dtype)).cast("float64").tolist()
            assert out[0] == math.inf, (device, dtype, out)
            if n > 1:
                assert math.isnan(out[-1]), (device, dtype, out)
            if n > 3:
                assert math.isnan(out[1]) and out[2] == 0.0, (device, dtype, out)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_and_its_gradients_agree_within_rounding(dtype, affine):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 5, 16)) * 3 + 1
    w, b = rng.standard_normal((5, 16)), rng.standard_normal((5, 16))
    grads = []
    for device in DEVICES:
        xs = ember.tensor(x, device=device).cast(dtype).require_grad()
        ws = ember.tensor(w, device=device).cast(dtype).require_grad() if affine else None
        bs = ember.tensor(b, device=device).cast(dtype).require_grad() if affine else None
        out = F.layer_norm(xs, (5, 16), ws, bs)
        out.backward(out.detach() * 0.5 + 1.0)
        grads.append([out.detach()] + [t.grad for t in (xs, ws, bs) if t is not None])
    for a, b_ in zip(*grads):
        _close(a.cast("float64").numpy(), b_.cast("float64").numpy(), dtype)


def test_gather_and_scatter_add_agree_within_rounding():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((40, 7))
    idx = rng.integers(-40, 40, (60, 7))  # negative indices take the indexing path
    v = rng.standard_normal((60, 7))
    found = []
    for device in DEVICES:
        for i in (idx, idx % 40):
            xs = ember.tensor(x, device=device).cast("float32").require_grad()
            it = ember.tensor(i, device=device)
            out = xs.gather(0, it)
            out.backward(out.detach() + 1.0)
            found += [out.detach(), xs.grad]
            found.append(xs.detach().scatter(0, it, ember.tensor(v, device=device).cast(
                "float32"), "add"))
    half = len(found) // 2
    for a, b in zip(found[:half], found[half:]):
        _close(a.cast("float64").numpy(), b.cast("float64").numpy(), "float32")
