"""RMSprop, Adagrad and NAdam against torch.optim: 20 steps of a small problem in float64 and
float32, parameter groups, injected gradients of every float dtype and shape, non-contiguous
parameters, the old buffer left alone, state_dict round trips, and bad input."""

import numpy as np
import pytest
import torch

import ember
from ember import InvalidParameterError, ShapeMismatchError, optim
from oracle import DRIFT, layouts, random_array
from test_optim import GROUPS, _ember_loss, _groups, _problem, run_ember, run_torch

RMSPROP_CASES = [
    ({}, None),
    ({"lr": 0.01, "alpha": 0.9}, None),
    ({"lr": 0.01, "momentum": 0.9}, None),
    ({"lr": 0.01, "centered": True}, None),
    ({"lr": 0.005, "momentum": 0.5, "centered": True, "weight_decay": 0.1}, None),
    ({"lr": 0.01, "eps": 1e-3, "alpha": 0.5, "weight_decay": 0.3}, None),
    ({"lr": 0.01, "momentum": 0.9, "maximize": True}, None),
    ({"lr": 0.01}, GROUPS),
    ({"lr": 0.01}, [([0], {"momentum": 0.9, "centered": True}),
                    ([1, 2], {"lr": 0.002, "alpha": 0.8, "weight_decay": 0.2})]),
]

ADAGRAD_CASES = [
    ({}, None),
    ({"lr": 0.1}, None),
    ({"lr": 0.1, "lr_decay": 0.05}, None),
    ({"lr": 0.1, "weight_decay": 0.2}, None),
    ({"lr": 0.1, "initial_accumulator_value": 0.5}, None),
    ({"lr": 0.1, "eps": 1e-3, "lr_decay": 0.01, "weight_decay": 0.05,
      "initial_accumulator_value": 0.1}, None),
    ({"lr": 0.05, "maximize": True}, None),
    ({"lr": 0.1}, GROUPS),
    ({"lr": 0.1}, [([0, 2], {"lr_decay": 0.1}), ([1], {"lr": 0.3, "weight_decay": 0.5})]),
]

NADAM_CASES = [
    ({}, None),
    ({"lr": 0.02}, None),
    ({"lr": 0.02, "betas": (0.5, 0.9), "eps": 1e-6}, None),
    ({"lr": 0.02, "weight_decay": 0.1}, None),
    ({"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True}, None),
    ({"lr": 0.02, "momentum_decay": 0.1}, None),
    ({"lr": 0.02, "momentum_decay": 0.0}, None),
    ({"lr": 0.01, "maximize": True}, None),
    ({"lr": 0.02}, GROUPS),
    ({"lr": 0.02}, [([0], {"decoupled_weight_decay": True, "weight_decay": 0.3}),
                    ([1, 2], {"lr": 0.005, "betas": (0.8, 0.99), "momentum_decay": 0.01})]),
]

OPTIMIZERS = [(optim.RMSprop, torch.optim.RMSprop, RMSPROP_CASES),
              (optim.Adagrad, torch.optim.Adagrad, ADAGRAD_CASES),
              (optim.NAdam, torch.optim.NAdam, NADAM_CASES)]
CASES = [(e, t, kw, g) for e, t, cases in OPTIMIZERS for kw, g in cases]
IDS = [f"{e.__name__}-{i}" for i, (e, *_rest) in enumerate(CASES)]


@pytest.mark.parametrize("ecls,tcls,kwargs,groups", CASES, ids=IDS)
def test_float64_matches_torch_over_20_steps(ecls, tcls, kwargs, groups):
    got = run_ember(ecls, kwargs, groups)
    want = run_torch(tcls, kwargs, groups)
    for a, e in zip(got, want):
        np.testing.assert_allclose(a, e, rtol=1e-12 * DRIFT, atol=1e-12 * DRIFT)


# Ascending this loss saturates tanh, and RMSprop's g / sqrt(v) then magnifies the float32
# rounding of the forward pass (1e-4 apart after 20 steps); the maximize updates themselves are
# checked to 1e-6 in float32 on injected gradients below.
CASES32 = [c for c in CASES if not c[2].get("maximize")]


@pytest.mark.parametrize("ecls,tcls,kwargs,groups", CASES32)
def test_float32_matches_torch_over_20_steps(ecls, tcls, kwargs, groups):
    got = run_ember(ecls, kwargs, groups, dtype="float32")
    want = run_torch(tcls, kwargs, groups, dtype=torch.float32)
    for a, e in zip(got, want):
        np.testing.assert_allclose(a, e, rtol=3e-6, atol=3e-6)


FULL = [
    (optim.RMSprop, torch.optim.RMSprop, {"lr": 0.01, "momentum": 0.9, "centered": True,
                                          "weight_decay": 0.1}),
    (optim.RMSprop, torch.optim.RMSprop, {"lr": 0.01, "maximize": True}),
    (optim.Adagrad, torch.optim.Adagrad, {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1,
                                          "initial_accumulator_value": 0.2}),
    (optim.NAdam, torch.optim.NAdam, {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    (optim.Adagrad, torch.optim.Adagrad, {"lr": 0.1, "maximize": True}),
    (optim.NAdam, torch.optim.NAdam, {"lr": 0.05, "weight_decay": 0.1,
                                      "decoupled_weight_decay": True}),
]
SHAPES = [(), (0, 3), (5,), (3, 4)]
TOL = {"float64": 1e-12, "float32": 1e-6, "float16": 2e-2, "bfloat16": 1e-1}


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("ecls,tcls,kwargs", FULL)
def test_injected_gradients_every_dtype_and_shape(dtype, ecls, tcls, kwargs):
    rng = np.random.default_rng(1)
    tdt = getattr(torch, dtype)
    inits = [random_array(rng, s, "float32") for s in SHAPES]
    grads = [[random_array(rng, s, "float32") for s in SHAPES] for _ in range(10)]
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
    for e, t in zip(ep, tp):
        assert e.dtype.name == dtype and e.shape == tuple(t.shape)
        np.testing.assert_allclose(e.numpy().astype(np.float64), t.detach().double().numpy(),
                                   rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("ecls,tcls,kwargs", FULL)
def test_non_contiguous_params_and_grads_are_left_alone(ecls, tcls, kwargs):
    rng = np.random.default_rng(2)
    base = random_array(rng, (4, 3), "float64")
    g = random_array(rng, (4, 3), "float64")
    for name, arr in layouts(base):
        gl = dict(layouts(g))[name]
        p = ember.from_numpy(arr).require_grad()
        before, gbefore = np.array(arr, copy=True), np.array(gl, copy=True)
        tp = torch.tensor(base, requires_grad=True)
        eo, to = ecls([p], **kwargs), tcls([tp], **kwargs)
        for _ in range(3):
            p.grad = ember.from_numpy(gl)
            tp.grad = torch.tensor(g)
            eo.step()
            to.step()
        np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(arr, before)
        np.testing.assert_array_equal(gl, gbefore)


@pytest.mark.parametrize("ecls,tcls,kwargs", FULL)
def test_a_step_never_writes_into_the_old_buffer(ecls, tcls, kwargs):
    # values are immutable in every thread: each step makes a new array (tests/optim/test_inplace.py)
    rng = np.random.default_rng(0)
    w = ember.tensor(rng.standard_normal((4, 3))).require_grad()
    x = ember.tensor(rng.standard_normal((5, 4)))
    opt = ecls([w], **kwargs)
    for _ in range(3):
        opt.zero_grad()
        (x.matmul(w).tanh() ** 2).sum().backward()
        old = w._data
        kept = np.array(old, copy=True)
        opt.step()
        assert w._data is not old
        np.testing.assert_array_equal(old, kept)
        assert not np.array_equal(w.numpy(), kept)


@pytest.mark.parametrize("ecls,tcls,kwargs", FULL)
def test_a_view_taken_before_the_step_follows_it(ecls, tcls, kwargs):
    p = ember.tensor(np.arange(6.0).reshape(2, 3)).require_grad()
    view, array = p.reshape(3, 2), p.numpy()
    opt = ecls([p], **kwargs)
    (p * p).sum().backward()
    opt.step()
    np.testing.assert_array_equal(view.numpy(), p.numpy().reshape(3, 2))  # as PyTorch's views
    np.testing.assert_array_equal(array, np.arange(6.0).reshape(2, 3))  # the old buffer is kept
    assert not np.allclose(p.numpy(), np.arange(6.0).reshape(2, 3)) and p.is_leaf


@pytest.mark.parametrize("ecls,tcls,kwargs", FULL)
def test_state_dict_round_trip_resumes_identically(ecls, tcls, kwargs):
    data = _problem(3)
    ps = [ember.tensor(data[k]).require_grad() for k in ("w", "b", "v")]
    x = ember.tensor(data["x"])
    opt = ecls(_groups(ps, GROUPS), **kwargs)

    def steps(params, o, n):
        for _ in range(n):
            o.zero_grad()
            _ember_loss(params, x).backward()
            o.step()

    steps(ps, opt, 10)
    sd = opt.state_dict()
    qs = [ember.tensor(p.numpy().copy()).require_grad() for p in ps]
    fresh = ecls(_groups(qs, GROUPS))
    fresh.load_state_dict(sd)
    steps(ps, opt, 10)
    steps(qs, fresh, 10)
    for p, q in zip(ps, qs):
        np.testing.assert_array_equal(p.numpy(), q.numpy())


@pytest.mark.parametrize("ecls,tcls,kwargs", FULL)
def test_state_dict_layout_is_torchs(ecls, tcls, kwargs):
    ep, tp = ember.ones(3).require_grad(), torch.ones(3, requires_grad=True)
    eo, to = ecls([ep], **kwargs), tcls([tp], **kwargs)
    for _ in range(2):
        ep.grad = ember.tensor([1.0, -2.0, 3.0])
        tp.grad = torch.tensor([1.0, -2.0, 3.0])
        eo.step()
        to.step()
    esd, tsd = eo.state_dict(), to.state_dict()
    assert set(esd["state"][0]) == set(tsd["state"][0])
    for k, v in tsd["state"][0].items():
        got = esd["state"][0][k]
        if v.ndim == 0:
            assert isinstance(got, (int, float)) and got == pytest.approx(v.item(), rel=1e-7)
        else:
            np.testing.assert_allclose(got.numpy(), v.numpy(), rtol=1e-6)
    for key, value in tsd["param_groups"][0].items():
        if key in esd["param_groups"][0]:
            assert esd["param_groups"][0][key] == value, key


def test_adagrad_lists_every_parameter_from_the_start_as_torch():
    ps = [ember.ones(2).require_grad(), ember.ones(3).require_grad()]
    opt = optim.Adagrad(ps, initial_accumulator_value=0.5)
    tps = [torch.ones(2, requires_grad=True), torch.ones(3, requires_grad=True)]
    tsd = torch.optim.Adagrad(tps, initial_accumulator_value=0.5).state_dict()
    sd = opt.state_dict()
    assert list(sd["state"]) == list(tsd["state"]) == [0, 1]
    assert sd["state"][1]["step"] == 0 and sd["state"][1]["sum"].tolist() == [0.5] * 3
    late = ember.ones(1).require_grad()
    opt.add_param_group({"params": [late], "initial_accumulator_value": 2.0})
    late.grad = ember.ones(1)
    opt.step()
    # the added group's own initial value: 1 - 0.01 * 1 / sqrt(2 + 1)
    assert late.tolist() == pytest.approx([1 - 0.01 / 3 ** 0.5], rel=1e-7)  # float32


def test_nadam_mu_product_follows_torch_over_many_steps():
    ep, tp = ember.zeros(1, dtype="float64").require_grad(), torch.zeros(1, dtype=torch.float64,
                                                                         requires_grad=True)
    eo, to = optim.NAdam([ep], momentum_decay=0.05), torch.optim.NAdam([tp], momentum_decay=0.05)
    for i in range(300):
        ep.grad = ember.tensor([np.sin(i)], dtype="float64")
        tp.grad = torch.tensor([np.sin(i)], dtype=torch.float64)
        eo.step()
        to.step()
    assert eo.state[ep]["mu_product"] == to.state[tp]["mu_product"].item()
    np.testing.assert_allclose(ep.numpy(), tp.detach().numpy(), rtol=1e-12)


# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("cls,kwargs,match", [
    (optim.RMSprop, {"lr": -0.1}, r"RMSprop: lr is -0.1; expected a finite number >= 0"),
    (optim.RMSprop, {"alpha": -0.5}, r"RMSprop: alpha is -0.5"),
    (optim.RMSprop, {"eps": float("nan")}, r"RMSprop: eps is nan"),
    (optim.RMSprop, {"momentum": -1}, r"RMSprop: momentum is -1"),
    (optim.RMSprop, {"weight_decay": "x"}, r"weight_decay must be a number, got str"),
    (optim.RMSprop, {"centered": 1}, r"RMSprop: centered must be a bool"),
    (optim.Adagrad, {"lr": -1}, r"Adagrad: lr is -1"),
    (optim.Adagrad, {"lr_decay": -0.1}, r"Adagrad: lr_decay is -0.1"),
    (optim.Adagrad, {"initial_accumulator_value": -1.0}, r"initial_accumulator_value is -1.0"),
    (optim.Adagrad, {"eps": float("inf")}, r"Adagrad: eps is inf"),
    (optim.Adagrad, {"maximize": "no"}, r"maximize must be a bool"),
    (optim.NAdam, {"lr": -1e-3}, r"NAdam: lr is -0.001"),
    (optim.NAdam, {"betas": (1.0, 0.9)}, r"NAdam: betas is 1.0; expected numbers in \[0, 1\)"),
    (optim.NAdam, {"betas": 0.9}, r"NAdam: betas is 0.9; expected a pair"),
    (optim.NAdam, {"momentum_decay": -0.1}, r"NAdam: momentum_decay is -0.1"),
    (optim.NAdam, {"decoupled_weight_decay": None}, r"decoupled_weight_decay must be a bool"),
])
def test_bad_hyper_parameters(cls, kwargs, match):
    w = ember.ones(2).require_grad()
    with pytest.raises(InvalidParameterError, match=match):
        cls([w], **kwargs)
    assert w.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("cls", [optim.RMSprop, optim.Adagrad, optim.NAdam])
def test_bad_grad_changes_nothing(cls):
    a, b = ember.ones(2).require_grad(), ember.ones(3).require_grad()
    opt = cls([{"params": [a]}, {"params": [b]}])
    state = {k: dict(v) for k, v in opt.state_dict()["state"].items()}
    a.grad = ember.ones(2)
    with pytest.raises(ShapeMismatchError, match=r"grad: the gradient has shape \(4,\)"):
        b.grad = ember.ones(4)
    b._grad = ember.ones(4)          # past the setter: step() checks again
    with pytest.raises(ShapeMismatchError, match=r"parameter 0 of group 1 has shape \(4,\)"):
        opt.step()
    assert a.tolist() == [1.0, 1.0] and opt.state_dict()["state"].keys() == state.keys()
    with pytest.raises(InvalidParameterError, match=r"lr is -1"):
        opt.load_state_dict({"state": {}, "param_groups": [
            dict(g, lr=-1) for g in opt.state_dict()["param_groups"]]})
    assert opt.param_groups[0]["lr"] == cls([ember.ones(1).require_grad()]).defaults["lr"]


def test_exported():
    assert {"RMSprop", "Adagrad", "NAdam"} <= set(optim.__all__)
    assert all(issubclass(c, optim.Optimizer) for c in (optim.RMSprop, optim.Adagrad,
                                                         optim.NAdam))


@pytest.mark.parametrize("name", ["rmsprop", "adagrad", "nadam"])
def test_docstring_examples_run(name):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(f"ember.optim.{name}"))
    assert result.attempted >= 5 and result.failed == 0
