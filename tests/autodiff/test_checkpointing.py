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


def test_balanced_gives_identical_gradients():
    np.testing.assert_array_equal(_measure("balanced")[2], _measure("none")[2])


@pytest.mark.numpy_only  # tracemalloc sees NumPy's buffers, not torch's
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


# -- constants, leaves and nn layers adopt the strategy of the graph they join --------------------
def test_constants_and_leaves_adopt_the_strategy_of_the_graph():
    x = _leaf([1.0, 2.0], "balanced")
    y = x * ember.ones(2)                  # a "none" constant joins a balanced leaf
    assert y.gradient_checkpointing_strategy() == "balanced"
    w = ember.tensor([3.0, 4.0]).require_grad()   # a "none" leaf joins the balanced graph
    z = (y.exp() * w).sum()
    assert z.gradient_checkpointing_strategy() == "balanced"
    grads = z.backward()
    np.testing.assert_allclose(grads.get(x).numpy(), np.exp([1.0, 2.0]) * [3.0, 4.0], rtol=1e-6)
    np.testing.assert_allclose(grads.get(w).numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    # a balanced constant joining a "none" graph adopts "none"
    h = ember.tensor([1.0]).require_grad().exp()
    c = ember.tensor([2.0]).with_gradient_checkpointing_strategy("balanced")
    assert (h * c).gradient_checkpointing_strategy() == "none"
    # an untracked balanced input with untracked "none" constants stays balanced
    assert (c + ember.ones(1)).gradient_checkpointing_strategy() == "balanced"


def test_two_recorded_graphs_of_different_strategies_still_raise():
    a = _leaf([1.0], "balanced").exp()
    b = _leaf([1.0], "none").exp()
    with pytest.raises(GraphError, match=r"mul: operands come from recorded steps of different "
                                         r"gradient-checkpointing strategies 'balanced' and 'none'"):
        a * b


def _mlp(seed):
    from ember import nn
    rng = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 32), nn.GELU(),
                          nn.LayerNorm(32), nn.Linear(32, 4))
    model.map(lambda name, t: ember.tensor(rng.standard_normal(t.shape) * 0.3, dtype=t.dtype))
    return model


@pytest.mark.parametrize("how", ["input", "module"])
def test_nn_training_with_checkpointing_matches_the_unchecked_run(how):
    from ember import optim
    import ember.nn.functional as F
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((20, 6)).astype(np.float32)
    ys = rng.integers(0, 4, size=20)
    runs = {}
    for strategy in ("none", "balanced"):
        model = _mlp(7)
        if how == "module":
            model.with_gradient_checkpointing_strategy(strategy)
        opt = optim.Adam(model.parameters(), lr=0.01)
        history = []
        for step in range(4):
            x = ember.tensor(xs[step * 5:step * 5 + 5])
            if how == "input":
                x = x.with_gradient_checkpointing_strategy(strategy)
            loss = F.cross_entropy(model(x), ember.tensor(ys[step * 5:step * 5 + 5]))
            assert loss.gradient_checkpointing_strategy() == strategy
            opt.zero_grad()
            loss.backward()
            history.append([p.grad.numpy().copy() for p in model.parameters()])
            opt.step()
        runs[strategy] = history, [p.numpy().copy() for p in model.parameters()]
    for got, want in zip(runs["balanced"][0], runs["none"][0]):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    for g, w in zip(runs["balanced"][1], runs["none"][1]):
        np.testing.assert_array_equal(g, w)


def test_module_strategy_sets_every_parameter_in_place():
    from ember import nn
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    before = list(model.parameters())
    assert model.with_gradient_checkpointing_strategy("balanced") is model
    assert all(p.gradient_checkpointing_strategy() == "balanced" for p in model.parameters())
    assert all(b.gradient_checkpointing_strategy() == "balanced" for b in model.buffers())
    assert all(p is q and p.is_require_grad() for p, q in zip(model.parameters(), before))
    # parameter-only steps (here w * 2) are balanced too, so a "balanced" graph can use them
    w = model[0].weight
    h = (w * 2.0).exp()
    assert h.gradient_checkpointing_strategy() == "balanced"
    with pytest.raises(ember.InvalidParameterError, match=r"strategy 'lazy' is unknown"):
        model.with_gradient_checkpointing_strategy("lazy")
    assert model[0].weight.gradient_checkpointing_strategy() == "balanced"
