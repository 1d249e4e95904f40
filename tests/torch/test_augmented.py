"""Augmented assignment on ember.torch tensors against PyTorch: values, dtypes, identity,
gradients through an updated intermediate, and the errors PyTorch raises."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import GraphError, KindError, ShapeMismatchError

OPS = ["+=", "-=", "*=", "/=", "//=", "%=", "**="]


def _apply(x, op, y):
    ns = {"x": x, "y": y}
    exec(f"x {op} y", ns)
    return ns["x"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("other", ["tensor", "row", "number"])
def test_float_updates_match_pytorch(op, other):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
    b = {"tensor": rng.uniform(0.5, 2.0, (2, 3)).astype(np.float32),
         "row": rng.uniform(0.5, 2.0, (3,)).astype(np.float32), "number": 1.5}[other]
    ours, theirs = et.tensor(a), torch.tensor(a)
    same = ours
    ours = _apply(ours, op, et.tensor(b) if other != "number" else b)
    theirs = _apply(theirs, op, torch.tensor(b) if other != "number" else b)
    assert ours is same  # in place: the object itself holds the result
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("op", ["&=", "|=", "^=", "<<=", ">>=", "+=", "*="])
def test_int_updates_match_pytorch(op):
    ours, theirs = _apply(et.tensor([5, 6, 7]), op, 2), _apply(torch.tensor([5, 6, 7]), op, 2)
    assert ours.tolist() == theirs.tolist() and ours.dtype is et.int64


def test_what_pytorch_refuses():
    x = et.tensor([1, 2])
    with pytest.raises(KindError, match="can't be cast"):
        x += 0.5  # torch: RuntimeError, result type Float can't be cast to Long
    assert x.tolist() == [1, 2]  # nothing half-applied
    y = et.ones(3)
    with pytest.raises(ShapeMismatchError, match="doesn't match the broadcast shape"):
        y += et.ones(2, 3)
    w = et.ones(2, requires_grad=True)
    with pytest.raises(GraphError):
        w += 1  # a leaf that requires grad, outside no_grad
    with pytest.raises(RuntimeError):
        t = torch.ones(2, requires_grad=True)
        t += 1


def test_an_updated_intermediate_differentiates_as_pytorch():
    a = np.array([1.0, -2.0, 3.0], np.float32)
    x, tx = et.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, ty = x * 2, tx * 2
    y *= x
    ty *= tx
    y += 1
    ty += 1
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_parameter_update_under_no_grad_keeps_the_leaf():
    w, tw = et.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    (w * 3).sum().backward()
    (tw * 3).sum().backward()
    with et.no_grad():
        w -= 0.1 * w.grad
    with torch.no_grad():
        tw -= 0.1 * tw.grad
    assert w.tolist() == pytest.approx(tw.tolist())
    assert w.is_leaf and w.requires_grad and tw.is_leaf
