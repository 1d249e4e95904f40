"""GroupNorm, InstanceNorm, RMSNorm, LocalResponseNorm, F.normalize and the channel dropouts
against torch."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, ShapeMismatchError
from math_oracle import check, rand


def _F(m):
    return m.nn.functional


CASES = [
    ("group_norm", lambda F, x, w, b: F.group_norm(x, 2, w, b), (2, 6, 3, 4), 6),
    ("group_norm_3d", lambda F, x, w, b: F.group_norm(x, 3, w, b, eps=1e-3), (1, 3, 5), 3),
    ("group_norm_2d", lambda F, x, w, b: F.group_norm(x, 1, w, b), (4, 2), 2),
    ("group_norm_long_rows", lambda F, x, w, b: F.group_norm(x, 4, w, b), (2, 8, 24, 24), 8),
    ("group_norm_empty", lambda F, x, w, b: F.group_norm(x, 2, w, b), (0, 4, 3), 4),
    ("instance_norm", lambda F, x, w, b: F.instance_norm(x, weight=w, bias=b), (2, 3, 4, 5), 3),
    ("instance_norm_1d", lambda F, x, w, b: F.instance_norm(x, eps=1e-3) * w.sum() + b.sum(),
     (1, 3, 7), 3),
    ("rms_norm", lambda F, x, w, b: F.rms_norm(x, (4,), w), (2, 3, 4), 4),
    ("rms_norm_2", lambda F, x, w, b: F.rms_norm(x, (3, 4), eps=1e-3) + b.sum(), (2, 3, 4), 1),
]


@pytest.mark.parametrize("name,f,shape,c", CASES, ids=[c[0] for c in CASES])
def test_norm_functions(name, f, shape, c):
    check(lambda m, x, w, b: f(_F(m), x, w, b), rand(shape), rand((c,), seed=1),
          rand((c,), seed=2), atol=1e-5)


@pytest.mark.parametrize("kw,shape", [({}, (2, 3, 4)), (dict(p=1, dim=-1), (2, 3, 4)),
                                      (dict(p=3, dim=0), (5,)), (dict(dim=1), (1, 4)),
                                      (dict(p=float("inf")), (3, 4))])
def test_normalize(kw, shape):
    check(lambda m, x: _F(m).normalize(x, **kw), rand(shape), atol=1e-6)


def test_normalize_zero_row_is_zero():
    check(lambda m, x: _F(m).normalize(x), np.zeros((2, 3), "float32"))


@pytest.mark.parametrize("size,kw,shape", [(3, dict(alpha=0.1), (2, 5, 4)),
                                           (2, dict(alpha=0.1, beta=0.5, k=2.0), (2, 5, 4, 3)),
                                           (4, {}, (1, 3, 2))])
def test_local_response_norm(size, kw, shape):
    check(lambda m, x: _F(m).local_response_norm(x, size, **kw), rand(shape))


def test_instance_norm_running_stats():
    res = []
    for m in (torch, et):
        rm, rv = m.zeros(3), m.ones(3)
        x = m.tensor(rand((2, 3, 5)))
        _F(m).instance_norm(x, rm, rv, momentum=0.2)
        y = _F(m).instance_norm(x, rm, rv, use_input_stats=False)
        res.append((rm.numpy(), rv.numpy(), y.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _copy(me, mt):
    me.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})


@pytest.mark.parametrize("cls,args,kw,xs", [
    ("GroupNorm", (2, 6), {}, (2, 6, 3)), ("GroupNorm", (1, 3), dict(affine=False), (1, 3, 2, 2)),
    ("GroupNorm", (3, 3), dict(bias=False, eps=1e-3), (4, 3)),
    ("InstanceNorm1d", (3,), {}, (2, 3, 5)), ("InstanceNorm1d", (3,), dict(affine=True), (3, 5)),
    ("InstanceNorm2d", (4,), dict(affine=True, track_running_stats=True), (2, 4, 3, 3)),
    ("InstanceNorm3d", (2,), dict(track_running_stats=True, momentum=None), (2, 2, 2, 3, 2)),
    ("RMSNorm", (4,), {}, (2, 3, 4)), ("RMSNorm", ([3, 4],), dict(eps=1e-3), (2, 3, 4)),
    ("RMSNorm", (4,), dict(elementwise_affine=False), (4,)),
    ("LocalResponseNorm", (2,), {}, (2, 5, 3)),
    ("LocalResponseNorm", (3, 0.01, 0.5, 2.0), {}, (1, 4, 2, 2)),
])
def test_modules(cls, args, kw, xs):
    torch.manual_seed(0)
    mt, me = getattr(torch.nn, cls)(*args, **kw), getattr(et.nn, cls)(*args, **kw)
    assert repr(me) == repr(mt)
    assert list(me.state_dict()) == list(mt.state_dict())
    with torch.no_grad():
        for p in mt.parameters():
            p.normal_()
    _copy(me, mt)
    x = rand(xs)
    check(lambda m, t: (me if m is et else mt)(t), x, atol=1e-5)
    if "InstanceNorm" in cls and kw.get("track_running_stats"):
        for k, v in mt.state_dict().items():  # two training passes ran (check runs each once)
            np.testing.assert_allclose(me.state_dict()[k].numpy(), v.numpy(), rtol=1e-5,
                                       atol=1e-6)
        mt.eval(), me.eval()
        check(lambda m, t: (me if m is et else mt)(t), x, atol=1e-5)


@pytest.mark.parametrize("name,shape,feature", [
    ("dropout1d", (20, 30, 8), True), ("dropout2d", (20, 30, 2, 3), True),
    ("dropout3d", (30, 20, 2, 2, 2), True), ("alpha_dropout", (40, 50), False),
    ("feature_alpha_dropout", (20, 30, 4), True)])
def test_dropouts_statistics(name, shape, feature):
    ember.manual_seed(0)
    x = ember.randn(*shape) + 2.0
    f = getattr(ember.nn.functional, name)
    y = f(x, 0.4, training=True)
    assert y.shape == x.shape
    drop = (y != x * (1 / 0.6)).numpy() if "alpha" not in name else None
    if feature and drop is not None:
        per_channel = drop.reshape(shape[0], shape[1], -1)
        assert (per_channel.all(-1) | ~per_channel.any(-1)).all()  # whole channels
        assert abs(per_channel[..., 0].mean() - 0.4) < 0.08
    if "alpha" in name:
        z = f(ember.randn(200, 300) if not feature else ember.randn(200, 300, 1), 0.3,
              training=True).numpy()
        assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05  # SELU's fixed point kept
        # kept elements are an affine map of x, dropped ones a constant
        yn, xn = y.numpy().ravel(), x.numpy().ravel()
        sa, p = 1.7580993408473766, 0.4
        a = 1 / np.sqrt((sa * sa * p + 1) * (1 - p))
        kept = np.isclose(yn, a * xn + sa * a * p, atol=1e-5)
        dropped = np.isclose(yn, -sa * a + sa * a * p, atol=1e-5)
        assert (kept | dropped).all()
    assert f(x, 0.4, training=False) is x


def test_dropout2d_reads_3d_inputs_as_n_c_l_as_pytorch():
    ember.manual_seed(3)
    y = ember.nn.functional.dropout2d(ember.ones(6, 8, 5), 0.5).numpy()
    assert (y.min(-1) == y.max(-1)).all()  # whole (n, c) rows, not (c, h) planes
    y = ember.nn.functional.dropout3d(ember.ones(8, 2, 3, 4), 0.5).numpy()
    assert all(len(np.unique(y[c])) == 1 for c in range(8))  # unbatched (C, D, H, W)


def test_dropout_modules_and_gradient():
    for cls in ("Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
        assert repr(getattr(et.nn, cls)(0.2, True)) == repr(getattr(torch.nn, cls)(0.2, True))
    ember.manual_seed(1)
    x = ember.randn(4, 5, 3).require_grad()
    y = ember.nn.Dropout1d(0.5)(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y.detach() / x.detach()).numpy(), rtol=1e-5)
    assert ember.nn.functional.dropout2d(x, 1.0).abs().sum().item() == 0.0


def test_bad_arguments():
    F = ember.nn.functional
    with pytest.raises(ShapeMismatchError):
        F.group_norm(ember.ones(2, 5, 3), 2)
    with pytest.raises(ShapeMismatchError):
        F.group_norm(ember.ones(2, 4, 3), 2, ember.ones(3))
    with pytest.raises(ShapeMismatchError):
        F.instance_norm(ember.ones(2, 4))
    with pytest.raises(ShapeMismatchError):
        F.rms_norm(ember.ones(2, 4), (3,))
    with pytest.raises(InvalidParameterError):
        F.dropout2d(ember.ones(1, 2, 3, 3), 1.5)
    with pytest.raises(ShapeMismatchError):
        F.dropout1d(ember.ones(2, 3, 4, 5), 0.5)
    with pytest.raises(ShapeMismatchError):
        F.dropout2d(ember.ones(3), 0.5)
    with pytest.raises(InvalidParameterError):
        ember.nn.GroupNorm(4, 6)
    with pytest.raises(ShapeMismatchError):
        ember.nn.InstanceNorm2d(3, affine=True)(ember.ones(1, 4, 2, 2))
