"""erf of float32 (and half) tensors, computed in float32 by the NumPy backend: float32 accuracy
against the exact values, PyTorch's values and gradients, special values."""

import math

import numpy as np
import pytest
import torch

import ember
from oracle import assert_close, ember_tensor, flush_subnormals, layouts


def test_float32_erf_has_float32_accuracy():
    x = np.linspace(-7, 7, 70001).astype(np.float32)
    x = np.concatenate([x, np.float32([0.5, -0.5, 0.49999997, 1e-30, -1e-38, 3e-8])])
    want = np.array([math.erf(float(v)) for v in x])
    t = ember.tensor(x)
    got = t.erf().numpy()
    want = flush_subnormals(want, t)  # erf(-1e-38) is -1.128e-38, subnormal in float32
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=4e-7, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_erf_and_its_gradient_match_torch(rng, dtype):
    for shape in [(), (0,), (5,), (3, 4), (2, 0, 3), (40, 30)]:
        a = np.asarray((rng.standard_normal(shape) * 2).astype(np.float32))
        if a.size >= 6:
            a.flat[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 4.0]
        for _, la in layouts(a):
            x = ember_tensor(la, dtype, requires_grad=True)
            t = torch.tensor(np.array(la), dtype=getattr(torch, dtype), requires_grad=True)
            y, ty = x.erf(), torch.erf(t)
            assert_close(y, ty)
            seed = rng.standard_normal(shape).astype(np.float32)
            y.backward(ember.tensor(seed).cast(dtype))
            ty.backward(torch.from_numpy(seed).to(t.dtype))
            assert_close(x.grad, t.grad)
            got = y.numpy().astype(np.float32)
            want = torch.erf(t.detach().float()).numpy()
            assert np.array_equal(np.signbit(got[got == 0]), np.signbit(want[want == 0]))
