"""ember.torch's in-place methods against PyTorch: the value rebound, self returned, dtype and
shape rules, gradients through an updated non-leaf, the leaf rule and ``p.data``."""

import math

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError

rng = np.random.default_rng(1)


def same(e, t, tol=1e-5):
    assert isinstance(e, et.Tensor)
    assert tuple(e.shape) == tuple(t.shape)
    assert e.dtype.name == str(t.dtype).replace("torch.", "")
    np.testing.assert_allclose(np.asarray(e.tolist(), dtype=np.complex128).reshape(tuple(t.shape)),
                               t.detach().numpy().astype(np.complex128), rtol=tol, atol=tol)


def pos(*shape):
    return (rng.random(shape) + 0.5).astype(np.float32)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def check(name, a, *args, **kwargs):
    """``x.name(*args)`` on both: the same object back, the same value in it."""
    t, e = torch.tensor(a), et.tensor(a)
    targs = [torch.tensor(v) if isinstance(v, np.ndarray) else v for v in args]
    eargs = [et.tensor(v) if isinstance(v, np.ndarray) else v for v in args]
    rt = getattr(t, name)(*targs, **kwargs)
    re = getattr(e, name)(*eargs, **kwargs)
    assert rt is t and re is e
    same(e, t)


UNARY = ["abs_", "neg_", "exp_", "log_", "sqrt_", "sigmoid_", "tanh_", "relu_", "floor_",
         "ceil_", "round_", "trunc_", "sin_", "cos_", "reciprocal_", "square_", "sign_",
         "expm1_", "log1p_", "rsqrt_", "absolute_", "negative_", "fix_", "arcsin_",
         "erf_", "deg2rad_", "t_"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 2)])
def test_unary(name, shape):
    a = pos(*shape) if name in ("log_", "sqrt_", "rsqrt_", "log1p_") else \
        np.clip(f32(*shape), -0.9, 0.9)
    if name == "t_" and len(shape) > 2:
        return
    check(name, a)


@pytest.mark.parametrize("name,other", [("add_", 1.5), ("sub_", "t"), ("mul_", "t"),
                                        ("div_", "t"), ("pow_", 2), ("fmod_", "t"),
                                        ("remainder_", "t"), ("clamp_min_", 0.1),
                                        ("clamp_max_", "t"), ("eq_", "t"), ("lt_", 0.0),
                                        ("ge_", "t"), ("ne_", "t"), ("gt_", "row"),
                                        ("le_", "row"), ("multiply_", 3), ("subtract_", "row"),
                                        ("divide_", 2.0), ("true_divide_", "t"),
                                        ("atan2_", "t"), ("hypot_", "t"), ("logical_and_", "t")])
def test_binary(name, other):
    a = f32(3, 4)
    o = {"t": pos(3, 4), "row": f32(4)}.get(other, other) if isinstance(other, str) else other
    check(name, a, o)
    if other != "row":
        check(name, a.T, o.T if isinstance(o, np.ndarray) else o)  # non-contiguous


def test_arith_options():
    a, b = f32(2, 3), pos(2, 3)
    check("add_", a, b, alpha=-2)
    check("sub_", a, b, alpha=0.5)
    check("div_", a, b, rounding_mode="floor")
    check("div_", a, b, rounding_mode="trunc")
    check("clamp_", a, -0.5, 0.5)
    check("clamp_", a, min=0.0)
    check("clip_", a, max=0.2)
    check("addcmul_", a, b, f32(2, 3), value=0.5)
    check("addcdiv_", a, f32(2, 3), b, value=-2)
    check("lerp_", a, b, 0.3)
    check("lerp_", a, b, pos(2, 3))
    check("round_", a * 10, decimals=1)
    ints = np.arange(-6, 6).reshape(3, 4)
    check("add_", ints, 3)
    check("mul_", ints, ints)
    check("div_", ints, 4, rounding_mode="floor")
    check("remainder_", ints, 4)
    check("fmod_", ints, -4)
    check("bitwise_and_", ints, 5)
    check("eq_", ints, 0)


@pytest.mark.parametrize("call", [lambda x: x.add_(0.5), lambda x: x.div_(2),
                                  lambda x: x.mul_(1.5), lambda x: x.sqrt_(),
                                  lambda x: x.add_(1, alpha=0.5)])
def test_refused_dtype(call):
    t, e = torch.arange(3), et.arange(3)
    with pytest.raises(RuntimeError):
        call(t)
    with pytest.raises(KindError) as info:
        call(e)
    assert e.tolist() == [0, 1, 2]
    assert "int64" in str(info.value) or "integral" in str(info.value)


def test_refused_shape_and_lower_dtype_cast():
    with pytest.raises(RuntimeError):
        torch.ones(3).add_(torch.ones(2, 3))
    with pytest.raises(ShapeMismatchError):
        et.ones(3).add_(et.ones(2, 3))
    # a float64 operand into a float32 tensor is cast, as PyTorch does
    t, e = torch.ones(3), et.ones(3)
    t.add_(torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64))
    e.add_(et.tensor([0.1, 0.2, 0.3], dtype=et.float64))
    same(e, t)


def test_leaf_rule():
    t = torch.ones(2, requires_grad=True)
    e = et.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        t.add_(1)
    with pytest.raises(GraphError):
        e.add_(1)
    with pytest.raises(GraphError):
        e.exp_()
    with torch.no_grad():
        t.mul_(3)
    with et.no_grad():
        assert e.mul_(3) is e
    same(e, t)
    assert e.is_leaf and e.requires_grad


def test_gradient_through_updated_non_leaf():
    a, b = f32(2, 3), pos(2, 3)
    xt, xe = torch.tensor(a, requires_grad=True), et.tensor(a, requires_grad=True)
    wt, we = torch.tensor(b, requires_grad=True), et.tensor(b, requires_grad=True)
    for x, w in ((xt, wt), (xe, we)):
        y = x * 2
        y.add_(w, alpha=3).mul_(w).sub_(x).exp_()
        y.sum().backward()
    same(xe.grad, xt.grad)
    same(we.grad, wt.grad)


def test_data_updates_owner():
    t, e = torch.ones(3, requires_grad=True), et.ones(3, requires_grad=True)
    for p, m in ((t, torch), (e, et)):
        p.data.add_(m.tensor([1.0, 2.0, 3.0]))
        p.data.mul_(2)
        p.data.clamp_(max=7.0)
        p.data.fill_(p.data[0].item())
    same(e, t)
    e.data.zero_()
    assert e.tolist() == [0.0, 0.0, 0.0] and e.is_leaf and e.requires_grad


@pytest.mark.parametrize("name,args", [
    ("masked_fill_", ("mask", -1.0)), ("index_add_", (0, "rows", "src")),
    ("index_fill_", (1, "cols", 2.0)), ("index_copy_", (0, "urows", "src")),
    ("scatter_", (1, "sidx", "ssrc")), ("scatter_add_", (1, "sidx", "ssrc")),
    ("scatter_reduce_", (1, "sidx", "ssrc", "amax")), ("masked_scatter_", ("mask", "flat")),
    ("index_put_", (("urows",), "src")), ("put_", ("flatidx", "two")),
    ("index_reduce_", (0, "rows", "src", "prod")), ("tril_", (1,)), ("triu_", (-1,)),
    ("transpose_", (0, 1)), ("unsqueeze_", (1,)), ("squeeze_", ()), ("swapdims_", (1, 0)),
])
def test_structural(name, args):
    table = {"mask": rng.random((3, 4)) > 0.5, "rows": np.array([0, 2, 0]),
             "urows": np.array([2, 0, 1]), "cols": np.array([3, 1]), "src": f32(3, 4),
             "sidx": np.array([[0, 3], [1, 1], [2, 0]]), "ssrc": f32(3, 2), "flat": f32(12),
             "flatidx": np.array([0, 11]), "two": f32(2)}

    def resolve(v, m):
        if isinstance(v, tuple):
            return tuple(resolve(u, m) for u in v)
        return m.tensor(table[v]) if isinstance(v, str) and v in table else v

    a = f32(3, 4)
    t, e = torch.tensor(a), et.tensor(a)
    assert getattr(t, name)(*resolve(args, torch)) is t
    assert getattr(e, name)(*resolve(args, et)) is e
    same(e, t)


def test_squeeze_unsqueeze_shapes():
    t, e = torch.ones(1, 3, 1), et.ones(1, 3, 1)
    t.squeeze_(0)
    e.squeeze_(0)
    assert e.shape == t.shape
    assert e.t_() is e and tuple(e.shape) == tuple(t.t_().shape) == (1, 3)
    assert e.unsqueeze_(-1) is e and tuple(e.shape) == tuple(t.unsqueeze_(-1).shape)
    t.squeeze_()
    e.squeeze_()
    assert tuple(e.shape) == (3,) == tuple(t.shape)


def test_fill_diagonal():
    for shape, wrap in (((3, 3), False), ((2, 4), False), ((7, 3), True), ((7, 3), False),
                        ((3, 3, 3), False), ((0, 2), False)):
        t, e = torch.zeros(shape), et.zeros(shape)
        assert t.fill_diagonal_(5.0, wrap) is t
        assert e.fill_diagonal_(5.0, wrap) is e
        same(e, t)
    with pytest.raises(ShapeMismatchError):
        et.zeros(2, 3, 3).fill_diagonal_(1)


def test_detach_and_requires_grad():
    x = et.ones(2, requires_grad=True)
    y = x * 2
    assert y.detach_() is y
    assert not y.requires_grad and y.is_leaf
    t = torch.ones(2, requires_grad=True) * 2
    t.detach_()
    assert t.requires_grad == y.requires_grad


def test_random_fills():
    g = et.Generator().manual_seed(0)
    x = et.zeros(4000)
    assert x.bernoulli_(0.3, generator=g) is x
    assert abs(x.mean().item() - 0.3) < 0.05 and set(x.tolist()) <= {0.0, 1.0}
    x.exponential_(2.0, generator=g)
    assert abs(x.mean().item() - 0.5) < 0.05 and x.min().item() >= 0
    x.geometric_(0.25, generator=g)
    assert abs(x.mean().item() - 4.0) < 0.3 and x.min().item() >= 1
    assert x.tolist() == [math.floor(v) for v in x.tolist()]
    x.log_normal_(0.0, 0.5, generator=g)
    assert abs(x.log().mean().item()) < 0.05 and abs((x.log() ** 2).mean().item() - 0.25) < 0.03
    x.cauchy_(1.0, 2.0, generator=g)
    assert abs(x.median().item() - 1.0) < 0.3
    i = et.zeros(2000, dtype=et.int64).random_(3, 7, generator=g)
    assert set(i.tolist()) == {3, 4, 5, 6} and i.dtype == et.int64
    i.random_(5)
    assert set(i.tolist()) == {0, 1, 2, 3, 4}
    assert et.zeros(2000, dtype=et.bool).random_().tolist().count(True) > 800
    f = et.zeros(1000).random_()
    assert f.min().item() >= 0 and f.max().item() <= 2 ** 24
    b = et.zeros(3, dtype=et.int32).bernoulli_(et.tensor([0.0, 1.0, 1.0]))
    assert b.tolist() == [0, 1, 1] and b.dtype == et.int32
    # PyTorch agrees on the support
    assert set(torch.zeros(2000, dtype=torch.int64).random_(3, 7).tolist()) == {3, 4, 5, 6}


def test_random_fill_errors():
    with pytest.raises(InvalidParameterError):
        et.zeros(2).bernoulli_(1.5)
    with pytest.raises(InvalidParameterError):
        et.zeros(2).exponential_(0.0)
    with pytest.raises(InvalidParameterError):
        et.zeros(2).geometric_(0.0)
    with pytest.raises(KindError):
        et.zeros(2, dtype=et.int64).exponential_()
    with pytest.raises(InvalidParameterError):
        et.zeros(2).random_(5, 3)
    with pytest.raises(GraphError):
        et.zeros(2, requires_grad=True).normal_()
