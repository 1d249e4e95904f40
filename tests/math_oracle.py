"""Run one call on ember.torch and on PyTorch with the same inputs and compare the results:
values, shapes, dtypes and (for float inputs that require grad) the gradients of a random
weighting of the float outputs."""

import numpy as np
import torch

import ember.torch as et
from ember.errors import GraphError
from oracle import assert_close


def _leaf(m, arr, grad):
    if isinstance(arr, np.ndarray):
        return m.tensor(arr, requires_grad=bool(grad and arr.dtype.kind == "f"))
    if isinstance(arr, list) and arr and all(isinstance(a, np.ndarray) for a in arr):
        return [_leaf(m, a, grad) for a in arr]
    return arr


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out]


def check(f, *arrays, grad=True, rtol=None, atol=None, seed=0):
    """``f(module, *tensors)`` on ember.torch and on torch agree; returns ember's result."""
    ins_e = [_leaf(et, a, grad) for a in arrays]
    ins_t = [_leaf(torch, a, grad) for a in arrays]
    out_t = f(torch, *ins_t)
    out_e = f(et, *ins_e)
    flat_t, flat_e = _flat(out_t), _flat(out_e)
    assert type(out_e) is not list or type(out_t) is list, f"{type(out_e)} vs {type(out_t)}"
    assert len(flat_t) == len(flat_e), f"{len(flat_e)} results, expected {len(flat_t)}"
    for a, b in zip(flat_e, flat_t):
        if isinstance(b, torch.Tensor):
            assert type(a) is et.Tensor, f"expected an ember.torch Tensor, got {type(a)}"
            assert_close(a, b.detach().resolve_conj(), rtol=rtol, atol=atol)
        else:
            assert a == b, f"{a!r} != {b!r}"
    leaves_t = [t for t in _flat(ins_t) if isinstance(t, torch.Tensor) and t.requires_grad]
    leaves_e = [t for t in _flat(ins_e) if isinstance(t, et.Tensor) and t.requires_grad]
    outs = [(a, b) for a, b in zip(flat_e, flat_t) if isinstance(b, torch.Tensor)
            and b.requires_grad and b.dtype.is_floating_point]
    if grad and leaves_t and outs:
        rng = np.random.default_rng(seed)
        total_t, total_e = 0, 0
        for a, b in outs:
            w = rng.standard_normal(tuple(b.shape)).astype(str(b.dtype).replace("torch.", ""))
            total_t = total_t + (b * torch.tensor(w)).sum()
            total_e = total_e + (a * et.tensor(w)).sum()
        gt = torch.autograd.grad(total_t, leaves_t, allow_unused=True)
        try:
            total_e.backward()
        except GraphError:  # no input reaches the result: PyTorch's gradients must be zero
            assert not any(g is not None and g.any() for g in gt), "no gradient reached"
            return out_e
        for le, g in zip(leaves_e, gt):
            if g is None:
                continue
            if le.grad is None:  # no path from the input: PyTorch's gradient must be zero
                assert not g.any(), "no gradient reached an input"
            else:
                assert_close(le.grad, g, rtol=rtol, atol=atol)
    return out_e


def rand(shape, dtype="float32", seed=0, low=-3, high=3):
    """Random data: normal floats, ints in [low, high), bools."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith(("int", "uint")):
        return rng.integers(low, high, size=shape).astype(dtype)
    return np.asarray(rng.standard_normal(shape)).astype(dtype)
