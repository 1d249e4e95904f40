"""Tests of ember/nn/layers.py and ember/nn/activations.py against torch.nn with copied weights:
values, every gradient, running statistics, initialization, repr and bad inputs (the loss
modules: test_losses.py)."""

import math

import numpy as np
import pytest
import torch
from torch import nn as tnn

import ember
from ember import nn
from oracle import assert_close, ember_tensor

GRAD_TOL = {"float64": (1e-7, 1e-9), "float32": (1e-4, 1e-5)}
TORCH_DT = {"float64": torch.float64, "float32": torch.float32}


def _copy_weights(em, tm):
    """Load ember module ``em``'s state dict into the torch module ``tm``."""
    sd = {k: torch.tensor(np.array(v.numpy())) for k, v in em.state_dict().items()}
    tm.load_state_dict(sd)


def _compare(em, tm, x, rng, dtype="float64", grad=True, extra_e=(), extra_t=()):
    """Forward and every gradient (input and parameters) of ember's ``em`` against ``tm``."""
    em.to(dtype)
    tm.to(TORCH_DT[dtype])
    _copy_weights(em, tm)
    x = np.asarray(x)
    floating = x.dtype.kind == "f"
    if floating:
        x = x.astype(dtype)
    xe = ember_tensor(x, requires_grad=grad and floating)
    xt = torch.tensor(x, requires_grad=grad and floating)
    out = em(xe, *extra_e)
    tout = tm(xt, *extra_t)
    assert_close(out, tout)
    if not grad:
        return out
    seed = rng.standard_normal(tuple(tout.shape)).astype(dtype)
    out.backward(ember.tensor(seed))
    tout.backward(torch.from_numpy(seed))
    rtol, atol = GRAD_TOL[dtype]
    if floating:
        assert_close(xe.grad, xt.grad, rtol=rtol, atol=atol)
    names = [n for n, _ in em.named_parameters()]
    assert names == [n for n, _ in tm.named_parameters()]
    for (n, p), (_, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert p.grad is not None, n
        assert_close(p.grad, tp.grad, rtol=rtol, atol=atol)
    return out


def _raises(exc, match, fn, *tensors):
    copies = [np.array(t.numpy(), copy=True) for t in tensors]
    with pytest.raises(exc, match=match):
        fn()
    for t, c in zip(tensors, copies):
        np.testing.assert_array_equal(t.numpy(), c)


# -- Linear -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_linear_matches_torch(rng, dtype):
    for bias in (True, False):
        for xshape in [(4,), (3, 4), (2, 5, 4)]:
            _compare(nn.Linear(4, 3, bias=bias), tnn.Linear(4, 3, bias=bias),
                     rng.standard_normal(xshape), rng, dtype)


def test_linear_init_and_bad_inputs():
    ember.manual_seed(0)
    fc = nn.Linear(50, 40)
    bound = 1 / math.sqrt(50)
    w, b = fc.weight.numpy(), fc.bias.numpy()
    assert fc.weight.dtype == ember.float32 and fc.weight.shape == (40, 50)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound  # uniform in [-bound, bound)
    assert fc.weight.is_require_grad() and fc.weight.is_leaf and fc.bias.is_require_grad()
    ember.manual_seed(0)
    np.testing.assert_array_equal(nn.Linear(50, 40).weight.numpy(), w)
    x = ember.ones(2, 49)
    _raises(ember.ShapeMismatchError, r"Linear: input has shape \(2, 49\); expected \(\*, 50\)",
            lambda: fc(x), x, fc.weight)
    _raises(ember.ShapeMismatchError, r"Linear: input has shape \(\)",
            lambda: fc(ember.tensor(1.0)), fc.weight)
    _raises(ember.KindError, "Linear: input has dtype int64",
            lambda: fc(ember.ones(2, 50, dtype="int64")), fc.weight)
    _raises(ember.InvalidParameterError, "Linear: input must be a Tensor", lambda: fc([1.0] * 50))
    with pytest.raises(ember.InvalidParameterError, match="Linear: in_features is -1"):
        nn.Linear(-1, 2)
    with pytest.raises(ember.InvalidParameterError, match="Linear: out_features must be an int"):
        nn.Linear(2, 2.5)
    with pytest.raises(ember.InvalidParameterError, match="Linear: bias must be a bool"):
        nn.Linear(2, 2, bias="yes")
    with pytest.raises(ember.KindError, match="Linear: dtype int32 is not a float dtype"):
        nn.Linear(2, 2, dtype="int32")
    assert nn.Linear(2, 3, dtype="float64").weight.dtype == ember.float64


# -- Conv2d -------------------------------------------------------------------------------------

CONV_LAYERS = [
    dict(in_channels=3, out_channels=4, kernel_size=3),
    dict(in_channels=3, out_channels=4, kernel_size=(2, 3), stride=2, padding=1, bias=False),
    dict(in_channels=4, out_channels=6, kernel_size=3, stride=(2, 1), padding=(2, 0), dilation=2,
         groups=2),
    dict(in_channels=2, out_channels=3, kernel_size=(3, 4), padding="same", dilation=(1, 2)),
    dict(in_channels=2, out_channels=2, kernel_size=3, padding="valid", groups=2, bias=False),
    dict(in_channels=2, out_channels=3, kernel_size=3, padding=1, padding_mode="reflect"),
    dict(in_channels=2, out_channels=3, kernel_size=3, padding=(2, 1), padding_mode="replicate"),
    dict(in_channels=2, out_channels=3, kernel_size=3, padding=1, padding_mode="circular"),
    dict(in_channels=2, out_channels=3, kernel_size=4, padding="same", padding_mode="reflect"),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("kwargs", CONV_LAYERS)
def test_conv2d_matches_torch(rng, kwargs):
    C = kwargs["in_channels"]
    for dtype in ("float64", "float32"):
        for xshape in [(2, C, 9, 8), (C, 7, 10)]:
            _compare(nn.Conv2d(**kwargs), tnn.Conv2d(**kwargs), rng.standard_normal(xshape), rng,
                     dtype)


def test_conv2d_repr_init_and_bad_inputs(rng):
    for kwargs in CONV_LAYERS:
        assert repr(nn.Conv2d(**kwargs)) == repr(tnn.Conv2d(**kwargs))
    ember.manual_seed(1)
    conv = nn.Conv2d(4, 8, 3, groups=2)
    bound = 1 / math.sqrt(2 * 3 * 3)
    assert conv.weight.shape == (8, 2, 3, 3)
    assert np.abs(conv.weight.numpy()).max() <= bound
    assert np.abs(conv.bias.numpy()).max() <= bound
    w = conv.weight
    x = ember.ones(2, 3, 8, 8)
    _raises(ember.ShapeMismatchError, r"Conv2d: input has shape \(2, 3, 8, 8\) with 3 channels; "
            r"expected \(N, 4, H, W\)", lambda: conv(x), x, w)
    _raises(ember.ShapeMismatchError, r"Conv2d: input has shape \(4, 8\) \(2-d\); expected a 3-d "
            r"or 4-d tensor \(N, 4, H, W\) or \(4, H, W\)", lambda: conv(ember.ones(4, 8)), w)
    _raises(ember.ShapeMismatchError, r"Conv2d: input of spatial size \(2, 2\)",
            lambda: conv(ember.ones(1, 4, 2, 2)), w)
    _raises(ember.ShapeMismatchError, r"Conv2d: input has shape \(2, 5, 6, 6\) with 5 channels; "
            r"expected \(N, 4, H, W\)", lambda: conv(ember.ones(2, 5, 6, 6)), w)
    bad = [
        (dict(in_channels=3, out_channels=4, kernel_size=3, groups=2),
         "Conv2d: in_channels=3 is not divisible by groups=2"),
        (dict(in_channels=4, out_channels=3, kernel_size=3, groups=2),
         "Conv2d: out_channels=3 is not divisible by groups=2"),
        (dict(in_channels=1, out_channels=1, kernel_size=0), "Conv2d: kernel_size is 0"),
        (dict(in_channels=1, out_channels=1, kernel_size=3, stride=0), "Conv2d: stride is 0"),
        (dict(in_channels=1, out_channels=1, kernel_size=3, padding=-1), "Conv2d: padding is -1"),
        (dict(in_channels=1, out_channels=1, kernel_size=3, dilation=0), "Conv2d: dilation is 0"),
        (dict(in_channels=1, out_channels=1, kernel_size=3, padding="full"),
         "Conv2d: padding 'full' is unknown"),
        (dict(in_channels=1, out_channels=1, kernel_size=3, padding="same", stride=2),
         "Conv2d: padding='same' needs stride 1"),
        (dict(in_channels=1, out_channels=1, kernel_size=3, padding_mode="mirror"),
         "Conv2d: padding_mode 'mirror' is unknown"),
        (dict(in_channels=-1, out_channels=1, kernel_size=3), "Conv2d: in_channels is -1"),
        (dict(in_channels=1, out_channels=0, kernel_size=3), "Conv2d: out_channels is 0"),
        (dict(in_channels=1, out_channels=1, kernel_size=(1, 2, 3)),
         r"Conv2d: kernel_size \(1, 2, 3\) must be an int or a pair"),
    ]
    for kwargs, match in bad:
        with pytest.raises(ember.InvalidParameterError, match=match):
            nn.Conv2d(**kwargs)


# -- pooling ------------------------------------------------------------------------------------

POOLS = [
    (nn.MaxPool2d, tnn.MaxPool2d, dict(kernel_size=2)),
    (nn.MaxPool2d, tnn.MaxPool2d, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (nn.MaxPool2d, tnn.MaxPool2d, dict(kernel_size=(3, 2), stride=(1, 2), dilation=(2, 1))),
    (nn.AvgPool2d, tnn.AvgPool2d, dict(kernel_size=2)),
    (nn.AvgPool2d, tnn.AvgPool2d, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                       count_include_pad=False)),
    (nn.AvgPool2d, tnn.AvgPool2d, dict(kernel_size=(2, 3), stride=1, padding=(1, 1),
                                       divisor_override=5)),
]


@pytest.mark.parametrize("ecls,tcls,kwargs", POOLS)
def test_pools_match_torch(rng, ecls, tcls, kwargs):
    for dtype in ("float64", "float32"):
        for xshape in [(2, 3, 7, 8), (3, 6, 6)]:
            _compare(ecls(**kwargs), tcls(**kwargs), rng.standard_normal(xshape), rng, dtype)
    assert repr(ecls(**kwargs)) == repr(tcls(**kwargs))


@pytest.mark.parametrize("kwargs", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                    dict(kernel_size=(3, 2), stride=(1, 2), dilation=(2, 1))])
def test_max_pool_return_indices_and_unpool_match_torch(rng, kwargs):
    """MaxPool2d(return_indices=True) on ties and NaNs, then MaxUnpool2d: values, indices and the
    gradients of both steps equal torch's."""
    pool = nn.MaxPool2d(**kwargs, return_indices=True)
    tpool = tnn.MaxPool2d(**kwargs, return_indices=True)
    assert repr(pool) == repr(tpool)
    for xshape in [(2, 3, 7, 8), (3, 6, 6)]:
        a = rng.integers(-2, 3, size=xshape).astype("float64")
        a[rng.random(xshape) < 0.1] = np.nan
        x, tx = ember_tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        out, idx = pool(x)
        tout, tidx = tpool(tx)
        assert_close(out, tout)
        assert idx.dtype == ember.int64
        np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
        seed = rng.standard_normal(tuple(tout.shape))
        out.backward(ember.tensor(seed))
        tout.backward(torch.tensor(seed))
        assert_close(x.grad, tx.grad, rtol=1e-12, atol=1e-14)
        if kwargs.get("dilation") or kwargs.get("ceil_mode"):
            continue                                # torch's MaxUnpool2d has no such options
        k, st, pd = kwargs["kernel_size"], kwargs.get("stride"), kwargs.get("padding", 0)
        unpool, tunpool = nn.MaxUnpool2d(k, st, pd), tnn.MaxUnpool2d(k, st, pd)
        assert repr(unpool) == repr(tunpool)
        v = rng.standard_normal(tuple(tout.shape))
        ve, vt = ember_tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
        ue = unpool(ve, idx, output_size=tuple(xshape[-2:]))
        ut = tunpool(vt, tidx, output_size=tuple(xshape[-2:]))
        assert ue.shape == tuple(ut.shape) == tuple(xshape)
        if st != 1:                                 # no repeated index: torch's values are set
            assert_close(ue, ut, rtol=0, atol=0)
        g = rng.standard_normal(xshape)
        ue.backward(ember.tensor(g))
        ut.backward(torch.tensor(g))
        assert_close(ve.grad, vt.grad, rtol=0, atol=0)


def test_pool_bad_hyper_parameters():
    with pytest.raises(ember.InvalidParameterError, match="MaxPool2d: kernel_size is 0"):
        nn.MaxPool2d(0)
    with pytest.raises(ember.InvalidParameterError, match="MaxPool2d: padding 2 is more than half"):
        nn.MaxPool2d(3, padding=2)
    with pytest.raises(ember.InvalidParameterError, match="AvgPool2d: stride is -1"):
        nn.AvgPool2d(2, stride=-1)
    with pytest.raises(ember.InvalidParameterError, match="AvgPool2d: count_include_pad must be"):
        nn.AvgPool2d(2, count_include_pad=None)
    with pytest.raises(ember.InvalidParameterError, match="MaxPool2d: return_indices must be a "
                       "bool, got 1"):
        nn.MaxPool2d(2, return_indices=1)
    with pytest.raises(ember.InvalidParameterError, match="MaxUnpool2d: stride is 0"):
        nn.MaxUnpool2d(2, stride=0)
    pool = nn.MaxPool2d(2)
    _raises(ember.ShapeMismatchError, r"MaxPool2d: input has shape \(4, 4\) \(2-d\)",
            lambda: pool(ember.ones(4, 4)))
    _raises(ember.ShapeMismatchError, "AvgPool2d: input of spatial size",
            lambda: nn.AvgPool2d(3)(ember.ones(1, 1, 2, 5)))


# -- BatchNorm ----------------------------------------------------------------------------------

BN_CASES = [
    (nn.BatchNorm1d, tnn.BatchNorm1d, (6, 3), {}),
    (nn.BatchNorm1d, tnn.BatchNorm1d, (4, 3, 5), dict(momentum=0.3, eps=1e-3)),
    (nn.BatchNorm2d, tnn.BatchNorm2d, (3, 3, 4, 5), {}),
    (nn.BatchNorm2d, tnn.BatchNorm2d, (2, 3, 3, 3), dict(momentum=None)),
    (nn.BatchNorm2d, tnn.BatchNorm2d, (2, 3, 3, 3), dict(affine=False)),
    (nn.BatchNorm1d, tnn.BatchNorm1d, (5, 3), dict(track_running_stats=False)),
    (nn.BatchNorm2d, tnn.BatchNorm2d, (2, 3, 2, 2), dict(bias=False)),
]


@pytest.mark.parametrize("ecls,tcls,shape,kwargs", BN_CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_batch_norm_train_eval_and_running_stats(rng, ecls, tcls, shape, kwargs, dtype):
    em, tm = ecls(3, **kwargs), tcls(3, **kwargs)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    if em.affine:  # non-trivial affine parameters
        sd = {**em.state_dict(), "weight": ember.tensor(rng.random(3) + 0.5)}
        if em.bias is not None:
            sd["bias"] = ember.tensor(rng.standard_normal(3))
        em.load_state_dict(sd)
    for _ in range(3):  # several training steps: outputs, gradients, running statistics
        _compare(em, tm, rng.standard_normal(shape) * 2 + 1, rng, dtype)
    if em.track_running_stats:
        rtol = 1e-6 if dtype == "float32" else 1e-12
        assert_close(em.running_mean, tm.running_mean, rtol=rtol)
        assert_close(em.running_var, tm.running_var, rtol=rtol)
        assert em.num_batches_tracked.item() == 3 and em.num_batches_tracked.dtype == ember.int64
        assert not em.running_mean.is_require_grad()
        assert [n for n, _ in em.named_buffers()] == [n for n, _ in tm.named_buffers()]
    em.eval()
    tm.eval()
    _compare(em, tm, rng.standard_normal(shape), rng, dtype)
    if em.track_running_stats:
        assert em.num_batches_tracked.item() == 3  # eval does not track


def test_batch_norm_bad_inputs():
    bn1, bn2 = nn.BatchNorm1d(3), nn.BatchNorm2d(3)
    _raises(ember.ShapeMismatchError, r"BatchNorm1d: input has shape \(4, 2\); expected \(N, 3\) "
            r"or \(N, 3, L\)", lambda: bn1(ember.ones(4, 2)), bn1.running_mean)
    _raises(ember.ShapeMismatchError, r"BatchNorm2d: input has shape \(4, 3, 2\); expected "
            r"\(N, 3, H, W\)", lambda: bn2(ember.ones(4, 3, 2)), bn2.running_mean)
    _raises(ember.ShapeMismatchError, "BatchNorm1d: expected more than 1 value per channel",
            lambda: bn1(ember.ones(1, 3)), bn1.running_mean, bn1.running_var)
    assert bn1.num_batches_tracked.item() == 0
    for kwargs, match in [(dict(num_features=0), "BatchNorm1d: num_features is 0"),
                          (dict(num_features=3, eps=-1.0), "BatchNorm1d: eps is -1.0"),
                          (dict(num_features=3, momentum=2.0), "BatchNorm1d: momentum is 2.0"),
                          (dict(num_features=3, affine=1), "BatchNorm1d: affine must be a bool")]:
        with pytest.raises(ember.InvalidParameterError, match=match):
            nn.BatchNorm1d(**kwargs)


# -- LayerNorm, Embedding, Dropout, Flatten -----------------------------------------------------

@pytest.mark.parametrize("kwargs,xshape", [(dict(normalized_shape=5), (3, 5)),
                                           (dict(normalized_shape=(3, 4)), (2, 3, 4)),
                                           (dict(normalized_shape=4, elementwise_affine=False),
                                            (2, 4)),
                                           (dict(normalized_shape=4, bias=False, eps=1e-3),
                                            (3, 2, 4))])
def test_layer_norm_matches_torch(rng, kwargs, xshape):
    for dtype in ("float64", "float32"):
        em, tm = nn.LayerNorm(**kwargs), tnn.LayerNorm(**kwargs)
        if em.weight is not None:
            sd = em.state_dict()
            sd["weight"] = ember.tensor(rng.random(em.normalized_shape) + 0.5)
            if em.bias is not None:
                sd["bias"] = ember.tensor(rng.standard_normal(em.normalized_shape))
            em.load_state_dict(sd)
        _compare(em, tm, rng.standard_normal(xshape), rng, dtype)
    assert repr(nn.LayerNorm(4)) == repr(tnn.LayerNorm(4))
    x = ember.ones(2, 3)
    _raises(ember.ShapeMismatchError, r"LayerNorm: input has shape \(2, 3\); expected \(\*, 4\)",
            lambda: nn.LayerNorm(4)(x), x)
    with pytest.raises(ember.InvalidParameterError, match="LayerNorm: normalized_shape is empty"):
        nn.LayerNorm(())


def test_embedding_matches_torch(rng):
    ember.manual_seed(3)
    em, tm = nn.Embedding(10, 4, padding_idx=2), tnn.Embedding(10, 4, padding_idx=2)
    assert repr(em) == repr(tm)
    assert em.weight.numpy()[2].tolist() == [0.0] * 4
    idx = rng.integers(0, 10, size=(3, 5))
    idx[0, :2] = 2
    _compare(em, tm, idx, rng)
    w = nn.Embedding(200, 50).weight.numpy()
    assert abs(w.mean()) < 0.05 and abs(w.std() - 1) < 0.05
    _raises(ember.DimensionError, "embedding: index 10 is out of range for 10 embeddings",
            lambda: em(ember.tensor([10])), em.weight)
    with pytest.raises(ember.InvalidParameterError, match="Embedding: padding_idx 10 is out"):
        nn.Embedding(10, 3, padding_idx=10)
    assert nn.Embedding(10, 3, padding_idx=-1).padding_idx == 9


@pytest.mark.parametrize("kwargs", [dict(max_norm=1.0), dict(max_norm=0.5, norm_type=1.0),
                                    dict(max_norm=2.0, norm_type=float("inf"), padding_idx=0,
                                         scale_grad_by_freq=True)])
def test_embedding_max_norm_matches_torch(rng, kwargs):
    """Two calls in a row: outputs, the weight after each (rebound, the same Parameter object),
    and the accumulated gradients equal torch's (which renormalizes in place)."""
    ember.manual_seed(5)
    em, tm = nn.Embedding(8, 3, **kwargs), tnn.Embedding(8, 3, **kwargs)
    assert repr(em) == repr(tm)
    _copy_weights(em, tm)
    w = em.weight
    for _ in range(2):
        idx = rng.integers(0, 8, size=(2, 4))
        out, tout = em(ember.tensor(idx)), tm(torch.tensor(idx))
        assert_close(out, tout, rtol=1e-6, atol=1e-7)
        assert em.weight is w and w.is_leaf
        assert_close(em.weight, tm.weight.detach(), rtol=1e-6, atol=1e-7)
        seed = rng.standard_normal(tuple(tout.shape)).astype("float32")
        out.backward(ember.tensor(seed))
        tout.backward(torch.tensor(seed))
        assert_close(em.weight.grad, tm.weight.grad, rtol=1e-5, atol=1e-6)


def test_embedding_bad_max_norm_and_sparse():
    with pytest.raises(ember.InvalidParameterError, match="Embedding: sparse=True is not "
                       "supported: ember has no sparse gradients"):
        nn.Embedding(4, 2, sparse=True)
    with pytest.raises(ember.InvalidParameterError, match="Embedding: max_norm is -2.0"):
        nn.Embedding(4, 2, max_norm=-2.0)
    with pytest.raises(ember.InvalidParameterError, match="Embedding: scale_grad_by_freq must be"):
        nn.Embedding(4, 2, scale_grad_by_freq="yes")


def test_dropout_module():
    drop = nn.Dropout(0.3)
    assert repr(drop) == repr(tnn.Dropout(0.3))
    ember.manual_seed(5)
    x = ember.ones(100, 100)
    out = drop(x).numpy()
    assert abs((out == 0).mean() - 0.3) < 0.03
    np.testing.assert_allclose(out[out != 0], 1 / 0.7, rtol=1e-6)
    ember.manual_seed(5)
    np.testing.assert_array_equal(drop(x).numpy(), out)
    assert drop.eval()(x) is x
    assert drop.train()(x) is not x
    with pytest.raises(ember.InvalidParameterError, match=r"Dropout: p is 1.2; expected a "
                       r"probability in \[0, 1\]"):
        nn.Dropout(1.2)


def test_flatten_identity_and_activations(rng):
    x = rng.standard_normal((2, 3, 4, 5))
    for em, tm in [(nn.Flatten(), tnn.Flatten()), (nn.Flatten(0, 2), tnn.Flatten(0, 2)),
                   (nn.Identity(54, foo=1), tnn.Identity(54, foo=1)), (nn.ReLU(), tnn.ReLU()),
                   (nn.GELU(), tnn.GELU()), (nn.GELU("tanh"), tnn.GELU("tanh")),
                   (nn.SiLU(), tnn.SiLU()), (nn.Sigmoid(), tnn.Sigmoid()), (nn.Tanh(), tnn.Tanh()),
                   (nn.Softmax(dim=1), tnn.Softmax(dim=1)),
                   (nn.LogSoftmax(dim=-1), tnn.LogSoftmax(dim=-1))]:
        assert repr(em) == repr(tm)
        _compare(em, tm, x, rng)
    assert repr(nn.ReLU(inplace=True)) == repr(tnn.ReLU(inplace=True))
    with pytest.raises(ember.InvalidParameterError, match="GELU: approximate 'erf' is unknown"):
        nn.GELU("erf")
    with pytest.raises(ember.InvalidParameterError, match="Softmax: dim must be an int"):
        nn.Softmax(dim="x")


# -- Sequential and a small CNN -----------------------------------------------------------------

def _cnn(lib):
    return lib.Sequential(lib.Conv2d(1, 4, 3, padding=1), lib.BatchNorm2d(4), lib.ReLU(),
                          lib.MaxPool2d(2), lib.Conv2d(4, 6, 3, stride=2, padding="valid" if
                                                       lib is nn else 0),
                          lib.Flatten(), lib.Dropout(0.0), lib.Linear(6, 5), lib.GELU(),
                          lib.Linear(5, 3))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_small_cnn_matches_torch(rng, dtype):
    em, tm = _cnn(nn), _cnn(tnn)
    assert list(em.state_dict()) == list(tm.state_dict())
    for _ in range(2):
        _compare(em, tm, rng.standard_normal((4, 1, 8, 8)), rng, dtype)
    em.eval()
    tm.eval()
    _compare(em, tm, rng.standard_normal((4, 1, 8, 8)), rng, dtype)


# -- init ---------------------------------------------------------------------------------------

def test_init_functions():
    init = nn.init
    ember.manual_seed(0)
    a = init.kaiming_uniform((300, 200), nonlinearity="relu").numpy()
    bound = math.sqrt(2) * math.sqrt(3 / 200)
    assert np.abs(a).max() <= bound and abs(a.std() - bound / math.sqrt(3)) < 0.02 * bound
    n = init.kaiming_normal((300, 200), mode="fan_out").numpy()
    assert abs(n.std() - math.sqrt(2 / (1 + 0.01 ** 2)) / math.sqrt(300)) < 0.003
    x = init.xavier_uniform((100, 300), gain=2.0).numpy()
    assert np.abs(x).max() <= 2 * math.sqrt(6 / 400)
    assert abs(init.xavier_normal((200, 300)).numpy().std() - math.sqrt(2 / 500)) < 0.002
    u = init.uniform((1000,), -2.0, -1.0).numpy()
    assert u.min() >= -2.0 and u.max() < -1.0
    assert init.constant((2,), 3.0, dtype="float64").tolist() == [3.0, 3.0]
    assert init.uniform((2,), 1.0, 1.0).tolist() == [1.0, 1.0]
    assert init.zeros((2, 0)).shape == (2, 0) and init.kaiming_uniform((3, 0)).shape == (3, 0)
    t = init.normal((2, 2), requires_grad=False)
    assert not t.is_require_grad() and init.ones(3).is_require_grad()
    for name, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                        ("relu", None), ("leaky_relu", 0.2), ("selu", None)]:
        assert abs(init.calculate_gain(name, param) - tnn.init.calculate_gain(name, param)) < 1e-12
    assert init.fan_in_and_fan_out((16, 3, 5, 5)) == (75, 400)
    ember.manual_seed(4)
    first = init.normal((5,)).tolist()
    ember.manual_seed(4)
    assert init.normal((5,)).tolist() == first
    with pytest.raises(ember.InvalidParameterError, match="kaiming_uniform: mode 'fan' is"):
        init.kaiming_uniform((2, 2), mode="fan")
    with pytest.raises(ember.InvalidParameterError, match="fan_in_and_fan_out: shape \\(3,\\) has"):
        init.xavier_uniform((3,))
    with pytest.raises(ember.InvalidParameterError, match="calculate_gain: nonlinearity 'swish'"):
        init.calculate_gain("swish")
    with pytest.raises(ember.InvalidParameterError, match="uniform: a=2.0 is above b=1.0"):
        init.uniform((2,), 2.0, 1.0)
    with pytest.raises(ember.InvalidParameterError, match="normal: std is -1.0"):
        init.normal((2,), std=-1)
    with pytest.raises(ember.KindError, match="zeros: dtype int64 is not a float dtype"):
        init.zeros((2,), dtype="int64")
    with pytest.raises(ember.InvalidParameterError, match="ones: shape"):
        init.ones((2, -1))


def test_docs_training_md_layer_details():
    """The 'Layer details' section of docs/training.md runs as doctests (the whole page runs in
    tests/test_train.py; this section alone is fast)."""
    import doctest
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "training.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Layer details: pooling indices and embedding norms"):]
    test = doctest.DocTestParser().get_doctest(
        section, {"ember": ember, "nn": nn}, "training.md#layer-details", path, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 6
    assert result.failed == 0


# -- zero-size layers ---------------------------------------------------------------------------

ZERO_SIZE = [
    (lambda: nn.Linear(3, 0), lambda: tnn.Linear(3, 0), (2, 3)),
    (lambda: nn.Linear(0, 4), lambda: tnn.Linear(0, 4), (2, 0)),
    (lambda: nn.Linear(0, 0, bias=False), lambda: tnn.Linear(0, 0, bias=False), (5, 0)),
    (lambda: nn.Linear(3, 0), lambda: tnn.Linear(3, 0), (3,)),
    (lambda: nn.Linear(3, 0), lambda: tnn.Linear(3, 0), (2, 4, 3)),
    (lambda: nn.Linear(3, 2), lambda: tnn.Linear(3, 2), (0, 3)),
    (lambda: nn.Linear(3, 0), lambda: tnn.Linear(3, 0), (0, 3)),
    (lambda: nn.Conv2d(2, 3, 3), lambda: tnn.Conv2d(2, 3, 3), (0, 2, 5, 5)),
    (lambda: nn.LayerNorm(0), lambda: tnn.LayerNorm(0), (2, 0)),
    (lambda: nn.LayerNorm((2, 0)), lambda: tnn.LayerNorm((2, 0)), (3, 2, 0)),
    (lambda: nn.LayerNorm(3), lambda: tnn.LayerNorm(3), (0, 3)),
    (lambda: nn.BatchNorm1d(3), lambda: tnn.BatchNorm1d(3), (0, 3)),
    (lambda: nn.BatchNorm2d(3), lambda: tnn.BatchNorm2d(3), (2, 3, 0, 4)),
]


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
@pytest.mark.filterwarnings("error::RuntimeWarning")  # no NumPy warning about empty means
@pytest.mark.parametrize("case", range(len(ZERO_SIZE)))
def test_zero_size_layers_match_torch(rng, case):
    """A layer with a size-0 weight, or a size-0 input, runs forward and backward as PyTorch's
    (``nn.Linear(3, 0)`` used to fail in backward)."""
    make_e, make_t, shape = ZERO_SIZE[case]
    em, tm = make_e(), make_t()
    _compare(em, tm, rng.standard_normal(shape), rng)  # shapes, values and every gradient
    if isinstance(em, (nn.BatchNorm1d, nn.BatchNorm2d)):
        assert_close(em.running_mean, tm.running_mean)  # an empty batch leaves them
        assert_close(em.running_var, tm.running_var)
        assert em.num_batches_tracked.item() == tm.num_batches_tracked.item() == 1


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
@pytest.mark.parametrize("num,dim,idx", [(5, 0, [1, 4]), (0, 3, []), (0, 0, []), (5, 3, [])])
def test_zero_size_embedding_matches_torch(rng, num, dim, idx):
    em, tm = nn.Embedding(num, dim).to("float64"), tnn.Embedding(num, dim).double()
    _copy_weights(em, tm)
    out = em(ember.tensor(idx, dtype="int64"))
    tout = tm(torch.tensor(idx, dtype=torch.int64))
    assert_close(out, tout)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.tensor(seed))
    tout.backward(torch.from_numpy(seed))
    assert_close(em.weight.grad, tm.weight.grad)


def test_zero_size_layers_bad_inputs():
    emb = nn.Embedding(0, 3)
    _raises(ember.DimensionError, r"embedding: index 0 is out of range for 0 embeddings",
            lambda: emb(ember.tensor([0])), emb.weight)
    with pytest.raises(ember.InvalidParameterError, match="Embedding: num_embeddings is -1"):
        nn.Embedding(-1, 3)
    with pytest.raises(ember.InvalidParameterError, match="LayerNorm: normalized_shape is -2"):
        nn.LayerNorm((3, -2))


def test_conv2d_without_input_channels_gives_the_bias(rng):
    """``Conv2d(0, 3)``: every output is a sum of no terms plus the bias, as ``F.linear`` with
    in_features=0 gives in PyTorch too (PyTorch's conv2d returns 0 channels here instead)."""
    conv = nn.Conv2d(0, 3, 3).to("float64")
    x = ember.zeros(2, 0, 5, 5, dtype="float64").require_grad()
    out = conv(x)
    bias = torch.tensor(conv.bias.numpy())
    assert_close(out, bias.reshape(1, 3, 1, 1).expand(2, 3, 3, 3))
    seed = rng.standard_normal((2, 3, 3, 3))
    out.backward(ember.tensor(seed))
    assert_close(conv.bias.grad, torch.from_numpy(seed).sum((0, 2, 3)))
    assert conv.weight.grad.shape == (3, 0, 3, 3) and x.grad.shape == (2, 0, 5, 5)


# -- complex: layers take real tensors only (docs/complex.md) ----------------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(8)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


LAYER_CALLS = {  # layer name -> (the layer, the shape of its complex input)
    "Linear": (lambda: nn.Linear(3, 2), (2, 3)),
    "Conv2d": (lambda: nn.Conv2d(1, 2, 2), (1, 1, 4, 4)),
    "MaxPool2d": (lambda: nn.MaxPool2d(2), (1, 1, 4, 4)),
    "AvgPool2d": (lambda: nn.AvgPool2d(2), (1, 1, 4, 4)),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(3), (2, 3)),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(1), (2, 1, 2, 2)),
    "LayerNorm": (lambda: nn.LayerNorm(3), (2, 3)),
    "Dropout": (lambda: nn.Dropout(0.5), (2, 3)),
    "ReLU": (lambda: nn.ReLU(), (2, 3)),
    "GELU": (lambda: nn.GELU(), (2, 3)),
    "SiLU": (lambda: nn.SiLU(), (2, 3)),
    "Sigmoid": (lambda: nn.Sigmoid(), (2, 3)),
    "Tanh": (lambda: nn.Tanh(), (2, 3)),
    "Softmax": (lambda: nn.Softmax(1), (2, 3)),
    "LogSoftmax": (lambda: nn.LogSoftmax(1), (2, 3)),
    "Sequential": (lambda: nn.Sequential(nn.Linear(3, 3), nn.ReLU()), (2, 3)),
}


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(LAYER_CALLS))
def test_complex_input_refused(name, dtype):
    make, shape = LAYER_CALLS[name]
    layer = make()
    z = _complex(shape, dtype)
    with pytest.raises(ember.KindError, match="complex"):
        layer(z)
    assert z.dtype.name == np.dtype(dtype).name


def test_complex_embedding_indices_refused():
    with pytest.raises(ember.KindError, match="complex"):
        nn.Embedding(4, 2)(_complex((3,)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("make", [lambda dt: nn.Linear(3, 2, dtype=dt),
                                  lambda dt: nn.Conv2d(1, 1, 2, dtype=dt),
                                  lambda dt: nn.LayerNorm(3, dtype=dt),
                                  lambda dt: nn.Embedding(3, 2, dtype=dt)],
                         ids=["Linear", "Conv2d", "LayerNorm", "Embedding"])
def test_complex_layer_dtype_refused(make, dtype):
    with pytest.raises(ember.KindError, match=rf"dtype has dtype {dtype}"):
        make(getattr(ember, dtype))


def test_complex_parameter_and_module_cast_refused():
    with pytest.raises(ember.KindError, match=r"Parameter.*complex"):
        nn.Parameter(_complex((2,)))
    with pytest.raises(ember.KindError, match=r"Parameter.*complex"):
        nn.Parameter([1 + 2j, 3j])
    with pytest.raises(ember.KindError, match=r"Parameter.*complex"):
        nn.Parameter(_complex((2,)), requires_grad=False)
    m = nn.Linear(2, 2)
    before = m.weight.numpy().copy()
    with pytest.raises(ember.KindError, match=r"to.*complex"):
        m.to(ember.complex64)
    assert m.weight.dtype is ember.float32 and np.array_equal(m.weight.numpy(), before)
