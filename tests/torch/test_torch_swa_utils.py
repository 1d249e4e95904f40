"""ember.torch.optim.swa_utils against torch.optim.swa_utils: AveragedModel's averages (SWA,
EMA, user functions, buffers) after N updates, SWALR's learning rates over 100 steps, update_bn's
running statistics, state_dict layouts and typed errors."""

import math

import numpy as np
import pytest
import torch

import ember.torch as et
from ember import InvalidParameterError
from ember.torch.optim import swa_utils as S

TS = torch.optim.swa_utils


def _models(seed=0, conv=False):
    """A torch model with BatchNorm and the same model in ember.torch (torch's weights)."""
    def make(nn):
        if conv:
            return nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3, momentum=0.3), nn.ReLU(),
                                 nn.Flatten(), nn.Linear(12, 2))
        return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 2),
                             nn.BatchNorm1d(2, momentum=None))
    torch.manual_seed(seed)
    tm = make(torch.nn).double()
    em = make(et.nn).double()
    em.load_state_dict({k: et.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return tm, em


def _perturb(tm, em, rng, x):
    """The same new weights in both models, and one training forward (new BN statistics)."""
    for (_, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
        value = rng.standard_normal(tuple(tp.shape))
        with torch.no_grad():
            tp.copy_(torch.tensor(value))
        with et.no_grad():
            ep.copy_(et.tensor(value))
    tm(torch.tensor(x))
    em(et.tensor(x))


def _assert_state_close(estate, tstate, tol=1e-10):
    assert list(estate) == list(tstate)
    for k, t in tstate.items():
        e = estate[k]
        assert str(e.dtype).replace("torch.", "") == str(t.dtype).replace("torch.", ""), k
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol,
                                   err_msg=k)


AVERAGING = {
    "swa": ({}, {}),
    "ema_multi": ({"multi_avg_fn": TS.get_ema_multi_avg_fn(0.9)},
                  {"multi_avg_fn": S.get_ema_multi_avg_fn(0.9)}),
    "ema": ({"avg_fn": TS.get_ema_avg_fn(0.7)}, {"avg_fn": S.get_ema_avg_fn(0.7)}),
    "swa_fn": ({"avg_fn": TS.get_swa_avg_fn()}, {"avg_fn": S.get_swa_avg_fn()}),
    "swa_multi": ({"multi_avg_fn": TS.get_swa_multi_avg_fn()},
                  {"multi_avg_fn": S.get_swa_multi_avg_fn()}),
}


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("how", list(AVERAGING))
@pytest.mark.parametrize("updates", [1, 2, 7])
def test_averaged_model_matches_torch(how, use_buffers, updates):
    if how == "swa_multi" and use_buffers and updates > 1:
        pytest.skip("torch 2.13's get_swa_multi_avg_fn raises on BatchNorm's integer "
                    "num_batches_tracked (its integer addcdiv); ember averages it as the default")
    rng = np.random.default_rng(updates)
    tm, em = _models()
    tkw, ekw = AVERAGING[how]
    ta = TS.AveragedModel(tm, use_buffers=use_buffers, **tkw)
    ea = S.AveragedModel(em, use_buffers=use_buffers, **ekw)
    for i in range(updates):
        x = rng.standard_normal((5, 3)) * (i + 1)
        _perturb(tm, em, rng, x)
        ta.update_parameters(tm)
        ea.update_parameters(em)
    _assert_state_close(ea.state_dict(), ta.state_dict())
    assert ea.n_averaged.item() == ta.n_averaged.item() == updates
    x = rng.standard_normal((4, 3))
    ta.eval()
    ea.eval()
    np.testing.assert_allclose(ea(et.tensor(x)).detach().numpy(),
                               ta(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-10)


def test_averaged_model_is_a_copy():
    tm, em = _models()
    ea = S.AveragedModel(em)
    assert ea.module is not em and ea.module[0].weight is not em[0].weight
    np.testing.assert_array_equal(ea.module[0].weight.detach().numpy(),
                                  em[0].weight.detach().numpy())
    assert [n for n, _ in ea.named_parameters()] == \
        [n for n, _ in TS.AveragedModel(tm).named_parameters()]
    assert isinstance(ea, et.nn.Module) and ea.n_averaged.dtype == et.int64


def test_averaged_model_device_argument():
    tm, em = _models()
    ea = S.AveragedModel(em, device=em[0].weight.device)
    ea.update_parameters(em)
    np.testing.assert_array_equal(ea.module[0].weight.detach().numpy(),
                                  em[0].weight.detach().numpy())


def test_user_avg_fn_gets_torchs_arguments():
    seen = {}

    def mean_of_extremes(avg, cur, n):
        seen.setdefault("types", (type(avg).__name__, type(n).__name__, int(n)))
        return (avg + cur) / 2

    tm, em = _models()
    ta = TS.AveragedModel(tm, avg_fn=lambda a, c, n: (a + c) / 2)
    ea = S.AveragedModel(em, avg_fn=mean_of_extremes)
    rng = np.random.default_rng(3)
    for _ in range(3):
        _perturb(tm, em, rng, rng.standard_normal((5, 3)))
        ta.update_parameters(tm)
        ea.update_parameters(em)
    assert seen["types"] == ("Tensor", "Tensor", 1)
    _assert_state_close(ea.state_dict(), ta.state_dict())


@pytest.mark.parametrize("kwargs,match", [
    ({"avg_fn": 3}, r"avg_fn must be None or a function"),
    ({"multi_avg_fn": "x"}, r"multi_avg_fn must be None or a function"),
    ({"use_buffers": 1}, r"use_buffers must be a bool"),
])
def test_averaged_model_bad_arguments(kwargs, match):
    _, em = _models()
    with pytest.raises(InvalidParameterError, match=match):
        S.AveragedModel(em, **kwargs)
    with pytest.raises(InvalidParameterError, match=r"model must be an ember.torch.nn.Module"):
        S.AveragedModel([1, 2])


def test_update_parameters_of_another_model_is_refused():
    _, em = _models()
    ea = S.AveragedModel(em)
    with pytest.raises(InvalidParameterError, match=r"model has 2 tensors to average"):
        ea.update_parameters(et.nn.Linear(2, 2))
    assert ea.n_averaged.item() == 0


@pytest.mark.parametrize("decay", [-0.1, 1.5, float("nan")])
def test_bad_decay(decay):
    for fn in (S.get_ema_avg_fn, S.get_ema_multi_avg_fn):
        with pytest.raises(InvalidParameterError, match=r"decay is"):
            fn(decay)


# -- SWALR ------------------------------------------------------------------------------------

def _sgd_pair(lrs=(1.0,)):
    tp = [torch.zeros(1, requires_grad=True) for _ in lrs]
    ep = [et.zeros(1, requires_grad=True) for _ in lrs]
    groups = lambda ps: [{"params": [p], "lr": lr} for p, lr in zip(ps, lrs)]  # noqa: E731
    return torch.optim.SGD(groups(tp), lr=0.5), et.optim.SGD(groups(ep), lr=0.5)


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("epochs", [0, 1, 5, 10, 30])
@pytest.mark.parametrize("lrs,swa", [((1.0,), 0.05), ((0.3, 2.0), [0.1, 0.01]),
                                     ((0.01,), 0.5)])
def test_swalr_sequence_matches_torch(strategy, epochs, lrs, swa):
    to, eo = _sgd_pair(lrs)
    ts = TS.SWALR(to, swa_lr=swa, anneal_epochs=epochs, anneal_strategy=strategy)
    es = S.SWALR(eo, swa_lr=swa, anneal_epochs=epochs, anneal_strategy=strategy)
    for _ in range(100):
        np.testing.assert_allclose(es.get_last_lr(), ts.get_last_lr(), rtol=1e-12, atol=0)
        to.step()
        eo.step()
        ts.step()
        es.step()
    assert [g["swa_lr"] for g in eo.param_groups] == [g["swa_lr"] for g in to.param_groups]


def test_swalr_after_another_schedule_as_torchs_example():
    to, eo = _sgd_pair((0.8,))
    tsched = torch.optim.lr_scheduler.MultiplicativeLR(to, lambda epoch: 0.9)
    esched = et.optim.lr_scheduler.MultiplicativeLR(eo, lambda epoch: 0.9)
    tswa = TS.SWALR(to, anneal_strategy="linear", anneal_epochs=20, swa_lr=0.05)
    eswa = S.SWALR(eo, anneal_strategy="linear", anneal_epochs=20, swa_lr=0.05)
    for i in range(100):
        to.step()
        eo.step()
        if i > 40:
            tswa.step()
            eswa.step()
        else:
            tsched.step()
            esched.step()
        assert eo.param_groups[0]["lr"] == pytest.approx(to.param_groups[0]["lr"], rel=1e-12)


def test_swalr_state_dict_is_torchs_and_resumes():
    to, eo = _sgd_pair((1.0, 0.5))
    ts = TS.SWALR(to, swa_lr=0.1, anneal_epochs=6)
    es = S.SWALR(eo, swa_lr=0.1, anneal_epochs=6)
    for _ in range(3):
        to.step()
        ts.step()
        es.step()
    tsd, esd = ts.state_dict(), es.state_dict()
    assert set(esd) == set(tsd) - {"_get_lr_called_within_step"}
    for k in esd:
        assert esd[k] == tsd[k], k
    _, eo2 = _sgd_pair((1.0, 0.5))
    es2 = S.SWALR(eo2, swa_lr=0.1, anneal_epochs=6)
    es2.load_state_dict(tsd)
    for g2, g in zip(eo2.param_groups, eo.param_groups):
        g2["lr"] = g["lr"]
    for _ in range(5):
        es.step()
        es2.step()
        assert es2.get_last_lr() == es.get_last_lr()
    with pytest.raises(InvalidParameterError, match=r"_anneal_strategy is 'x'"):
        es2.load_state_dict({**tsd, "_anneal_strategy": "x"})


@pytest.mark.parametrize("kwargs,match", [
    ({"swa_lr": -0.1}, r"swa_lr is -0.1"),
    ({"swa_lr": [0.1, 0.2]}, r"swa_lr has 2 entries; expected one per parameter group \(1\)"),
    ({"swa_lr": 0.1, "anneal_epochs": -1}, r"anneal_epochs is -1; expected an int >= 0"),
    ({"swa_lr": 0.1, "anneal_epochs": 1.5}, r"anneal_epochs must be an int"),
    ({"swa_lr": 0.1, "anneal_strategy": "x"}, r"anneal_strategy is 'x'; expected 'cos' or"),
])
def test_swalr_bad_arguments(kwargs, match):
    _, eo = _sgd_pair()
    with pytest.raises(InvalidParameterError, match=match):
        S.SWALR(eo, **kwargs)
    assert "swa_lr" not in eo.param_groups[0] and eo.param_groups[0]["lr"] == 1.0
    with pytest.raises(InvalidParameterError, match=r"optimizer must be"):
        S.SWALR("opt", swa_lr=0.1)


# -- update_bn --------------------------------------------------------------------------------

@pytest.mark.parametrize("conv", [False, True])
@pytest.mark.parametrize("batch_kind", ["tensor", "tuple", "list"])
def test_update_bn_matches_torch(conv, batch_kind):
    rng = np.random.default_rng(5)
    tm, em = _models(conv=conv)
    shape = (4, 2, 4, 4) if conv else (6, 3)
    data = [rng.standard_normal(shape) * (i + 1) + i for i in range(5)]
    for m, lib in ((tm, torch), (em, et)):
        m(lib.tensor(data[0]))  # stale statistics that update_bn must reset
        m.eval()

    def loader(lib):
        for x in data:
            t = lib.tensor(x)
            yield {"tensor": t, "tuple": (t, lib.zeros(1)), "list": [t, 0]}[batch_kind]

    TS.update_bn(loader(torch), tm)
    S.update_bn(loader(et), em, device=em[0].weight.device if conv else None)
    _assert_state_close(em.state_dict(), tm.state_dict())
    assert not em.training and not tm.training
    momenta = [m.momentum for m in em.modules() if isinstance(m, et.nn.BatchNorm1d) or
               isinstance(m, et.nn.BatchNorm2d)]
    assert momenta == [m.momentum for m in tm.modules()
                       if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]


def test_update_bn_of_an_averaged_model():
    rng = np.random.default_rng(6)
    tm, em = _models()
    ta, ea = TS.AveragedModel(tm), S.AveragedModel(em)
    for _ in range(3):
        _perturb(tm, em, rng, rng.standard_normal((5, 3)))
        ta.update_parameters(tm)
        ea.update_parameters(em)
    data = [rng.standard_normal((8, 3)) for _ in range(4)]
    TS.update_bn([torch.tensor(x) for x in data], ta)
    S.update_bn([et.tensor(x) for x in data], ea)
    _assert_state_close(ea.state_dict(), ta.state_dict())
    assert ea.training and ta.training


def test_update_bn_leaves_a_model_without_batchnorm_and_instancenorm():
    model = et.nn.Sequential(et.nn.Linear(2, 2), et.nn.InstanceNorm1d(2, track_running_stats=True))
    model.eval()
    before = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    S.update_bn([et.ones(3, 2, 4)], model)
    assert not model.training
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.detach().numpy(), before[k])
    tmodel = torch.nn.InstanceNorm1d(2, track_running_stats=True).eval()
    TS.update_bn([torch.ones(3, 2, 4)], tmodel)
    assert tmodel.running_mean.tolist() == [0.0, 0.0]


def test_update_bn_bad_model():
    with pytest.raises(InvalidParameterError, match=r"update_bn: model must be"):
        S.update_bn([], "model")


def test_exported_as_torch():
    assert et.optim.swa_utils is S
    for name in S.__all__:
        assert hasattr(TS, name)
    assert math.isclose(S.get_ema_avg_fn(0.5)(et.tensor(0.0), et.tensor(2.0), 1).item(), 1.0)
