"""Bilinear, Unflatten, EmbeddingBag, F.gumbel_softmax and the torch facade's view of the new
layers, against torch."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check, rand


def _F(m):
    return m.nn.functional


@pytest.mark.parametrize("s1,s2,out", [((5, 2), (5, 3), 4), ((2, 3, 4), (2, 3, 1), 2),
                                       ((1, 1), (1, 1), 1)])
def test_bilinear_function(s1, s2, out):
    check(lambda m, a, b, w, bias: _F(m).bilinear(a, b, w, bias), rand(s1), rand(s2, seed=1),
          rand((out, s1[-1], s2[-1]), seed=2), rand((out,), seed=3), atol=1e-5)


def test_bilinear_module():
    torch.manual_seed(0)
    mt, me = torch.nn.Bilinear(3, 2, 4), et.nn.Bilinear(3, 2, 4)
    assert repr(me) == repr(mt)
    me.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    check(lambda m, a, b: (me if m is et else mt)(a, b), rand((5, 3)), rand((5, 2), seed=1),
          atol=1e-5)
    ember.manual_seed(0)
    w = ember.nn.Bilinear(16, 2, 8).weight.numpy()
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.2


@pytest.mark.parametrize("dim,size,shape", [(1, (2, 3), (4, 6)), (-1, [2, 2], (3, 4)),
                                            (0, (2, -1), (6, 1))])
def test_unflatten(dim, size, shape):
    mt, me = torch.nn.Unflatten(dim, size), et.nn.Unflatten(dim, size)
    assert repr(me) == repr(mt)
    check(lambda m, x: (me if m is et else mt)(x), rand(shape))


BAGS = [
    (np.array([[1, 2, 4], [4, 3, 0]]), None, {}),
    (np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 4]), dict(mode="sum")),
    (np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 2, 2, 5]), dict(mode="max")),
    (np.array([1, 2, 4, 5, 4, 3]), np.array([0, 2, 6]), dict(mode="mean",
                                                             include_last_offset=True)),
    (np.array([1, 0, 4, 0, 4, 3]), np.array([0, 3, 3]), dict(mode="mean", padding_idx=0)),
    (np.array([[0, 0], [1, 0]]), None, dict(mode="max", padding_idx=0)),
    (np.array([[7]]), None, dict(mode="sum")),
    (np.array([[1, 2, 4], [4, 4, 0]]), None, dict(mode="max")),   # equal-length bags: the
    (np.array([[1, 2, 2], [3, 3, 3]]), None, dict(mode="sum")),   # lookup-and-reduce path,
    (np.array([[5, 9], [9, 5], [0, 0]]), None, dict(mode="mean", max_norm=1.0)),  # repeats
]


@pytest.mark.parametrize("inp,offsets,kw", BAGS)
def test_embedding_bag_function(inp, offsets, kw):
    w = rand((10, 3))
    if offsets is None:
        check(lambda m, weight: _F(m).embedding_bag(m.tensor(inp), weight, **kw), w)
    else:
        check(lambda m, weight: _F(m).embedding_bag(m.tensor(inp), weight, m.tensor(offsets),
                                                    **kw), w)


def test_embedding_bag_per_sample_weights():
    inp, off = np.array([1, 2, 4, 5, 4, 3]), np.array([0, 2])
    check(lambda m, w, psw: _F(m).embedding_bag(m.tensor(inp), w, m.tensor(off), mode="sum",
                                                per_sample_weights=psw),
          rand((10, 3)), rand((6,), seed=1))


def test_embedding_bag_per_sample_weights_of_equal_bags():
    check(lambda m, w, psw: _F(m).embedding_bag(m.tensor(np.array([[1, 2, 2], [4, 0, 9]])), w,
                                                mode="sum", per_sample_weights=psw),
          rand((10, 3)), rand((2, 3), seed=2))


@pytest.mark.parametrize("kw", [dict(mode="sum"), dict(mode="max", padding_idx=2),
                                dict(max_norm=1.0), dict(mode="mean", include_last_offset=True)])
def test_embedding_bag_module(kw):
    torch.manual_seed(0)
    mt, me = torch.nn.EmbeddingBag(10, 3, **kw), et.nn.EmbeddingBag(10, 3, **kw)
    assert repr(me) == repr(mt)
    if "padding_idx" in kw:
        assert not me.weight.detach().numpy()[kw["padding_idx"]].any()
    me.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    inp, off = np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 3, 8])
    out_t = mt(torch.tensor(inp), torch.tensor(off))
    out_e = me(et.tensor(inp), et.tensor(off))
    np.testing.assert_allclose(out_e.detach().numpy(), out_t.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    out_t.square().sum().backward()
    out_e.square().sum().backward()
    np.testing.assert_allclose(me.weight.grad.numpy(), mt.weight.grad.numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(me.weight.detach().numpy(), mt.weight.detach().numpy(),
                               rtol=1e-5, atol=1e-6)  # max_norm renormalized both alike


def test_gumbel_softmax():
    ember.manual_seed(0)
    x = ember.tensor(rand((500, 4))).require_grad()
    y = ember.nn.functional.gumbel_softmax(x, tau=0.5)
    np.testing.assert_allclose(y.sum(-1).numpy(), 1.0, rtol=1e-5)
    h = ember.nn.functional.gumbel_softmax(x, hard=True, dim=-1)
    hn = h.detach().numpy()
    assert set(np.unique(hn)) <= {0.0, 1.0} and (hn.sum(-1) == 1).all()
    (h * ember.arange(4.0)).sum().backward()
    assert x.grad is not None and np.isfinite(x.grad.numpy()).all()
    # samples follow softmax(logits): the argmax frequencies approach the probabilities
    logits = ember.tensor([[0.0, 1.0, 2.0]]).expand(20000, 3)
    freq = ember.nn.functional.gumbel_softmax(logits, hard=True).numpy().mean(0)
    np.testing.assert_allclose(freq, torch.softmax(torch.tensor([0.0, 1.0, 2.0]), 0).numpy(),
                               atol=0.02)


NEW = ["LeakyReLU", "ELU", "SELU", "CELU", "Mish", "Softplus", "Softsign", "Hardtanh", "ReLU6",
       "Hardsigmoid", "Hardswish", "Hardshrink", "Softshrink", "Tanhshrink", "Threshold",
       "LogSigmoid", "Softmin", "Softmax2d", "PReLU", "RReLU", "GLU", "Conv1d",
       "ConvTranspose1d", "ConvTranspose2d", "Unfold", "Fold", "MaxPool1d", "AvgPool1d",
       "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
       "LPPool1d", "LPPool2d", "ZeroPad2d", "ReflectionPad2d", "Upsample", "PixelShuffle",
       "ChannelShuffle", "GroupNorm", "InstanceNorm2d", "RMSNorm", "LocalResponseNorm",
       "Dropout2d", "AlphaDropout", "KLDivLoss", "TripletMarginLoss", "CosineSimilarity",
       "PairwiseDistance", "Bilinear", "Unflatten", "EmbeddingBag"]


def test_torch_facade_has_the_new_layers():
    for name in NEW:
        cls = getattr(et.nn, name)
        assert issubclass(cls, et.nn.Module) and issubclass(cls, getattr(ember.nn, name))
    m = et.nn.Sequential(et.nn.Conv1d(2, 4, 3), et.nn.LeakyReLU(0.2), et.nn.GroupNorm(2, 4))
    t = torch.nn.Sequential(torch.nn.Conv1d(2, 4, 3), torch.nn.LeakyReLU(0.2),
                            torch.nn.GroupNorm(2, 4))
    assert repr(m) == repr(t)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert type(m(et.ones(1, 2, 5))) is et.Tensor


def test_bad_arguments():
    F = ember.nn.functional
    w = ember.ones(10, 3)
    with pytest.raises(InvalidParameterError):
        F.embedding_bag(ember.tensor([1, 2]), w)
    with pytest.raises(InvalidParameterError):
        F.embedding_bag(ember.tensor([[1, 2]]), w, mode="median")
    with pytest.raises(KindError):
        F.embedding_bag(ember.tensor([[1.0, 2.0]]), w)
    with pytest.raises(InvalidParameterError):
        F.embedding_bag(ember.tensor([[1, 2]]), w, mode="max",
                        per_sample_weights=ember.ones(1, 2))
    with pytest.raises(InvalidParameterError):
        F.embedding_bag(ember.tensor([1, 2]), w, ember.tensor([1]))
    with pytest.raises(ShapeMismatchError):
        F.bilinear(ember.ones(2, 3), ember.ones(2, 4), ember.ones(1, 3, 3))
    with pytest.raises(InvalidParameterError):
        F.gumbel_softmax(ember.ones(3), tau=0.0)
    with pytest.raises(InvalidParameterError):
        ember.nn.EmbeddingBag(5, 2, sparse=True)
    with pytest.raises(InvalidParameterError):
        ember.nn.Unflatten(1, 3)
