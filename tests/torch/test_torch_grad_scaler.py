"""Tests of ember.torch.amp.GradScaler against torch.amp.GradScaler on the CPU: the scale
sequence, growth tracker, skipped steps and parameters over a training loop with injected infs
and NaNs, unscale_ before clipping, update(new_scale), state_dict round trips, the disabled
scaler, scaled outputs' dtypes, and the errors of a misused scaler."""

import pickle

import numpy as np
import pytest
import torch

import ember.torch as et
from oracle import assert_close


def _pair(seed=0, n=3):
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal((n, 2)).astype(np.float32)
    we = et.nn.Parameter(et.tensor(w0))
    wt = torch.nn.Parameter(torch.tensor(w0))
    return we, wt


def _loop(mod, w, scaler, opt, poison, x):
    """One scaled step per entry of ``poison`` (None, "inf" or "nan" times the loss)."""
    out = []
    for p in poison:
        opt.zero_grad()
        loss = (mod.tensor(x) @ w).pow(2).sum()
        if p is not None:
            loss = loss * float(p)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        out.append((scaler.get_scale(), scaler._get_growth_tracker(),
                    w.detach().numpy().copy()))
    return out


POISON = [None, None, "inf", None, None, None, "nan", None, None, None, None, "inf", "inf",
          None]


@pytest.mark.parametrize("kw", [dict(init_scale=2.0 ** 10, growth_interval=3),
                                dict(init_scale=100.0, growth_factor=1.7, backoff_factor=0.3,
                                     growth_interval=2),
                                dict(init_scale=3.0, growth_interval=1)])
@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_scale_sequence_and_steps_match_torch(kw, opt):
    we, wt = _pair()
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    se, st = et.amp.GradScaler("cpu", **kw), torch.amp.GradScaler("cpu", **kw)
    oe = getattr(et.optim, opt)([we], lr=0.01)
    ot = getattr(torch.optim, opt)([wt], lr=0.01)
    got = _loop(et, we, se, oe, POISON, x)
    ref = _loop(torch, wt, st, ot, POISON, x)
    for (s1, g1, w1), (s2, g2, w2) in zip(got, ref):
        assert s1 == s2 and g1 == g2
        np.testing.assert_allclose(w1, w2, rtol=1e-5, atol=1e-6)
    assert se.state_dict() == st.state_dict()


def test_scale_does_not_grow_past_float32():
    for mod in (et, torch):
        w = mod.nn.Parameter(mod.ones(1))
        s = mod.amp.GradScaler("cpu", init_scale=3e38, growth_interval=1)
        opt = mod.optim.SGD([w], lr=0.0)
        s.scale(w.sum() * 1e-38).backward()
        s.step(opt)
        s.update()
        if mod is torch:
            assert s.get_scale() == got
        else:
            got = s.get_scale()
    assert got == pytest.approx(3e38, rel=1e-6)


def test_unscale_then_clip_matches_torch():
    we, wt = _pair(2)
    x = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)
    for mod, w in ((et, we), (torch, wt)):
        s = mod.amp.GradScaler("cpu", init_scale=512.0)
        opt = mod.optim.SGD([w], lr=0.1)
        s.scale((mod.tensor(x) @ w).pow(2).sum()).backward()
        scaled = w.grad.detach().numpy().copy()
        s.unscale_(opt)
        unscaled = w.grad.detach().numpy().copy()
        mod.nn.utils.clip_grad_norm_([w], 1.0)
        s.step(opt)
        s.update()
        if mod is torch:
            np.testing.assert_allclose(got[0], scaled, rtol=1e-5)
            np.testing.assert_allclose(got[1], unscaled, rtol=1e-6)
            assert_close(we, wt, rtol=1e-5)
        else:
            got = (scaled, unscaled)


def test_several_optimizers_share_one_update_like_torch():
    res = []
    for mod in (et, torch):
        a, b = mod.nn.Parameter(mod.ones(2)), mod.nn.Parameter(mod.ones(2))
        oa, ob = mod.optim.SGD([a], lr=0.1), mod.optim.SGD([b], lr=0.1)
        s = mod.amp.GradScaler("cpu", init_scale=8.0, growth_interval=1)
        seq = []
        for bad in (False, True, False):
            oa.zero_grad(), ob.zero_grad()
            loss = a.sum() + b.sum() * (float("inf") if bad else 1.0)
            s.scale(loss).backward()
            s.step(oa), s.step(ob)
            s.update()
            seq.append((s.get_scale(), a.tolist(), b.tolist()))
        res.append(seq)
    assert res[0] == res[1]


@pytest.mark.parametrize("new_scale", [5.0, "tensor"])
def test_update_with_new_scale_like_torch(new_scale):
    for mod in (et, torch):
        s = mod.amp.GradScaler("cpu")
        s.scale(mod.ones(1))
        s.update(mod.tensor(7.0) if new_scale == "tensor" else new_scale)
        if mod is torch:
            assert s.get_scale() == got
        else:
            got = s.get_scale()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
def test_scaled_outputs_keep_torch_dtypes(dtype):
    x = np.array([1.5, -2.0], np.float32)
    out = []
    for mod in (et, torch):
        s = mod.amp.GradScaler("cpu", init_scale=4.0)
        t = mod.tensor(x).to(getattr(mod, dtype))
        one = s.scale(t)
        many = s.scale([t, (t, t)])
        out.append((str(one.dtype).replace("torch.", ""), one.float().tolist(), type(many),
                    type(many[1]), many[1][0].float().tolist()))
    assert out[0][0] == out[1][0] == dtype
    assert out[0][1:] == out[1][1:] == ([6.0, -8.0], list, tuple, [6.0, -8.0])


def test_state_dict_round_trip_and_pickle_like_torch():
    for mod in (et, torch):
        a = mod.amp.GradScaler("cpu", init_scale=16.0, growth_factor=3.0, backoff_factor=0.25,
                               growth_interval=5)
        w = mod.nn.Parameter(mod.ones(1))
        opt = mod.optim.SGD([w], lr=0.1)
        for _ in range(2):
            a.scale(w.sum()).backward()
            a.step(opt)
            a.update()
        b = mod.amp.GradScaler("cpu")
        b.load_state_dict(a.state_dict())
        c = pickle.loads(pickle.dumps(a))
        state = (a.state_dict(), b.state_dict(), c.state_dict(), b.get_growth_factor(),
                 b.get_backoff_factor(), b.get_growth_interval())
        if mod is torch:
            assert state == got
        else:
            got = state
    assert got[0]["_growth_tracker"] == 2


def test_setters_and_getters_like_torch():
    for mod in (et, torch):
        s = mod.amp.GradScaler("cpu")
        s.set_growth_factor(4.0), s.set_backoff_factor(0.125), s.set_growth_interval(7)
        vals = (s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval(),
                s.get_scale(), s.is_enabled())
        if mod is torch:
            assert vals == got
        else:
            got = vals


def test_disabled_scaler_passes_through_like_torch():
    for mod in (et, torch):
        s = mod.amp.GradScaler("cpu", enabled=False)
        w = mod.nn.Parameter(mod.ones(2))
        opt = mod.optim.SGD([w], lr=0.5)
        loss = w.sum()
        assert s.scale(loss) is loss
        loss.backward()
        s.unscale_(opt)
        s.step(opt)
        s.update()
        vals = (w.tolist(), s.get_scale(), s.state_dict(), s.is_enabled())
        if mod is torch:
            assert vals == got
        else:
            got = vals
    assert et.GradScaler is et.amp.GradScaler


@pytest.mark.half_precision
def test_misuse_raises_like_torch():
    for mod in (et, torch):
        w = mod.nn.Parameter(mod.ones(1))
        opt = mod.optim.SGD([w], lr=0.1)
        s = mod.amp.GradScaler("cpu")
        with pytest.raises((RuntimeError, AssertionError)):
            s.update()  # nothing scaled yet
        s.scale(w.sum()).backward()
        s.unscale_(opt)
        with pytest.raises(RuntimeError):
            s.unscale_(opt)
        s.step(opt)
        with pytest.raises(RuntimeError):
            s.step(opt)
        with pytest.raises(RuntimeError):
            s.unscale_(opt)
        with pytest.raises(RuntimeError):
            s.step(opt, closure=lambda: 0)
        s.update()
        with pytest.raises((RuntimeError, ValueError)):
            mod.amp.GradScaler("cpu").load_state_dict({})
        with pytest.raises(ValueError):
            s.scale(3)
        h = mod.nn.Parameter(mod.ones(1, dtype=mod.float16))
        oh = mod.optim.SGD([h], lr=0.1)
        s.scale(h.float().sum()).backward()
        with pytest.raises(ValueError):
            s.unscale_(oh)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError):
        et.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(ValueError):
        et.amp.GradScaler("cpu", backoff_factor=1.5)
    with pytest.raises(ValueError):
        et.amp.GradScaler("cpu", growth_interval=0)
    with pytest.raises(TypeError):
        et.amp.GradScaler("cpu", enabled="yes")
