"""Tests of ember/ops/inplace.py (named apart from tests/optim/test_inplace.py): Tensor.data,
copy_, fill_, zero_, normal_, uniform_ against PyTorch (values, shapes, dtypes, broadcasting,
gradients), the rebinding contract (same object, other tensors and views unchanged, leaves stay
leaves), and bad input."""

import doctest

import numpy as np
import pytest
import torch

import ember
from ember.ops import inplace
from oracle import assert_close, assert_unchanged, layouts, random_array, snapshot, to_torch

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_copy_fill_zero_match_torch(rng, shape, dtype):
    for _, arr in layouts(random_array(rng, shape, dtype)):
        src_arr = random_array(rng, shape[1:], "float64")  # broadcasts over dim 0
        for make_src in (lambda: ember.from_numpy(src_arr), lambda: ember.tensor(2.5)):
            t = ember.from_numpy(arr)
            src = make_src()
            before = snapshot(src)
            other = ember.from_numpy(arr)
            tt = to_torch(t)
            assert t.copy_(src) is t
            tt.copy_(to_torch(src))
            assert_close(t, tt)
            assert_unchanged([src], before)
            assert_close(other, to_torch(ember.from_numpy(arr)))  # another tensor: unchanged
        t, tt = ember.from_numpy(arr), to_torch(ember.from_numpy(arr))
        assert t.fill_(3).dtype.name == dtype
        assert_close(t, tt.fill_(3))
        assert_close(t.fill_(ember.tensor(-1.0)), tt.fill_(torch.tensor(-1.0)))
        assert_close(t.zero_(), tt.zero_())


def test_writing_keeps_the_object_and_reaches_views():
    t = ember.arange(6.0).reshape(2, 3)
    view, alias = t[0], t
    t.copy_(ember.ones(3))
    assert alias is t and t.tolist() == [[1.0] * 3] * 2
    assert view.tolist() == [1.0, 1.0, 1.0]


def test_copy_gradient_flows_to_src_as_torch(rng):
    src_arr = rng.standard_normal((1, 4))
    seed = rng.standard_normal((3, 4))
    src = ember.tensor(src_arr).require_grad()
    t = ember.zeros(3, 4, dtype="float64")
    t.copy_(src * 2)
    t.backward(ember.tensor(seed))
    srct = torch.tensor(src_arr, requires_grad=True)
    tt = torch.zeros(3, 4, dtype=torch.float64)
    tt.copy_(srct * 2)
    tt.backward(torch.tensor(seed))
    assert_close(src.grad, srct.grad)


def test_leaf_requiring_grad_updates_only_under_no_grad():
    w = ember.ones(3).require_grad()
    before = snapshot(w)
    for fn in (lambda: w.fill_(0), lambda: w.zero_(), lambda: w.copy_(ember.zeros(3)),
               lambda: w.normal_(), lambda: w.uniform_()):
        with pytest.raises(ember.GraphError, match="leaf that requires grad"):
            fn()
    assert_unchanged([w], before)
    wt = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        wt.fill_(0)
    with ember.no_grad():
        w.fill_(2.0)
    assert w.tolist() == [2.0] * 3 and w.is_leaf and w.is_require_grad()
    (w * w).sum().backward()
    assert w.grad.tolist() == [4.0] * 3


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_normal_uniform_statistics_match_torch(dtype):
    ember.manual_seed(0)
    torch.manual_seed(0)
    t = ember.zeros(200, 100, dtype=dtype)
    tt = torch.zeros(200, 100, dtype=getattr(torch, dtype))
    assert t.normal_(1.5, 0.5) is t and t.dtype.name == dtype and t.shape == (200, 100)
    tt.normal_(1.5, 0.5)
    a, b = np.asarray(t.numpy(), np.float64), tt.double().numpy()
    assert abs(a.mean() - b.mean()) < 0.02 and abs(a.std() - b.std()) < 0.02
    t.uniform_(-2.0, 3.0)
    tt.uniform_(-2.0, 3.0)
    a, b = np.asarray(t.numpy(), np.float64), tt.double().numpy()
    assert a.min() >= -2.0 and a.max() <= 3.0
    assert abs(a.mean() - b.mean()) < 0.05 and abs(a.std() - b.std()) < 0.05


def test_normal_uniform_generator_reproduces():
    g = ember.Generator().manual_seed(3)
    a = ember.zeros(5).normal_(generator=g).tolist()
    b = ember.zeros(5).uniform_(generator=g).tolist()
    g.manual_seed(3)
    assert ember.zeros(5).normal_(generator=g).tolist() == a
    assert ember.zeros(5).uniform_(generator=g).tolist() == b
    assert a != b


def test_data_reads_detached_and_writes_through():
    p = ember.tensor([1.0, 2.0]).require_grad()
    d = p.data
    assert d.tolist() == [1.0, 2.0] and not d.is_tracked()
    d.zero_()
    assert p.tolist() == [0.0, 0.0] and p.is_leaf and p.is_require_grad()
    p.data[1] = 5.0
    assert p.tolist() == [0.0, 5.0]
    p.data.copy_(ember.tensor([3.0, 4.0]))
    ember.nn.init.ones_(p.data)
    assert p.tolist() == [1.0, 1.0]
    p.data = ember.tensor([[7.0]])                                   # PyTorch allows a new shape
    assert p.shape == (1, 1) and p.is_require_grad()
    pt = torch.tensor([1.0, 2.0], requires_grad=True)
    pt.data.zero_()
    pt.data[1] = 5.0
    assert pt.tolist() == [0.0, 5.0]


def test_bad_input_raises_typed_errors():
    t = ember.zeros(2, 3)
    i = ember.zeros(2, dtype="int64")
    before = snapshot(t, i)
    cases = [
        (lambda: t.copy_([1, 2, 3]), ember.InvalidParameterError, r"copy_: src must be a Tensor"),
        (lambda: t.copy_(ember.zeros(4)), ember.ShapeMismatchError,
         r"copy_: src of shape \(4,\) does not broadcast to the tensor's shape \(2, 3\)"),
        (lambda: t.copy_(ember.zeros(1, 2, 3)), ember.ShapeMismatchError, r"copy_"),
        (lambda: t.fill_("a"), ember.InvalidParameterError, r"fill_: value must be a number"),
        (lambda: t.fill_(ember.zeros(3)), ember.ShapeMismatchError, r"fill_: value has shape"),
        (lambda: i.normal_(), ember.KindError, r"normal_: not defined for int tensors"),
        (lambda: i.uniform_(), ember.KindError, r"uniform_"),
        (lambda: t.normal_(std=-1.0), ember.InvalidParameterError, r"normal_: std is -1.0"),
        (lambda: t.uniform_(2.0, 1.0), ember.InvalidParameterError, r"from_=2.0 is above"),
        (lambda: t.normal_(generator=3), ember.InvalidParameterError, r"generator must be"),
        (lambda: setattr(t, "data", [1.0]), ember.InvalidParameterError, r"data: value must"),
    ]
    for fn, err, pattern in cases:
        with pytest.raises(err, match=pattern):
            fn()
    assert_unchanged([t, i], before)


def test_module_doctests():
    result = doctest.testmod(inplace)
    assert result.attempted > 5 and result.failed == 0
