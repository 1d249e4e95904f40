"""Weights of every ember.torch.nn module class travel through safetensors files both ways:
a PyTorch module with random state -> ``safetensors.torch.save_file(state_dict)`` ->
``ember.io.load_file`` -> ``load_state_dict`` into the ember.torch module gives PyTorch's
outputs (eval mode) and state; and an ember.torch module with random state ->
``ember.io.save_file(state_dict)`` -> ``safetensors.torch.load_file`` -> PyTorch's
``load_state_dict`` gives ember's outputs. One case per constructor of layer_cases.py (every
module class of ember.torch.nn), in float32 and float64."""

import numpy as np
import pytest
import safetensors.torch
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import ember.io
import ember.torch as et

from layer_cases import CASES
from layer_runner import flat, make_inputs, materialize, numpy_of

DTYPES = {"float32": (torch.float32, et.float32, 1e-5), "float64": (torch.float64, et.float64,
                                                                    1e-6)}


def _random_state(state, seed):
    """Random arrays for a state dict's float entries (variances positive, a fractional
    pool's samples in [0, 1)); its ints get 7 (num_batches_tracked)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, t in state.items():
        shape = tuple(t.shape)
        if not t.is_floating_point():
            out[name] = np.full(shape, 7, dtype=np.int64)
        elif name.endswith("_random_samples"):
            out[name] = rng.random(shape)
        elif name.endswith("running_var"):
            out[name] = 0.5 + rng.random(shape)
        else:
            out[name] = rng.standard_normal(shape)
    return out


def _build(case, lib, dtype):
    torch.manual_seed(0)
    m = case.build(torch.nn if lib is torch else et.nn).to(dtype)
    materialize(case, m, lib, str(dtype).split(".")[-1])
    return m.eval()


def _outputs(case, lib, module, dtype):
    if not case.call:
        return []
    args, _ = make_inputs(lib, case.inputs(np.random.default_rng(1)), False, dtype)
    with sdpa_kernel(SDPBackend.MATH), (torch.no_grad() if lib is torch else et.no_grad()):
        return [numpy_of(t) for t in flat(module(*args))]


def _same_state(got, want, tol):
    assert list(got) == list(want)
    for name in want:
        g, w = got[name], want[name]
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1], name
        np.testing.assert_allclose(numpy_of(g), numpy_of(w), rtol=tol, atol=tol, err_msg=name)


def _same_outputs(got, want, tol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_torch_to_safetensors_to_ember(case, dtype, tmp_path):
    tdt, edt, tol = DTYPES[dtype]
    tm = _build(case, torch, tdt)
    with torch.no_grad():
        for name, a in _random_state(tm.state_dict(), 5).items():
            tm.state_dict()[name].copy_(torch.from_numpy(a))
    path = str(tmp_path / "weights.safetensors")
    safetensors.torch.save_file(tm.state_dict(), path)
    em = _build(case, et, edt)
    em.load_state_dict(ember.io.load_file(path))
    _same_state(em.state_dict(), tm.state_dict(), 0.0)
    _same_outputs(_outputs(case, et, em, dtype), _outputs(case, torch, tm, dtype), tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_ember_to_safetensors_to_torch(case, dtype, tmp_path):
    tdt, edt, tol = DTYPES[dtype]
    em = _build(case, et, edt)
    state = {k: et.tensor(a).to(v.dtype) for (k, a), v in
             zip(_random_state(em.state_dict(), 6).items(), em.state_dict().values())}
    em.load_state_dict(state)
    path = str(tmp_path / "weights.safetensors")
    ember.io.save_file(em.state_dict(), path)
    tm = _build(case, torch, tdt)
    tm.load_state_dict(safetensors.torch.load_file(path))
    _same_state(tm.state_dict(), em.state_dict(), 0.0)
    _same_outputs(_outputs(case, et, em, dtype), _outputs(case, torch, tm, dtype), tol)
