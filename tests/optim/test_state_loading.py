"""Loading optimizer and scheduler states: every entry is checked before anything changes; an
empty state starts afresh (as PyTorch's), a partial one is refused where PyTorch would fail at
the next step; schedulers take only the fields they keep."""

import math

import numpy as np
import pytest
import torch

import ember
from ember import InvalidParameterError, KindError, ShapeMismatchError, optim
from oracle import on_device

G1 = [0.5, -1.0, 2.0]
G2 = [-0.25, 0.75, 1.5]
START = [1.0, -2.0, 3.0]

# name: (ember class, torch class, kwargs)
OPTS = {
    "SGD": (optim.SGD, torch.optim.SGD, {"lr": 0.1, "momentum": 0.9}),
    "Adam": (optim.Adam, torch.optim.Adam, {"lr": 0.1, "amsgrad": True}),
    "AdamW": (optim.AdamW, torch.optim.AdamW, {"lr": 0.1}),
    "RMSprop": (optim.RMSprop, torch.optim.RMSprop, {"lr": 0.01, "momentum": 0.9,
                                                     "centered": True}),
    "Adagrad": (optim.Adagrad, torch.optim.Adagrad, {"lr": 0.1}),
    "NAdam": (optim.NAdam, torch.optim.NAdam, {"lr": 0.1}),
}
WITH_STEP = [n for n in OPTS if n != "SGD"]  # SGD keeps no step count, as PyTorch's


def _stepped(name, steps=2):
    """An optimizer of ``name`` over two float64 parameters after ``steps`` steps."""
    cls, _, kw = OPTS[name]
    ps = [ember.tensor(START, dtype="float64").require_grad(),
          ember.tensor(START[::-1], dtype="float64").require_grad()]
    opt = cls(ps, **kw)
    for _ in range(steps):
        for p in ps:
            p.grad = ember.tensor(G1, dtype="float64")
        opt.step()
    return opt, ps


def _snapshot(opt):
    """The optimizer's groups and state as plain values, to see that nothing changed."""
    sd = opt.state_dict()
    state = {i: {k: (v.tolist() if isinstance(v, ember.Tensor) else v) for k, v in s.items()}
             for i, s in sd["state"].items()}
    return state, sd["param_groups"]


def _step(opt, ps, grad=G2):
    for p in ps:
        p.grad = ember.tensor(grad, dtype="float64")
    opt.step()
    return [p.tolist() for p in ps]


# -- step counts ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", WITH_STEP)
@pytest.mark.parametrize("step", [-5, -1, 1.5, math.nan, math.inf, True, "3", None, 2 ** 63])
def test_bad_step_is_refused_and_nothing_changes(name, step):
    opt, ps = _stepped(name)
    twin, qs = _stepped(name)
    before = _snapshot(opt)
    sd = opt.state_dict()
    sd["param_groups"][0]["lr"] = 0.5           # a valid change that must not happen either
    sd["state"][1]["step"] = step               # the last entry is the bad one
    with pytest.raises(InvalidParameterError, match=r"state of parameter 1\b.*'step'"):
        opt.load_state_dict(sd)
    assert _snapshot(opt) == before
    assert _step(opt, ps) == _step(twin, qs)    # and the run goes on as if nothing happened


def test_nadam_negative_step_no_longer_makes_nan():
    opt, ps = _stepped("NAdam")
    sd = opt.state_dict()
    sd["state"][0]["step"] = -5
    with pytest.raises(InvalidParameterError, match=r"'step' is -5; expected a step count"):
        opt.load_state_dict(sd)
    assert all(math.isfinite(x) for values in _step(opt, ps) for x in values)


@pytest.mark.parametrize("name", WITH_STEP)
def test_integral_float_step_loads_as_int(name):
    """PyTorch keeps step in a float tensor; its value as a float (3.0) is a valid count."""
    opt, ps = _stepped(name, steps=3)
    twin, qs = _stepped(name, steps=3)
    sd = opt.state_dict()
    for s in sd["state"].values():
        s["step"] = 3.0
    opt.load_state_dict(sd)
    steps = [s["step"] for s in opt.state_dict()["state"].values()]
    assert steps == [3, 3] and all(type(s) is int for s in steps)
    assert _step(opt, ps) == _step(twin, qs)


# -- missing buffers: afresh where PyTorch starts afresh, refused where it would fail ----------

@pytest.mark.parametrize("name", list(OPTS))
def test_empty_state_starts_afresh_as_torchs(name):
    cls, tcls, kw = OPTS[name]
    opt, ps = _stepped(name)
    sd = opt.state_dict()
    sd["state"][0] = {}
    opt.load_state_dict(sd)
    # PyTorch's step starts an empty state afresh (len(state) == 0): a fresh optimizer
    tp = torch.tensor(ps[0].tolist(), dtype=torch.float64, requires_grad=True)
    topt = tcls([tp], **kw)
    got = _step(opt, ps)
    tp.grad = torch.tensor(G2, dtype=torch.float64)
    topt.step()
    np.testing.assert_allclose(got[0], tp.tolist(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,entry", [
    ("Adam", "exp_avg"),
    ("Adam", "exp_avg_sq"),
    ("Adam", "step"),
    ("Adam", "max_exp_avg_sq"),      # amsgrad=True: PyTorch reads it (KeyError)
    ("AdamW", "exp_avg"),
    ("RMSprop", "square_avg"),
    ("RMSprop", "momentum_buffer"),  # momentum > 0
    ("RMSprop", "grad_avg"),         # centered
    ("Adagrad", "sum"),
    ("Adagrad", "step"),
    ("NAdam", "mu_product"),
    ("NAdam", "exp_avg_sq"),
])
def test_partial_state_is_refused_where_torch_fails(name, entry):
    cls, tcls, kw = OPTS[name]
    opt, ps = _stepped(name)
    before = _snapshot(opt)
    sd = opt.state_dict()
    del sd["state"][1][entry]
    with pytest.raises(InvalidParameterError, match=rf"state of parameter 1 lacks \['{entry}'\]"):
        opt.load_state_dict(sd)
    assert _snapshot(opt) == before
    # PyTorch fails on such a state with a KeyError, when loading it or at its next step
    tp = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    topt = tcls([tp], **kw)
    tp.grad = torch.ones(3, dtype=torch.float64)
    topt.step()
    tsd = topt.state_dict()
    del tsd["state"][0][entry]
    try:
        topt.load_state_dict(tsd)
        topt.step()
    except KeyError as exc:
        assert entry in str(exc)
    else:  # pragma: no cover
        pytest.fail(f"torch's {name} took a state without {entry!r}")


# -- wrong entries ----------------------------------------------------------------------------

def test_state_of_another_optimizer_is_refused():
    adam, _ = _stepped("Adam")
    sgd, _ = _stepped("SGD")
    before = _snapshot(sgd)
    with pytest.raises(InvalidParameterError, match=r"entry 'step', which SGD does not keep"):
        sgd.load_state_dict(adam.state_dict())
    assert _snapshot(sgd) == before

    class Mine(optim.Optimizer):  # a user's optimizer, which does not describe its state
        _name = "Mine"

        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        def _check_group(self, group):
            pass

        def _update(self, group, params, grads):  # pragma: no cover - never stepped here
            pass

    p = ember.ones(2).require_grad()
    mine = Mine([p])
    other = on_device(["float16", "float64"])[0]  # a dtype other than the parameter's float32
    mine.load_state_dict({"state": {0: {"count": 4, "last": ember.zeros(2, dtype=other)}},
                          "param_groups": [{"lr": 0.5, "params": [0]}]})
    st = mine.state_dict()["state"][0]
    assert st["count"] == 4 and st["last"].dtype == p.dtype and st["last"].tolist() == [0, 0]
    with pytest.raises(ShapeMismatchError, match=r"'last' has shape \(3,\), expected \(2,\)"):
        mine.load_state_dict({"state": {0: {"last": ember.zeros(3)}},
                              "param_groups": [{"lr": 0.5, "params": [0]}]})
    assert mine.state_dict()["state"][0]["count"] == 4


@pytest.mark.parametrize("value,error,match", [
    ([0.0, 0.0, 0.0], InvalidParameterError, r"'exp_avg' is a list; expected a Tensor"),
    (3.0, InvalidParameterError, r"'exp_avg' is a float; expected a Tensor"),
    ("zeros", InvalidParameterError, r"'exp_avg' is a str; expected a Tensor"),
    (ember.zeros(3, dtype="int64"), KindError, r"'exp_avg' is int64; expected a float"),
    (ember.zeros(3, dtype="bool"), KindError, r"'exp_avg' is bool; expected a float"),
    (ember.zeros(2), ShapeMismatchError, r"'exp_avg' has shape \(2,\), expected \(3,\)"),
    (ember.zeros(1, 3), ShapeMismatchError, r"'exp_avg' has shape \(1, 3\), expected \(3,\)"),
])
def test_bad_buffer_is_refused_and_nothing_changes(value, error, match):
    opt, ps = _stepped("NAdam")
    twin, qs = _stepped("NAdam")
    before = _snapshot(opt)
    sd = opt.state_dict()
    sd["state"][1]["exp_avg"] = value
    with pytest.raises(error, match=match):
        opt.load_state_dict(sd)
    assert _snapshot(opt) == before
    assert _step(opt, ps) == _step(twin, qs)


def test_buffer_is_cast_to_the_parameter_dtype():
    opt, ps = _stepped("Adam")
    sd = opt.state_dict()
    sd["state"][0]["exp_avg"] = ember.tensor([0.5, 0.25, -1.0], dtype="float32")
    sd["state"][0]["step"] = np.int64(2)
    opt.load_state_dict(sd)
    st = opt.state_dict()["state"][0]
    assert st["exp_avg"].dtype == ember.float64 and st["exp_avg"].tolist() == [0.5, 0.25, -1.0]
    assert st["step"] == 2 and type(st["step"]) is int


@pytest.mark.parametrize("mu", [-0.5, 1.5, math.nan, math.inf, None])
def test_nadam_mu_product_must_be_a_fraction(mu):
    opt, _ = _stepped("NAdam")
    before = _snapshot(opt)
    sd = opt.state_dict()
    sd["state"][0]["mu_product"] = mu
    with pytest.raises(InvalidParameterError, match=r"mu_product"):
        opt.load_state_dict(sd)
    assert _snapshot(opt) == before


@pytest.mark.parametrize("key,value,match", [
    ("initial_lr", math.nan, r"initial_lr of parameter group 0 is nan"),
    ("max_lr", -1.0, r"max_lr of parameter group 0 is -1.0"),
    ("base_momentum", math.inf, r"base_momentum of parameter group 0 is inf"),
])
def test_bad_schedule_keys_are_refused(key, value, match):
    """The keys a scheduler keeps in a group are checked as the optimizer's own are."""
    opt, ps = _stepped("Adam")
    before = _snapshot(opt)
    sd = opt.state_dict()
    sd["param_groups"][0][key] = value
    with pytest.raises(InvalidParameterError, match=match):
        opt.load_state_dict(sd)
    assert _snapshot(opt) == before


@pytest.mark.parametrize("params,match", [
    (3, r"'params' of parameter group 0 must be a list of parameter indices, got int"),
    ([0, [1]], r"'params' of parameter group 0 holds \[1\]; expected parameter indices"),
    ([0, 0], r"parameter index 0 appears more than once"),
    ([0, True], r"holds True"),
])
def test_bad_parameter_indices_are_refused(params, match):
    opt, _ = _stepped("SGD")
    before = _snapshot(opt)
    sd = opt.state_dict()
    sd["param_groups"][0]["params"] = params
    with pytest.raises(InvalidParameterError, match=match):
        opt.load_state_dict(sd)
    assert _snapshot(opt) == before


# -- schedulers -------------------------------------------------------------------------------

def _sgd(lr=1.0):
    return optim.SGD([ember.ones(1).require_grad()], lr=lr, momentum=0.9)


def _fields(s):
    return {k: v for k, v in s.__dict__.items() if k != "optimizer"}


@pytest.mark.parametrize("make,key,value,match", [
    (lambda o: optim.StepLR(o, 2), "gamma", math.nan, r"gamma is nan"),
    (lambda o: optim.StepLR(o, 2), "step_size", 0, r"step_size is 0; expected an int >= 1"),
    (lambda o: optim.StepLR(o, 2), "last_epoch", -5, r"last_epoch is -5"),
    (lambda o: optim.StepLR(o, 2), "last_epoch", 2.5, r"last_epoch must be an int"),
    (lambda o: optim.StepLR(o, 2), "_step_count", -1, r"_step_count is -1"),
    (lambda o: optim.StepLR(o, 2), "base_lrs", [math.inf], r"base_lrs is inf"),
    (lambda o: optim.StepLR(o, 2), "_last_lr", [1.0, 2.0], r"_last_lr has 2 entries"),
    (lambda o: optim.ExponentialLR(o, 0.5), "gamma", -1, r"gamma is -1"),
    (lambda o: optim.CosineAnnealingLR(o, 4), "T_max", 0, r"T_max is 0"),
    (lambda o: optim.CosineAnnealingLR(o, 4), "eta_min", math.nan, r"eta_min is nan"),
    (lambda o: optim.LinearLR(o), "start_factor", 0.0, r"start_factor is 0.0"),
    (lambda o: optim.MultiStepLR(o, [2]), "milestones", {2: 0}, r"milestones\[2\] is 0"),
    (lambda o: optim.MultiStepLR(o, [2]), "milestones", [2, 3], r"milestones must be a dict"),
    (lambda o: optim.LambdaLR(o, lambda e: 1.0), "lr_lambdas", [None, None],
     r"lr_lambdas must be a list of at most 1 entries"),
    (lambda o: optim.OneCycleLR(o, 1.0, total_steps=10), "_anneal_func_type", "exp",
     r"_anneal_func_type is 'exp'"),
    (lambda o: optim.OneCycleLR(o, 1.0, total_steps=10), "total_steps", 0,
     r"total_steps is 0"),
    (lambda o: optim.OneCycleLR(o, 1.0, total_steps=10), "_schedule_phases",
     [{"end_step": 2.0}], r"_schedule_phases must be a list of 2 or 3 phases"),
    (lambda o: optim.ReduceLROnPlateau(o), "mode", "avg", r"mode is 'avg'"),
    (lambda o: optim.ReduceLROnPlateau(o), "best", math.nan, r"best is nan"),
    (lambda o: optim.ReduceLROnPlateau(o), "factor", 1.0, r"factor is 1.0"),
    (lambda o: optim.ReduceLROnPlateau(o), "num_bad_epochs", -1, r"num_bad_epochs is -1"),
])
def test_scheduler_bad_field_is_refused_and_nothing_changes(make, key, value, match):
    s = make(_sgd())
    sd = s.state_dict()
    sd["last_epoch"] = 3      # a valid change that must not happen either
    sd[key] = value
    before = _fields(s)
    with pytest.raises(InvalidParameterError, match=match):
        s.load_state_dict(sd)
    assert _fields(s) == before


def test_scheduler_unknown_field_is_refused_pytorchs_private_one_ignored():
    s = optim.StepLR(_sgd(), 2)
    with pytest.raises(InvalidParameterError, match=r"field 'step', which StepLR does not keep"):
        s.load_state_dict({"step": 1, "last_epoch": 4})
    assert s.last_epoch == 0 and callable(s.step)

    class Halving(optim.LRScheduler):  # a user's scheduler: its own fields load as they are
        def __init__(self, opt):
            self.rate = 0.5
            super().__init__(opt)

        def get_lr(self):
            return [b * self.rate ** self.last_epoch for b in self.base_lrs]

    h = Halving(_sgd())
    h.load_state_dict({"rate": 0.25, "last_epoch": 2})
    assert (h.rate, h.last_epoch) == (0.25, 2)
    with pytest.raises(InvalidParameterError, match=r"field 'get_lr', which Halving does not"):
        h.load_state_dict({"get_lr": None})
    # a scheduler state saved by PyTorch carries a key of its own: it is ignored
    tp = [torch.zeros(1, requires_grad=True)]
    topt = torch.optim.SGD(tp, lr=1.0)
    ts = torch.optim.lr_scheduler.StepLR(topt, 2, gamma=0.5)
    for _ in range(3):
        topt.step()
        ts.step()
    s.load_state_dict(ts.state_dict())
    s.optimizer.param_groups[0]["lr"] = ts.get_last_lr()[0]
    assert "_get_lr_called_within_step" not in s.state_dict()
    for _ in range(4):
        topt.step()
        ts.step()
        s.step()
        assert s.get_last_lr() == ts.get_last_lr()


def test_reducelronplateau_bad_mode_changes_nothing():
    s = optim.ReduceLROnPlateau(_sgd(), patience=3)
    sd = s.state_dict()
    sd.update(patience=7, mode="average")
    with pytest.raises(InvalidParameterError, match=r"mode is 'average'"):
        s.load_state_dict(sd)
    assert s.patience == 3 and s.mode == "min"
    sd["mode"] = "max"
    sd["min_lrs"] = [0.0, 0.0]
    sd["default_min_lr"] = None
    with pytest.raises(InvalidParameterError, match=r"min_lrs has 2 entries; expected one per"):
        s.load_state_dict(sd)
    assert s.patience == 3 and s.mode == "min"


def test_sequentiallr_checks_every_scheduler_before_restoring_any():
    opt = _sgd()
    a, b = optim.StepLR(opt, 2), optim.ExponentialLR(opt, 0.5)
    s = optim.SequentialLR(opt, [a, b], milestones=[3])
    sd = s.state_dict()
    sd["last_epoch"] = 5
    sd["_schedulers"][0]["last_epoch"] = 9
    sd["_schedulers"][1]["gamma"] = -1.0
    before = [_fields(x) for x in (s, a, b)]
    with pytest.raises(InvalidParameterError, match=r"ExponentialLR.load_state_dict: gamma is -1"):
        s.load_state_dict(sd)
    assert [_fields(x) for x in (s, a, b)] == before
    sd["_schedulers"][1]["gamma"] = 0.25
    sd["_milestones"] = [3, 4]
    with pytest.raises(InvalidParameterError, match=r"_milestones is \[3, 4\]; expected a list "
                                                    r"of 1 epochs"):
        s.load_state_dict(sd)
    sd["_milestones"] = [4]
    s.load_state_dict(sd)
    assert (s.last_epoch, a.last_epoch, b.gamma, s._milestones) == (5, 9, 0.25, [4])


def test_onecyclelr_needs_the_group_keys_it_uses():
    p = ember.ones(1).require_grad()
    saved = optim.OneCycleLR(optim.SGD([p], lr=1.0, momentum=0.9), 1.0, total_steps=10)
    plain = optim.SGD([p], lr=1.0, momentum=0.9)
    s = optim.OneCycleLR(plain, 1.0, total_steps=10, cycle_momentum=False)
    del plain.param_groups[0]["initial_lr"]
    before = _fields(s)
    with pytest.raises(InvalidParameterError, match=r"parameter group 0 has no \['base_momentum'"
                                                     r", 'initial_lr', 'max_momentum'\]"):
        s.load_state_dict(saved.state_dict())
    assert _fields(s) == before
