"""PyTorch's other losses and distances (functions and modules) against torch."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check, rand

RED = ["mean", "sum", "none"]


def _F(m):
    return m.nn.functional


def _probs(shape, seed=0):
    p = np.exp(rand(shape, seed=seed))
    return (p / p.sum(-1, keepdims=True)).astype("float32")


def _pm1(shape, seed=0):
    return np.where(rand(shape, seed=seed) > 0, 1.0, -1.0).astype("float32")


@pytest.mark.parametrize("red", RED + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(red, log_target):
    t = _probs((3, 5), 1)
    t[0, 1] = 0.0
    if log_target:
        t = np.log(_probs((3, 5), 1))
    # a zero target has no finite gradient (PyTorch's is NaN): the target is a constant here
    check(lambda m, x: _F(m).kl_div(x, m.tensor(t), reduction=red, log_target=log_target),
          np.log(_probs((3, 5))))
    check(lambda m, x, y: _F(m).kl_div(x, y, reduction=red, log_target=log_target),
          np.log(_probs((3, 5))), np.log(_probs((3, 5), 2)) if log_target else _probs((3, 5), 2))


@pytest.mark.parametrize("red", RED)
@pytest.mark.parametrize("log_input,full", [(True, False), (False, False), (True, True),
                                            (False, True)])
def test_poisson_nll(red, log_input, full):
    x = rand((4, 3)) if log_input else np.abs(rand((4, 3))) + 0.1
    t = np.floor(np.abs(rand((4, 3), seed=1)) * 3).astype("float32")
    check(lambda m, a: _F(m).poisson_nll_loss(a, m.tensor(t), log_input, full, reduction=red),
          x, atol=1e-5)
    if not full:
        check(lambda m, a, b: _F(m).poisson_nll_loss(a, b, log_input, full, reduction=red), x,
              t, atol=1e-5)


@pytest.mark.parametrize("red", RED)
@pytest.mark.parametrize("vshape", [(4, 3), (4,), (4, 1)])
def test_gaussian_nll(red, vshape):
    v = np.abs(rand(vshape, seed=2)) + 0.05
    v.flat[0] = 1e-8  # below eps: clamped, gradient passes
    check(lambda m, a, b, var: _F(m).gaussian_nll_loss(a, b, var, full=True, reduction=red),
          rand((4, 3)), rand((4, 3), seed=1), v, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("red", RED)
def test_cosine_embedding(red):
    check(lambda m, a, b, y: _F(m).cosine_embedding_loss(a, b, y, margin=0.2, reduction=red),
          rand((5, 4)), rand((5, 4), seed=1), _pm1((5,), 2))
    check(lambda m, a, b, y: _F(m).cosine_embedding_loss(a, b, y, reduction=red),
          rand((4,)), rand((4,), seed=1), np.array(-1.0, "float32"), grad=True)


@pytest.mark.parametrize("red", RED)
def test_ranking_hinge_soft_margin(red):
    check(lambda m, a, b, y: _F(m).margin_ranking_loss(a, b, y, margin=0.3, reduction=red),
          rand((6,)), rand((6,), seed=1), _pm1((6,), 2))
    check(lambda m, a, y: _F(m).hinge_embedding_loss(a, y, margin=0.7, reduction=red),
          rand((3, 4)), _pm1((3, 4), 2))
    y = _pm1((3, 4), 2)
    check(lambda m, a: _F(m).soft_margin_loss(a, m.tensor(y), reduction=red), rand((3, 4)))


@pytest.mark.parametrize("red", RED)
def test_multilabel_soft_margin(red):
    t = (rand((3, 5), seed=1) > 0).astype("float32")
    check(lambda m, a, y, w: _F(m).multilabel_soft_margin_loss(a, y, w, reduction=red),
          rand((3, 5)), t, np.abs(rand((5,), seed=2)))
    check(lambda m, a, y: _F(m).multilabel_soft_margin_loss(a, y, reduction=red),
          rand((1, 4)), t[:1, :4])


@pytest.mark.parametrize("red", RED)
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin(red, p):
    y = np.array([0, 3, 1, 3, 2], "int64")
    w = np.abs(rand((4,), seed=2))
    check(lambda m, a, t: _F(m).multi_margin_loss(a, t, p=p, margin=0.7, weight=m.tensor(w),
                                                  reduction=red), rand((5, 4)), y)
    check(lambda m, a, t: _F(m).multi_margin_loss(a, t, p=p, reduction=red), rand((4,)),
          np.array(2, "int64"))


@pytest.mark.parametrize("red", RED)
def test_multilabel_margin(red):
    y = np.array([[3, 0, -1, 1, 2], [1, 2, 4, 0, -1], [-1, 0, 0, 0, 0]], "int64")
    check(lambda m, a, t: _F(m).multilabel_margin_loss(a, t, reduction=red), rand((3, 5)), y)
    check(lambda m, a, t: _F(m).multilabel_margin_loss(a, t, reduction=red), rand((4,)),
          np.array([2, 1, -1, 0], "int64"))


@pytest.mark.parametrize("red", RED)
@pytest.mark.parametrize("swap,p", [(False, 2), (True, 1), (True, 3)])
def test_triplet(red, swap, p):
    args = (rand((5, 4)), rand((5, 4), seed=1), rand((5, 4), seed=2))
    check(lambda m, a, b, c: _F(m).triplet_margin_loss(a, b, c, margin=2.0, p=p, swap=swap,
                                                       reduction=red), *args, atol=1e-5)
    check(lambda m, a, b, c: _F(m).triplet_margin_with_distance_loss(
        a, b, c, distance_function=lambda u, v: 1 - _F(m).cosine_similarity(u, v),
        swap=swap, reduction=red), *args, atol=1e-5)
    check(lambda m, a, b, c: _F(m).triplet_margin_with_distance_loss(a, b, c, reduction=red),
          *args, atol=1e-5)


@pytest.mark.parametrize("s1,s2,dim", [((3, 4), (3, 4), 1), ((2, 3, 4), (1, 3, 4), -1),
                                       ((5,), (5,), 0), ((4, 1), (4, 6), 0)])
def test_cosine_similarity(s1, s2, dim):
    check(lambda m, a, b: _F(m).cosine_similarity(a, b, dim=dim), rand(s1), rand(s2, seed=1))


def test_cosine_similarity_zero_vector():
    check(lambda m, a, b: _F(m).cosine_similarity(a, b), np.zeros((2, 3), "float32"),
          rand((2, 3)))


@pytest.mark.parametrize("s1,s2,kw", [((3, 4), (3, 4), {}), ((5,), (5,), dict(p=1.0)),
                                      ((2, 3, 4), (3, 4), dict(keepdim=True, eps=0.1)),
                                      ((3, 4), (3, 4), dict(p=float("inf")))])
def test_pairwise_distance(s1, s2, kw):
    check(lambda m, a, b: _F(m).pairwise_distance(a, b, **kw), rand(s1), rand(s2, seed=1))


@pytest.mark.parametrize("shape,p", [((5, 3), 2), ((4, 2), 1), ((2, 6), 3.5), ((1, 3), 2)])
def test_pdist(shape, p):
    check(lambda m, a: _F(m).pdist(a, p), rand(shape), atol=1e-5)


MODULES = [
    ("KLDivLoss", dict(reduction="batchmean"), lambda: (np.log(_probs((3, 4))), _probs((3, 4), 1))),
    ("KLDivLoss", dict(log_target=True), lambda: (np.log(_probs((3, 4))),
                                                  np.log(_probs((3, 4), 1)))),
    ("PoissonNLLLoss", dict(full=True), lambda: (rand((3, 4)), np.abs(rand((3, 4), seed=1)) * 3)),
    ("GaussianNLLLoss", dict(reduction="sum"), lambda: (rand((3, 4)), rand((3, 4), seed=1),
                                                        np.abs(rand((3, 4), seed=2)) + 0.1)),
    ("CosineEmbeddingLoss", dict(margin=0.1), lambda: (rand((3, 4)), rand((3, 4), seed=1),
                                                       _pm1((3,), 2))),
    ("MarginRankingLoss", dict(margin=0.5), lambda: (rand((4,)), rand((4,), seed=1),
                                                     _pm1((4,), 2))),
    ("HingeEmbeddingLoss", {}, lambda: (rand((3, 4)), _pm1((3, 4), 2))),
    ("MultiLabelSoftMarginLoss", {}, lambda: (rand((3, 4)),
                                              (rand((3, 4), seed=1) > 0).astype("float32"))),
    ("MultiMarginLoss", dict(p=2), lambda: (rand((3, 4)), np.array([0, 3, 1], "int64"))),
    ("MultiLabelMarginLoss", {}, lambda: (rand((2, 3)), np.array([[2, -1, 0], [0, 1, -1]],
                                                                  "int64"))),
    ("TripletMarginLoss", dict(margin=1.5, swap=True), lambda: (rand((3, 4)), rand((3, 4), seed=1),
                                                                rand((3, 4), seed=2))),
    ("TripletMarginWithDistanceLoss", {}, lambda: (rand((3, 4)), rand((3, 4), seed=1),
                                                   rand((3, 4), seed=2))),
    ("CosineSimilarity", dict(dim=0), lambda: (rand((3, 4)), rand((3, 4), seed=1))),
    ("PairwiseDistance", dict(p=1.0, keepdim=True), lambda: (rand((3, 4)), rand((3, 4), seed=1))),
]


@pytest.mark.parametrize("cls,kw,data", MODULES, ids=[m[0] for m in MODULES])
def test_modules(cls, kw, data):
    mt, me = getattr(torch.nn, cls)(**kw), getattr(et.nn, cls)(**kw)
    assert repr(me) == repr(mt)
    assert isinstance(me, getattr(ember.nn, cls))
    check(lambda m, *a: (me if m is et else mt)(*a), *[a.astype(a.dtype) for a in data()],
          atol=1e-5)


def test_weighted_modules_keep_weight_buffers():
    w = np.abs(rand((4,)))
    for cls in ("MultiMarginLoss", "MultiLabelSoftMarginLoss"):
        mt, me = getattr(torch.nn, cls)(weight=torch.tensor(w)), getattr(et.nn, cls)(
            weight=et.tensor(w))
        assert list(me.state_dict()) == list(mt.state_dict()) == ["weight"]


def test_bad_arguments():
    F = ember.nn.functional
    x = ember.ones(3, 4)
    with pytest.raises(InvalidParameterError):
        F.kl_div(x, x, reduction="avg")
    with pytest.raises(InvalidParameterError):
        F.gaussian_nll_loss(x, x, -ember.ones(3, 4))
    with pytest.raises(ShapeMismatchError):
        F.gaussian_nll_loss(x, x, ember.ones(2))
    with pytest.raises(InvalidParameterError):
        F.multi_margin_loss(x, ember.tensor([0, 1, 2]), p=3)
    with pytest.raises(KindError):
        F.multi_margin_loss(x, ember.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(ShapeMismatchError):
        F.multilabel_margin_loss(x, ember.tensor([0, 1, 2]))
    with pytest.raises(ShapeMismatchError):
        F.pdist(ember.ones(3))
    with pytest.raises(InvalidParameterError):
        F.triplet_margin_with_distance_loss(x, x, x, margin=0.0)
    with pytest.raises(ShapeMismatchError):
        F.cosine_similarity(ember.ones(2, 3), ember.ones(2, 4))


@pytest.mark.parametrize("kw", [{}, dict(reduction="sum", label_smoothing=0.1),
                                dict(ignore_index=2, reduction="none")])
def test_linear_cross_entropy(kw):
    t = np.array([0, 2, 3, 1, 2])
    check(lambda m, x, w, b: _F(m).linear_cross_entropy(x, w, m.tensor(t), linear_bias=b, **kw),
          rand((5, 6)), rand((4, 6), seed=1), rand((4,), seed=2), atol=1e-5)


def test_linear_cross_entropy_k_dims_and_module():
    t = np.array([[0, 2], [3, 1]])
    check(lambda m, x, w: _F(m).linear_cross_entropy(x, w, m.tensor(t)), rand((2, 6)),
          rand((4, 2, 6), seed=1), atol=1e-5)
    torch.manual_seed(0)
    mt = torch.nn.LinearCrossEntropyLoss(6, 4, out_features=(2,), bias=True,
                                         options=torch.nn.LinearCrossEntropyOptions())
    me = et.nn.LinearCrossEntropyLoss(6, 4, out_features=(2,), bias=True,
                                      options=et.nn.LinearCrossEntropyOptions())
    assert repr(me) == repr(mt)
    assert list(me.state_dict()) == list(mt.state_dict())
    me.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    check(lambda m, x: (me if m is et else mt)(x, m.tensor(t)), rand((2, 6)), atol=1e-5)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(reduction="none"),
                                dict(weight=[1.0, 2.0, 0.5]), dict(label_smoothing=0.2)])
def test_an_ignored_row_with_nan_logits_stays_out_of_the_loss(kw):
    """PyTorch leaves an ignored row out of cross entropy whatever its logits hold. Its input
    gradient there is ember's documented zero (PyTorch's is NaN where the row's softmax is:
    docs/devices.md)."""
    x = np.array([[1.0, np.nan, 0.5], [0.0, 1.0, -1.0], [np.inf, 0.0, 2.0], [0.3, 0.2, 0.1]],
                 np.float32)
    t = np.array([-100, 1, -100, 2])
    ekw = dict(kw, weight=ember.tensor(np.float32(kw["weight"]))) if "weight" in kw else kw
    tkw = dict(kw, weight=torch.tensor(np.float32(kw["weight"]))) if "weight" in kw else kw
    ex = ember.tensor(x).require_grad()
    tx = torch.tensor(x, requires_grad=True)
    eo = ember.nn.functional.cross_entropy(ex, ember.tensor(t), **ekw)
    to = torch.nn.functional.cross_entropy(tx, torch.tensor(t), **tkw)
    np.testing.assert_allclose(eo.numpy(), to.detach().numpy(), rtol=1e-6)
    assert np.isfinite(eo.numpy()).all()
    eo.backward(ember.ones_like(eo))
    to.backward(torch.ones_like(to))
    kept = t != -100
    np.testing.assert_allclose(ex.grad.numpy()[kept], tx.grad.numpy()[kept], rtol=1e-6, atol=1e-7)
    assert (ex.grad.numpy()[~kept] == 0).all()
