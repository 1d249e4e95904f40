"""ember.torch.Tensor: results keep PyTorch's methods, conversions share buffers, printing and
torch.Size as PyTorch's."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et


def _pair():
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    return et.tensor(a), torch.tensor(a)


def test_results_of_every_kind_of_call_have_pytorch_methods():
    x, tx = _pair()
    results = [x + 1, 1 - x, x * x, -x, x.exp(), x[0], x.T, x @ x.T, x.sum(0), et.exp(x),
               et.cat([x, x]), x.softmax(1), et.stack([x, x])[0], list(x)[0], x.split(1)[0]]
    for r in results:
        assert type(r) is et.Tensor
    # the trap of the PyTorch tutorials: argmax(1) drops the dim, so == compares elementwise
    pred, y = (x * 2).argmax(1), et.tensor(tx.argmax(1).numpy())
    assert (pred == y).type(et.float).sum().item() == 3.0


def test_ember_api_keeps_its_meaning():
    a = ember.tensor([[1.0, 5.0], [4.0, 2.0]])
    assert a.argmax(1).shape == (2, 1)  # Burn's: the dim kept
    assert type(ember.exp(a)) is ember.Tensor
    assert et.as_torch(a).argmax(1).shape == (2,)
    assert a.argmax(1).shape == (2, 1)  # converting made a new object; a is unchanged


def test_conversions_share_buffer_graph_and_grad():
    w = ember.tensor([1.0, 2.0]).require_grad()
    tw = et.as_torch(w)
    (tw * tw).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0]
    assert tw.grad.tolist() == [2.0, 4.0] and type(tw.grad) is et.Tensor
    back = et.as_ember(tw)
    assert type(back) is ember.Tensor and back.argmax(0).shape == (1,)
    assert et.as_torch(tw) is tw


@pytest.mark.parametrize("op", ["add", "radd"])
def test_a_mixed_operator_gives_pytorch_tensors(op):
    a, b = ember.ones(2, 2), et.ones(2, 2)
    r = a + b if op == "add" else b + a
    assert type(r) is et.Tensor


def test_size_is_pytorch_size():
    x, tx = _pair()
    assert x.shape == tx.shape and x.size() == tx.size() and x.size(1) == tx.size(1)
    assert repr(x.shape) == repr(tx.shape) == "torch.Size([3, 4])"
    assert x.shape.numel() == tx.shape.numel() and x.shape[1:] == tx.shape[1:]
    assert isinstance(x.shape[1:], et.Size)


@pytest.mark.parametrize("values, dtype", [
    ([[1.0, 2.5], [3.0, -4.0]], "float32"), ([1.0, 2.0, 3.0], "float32"),
    ([1, 2, 3], "int64"), ([True, False], "bool"), ([1.5, 2.25], "float64"),
    ([[1, 2], [3, 4]], "int32"), (3.5, "float32"), ([], "float32"),
])
def test_printing_matches_pytorch(values, dtype):
    ours = et.tensor(values, dtype=getattr(et, dtype))
    theirs = torch.tensor(values, dtype=getattr(torch, dtype))
    assert repr(ours) == repr(theirs)


def test_printing_of_a_leaf_that_requires_grad():
    ours = et.tensor([1.0, 2.0], requires_grad=True)
    assert repr(ours) == repr(torch.tensor([1.0, 2.0], requires_grad=True))


def test_pytorch_methods_differing_from_ember():
    x, tx = _pair()
    assert x.var(1).shape == tx.var(1).shape
    np.testing.assert_allclose(x.var(1).numpy(), tx.var(1).numpy(), rtol=1e-5)
    v, i = x.topk(2)
    tv, ti = tx.topk(2)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    assert x.detach().requires_grad is False
    w = et.tensor([1.0], requires_grad=True)
    assert w.detach().requires_grad is tw_detach_requires_grad()
    assert et.tensor([3, 4]).div(et.tensor([2, 3])).tolist() == pytest.approx(
        torch.tensor([3, 4]).div(torch.tensor([2, 3])).tolist())
    assert et.tensor([3, -4]).div(2, rounding_mode="trunc").tolist() == \
        torch.tensor([3, -4]).div(2, rounding_mode="trunc").tolist()
    assert x.int().dtype is et.int32
    assert x.equal(x) is True and x.equal(x + 1) is False
    assert x.select(1, 2).shape == tx.select(1, 2).shape
    assert x.repeat(2, 1).shape == tx.repeat(2, 1).shape
    assert x.reshape(-1).shape == (12,)
    assert et.zeros(0, 3).reshape(0, 3).shape == (0, 3)
    assert x.type() == tx.type() == "torch.FloatTensor"


def tw_detach_requires_grad():
    return torch.tensor([1.0], requires_grad=True).detach().requires_grad


def test_format_as_pytorch():
    ours, theirs = et.tensor(-1.23456), torch.tensor(-1.23456)
    for spec in ("+.2f", ">7f", ".3e", ""):
        assert format(ours, spec) == format(theirs, spec)
    assert format(et.ones(2), "") == format(torch.ones(2), "")
    with pytest.raises(TypeError):
        format(et.ones(2), ".2f")
