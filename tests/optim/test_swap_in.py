"""swap_in_optimizer_params_and_state against PyTorch's: a step inside the block moves the
swapped-in parameters and state as PyTorch's, the caller's state tensors get the new values,
the live optimizer is back afterwards (also after an error), and bad input is refused."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember import InvalidParameterError, ShapeMismatchError, optim

START = [np.array([1.0, -2.0, 0.5]), np.array([[0.3, -0.7], [1.1, 0.2]])]
GRADS = [np.array([0.5, -1.0, 2.0]), np.array([[-0.25, 0.75], [1.5, -0.5]])]


def _live(lib, cls, kwargs):
    ps = [lib.tensor(a, requires_grad=True) for a in START]
    opt = cls(ps, **kwargs)
    for _ in range(2):
        for p, g in zip(ps, GRADS):
            p.grad = lib.tensor(g * 0.5)
        opt.step()
    return ps, opt


def _to_ember(sd):
    return {"state": {i: {k: et.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v
                          for k, v in s.items()} for i, s in sd["state"].items()},
            "param_groups": [dict(g) for g in sd["param_groups"]]}


@pytest.mark.parametrize("name,kwargs", [("Adam", {"lr": 0.1, "amsgrad": True}),
                                         ("SGD", {"lr": 0.1, "momentum": 0.9}),
                                         ("RMSprop", {"lr": 0.01, "centered": True})])
def test_a_step_inside_matches_torch(name, kwargs):
    tps, topt = _live(torch, getattr(torch.optim, name), kwargs)
    eps, eopt = _live(et, getattr(et.optim, name), kwargs)
    tlive, elive = [p.detach().clone() for p in tps], [p.detach().numpy().copy() for p in eps]
    tbefore, ebefore = topt.state_dict(), eopt.state_dict()
    tstate = {"state": {i: {k: v.clone() if isinstance(v, torch.Tensor) else v
                            for k, v in s.items()} for i, s in tbefore["state"].items()},
              "param_groups": [dict(g, lr=0.05) for g in tbefore["param_groups"]]}
    estate = _to_ember(tstate)
    tswap = {f"p{i}": torch.tensor(a * 2, requires_grad=True) for i, a in enumerate(START)}
    eswap = {f"p{i}": et.tensor(a * 2, requires_grad=True) for i, a in enumerate(START)}
    with torch.optim.swap_in_optimizer_params_and_state(topt, tswap, tstate):
        for p, g in zip(tswap.values(), GRADS):
            p.grad = torch.tensor(g)
        topt.step()
    with et.optim.swap_in_optimizer_params_and_state(eopt, eswap, estate):
        for p, g in zip(eswap.values(), GRADS):
            p.grad = et.tensor(g)
        eopt.step()
        assert eopt.param_groups[0]["lr"] == 0.05
    for e, t in zip(eswap.values(), tswap.values()):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-12)
    for i, ts in tstate["state"].items():
        for k, v in ts.items():
            e = estate["state"][i][k]
            if isinstance(v, torch.Tensor):
                np.testing.assert_allclose(np.asarray(e.numpy(), dtype=np.float64),
                                           v.double().numpy(), rtol=1e-12, err_msg=k)
    # the live optimizer is back: its groups, state and parameters
    assert eopt.param_groups[0]["lr"] == kwargs["lr"]
    assert eopt.param_groups[0]["params"][0] is eps[0]
    after = eopt.state_dict()
    for i, s in ebefore["state"].items():
        for k, v in s.items():
            a = after["state"][i][k]
            assert (a.tolist() if isinstance(a, ember.Tensor) else a) == \
                (v.tolist() if isinstance(v, ember.Tensor) else v)
    for e, t, ev in zip(eps, tlive, elive):
        np.testing.assert_array_equal(e.detach().numpy(), ev)
        np.testing.assert_allclose(ev, t.numpy(), rtol=1e-12)


def test_live_optimizer_is_back_after_an_error():
    eps, eopt = _live(et, et.optim.Adam, {"lr": 0.1})
    sd = eopt.state_dict()
    swap = {f"p{i}": et.tensor(a, requires_grad=True) for i, a in enumerate(START)}
    with pytest.raises(RuntimeError, match="inside"):
        with optim.swap_in_optimizer_params_and_state(eopt, swap, sd):
            raise RuntimeError("inside")
    assert eopt.param_groups[0]["params"][0] is eps[0]
    assert eopt.state_dict()["state"][0]["step"] == 2


def test_bad_input_is_refused_and_changes_nothing():
    eps, eopt = _live(et, et.optim.Adam, {"lr": 0.1})
    sd = eopt.state_dict()
    ok = {f"p{i}": et.tensor(a, requires_grad=True) for i, a in enumerate(START)}
    cases = [
        (("opt", ok, sd), InvalidParameterError, r"optimizer must be"),
        ((eopt, list(ok.values()), sd), InvalidParameterError, r"must be a dict of name"),
        ((eopt, {"a": ok["p0"]}, sd), InvalidParameterError, r"has 1 tensors, the optimizer 2"),
        ((eopt, {"a": ok["p0"], "b": 3}, sd), InvalidParameterError, r"\['b'\] is a int"),
        ((eopt, {"a": ok["p1"], "b": ok["p0"]}, sd), ShapeMismatchError, r"has shape \(2, 2\)"),
        ((eopt, ok, [1]), InvalidParameterError, r"swapin_optim_state must be a dict"),
        ((eopt, ok, {"state": {0: {**sd["state"][0], "step": -1}},
                     "param_groups": sd["param_groups"]}),
         InvalidParameterError, r"'step' is -1"),
    ]
    for args, error, match in cases:
        with pytest.raises(error, match=match):
            with optim.swap_in_optimizer_params_and_state(*args):
                pass  # pragma: no cover - never entered
        assert eopt.param_groups[0]["params"][0] is eps[0]
        assert eopt.state_dict()["state"][0]["step"] == 2


def test_exported_as_torch():
    assert et.optim.swap_in_optimizer_params_and_state is optim.swap_in_optimizer_params_and_state
    assert hasattr(torch.optim, "swap_in_optimizer_params_and_state")
