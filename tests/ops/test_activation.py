"""The activations' Tensor methods (ember/ops/activation.py): ``x.softmax(dim)``,
``x.log_softmax(dim)``, ``x.gelu()`` and ``x.silu()`` against PyTorch, values and gradients
(``ember.nn.functional``'s forms are tested in tests/nn/test_functional.py)."""

import numpy as np
import pytest
import torch

import ember
from tests.oracle import assert_close, random_array, to_torch

SHAPES = [(), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


def _methods(dim):
    return {
        "softmax": (lambda x: x.softmax(dim), lambda t: t.softmax(dim)),
        "log_softmax": (lambda x: x.log_softmax(dim=dim), lambda t: t.log_softmax(dim=dim)),
        "gelu": (lambda x: x.gelu(), torch.nn.functional.gelu),
        "gelu_tanh": (lambda x: x.gelu(approximate="tanh"),
                      lambda t: torch.nn.functional.gelu(t, approximate="tanh")),
        "silu": (lambda x: x.silu(), torch.nn.functional.silu),
    }


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(_methods(0)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_methods_match_torch(shape, name, dtype):
    dim = -1 if shape else None
    if name.endswith("softmax") and not shape:
        dim = 0
    ours, theirs = _methods(dim)[name]
    rng = np.random.default_rng(len(shape) + len(name))
    x = ember.tensor(random_array(rng, shape, dtype)).require_grad()
    t = to_torch(x, requires_grad=True)
    y, u = ours(x), theirs(t)
    assert_close(y, u)
    if y.numel():
        g = ember.tensor(random_array(rng, shape, dtype))
        y.backward(g)
        u.backward(to_torch(g))
        assert_close(x.grad, t.grad)


def test_methods_are_the_functional_ops():
    import ember.nn.functional as F
    assert ember.Tensor.softmax is F.softmax and ember.Tensor.gelu is F.gelu
    x = ember.tensor([[1.0, float("-inf")], [float("nan"), 0.0]])
    out = x.softmax(1).tolist()
    assert out[0] == [1.0, 0.0]
    assert all(v != v for v in out[1])  # a NaN in the row: the whole row is NaN, as PyTorch
