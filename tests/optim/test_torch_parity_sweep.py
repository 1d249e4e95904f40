"""Every optimizer of ember.optim against torch.optim for 50 steps on a small MLP in float64, to
1e-6, for each argument the issue lists that changes results (maximize, weight_decay, amsgrad,
nesterov, decoupled_weight_decay, momentum, centered, ...) and with PyTorch's implementation
flags (foreach, fused, capturable, differentiable), which ember accepts and which change nothing.

Two ways: with the same gradients (PyTorch's model computes them at its parameters; both
optimizers get them), which holds while ascending too, and with each side computing its own
gradients (test_optim's MLP). LBFGS, which needs a closure, reaches PyTorch's iterates on the
Rosenbrock function with strong Wolfe line search in test_lbfgs.py; Muon and SparseAdam are
checked in their own files. Last, a state PyTorch saved (torch.save, read by ember.torch.load)
resumes in ember as in PyTorch, for every optimizer.
"""

import inspect
import io

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember import optim
from grads_oracle import Pair
from test_optim import _close, run_ember, run_torch

GROUPS = [([0, 2, 4], {}), ([1, 3, 5], {"lr": 0.003})]

SWEEP = {
    "SGD": [
        {"lr": 0.05}, {"lr": 0.05, "momentum": 0.9},
        {"lr": 0.05, "momentum": 0.9, "nesterov": True},
        {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}, {"lr": 0.05, "weight_decay": 0.1},
        {"lr": 0.02, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05, "maximize": True},
        {"lr": 0.05, "momentum": 0.9, "foreach": True},
        {"lr": 0.05, "momentum": 0.9, "fused": True},
        {"lr": 0.05, "momentum": 0.9, "differentiable": True},
    ],
    "Adam": [
        {"lr": 0.01}, {"lr": 0.01, "amsgrad": True}, {"lr": 0.01, "weight_decay": 0.1},
        {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True},
        {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True, "maximize": True},
        {"lr": 0.01, "betas": (0.5, 0.9), "eps": 1e-4}, {"lr": 0.01, "foreach": True},
        {"lr": 0.01, "fused": True}, {"lr": 0.01, "capturable": True},
        {"lr": 0.01, "differentiable": True},
    ],
    "AdamW": [
        {"lr": 0.01}, {"lr": 0.01, "weight_decay": 0.3}, {"lr": 0.01, "amsgrad": True},
        {"lr": 0.01, "maximize": True, "amsgrad": True}, {"lr": 0.01, "foreach": True},
        {"lr": 0.01, "fused": True}, {"lr": 0.01, "capturable": True},
    ],
    "RMSprop": [
        {"lr": 0.01}, {"lr": 0.01, "momentum": 0.9}, {"lr": 0.01, "centered": True},
        {"lr": 0.005, "momentum": 0.5, "centered": True, "weight_decay": 0.1},
        {"lr": 0.005, "momentum": 0.9, "maximize": True}, {"lr": 0.01, "alpha": 0.5, "eps": 1e-3},
        {"lr": 0.01, "foreach": True}, {"lr": 0.01, "capturable": True},
        {"lr": 0.01, "differentiable": True},
    ],
    "Adagrad": [
        {"lr": 0.1}, {"lr": 0.1, "lr_decay": 0.05}, {"lr": 0.1, "weight_decay": 0.2},
        {"lr": 0.1, "initial_accumulator_value": 0.5}, {"lr": 0.05, "maximize": True},
        {"lr": 0.1, "foreach": True}, {"lr": 0.1, "fused": True},
        {"lr": 0.1, "differentiable": True},
    ],
    "NAdam": [
        {"lr": 0.02}, {"lr": 0.02, "weight_decay": 0.1},
        {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True},
        {"lr": 0.02, "momentum_decay": 0.1}, {"lr": 0.01, "maximize": True},
        {"lr": 0.02, "foreach": True}, {"lr": 0.02, "capturable": True},
    ],
    "Adadelta": [
        {"lr": 1.0}, {"lr": 0.5, "rho": 0.5}, {"lr": 1.0, "weight_decay": 0.1},
        {"lr": 0.3, "maximize": True}, {"lr": 1.0, "foreach": True},
        {"lr": 1.0, "capturable": True},
    ],
    "Adamax": [
        {"lr": 0.05}, {"lr": 0.05, "weight_decay": 0.1}, {"lr": 0.02, "maximize": True},
        {"lr": 0.05, "betas": (0.5, 0.9), "eps": 1e-4}, {"lr": 0.05, "foreach": True},
        {"lr": 0.05, "capturable": True},
    ],
    "RAdam": [
        {"lr": 0.05}, {"lr": 0.05, "weight_decay": 0.1},
        {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True},
        {"lr": 0.02, "maximize": True}, {"lr": 0.05, "foreach": True},
        {"lr": 0.05, "capturable": True},
    ],
    "ASGD": [
        {"lr": 0.05}, {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 5},
        {"lr": 0.05, "weight_decay": 0.1}, {"lr": 0.02, "maximize": True, "t0": 3},
        {"lr": 0.05, "foreach": True},
    ],
    "Rprop": [
        {"lr": 0.05}, {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (0.01, 0.06)},
        {"lr": 0.02, "maximize": True}, {"lr": 0.05, "foreach": True},
    ],
    "Adafactor": [
        {"lr": 0.05}, {"lr": 0.05, "beta2_decay": -0.5, "d": 2.0},
        {"lr": 0.05, "weight_decay": 0.1}, {"lr": 0.02, "maximize": True},
        {"lr": 0.05, "foreach": True},
    ],
}
CASES = [(name, kw, groups) for name, cases in SWEEP.items() for kw in cases
         for groups in ((None, GROUPS) if kw is cases[0] else (None,))]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}{'-groups' if g else ''}"
       for n, kw, g in CASES]


# PyTorch runs capturable=True only on accelerators and differentiable=True only for non-leaf
# parameters; ember accepts both and they change nothing, so ember with the flag is compared
# with PyTorch without it
_TORCH_CANNOT = ("capturable", "differentiable")


def _for_torch(kwargs):
    return {k: v for k, v in kwargs.items() if k not in _TORCH_CANNOT}


def test_every_optimizer_is_swept():
    names = {n for n in optim.__all__ if inspect.isclass(getattr(optim, n))
             and issubclass(getattr(optim, n), optim.Optimizer)}
    assert names - set(SWEEP) == {"Optimizer", "LBFGS", "Muon", "SparseAdam"}


@pytest.mark.parametrize("name,kwargs,groups", CASES, ids=IDS)
def test_50_steps_with_torchs_gradients(name, kwargs, groups):
    pair = Pair(getattr(optim, name), getattr(torch.optim, name), kwargs, groups,
                tkwargs=_for_torch(kwargs))
    pair.step(50)
    pair.assert_close(1e-6)


@pytest.mark.parametrize("name,kwargs,groups",
                         [c for c in CASES if not c[1].get("maximize")],
                         ids=[i for i, c in zip(IDS, CASES) if not c[1].get("maximize")])
def test_50_steps_each_computing_its_gradients(name, kwargs, groups):
    tgroups = None if groups is None else [([0, 2], {}), ([1], {"lr": 0.003})]
    got = run_ember(getattr(optim, name), kwargs, tgroups, steps=50)
    want = run_torch(getattr(torch.optim, name), _for_torch(kwargs), tgroups, steps=50)
    _close(got, want, rtol=1e-6, atol=1e-6)


RESUME = [(name, cases[i]) for name, cases in SWEEP.items() for i in (0, 1)]


@pytest.mark.parametrize("name,kwargs", RESUME,
                         ids=[f"{n}-{i % 2}" for i, (n, _) in enumerate(RESUME)])
def test_state_saved_by_torch_resumes_in_ember(name, kwargs):
    """PyTorch's state_dict (its tensors as ember tensors) loaded into ember after 5 steps: the
    next 10 steps are PyTorch's."""
    pair = Pair(getattr(optim, name), getattr(torch.optim, name), kwargs, GROUPS,
                tkwargs=_for_torch(kwargs))
    pair.step(5)
    pair.resume_from_torch(getattr(optim, name), kwargs, GROUPS)
    pair.step(10)
    pair.assert_close(1e-10)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_state_saved_by_torch_resumes_in_ember(line_search_fn):
    """LBFGS on the Rosenbrock function: 2 steps in PyTorch, its saved state read by
    ember.torch.load, then 3 more steps on both sides reach PyTorch's iterates."""
    def rosenbrock(x):
        return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2

    def closure_of(opt, x):
        def closure():
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            return loss
        return closure

    tx = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    topt = torch.optim.LBFGS([tx], line_search_fn=line_search_fn)
    for _ in range(2):
        topt.step(closure_of(topt, tx))
    buffer = io.BytesIO()
    torch.save(topt.state_dict(), buffer)
    buffer.seek(0)
    ex = ember.tensor(tx.detach().numpy()).require_grad()
    eopt = optim.LBFGS([ex], line_search_fn=line_search_fn)
    eopt.load_state_dict(et.load(buffer))
    for _ in range(3):
        topt.step(closure_of(topt, tx))
        eopt.step(closure_of(eopt, ex))
        np.testing.assert_allclose(ex.numpy(), tx.detach().numpy(), rtol=1e-9, atol=1e-9)
