"""ConstantLR, MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR and
ChainedScheduler against torch.optim.lr_scheduler: learning-rate (and momentum) sequences over
100 steps with two parameter groups, torch's state_dict keys, state_dict round trips, inside
SequentialLR, and bad arguments."""

import numpy as np
import pytest
import torch

import ember
from ember import InvalidParameterError, optim
from ember.optim import lr_scheduler as L

TL = torch.optim.lr_scheduler
STEPS = 100


def _pair(ecls=optim.SGD, tcls=torch.optim.SGD, lrs=(0.1, 0.02), **kwargs):
    ep = [ember.ones(1).require_grad() for _ in lrs]
    tp = [torch.ones(1, requires_grad=True) for _ in lrs]
    eo = ecls([{"params": [p], "lr": lr} for p, lr in zip(ep, lrs)], lr=1.0, **kwargs)
    to = tcls([{"params": [p], "lr": lr} for p, lr in zip(tp, lrs)], lr=1.0, **kwargs)
    return eo, to


def _sequences(make_e, make_t, steps=STEPS, eo_to=None, epochs=None):
    """Step both schedulers; the rates (and momenta) of every step, and the schedulers."""
    eo, to = eo_to or _pair(momentum=0.5)
    es, ts = make_e(eo), make_t(to)
    got, want = [es.get_last_lr()], [ts.get_last_lr()]
    moms = []
    for i in range(steps):
        eo.step()
        to.step()
        if epochs is None:
            es.step()
            ts.step()
        else:
            es.step(epochs[i])
            ts.step(epochs[i])
        got.append(es.get_last_lr())
        want.append(ts.get_last_lr())
        assert [g["lr"] for g in eo.param_groups] == got[-1]
        moms.append(([g.get("momentum") for g in eo.param_groups],
                     [g.get("momentum") for g in to.param_groups]))
    return np.array(got), np.array(want, dtype=np.float64), moms, es, ts


def _lam(e):
    return 0.9 if e % 3 else 1.05


CASES = [
    (L.ConstantLR, TL.ConstantLR, {}),
    (L.ConstantLR, TL.ConstantLR, {"factor": 0.5, "total_iters": 3}),
    (L.ConstantLR, TL.ConstantLR, {"factor": 1.0, "total_iters": 1}),
    (L.ConstantLR, TL.ConstantLR, {"factor": 0.25, "total_iters": 0}),
    (L.MultiplicativeLR, TL.MultiplicativeLR, {"lr_lambda": lambda e: 0.95}),
    (L.MultiplicativeLR, TL.MultiplicativeLR, {"lr_lambda": [_lam, lambda e: 1.0 / (e + 1)]}),
    (L.PolynomialLR, TL.PolynomialLR, {}),
    (L.PolynomialLR, TL.PolynomialLR, {"total_iters": 25, "power": 2.0}),
    (L.PolynomialLR, TL.PolynomialLR, {"total_iters": 1, "power": 0.5}),
    (L.CosineAnnealingWarmRestarts, TL.CosineAnnealingWarmRestarts, {"T_0": 5}),
    (L.CosineAnnealingWarmRestarts, TL.CosineAnnealingWarmRestarts,
     {"T_0": 3, "T_mult": 2, "eta_min": 0.001}),
    (L.CosineAnnealingWarmRestarts, TL.CosineAnnealingWarmRestarts, {"T_0": 1}),
    (L.CyclicLR, TL.CyclicLR, {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}),
    (L.CyclicLR, TL.CyclicLR, {"base_lr": [0.01, 0.001], "max_lr": [0.1, 0.05],
                               "step_size_up": 3, "step_size_down": 5, "mode": "triangular2"}),
    (L.CyclicLR, TL.CyclicLR, {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 5,
                               "mode": "exp_range", "gamma": 0.97}),
    (L.CyclicLR, TL.CyclicLR, {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2,
                               "scale_fn": lambda x: 1 / x, "scale_mode": "cycle",
                               "base_momentum": 0.5, "max_momentum": 0.95}),
    (L.CyclicLR, TL.CyclicLR, {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3,
                               "scale_fn": lambda x: 0.99 ** x, "scale_mode": "iterations",
                               "cycle_momentum": False}),
]
IDS = [f"{e.__name__}-{i}" for i, (e, *_rest) in enumerate(CASES)]


@pytest.mark.parametrize("ecls,tcls,kwargs", CASES, ids=IDS)
def test_rates_match_torch(ecls, tcls, kwargs):
    got, want, moms, es, ts = _sequences(lambda o: ecls(o, **kwargs), lambda o: tcls(o, **kwargs))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    for em, tm in moms:
        np.testing.assert_allclose(np.array(em, dtype=float), np.array(tm, dtype=float),
                                   rtol=1e-12)
    esd, tsd = es.state_dict(), ts.state_dict()
    assert set(esd) == set(tsd) - {"_get_lr_called_within_step"}
    for k, v in tsd.items():
        if k in ("_get_lr_called_within_step", "lr_lambdas", "_scale_fn_custom"):
            continue
        if isinstance(v, (str, bool)):
            assert esd[k] == v, k
        else:
            assert esd[k] == pytest.approx(v, rel=1e-12), k


def test_cyclic_lr_cycles_adam_beta1_as_torch():
    eo, to = _pair(optim.Adam, torch.optim.Adam)
    kwargs = {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 3}
    got, want, _, _, _ = _sequences(lambda o: L.CyclicLR(o, **kwargs),
                                    lambda o: TL.CyclicLR(o, **kwargs), eo_to=(eo, to))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose([g["betas"] for g in eo.param_groups],
                               [g["betas"] for g in to.param_groups], rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{"T_0": 4}, {"T_0": 2, "T_mult": 3, "eta_min": 0.01}])
def test_warm_restarts_with_fractional_epochs(kwargs):
    epochs = [e + i / 4 for e in range(10) for i in range(4)]
    got, want, _, es, ts = _sequences(lambda o: L.CosineAnnealingWarmRestarts(o, **kwargs),
                                      lambda o: TL.CosineAnnealingWarmRestarts(o, **kwargs),
                                      steps=len(epochs), epochs=epochs)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert es.last_epoch == ts.last_epoch and es.T_cur == pytest.approx(ts.T_cur)


def test_chained_scheduler_matches_torch():
    def make(mod):
        def f(o):
            return mod.ChainedScheduler([mod.ConstantLR(o, factor=0.5, total_iters=4),
                                         mod.ExponentialLR(o, gamma=0.9),
                                         mod.PolynomialLR(o, total_iters=30, power=0.5)])
        return f
    got, want, _, es, ts = _sequences(make(L), make(TL))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    esd, tsd = es.state_dict(), ts.state_dict()
    assert set(esd) == set(tsd)
    for a, b in zip(esd["_schedulers"], tsd["_schedulers"]):
        assert set(a) == set(b) - {"_get_lr_called_within_step"}


@pytest.mark.parametrize("make", [
    lambda m, o: m.SequentialLR(o, [m.ConstantLR(o, factor=0.5, total_iters=2),
                                    m.PolynomialLR(o, total_iters=10, power=2.0)], [5]),
    lambda m, o: m.SequentialLR(o, [m.ExponentialLR(o, 0.9),
                                    m.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2)], [6]),
    lambda m, o: m.SequentialLR(o, [m.MultiplicativeLR(o, lambda e: 0.8),
                                    m.ConstantLR(o, factor=0.3, total_iters=3)], [4]),
])
def test_inside_sequential_lr_as_torch(make):
    got, want, _, _, _ = _sequences(lambda o: make(L, o), lambda o: make(TL, o))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


class _Scale:
    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** x


@pytest.mark.parametrize("make", [
    lambda o: L.ConstantLR(o, factor=0.5, total_iters=7),
    lambda o: L.MultiplicativeLR(o, _Scale()),
    lambda o: L.PolynomialLR(o, total_iters=12, power=1.5),
    lambda o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
    lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2"),
    lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3, scale_fn=_Scale()),
    lambda o: L.ChainedScheduler([L.ConstantLR(o), L.ExponentialLR(o, 0.9)]),
])
def test_state_dict_round_trip_resumes(make):
    opt, _ = _pair(momentum=0.5)
    s = make(opt)
    for _ in range(5):
        s.step()
    saved, saved_opt = s.state_dict(), opt.state_dict()
    rest = []
    for _ in range(10):
        s.step()
        rest.append(s.get_last_lr())
    opt2, _ = _pair(momentum=0.5)
    s2 = make(opt2)
    opt2.load_state_dict(saved_opt)
    s2.load_state_dict(saved)
    again = []
    for _ in range(10):
        s2.step()
        again.append(s2.get_last_lr())
    assert again == rest


def test_a_bad_saved_state_changes_nothing():
    opt, _ = _pair(momentum=0.5)
    s = L.CyclicLR(opt, 0.01, 0.1, step_size_up=3)
    before = s.state_dict()
    for bad, match in [({**before, "total_size": 0.0}, "total_size is 0.0"),
                       ({**before, "scale_mode": "epochs"}, "scale_mode is 'epochs'"),
                       ({**before, "mode": "square"}, "mode is 'square'"),
                       ({**before, "nonsense": 1}, "'nonsense'")]:
        with pytest.raises(InvalidParameterError, match=match):
            s.load_state_dict(bad)
        assert s.state_dict() == before
    c = L.ChainedScheduler([L.ConstantLR(opt), L.ExponentialLR(opt, 0.9)])
    sd = c.state_dict()
    with pytest.raises(InvalidParameterError, match="gamma is -1"):
        c.load_state_dict({**sd, "_schedulers": [sd["_schedulers"][0],
                                                  {**sd["_schedulers"][1], "gamma": -1}]})
    assert c.state_dict() == sd


def _opt(**kwargs):
    return optim.SGD([ember.ones(1).require_grad()], lr=0.1, **kwargs)


@pytest.mark.parametrize("make,match", [
    (lambda: L.ConstantLR(_opt(), factor=1.5), r"ConstantLR: factor is 1.5"),
    (lambda: L.ConstantLR(_opt(), factor=-0.1), r"factor is -0.1"),
    (lambda: L.ConstantLR(_opt(), total_iters=-1), r"total_iters is -1"),
    (lambda: L.ConstantLR("opt"), r"optimizer must be an ember.optim optimizer"),
    (lambda: L.MultiplicativeLR(_opt(), 0.9), r"lr_lambda\[0\] is a float"),
    (lambda: L.MultiplicativeLR(_opt(), [abs, abs]), r"lr_lambda has 2 functions"),
    (lambda: L.PolynomialLR(_opt(), total_iters=0), r"PolynomialLR: total_iters is 0"),
    (lambda: L.PolynomialLR(_opt(), power=-1.0), r"power is -1.0"),
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), T_0=0), r"T_0 is 0"),
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), T_0=2.5), r"T_0 must be an int"),
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), T_0=2, T_mult=0), r"T_mult is 0"),
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), T_0=2, eta_min="a"), r"eta_min must be a"),
    (lambda: L.CosineAnnealingWarmRestarts(_opt(), 2).step(-1), r"epoch is -1"),
    (lambda: L.CyclicLR(_opt(momentum=0.9), -0.1, 1.0), r"CyclicLR: base_lr is -0.1"),
    (lambda: L.CyclicLR(_opt(momentum=0.9), 0.1, [1.0, 2.0]), r"max_lr has 2 entries"),
    (lambda: L.CyclicLR(_opt(momentum=0.9), 0.1, 1.0, step_size_up=0), r"step_size_up is 0"),
    (lambda: L.CyclicLR(_opt(momentum=0.9), 0.1, 1.0, mode="sine"), r"mode is 'sine'"),
    (lambda: L.CyclicLR(_opt(momentum=0.9), 0.1, 1.0, scale_fn=3), r"scale_fn is a int"),
    (lambda: L.CyclicLR(_opt(momentum=0.9), 0.1, 1.0, scale_fn=abs, scale_mode="x"),
     r"scale_mode is 'x'"),
    (lambda: L.CyclicLR(optim.Adagrad([ember.ones(1).require_grad()]), 0.1, 1.0),
     r"cycle_momentum=True needs an optimizer with momentum or betas"),
    (lambda: L.ChainedScheduler([]), r"schedulers must be a non-empty list"),
    (lambda: L.ChainedScheduler([L.ReduceLROnPlateau(_opt())]), r"ReduceLROnPlateau"),
    (lambda: L.ChainedScheduler([L.ConstantLR(_opt()), L.ConstantLR(_opt())]),
     r"belongs to another optimizer"),
])
def test_bad_arguments(make, match):
    with pytest.raises(InvalidParameterError, match=match):
        make()


def test_exported_as_torch():
    names = ["ConstantLR", "MultiplicativeLR", "PolynomialLR", "CosineAnnealingWarmRestarts",
             "CyclicLR", "ChainedScheduler"]
    for name in names:
        assert getattr(L, name) is getattr(optim, name)
        assert name in L.__all__ and hasattr(TL, name)
        assert issubclass(getattr(L, name), L.LRScheduler)
    import ember.torch
    assert ember.torch.optim.lr_scheduler.CyclicLR is L.CyclicLR
