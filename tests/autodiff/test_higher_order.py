"""Second-order gradients of every op of the gradient table, against torch.func.

For each entry of ``test_gradients.CASES`` and each of its shape sets: with random float64
inputs ``xs``, output seeds ``s`` and directions ``v``, the scalar ``F(xs) = sum(out * s)``
has the gradient ``grad F`` and the Hessian-vector product ``H v = grad (grad F . v)``. ember
computes both with ``backward(create_graph=True)`` (the gradient rules are recorded in turn);
PyTorch with ``torch.func.grad`` of ``<torch.func.grad(F), v>`` (reverse over reverse: torch
2.13's forward mode gives wrong second derivatives of layer_norm and batch_norm), or, for the
few functions that torch.func cannot trace (in-place updates of the inputs' copies), with double
``torch.autograd.grad``. They must match to 1e-10.
"""

import zlib

import numpy as np
import pytest
import torch

import ember
from ember.autodiff.engine import run_backward

from test_gradients import CASES, _as_list

RTOL = ATOL = 1e-10


def _params():
    out = []
    for c in CASES:
        for k, shapes in enumerate(c.shapes):
            out.append(pytest.param(c, shapes, id=f"{c.name}-{k}"))
    return out


def _ember_second(c, arrays, extra, seeds, vs):
    xs = [ember.from_numpy(a.copy()).require_grad() for a in arrays]
    outs = _as_list(c.fe(*xs, **extra))
    total = None
    for o, s in zip(outs, seeds):
        if o.is_tracked():
            term = (o * ember.from_numpy(s).to_device(o.device)).sum()
            total = term if total is None else total + term
    zeros = [np.zeros(a.shape) for a in arrays]
    if total is None:
        return zeros, zeros
    grads = run_backward(total, create_graph=True, targets=xs)
    first = [np.zeros(a.shape) if g is None else np.array(g.numpy()) for a, g in zip(arrays, grads)]
    dot = None
    for g, v in zip(grads, vs):
        if g is not None and g.is_tracked():
            term = (g * ember.from_numpy(v).to_device(g.device)).sum()
            dot = term if dot is None else dot + term
    if dot is None:
        return first, zeros
    second = run_backward(dot, targets=xs)
    return first, [np.zeros(a.shape) if h is None else np.array(h.numpy())
                   for a, h in zip(arrays, second)]


def _torch_function(c, extra, seeds):
    def F(*ts):
        outs = _as_list(c.ft(*ts, **extra))
        return sum((o * torch.from_numpy(s)).sum() for o, s in zip(outs, seeds)
                   if o.requires_grad or o.dtype.is_floating_point)
    return F


def _torch_second(c, arrays, extra, seeds, vs):
    F = _torch_function(c, extra, seeds)
    xs = tuple(torch.from_numpy(a.copy()) for a in arrays)
    tv = tuple(torch.from_numpy(v) for v in vs)
    argnums = tuple(range(len(xs)))
    try:
        first = torch.func.grad(F, argnums)(*xs)
        second = torch.func.grad(
            lambda *p: sum((g * v).sum() for g, v in zip(torch.func.grad(F, argnums)(*p), tv)),
            argnums)(*xs)
    except (RuntimeError, NotImplementedError):  # functions torch.func cannot trace
        ts = [x.clone().requires_grad_(True) for x in xs]
        total = F(*ts)
        if not total.requires_grad:
            z = [np.zeros(a.shape) for a in arrays]
            return z, z
        first = torch.autograd.grad(total, ts, create_graph=True, allow_unused=True)
        dot = sum((g * v).sum() for g, v in zip(first, tv) if g is not None and g.requires_grad)
        second = [None] * len(ts)
        if torch.is_tensor(dot) and dot.requires_grad:
            second = torch.autograd.grad(dot, ts, allow_unused=True)
    return ([np.zeros(a.shape) if g is None else g.detach().numpy(force=True) for a, g in zip(arrays, first)],
            [np.zeros(a.shape) if h is None else h.detach().numpy(force=True) for a, h in zip(arrays, second)])


@pytest.mark.parametrize("c,shapes", _params())
def test_hessian_vector_product(c, shapes):
    rng = np.random.default_rng(zlib.crc32(repr(("second", c.name, shapes)).encode()))
    base = [np.asarray(g(rng, s), dtype=np.float64) for g, s in zip(c.gens(len(shapes)), shapes)]
    extra = c.extra(rng, shapes) if c.extra else {}
    with ember.no_grad():
        outs = _as_list(c.fe(*[ember.from_numpy(b.copy()) for b in base], **extra))
    seeds = [np.asarray(rng.standard_normal(tuple(o.shape))) for o in outs]
    vs = [np.asarray(rng.standard_normal(b.shape)) for b in base]
    e_first, e_second = _ember_second(c, base, extra, seeds, vs)
    t_first, t_second = _torch_second(c, base, extra, seeds, vs)
    for k in range(len(base)):
        np.testing.assert_allclose(e_first[k], t_first[k], rtol=RTOL, atol=ATOL,
                                   err_msg=f"gradient of input {k}")
        np.testing.assert_allclose(e_second[k], t_second[k], rtol=RTOL, atol=ATOL,
                                   err_msg=f"Hessian-vector product of input {k}")
