"""The torch backend's max pooling on small planes, which goes through a channels-last copy on
the CPU (torch's NCHW kernel costs about 2 µs a plane): values, indices and gradients equal
PyTorch's own NCHW kernel, ties and NaN included."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F

pytestmark = pytest.mark.torch_only


@pytest.mark.parametrize("shape, kw", [
    ((4, 8, 6, 6), {"kernel_size": 2}),
    ((3, 16, 7, 5), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ((2, 8, 5, 5), {"kernel_size": 2, "ceil_mode": True}),
    ((2, 9, 16, 16), {"kernel_size": 3, "stride": 1, "dilation": 2}),
    ((0, 8, 4, 4), {"kernel_size": 2}),
])
def test_small_planes_give_pytorchs_values_indices_and_gradients(rng, shape, kw):
    a = np.round(rng.standard_normal(shape) * 2).astype(np.float32)  # many ties
    if a.size:
        a.flat[::7] = np.nan
    x = ember.tensor(a, device="torch:cpu").require_grad()
    out, idx = F.max_pool2d(x, return_indices=True, **kw)
    t = torch.from_numpy(a.copy()).requires_grad_()
    tout, tidx = TF.max_pool2d(t, return_indices=True, **kw)
    np.testing.assert_array_equal(out.numpy(), tout.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    seed = rng.standard_normal(tuple(tout.shape)).astype(np.float32)
    out.backward(ember.tensor(seed, device="torch:cpu"))
    tout.backward(torch.from_numpy(seed))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)
