"""The learning-rate schedulers against torch.optim.lr_scheduler: rates over many steps with
several parameter groups, momentum cycling, state_dict round trips, and bad input."""

import math

import numpy as np
import pytest
import torch

import ember
from ember import InvalidParameterError, optim
from torch.optim import lr_scheduler as tls

LRS = (0.1, 0.02, 0.5)


def _pair(opt_name="SGD", lrs=LRS, **opt_kwargs):
    """An ember and a torch optimizer with one parameter group per rate."""
    ep = [ember.ones(1).require_grad() for _ in lrs]
    tp = [torch.ones(1, requires_grad=True) for _ in lrs]
    eo = getattr(optim, opt_name)([{"params": [p], "lr": lr} for p, lr in zip(ep, lrs)],
                                  **opt_kwargs)
    to = getattr(torch.optim, opt_name)([{"params": [p], "lr": lr} for p, lr in zip(tp, lrs)],
                                        **opt_kwargs)
    return eo, to


def _run(make_e, make_t, steps=100, opt_name="SGD", opt_kwargs=None, metrics=None, keys=()):
    """The rates (and the group entries named in ``keys``) after each of ``steps`` steps."""
    eo, to = _pair(opt_name, **(opt_kwargs or {"lr": 1.0}))
    es, ts = make_e(eo), make_t(to)
    got, want = [], []

    def record():
        got.append(list(es.get_last_lr()) + [g[k] for g in eo.param_groups for k in keys])
        want.append(list(ts.get_last_lr()) + [g[k] for g in to.param_groups for k in keys])
        assert [g["lr"] for g in eo.param_groups] == es.get_last_lr()

    record()
    for i in range(steps):
        eo.step()
        to.step()
        if metrics is None:
            es.step()
            ts.step()
        else:
            es.step(metrics[i])
            ts.step(metrics[i])
        record()
    return got, want


def _flat(rows):
    return np.array([[x for v in row for x in (v if isinstance(v, tuple) else (v,))]
                     for row in rows], dtype=np.float64)


def _check(got, want, tol=1e-12):
    np.testing.assert_allclose(_flat(got), _flat(want), rtol=tol, atol=1e-15)


def _both(name, *args, **kwargs):
    return (lambda o: getattr(optim, name)(o, *args, **kwargs),
            lambda o: getattr(tls, name)(o, *args, **kwargs))


class Halving:
    """A callable object schedule: its state (``self.rate``) goes into state_dict."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate ** epoch


@pytest.mark.parametrize("lr_lambda", [
    lambda e: 0.95 ** e,
    lambda e: min(1.0, (e + 1) / 10) * 0.5 * (1 + math.cos(math.pi * min(e, 50) / 50)),
    [lambda e: 1.0 / (e + 1), lambda e: e // 7, lambda e: 0.9 ** e],
    Halving(0.9),
])
def test_lambdalr_matches_torch(lr_lambda):
    _check(*_run(*_both("LambdaLR", lr_lambda)))


@pytest.mark.parametrize("kwargs", [
    {"milestones": [5, 12, 30]}, {"milestones": [3, 3, 10], "gamma": 0.5},
    {"milestones": [0, 1, 2], "gamma": 0.9}, {"milestones": [], "gamma": 0.5},
    {"milestones": (40, 10), "gamma": 1.5},
])
def test_multisteplr_matches_torch(kwargs):
    _check(*_run(*_both("MultiStepLR", **kwargs)))


@pytest.mark.parametrize("gamma", [0.9, 0.5, 1.0, 1.1, 0.0])
def test_exponentiallr_matches_torch(gamma):
    _check(*_run(*_both("ExponentialLR", gamma)))


@pytest.mark.parametrize("kwargs", [
    {}, {"start_factor": 0.1, "total_iters": 10}, {"start_factor": 1.0, "end_factor": 0.1,
                                                   "total_iters": 25},
    {"start_factor": 0.5, "end_factor": 0.0, "total_iters": 1}, {"total_iters": 100},
])
def test_linearlr_matches_torch(kwargs):
    _check(*_run(*_both("LinearLR", **kwargs)))


ONECYCLE = [
    {"max_lr": 1.0, "total_steps": 100},
    {"max_lr": [1.0, 0.3, 2.0], "total_steps": 100, "anneal_strategy": "linear"},
    {"max_lr": 0.5, "epochs": 10, "steps_per_epoch": 10, "three_phase": True},
    {"max_lr": 0.5, "total_steps": 100, "three_phase": True, "anneal_strategy": "linear",
     "pct_start": 0.25, "div_factor": 10.0, "final_div_factor": 100.0},
    {"max_lr": 0.8, "total_steps": 101, "cycle_momentum": False, "pct_start": 0.5},
    {"max_lr": 0.8, "total_steps": 100, "base_momentum": [0.8, 0.7, 0.6],
     "max_momentum": 0.99},
]


@pytest.mark.parametrize("kwargs", ONECYCLE)
def test_onecyclelr_with_sgd_momentum_matches_torch(kwargs):
    got, want = _run(*_both("OneCycleLR", **kwargs), opt_kwargs={"lr": 1.0, "momentum": 0.9},
                     keys=("momentum",))
    _check(got, want)


@pytest.mark.parametrize("kwargs", ONECYCLE[:4])
@pytest.mark.parametrize("opt_name", ["Adam", "NAdam"])
def test_onecyclelr_cycles_adam_beta1_like_torch(kwargs, opt_name):
    got, want = _run(*_both("OneCycleLR", **kwargs), opt_name=opt_name, opt_kwargs={},
                     keys=("betas",))
    _check(got, want)


def test_onecyclelr_trains_like_torch():
    """Adam's betas change each step: the weights follow torch's through the cycle."""
    rng = np.random.default_rng(0)
    w0, x = rng.standard_normal((3, 2)), rng.standard_normal((5, 3))
    ew = ember.tensor(w0).require_grad()
    tw = torch.tensor(w0, requires_grad=True)
    eo, to = optim.Adam([ew]), torch.optim.Adam([tw])
    es = optim.OneCycleLR(eo, max_lr=0.1, total_steps=20)
    ts = tls.OneCycleLR(to, max_lr=0.1, total_steps=20)
    for _ in range(20):
        eo.zero_grad()
        to.zero_grad()
        (ember.tensor(x).matmul(ew).tanh() ** 2).sum().backward()
        (torch.tensor(x).matmul(tw).tanh() ** 2).sum().backward()
        eo.step()
        to.step()
        es.step()
        ts.step()
    np.testing.assert_allclose(ew.numpy(), tw.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_onecyclelr_past_total_steps_raises_and_changes_nothing():
    eo, _ = _pair(lr=1.0, momentum=0.9)
    s = optim.OneCycleLR(eo, max_lr=1.0, total_steps=3)
    for _ in range(3):
        s.step()
    before = (s.last_epoch, s.get_last_lr(), [dict(g) for g in eo.param_groups])
    with pytest.raises(InvalidParameterError, match=r"tried to step 4 times.*total_steps=3"):
        s.step()
    assert (s.last_epoch, s.get_last_lr()) == before[:2]
    assert [g["lr"] for g in eo.param_groups] == [g["lr"] for g in before[2]]


SEQUENTIAL = [
    (lambda m, o: [m.LinearLR(o, start_factor=0.1, total_iters=5),
                   m.CosineAnnealingLR(o, T_max=30, eta_min=0.001)], [5]),
    (lambda m, o: [m.ExponentialLR(o, gamma=0.9), m.StepLR(o, step_size=4, gamma=0.5),
                   m.MultiStepLR(o, milestones=[3, 9], gamma=0.3)], [10, 25]),
    (lambda m, o: [m.LambdaLR(o, lambda e: (e + 1) / 8), m.ExponentialLR(o, gamma=0.95)], [7]),
    (lambda m, o: [m.LinearLR(o, start_factor=0.5, total_iters=3),
                   m.LinearLR(o, start_factor=1.0, end_factor=0.2, total_iters=20)], [0]),
    (lambda m, o: [m.StepLR(o, step_size=3)], []),
]


@pytest.mark.parametrize("make,milestones", SEQUENTIAL)
def test_sequentiallr_matches_torch(make, milestones):
    _check(*_run(lambda o: optim.SequentialLR(o, make(optim, o), milestones),
                 lambda o: tls.SequentialLR(o, make(tls, o), milestones)))


@pytest.mark.parametrize("kwargs", [
    {}, {"patience": 2, "factor": 0.5}, {"mode": "max", "patience": 1, "threshold": 0.01},
    {"threshold_mode": "abs", "threshold": 0.05, "patience": 0, "cooldown": 2},
    {"mode": "max", "threshold_mode": "abs", "patience": 3, "min_lr": [0.05, 0.0, 0.1]},
    {"patience": 1, "factor": 0.5, "min_lr": 0.01, "eps": 1e-3, "cooldown": 1},
])
def test_reducelronplateau_matches_torch(kwargs):
    rng = np.random.default_rng(0)
    # a noisy loss with plateaus: improving, flat, worse, improving slowly
    metrics = np.concatenate([np.linspace(2, 1, 10), np.full(10, 1.0), np.linspace(1, 1.5, 10),
                              1 - 1e-5 * np.arange(10), rng.uniform(0.9, 1.1, 20)]).tolist()
    got, want = _run(lambda o: optim.ReduceLROnPlateau(o, **kwargs),
                     lambda o: tls.ReduceLROnPlateau(o, **kwargs), steps=len(metrics),
                     metrics=metrics)
    _check(got, want)


def test_reducelronplateau_takes_a_tensor_metric():
    eo, to = _pair(lr=1.0)
    es = optim.ReduceLROnPlateau(eo, patience=0)
    ts = tls.ReduceLROnPlateau(to, patience=0)
    for v in [1.0, 2.0, 2.0, 0.5]:
        es.step(ember.tensor(v))
        ts.step(torch.tensor(v))
    assert es.get_last_lr() == ts.get_last_lr() and es.num_bad_epochs == ts.num_bad_epochs
    with pytest.raises(InvalidParameterError, match="metrics is a str"):
        es.step("low")
    with pytest.raises(InvalidParameterError, match="metrics is a Tensor"):
        es.step(ember.ones(2))
    assert es.last_epoch == 4


# -- state_dict: a scheduler restored in the middle continues as the original ------------------

def _schedulers():
    return [
        lambda o: optim.LambdaLR(o, Halving(0.9)),
        lambda o: optim.MultiStepLR(o, milestones=[3, 3, 8], gamma=0.5),
        lambda o: optim.ExponentialLR(o, gamma=0.8),
        lambda o: optim.LinearLR(o, start_factor=0.2, total_iters=8),
        lambda o: optim.OneCycleLR(o, max_lr=1.0, total_steps=30, three_phase=True),
        lambda o: optim.SequentialLR(o, [optim.LinearLR(o, start_factor=0.1, total_iters=4),
                                         optim.CosineAnnealingLR(o, T_max=10)], [4]),
        lambda o: optim.StepLR(o, step_size=3, gamma=0.5),
        lambda o: optim.CosineAnnealingLR(o, T_max=10, eta_min=0.01),
    ]


@pytest.mark.parametrize("index", range(8))
def test_state_dict_round_trip_resumes(index):
    make = _schedulers()[index]
    eo, _ = _pair(lr=1.0, momentum=0.9)
    s = make(eo)
    for _ in range(6):
        s.step()
    saved_sched, saved_opt = s.state_dict(), eo.state_dict()
    rest = []
    for _ in range(12):
        s.step()
        rest.append((s.get_last_lr(), [g["momentum"] for g in eo.param_groups]))
    fresh, _ = _pair(lr=1.0, momentum=0.9)
    s2 = make(fresh)          # a new run, as a resumed program makes it ...
    fresh.load_state_dict(saved_opt)
    s2.load_state_dict(saved_sched)   # ... then loads the saved states
    assert s2.get_last_lr() == saved_sched["_last_lr"]
    again = []
    for _ in range(12):
        s2.step()
        again.append((s2.get_last_lr(), [g["momentum"] for g in fresh.param_groups]))
    assert again == rest


def test_reducelronplateau_state_dict_round_trip():
    eo, _ = _pair(lr=1.0)
    s = optim.ReduceLROnPlateau(eo, mode="max", patience=1, cooldown=1)
    for v in [1.0, 0.5, 0.5, 0.5]:
        s.step(v)
    sd = s.state_dict()
    assert sd["best"] == 1.0 and sd["mode"] == "max" and "optimizer" not in sd
    fresh, _ = _pair(lr=1.0)
    fresh.load_state_dict(eo.state_dict())
    s2 = optim.ReduceLROnPlateau(fresh)
    s2.load_state_dict(sd)
    for v in [0.2, 0.2, 0.2, 2.0, 0.1, 0.1, 0.1]:
        s.step(v)
        s2.step(v)
        assert s2.get_last_lr() == s.get_last_lr()
    assert s2._is_better(3.0, 2.0) and s2.mode_worse == -math.inf


def test_state_dict_keys_follow_torch():
    pairs = [("LambdaLR", (lambda e: 1.0,)), ("MultiStepLR", ([2, 4],)),
             ("ExponentialLR", (0.9,)), ("LinearLR", ()), ("ReduceLROnPlateau", ())]
    for name, args in pairs:
        eo, to = _pair(lr=1.0)
        esd = getattr(optim, name)(eo, *args).state_dict()
        tsd = getattr(tls, name)(to, *args).state_dict()
        assert set(tsd) - {"_get_lr_called_within_step"} <= set(esd), name
    eo, to = _pair(lr=1.0)
    assert optim.LambdaLR(eo, [lambda e: 1.0, Halving(0.5), lambda e: 2.0]).state_dict()[
        "lr_lambdas"] == [None, {"rate": 0.5}, None]


def test_new_schedulers_are_exported():
    for name in ("LambdaLR", "MultiStepLR", "ExponentialLR", "OneCycleLR", "LinearLR",
                 "SequentialLR", "ReduceLROnPlateau"):
        assert getattr(optim, name) is getattr(optim.lr_scheduler, name)
        assert issubclass(getattr(optim, name), optim.LRScheduler)
    from ember.optim import lr_scheduler_base  # the base class, re-exported where torch has it
    assert optim.lr_scheduler.LRScheduler is lr_scheduler_base.LRScheduler is optim.LRScheduler


# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("make,match", [
    (lambda o: optim.LambdaLR(o, 3), r"LambdaLR: lr_lambda\[0\] is a int; expected a function"),
    (lambda o: optim.LambdaLR(o, [lambda e: 1.0]), r"lr_lambda has 1 functions; expected one "
                                                   r"per parameter group \(3\)"),
    (lambda o: optim.MultiStepLR(o, milestones=5), r"milestones must be a list"),
    (lambda o: optim.MultiStepLR(o, milestones=[2, -1]), r"milestones is -1; expected an int"),
    (lambda o: optim.MultiStepLR(o, milestones=[2.5]), r"milestones must be an int"),
    (lambda o: optim.MultiStepLR(o, [2], gamma=-1), r"gamma is -1"),
    (lambda o: optim.ExponentialLR(o, gamma="x"), r"gamma must be a number"),
    (lambda o: optim.LinearLR(o, start_factor=0), r"start_factor is 0; expected a number in "
                                                  r"\(0.0, 1.0\]"),
    (lambda o: optim.LinearLR(o, end_factor=1.5), r"end_factor is 1.5"),
    (lambda o: optim.LinearLR(o, total_iters=0), r"total_iters is 0; expected an int >= 1"),
    (lambda o: optim.OneCycleLR(o, max_lr=1.0), r"give total_steps, or both epochs and "
                                                r"steps_per_epoch"),
    (lambda o: optim.OneCycleLR(o, max_lr=1.0, total_steps=0), r"total_steps is 0"),
    (lambda o: optim.OneCycleLR(o, max_lr=1.0, epochs=2, steps_per_epoch=0),
     r"steps_per_epoch is 0"),
    (lambda o: optim.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=5),
     r"max_lr has 2 entries; expected one per parameter group \(3\)"),
    (lambda o: optim.OneCycleLR(o, max_lr=1.0, total_steps=5, pct_start=1.5),
     r"pct_start is 1.5"),
    (lambda o: optim.OneCycleLR(o, max_lr=1.0, total_steps=5, anneal_strategy="exp"),
     r"anneal_strategy is 'exp'; expected 'cos' or 'linear'"),
    (lambda o: optim.OneCycleLR(o, max_lr=1.0, total_steps=5, div_factor=0),
     r"div_factor is 0"),
    (lambda o: optim.OneCycleLR(o, max_lr=1.0, total_steps=5, three_phase=1),
     r"three_phase must be a bool"),
    (lambda o: optim.OneCycleLR(optim.Adagrad(o.param_groups[0]["params"]), max_lr=1.0,
                                total_steps=5), r"needs an optimizer with momentum or betas"),
    (lambda o: optim.OneCycleLR(o, max_lr=1.0, total_steps=5, last_epoch=2),
     r"group 0 has no \['initial_lr'"),
    (lambda o: optim.SequentialLR(o, [], []), r"schedulers must be a non-empty list"),
    (lambda o: optim.SequentialLR(o, [optim.ReduceLROnPlateau(o)], []),
     r"schedulers\[0\] is a ReduceLROnPlateau"),
    (lambda o: optim.SequentialLR(o, [optim.StepLR(o, 2), optim.StepLR(o, 3)], []),
     r"expected a list of 1 epochs"),
    (lambda o: optim.SequentialLR(o, [optim.StepLR(o, 2), optim.StepLR(o, 3),
                                      optim.StepLR(o, 4)], [5, 2]), r"not in increasing order"),
    (lambda o: optim.ReduceLROnPlateau(o, mode="low"), r"mode is 'low'; expected 'min' or "
                                                       r"'max'"),
    (lambda o: optim.ReduceLROnPlateau(o, threshold_mode="pct"), r"threshold_mode is 'pct'"),
    (lambda o: optim.ReduceLROnPlateau(o, factor=1.0), r"factor is 1.0; expected a number in "
                                                       r"\[0.0, 1.0\)"),
    (lambda o: optim.ReduceLROnPlateau(o, patience=-1), r"patience is -1"),
    (lambda o: optim.ReduceLROnPlateau(o, min_lr=[0.1]), r"min_lr has 1 entries"),
    (lambda o: optim.ReduceLROnPlateau("opt"), r"optimizer must be an ember.optim optimizer"),
])
def test_bad_scheduler_arguments(make, match):
    eo, _ = _pair(lr=1.0, momentum=0.9)
    with pytest.raises(InvalidParameterError, match=match):
        make(eo)
    for g in eo.param_groups:
        assert g["momentum"] == 0.9 and "max_lr" not in g


def test_sequentiallr_refuses_schedulers_of_another_optimizer():
    a, _ = _pair(lr=1.0)
    b, _ = _pair(lr=1.0)
    with pytest.raises(InvalidParameterError, match=r"schedulers\[1\] \(StepLR\) belongs to "
                                                    r"another optimizer"):
        optim.SequentialLR(a, [optim.StepLR(a, 2), optim.StepLR(b, 2)], [3])


def test_lambda_returning_a_non_number_raises():
    eo, _ = _pair(lr=1.0)
    with pytest.raises(InvalidParameterError, match=r"lr_lambda\(0\) returned a str"):
        optim.LambdaLR(eo, lambda e: "fast")


def test_docstring_examples_run():
    import doctest
    from ember.optim import lr_scheduler_base
    results = [doctest.testmod(m) for m in (optim.lr_scheduler, lr_scheduler_base)]
    assert sum(r.attempted for r in results) >= 60 and sum(r.failed for r in results) == 0
