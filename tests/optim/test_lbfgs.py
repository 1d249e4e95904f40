"""LBFGS against torch.optim.LBFGS: the Rosenbrock function and a quadratic with both line-search
modes, several parameters of different shapes (0-d among them), the MLP with a closure (the
time-series example's lr=0.8), torch's state_dict layout, round trips, and bad input."""

import numpy as np
import pytest
import torch

import ember
from ember import DeviceError, InvalidParameterError, ShapeMismatchError, optim
from test_optim import _ember_loss, _problem, _torch_loss

E, T = optim.LBFGS, torch.optim.LBFGS


def _rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def _run(lib, params, loss_fn, kwargs, steps):
    """``steps`` LBFGS steps of ``loss_fn`` on ``lib``'s tensors made from ``params`` (NumPy
    arrays): the losses step() returned, the parameters after each step, the optimizer."""
    if lib is ember:
        ps = [ember.tensor(a).require_grad() for a in params]
        opt = E(ps, **kwargs)
    else:
        ps = [torch.tensor(a, requires_grad=True) for a in params]
        opt = T(ps, **kwargs)
    losses, values = [], []
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = loss_fn(ps)
            loss.backward()
            return loss
        losses.append(float(opt.step(closure).item()))
        values.append([np.array(p.detach().numpy() if lib is torch else p.numpy(), copy=True)
                       for p in ps])
    return losses, values, opt


def _compare(params, loss_fn, kwargs, steps, tol):
    el, ev, eo = _run(ember, params, loss_fn, kwargs, steps)
    tl, tv, to = _run(torch, params, loss_fn, kwargs, steps)
    np.testing.assert_allclose(el, tl, rtol=tol, atol=tol)
    for a, b in zip(ev, tv):
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol)
    return eo, to


ROSEN = [
    ({"line_search_fn": "strong_wolfe"}, 5, 1e-9),
    ({"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 7, "lr": 0.5}, 5, 1e-9),
    ({"line_search_fn": "strong_wolfe", "max_iter": 1}, 30, 1e-9),
    ({"line_search_fn": "strong_wolfe", "max_eval": 4}, 5, 1e-9),
    ({"lr": 0.5, "history_size": 3, "max_iter": 7}, 5, 1e-8),
    ({"max_iter": 1}, 20, 1e-8),
    ({"max_iter": 15, "tolerance_change": 1e-5}, 3, 1e-8),
]


@pytest.mark.parametrize("kwargs,steps,tol", ROSEN)
def test_rosenbrock_reaches_torchs_iterates(kwargs, steps, tol):
    eo, to = _compare([np.array([-1.5, 2.0])], lambda ps: _rosenbrock(ps[0]), kwargs, steps, tol)
    assert eo.state_dict()["state"][0]["func_evals"] == to.state_dict()["state"][0]["func_evals"]
    assert eo.state_dict()["state"][0]["n_iter"] == to.state_dict()["state"][0]["n_iter"]


def test_rosenbrock_strong_wolfe_converges():
    losses, values, _ = _run(ember, [np.array([-1.5, 2.0])], lambda ps: _rosenbrock(ps[0]),
                             {"line_search_fn": "strong_wolfe"}, 5)
    np.testing.assert_allclose(values[-1][0], [1.0, 1.0], atol=1e-5)


def _quadratic_data(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 8))
    h = (a @ a.T / 8 + np.eye(8)).astype(dtype)  # the 8 elements of the parameters
    params = [rng.standard_normal(()).astype(dtype), rng.standard_normal(3).astype(dtype),
              rng.standard_normal((2, 2)).astype(dtype), np.zeros((0, 2), dtype)]
    return params, h


def _quadratic(h, lib):
    hm = (ember.tensor(h) if lib is ember else torch.tensor(h))

    def loss(ps):
        x = (ember.cat if lib is ember else torch.cat)([p.reshape(-1) for p in ps])
        return 0.5 * (x * hm.matmul(x)).sum() - x[0] * 2.0 + x.sum() * 0.5
    return loss


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 2e-5)])
# Short runs: at convergence float32 rounding decides when a tolerance stops the iterations.
@pytest.mark.parametrize("kwargs", [{}, {"line_search_fn": "strong_wolfe", "max_iter": 3},
                                    {"lr": 0.3, "history_size": 2, "max_iter": 5},
                                    {"lr": 0.3, "history_size": 2, "line_search_fn":
                                     "strong_wolfe", "tolerance_grad": 1e-3}])
def test_quadratic_of_several_shapes_matches_torch(dtype, tol, kwargs):
    params, h = _quadratic_data(dtype)
    el, ev, _ = _run(ember, params, _quadratic(h, ember), kwargs, 3)
    tl, tv, _ = _run(torch, params, _quadratic(h, torch), kwargs, 3)
    np.testing.assert_allclose(el, tl, rtol=tol, atol=tol)
    for a, b in zip(ev, tv):
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_mlp_with_closure_as_the_time_series_example(line_search_fn):
    # the PyTorch time-series example: LBFGS(lr=0.8), a closure per step
    data = _problem(5)
    names = ("w", "b", "v")
    kwargs = {"lr": 0.8, "line_search_fn": line_search_fn}
    ex, tx = ember.tensor(data["x"]), torch.tensor(data["x"])
    el, ev, _ = _run(ember, [data[k] for k in names], lambda ps: _ember_loss(ps, ex), kwargs, 4)
    tl, tv, _ = _run(torch, [data[k] for k in names], lambda ps: _torch_loss(ps, tx), kwargs, 4)
    np.testing.assert_allclose(el, tl, rtol=1e-8, atol=1e-10)
    for x, y in zip(ev[-1], tv[-1]):
        np.testing.assert_allclose(x, y, rtol=1e-7, atol=1e-9)
    assert el[-1] < el[0]


def _as_numpy(v):
    if isinstance(v, torch.Tensor):
        return v.double().numpy()
    return np.asarray(v.numpy() if isinstance(v, ember.Tensor) else v, dtype=np.float64)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_state_dict_is_torchs(line_search_fn):
    kwargs = {"history_size": 4, "max_iter": 6, "line_search_fn": line_search_fn}
    eo, to = _compare([np.array([-1.5, 2.0]), np.array(0.5)],
                      lambda ps: _rosenbrock(ps[0]) + (ps[1] - 1.0) ** 2, kwargs, 2, 1e-9)
    esd, tsd = eo.state_dict(), to.state_dict()
    assert list(esd["state"]) == list(tsd["state"]) == [0]
    es, ts = esd["state"][0], tsd["state"][0]
    assert list(es) == list(ts)
    for k, v in ts.items():
        if isinstance(v, list):
            assert len(es[k]) == len(v), k
            for a, b in zip(es[k], v):
                assert (a is None) == (b is None), k
                if b is not None:
                    np.testing.assert_allclose(_as_numpy(a), _as_numpy(b), rtol=1e-8, atol=1e-12)
        else:
            np.testing.assert_allclose(_as_numpy(es[k]), _as_numpy(v), rtol=1e-8, atol=1e-12)
    eg, tg = esd["param_groups"][0], tsd["param_groups"][0]
    assert eg == tg
    assert E([ember.ones(1).require_grad()]).defaults == T([torch.ones(1)]).defaults


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_state_dict_round_trip_resumes_identically(line_search_fn):
    kwargs = {"history_size": 3, "max_iter": 4, "line_search_fn": line_search_fn}
    x0 = np.array([-1.5, 2.0])
    x = ember.tensor(x0).require_grad()
    opt = E([x], **kwargs)

    def steps(p, o, n):
        for _ in range(n):
            def closure():
                o.zero_grad()
                loss = _rosenbrock(p)
                loss.backward()
                return loss
            o.step(closure)

    steps(x, opt, 2)
    sd = opt.state_dict()
    y = ember.tensor(x.numpy().copy()).require_grad()
    fresh = E([y], history_size=10)
    fresh.load_state_dict(sd)
    assert fresh.param_groups[0]["history_size"] == 3
    steps(x, opt, 3)
    steps(y, fresh, 3)
    np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_bad_state_is_refused_and_changes_nothing():
    x = ember.tensor([-1.5, 2.0]).require_grad()
    opt = E([x], history_size=3)

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(x)
        loss.backward()
        return loss

    opt.step(closure)
    sd = opt.state_dict()
    st = sd["state"][0]
    fresh = E([ember.zeros(2).require_grad()])
    cases = [
        ({**st, "d": ember.ones(3)}, ShapeMismatchError, r"'d' has shape \(3,\)"),
        ({**st, "n_iter": -1}, InvalidParameterError, r"'n_iter' is -1"),
        ({**st, "old_dirs": st["old_dirs"] + [ember.ones(2)] * 4}, InvalidParameterError,
         "histories of lengths"),
        ({k: v for k, v in st.items() if k != "d"}, InvalidParameterError, r"lacks \['d'\]"),
        ({**st, "bogus": 1}, InvalidParameterError, "'bogus'"),
        ({**st, "t": "x"}, InvalidParameterError, "'t' must be a number"),
    ]
    for bad, err, match in cases:
        with pytest.raises(err, match=match):
            fresh.load_state_dict({"state": {0: bad}, "param_groups": sd["param_groups"]})
        assert fresh.state_dict()["state"] == {}
        assert fresh.param_groups[0]["history_size"] == 100


def test_one_group_only():
    a, b = ember.ones(2).require_grad(), ember.ones(3).require_grad()
    with pytest.raises(InvalidParameterError, match="LBFGS: takes one parameter group"):
        E([{"params": [a]}, {"params": [b]}])
    opt = E([a])
    with pytest.raises(InvalidParameterError, match="one parameter group"):
        opt.add_param_group({"params": [b]})
    assert len(opt.param_groups) == 1


def test_step_needs_a_closure_returning_the_loss():
    w = ember.ones(2).require_grad()
    opt = E([w])
    with pytest.raises(InvalidParameterError, match="closure must be a function"):
        opt.step()
    with pytest.raises(InvalidParameterError, match="closure returned a str"):
        opt.step(lambda: "loss")
    with pytest.raises(InvalidParameterError, match=r"closure returned a tensor of shape \(2,\)"):
        opt.step(lambda: w * 1.0)
    assert w.tolist() == [1.0, 1.0]


def test_a_missing_gradient_counts_as_zero():
    a, b = ember.tensor([2.0]).require_grad(), ember.tensor([3.0]).require_grad()
    ta, tb = torch.tensor([2.0], requires_grad=True), torch.tensor([3.0], requires_grad=True)
    eo, to = E([a, b]), T([ta, tb])

    def closure(o, p):
        def f():
            o.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss
        return f
    eo.step(closure(eo, a))
    to.step(closure(to, ta))
    np.testing.assert_allclose([a.item(), b.item()], [ta.item(), tb.item()], rtol=1e-6)


def test_params_on_two_devices_are_refused():
    devices = [d for d in ember.devices() if d.backend_name == "torch"]
    if not devices:
        pytest.skip("needs the torch backend")
    a = ember.ones(2, device="cpu").require_grad()
    b = ember.ones(2, device=devices[0]).require_grad()
    opt = E([a, b])
    with pytest.raises(DeviceError, match="devices"):
        opt.step(lambda: (a * a).sum())


@pytest.mark.parametrize("kwargs,match", [
    ({"lr": -1.0}, r"LBFGS: lr is -1.0; expected a finite number >= 0"),
    ({"max_iter": 0}, r"max_iter is 0; expected an int >= 1"),
    ({"max_iter": 2.5}, r"max_iter must be an int"),
    ({"max_eval": 0}, r"max_eval is 0"),
    ({"tolerance_grad": -1e-7}, r"tolerance_grad is -1e-07"),
    ({"tolerance_change": float("nan")}, r"tolerance_change is nan"),
    ({"history_size": 0}, r"history_size is 0"),
    ({"line_search_fn": "armijo"}, r"line_search_fn is 'armijo'; expected None or "
                                   r"'strong_wolfe'"),
])
def test_bad_hyper_parameters(kwargs, match):
    w = ember.ones(2).require_grad()
    with pytest.raises(InvalidParameterError, match=match) as info:
        E([w], **kwargs)
    assert info.value.param in kwargs


def test_max_eval_defaults_to_torchs():
    w = ember.ones(1).require_grad()
    for max_iter in (1, 4, 20, 33):
        assert E([w], max_iter=max_iter).defaults["max_eval"] == \
            T([torch.ones(1)], max_iter=max_iter).defaults["max_eval"]


def test_exported_as_torch():
    import ember.torch
    assert ember.torch.optim.LBFGS is optim.LBFGS and "LBFGS" in optim.__all__
    assert issubclass(optim.LBFGS, optim.Optimizer)
    assert torch.optim.LBFGS.__name__ == "LBFGS"
