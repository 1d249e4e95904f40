"""ASGD against torch.optim.ASGD: the MLP in float64 and float32, injected gradients of several
dtypes and shapes, torch's state_dict layout, round trips, added groups, and bad
hyper-parameters."""

import pytest
import torch

import ember
from ember import InvalidParameterError, optim
from composed_oracle import (check_add_param_group, check_bad, check_injected, check_mlp,
                             check_round_trip, check_state_dict_layout,
                             check_values_stay_values)
from test_optim import GROUPS

CASES = [
    ({}, None),
    ({"lr": 0.05}, None),
    ({"lr": 0.05, "lambd": 0.01, "alpha": 0.5}, None),
    ({"lr": 0.05, "t0": 5}, None),
    ({"lr": 0.05, "t0": 0, "lambd": 0.1}, None),
    ({"lr": 0.05, "weight_decay": 0.1}, None),
    ({"lr": 0.02, "maximize": True, "t0": 3}, None),
    ({"lr": 0.05, "foreach": False, "capturable": False, "differentiable": False}, None),
    ({"lr": 0.05}, GROUPS),
    ({"lr": 0.05}, [([0], {"t0": 2, "weight_decay": 0.2}), ([1, 2], {"lr": 0.01, "alpha": 1.0})]),
]
E, T = optim.ASGD, torch.optim.ASGD


@pytest.mark.parametrize("kwargs,groups", CASES)
def test_float64_mlp_matches_torch(kwargs, groups):
    check_mlp(E, T, kwargs, groups)


@pytest.mark.parametrize("kwargs,groups", [c for c in CASES if not c[0].get("maximize")])
def test_float32_mlp_matches_torch(kwargs, groups):
    check_mlp(E, T, kwargs, groups, dtype="float32", tol=2e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kwargs", [{"lr": 0.05},
                                    {"lr": 0.02, "weight_decay": 0.1, "maximize": True,
                                     "t0": 4}])
def test_injected_gradients(dtype, kwargs):
    check_injected(E, T, kwargs, dtype)


@pytest.mark.parametrize("kwargs", [{}, {"weight_decay": 0.1, "t0": 1}])
def test_state_dict_layout_is_torchs(kwargs):
    check_state_dict_layout(E, T, kwargs)


def test_state_dict_round_trip():
    check_round_trip(E, {"lr": 0.05, "t0": 3})


def test_values_stay_values():
    check_values_stay_values(E, T, {"lr": 0.05, "t0": 1})


def test_add_param_group():
    check_add_param_group(E, T, {"lr": 0.05}, {"lr": 0.01, "t0": 2, "lambd": 0.1})


def test_defaults_are_torchs():
    w = ember.ones(1).require_grad()
    tw = torch.ones(1, requires_grad=True)
    assert E([w]).defaults == T([tw]).defaults


@pytest.mark.parametrize("kwargs,match", [
    ({"lr": -1.0}, r"ASGD: lr is -1.0; expected a finite number >= 0"),
    ({"lambd": -0.1}, r"ASGD: lambd is -0.1"),
    ({"alpha": -1}, r"ASGD: alpha is -1"),
    ({"t0": float("inf")}, r"ASGD: t0 is inf; expected a finite number"),
    ({"weight_decay": -1}, r"weight_decay is -1"),
    ({"maximize": None}, r"maximize must be a bool"),
    ({"foreach": 1}, r"foreach must be None or a bool"),
    ({"capturable": "no"}, r"capturable must be a bool"),
])
def test_bad_hyper_parameters(kwargs, match):
    check_bad(E, kwargs, match)


def test_exported_as_torch():
    import ember.torch
    assert ember.torch.optim.ASGD is optim.ASGD and "ASGD" in optim.__all__
    assert issubclass(optim.ASGD, optim.Optimizer)
    assert torch.optim.ASGD.__name__ == "ASGD"


def test_a_saved_state_lacking_entries_is_refused():
    w = ember.ones(2).require_grad()
    opt = E([w])
    w.grad = ember.ones(2)
    opt.step()
    sd = opt.state_dict()
    fresh = E([ember.ones(2).require_grad()])
    st = sd["state"][0]
    for bad, match in [({"eta": 0.1}, r"lacks \['step', 'mu', 'ax'\]"),
                       ({k: v for k, v in st.items() if k != "eta"}, r"lacks \['eta'\]"),
                       ({**st, "eta": -1.0}, r"'eta' is -1.0"),
                       ({**st, "mu": 2.0}, r"'mu' is 2.0")]:
        with pytest.raises(InvalidParameterError, match=match):
            fresh.load_state_dict({"state": {0: bad}, "param_groups": sd["param_groups"]})
        assert fresh.state_dict()["state"] == {}
