"""Tests of ember/nn/module.py: discovery and names (against torch), modes, freezing, state dicts
and strict loading, repr, apply, devices and dtypes, containers, a training loop."""

import sys
import types
from collections import OrderedDict

import numpy as np
import pytest
import torch
from torch import nn as tnn

import ember
import ember.nn.functional as F
from ember import nn
from oracle import assert_close, on_device


def _seq(lib):
    return lib.Sequential(lib.Conv2d(1, 4, 3, padding=1), lib.BatchNorm2d(4), lib.ReLU(),
                          lib.Flatten(), lib.Linear(4 * 6 * 6, 10))


class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.norm = nn.LayerNorm(n)

    def forward(self, x):
        return self.norm(self.fc(x)).relu()


class TBlock(tnn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = tnn.Linear(n, n)
        self.norm = tnn.LayerNorm(n)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(ember.ones(3))
        self.conv1 = nn.Conv2d(2, 3, 3)
        self.blocks = [Block(3), Block(3)]
        self.heads = {"a": nn.Linear(3, 1), "b": nn.Linear(3, 2, bias=False)}
        self.bn = nn.BatchNorm1d(3)
        self.not_a_param = ember.tensor([1, 2, 3])  # int tensors are not parameters
        self.config = (3, 3)

    def forward(self, x):
        x = self.conv1(x).mean((2, 3)) * self.scale
        for b in self.blocks:
            x = b(x)
        return self.heads["a"](self.bn(x))


class TNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.scale = tnn.Parameter(torch.ones(3))
        self.conv1 = tnn.Conv2d(2, 3, 3)
        self.blocks = tnn.ModuleList([TBlock(3), TBlock(3)])
        self.heads = tnn.ModuleDict({"a": tnn.Linear(3, 1), "b": tnn.Linear(3, 2, bias=False)})
        self.bn = tnn.BatchNorm1d(3)


def _unchanged(module, before):
    after = module.state_dict()
    assert list(after) == list(before)
    for k in before:
        assert after[k] is before[k], k


# -- discovery ----------------------------------------------------------------------------------

def test_sequential_names_match_torch():
    em, tm = _seq(nn), _seq(tnn)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in em.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert em.num_params() == sum(p.numel() for p in tm.parameters())
    assert [tuple(p.shape) for p in em.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    assert [n for n, _ in em.named_modules()] == [n for n, _ in tm.named_modules()]
    assert len(em.children()) == 5 and em.modules()[0] is em
    assert repr(em) == repr(tm)


def test_nested_names_lists_and_dicts_match_torch():
    em, tm = Net(), TNet()
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in em.named_children()] == ["conv1", "blocks.0", "blocks.1", "heads.a",
                                                   "heads.b", "bn"]
    assert all(p.dtype == ember.float32 and p.is_require_grad() and p.is_leaf
               for p in em.parameters())
    assert [n for n, _ in em.named_parameters(recurse=False)] == ["scale"]
    assert em.buffers()[2].dtype == ember.int64
    # the discovered tensors are the attributes themselves
    assert em.parameters()[1] is em.conv1.weight and em.buffers()[0] is em.bn.running_mean


def test_forward_backward_through_custom_module(rng):
    em = Net()
    out = em(ember.tensor(rng.standard_normal((4, 2, 5, 5)), dtype="float32"))
    assert out.shape == (4, 1)
    out.backward()
    names = [n for n, p in em.named_parameters() if p.grad is None]
    assert names == ["heads.b.weight"]  # the only parameter the forward does not use


def test_shared_modules_and_tensors_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    tlin = tnn.Linear(2, 2)
    tseq = tnn.Sequential(tlin, tnn.ReLU(), tlin)
    assert [n for n, _ in seq.named_parameters()] == [n for n, _ in tseq.named_parameters()]
    assert list(seq.state_dict()) == list(tseq.state_dict())
    assert len(seq.modules()) == 3
    seq.load_state_dict(seq.state_dict())
    assert seq[0] is seq[2] and seq[0].weight is seq[2].weight


def test_module_without_super_init_and_without_forward():
    class Bare(nn.Module):
        def __init__(self):  # forgets super().__init__()
            self.w = nn.Parameter(ember.zeros(2))

    m = Bare()
    assert [n for n, _ in m.named_parameters()] == ["w"] and m.training
    with pytest.raises(NotImplementedError, match="Bare: forward"):
        m(ember.ones(2))


def test_cycles_do_not_hang():
    a = nn.Sequential(nn.Linear(1, 1))
    a.parent = a
    assert [n for n, _ in a.named_parameters()] == ["0.weight", "0.bias"]
    assert list(a.state_dict()) == ["0.weight", "0.bias"]


# -- modes and gradients ------------------------------------------------------------------------

def test_train_eval_propagates():
    em = _seq(nn)
    assert all(m.training for m in em.modules())
    assert em.eval() is em
    assert not any(m.training for m in em.modules())
    em.train()
    assert all(m.training for m in em.modules())
    em.train(False)
    assert not em[1].training
    with pytest.raises(ember.InvalidParameterError, match="train: mode must be a bool"):
        em.train("no")


def test_freeze_unfreeze_no_grad_set_require_grad():
    em = _seq(nn)
    assert em.freeze() is em
    assert not any(p.is_require_grad() for p in em.parameters())
    out = em(ember.ones(2, 1, 6, 6))
    assert not out.is_tracked()
    em.unfreeze()
    assert all(p.is_require_grad() for p in em.parameters())
    em[4].freeze()
    em(ember.ones(2, 1, 6, 6)).sum().backward()
    assert em[4].weight.grad is None and em[0].weight.grad is not None
    em.no_grad()
    assert not any(p.is_require_grad() for p in em.parameters())
    em.set_require_grad(True)
    assert all(p.is_require_grad() for p in em.parameters())
    em.requires_grad_(False)
    assert not any(p.is_require_grad() for p in em.parameters())
    assert not any(b.is_require_grad() for b in em.buffers())
    with pytest.raises(ember.InvalidParameterError, match="set_require_grad: require_grad must"):
        em.set_require_grad(1)


def test_unfreeze_makes_non_leaf_parameters_leaves():
    m = nn.Module()
    base = nn.Parameter(ember.ones(2))
    m.w = base * 2  # a computed tensor held as a parameter
    m.unfreeze()
    assert m.w.is_leaf and m.w.is_require_grad() and m.w.tolist() == [2.0, 2.0]


def test_zero_grad():
    em = nn.Linear(2, 2)
    em(ember.ones(1, 2)).sum().backward()
    assert em.weight.grad is not None
    em.zero_grad()
    assert all(p.grad is None for p in em.parameters())


# -- state dicts --------------------------------------------------------------------------------

def test_state_dict_roundtrip_with_torch(rng):
    em, tm = _seq(nn), _seq(tnn)
    tsd = {k: v + 0.5 if v.is_floating_point() else v + 2 for k, v in tm.state_dict().items()}
    em.load_state_dict({k: v.numpy() for k, v in tsd.items()})
    for k, v in em.state_dict().items():
        assert_close(v, tsd[k])
    assert em[1].num_batches_tracked.dtype == ember.int64
    tm.load_state_dict(tsd)
    em.eval()
    tm.eval()
    x = rng.standard_normal((3, 1, 6, 6)).astype("float32")
    assert_close(em(ember.tensor(x)), tm(torch.tensor(x)), rtol=1e-4, atol=1e-5)


def test_load_state_dict_rebinds_values_of_the_same_tensors():
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    b.bias.set_require_grad(False)
    old_w = b.weight
    view_before = old_w[0]
    view_values = view_before.numpy().copy()
    keys = b.load_state_dict(a.state_dict())
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    assert b.weight is old_w and b.weight is not a.weight  # an optimizer keeps working
    np.testing.assert_array_equal(view_before.numpy(), view_values)  # views keep old values
    np.testing.assert_array_equal(b.weight.numpy(), a.weight.numpy())
    assert b.weight.is_leaf and b.weight.is_require_grad() and not b.bias.is_require_grad()
    # gradients flow to the new leaf only
    b(ember.ones(1, 3)).sum().backward()
    assert b.weight.grad is not None and a.weight.grad is None
    # values of another dtype are cast to the module's
    b.load_state_dict({"weight": ember.zeros(2, 3, dtype="float64"), "bias": [1, 2]})
    assert b.weight.dtype == ember.float32 and b.bias.tolist() == [1.0, 2.0]


def test_load_state_dict_strict_errors_name_the_keys():
    m = _seq(nn)
    before = m.state_dict()
    sd = dict(before)
    del sd["1.running_var"]
    with pytest.raises(ember.InvalidParameterError,
                       match=r"load_state_dict: Sequential: missing keys \['1.running_var'\]"):
        m.load_state_dict(sd)
    _unchanged(m, before)
    sd = dict(before, extra=ember.ones(1))
    with pytest.raises(ember.InvalidParameterError, match=r"unexpected keys \['extra'\]"):
        m.load_state_dict(sd)
    _unchanged(m, before)
    sd = dict(before)
    sd["4.weight"] = ember.zeros(3, 4)
    with pytest.raises(ember.ShapeMismatchError,
                       match=r"mis-shaped keys '4.weight' \(shape \(3, 4\) in the state dict, "
                             r"expected \(10, 144\)\)"):
        m.load_state_dict(sd)
    _unchanged(m, before)
    sd = {k: v for k, v in before.items() if k != "0.bias"}
    sd["4.bias"] = ember.zeros(3)
    sd["nope"] = ember.zeros(1)
    with pytest.raises(ember.InvalidParameterError) as info:
        m.load_state_dict(sd)
    msg = str(info.value)
    assert "missing keys ['0.bias']" in msg and "unexpected keys ['nope']" in msg
    assert "'4.bias' (shape (3,)" in msg
    _unchanged(m, before)
    # strict=False: missing and unexpected keys are reported, the rest is loaded
    sd = {"0.weight": ember.zeros(4, 1, 3, 3), "junk": ember.ones(2)}
    keys = m.load_state_dict(sd, strict=False)
    assert "0.bias" in keys.missing_keys and keys.unexpected_keys == ["junk"]
    assert m[0].weight.numpy().sum() == 0 and m[0].bias is before["0.bias"]
    with pytest.raises(ember.ShapeMismatchError, match="'0.weight'"):
        m.load_state_dict({"0.weight": ember.zeros(1)}, strict=False)
    with pytest.raises(ember.InvalidParameterError, match="state_dict must be a mapping"):
        m.load_state_dict([1, 2])
    with pytest.raises(ember.InvalidParameterError, match="the value of key '0.bias' is not"):
        m.load_state_dict(dict(before, **{"0.bias": object()}))
    with pytest.raises(ember.InvalidParameterError, match="strict must be a bool"):
        m.load_state_dict(before, strict="yes")


def test_buffers_and_non_persistent_buffers():
    m = nn.Module()
    m.w = nn.Parameter(ember.ones(2))
    m.register_buffer("steps", ember.tensor(0))
    m.register_buffer("cache", ember.zeros(2), persistent=False)
    assert [n for n, _ in m.named_buffers()] == ["steps", "cache"]
    assert list(m.state_dict()) == ["w", "steps"]
    assert [n for n, _ in m.named_parameters()] == ["w"]
    with pytest.raises(ember.InvalidParameterError, match="register_buffer: name '1x'"):
        m.register_buffer("1x", ember.ones(1))
    with pytest.raises(ember.InvalidParameterError, match="register_buffer: tensor must be"):
        m.register_buffer("x", [1.0])


def test_save_and_load_file_go_through_ember_io(monkeypatch, tmp_path):
    saved = {}
    stub = types.ModuleType("ember.io")
    stub.save_file = lambda sd, path: saved.update(sd=OrderedDict(sd), path=path)
    stub.load_file = lambda path: saved["sd"]
    monkeypatch.setitem(sys.modules, "ember.io", stub)
    monkeypatch.setattr(ember, "io", stub, raising=False)
    a, b = nn.Linear(2, 3), nn.Linear(2, 3)
    a.save_file(tmp_path / "m.safetensors")
    assert saved["path"] == tmp_path / "m.safetensors" and list(saved["sd"]) == ["weight", "bias"]
    assert b.load_file(tmp_path / "m.safetensors") is b
    np.testing.assert_array_equal(b.weight.numpy(), a.weight.numpy())


def test_save_and_load_file_roundtrip(tmp_path):
    pytest.importorskip("ember.io")
    a, b = _seq(nn), _seq(nn)
    a(ember.ones(2, 1, 6, 6))  # running statistics move away from their initial values
    a.save_file(tmp_path / "m.safetensors")
    assert b.load_file(tmp_path / "m.safetensors") is b
    for (k, va), (_, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert va.dtype == vb.dtype, k
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
    assert b[0].weight.is_require_grad() and not b[1].running_mean.is_require_grad()


# -- repr, apply, devices, dtypes ---------------------------------------------------------------

def test_repr_matches_torch():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = _seq(nn)
            self.head = nn.Linear(10, 2, bias=False)

    ember_model = Model()

    class Model(tnn.Module):  # noqa: F811  (the same class name as the ember one)
        def __init__(self):
            super().__init__()
            self.body = _seq(tnn)
            self.head = tnn.Linear(10, 2, bias=False)

    assert repr(ember_model) == repr(Model())
    assert repr(nn.Linear(4, 2)) == "Linear(in_features=4, out_features=2, bias=True)"
    assert repr(nn.Module()) == "Module()"


def test_apply_visits_children_first():
    seen = []
    em = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    assert em.apply(lambda m: seen.append(type(m).__name__)) is em
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]

    def reinit(m):
        if isinstance(m, nn.Linear):
            m.weight = nn.init.constant(m.weight.shape, 0.5)

    em.apply(reinit)
    assert em[0].weight.tolist() == [[0.5]]
    with pytest.raises(ember.InvalidParameterError, match="apply: fn must be callable"):
        em.apply(3)


def test_to_device_and_dtype():
    em = _seq(nn)
    em[0].bias.set_require_grad(False)
    assert em.to("cpu") is em and em.cpu() is em and em.to(device="cpu") is em
    assert em.devices() == [ember.Device("cpu")]
    here = ember.get_default_device()  # the suite's device: back there
    assert em.to_device(here) is em and em.devices() == [here]
    em.to(ember.float64)
    assert all(p.dtype == ember.float64 for p in em.parameters())
    assert em[1].running_mean.dtype == ember.float64
    assert em[1].num_batches_tracked.dtype == ember.int64  # int buffers keep their dtype
    assert em[0].weight.is_require_grad() and not em[0].bias.is_require_grad()
    assert em(ember.ones(1, 1, 6, 6, dtype="float64")).dtype == ember.float64
    assert em.float()[0].weight.dtype == ember.float32
    assert em.double()[0].weight.dtype == ember.float64
    if on_device(["float16"]):
        assert em.half()[0].weight.dtype == ember.float16
    assert em.to(here, "float32")[0].weight.dtype == ember.float32
    assert em.devices() == [here]
    if not torch.cuda.is_available():
        with pytest.raises(ember.DeviceError, match="torch:cuda:0 is not available"):
            em.to("cuda")
    with pytest.raises(ember.InvalidParameterError, match="to_device: device: 'gpu' is not a device name"):
        em.to_device("gpu")
    with pytest.raises(ember.KindError, match="to: dtype int32 is not a float dtype"):
        em.to("int32")


def test_to_device_moves_parameters_and_buffers():
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 3))
    w = m[0].weight
    before = {n: t.tolist() for n, t in m.state_dict().items()}
    assert m.to_device("torch:cpu") is m
    assert m.devices() == [ember.Device("torch:cpu")]
    assert m[0].weight is w and w.is_leaf and w.is_require_grad()
    assert all(t.device == "torch:cpu" for t in m.state_dict().values())
    assert {n: t.tolist() for n, t in m.state_dict().items()} == before
    forked = m.fork("cpu")
    assert forked is m and m.devices() == [ember.Device("cpu")]
    assert m[0].weight is not w and m[0].weight.is_leaf and m[0].weight.is_require_grad()
    assert w.device == "torch:cpu"  # the old leaf stays where it was
    # a state dict loads onto the module's device
    m.to_device("torch:cpu").load_state_dict({n: ember.tensor(v, device="cpu")
                                              for n, v in before.items()})
    assert m.devices() == [ember.Device("torch:cpu")]
    assert m.to("cpu") is m and m.devices() == [ember.Device("cpu")]
    assert m.to("torch:cpu", "float64") is m and m.devices() == [ember.Device("torch:cpu")]
    assert m[0].weight.dtype == ember.float64 and m[0].weight.is_leaf


def test_layers_and_initializers_take_a_device():
    torch_cpu = ember.Device("torch:cpu")
    for layer in (nn.LayerNorm(3, device="torch:cpu"), nn.BatchNorm1d(3, device=torch_cpu)):
        assert layer.devices() == [torch_cpu]
        assert all(t.device == torch_cpu for t in layer.state_dict().values())
    assert nn.init.constant((2,), 0.5, device="torch:cpu").device == torch_cpu
    assert nn.init.ones((2,), device="cpu").device == ember.Device("cpu")
    t = ember.tensor([1.0, 2.0], device="torch:cpu")
    assert nn.init.zeros_(t) is t and t.device == torch_cpu and t.tolist() == [0.0, 0.0]
    with pytest.raises(ember.InvalidParameterError, match="LayerNorm: device: 'gpu'"):
        nn.LayerNorm(3, device="gpu")


def test_ops_name_both_devices_when_operands_differ():
    x = ember.tensor([[1.0, 2.0]], device="cpu")
    w = ember.tensor([[1.0, 0.0]], device="torch:cpu")
    with pytest.raises(ember.DeviceError, match="linear: operands are on different devices, "
                                                "cpu and torch:cpu"):
        F.linear(x, w)
    with pytest.raises(ember.DeviceError, match="cross_entropy: .*cpu and torch:cpu"):
        F.cross_entropy(x, ember.tensor([0], device="torch:cpu"))


def _mlp_losses(device, steps=20):
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8, device="cpu"), nn.ReLU(), nn.Linear(8, 3, device="cpu"))
    m.to_device(device)
    opt = ember.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(1)
    x = ember.tensor(rng.standard_normal((16, 4)).astype(np.float32), device=device)
    y = ember.tensor(rng.integers(0, 3, 16), device=device)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert m.devices() == [ember.Device(device)]
    return losses


def test_mlp_trains_the_same_on_torch_cpu():
    cpu = _mlp_losses("cpu")
    moved = _mlp_losses("torch:cpu")
    np.testing.assert_allclose(moved, cpu, rtol=1e-5, atol=1e-5)
    assert cpu[-1] < cpu[0]


# -- containers ---------------------------------------------------------------------------------

def test_sequential_container_protocol():
    layers = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)]
    seq = nn.Sequential(*layers)
    assert len(seq) == 3 and list(seq) == layers and seq[-1] is layers[2]
    sub = seq[:2]
    assert isinstance(sub, nn.Sequential) and list(sub) == layers[:2]
    assert sub(ember.ones(4, 2)).shape == (4, 3)
    seq.append(nn.Sigmoid())
    assert len(seq) == 4 and [n for n, _ in seq.named_children()][-1] == "3"
    seq[1] = nn.GELU()
    assert isinstance(seq[1], nn.GELU)
    named = nn.Sequential(OrderedDict([("enc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    tnamed = tnn.Sequential(OrderedDict([("enc", tnn.Linear(2, 2)), ("act", tnn.Tanh())]))
    assert list(named.state_dict()) == list(tnamed.state_dict()) == ["enc.weight", "enc.bias"]
    assert repr(named) == repr(tnamed)
    assert isinstance(named[0], nn.Linear) and len(named[1:]) == 1
    with pytest.raises(ember.DimensionError, match="Sequential: index 4 is out of range for 4"):
        seq[4]
    with pytest.raises(ember.InvalidParameterError, match="Sequential: entry 0 is a int"):
        nn.Sequential(3)
    with pytest.raises(ember.InvalidParameterError, match="index must be an int or a slice"):
        seq["a"]


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.Linear(2, 2)]).extend([nn.ReLU(), nn.Linear(2, 1)])
    tml = tnn.ModuleList([tnn.Linear(2, 2), tnn.ReLU(), tnn.Linear(2, 1)])
    assert list(ml.state_dict()) == list(tml.state_dict())
    assert repr(ml) == repr(tml) and len(ml) == 3 and isinstance(ml[1], nn.ReLU)
    md = nn.ModuleDict({"x": nn.Linear(1, 1)})
    md["y"] = nn.Linear(1, 2)
    tmd = tnn.ModuleDict({"x": tnn.Linear(1, 1), "y": tnn.Linear(1, 2)})
    assert list(md.state_dict()) == list(tmd.state_dict())
    assert "y" in md and md.keys() == ["x", "y"] and len(md) == 2
    with pytest.raises(ember.InvalidParameterError, match="ModuleDict: no module named 'z'"):
        md["z"]
    with pytest.raises(ember.InvalidParameterError, match="ModuleList: entry 3 is a str"):
        ml.append("relu")
    same = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
    tsame = tnn.ModuleList([tnn.Linear(2, 2) for _ in range(3)] + [tnn.ReLU()])
    assert repr(same) == repr(tsame)


def test_module_dict_attribute_access_as_torch():
    ember.manual_seed(0)

    def block(lib):
        class Block(lib.Module):
            def __init__(self):
                super().__init__()
                self.transformer = lib.ModuleDict(dict(wte=lib.Embedding(10, 4),
                                                       h=lib.ModuleList([lib.Linear(4, 4)]),
                                                       ln_f=lib.LayerNorm(4)))
                self.transformer.head = lib.Linear(4, 3)      # an attribute adds a module

            def forward(self, idx):
                x = self.transformer.wte(idx)
                for layer in self.transformer.h:
                    x = layer(x)
                return self.transformer.head(self.transformer.ln_f(x))
        return Block()

    ours, theirs = block(nn), block(tnn)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.transformer.wte is ours.transformer["wte"]
    assert list(ours.transformer.keys()) == list(theirs.transformer.keys())
    with torch.no_grad():
        for (name, p), (tname, tp) in zip(ours.state_dict().items(),
                                          theirs.state_dict().items()):
            tp.copy_(torch.from_numpy(np.array(p.numpy(), copy=True)))
    idx = [[1, 2, 3], [4, 5, 6]]
    out, tout = ours(ember.tensor(idx)), theirs(torch.tensor(idx))
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
    del ours.transformer.head
    assert "head" not in ours.transformer and len(ours.transformer) == 3
    with pytest.raises(AttributeError, match="ModuleDict has no attribute or module 'nope'"):
        ours.transformer.nope
    ours.transformer.note = "plain"                        # a non-module stays an attribute
    assert ours.transformer.note == "plain" and "note" not in ours.transformer


# -- a real training loop -----------------------------------------------------------------------

def test_mlp_learns_with_plain_sgd(rng):
    ember.manual_seed(0)
    x = rng.standard_normal((64, 2)).astype("float32")
    y = (x[:, 0] * x[:, 1] > 0).astype("int64")  # XOR-like quadrants
    model = nn.Sequential(nn.Linear(2, 32), nn.GELU(), nn.Linear(32, 2))
    xt, yt = ember.tensor(x), ember.tensor(y)
    losses = []
    for _ in range(150):
        model.zero_grad()
        loss = F.cross_entropy(model(xt), yt)
        loss.backward()
        losses.append(loss.item())
        model.load_state_dict({n: p.numpy() - 0.5 * p.grad.numpy()
                               for n, p in model.named_parameters()})
    assert losses[-1] < 0.3 * losses[0]
    acc = (model(xt).numpy().argmax(1) == y).mean()
    assert acc > 0.9


# -- Burn's Module API on nested modules (details in tests/nn/test_reparam.py) -------------------

def test_burn_api_on_nested_lists_and_dicts():
    em = Net()
    names = [n for n, _ in em.named_parameters()]
    assert nn.ParamGroup("blocks.*").names(em) == [n for n in names if n.startswith("blocks.")]
    em.freeze_group(nn.ParamGroup("heads.*", "scale"))
    assert [n for n, p in em.named_parameters() if not p.is_require_grad()] == [
        "scale", "heads.a.weight", "heads.a.bias", "heads.b.weight"]
    seen = []
    em.visit(lambda n, t: seen.append(n), buffers=True)
    assert seen == names + [n for n, _ in em.named_buffers()]
    rec = em.into_record()
    assert list(rec) == list(TNet().state_dict())
    assert Net().load_record(rec).into_record() == rec


def test_lora_on_nested_modules_keeps_torch_names_and_outputs(rng):
    em = Net().eval()
    x = ember.tensor(rng.standard_normal((2, 2, 5, 5)), dtype="float32")
    before = em(x).numpy().copy()
    em.apply_lora(nn.Lora(rank=1))
    # the 2-D weights of the blocks and heads; the conv kernel and 1-D tensors are not adapted
    assert list(em.reparameterized()) == ["blocks.0.fc.weight", "blocks.1.fc.weight",
                                          "heads.a.weight", "heads.b.weight"]
    assert "heads.a.parametrizations.weight.0.lora_B" in em.state_dict()
    assert_close(em(x), before)  # lora_B starts at zero
    em.materialize()
    assert list(em.state_dict()) == list(TNet().state_dict())
    assert_close(em(x), before)


def test_quantize_weights_skips_int_tensors_and_buffers():
    em = Net()
    em.quantize_weights(nn.Quantizer())
    assert [n for n, p in em.named_parameters() if p.is_quantized] == [
        "conv1.weight", "blocks.0.fc.weight", "blocks.1.fc.weight", "heads.a.weight",
        "heads.b.weight"]
    assert not any(b.is_quantized for b in em.buffers()) and not em.not_a_param.is_quantized
