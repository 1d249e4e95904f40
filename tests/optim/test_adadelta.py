"""Adadelta against torch.optim.Adadelta: the MLP in float64 and float32, injected gradients of
every float dtype and of several shapes, torch's state_dict layout, round trips, added groups,
the MNIST example's Adadelta + StepLR, and bad hyper-parameters."""

import numpy as np
import pytest
import torch

import ember
from ember import optim
from composed_oracle import (check_add_param_group, check_bad, check_injected, check_mlp,
                             check_round_trip, check_state_dict_layout,
                             check_values_stay_values)
from test_optim import GROUPS, run_ember, run_torch

CASES = [
    ({}, None),
    ({"lr": 0.5, "rho": 0.5}, None),
    ({"lr": 1.0, "eps": 1e-3}, None),
    ({"lr": 1.0, "weight_decay": 0.1}, None),
    ({"lr": 0.3, "maximize": True}, None),
    ({"lr": 0.05, "rho": 1.0}, None),  # an SGD step: delta is g
    ({"lr": 1.0, "foreach": False, "capturable": False, "differentiable": False}, None),
    ({"lr": 1.0}, GROUPS),
    ({"lr": 1.0}, [([0], {"rho": 0.7, "weight_decay": 0.2}), ([1, 2], {"lr": 0.2})]),
]
E, T = optim.Adadelta, torch.optim.Adadelta


@pytest.mark.parametrize("kwargs,groups", CASES)
def test_float64_mlp_matches_torch(kwargs, groups):
    check_mlp(E, T, kwargs, groups)


@pytest.mark.parametrize("kwargs,groups", [c for c in CASES if not c[0].get("maximize")])
def test_float32_mlp_matches_torch(kwargs, groups):
    check_mlp(E, T, kwargs, groups, dtype="float32", tol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kwargs", [{"lr": 1.0}, {"lr": 0.5, "weight_decay": 0.1,
                                                 "maximize": True}])
def test_injected_gradients(dtype, kwargs):
    check_injected(E, T, kwargs, dtype)


@pytest.mark.parametrize("kwargs", [{}, {"weight_decay": 0.1, "maximize": True}])
def test_state_dict_layout_is_torchs(kwargs):
    check_state_dict_layout(E, T, kwargs)


def test_state_dict_round_trip():
    check_round_trip(E, {"lr": 0.5, "weight_decay": 0.1})


def test_values_stay_values():
    check_values_stay_values(E, T, {"lr": 0.5, "weight_decay": 0.1})


def test_add_param_group():
    check_add_param_group(E, T, {"lr": 1.0}, {"lr": 0.1, "rho": 0.5})


def test_mnist_example_adadelta_with_steplr():
    # the PyTorch MNIST example: Adadelta(lr=1.0) and StepLR(step_size=1, gamma=0.7)
    got = run_ember(E, {"lr": 1.0}, sched=(optim.StepLR, {"step_size": 1, "gamma": 0.7}))
    want = run_torch(T, {"lr": 1.0}, sched=(torch.optim.lr_scheduler.StepLR,
                                           {"step_size": 1, "gamma": 0.7}))
    for a, e in zip(got, want):
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-10)


def test_defaults_are_torchs():
    w = ember.ones(1).require_grad()
    tw = torch.ones(1, requires_grad=True)
    assert E([w]).defaults == T([tw]).defaults


@pytest.mark.parametrize("kwargs,match", [
    ({"lr": -1.0}, r"Adadelta: lr is -1.0; expected a finite number >= 0"),
    ({"rho": 1.5}, r"Adadelta: rho is 1.5; expected a number in \[0.0, 1.0\]"),
    ({"rho": -0.1}, r"rho is -0.1"),
    ({"eps": -1e-6}, r"eps is -1e-06"),
    ({"weight_decay": -0.1}, r"weight_decay is -0.1"),
    ({"lr": "1"}, r"lr must be a number, got str"),
    ({"maximize": 1}, r"maximize must be a bool"),
    ({"foreach": "yes"}, r"foreach must be None or a bool"),
    ({"capturable": None}, r"capturable must be a bool"),
    ({"differentiable": 0}, r"differentiable must be a bool"),
])
def test_bad_hyper_parameters(kwargs, match):
    check_bad(E, kwargs, match)


def test_exported_as_torch():
    import ember.torch
    assert ember.torch.optim.Adadelta is optim.Adadelta and "Adadelta" in optim.__all__
    assert issubclass(optim.Adadelta, optim.Optimizer)
    assert torch.optim.Adadelta.__name__ == "Adadelta"
