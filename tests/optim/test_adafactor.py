"""Adafactor against torch.optim.Adafactor: the MLP in float64 and float32, injected gradients
of several dtypes and shapes (0-d, vectors, matrices, a 3-d batch of matrices), torch's
state_dict layout (factored row and column buffers), round trips, added groups, and bad
hyper-parameters."""

import pytest
import torch

import ember
from ember import InvalidParameterError, ShapeMismatchError, optim
from composed_oracle import (check_add_param_group, check_bad, check_injected, check_mlp,
                             check_round_trip, check_state_dict_layout,
                             check_values_stay_values)
from test_optim import GROUPS

CASES = [
    ({}, None),
    ({"lr": 0.05}, None),
    ({"lr": 0.05, "beta2_decay": -0.5, "d": 2.0}, None),
    ({"lr": 0.05, "eps": (1e-6, 1e-2)}, None),
    ({"lr": 0.05, "weight_decay": 0.1}, None),
    ({"lr": 0.02, "maximize": True}, None),
    ({"lr": 0.05, "foreach": False}, None),
    ({"lr": 0.05}, GROUPS),
    ({"lr": 0.05}, [([0], {"d": 1.5, "weight_decay": 0.2}), ([1, 2], {"lr": 0.01})]),
]
E, T = optim.Adafactor, torch.optim.Adafactor
SHAPES = [(), (5,), (3, 4), (2, 3, 4)]


@pytest.mark.parametrize("kwargs,groups", CASES)
def test_float64_mlp_matches_torch(kwargs, groups):
    check_mlp(E, T, kwargs, groups)


@pytest.mark.parametrize("kwargs,groups", [c for c in CASES if not c[0].get("maximize")])
def test_float32_mlp_matches_torch(kwargs, groups):
    check_mlp(E, T, kwargs, groups, dtype="float32", tol=2e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kwargs", [{"lr": 0.05}, {"lr": 0.02, "weight_decay": 0.1,
                                                  "maximize": True, "eps": (1e-4, 1e-3)}])
def test_injected_gradients(dtype, kwargs):
    check_injected(E, T, kwargs, dtype, shapes=SHAPES)


@pytest.mark.parametrize("kwargs", [{}, {"weight_decay": 0.1, "maximize": True}])
def test_state_dict_layout_is_torchs(kwargs):
    check_state_dict_layout(E, T, kwargs)


def test_state_dict_round_trip():
    check_round_trip(E, {"lr": 0.05, "weight_decay": 0.1})


def test_values_stay_values():
    check_values_stay_values(E, T, {"lr": 0.05, "weight_decay": 0.1})


def test_add_param_group():
    check_add_param_group(E, T, {"lr": 0.05}, {"lr": 0.01, "d": 2.0})


def test_defaults_are_torchs():
    assert E([ember.ones(1).require_grad()]).defaults == T([torch.ones(1)]).defaults


def test_a_parameter_without_elements_keeps_its_value():
    a, b = ember.zeros(0, 3).require_grad(), ember.ones(3).require_grad()
    opt = E([a, b], lr=0.1)
    a.grad, b.grad = ember.zeros(0, 3), ember.ones(3)
    opt.step()
    sd = opt.state_dict()["state"]
    assert a.shape == (0, 3) and sd[0]["step"] == 1
    assert sd[0]["row_var"].shape == (0, 1) and sd[0]["col_var"].shape == (1, 3)
    assert b.tolist() == pytest.approx([0.9] * 3, rel=1e-6)


def test_a_bad_factored_state_is_refused():
    w = ember.ones(3, 4).require_grad()
    opt = E([w])
    w.grad = ember.ones(3, 4)
    opt.step()
    sd = opt.state_dict()
    fresh = E([ember.ones(3, 4).require_grad()])
    st = sd["state"][0]
    for bad, err, match in [
        ({**st, "row_var": ember.ones(3, 4)}, ShapeMismatchError, r"'row_var' has shape"),
        ({"step": 1, "variance": ember.ones(3, 4)}, InvalidParameterError, "expected 'step'"),
        ({k: v for k, v in st.items() if k != "col_var"}, InvalidParameterError, "2 dims"),
        ({k: v for k, v in st.items() if k != "step"}, InvalidParameterError, "2 dims"),
    ]:
        with pytest.raises(err, match=match):
            fresh.load_state_dict({"state": {0: bad}, "param_groups": sd["param_groups"]})
        assert fresh.state_dict()["state"] == {}


@pytest.mark.parametrize("kwargs,match", [
    ({"lr": -1.0}, r"Adafactor: lr is -1.0; expected a finite number >= 0"),
    ({"beta2_decay": 0.5}, r"beta2_decay is 0.5"),
    ({"eps": (-1.0, 1e-3)}, r"eps is -1.0; expected a pair \(eps1, eps2\)"),
    ({"eps": (None, -1e-3)}, r"eps is -0.001"),
    ({"eps": 1e-3}, r"eps is 0.001; expected a pair"),
    ({"d": 0.5}, r"d is 0.5; expected a finite number >= 1.0"),
    ({"weight_decay": -0.1}, r"weight_decay is -0.1"),
    ({"maximize": None}, r"maximize must be a bool"),
    ({"foreach": 1}, r"foreach must be None or a bool"),
])
def test_bad_hyper_parameters(kwargs, match):
    check_bad(E, kwargs, match)


def test_exported_as_torch():
    import ember.torch
    assert ember.torch.optim.Adafactor is optim.Adafactor and "Adafactor" in optim.__all__
    assert issubclass(optim.Adafactor, optim.Optimizer)
    assert torch.optim.Adafactor.__name__ == "Adafactor"
