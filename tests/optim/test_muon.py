"""Muon against torch.optim.Muon: 50 steps on a small MLP's 2-D weights from PyTorch's initial
weights and gradients, for each argument that changes a result; each step from PyTorch's exact
state; the bfloat16 Newton-Schulz iteration; a state saved by PyTorch resumed by ember; torch's
state_dict layout; typed errors for bad arguments.

Tolerance. PyTorch runs the Newton-Schulz iteration in bfloat16 (ember.optim.muon does too). The
momentum, the update and the iteration give PyTorch's bits except where an intermediate lands
on a tie between two bfloat16 numbers that PyTorch's float32 matrix product rounds one way and
ember's the other (about one Newton-Schulz call in a few hundred); that entry of the update then
differs by one bfloat16 step, 2**-8 relative, and the parameter by about lr * 2**-8. So: each
single step from PyTorch's state gives PyTorch's parameters to 1e-12 in all but a few entries,
none off by more than one bfloat16 step of the update (test_each_step_from_torchs_state); 50
steps stay within 1e-3 (MUON_TOL, a few such steps) of PyTorch's; in float64 away from those
ties the match is to rounding (test_newton_schulz_is_torchs_bfloat16_iteration).
"""

import numpy as np
import pytest
import torch

import ember
from ember import DimensionError, InvalidParameterError, optim
from ember.optim.muon import newton_schulz
from grads_oracle import Pair
from oracle import on_device, random_array

E, T = optim.Muon, torch.optim.Muon
MUON_TOL = 1e-3  # see the module docstring
CASES = [
    ({"lr": 0.02}, None),
    ({"lr": 0.02, "nesterov": False}, None),
    ({"lr": 0.02, "weight_decay": 0.0}, None),
    ({"lr": 0.02, "weight_decay": 0.3}, None),
    ({"lr": 0.02, "momentum": 0.0}, None),
    ({"lr": 0.02, "momentum": 0.5, "nesterov": False}, None),
    ({"lr": 0.02, "ns_steps": 0}, None),
    ({"lr": 0.02, "ns_steps": 1}, None),
    ({"lr": 0.02, "ns_steps": 10}, None),
    ({"lr": 0.02, "ns_coefficients": (2.0, -1.5, 0.5)}, None),
    ({"lr": 0.02, "eps": 1e-2}, None),
    ({"lr": 0.02, "adjust_lr_fn": "original"}, None),
    ({"lr": 0.02, "adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.05}, None),
    ({"lr": 0.02}, [([0, 2], {"momentum": 0.8}), ([1], {"lr": 0.005, "nesterov": False,
                                                        "adjust_lr_fn": "match_rms_adamw"})]),
]


@pytest.mark.parametrize("kwargs,groups", CASES)
def test_mlp_50_steps_match_torch(kwargs, groups):
    pair = Pair(E, T, kwargs, groups, bias=False)
    pair.step(50)
    pair.assert_close(MUON_TOL)


@pytest.mark.parametrize("kwargs,groups", CASES)
def test_each_step_from_torchs_state(kwargs, groups):
    """Each of 50 steps, from PyTorch's parameters and momentum, gives PyTorch's parameters:
    to 1e-12 except at most one bfloat16 step of the update in a few entries."""
    pair = Pair(E, T, kwargs, groups, bias=False)
    lr = max(g["lr"] for g in pair.topt.param_groups)
    bound = 2 * lr * 2.0 ** -7  # a rate <= 1.3 lr times one bfloat16 step of an entry < 2
    exact = total = 0
    for _ in range(50):
        pair.resume_from_torch(E, kwargs, groups)
        pair.step()
        for e, t in zip(pair.eparams, pair.tparams):
            diff = np.abs(e.numpy() - t.detach().numpy())
            assert diff.max() <= bound
            exact += int((diff <= 1e-12).sum())
            total += diff.size
    assert exact >= 0.99 * total


@pytest.mark.parametrize("kwargs", [{"lr": 0.02}, {"lr": 0.05, "nesterov": False,
                                                   "adjust_lr_fn": "match_rms_adamw"}])
def test_float32_mlp_matches_torch(kwargs):
    pair = Pair(E, T, kwargs, bias=False, dtype="float32")
    pair.step(20)
    pair.assert_close(MUON_TOL)


def test_own_forward_within_bfloat16_rounding():
    """Each side computes its own gradients, as a user's program does."""
    rng = np.random.default_rng(0)
    w, v, x = rng.standard_normal((3, 4)), rng.standard_normal((4, 2)), rng.standard_normal((6, 3))
    ep = [ember.tensor(a).require_grad() for a in (w, v)]
    tp = [torch.tensor(a, requires_grad=True) for a in (w, v)]
    eo, to = E(ep, lr=0.02), T(tp, lr=0.02)
    ex, tx = ember.tensor(x), torch.tensor(x)
    for _ in range(50):
        eo.zero_grad()
        (ex.matmul(ep[0]).tanh().matmul(ep[1]) ** 2).sum().backward()
        eo.step()
        to.zero_grad()
        (torch.tanh(tx @ tp[0]) @ tp[1]).pow(2).sum().backward()
        to.step()
    for e, t in zip(ep, tp):
        np.testing.assert_allclose(e.numpy(), t.detach().numpy(), atol=MUON_TOL)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (1, 6), (6, 1), (0, 3)])
@pytest.mark.parametrize("steps", [0, 1, 5])
def test_newton_schulz_is_torchs_bfloat16_iteration(shape, steps):
    """One Muon step with momentum 0, no decay and lr 1 / (0.2 sqrt(max dim)) moves the
    parameter by exactly the Newton-Schulz output: ember's iteration gives torch's bits."""
    rng = np.random.default_rng(sum(shape) + steps)
    g = random_array(rng, shape, "float64")
    p = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
    lr = 1.0 / (0.2 * max(max(shape), 1) ** 0.5)
    opt = T([p], lr=lr, weight_decay=0.0, momentum=0.0, nesterov=False, ns_steps=steps,
            adjust_lr_fn="match_rms_adamw")
    p.grad = torch.tensor(g)
    opt.step()
    got = newton_schulz(ember.tensor(g), (3.4445, -4.775, 2.0315), steps, 1e-7)
    assert got.dtype.name == on_device(["bfloat16", "float32"])[0] and got.shape == shape
    np.testing.assert_allclose(got.cast("float64").numpy(), -p.detach().numpy(), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("kwargs,groups", [({"lr": 0.02}, None),
                                           ({"lr": 0.02, "nesterov": False}, CASES[-1][1])])
def test_state_saved_by_torch_resumes_in_ember(kwargs, groups):
    pair = Pair(E, T, kwargs, groups, bias=False)
    pair.step(5)
    pair.resume_from_torch(E, kwargs, groups)
    pair.step(10)
    pair.assert_close(MUON_TOL)


def test_state_dict_layout_is_torchs():
    pair = Pair(E, T, {"lr": 0.02}, bias=False)
    pair.step(3)
    esd, tsd = pair.eopt.state_dict(), pair.topt.state_dict()
    assert list(esd["state"]) == list(tsd["state"]) == [0, 1, 2]
    for i, ts in tsd["state"].items():
        assert list(esd["state"][i]) == list(ts) == ["momentum_buffer"]
        np.testing.assert_allclose(esd["state"][i]["momentum_buffer"].numpy(),
                                   ts["momentum_buffer"].numpy(), rtol=1e-12, atol=1e-12)
    assert esd["param_groups"] == tsd["param_groups"]


def test_defaults_are_torchs():
    assert E([ember.ones(2, 2).require_grad()]).defaults == \
        T([torch.ones(2, 2, requires_grad=True)]).defaults


def test_a_parameter_without_gradient_is_left_alone():
    a, b = ember.ones(2, 3).require_grad(), ember.ones(3, 2).require_grad()
    opt = E([a, b], lr=0.1)
    a.grad = ember.ones(2, 3)
    opt.step()
    assert b.tolist() == [[1.0, 1.0]] * 3 and a.tolist() != [[1.0] * 3] * 2
    assert list(opt.state_dict()["state"]) == [0]


@pytest.mark.parametrize("shape", [(3,), (), (2, 2, 2)])
def test_parameters_that_are_not_2d_are_refused(shape):
    w = ember.ones(*shape).require_grad()
    with pytest.raises(DimensionError, match=r"Muon optimizes 2-D parameters only"):
        E([w])
    opt = E([ember.ones(2, 2).require_grad()])
    with pytest.raises(DimensionError, match=r"group 1 has shape"):
        opt.add_param_group({"params": [w]})
    assert len(opt.param_groups) == 1


@pytest.mark.parametrize("kwargs,match", [
    ({"lr": -1.0}, r"Muon: lr is -1.0; expected a finite number >= 0"),
    ({"weight_decay": -0.1}, r"weight_decay is -0.1"),
    ({"momentum": -0.5}, r"momentum is -0.5"),
    ({"nesterov": 1}, r"nesterov must be a bool"),
    ({"ns_coefficients": (1.0, 2.0)}, r"expected a tuple of three numbers"),
    ({"ns_coefficients": (1.0, float("nan"), 2.0)}, r"ns_coefficients\[1\] is nan"),
    ({"eps": -1e-7}, r"eps is -1e-07"),
    ({"ns_steps": 100}, r"ns_steps is 100; expected an int in \[0, 100\)"),
    ({"ns_steps": -1}, r"ns_steps is -1"),
    ({"ns_steps": 1.5}, r"ns_steps must be an int"),
    ({"adjust_lr_fn": "x"}, r"adjust_lr_fn is 'x'; expected None, 'original' or"),
])
def test_bad_arguments(kwargs, match):
    w = ember.ones(2, 2).require_grad()
    with pytest.raises(InvalidParameterError, match=match) as info:
        E([w], **kwargs)
    assert info.value.param in kwargs


def test_exported_as_torch():
    import ember.torch
    assert ember.torch.optim.Muon is optim.Muon and "Muon" in optim.__all__
    assert issubclass(optim.Muon, optim.Optimizer)
