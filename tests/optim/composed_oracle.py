"""Checks shared by the tests of the optimizers whose updates compose ember ops (Adadelta,
Adamax, RAdam, ASGD, Rprop, Adafactor): each against torch.optim on the same parameters and
gradients, torch's state_dict layout, state_dict round trips and add_param_group. Each
test_<name>.py calls these with its own cases."""

import numpy as np
import pytest
import torch

import ember
from ember import InvalidParameterError
from oracle import layouts, random_array
from test_optim import GROUPS, _ember_loss, _groups, _problem, run_ember, run_torch

SHAPES = [(), (0, 3), (5,), (3, 4)]
TOL = {"float64": 1e-12, "float32": 2e-6, "float16": 2e-2, "bfloat16": 1e-1}


def _close_all(got, want, tol):
    for a, e in zip(got, want):
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol)


def check_mlp(ecls, tcls, kwargs, groups, dtype="float64", tol=1e-10, steps=None):
    """``steps`` steps on test_optim's small MLP in ``dtype``: torch's parameters to ``tol``.

    50 steps in float64; 20 in float32 or when ascending (``maximize``), where the dynamics
    magnify the rounding differences of the two forward passes (each step's update itself is
    checked on injected gradients)."""
    if steps is None:
        steps = 50 if dtype == "float64" and not kwargs.get("maximize") else 20
    got = run_ember(ecls, kwargs, groups, dtype=dtype, steps=steps)
    want = run_torch(tcls, kwargs, groups, dtype=getattr(torch, dtype), steps=steps)
    _close_all(got, want, tol)
    assert all(np.isfinite(a).all() for a in got)


def check_injected(ecls, tcls, kwargs, dtype, shapes=SHAPES, steps=None, tol=None, seed=1):
    """Parameters of several shapes (0-d and size-0 among them) in ``dtype``, given the same
    random gradients for ``steps`` steps (50 in float64, else 10): torch's values, dtypes and
    shapes."""
    if steps is None:
        steps = 50 if dtype == "float64" else 10
    rng = np.random.default_rng(seed)
    tdt = getattr(torch, dtype)
    inits = [random_array(rng, s, "float32") for s in shapes]
    grads = [[random_array(rng, s, "float32") for s in shapes] for _ in range(steps)]
    ep = [ember.tensor(a).cast(dtype).require_grad() for a in inits]
    tp = [torch.tensor(a).to(tdt).requires_grad_(True) for a in inits]
    eo, to = ecls(ep, **kwargs), tcls(tp, **kwargs)
    for gs in grads:
        for p, g in zip(ep, gs):
            p.grad = ember.tensor(g).cast(dtype)
        for p, g in zip(tp, gs):
            p.grad = torch.tensor(g).to(tdt)
        eo.step()
        to.step()
    tol = TOL[dtype] if tol is None else tol
    for e, t in zip(ep, tp):
        assert e.dtype.name == dtype and e.shape == tuple(t.shape)
        np.testing.assert_allclose(e.numpy().astype(np.float64), t.detach().double().numpy(),
                                   rtol=tol, atol=tol)
    return eo, to


def _same_value(got, want, what):
    if isinstance(want, torch.Tensor):
        if want.ndim == 0 and not isinstance(got, ember.Tensor):
            assert isinstance(got, (int, float)), what
            assert got == pytest.approx(want.item(), rel=1e-7), what
        else:
            assert isinstance(got, ember.Tensor) and got.shape == tuple(want.shape), what
            np.testing.assert_allclose(got.numpy().astype(np.float64),
                                       want.double().numpy(), rtol=1e-6, atol=1e-12,
                                       err_msg=what)
    else:
        assert got == want, what


def check_state_dict_layout(ecls, tcls, kwargs, dtype="float64"):
    """After a few steps the state_dict has torch's state keys (in torch's order), the same
    values, and param_groups with torch's keys and values."""
    eo, to = check_injected(ecls, tcls, kwargs, dtype, shapes=[(3,), (), (2, 2)], steps=3)
    esd, tsd = eo.state_dict(), to.state_dict()
    assert list(esd["state"]) == list(tsd["state"])
    for i, tstate in tsd["state"].items():
        assert list(esd["state"][i]) == list(tstate), i
        for k, v in tstate.items():
            _same_value(esd["state"][i][k], v, f"state {i} {k}")
    assert len(esd["param_groups"]) == len(tsd["param_groups"])
    for eg, tg in zip(esd["param_groups"], tsd["param_groups"]):
        assert set(eg) == set(tg)
        for k, v in tg.items():
            assert eg[k] == v, k


def check_round_trip(ecls, kwargs):
    """A state_dict loaded into a fresh optimizer over copies of the parameters resumes
    identically; a refused load changes nothing."""
    data = _problem(3)
    ps = [ember.tensor(data[k]).require_grad() for k in ("w", "b", "v")]
    x = ember.tensor(data["x"])
    opt = ecls(_groups(ps, GROUPS), **kwargs)

    def steps(params, o, n):
        for _ in range(n):
            o.zero_grad()
            _ember_loss(params, x).backward()
            o.step()

    steps(ps, opt, 5)
    sd = opt.state_dict()
    qs = [ember.tensor(p.numpy().copy()).require_grad() for p in ps]
    fresh = ecls(_groups(qs, GROUPS))
    before = fresh.state_dict()
    bad = {"state": {**sd["state"], 0: {**sd["state"][0], "step": -1}},
           "param_groups": sd["param_groups"]}
    with pytest.raises(InvalidParameterError, match="step"):
        fresh.load_state_dict(bad)
    assert fresh.state_dict()["param_groups"] == before["param_groups"]
    assert fresh.state_dict()["state"] == {}
    fresh.load_state_dict(sd)
    steps(ps, opt, 5)
    steps(qs, fresh, 5)
    for p, q in zip(ps, qs):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    return opt


def check_add_param_group(ecls, tcls, kwargs, extra):
    """A group added after construction, with its own options (``extra``), as torch's."""
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(3), rng.standard_normal((2, 2))
    ea, eb = ember.tensor(a).require_grad(), ember.tensor(b).require_grad()
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    eo, to = ecls([ea], **kwargs), tcls([ta], **kwargs)
    eo.add_param_group({"params": [eb], **extra})
    to.add_param_group({"params": [tb], **extra})
    for i in range(6):
        for p, tp in ((ea, ta), (eb, tb)):
            g = np.sin(np.arange(p.numel()) + i).reshape(p.shape)
            p.grad = ember.tensor(g)
            tp.grad = torch.tensor(g)
        eo.step()
        to.step()
    np.testing.assert_allclose(ea.numpy(), ta.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eb.numpy(), tb.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert [g["params"] for g in eo.state_dict()["param_groups"]] == [[0], [1]]


def check_bad(ecls, kwargs, match):
    w = ember.ones(2).require_grad()
    with pytest.raises(InvalidParameterError, match=match) as info:
        ecls([w], **kwargs)
    assert info.value.param in kwargs
    assert w.tolist() == [1.0, 1.0]


def check_values_stay_values(ecls, tcls, kwargs):
    """Non-contiguous parameters and gradients give torch's values and are never written; a
    step makes a new array (the old one keeps its values) and a view taken before follows it."""
    rng = np.random.default_rng(2)
    base, g = random_array(rng, (4, 3), "float64"), random_array(rng, (4, 3), "float64")
    for name, arr in layouts(base):
        gl = dict(layouts(g))[name]
        p = ember.from_numpy(arr).require_grad()
        before, gbefore = np.array(arr, copy=True), np.array(gl, copy=True)
        tp = torch.tensor(base, requires_grad=True)
        eo, to = ecls([p], **kwargs), tcls([tp], **kwargs)
        for _ in range(3):
            view = p[1:]
            old, kept = p._data, p.numpy().copy()
            p.grad = ember.from_numpy(gl)
            tp.grad = torch.tensor(g)
            eo.step()
            to.step()
            assert p._data is not old and p.is_leaf
            np.testing.assert_array_equal(old, kept)
            np.testing.assert_array_equal(view.numpy(), p.numpy()[1:])
        np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(arr, before)
        np.testing.assert_array_equal(gl, gbefore)
