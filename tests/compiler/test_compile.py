"""ember.compile: a recorded step replayed. The oracle is the same step run eagerly (bit for
bit: the replay runs the same kernels on the same arrays); the guards and fallbacks are checked
by their effects (a changed shape records again, an unreplayable step warns and runs eagerly).
Backend-independent: every pass runs it on its device."""

import os
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

import ember
import ember.torch as torch
from ember.errors import GraphError, InvalidParameterError, KindError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
import gpt  # noqa: E402
import small_models  # noqa: E402

F = torch.nn.functional


def _twins(setup):
    """The same step built twice (same weights, same data): one eager, one compiled."""
    torch.manual_seed(0)
    eager = setup()
    torch.manual_seed(0)
    return eager, ember.compile(setup())


def _gpt_setup(p=small_models.GPT_QUICK):
    p = dict(p)
    model = gpt.model("ember.torch", p, gpt.init_params(p, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=gpt.LR, weight_decay=gpt.WEIGHT_DECAY)

    def step(x, y):
        opt.zero_grad()
        loss = gpt.loss("ember.torch", model, x, y)
        loss.backward()
        opt.step()
        return loss
    step.model = model
    return step


def test_gpt_training_replays_bit_for_bit_over_200_steps():
    p = dict(small_models.GPT_QUICK)
    data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in gpt.batches(p, 5)]
    eager, compiled = _twins(_gpt_setup)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(200):
            x, y = data[i % len(data)]
            assert eager(x, y).item() == compiled(x, y).item(), i
    assert compiled.stats["replays"] == 197
    for a, b in zip(eager.model.parameters(), compiled.model.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize("sizes", ["MAKEMORE", "MINGPT"])
def test_the_benchmark_gpts_replay_bit_for_bit(sizes):
    p = getattr(small_models, sizes)
    data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in gpt.batches(dict(p), 5)]
    eager, compiled = _twins(lambda: _gpt_setup(p))
    losses = [(eager(*data[i % len(data)]).item(), compiled(*data[i % len(data)]).item())
              for i in range(30)]
    assert all(a == b for a, b in losses) and compiled.stats["replays"] == 27


def test_char_rnn_with_in_place_updates_replays_bit_for_bit():
    eager, compiled = _twins(lambda: small_models.char_rnn_setup(
        "ember.torch", dict(small_models.RNN_QUICK)))
    losses = [(eager().item(), compiled().item()) for _ in range(200)]
    assert all(a == b for a, b in losses)
    assert losses[0][0] != losses[-1][0]  # it trained
    assert compiled.stats["replays"] == 197


def test_plain_ember_step_with_sgd():
    def setup():
        w = ember.tensor([[0.5, -0.25], [0.125, 1.0]]).require_grad()
        opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)

        def step(x):
            opt.zero_grad()
            loss = (x.matmul(w).tanh() ** 2).mean()
            loss.backward()
            opt.step()
            return loss, w
        return step
    eager, compiled = setup(), ember.compile(setup())
    rng = np.random.default_rng(1)
    for _ in range(20):
        x = ember.tensor(rng.standard_normal((5, 2)).astype(np.float32))
        (la, wa), (lb, wb) = eager(x), compiled(x)
        assert la.item() == lb.item()
        assert wa.tolist() == wb.tolist()
    assert compiled.stats["replays"] == 17


def test_a_new_shape_records_again_and_each_shape_keeps_its_recording():
    f = ember.compile(lambda x: (x * 3.0).sum(-1))
    for n in (2, 5, 2, 5, 2, 5, 2, 5):
        out = f(ember.ones(3, n))
        assert out.tolist() == [3.0 * n] * 3
    assert f.stats == {"eager": 2, "recorded": 4, "replays": 2, "aborted": 0}
    assert f(ember.ones(3, 2, dtype=ember.float64)).dtype == ember.float64  # a new dtype: a key


def test_the_cache_keeps_cache_size_recordings():
    f = ember.compile(lambda x: x + 1.0, cache_size=2)
    for n in (1, 2, 3):
        for _ in range(3):
            f(ember.zeros(n))
    assert len(f._keys) == 2
    f(ember.zeros(1))  # evicted: eager again
    assert f.stats["replays"] == 0 and f.stats["eager"] == 4


def test_a_value_read_in_python_falls_back_with_one_warning():
    w = ember.tensor([1.0]).require_grad()

    def step(x):
        scale = x.sum().item()  # data-dependent Python
        return (w * scale).detach()
    f = ember.compile(step)
    with pytest.warns(UserWarning, match=r"reads a tensor's value in Python \(item"):
        for i in range(6):
            assert f(ember.full((2,), float(i))).tolist() == [2.0 * i]
    assert f.stats["replays"] == 0


def test_a_python_value_that_changes_between_calls_falls_back():
    count = [0]

    def step(x):
        count[0] += 1
        return x * float(count[0])
    f = ember.compile(step)
    with pytest.warns(UserWarning, match="differs between two calls"):
        outs = [f(ember.ones(1)).item() for _ in range(6)]
    assert outs == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_a_tensor_kept_outside_the_result_falls_back():
    kept = []

    def step(x):
        y = x * 2.0
        kept.append(y)
        return x + 1.0
    f = ember.compile(step)
    with pytest.warns(UserWarning, match="keeps a tensor it creates"):
        for _ in range(5):
            f(ember.ones(2))
    assert len(kept) == 5 and f.stats["replays"] == 0


def test_a_live_graph_in_the_result_falls_back_and_backward_still_works():
    w = ember.tensor([2.0]).require_grad()
    f = ember.compile(lambda x: (w * x).sum())
    with pytest.warns(UserWarning, match="requires grad"):
        for _ in range(4):
            loss = f(ember.ones(1))
    loss.backward()
    assert w.grad.tolist() == [1.0]


def test_the_returned_loss_has_a_consumed_graph_as_in_eager():
    eager, compiled = _twins(lambda: small_models.char_rnn_setup(
        "ember.torch", dict(small_models.RNN_QUICK)))
    for _ in range(4):
        a, b = eager(), compiled()
    assert compiled.stats["replays"] == 1
    assert a.requires_grad and b.requires_grad and not b.is_leaf
    for loss in (a, b):
        with pytest.raises(GraphError, match="consumed"):
            loss.backward()


def test_a_changed_training_flag_is_guarded():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Dropout(0.5))
    f = ember.compile(lambda x: model(x).detach())
    x = torch.ones(4, 3)
    for _ in range(4):
        f(x)
    model.eval()
    with torch.no_grad():
        expected = model(x)
    assert f(x).tolist() == expected.tolist()
    assert f.stats["aborted"] == 1


def test_a_guard_keeps_the_typed_error_of_bad_input():
    table = torch.randn(5, 2)
    f = ember.compile(lambda ids: F.embedding(ids, table))
    for _ in range(4):
        f(torch.tensor([0, 4]))
    assert f.stats["replays"] == 1
    with pytest.raises(ember.EmberError):
        f(torch.tensor([0, 9]))  # out of range: eager raises, the replay must not index
    assert f(torch.tensor([1, 2])).tolist() == table[torch.tensor([1, 2])].tolist()


def test_random_draws_advance_as_in_eager():
    def step(x):
        return F.dropout(x, 0.5, training=True)
    torch.manual_seed(7)
    eager = [step(torch.ones(8)).tolist() for _ in range(8)]
    torch.manual_seed(7)
    f = ember.compile(step)
    assert [f(torch.ones(8)).tolist() for _ in range(8)] == eager
    assert f.stats["replays"] == 5


def _kernel_calls(compiled):
    """The kernel calls of ``compiled``'s one recording, as its replay's source spells them."""
    (state,) = compiled._keys.values()
    return [line.split(" = ", 1)[1].split("(")[0] for line in state.replay.source.splitlines()
            if " = f" in line]


def test_values_nothing_reads_are_left_out_and_draws_still_advance():
    def clean(x):
        return F.dropout(x, 0.5, training=True) + x.sum()

    def dead(x):
        (x * 3.0).exp().sum(0)                  # read by nothing: not replayed
        F.dropout(x, 0.25, training=True)       # read by nothing, but draws: replayed
        return F.dropout(x, 0.5, training=True) + x.sum()
    torch.manual_seed(3)
    eager = [dead(torch.ones(4, 8)).tolist() for _ in range(8)]
    torch.manual_seed(3)
    f, g = ember.compile(dead), ember.compile(clean)
    assert [f(torch.ones(4, 8)).tolist() for _ in range(8)] == eager
    for _ in range(4):
        g(torch.ones(4, 8))
    assert f.stats["replays"] == 5 and g.stats["replays"] == 1
    assert len(_kernel_calls(f)) == len(_kernel_calls(g)) + 1  # the unread dropout's draw


@pytest.mark.numpy_only  # tracemalloc sees NumPy's allocations; the NumPy backend's flip is a view
def test_a_replay_holds_only_the_arrays_it_still_needs():
    """Each intermediate is freed after its last read: the peak of a chain of four 8 MB
    results is two arrays, not four (and the values are eager's)."""
    def step(x):
        y = x
        for _ in range(4):
            y = y.cumsum(0).flip(0)
        return y.sum()
    x = torch.tensor(np.random.default_rng(0).random(1 << 20))
    f = ember.compile(step)
    for _ in range(3):
        f(x)
    tracemalloc.start()
    try:
        out = f(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f.stats["replays"] == 1 and out.item() == step(x).item()
    assert peak < 3 * x.numel() * 8, peak  # two arrays at a time (four without the frees)


def test_memory_is_flat_over_10000_replays():
    w = ember.tensor([[0.5, 0.25]]).require_grad()
    opt = ember.optim.SGD([w], lr=1e-3)

    def step(x):
        opt.zero_grad()
        loss = (x * w).sum()
        loss.backward()
        opt.step()
        return loss
    f = ember.compile(step)
    x = ember.ones(1, 2)
    for _ in range(1000):
        f(x)
    tracemalloc.start()
    for _ in range(1000):  # what a step's allocations settle at (pools, caches), traced
        f(x)
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(10_000):
        f(x)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert f.stats["replays"] == 11_997
    assert grown < 16 * 1024


def test_torch_compile_is_ember_compile_and_takes_pytorch_options():
    f = torch.compile(lambda x: x * 2, mode="max-autotune", fullgraph=True)
    assert isinstance(f, ember.compiler.Compiled)
    assert [f(torch.ones(1)).item() for _ in range(4)] == [2.0] * 4
    g = torch.compile(mode="reduce-overhead")(lambda x: x - 1)
    assert g(torch.ones(1)).item() == 0.0
    h = lambda x: x  # noqa: E731
    assert torch.compile(h, disable=True) is h
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        torch.compile(h, bogus=1)


def test_bad_arguments_are_typed_errors():
    with pytest.raises(KindError, match="fn is int"):
        ember.compile(3)
    with pytest.raises(InvalidParameterError, match="cache_size is 0"):
        ember.compile(lambda x: x, cache_size=0)


def test_torch_compile_of_a_module_is_pytorchs_optimized_module():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    compiled = torch.compile(model)
    assert isinstance(compiled, torch.nn.Module) and compiled._orig_mod is model
    assert sorted(compiled.state_dict()) == ["_orig_mod.0.bias", "_orig_mod.0.weight"]
    assert [id(p) for p in compiled.parameters()] == [id(p) for p in model.parameters()]
    assert getattr(compiled, "0") is model[0]  # other attributes are the original's
    x = torch.randn(5, 3)
    with torch.no_grad():
        outs = [compiled(x) for _ in range(5)]
        expected = model(x)
    assert all(o.tolist() == expected.tolist() for o in outs)
    assert compiled._compiled.stats["replays"] == 2
    compiled.eval()
    assert not model.training


@pytest.mark.parametrize("name", ["ember.compiler", "ember.compiler.recording",
                                  "ember.compiler.replay", "ember.torch.compiled"])
def test_the_docstring_examples_run(name):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_actor_critic_with_sampling_replays_bit_for_bit():
    p = dict(small_models.AC_QUICK)
    torch.manual_seed(3)
    eager = small_models.actor_critic_setup("ember.torch", p, detach=True)
    torch.manual_seed(3)
    compiled = small_models.actor_critic_setup("ember.torch", p, compiled=True)
    torch.manual_seed(4)
    expected = [eager().tolist() for _ in range(200)]
    torch.manual_seed(4)
    assert [compiled().tolist() for _ in range(200)] == expected
    assert compiled.stats["replays"] == 197
    assert expected[0] != expected[-1]  # it trained


def test_a_kernel_error_in_a_replay_is_the_eager_steps_typed_error():
    pd = ember.tensor([[4.0, 1.0], [1.0, 3.0]])
    f = ember.compile(lambda m: ember.linalg.cholesky(m))
    for _ in range(4):
        f(pd)
    assert f.stats["replays"] == 1
    with pytest.raises(InvalidParameterError, match="not positive-definite"):
        f(ember.tensor([[1.0, 2.0], [2.0, 1.0]]))
    assert f.stats["aborted"] == 1


def test_a_compiled_method_takes_its_instance():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @ember.compile
        def apply(self, x):
            return x * self.k

    a, b = Scaler(2.0), Scaler(3.0)
    for _ in range(4):
        assert a.apply(ember.ones(2)).tolist() == [2.0, 2.0]
        assert b.apply(ember.ones(2)).tolist() == [3.0, 3.0]
    assert Scaler.apply.stats["replays"] == 2


def test_an_aborted_replay_puts_the_random_stream_back():
    table = torch.randn(5, 2)

    def step(ids):
        return F.embedding(ids, F.dropout(table, 0.5, training=True))
    good, bad = torch.tensor([0, 4]), torch.tensor([0, 9])
    results = []
    for fn in (step, ember.compile(step)):
        torch.manual_seed(11)
        for _ in range(4):
            fn(good)
        with pytest.raises(ember.EmberError):
            fn(bad)  # draws its dropout mask, then finds the index out of range
        results.append(torch.rand(3).tolist())
    assert results[0] == results[1]
