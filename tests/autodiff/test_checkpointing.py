"""Gradient checkpointing: "balanced" recomputes memory-bound steps in backward instead of
keeping their arrays; gradients are identical to "none" and the peak memory is lower."""

import tracemalloc

import numpy as np
import pytest

import ember
from ember import GraphError


def _leaf(values, strategy):
    return ember.tensor(values).with_gradient_checkpointing_strategy(strategy).require_grad()


def _deep_chain(x, depth):
    y = x
    for i in range(depth):
        y = (y.sin() * y).tanh() if i % 2 else (y * 1.0001).exp().relu() * 0.5
    return y


def _measure(strategy, depth=30, size=100_000):
    x = _leaf(np.random.default_rng(0).standard_normal(size), strategy)
    tracemalloc.start()
    try:
        loss = _deep_chain(x, depth).sum()
        after_forward = tracemalloc.get_traced_memory()[0]
        grad = loss.backward().get(x).numpy().copy()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return after_forward, peak, grad


def test_balanced_saves_memory_with_identical_gradients():
    kept_none, peak_none, grad_none = _measure("none")
    kept_bal, peak_bal, grad_bal = _measure("balanced")
    np.testing.assert_array_equal(grad_bal, grad_none)
    array_bytes = 100_000 * 4
    # "none" keeps every intermediate array alive until backward; "balanced" keeps none of them
    assert kept_none > 60 * array_bytes
    assert kept_bal < 4 * array_bytes
    # and the peak over forward and backward is less than half
    assert peak_bal < 0.5 * peak_none


@pytest.mark.parametrize("strategy", ["none", "balanced"])
def test_gradients_match_pytorch_on_a_mixed_graph(strategy):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    xs, ws, bs = rng.standard_normal((4, 3)), rng.standard_normal((3, 5)), rng.standard_normal(5)
    x, w, b = (_leaf(a, strategy) for a in (xs, ws, bs))
    h = (x @ w + b).tanh()               # matmul output is kept, the rest recomputed
    shared = h.exp()                     # one recomputed step used by two consumers
    loss = ((shared * h).sigmoid() + shared / 3.0 - 2.0 * h.relu()).sum()
    grads = loss.backward()
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (xs, ws, bs))
    th = torch.tanh(tx @ tw + tb)
    tshared = th.exp()
    (torch.sigmoid(tshared * th) + tshared / 3.0 - 2.0 * torch.relu(th)).sum().backward()
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(grads.get(ours).numpy(), theirs.grad.numpy(), rtol=1e-6)


def test_recomputed_steps_are_consumed_like_any_other():
    x = _leaf([0.5, 1.5], "balanced")
    y = x.exp().sin()
    y.sum().backward()
    with pytest.raises(GraphError, match="consumed"):
        y.sum().backward()
    # the leaf is reusable in a fresh forward
    assert (x.exp() * 1.0).sum().backward().get(x).tolist() == pytest.approx(np.exp([0.5, 1.5]))


def test_strategy_is_inherited_and_reported():
    x = _leaf([1.0], "balanced")
    assert x.exp().gradient_checkpointing_strategy() == "balanced"
    assert ember.tensor([1.0]).gradient_checkpointing_strategy() == "none"
    with pytest.raises(ember.InvalidParameterError, match="strategy"):
        ember.tensor([1.0]).with_gradient_checkpointing_strategy("lazy")
