"""ember.torch.nn's Module, Parameter, containers and layers against PyTorch 2.13: the same model
built in both (weights copied from torch through its state dict), compared for names, orders,
printing, outputs, gradients, hooks, state-dict loading and errors."""

import copy
import inspect
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import DeviceError, DimensionError, InvalidParameterError, KindError
from ember.torch import nn as enn

tnn = torch.nn


def to_e(t):
    """A torch tensor as an ember.torch tensor (a copy, on ember's default device)."""
    return et.tensor(t.detach().numpy())


def copy_weights(tmod, emod):
    """Load torch module ``tmod``'s state dict into ember module ``emod``."""
    result = emod.load_state_dict({k: to_e(v) for k, v in tmod.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"


def close(e, t, atol=1e-5):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-4, atol=atol)


def build(nn):
    """The same model in either API."""

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3, padding=1)
            self.bn = nn.BatchNorm2d(3)
            self.register_buffer("mask", ones(nn, 3), persistent=False)
            self.scale = nn.Parameter(ones(nn, 1))

        def forward(self, x):
            return (self.bn(self.conv(x)) * self.scale).relu()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.flat = nn.Flatten()
            self.heads = nn.ModuleList([nn.Linear(48, 4), nn.Linear(48, 4)])
            self.out = nn.Sequential(OrderedDict(act=nn.ReLU(), fc=nn.Linear(4, 2)))
            self.plain = ones(nn, 2)  # a plain tensor attribute: neither parameter nor state

        def forward(self, x):
            h = self.flat(self.block(x))
            return self.out(self.heads[0](h) + self.heads[1](h))

    return Net()


def ones(nn, n):
    return (torch if nn is tnn else et).ones(n)


@pytest.fixture
def pair():
    torch.manual_seed(0)
    t = build(tnn)
    e = build(enn)
    copy_weights(t, e)
    return t, e


def test_parameter_is_a_class_and_prints_as_pytorchs():
    p = enn.Parameter(et.tensor([1.0, 2.5]))
    assert isinstance(p, enn.Parameter) and isinstance(p, et.Tensor) and p.requires_grad
    assert p.is_leaf and type(p).__slots__ == ()
    assert repr(p) == repr(tnn.Parameter(torch.tensor([1.0, 2.5])))
    frozen = enn.Parameter(et.ones(2), requires_grad=False)
    assert not frozen.requires_grad
    assert tuple(enn.Parameter().shape) == tuple(tnn.Parameter().shape) == (0,)
    with pytest.raises(KindError):
        enn.Parameter(et.tensor([1, 2]))
    q = copy.deepcopy(p)
    assert type(q) is enn.Parameter and q is not p and q.tolist() == [1.0, 2.5]
    assert type(p * 2) is et.Tensor


def test_names_orders_and_state(pair):
    t, e = pair
    for method in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        assert inspect.isgenerator(getattr(e, method)())
        assert [n for n, _ in getattr(e, method)()] == [n for n, _ in getattr(t, method)()]
    assert list(e.state_dict()) == list(t.state_dict())
    assert [tuple(p.shape) for p in e.parameters()] == [tuple(p.shape) for p in t.parameters()]
    assert all(type(p) is enn.Parameter for p in e.parameters())
    assert [n for n, _ in e.named_parameters(prefix="m", recurse=False)] == \
        [n for n, _ in t.named_parameters(prefix="m", recurse=False)]
    assert len(list(e.children())) == len(list(t.children()))
    assert len(list(e.modules())) == len(list(t.modules()))
    assert "plain" not in e._parameters and "plain" not in e.state_dict()
    assert list(e._modules) == list(t._modules)
    sd = e.state_dict()
    assert isinstance(sd, OrderedDict) and not any(v.requires_grad for v in sd.values())
    assert all(isinstance(v, et.Tensor) for v in sd.values())
    assert type(e.state_dict(keep_vars=True)["block.scale"]) is enn.Parameter
    assert list(e.state_dict(prefix="p.")) == list(t.state_dict(prefix="p."))


def test_shared_modules_and_remove_duplicate():
    def make(nn):
        m = nn.Module()
        shared = nn.Linear(2, 2)
        m.a = shared
        m.b = shared
        return m
    t, e = make(tnn), make(enn)
    for kw in ({}, {"remove_duplicate": False}):
        assert [n for n, _ in e.named_modules(**kw)] == [n for n, _ in t.named_modules(**kw)]
        assert [n for n, _ in e.named_parameters(**kw)] == \
            [n for n, _ in t.named_parameters(**kw)]
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(e) == repr(t)


def test_repr_matches_pytorch(pair):
    t, e = pair
    assert repr(e) == repr(t)
    assert repr(enn.ModuleList()) == repr(tnn.ModuleList())
    lst = [enn.ParameterList([et.ones(2), et.zeros(2, 3)]),
           enn.ParameterDict({"b": et.ones(2), "a": et.zeros(1)})]
    ref = [tnn.ParameterList([torch.ones(2), torch.zeros(2, 3)]),
           tnn.ParameterDict({"b": torch.ones(2), "a": torch.zeros(1)})]
    for a, b in zip(lst, ref):
        assert repr(a) == repr(b)


@pytest.mark.parametrize("training", [True, False])
def test_forward_and_gradients_match(pair, training):
    t, e = pair
    t.train(training)
    e.train(training)
    assert e.training is training and e.block.bn.training is training
    x = np.random.default_rng(0).standard_normal((5, 2, 4, 4)).astype(np.float32)
    yt = t(torch.from_numpy(x))
    ye = e(et.tensor(x))
    assert isinstance(ye, et.Tensor)
    close(ye, yt)
    yt.square().sum().backward()
    ye.square().sum().backward()
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        close(pe.grad, pt.grad, atol=1e-4)
    close(e.block.bn.running_mean, t.block.bn.running_mean)
    assert e.block.bn.num_batches_tracked.item() == t.block.bn.num_batches_tracked.item()


def test_optimizer_takes_the_generator(pair):
    t, e = pair
    ot = torch.optim.SGD(t.parameters(), lr=0.1, momentum=0.9)
    oe = et.optim.SGD(e.parameters(), lr=0.1, momentum=0.9)
    x = np.random.default_rng(1).standard_normal((3, 2, 4, 4)).astype(np.float32)
    for _ in range(2):
        ot.zero_grad()
        oe.zero_grad()
        t(torch.from_numpy(x)).sum().backward()
        e(et.tensor(x)).sum().backward()
        ot.step()
        oe.step()
    for pe, pt in zip(e.parameters(), t.parameters()):
        close(pe, pt, atol=1e-4)
    groups = [{"params": e.heads.parameters()}, {"params": e.out.parameters(), "lr": 0.5}]
    opt = et.optim.Adam(groups, lr=0.01)
    assert [len(g["params"]) for g in opt.param_groups] == [4, 2]


def test_forward_hooks_order_and_results():
    def run(nn, lib):
        calls = []
        m = nn.Linear(2, 2)
        h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre1"))
        m.register_forward_pre_hook(lambda mod, args: calls.append("pre0"), prepend=True)
        m.register_forward_pre_hook(
            lambda mod, args, kwargs: (calls.append("prekw"), ((args[0] * 2,), kwargs))[1],
            with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: calls.append("post"))
        m.register_forward_hook(lambda mod, args, kwargs, out: out + 1, with_kwargs=True)
        with torch.no_grad():
            m.weight.copy_(torch.eye(2)) if lib is torch else None
        if lib is et:
            m.load_state_dict({"weight": et.eye(2), "bias": et.zeros(2)})
        else:
            m.bias.data.zero_()
        out = m(lib.ones(1, 2))
        h1.remove()
        m(lib.ones(1, 2))
        return calls, out.tolist()
    assert run(enn, et) == run(tnn, torch)


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
def test_full_backward_hook_matches_pytorch():
    def run(nn, lib, requires):
        seen = []
        lib.manual_seed(0)
        m = nn.Linear(3, 2)
        m.load_state_dict({"weight": lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]),
                           "bias": lib.tensor([0.1, 0.2])})

        def hook(mod, gi, go):
            seen.append(([None if g is None else g.tolist() for g in gi],
                         [g.tolist() for g in go]))
            return None if gi[0] is None else (gi[0] * 10,)
        m.register_full_backward_hook(hook)
        x = lib.tensor([[1.0, -1.0, 2.0], [0.0, 3.0, 1.0]], requires_grad=requires)
        (m(x) * lib.tensor([[1.0, 2.0]])).sum().backward()
        return seen, None if x.grad is None else x.grad.tolist(), m.weight.grad.tolist()
    for requires in (True, False):
        assert run(enn, et, requires) == run(tnn, torch, requires)


def test_full_backward_hook_two_inputs_and_pre_hook():
    class Mul(tnn.Module):
        def forward(self, a, b):
            return a * b

    class EMul(enn.Module):
        def forward(self, a, b):
            return a * b

    def run(mod, lib):
        seen = []
        mod.register_full_backward_pre_hook(lambda m, go: seen.append(("pre", go[0].tolist())))
        mod.register_full_backward_hook(
            lambda m, gi, go: seen.append(("full", [g.tolist() for g in gi])))
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        (mod(a, b) * lib.tensor([2.0, 3.0])).sum().backward()
        return seen, a.grad.tolist(), b.grad.tolist()
    assert run(EMul(), et) == run(Mul(), torch)


def test_load_state_dict_keys_and_errors():
    t, e = tnn.Sequential(tnn.Linear(2, 3), tnn.ReLU()), enn.Sequential(enn.Linear(2, 3),
                                                                          enn.ReLU())
    sd_t = {"0.weight": torch.ones(3, 2), "1.extra": torch.ones(1), "zzz": torch.ones(1)}
    sd_e = {k: to_e(v) for k, v in sd_t.items()}
    rt = t.load_state_dict(sd_t, strict=False)
    re_ = e.load_state_dict(sd_e, strict=False)
    assert (re_.missing_keys, re_.unexpected_keys) == (rt.missing_keys, rt.unexpected_keys)
    assert repr(re_) == repr(rt)
    assert e[0].weight.tolist() == [[1.0, 1.0]] * 3
    with pytest.raises(RuntimeError) as torch_err:
        t.load_state_dict(sd_t)
    with pytest.raises(InvalidParameterError) as ember_err:
        e.load_state_dict(sd_e)
    assert str(ember_err.value) == str(torch_err.value)
    bad_t = {"0.weight": torch.ones(2, 2), "0.bias": torch.ones(3)}
    with pytest.raises(RuntimeError) as torch_err:
        t.load_state_dict(bad_t, strict=False)
    with pytest.raises(InvalidParameterError) as ember_err:
        e.load_state_dict({k: to_e(v) for k, v in bad_t.items()}, strict=False)
    assert str(ember_err.value) == str(torch_err.value)
    with pytest.raises(KindError):
        e.load_state_dict([1, 2])


def test_load_state_dict_keeps_identity_or_assigns():
    e = enn.Linear(2, 1)
    w = e.weight
    opt = et.optim.SGD(e.parameters(), lr=1.0)
    e.load_state_dict({"weight": et.tensor([[1.0, 2.0]], dtype=et.float64),
                       "bias": et.tensor([0.5])})
    assert e.weight is w and w.dtype == et.float32 and w.tolist() == [[1.0, 2.0]]
    assert opt.param_groups[0]["params"][0] is w
    new = et.tensor([[3.0, 4.0]])
    e.load_state_dict({"weight": new, "bias": et.tensor([0.0])}, assign=True)
    assert type(e.weight) is enn.Parameter and e.weight.tolist() == [[3.0, 4.0]]
    assert e.weight.requires_grad


def test_attribute_semantics_and_registration_errors():
    def run(nn, lib):
        m = nn.Module()
        m.w = nn.Parameter(lib.ones(2))
        m.register_buffer("b", lib.zeros(1))
        m.sub = nn.ReLU()
        m.t = lib.ones(3)
        out = [sorted(m._parameters), sorted(m._buffers), sorted(m._modules),
               sorted(m.state_dict())]
        errors = []
        for action in (lambda: setattr(m, "w", lib.ones(2)),
                       lambda: m.register_buffer("w", lib.ones(1)),
                       lambda: m.register_parameter("a.b", None),
                       lambda: m.add_module("sub", 3),
                       lambda: m.get_submodule("sub.x"),
                       lambda: m.get_parameter("b"),
                       lambda: m.get_buffer("w"),
                       lambda: m.nothing):
            try:
                action()
                errors.append(None)
            except Exception as exc:  # noqa: BLE001 - comparing messages
                errors.append(exc.args[0] if exc.args else str(exc))
        m.w = None
        del m.sub
        out.append(sorted(m._parameters.items(), key=str))
        out.append(sorted(m._modules))
        return out, errors
    (ours, our_errors), (theirs, their_errors) = run(enn, et), run(tnn, torch)
    assert ours == theirs
    assert our_errors == their_errors


def test_error_types():
    m = enn.Module()
    m.w = enn.Parameter(et.ones(2))
    with pytest.raises(KindError):
        m.w = et.ones(2)
    with pytest.raises(AttributeError):
        m.nothing
    assert not hasattr(m, "nothing")
    with pytest.raises(InvalidParameterError):
        m.register_buffer("w", et.ones(1))
    with pytest.raises(InvalidParameterError):
        m.train("yes")


def test_get_submodule_parameter_buffer(pair):
    t, e = pair
    assert type(e.get_submodule("block.bn")).__name__ == "BatchNorm2d"
    assert e.get_parameter("out.fc.bias").tolist() == t.get_parameter("out.fc.bias").tolist()
    close(e.get_buffer("block.bn.running_var"), t.get_buffer("block.bn.running_var"))
    e.set_submodule("out.act", enn.Tanh())
    assert type(e.out.act).__name__ == "Tanh"


@pytest.mark.half_precision
def test_modes_grads_and_placement():
    e = enn.Sequential(enn.Linear(2, 2), enn.BatchNorm1d(2), enn.Dropout())
    assert not any(m.training for m in e.eval().modules())
    assert all(m.training for m in e.train().modules())
    w = e[0].weight
    e.requires_grad_(False)
    assert not any(p.requires_grad for p in e.parameters()) and e[0].weight is w
    e.requires_grad_()
    e(et.ones(3, 2)).sum().backward()
    e.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in e.parameters())
    e.zero_grad()
    assert all(p.grad is None for p in e.parameters())
    assert e.double() is e and e[0].weight is w and w.dtype == et.float64 and w.requires_grad
    assert e[1].num_batches_tracked.dtype == et.int64
    e.float()
    assert w.dtype == et.float32
    e.type(et.float64)
    assert e[1].num_batches_tracked.dtype == et.float64
    e.to(et.ones(1, dtype=et.float16))
    assert w.dtype == et.float16 and e.cpu() is e
    with pytest.raises(KindError):
        e.to(et.int64)
    if not ember.cuda.is_available():
        with pytest.raises(DeviceError):
            e.cuda()


def test_apply_and_children():
    def run(nn):
        names = []
        m = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
        m.apply(lambda mod: names.append(type(mod).__name__))
        return names
    assert run(enn) == run(tnn)


def test_sequential_and_module_list_behaviour():
    def run(nn):
        a, b, c, d = nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.GELU()
        s = nn.Sequential(a, b, c)
        out = [repr(s[1:]), repr(s[-1]), len(s)]
        del s[0]
        out.append(repr(s))
        s.insert(1, d)
        s.append(a)
        out += [repr(s), repr(s.pop(0)), len(s)]
        out.append(repr(s + nn.Sequential(b)))
        out.append(repr(nn.Sequential(a) * 2))
        ml = nn.ModuleList([a, b])
        ml.extend([c])
        ml.insert(0, d)
        ml += [a, a]
        out += [repr(ml), repr(ml[1:3]), len(ml), [type(x).__name__ for x in ml]]
        del ml[1:3]
        ml[0] = b
        out.append(repr(ml))
        md = nn.ModuleDict({"x": a, "y": b})
        md["z"] = c
        md.update([("w", d)])
        out += [list(md.keys()), "x" in md, repr(md.pop("y")), repr(md)]
        return out
    assert run(enn) == run(tnn)
    with pytest.raises(DimensionError):
        enn.Sequential(enn.ReLU())[3]


def test_parameter_containers():
    def run(nn, lib):
        pl = nn.ParameterList([lib.ones(2)])
        pl.append(nn.Parameter(lib.zeros(3)))
        pl.extend([lib.ones(1)])
        pd = nn.ParameterDict({"b": lib.ones(1), "a": lib.zeros(2)})
        pd["c"] = lib.ones(3)
        m = nn.Module()
        m.pl, m.pd = pl, pd
        return ([n for n, _ in m.named_parameters()], list(m.state_dict()),
                [type(p).__name__ for p in pl], len(pl), list(pd.keys()),
                [tuple(p.shape) for p in pl[1:]], repr(pl), repr(pd))
    assert run(enn, et) == run(tnn, torch)


def test_functional_init_and_utils_give_torch_tensors():
    import ember.torch.nn.functional as F
    x = np.array([[0.5, -1.0, 2.0]], dtype=np.float32)
    y = F.softmax(et.tensor(x), dim=1)
    assert isinstance(y, et.Tensor) and y.argmax(1).tolist() == [2]
    close(y, torch.softmax(torch.from_numpy(x), dim=1))
    w = enn.Parameter(et.empty(3, 4))
    assert enn.init.constant_(w, 0.25) is w and w.tolist() == [[0.25] * 4] * 3
    assert enn.init.eye_(et.empty(2, 3)).tolist() == tnn.init.eye_(torch.empty(2, 3)).tolist()
    assert enn.init._calculate_fan_in_and_fan_out(et.empty(4, 3, 5, 5)) == \
        tnn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 5, 5))
    assert enn.init.calculate_gain("relu") == tnn.init.calculate_gain("relu")
    pe, pt = enn.Parameter(et.tensor([3.0, 4.0])), tnn.Parameter(torch.tensor([3.0, 4.0]))
    pe.grad, pt.grad = et.tensor([3.0, 4.0]), torch.tensor([3.0, 4.0])
    ne, nt = enn.utils.clip_grad_norm_([pe], 1.0), tnn.utils.clip_grad_norm_([pt], 1.0)
    assert isinstance(ne, et.Tensor)
    close(ne, nt)
    close(pe.grad, pt.grad)
    vec = enn.utils.parameters_to_vector([pe, enn.Parameter(et.ones(2))])
    assert isinstance(vec, et.Tensor) and vec.tolist() == [3.0, 4.0, 1.0, 1.0]


def test_ember_modules_are_adopted():
    m = enn.Module()
    m.fc = ember.nn.Linear(2, 3)
    m.seq = ember.nn.Sequential(ember.nn.Linear(3, 1), ember.nn.BatchNorm1d(1))
    assert isinstance(m.fc, enn.Module) and isinstance(m.seq, enn.Sequential)
    assert [n for n, _ in m.named_parameters()] == \
        ["fc.weight", "fc.bias", "seq.0.weight", "seq.0.bias", "seq.1.weight", "seq.1.bias"]
    assert all(type(p) is enn.Parameter for p in m.parameters())
    assert [n for n, _ in m.named_buffers()] == \
        ["seq.1.running_mean", "seq.1.running_var", "seq.1.num_batches_tracked"]


def test_layers_are_torch_classes_of_embers():
    for name in ("Linear", "Conv2d", "ReLU", "Dropout", "BatchNorm1d", "BatchNorm2d",
                 "LayerNorm", "Embedding", "CrossEntropyLoss", "MSELoss", "Flatten"):
        cls = getattr(enn, name)
        assert issubclass(cls, enn.Module) and issubclass(cls, getattr(ember.nn, name))
    emb = enn.Embedding(5, 3)
    assert [n for n, _ in emb.named_parameters()] == ["weight"]
    loss = enn.CrossEntropyLoss()(et.tensor([[1.0, 2.0]]), et.tensor([1]))
    ref = tnn.CrossEntropyLoss()(torch.tensor([[1.0, 2.0]]), torch.tensor([1]))
    assert isinstance(loss, et.Tensor)
    close(loss, ref)


def test_deepcopy_keeps_parameters():
    e = enn.Sequential(enn.Linear(2, 2))
    c = copy.deepcopy(e)
    assert type(c[0].weight) is enn.Parameter and c[0].weight is not e[0].weight
    assert c[0].weight.tolist() == e[0].weight.tolist()
    assert list(c.state_dict()) == list(e.state_dict())


def test_init_through_apply_as_programs_do():
    def run(nn, lib):
        lib.manual_seed(0)

        def init_weights(m):
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.weight, 0.5)
                m.bias.data.fill_(0.01)
        model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        model.apply(init_weights)
        return [p.tolist() for p in model.parameters()], \
            model(lib.ones(1, 2)).tolist()
    assert run(enn, et) == run(tnn, torch)


def test_pickle_round_trip():
    import pickle
    e = enn.Sequential(enn.Linear(2, 2), enn.BatchNorm1d(2))
    c = pickle.loads(pickle.dumps(e))
    assert type(c[0].weight) is enn.Parameter and list(c.state_dict()) == list(e.state_dict())
    assert c[0].weight.tolist() == e[0].weight.tolist()
    assert repr(c) == repr(e)


def test_forward_missing_and_always_called_hooks():
    def run(nn):
        calls = []
        m = nn.Module()
        m.register_forward_hook(lambda mod, args, out: calls.append(out), always_call=True)
        try:
            m(1)
        except NotImplementedError as exc:
            calls.append(str(exc))
        return calls
    assert run(enn) == run(tnn)


X4 = np.random.default_rng(2).standard_normal((2, 3, 4, 4)).astype(np.float32)
X2 = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)
LAYERS = [
    ("Identity", (), X2), ("Linear", (3, 5), X2), ("Conv2d", (3, 2, 3, 1, 1), X4),
    ("MaxPool2d", (2,), X4), ("AvgPool2d", (2,), X4), ("BatchNorm1d", (3,), X2),
    ("BatchNorm2d", (3,), X4), ("LayerNorm", (3,), X2), ("Dropout", (0.3,), X2),
    ("Flatten", (), X4), ("ReLU", (), X2), ("GELU", (), X2), ("SiLU", (), X2),
    ("Sigmoid", (), X2), ("Tanh", (), X2), ("Softmax", (1,), X2), ("LogSoftmax", (1,), X2),
    ("Embedding", (6, 3), np.array([[0, 5], [2, 2]])),
]


@pytest.mark.parametrize("name,args,x", LAYERS, ids=[entry[0] for entry in LAYERS])
def test_each_layer_matches_pytorch(name, args, x):
    torch.manual_seed(0)
    t = getattr(tnn, name)(*args).eval()
    e = getattr(enn, name)(*args).eval()
    assert repr(e) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert list(e.state_dict()) == list(t.state_dict())
    copy_weights(t, e)
    close(e(et.tensor(x)), t(torch.from_numpy(x)))


LOSSES = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCEWithLogitsLoss"]


@pytest.mark.parametrize("name", LOSSES)
def test_each_loss_matches_pytorch(name):
    x = X2
    y = (np.array([0, 2, 1, 2]) if name in ("CrossEntropyLoss", "NLLLoss")
         else np.random.default_rng(4).random(x.shape).astype(np.float32))
    t, e = getattr(tnn, name)(), getattr(enn, name)()
    assert repr(e) == repr(t)
    out = e(et.tensor(x), et.tensor(y))
    assert isinstance(out, et.Tensor)
    close(out, t(torch.from_numpy(x), torch.from_numpy(y)))


def test_buffer_class_and_apply():
    def run(nn, lib):
        m = nn.Module()
        m.steps = nn.Buffer(lib.tensor(0))
        m.mask = nn.Buffer(lib.ones(2), persistent=False)
        m.w = nn.Parameter(lib.ones(2))
        w = m.w
        m._apply(lambda t: t * 2 if t.dtype == lib.float32 else t)
        return (list(m._buffers), list(m.state_dict()), isinstance(m.mask, nn.Buffer),
                m.w is w, m.w.tolist(), m.mask.tolist(), m.steps.item())
    assert run(enn, et) == run(tnn, torch)
