"""Rprop against torch.optim.Rprop: the MLP in float64 and float32, injected gradients of several
dtypes and shapes, torch's state_dict layout, round trips, added groups, and bad
hyper-parameters."""

import pytest
import torch

import ember
from ember import optim
from composed_oracle import (check_add_param_group, check_bad, check_injected, check_mlp,
                             check_round_trip, check_state_dict_layout,
                             check_values_stay_values)
from test_optim import GROUPS

CASES = [
    ({}, None),
    ({"lr": 0.05}, None),
    ({"lr": 0.05, "etas": (0.3, 1.5)}, None),
    ({"lr": 0.05, "step_sizes": (0.01, 0.06)}, None),
    ({"lr": 0.02, "maximize": True}, None),
    ({"lr": 0.05, "foreach": False, "capturable": False, "differentiable": False}, None),
    ({"lr": 0.05}, GROUPS),
    ({"lr": 0.05}, [([0], {"etas": (0.4, 1.1)}), ([1, 2], {"lr": 0.01, "step_sizes": (1e-3, 1)})]),
]
E, T = optim.Rprop, torch.optim.Rprop


@pytest.mark.parametrize("kwargs,groups", CASES)
def test_float64_mlp_matches_torch(kwargs, groups):
    check_mlp(E, T, kwargs, groups)


@pytest.mark.parametrize("kwargs,groups", [c for c in CASES if not c[0].get("maximize")])
def test_float32_mlp_matches_torch(kwargs, groups):
    check_mlp(E, T, kwargs, groups, dtype="float32", tol=2e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kwargs", [{"lr": 0.05},
                                    {"lr": 0.02, "etas": (0.3, 1.3), "maximize": True}])
def test_injected_gradients(dtype, kwargs):
    check_injected(E, T, kwargs, dtype)


@pytest.mark.parametrize("kwargs", [{}, {"etas": (0.3, 1.3), "maximize": True}])
def test_state_dict_layout_is_torchs(kwargs):
    check_state_dict_layout(E, T, kwargs)


def test_state_dict_round_trip():
    check_round_trip(E, {"lr": 0.05, "etas": (0.4, 1.3)})


def test_values_stay_values():
    check_values_stay_values(E, T, {"lr": 0.05})


def test_add_param_group():
    check_add_param_group(E, T, {"lr": 0.05}, {"lr": 0.01, "step_sizes": (1e-3, 0.5)})


def test_defaults_are_torchs():
    w = ember.ones(1).require_grad()
    tw = torch.ones(1, requires_grad=True)
    assert E([w]).defaults == T([tw]).defaults


@pytest.mark.parametrize("kwargs,match", [
    ({"lr": -1.0}, r"Rprop: lr is -1.0; expected a finite number >= 0"),
    ({"etas": (1.5, 1.2)}, r"Rprop: etas is \(1.5, 1.2\); expected \(etaminus, etaplus\) with 0"),
    ({"etas": (0.5, 0.9)}, r"Rprop: etas is \(0.5, 0.9\)"),
    ({"etas": 0.5}, r"etas is 0.5; expected a pair"),
    ({"step_sizes": (1.0, 0.5)}, r"step_sizes is \(1.0, 0.5\); expected \(min, max\)"),
    ({"step_sizes": (-1.0, 0.5)}, r"step_sizes\[0\] is -1.0"),
    ({"maximize": None}, r"maximize must be a bool"),
    ({"foreach": 1}, r"foreach must be None or a bool"),
    ({"differentiable": "no"}, r"differentiable must be a bool"),
])
def test_bad_hyper_parameters(kwargs, match):
    check_bad(E, kwargs, match)


def test_exported_as_torch():
    import ember.torch
    assert ember.torch.optim.Rprop is optim.Rprop and "Rprop" in optim.__all__
    assert issubclass(optim.Rprop, optim.Optimizer)
    assert torch.optim.Rprop.__name__ == "Rprop"
