"""Tests of ember/nn/reparam.py and the Burn Module API on ember.nn.Module: parameter groups,
visit/map, records, reparameterizations (against torch.nn.utils.parametrize), LoRA and QLoRA
(against hand-written torch references, values and float64 gradients), weight quantization."""

import copy
import doctest
import os

import numpy as np
import pytest
import torch
from torch import nn as tnn
from torch.nn.utils import parametrize

import ember
import ember.nn.functional as F
from ember import nn, optim
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from oracle import assert_close, ember_tensor, layouts, on_device, to_torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _mlp(dtype="float32"):
    return nn.Sequential(nn.Linear(4, 5, dtype=dtype), nn.ReLU(), nn.Linear(5, 3, dtype=dtype))


def _state_values(module):
    """name -> (object id, copy of the values), to check a failed call changed nothing."""
    return {k: (id(t), np.array(t.numpy(), copy=True), type(t), t.is_require_grad())
            for k, t in module.state_dict().items()}


def _assert_same_state(module, before):
    after = _state_values(module)
    assert list(after) == list(before)
    for k, (i, v, cls, rg) in before.items():
        j, w, cls2, rg2 = after[k]
        assert i == j and cls is cls2 and rg == rg2, k
        assert v.dtype == w.dtype and v.tobytes() == w.tobytes(), k


# -- ParamGroup and the group methods ------------------------------------------------------------

def test_param_group_matching():
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1))
    assert nn.ParamGroup("*.bias").names(m) == ["0.bias", "1.bias", "2.bias"]
    assert nn.ParamGroup("0.*", "2.weight").names(m) == ["0.weight", "0.bias", "2.weight"]
    assert nn.ParamGroup(["1.*"]).names(m) == ["1.weight", "1.bias"]  # a list of patterns
    assert nn.ParamGroup("*", predicate=lambda n, t: t.ndim == 2).names(m) == ["0.weight",
                                                                             "2.weight"]
    assert nn.ParamGroup(predicate=lambda n, t: False).names(m) == []
    assert nn.ParamGroup("[02].weight").names(m) == ["0.weight", "2.weight"]
    assert nn.ParamGroup("*.BIAS", strict=False).names(m) == []  # case-sensitive
    g = nn.ParamGroup("a*", "b")
    assert g == nn.ParamGroup("a*", "b") and g != nn.ParamGroup("a*") and hash(g) == hash(
        nn.ParamGroup("a*", "b"))
    assert repr(g) == "ParamGroup('a*', 'b')"
    with pytest.raises(AttributeError):
        g.patterns = ()


@pytest.mark.parametrize("args, kwargs, needle", [
    ((), {}, "at least one pattern"),
    (("",), {}, "pattern ''"),
    ((3,), {}, "pattern 3"),
    (("a", None), {}, "pattern None"),
    (("a",), {"predicate": 5}, "predicate must be callable"),
    (("a",), {"strict": 1}, "strict must be a bool"),
])
def test_param_group_bad_arguments(args, kwargs, needle):
    with pytest.raises(InvalidParameterError, match=needle):
        nn.ParamGroup(*args, **kwargs)


def test_group_methods_act_only_on_matches():
    m = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    m.freeze_group(nn.ParamGroup("0.*"))
    assert [p.is_require_grad() for p in m.parameters()] == [False, False, True, True]
    m.unfreeze_group(nn.ParamGroup("*.weight"))
    assert [p.is_require_grad() for p in m.parameters()] == [True, False, True, True]
    m.set_require_grad_group(nn.ParamGroup(predicate=lambda n, t: t.ndim == 1), False)
    assert [p.is_require_grad() for p in m.parameters()] == [True, False, True, False]
    assert m.freeze_group(nn.ParamGroup("1.bias")) is m
    # the same objects, still leaves; only matched parameters get gradients
    objs = m.parameters()
    m.unfreeze_group(nn.ParamGroup("1.*"))
    assert all(a is b for a, b in zip(objs, m.parameters()))
    F.mse_loss(m(ember.ones(4, 2)), ember.zeros(4, 1)).backward()
    assert [p.grad is not None for p in m.parameters()] == [True, False, True, True]


def test_unfreeze_group_makes_non_leaf_parameters_leaves():
    m = nn.Linear(2, 2)
    m.weight = m.weight * 2  # a non-leaf attribute
    m.unfreeze_group(nn.ParamGroup("weight"))
    assert m.weight.is_leaf and m.weight.is_require_grad()


def test_group_methods_bad_input_change_nothing():
    m = _mlp()
    before = _state_values(m)
    with pytest.raises(InvalidParameterError, match=r"freeze_group: pattern '9\.\*' matches no "
                       r"parameter; the names are \['0.weight'"):
        m.freeze_group(nn.ParamGroup("0.*", "9.*"))
    with pytest.raises(InvalidParameterError, match="group must be a ParamGroup, got str"):
        m.freeze_group("0.*")
    with pytest.raises(InvalidParameterError, match="require_grad must be a bool"):
        m.set_require_grad_group(nn.ParamGroup("*"), 1)
    _assert_same_state(m, before)
    # strict=False: an unmatched pattern is fine
    m.freeze_group(nn.ParamGroup("0.*", "9.*", strict=False))
    assert [p.is_require_grad() for p in m.parameters()] == [False, False, True, True]


# -- visit and map -------------------------------------------------------------------------------

def test_visit_order_and_buffers():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    seen = []
    assert m.visit(lambda n, t: seen.append((n, t))) is None
    assert [n for n, _ in seen] == [n for n, _ in m.named_parameters()]
    assert all(t is p for (_, t), p in zip(seen, m.parameters()))
    seen.clear()
    m.visit(lambda n, t: seen.append(n), buffers=True)
    assert seen == [n for n, _ in m.named_parameters()] + [n for n, _ in m.named_buffers()]
    with pytest.raises(InvalidParameterError, match="visit: fn must be callable"):
        m.visit(3)
    with pytest.raises(InvalidParameterError, match="visit: buffers must be a bool"):
        m.visit(print, buffers="yes")


def test_map_rebinds_values_of_the_same_objects(rng):
    m = nn.Sequential(nn.Linear(3, 2, dtype="float64"), nn.BatchNorm1d(2, dtype="float64"))
    objs = m.parameters() + m.buffers()
    old = {n: t.numpy().copy() for n, t in m.state_dict().items()}
    view = m[0].weight.reshape(-1)  # taken before: keeps its values
    assert m.map(lambda n, t: t * 2 + 1) is m
    for n, t in m.named_parameters():
        np.testing.assert_array_equal(t.numpy(), old[n] * 2 + 1)
        assert t.is_leaf and t.is_require_grad() and t.dtype == ember.float64
    np.testing.assert_array_equal(view.numpy(), old["0.weight"].reshape(-1))
    np.testing.assert_array_equal(m[1].running_var.numpy(), old["1.running_var"])  # no buffers
    m.map(lambda n, t: t + 1 if t.kind == "float" else t + 5, buffers=True)
    np.testing.assert_array_equal(m[1].running_var.numpy(), old["1.running_var"] + 1)
    assert m[1].num_batches_tracked.tolist() == 5
    assert all(a is b for a, b in zip(objs, m.parameters() + m.buffers()))
    # a float32 result is cast to the tensor's dtype
    m.map(lambda n, t: ember.zeros(t.shape, dtype="float32"))
    assert m[0].weight.dtype == ember.float64 and m[0].weight.abs().sum().item() == 0


def test_map_checks_every_result_first():
    m = _mlp()
    before = _state_values(m)
    with pytest.raises(ShapeMismatchError) as e:
        m.map(lambda n, t: t.reshape(1, -1) if n == "2.bias" else t + 1)
    assert "map: fn returned shape (1, 3) for '2.bias'; expected its shape (3,)" in str(e.value)
    _assert_same_state(m, before)
    with pytest.raises(KindError, match="map: fn returned a int tensor .* for '0.weight'"):
        m.map(lambda n, t: t.cast("int64"))
    with pytest.raises(InvalidParameterError, match="fn returned a list for '0.weight'"):
        m.map(lambda n, t: t.tolist())
    with pytest.raises(ZeroDivisionError):  # fn's own error: nothing changed either
        m.map(lambda n, t: t + 1 if n != "2.bias" else 1 / 0)
    with pytest.raises(InvalidParameterError, match="map: fn must be callable"):
        m.map(None)
    _assert_same_state(m, before)


def test_map_with_quantized_results_quantizes_in_place():
    m = nn.Linear(4, 2)
    w = m.weight
    m.map(lambda n, t: t.quantize_dynamic(ember.QuantScheme()) if n == "weight" else t)
    assert m.weight is w and w.is_quantized and not w.is_require_grad()


# -- records -------------------------------------------------------------------------------------

def test_records_names_match_torch_and_are_copies():
    em = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.Flatten(), nn.Linear(2, 1))
    tm = tnn.Sequential(tnn.Conv2d(1, 2, 3), tnn.BatchNorm2d(2), tnn.Flatten(), tnn.Linear(2, 1))
    rec = em.into_record()
    assert list(rec) == list(tm.state_dict()) and not rec.partial and len(rec) == 9
    for k, t in em.state_dict().items():
        assert rec[k] is not t and not rec[k].is_require_grad()
        assert rec[k].dtype == t.dtype and rec.shapes[k] == tuple(t.shape)
        assert rec.dtypes[k] == t.dtype
        assert not np.shares_memory(rec[k].numpy(), t.numpy())
    assert rec == em.into_record()
    em.map(lambda n, t: t + 1)
    assert rec != em.into_record()
    assert em.load_record(rec) is em and em.into_record() == rec
    assert rec.state_dict() == OrderedDictLike(rec)
    with pytest.raises(KeyError, match="no tensor named 'nope'"):
        rec["nope"]


def OrderedDictLike(rec):
    return {k: rec[k] for k in rec}


def test_record_equality_repr_and_construction():
    a = nn.ModuleRecord({"w": ember.tensor([1.0, float("nan")]), "n": ember.tensor([1, 2])})
    b = nn.ModuleRecord([("n", [1, 2]), ("w", ember.tensor([1.0, float("nan")]))])
    assert a == b  # names in any order, NaN equals NaN
    assert a != nn.ModuleRecord({"w": ember.tensor([1.0, float("nan")]), "n": ember.tensor([1, 3])})
    assert a != nn.ModuleRecord(dict(a), partial=True)
    assert a != nn.ModuleRecord({"w": ember.tensor([1.0, float("nan")], dtype="float64"),
                                 "n": ember.tensor([1, 2])})
    assert a != nn.ModuleRecord({"w": ember.tensor([1.0, float("nan")])})
    assert (a == 3) is False
    assert repr(a) == "ModuleRecord({'w': float32(2,), 'n': int64(2,)})"
    e = nn.ModuleRecord({}, partial=True)
    assert repr(e) == "ModuleRecord({}, partial=True)" and len(e) == 0
    q = nn.ModuleRecord({"w": ember.ones(2, 2).quantize_dynamic(ember.QuantScheme("q4s"))})
    assert repr(q) == "ModuleRecord({'w': float32(2, 2) q4s})" and q["w"].is_quantized
    assert q != nn.ModuleRecord({"w": ember.ones(2, 2)})
    src = ember.ones(2)
    r = nn.ModuleRecord({"x": src})
    assert r["x"] is not src and not np.shares_memory(r["x"].numpy(), src.numpy())
    with pytest.raises(TypeError):
        hash(a)


@pytest.mark.parametrize("arg, kwargs, needle", [
    (5, {}, "must be a mapping or"),
    ([("a",)], {}, "is not a \\(name, tensor\\) pair"),
    ({"": ember.ones(1)}, {}, "name '' must be a non-empty string"),
    ({1: ember.ones(1)}, {}, "name 1 must be"),
    ([("a", ember.ones(1)), ("a", ember.ones(1))], {}, "'a' appears twice"),
    ({"a": object()}, {}, "the value of 'a' is not a tensor"),
    ({}, {"partial": "no"}, "partial must be a bool"),
])
def test_record_bad_construction(arg, kwargs, needle):
    with pytest.raises(InvalidParameterError, match=needle):
        nn.ModuleRecord(arg, **kwargs)


def test_group_records_load_only_their_names():
    src, dst = _mlp(), _mlp()
    rec = src.into_record_group(nn.ParamGroup("2.*"))
    assert list(rec) == ["2.weight", "2.bias"] and rec.partial
    before = dst.into_record()
    dst.load_record(rec)
    assert_close(dst[2].weight, src[2].weight.numpy())
    assert_close(dst[0].weight, before["0.weight"].numpy())
    # group records see buffers too
    bn = nn.Sequential(nn.BatchNorm1d(2))
    assert list(bn.into_record_group(nn.ParamGroup("*running*"))) == ["0.running_mean",
                                                                      "0.running_var"]
    with pytest.raises(InvalidParameterError, match="into_record_group: pattern 'x' matches no "
                       "tensor of the state dict"):
        bn.into_record_group(nn.ParamGroup("x"))


@pytest.mark.parametrize("method", ["load_record", "try_load_record"])
def test_load_record_errors_change_nothing(method):
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    full = m.into_record()
    before = _state_values(m)
    load = getattr(m, method)
    d = dict(full)
    cases = [
        (nn.ModuleRecord({k: v for k, v in d.items() if k != "0.bias"}), InvalidParameterError,
         f"{method}: Sequential: missing names ['0.bias']"),
        (nn.ModuleRecord({**d, "9.x": ember.ones(1)}), InvalidParameterError,
         "unexpected names ['9.x']"),
        (nn.ModuleRecord({"9.x": ember.ones(1)}, partial=True), InvalidParameterError,
         "unexpected names ['9.x']"),
        (nn.ModuleRecord({**d, "0.weight": ember.ones(3, 2)}), ShapeMismatchError,
         "'0.weight' (shape (3, 2) in the record, expected (2, 2))"),
        (nn.ModuleRecord({**d, "1.num_batches_tracked": ember.tensor(1.0)}), KindError,
         "'1.num_batches_tracked' is float32 in the record, expected a int tensor (int64)"),
        (nn.ModuleRecord({**d, "0.bias": ember.tensor([True, False])}), KindError,
         "'0.bias' is bool in the record"),
        (dict(d), InvalidParameterError, "record must be a ModuleRecord, got dict (ModuleRecord"),
    ]
    for rec, err, needle in cases:
        with pytest.raises(err) as e:
            load(rec)
        assert needle in str(e.value), (needle, str(e.value))
        assert str(e.value).startswith(method)
        _assert_same_state(m, before)


def test_load_record_casts_and_keeps_objects_for_optimizers():
    m = nn.Linear(2, 1)
    opt = optim.SGD(m.parameters(), lr=0.1)
    w = m.weight
    other = on_device(["float16", "float64"])[0]  # a dtype other than the module's float32
    m.load_record(nn.ModuleRecord({"weight": ember.tensor([[1.0, 2.0]], dtype="float64"),
                                   "bias": ember.tensor([0.5], dtype=other)}))
    assert m.weight is w and w.dtype == ember.float32 and w.tolist() == [[1.0, 2.0]]
    F.mse_loss(m(ember.ones(1, 2)), ember.zeros(1, 1)).backward()
    opt.step()
    assert w.tolist() != [[1.0, 2.0]]  # the optimizer still updates the loaded tensor
    # a quantized value stays quantized in the module
    q = ember.tensor([[1.0, 2.0]]).quantize_dynamic(ember.QuantScheme())
    m.load_record(nn.ModuleRecord({"weight": q}, partial=True))
    assert m.weight is w and w.is_quantized


def test_try_load_file(tmp_path):
    a, b = _mlp(), _mlp()
    path = str(tmp_path / "m.safetensors")
    a.save_file(path)
    assert b.try_load_file(path) is b and b.into_record() == a.into_record()
    x = ember.randn(3, 4)
    assert_close(b(x), a(x).numpy())
    before = _state_values(b)
    with pytest.raises(FileNotFoundError):
        b.try_load_file(str(tmp_path / "missing.safetensors"))
    bad = str(tmp_path / "bad.safetensors")
    with open(bad, "wb") as f:
        f.write(b"not a safetensors file")
    with pytest.raises(InvalidParameterError):
        b.try_load_file(bad)
    part = str(tmp_path / "part.safetensors")
    ember.io.save_file({"0.weight": ember.zeros(5, 4)}, part)
    with pytest.raises(InvalidParameterError, match="try_load_file: Sequential: missing names"):
        b.try_load_file(part)
    wrong = str(tmp_path / "wrong.safetensors")
    ember.io.save_file({"0.weight": ember.zeros(5, 4, dtype="int32")}, wrong)
    with pytest.raises(KindError, match="try_load_file"):
        b.try_load_file(wrong, strict=False)
    with pytest.raises(InvalidParameterError, match="strict must be a bool"):
        b.try_load_file(part, strict=None)
    _assert_same_state(b, before)
    b.try_load_file(part, strict=False)
    assert b[0].weight.abs().sum().item() == 0 and b[2].weight.abs().sum().item() > 0


# -- reparameterizations ---------------------------------------------------------------------------

class Scale(nn.Reparameterization):
    def __init__(self, n, dtype="float64"):
        super().__init__()
        self.s = nn.Parameter(ember.tensor(np.linspace(0.5, 1.5, n), dtype=dtype))

    def forward(self, base):
        return base * self.s.reshape(-1, 1)


class Double(nn.Reparameterization):
    def forward(self, base):
        return base * 2


class TScale(tnn.Module):
    def __init__(self, n):
        super().__init__()
        self.s = tnn.Parameter(torch.linspace(0.5, 1.5, n, dtype=torch.float64))

    def forward(self, base):
        return base * self.s.reshape(-1, 1)


def _pair_linear(rng, i, o):
    em, tm = nn.Linear(i, o, dtype="float64"), tnn.Linear(i, o).double()
    w, b = rng.standard_normal((o, i)), rng.standard_normal(o)
    em.load_state_dict({"weight": w, "bias": b})
    tm.load_state_dict({"weight": torch.tensor(w), "bias": torch.tensor(b)})
    return em, tm


def test_reparameterization_matches_torch_parametrize(rng):
    em, tm = _pair_linear(rng, 4, 3)
    em.apply_reparameterization(lambda mn, mod, pn, t: Scale(3) if pn == "weight" else None)
    parametrize.register_parametrization(tm, "weight", TScale(3))
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert type(em).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert isinstance(em, nn.Linear)
    for shape in [(5, 4), (0, 4), (2, 3, 4)]:
        xa = rng.standard_normal(shape)
        for _, arr in layouts(xa):
            x = ember_tensor(arr)
            out = em(x)
            ref = tm(torch.tensor(xa))
            assert_close(out, ref)
    seed = rng.standard_normal((5, 3))
    x = ember.tensor(rng.standard_normal((5, 4)))
    em(x).backward(ember.tensor(seed))
    tm(torch.tensor(x.numpy())).backward(torch.tensor(seed))
    plist = em.parametrizations.weight
    assert_close(plist[0].s.grad, tm.parametrizations.weight[0].s.grad)
    assert_close(plist.original.grad, tm.parametrizations.weight.original.grad)
    assert_close(em.bias.grad, tm.bias.grad)
    assert em.reparameterized() == {"weight": (plist[0],)}
    with pytest.raises(InvalidParameterError, match="'weight' is reparameterized; set its stored"):
        em.weight = ember.zeros(3, 4)
    with pytest.raises(AttributeError):
        em.parametrizations.nope


def test_stacked_reparameterizations_and_materialize(rng):
    em, tm = _pair_linear(rng, 2, 3)
    order = list(em.__dict__)
    for _ in range(2):
        em.apply_reparameterization(lambda mn, mod, pn, t: Scale(3) if pn == "weight" else None)
        parametrize.register_parametrization(tm, "weight", TScale(3))
    assert list(em.state_dict()) == list(tm.state_dict())
    x = rng.standard_normal((4, 2))
    assert_close(em(ember.tensor(x)), tm(torch.tensor(x)))
    original = em.parametrizations.weight.original
    em.materialize()
    parametrize.remove_parametrizations(tm, "weight")
    assert type(em) is nn.Linear and em.weight is original and "parametrizations" not in vars(em)
    assert list(em.__dict__) == order
    assert list(em.state_dict()) == ["weight", "bias"]  # the original attribute order
    assert_close(em.weight, tm.weight)
    assert_close(em(ember.tensor(x)), tm(torch.tensor(x)))
    assert em.weight.is_leaf and em.weight.is_require_grad()
    assert em.materialize() is em and em.reparameterized() == {}  # nothing left: no-op


def test_reparameterizer_bad_results_change_nothing():
    m = _mlp()
    before = _state_values(m)

    class Wrong(nn.Reparameterization):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, base):
            return self.fn(base)
    cases = [
        (lambda *a: "x", InvalidParameterError, "returned a str for '0.weight'; expected a "
         "Reparameterization"),
        (lambda mn, mod, pn, t: Wrong(lambda b: b.reshape(-1)) if mn == "2" else None,
         ShapeMismatchError, "Wrong gives shape (15,) for '2.weight'; expected its shape (3, 5)"),
        (lambda mn, mod, pn, t: Wrong(lambda b: b.cast("float64")), KindError,
         "Wrong gives dtype float64 for '0.weight'; expected its dtype float32"),
        (lambda mn, mod, pn, t: Wrong(lambda b: 3), InvalidParameterError,
         "Wrong.forward returned a int for '0.weight'"),
        (5, InvalidParameterError, "reparameterizer must be callable"),
    ]
    for fn, err, needle in cases:
        with pytest.raises(err) as e:
            m.apply_reparameterization(fn)
        assert needle in str(e.value) and str(e.value).startswith("apply_reparameterization")
        _assert_same_state(m, before)
        assert type(m[0]) is nn.Linear and type(m[2]) is nn.Linear


def test_reparameterized_copies_are_independent():
    m = nn.Sequential(nn.Linear(2, 2)).apply_lora(nn.Lora(1))
    c = copy.deepcopy(m)
    c.apply_reparameterization(lambda mn, mod, pn, t: Double() if pn == "bias" else None)
    assert "bias" in c[0].parametrizations and list(m[0].parametrizations) == ["weight"]
    assert isinstance(m[0].bias, ember.Tensor) and "bias" in vars(m[0])
    v = m.valid()
    assert not any(p.is_require_grad() for p in v.parameters())
    assert all(p.is_require_grad() for n, p in m.named_parameters() if "lora" in n)
    # casting reaches the stored tensor and the adapters
    m.double()
    assert m[0].weight.dtype == ember.float64 and m(ember.ones(1, 2, dtype="float64")).shape == (1, 2)


# -- LoRA ----------------------------------------------------------------------------------------

def _torch_lora_ref(W, b, A, B, x, scaling):
    W, b, x = (torch.tensor(v) for v in (W, b, x))
    A = torch.tensor(A, requires_grad=True)
    B = torch.tensor(B, requires_grad=True)
    out = x @ (W + scaling * B @ A).T + b
    return out, A, B


def test_lora_linear_against_torch_values_and_gradients(rng):
    m = nn.Linear(6, 4, dtype="float64")
    W, b = m.weight.numpy().copy(), m.bias.numpy().copy()
    m.apply_lora(nn.Lora(rank=2, alpha=3))
    ad = m.parametrizations.weight[0]
    assert ad.lora_A.shape == (2, 6) and ad.lora_B.shape == (4, 2) and ad.scaling == 1.5
    assert ad.lora_B.abs().sum().item() == 0 and ad.lora_A.dtype == ember.float64
    bound = 1 / np.sqrt(6)  # kaiming-uniform with a=sqrt(5), as PEFT
    assert float(ad.lora_A.abs().max().item()) <= bound
    assert_close(m.weight, W)  # B = 0: starts as the base weight
    Bv = rng.standard_normal((4, 2))
    m.map(lambda n, t: ember.tensor(Bv) if n.endswith("lora_B") else t)
    for shape in [(5, 6), (0, 6), (3, 2, 6)]:
        xa = rng.standard_normal(shape)
        for _, arr in layouts(xa):
            for p in m.parameters():
                p.grad = None
            out = m(ember_tensor(arr))
            ref, A, B = _torch_lora_ref(W, b, ad.lora_A.numpy(), Bv, xa, 1.5)
            assert_close(out, ref)
            seed = rng.standard_normal(ref.shape)
            out.backward(ember.tensor(seed))
            ref.backward(torch.tensor(seed))
            assert_close(ad.lora_A.grad, A.grad)
            assert_close(ad.lora_B.grad, B.grad)
            assert [n for n, p in m.named_parameters() if p.grad is not None] == [
                "parametrizations.weight.0.lora_A", "parametrizations.weight.0.lora_B"]


def test_lora_mlp_trains_only_adapters_and_materializes(rng):
    ember.manual_seed(1)
    m = _mlp("float64")
    x = ember.tensor(rng.standard_normal((8, 4)))
    y = ember.tensor(rng.standard_normal((8, 3)))
    base = {n: t.numpy().copy() for n, t in m.state_dict().items()}
    m.apply_lora(nn.Lora(rank=2))
    assert [n for n, p in m.named_parameters() if p.is_require_grad()] == [
        f"{i}.parametrizations.weight.0.lora_{ab}" for i in (0, 2) for ab in "AB"]
    assert_close(m(x), _mlp_ref(base, x.numpy()))
    opt = optim.Adam([p for p in m.parameters() if p.requires_grad], lr=0.05)
    before = {n: t.numpy().copy() for n, t in m.state_dict().items()}
    for _ in range(3):
        opt.zero_grad()
        F.mse_loss(m(x), y).backward()
        opt.step()
    after = m.state_dict()
    changed = [n for n in before if not np.array_equal(before[n], after[n].numpy())]
    assert changed == [f"{i}.parametrizations.weight.0.lora_{ab}" for i in (0, 2) for ab in "AB"]
    # the reference with merged weights W + B @ A (scaling 1)
    merged = dict(base)
    for i in (0, 2):
        A = after[f"{i}.parametrizations.weight.0.lora_A"].numpy()
        B = after[f"{i}.parametrizations.weight.0.lora_B"].numpy()
        merged[f"{i}.weight"] = base[f"{i}.weight"] + B @ A
    out = m(x)
    assert_close(out, _mlp_ref(merged, x.numpy()))
    # state_dict round trip into a fresh LoRA model
    other = _mlp("float64").apply_lora(nn.Lora(rank=2))
    other.load_state_dict(m.state_dict())
    assert_close(other(x), out.numpy())
    other2 = _mlp("float64").apply_lora(nn.Lora(rank=2)).load_record(m.into_record())
    assert_close(other2(x), out.numpy())
    # materialize: a plain module with the same outputs, its weights frozen (as the base was)
    plain = m.materialize()
    assert [type(l) for l in plain] == [nn.Linear, nn.ReLU, nn.Linear]
    assert list(plain.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert_close(plain(x), out.numpy())
    assert not any(p.is_require_grad() for p in plain.parameters())


def _mlp_ref(sd, x):
    h = np.maximum(x @ sd["0.weight"].T + sd["0.bias"], 0)
    return h @ sd["2.weight"].T + sd["2.bias"]


def test_lora_targets_and_modules_without_2d_weights():
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.Linear(2, 2), nn.LayerNorm(2))
    net.apply_lora(nn.Lora(1))
    assert list(net.reparameterized()) == ["2.weight"]  # conv kernels and 1-D tensors are not
    m = _mlp()
    m.apply_lora(nn.Lora(1, targets=nn.ParamGroup("2.*")))
    assert list(m.reparameterized()) == ["2.weight"]
    assert not any(p.is_require_grad() for p in m[0].parameters())  # all base tensors frozen
    before = _state_values(m)
    with pytest.raises(InvalidParameterError, match="apply_lora: pattern 'x.*' matches no"):
        m.apply_lora(nn.Lora(1, targets=nn.ParamGroup("x.*")))
    _assert_same_state(m, before)
    for module in (nn.Sequential(nn.ReLU(), nn.LayerNorm(3)), nn.Conv2d(1, 1, 3)):
        before = _state_values(module)
        with pytest.warns(UserWarning, match="apply_lora: the module has no 2-D float weight"):
            assert module.apply_lora(nn.Lora(2)) is module
        _assert_same_state(module, before)  # nothing frozen, nothing attached
        assert module.reparameterized() == {}


def test_lora_stacks_on_an_adapted_weight():
    m = nn.Linear(3, 2).apply_lora(nn.Lora(1))
    m.apply_lora(nn.Lora(2))
    plist = m.parametrizations.weight
    assert len(plist) == 2 and plist[1].lora_A.shape == (2, 3)
    assert not plist[0].lora_A.is_require_grad() and plist[1].lora_A.is_require_grad()


@pytest.mark.parametrize("args, kwargs, err, needle", [
    ((0,), {}, InvalidParameterError, "Lora: rank must be an int >= 1, got 0"),
    ((True,), {}, InvalidParameterError, "rank must be an int"),
    ((2,), {"alpha": -1}, InvalidParameterError, "alpha must be a finite number > 0"),
    ((2,), {"alpha": float("inf")}, InvalidParameterError, "alpha must be a finite"),
    ((2,), {"targets": "*.weight"}, InvalidParameterError, "group must be a ParamGroup"),
])
def test_lora_bad_config(args, kwargs, err, needle):
    with pytest.raises(err, match=needle):
        nn.Lora(*args, **kwargs)


def test_apply_lora_needs_a_lora():
    m = nn.Linear(2, 2)
    with pytest.raises(InvalidParameterError, match="apply_lora: the argument must be a Lora"):
        m.apply_lora(3)
    with pytest.raises(InvalidParameterError, match="apply_qlora: the argument must be a QLora"):
        m.apply_qlora(nn.Lora(1))
    with pytest.raises(InvalidParameterError, match="QLora: scheme must be a QuantScheme"):
        nn.QLora(1, scheme="q8s")


# -- QLoRA ---------------------------------------------------------------------------------------

def test_qlora_against_torch_with_dequantized_base(rng):
    scheme = ember.QuantScheme("q4s", level=3)
    m = nn.Linear(6, 4, dtype="float64")
    W = m.weight.numpy().copy()
    Wq = m.weight.quantize_dynamic(scheme).dequantize().numpy()
    w_obj = m.weight
    m.apply_qlora(nn.QLora(rank=2, alpha=4, scheme=scheme))
    assert m.parametrizations.weight.original is w_obj and w_obj.is_quantized
    assert w_obj.scheme == scheme and not w_obj.is_require_grad()
    assert not m.bias.is_quantized and not m.bias.is_require_grad()
    ad = m.parametrizations.weight[0]
    Bv = rng.standard_normal((4, 2))
    m.map(lambda n, t: ember.tensor(Bv) if n.endswith("lora_B") else t)
    xa = rng.standard_normal((5, 6))
    out = m(ember.tensor(xa))
    ref, A, B = _torch_lora_ref(Wq, m.bias.numpy(), ad.lora_A.numpy(), Bv, xa, 2.0)
    assert_close(out, ref)
    seed = rng.standard_normal((5, 4))
    out.backward(ember.tensor(seed))
    ref.backward(torch.tensor(seed))
    assert_close(ad.lora_A.grad, A.grad)
    assert_close(ad.lora_B.grad, B.grad)
    assert w_obj.grad is None
    assert np.abs(Wq - W).max() < np.abs(W).max() / 7  # 4-bit error bound
    plain = m.materialize()
    assert type(plain) is nn.Linear and plain.weight is w_obj and not w_obj.is_quantized
    assert_close(plain(ember.tensor(xa)), ref)


def test_qlora_bad_block_size_changes_nothing():
    m = _mlp()
    before = _state_values(m)
    with pytest.raises(ShapeMismatchError, match="apply_qlora: parameter 'weight': "
                       "quantize_dynamic: block size 3 does not divide"):
        m.apply_qlora(nn.QLora(1, scheme=ember.QuantScheme(level=3)))
    _assert_same_state(m, before)
    assert m.reparameterized() == {}


# -- weight quantization -------------------------------------------------------------------------

def test_quantize_weights_outputs_and_error(rng):
    ember.manual_seed(2)
    m = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(16, 3))
    x = ember.tensor(rng.standard_normal((5, 1, 4, 4)), dtype="float32")
    float_out = m(x).numpy().copy()
    objs = m.parameters()
    assert m.quantize_weights(nn.Quantizer()) is m
    assert all(a is b for a, b in zip(objs, m.parameters()))
    assert [p.is_quantized for p in m.parameters()] == [True, False, True, False]
    assert not any(p.is_require_grad() for p in m.parameters() if p.is_quantized)
    # equal to the same model holding the dequantized values
    deq = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(16, 3))
    deq.load_state_dict({k: v.dequantize() for k, v in m.state_dict().items()})
    out = m(x)
    assert_close(out, deq(x).numpy(), rtol=0, atol=0)
    err = np.abs(out.numpy() - float_out).max()
    assert 0 < err < 0.05 * np.abs(float_out).max()
    # gradients still reach the float biases, never the quantized weights
    out.sum().backward()
    assert [p.grad is not None for p in m.parameters()] == [False, True, False, True]
    tm = tnn.Sequential(tnn.Conv2d(1, 4, 3), tnn.ReLU(), tnn.Flatten(), tnn.Linear(16, 3))
    tm.load_state_dict({k: to_torch(v.dequantize()) for k, v in m.state_dict().items()})
    assert_close(out, tm(to_torch(x)))


def test_quantize_weights_group_and_errors():
    m = _mlp()
    m.quantize_weights_group(nn.Quantizer(ember.QuantScheme("q8f")), nn.ParamGroup("*.bias"))
    assert [p.is_quantized for p in m.parameters()] == [False, True, False, True]
    assert m[0].bias.scheme.value == "q8f"
    m2 = _mlp()
    before = _state_values(m2)
    with pytest.raises(ShapeMismatchError, match="quantize_weights: parameter '2.weight': "
                       "quantize_dynamic: block size 4 does not divide"):
        m2.quantize_weights(nn.Quantizer(ember.QuantScheme(level=4)))  # 0.weight (5, 4) fits
    with pytest.raises(InvalidParameterError, match="quantizer must be a Quantizer, got "
                       "QuantScheme"):
        m2.quantize_weights(ember.QuantScheme())
    with pytest.raises(InvalidParameterError, match="group must be a ParamGroup"):
        m2.quantize_weights_group(nn.Quantizer(), None)
    with pytest.raises(InvalidParameterError, match="quantize_weights_group: pattern 'z'"):
        m2.quantize_weights_group(nn.Quantizer(), nn.ParamGroup("z"))
    _assert_same_state(m2, before)
    with pytest.raises(InvalidParameterError, match="calibration 'percentile' is not known"):
        nn.Quantizer(calibration="percentile")
    with pytest.raises(InvalidParameterError, match="Quantizer: scheme must be a QuantScheme"):
        nn.Quantizer("q8s")
    assert nn.Quantizer() == nn.Quantizer(ember.QuantScheme()) != nn.Quantizer(
        ember.QuantScheme("q4s"))
    assert repr(nn.Quantizer()).startswith("Quantizer(scheme=QuantScheme(value='q8s'")


def test_quantized_module_state_and_records():
    m = nn.Linear(4, 2).quantize_weights(nn.Quantizer())
    rec = m.into_record()
    assert rec["weight"].is_quantized and not rec["bias"].is_quantized
    other = nn.Linear(4, 2).load_record(rec)
    assert other.weight.is_quantized and other.into_record() == rec
    x = ember.ones(3, 4)
    assert_close(other(x), m(x).numpy(), rtol=0, atol=0)


def test_docs_training_md_burn_section_runs():
    path = os.path.join(ROOT, "docs", "training.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 20
