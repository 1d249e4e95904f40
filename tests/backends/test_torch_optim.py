"""The torch backend's Adam and AdamW steps through torch's fused kernel (float32/float64 with
contiguous state; other dtypes take the base's default): the same parameters as
``torch.optim`` within float32 rounding, over a few steps with every option."""

import numpy as np
import pytest
import torch

import ember
import ember.optim as eoptim

pytestmark = pytest.mark.torch_only


def _fused_calls(monkeypatch):
    calls = []
    for name in ("_fused_adam_", "_fused_adamw_"):
        real = getattr(torch, name)

        def spy(*args, _real=real, _name=name, **kw):
            calls.append(_name)
            return _real(*args, **kw)
        monkeypatch.setattr(torch, name, spy)
    return calls


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("kind, kw", [
    ("Adam", {}), ("Adam", {"weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"maximize": True}), ("AdamW", {"weight_decay": 0.1}),
    ("AdamW", {"amsgrad": True, "maximize": True}),
])
def test_adam_steps_are_pytorchs(rng, monkeypatch, dtype, kind, kw):
    calls = _fused_calls(monkeypatch)
    a = rng.standard_normal((5, 3))
    grads = [rng.standard_normal((5, 3)) for _ in range(3)]
    p = ember.tensor(a, device="torch:cpu").cast(dtype).require_grad()
    t = torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True)
    opt = getattr(eoptim, kind)([p], lr=0.05, **kw)
    topt = getattr(torch.optim, kind)([t], lr=0.05, **kw)
    for g in grads:
        p.grad = ember.tensor(g, device="torch:cpu").cast(dtype)
        t.grad = torch.tensor(g, dtype=t.dtype)
        opt.step()
        topt.step()
    tol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 1e-2}[dtype]
    np.testing.assert_allclose(p.cast("float64").numpy(), t.detach().double().numpy(),
                               rtol=tol, atol=tol)
    assert len(calls) == (0 if dtype == "bfloat16" else 3)
