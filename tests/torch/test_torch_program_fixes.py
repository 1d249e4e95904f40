"""What real PyTorch programs (benchmarks/real_programs.py) needed of ember.torch, each checked
against PyTorch: nn.modules' layout, whole models through save/load with safe_globals,
Parameters kept as Parameters, TORCH_FORCE_(NO_)WEIGHTS_ONLY_LOAD, nn.parallel, the channel
dropouts' Bernoulli masks, and seeds drawn in [0, 2**63) as PyTorch's ``random_()``."""

import importlib
import io
import warnings

import numpy as np
import pytest
import torch

import ember
nb = ember.Device("cpu").backend  # the NumPy backend: its kernels live on the instance
import ember.torch as et
from ember.errors import InvalidParameterError
from ember.torch.utils.data.sampler import draw_seed
from tests.oracle import assert_close


# -- PyTorch's streams on ember's NumPy CPU ------------------------------------------------------

@pytest.fixture
def torch_streams(monkeypatch):
    """ember's NumPy kernels draw from PyTorch's generators (the global one, or a twin of each
    generator ember makes, seeded the same), as benchmarks/real_programs.py arranges."""
    twins = {}
    make = nb.random_generator

    def generator(seed):
        gen = make(seed)
        twins[id(gen)] = (gen, torch.Generator().manual_seed(seed))
        return gen

    def hook(name, draw, arity):
        def kernel(*args, **kwargs):
            gen = args[-1] if len(args) > arity else kwargs.get("gen")
            twin = None if gen is None else twins[id(gen)][1]
            return draw(*args[:arity], twin).numpy()
        monkeypatch.setattr(nb, name, kernel)

    def dt(dtype):
        return getattr(torch, ember.dtypes.as_dtype(dtype).name)

    monkeypatch.setattr(nb, "random_generator", generator)
    hook("random_bernoulli", lambda shape, p, dtype, g:
         torch.empty(shape, dtype=dt(dtype)).bernoulli_(p, generator=g), 3)
    hook("random_integers", lambda shape, low, high, dtype, g:
         torch.randint(low, high, shape, dtype=dt(dtype), generator=g) if high < 2**63
         else torch.empty(shape, dtype=dt(dtype)).random_(generator=g), 4)
    hook("random_permutation", lambda n, dtype, g:
         torch.randperm(n, dtype=dt(dtype), generator=g), 2)
    return twins


@pytest.mark.parametrize("name, shape, p", [
    ("dropout1d", (3, 5), 0.3), ("dropout1d", (2, 4, 5), 0.5), ("dropout1d", (0, 4, 5), 0.5),
    ("dropout2d", (4, 6), 0.25), ("dropout2d", (2, 4, 6, 3), 0.25),
    ("dropout2d", (4, 6, 3), 0.6), ("dropout2d", (3, 2, 2), 0.5),
    ("dropout3d", (2, 3, 2, 2, 2), 0.4), ("dropout3d", (3, 2, 2, 2), 0.4),
    ("feature_alpha_dropout", (2, 3, 4), 0.3), ("alpha_dropout", (3, 4), 0.3),
])
def test_channel_dropouts_draw_pytorchs_bernoulli_masks(torch_streams, name, shape, p):
    """Same generator, same masks and values (and the same count of draws) as PyTorch."""
    data = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    torch.manual_seed(7)
    x = ember.tensor(data, device="cpu").require_grad()
    y = getattr(ember.nn.functional, name)(x, p, True)
    after = torch.rand(3)
    torch.manual_seed(7)
    tx = torch.tensor(data, requires_grad=True)
    with warnings.catch_warnings():  # PyTorch's note on 2-d and 3-d inputs of dropout2d
        warnings.simplefilter("ignore")
        ty = getattr(torch.nn.functional, name)(tx, p, True)
    assert_close(y, ty.detach(), rtol=1e-6, atol=1e-6)
    assert torch.equal(after, torch.rand(3))
    w = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    (y * ember.tensor(w, device="cpu")).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    assert_close(x.grad, tx.grad, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "feature_alpha_dropout"])
def test_channel_dropout_of_p_one_draws_nothing(torch_streams, name):
    torch.manual_seed(3)
    y = getattr(ember.nn.functional, name)(ember.ones((2, 3, 4), device="cpu"), 1.0, True)
    after = torch.rand(2)
    torch.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ty = getattr(torch.nn.functional, name)(torch.ones(2, 3, 4), 1.0, True)
    assert torch.equal(after, torch.rand(2))
    assert_close(y, ty)


@pytest.mark.parametrize("seed", range(12))
def test_seeds_are_drawn_as_pytorchs_random_(torch_streams, seed):
    """``draw_seed`` and int64 ``random_()`` ask for [0, 2**63), PyTorch's range (its draws
    differ from randint(0, 2**63 - 1) for about half the seeds)."""
    g = et.Generator("cpu").manual_seed(seed)
    t = torch.Generator().manual_seed(seed)
    expected = torch.empty((), dtype=torch.int64).random_(generator=t).item()
    assert draw_seed(g) == expected
    mine = et.empty(5, dtype=et.int64, device="cpu").random_(generator=g)
    assert mine.tolist() == torch.empty(5, dtype=torch.int64).random_(generator=t).tolist()


def test_random_sampler_orders_as_pytorchs(torch_streams):
    order = list(et.utils.data.RandomSampler(range(50),
                                             generator=et.Generator("cpu").manual_seed(5)))
    expected = list(torch.utils.data.RandomSampler(range(50),
                                                   generator=torch.Generator().manual_seed(5)))
    assert order == expected


# -- nn.modules and nn.parallel -----------------------------------------------------------------

def test_nn_modules_has_pytorchs_layout():
    from ember.torch.nn.modules import _LAYOUT
    for sub, names in _LAYOUT.items():
        theirs = importlib.import_module(f"torch.nn.modules.{sub}")
        mine = importlib.import_module(f"ember.torch.nn.modules.{sub}")
        for name in names.split():
            assert isinstance(getattr(theirs, name), type)
            assert getattr(mine, name) is getattr(et.nn, name)
    assert et.nn.modules.rnn.LSTM is et.nn.LSTM
    assert et.nn.modules.transformer.TransformerEncoderLayer is et.nn.TransformerEncoderLayer


def test_non_dynamically_quantizable_linear_is_multihead_attentions_projection():
    fc = et.nn.modules.linear.NonDynamicallyQuantizableLinear(3, 2)
    ref = torch.nn.modules.linear.NonDynamicallyQuantizableLinear(3, 2)
    mha = et.nn.MultiheadAttention(4, 2)
    assert type(mha.out_proj) is et.nn.modules.linear.NonDynamicallyQuantizableLinear
    assert type(mha.out_proj).__name__ == type(torch.nn.MultiheadAttention(4, 2).out_proj).__name__
    assert fc.weight.shape == ref.weight.shape and fc.bias.shape == ref.bias.shape
    assert [n for n, _ in fc.named_parameters()] == [n for n, _ in ref.named_parameters()]


@pytest.mark.parametrize("shape", [(4, 3), (0, 3), (2, 5, 3)])
def test_data_parallel_is_the_module_on_the_whole_batch(shape):
    fc = et.nn.Linear(3, 2)
    ref = torch.nn.Linear(3, 2)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(fc.weight.detach().numpy()))
        ref.bias.copy_(torch.tensor(fc.bias.detach().numpy()))
    data = np.random.default_rng(2).normal(size=shape).astype(np.float32)
    out = et.nn.parallel.data_parallel(fc, et.tensor(data))
    assert_close(out.detach(), ref(torch.tensor(data)).detach(), rtol=1e-6, atol=1e-6)
    assert et.nn.parallel.DataParallel is et.nn.DataParallel
    with pytest.raises(InvalidParameterError, match="Module"):
        et.nn.parallel.data_parallel(lambda x: x, et.ones(2))


# -- whole models through save and load ---------------------------------------------------------

class LanguageModel(et.nn.Module):
    """The shape of word_language_model's models: embedding, LSTM, transformer encoder."""

    def __init__(self):
        super().__init__()
        self.drop = et.nn.Dropout(0.2)
        self.encoder = et.nn.Embedding(10, 4)
        self.rnn = et.nn.LSTM(4, 4, 2, dropout=0.2)
        self.layers = et.nn.TransformerEncoder(et.nn.TransformerEncoderLayer(4, 2, 8), 1)
        self.decoder = et.nn.Linear(4, 10)

    def forward(self, x):
        out, _ = self.rnn(self.drop(self.encoder(x)))
        return self.decoder(self.layers(out))


ALLOWED = [LanguageModel, et.nn.functional.relu, et.nn.modules.dropout.Dropout,
           et.nn.modules.sparse.Embedding, et.nn.modules.rnn.LSTM,
           et.nn.modules.linear.Linear, et.nn.modules.linear.NonDynamicallyQuantizableLinear,
           et.nn.modules.activation.MultiheadAttention, et.nn.modules.container.ModuleList,
           et.nn.modules.normalization.LayerNorm, et.nn.modules.transformer.TransformerEncoder,
           et.nn.modules.transformer.TransformerEncoderLayer]


def _saved(obj):
    buf = io.BytesIO()
    et.save(obj, buf)
    buf.seek(0)
    return buf


def test_whole_model_loads_inside_safe_globals():
    model = LanguageModel().eval()
    buf = _saved(model)
    with pytest.raises(InvalidParameterError, match="LanguageModel"):
        et.load(buf)
    buf.seek(0)
    with et.serialization.safe_globals(ALLOWED):
        assert len(et.serialization.get_safe_globals()) == len(ALLOWED)
        loaded = et.load(buf).eval()
    assert et.serialization.get_safe_globals() == []
    assert type(loaded) is LanguageModel
    assert [type(p) for p in loaded.parameters()] == [et.nn.Parameter] * len(
        list(model.parameters()))
    x = et.tensor([[1, 2], [3, 4], [5, 0]])
    assert_close(loaded(x).detach(), model(x).detach(), rtol=0, atol=0)
    loaded.rnn.flatten_parameters()
    opt = et.optim.SGD(loaded.parameters(), lr=0.1)
    loaded(x).sum().backward()
    opt.step()


def test_a_model_with_a_class_left_out_is_refused():
    buf = _saved(LanguageModel())
    with et.serialization.safe_globals(ALLOWED[:-1]):
        with pytest.raises(InvalidParameterError, match="TransformerEncoderLayer"):
            et.load(buf)


def test_add_get_clear_safe_globals_as_pytorch():
    point = type("Point", (), {"__module__": __name__})
    entries = [point, (point, "a.b")]
    with torch.serialization.safe_globals(entries):  # (PyTorch's own list is left as it is)
        theirs = torch.serialization.get_safe_globals()
    et.serialization.clear_safe_globals()
    et.serialization.add_safe_globals(entries)
    mine = et.serialization.get_safe_globals()
    assert all(e in theirs for e in entries) and mine == entries
    et.serialization.clear_safe_globals()
    assert et.serialization.get_safe_globals() == []
    for bad in (point, [(point,)], [(point, 3)], [(point, "nodot")], [3]):
        with pytest.raises(InvalidParameterError):
            et.serialization.add_safe_globals(bad)
    assert et.serialization.get_safe_globals() == []


@pytest.mark.parametrize("requires_grad", [True, False])
def test_parameters_save_as_pytorchs_parameters(requires_grad):
    p = et.nn.Parameter(et.tensor([[1.0, -2.0], [0.5, 3.0]]), requires_grad=requires_grad)
    theirs = torch.load(_saved(p))
    assert type(theirs) is torch.nn.Parameter and theirs.requires_grad == requires_grad
    mine = et.load(_saved(p))
    assert type(mine) is et.nn.Parameter and mine.requires_grad == requires_grad
    assert_close(mine.detach(), theirs.detach(), rtol=0, atol=0)
    buf = io.BytesIO()
    torch.save(torch.nn.Parameter(torch.ones(0, 3), requires_grad=requires_grad), buf)
    buf.seek(0)
    back = et.load(buf)
    assert type(back) is et.nn.Parameter and tuple(back.shape) == (0, 3)
    assert back.requires_grad == requires_grad


@pytest.mark.parametrize("env, outcome", [
    ({}, "refused"), ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}, "loaded"),
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "yes"}, "loaded"),
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "true"}, "refused"),
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "0"}, "refused"),
])
def test_weights_only_environment_switches_as_pytorch(monkeypatch, env, outcome):
    """A NumPy array saved with torch.save (time_sequence_prediction's data file)."""
    data = np.sin(np.arange(12.0)).reshape(3, 4)
    buf = io.BytesIO()
    torch.save(data, buf)
    for name in ("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_WEIGHTS_ONLY_LOAD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for load, error in ((torch.load, Exception), (et.load, InvalidParameterError)):
        buf.seek(0)
        if outcome == "refused":
            with pytest.raises(error, match="numpy"):
                load(buf)
        else:
            with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
                np.testing.assert_array_equal(load(buf), data)


def test_weights_only_forced_overrides_false_and_both_switches_refuse(monkeypatch):
    buf = io.BytesIO()
    torch.save(np.ones(2), buf)
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    for load, error in ((torch.load, Exception), (et.load, InvalidParameterError)):
        buf.seek(0)
        with pytest.raises(error):
            load(buf, weights_only=False)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    for load, error in ((torch.load, RuntimeError), (et.load, InvalidParameterError)):
        buf.seek(0)
        with pytest.raises(error, match="both"):
            load(buf)
