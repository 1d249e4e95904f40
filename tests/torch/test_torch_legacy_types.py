"""ember/torch/legacy_types.py against torch 2.13: the typed-tensor classes (construction,
isinstance, type()), set_default_tensor_type, and storages (Tensor.storage(),
untyped_storage(), storage_type(), the *Storage classes)."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import DeviceError, DimensionError, InvalidParameterError, KindError

pytestmark = pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")

TYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
         "BFloat16Tensor": "bfloat16", "LongTensor": "int64", "IntTensor": "int32",
         "ShortTensor": "int16", "CharTensor": "int8", "ByteTensor": "uint8",
         "BoolTensor": "bool"}
STORAGES = [n.replace("Tensor", "Storage") for n in TYPES] + ["ComplexFloatStorage",
                                                               "ComplexDoubleStorage"]


def same(e, t):
    assert isinstance(e, et.Tensor)
    assert e.dtype.name == str(t.dtype)[6:] and tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(np.asarray(e.float().numpy()), t.float().numpy())


@pytest.mark.parametrize("name", TYPES)
def test_typed_tensor_construction(name):
    E, T = getattr(et, name), getattr(torch, name)
    assert E.dtype.name == TYPES[name] and repr(E) == repr(T) == f"<class 'torch.{name}'>"
    assert E.is_cuda is T.is_cuda is False
    same(E([1, 0, 2]), T([1, 0, 2]))
    same(E([[1, 2], [3, 4]]), T([[1, 2], [3, 4]]))
    same(E((3,)), T((3,)))
    same(E(), T())
    e = E(2, 3)  # PyTorch's values are uninitialised; ember's zeros
    assert tuple(e.shape) == tuple(T(2, 3).shape) and not e.any()
    assert tuple(E(et.Size([2, 0])).shape) == tuple(T(torch.Size([2, 0])).shape)
    x = et.ones(2, dtype=getattr(et, TYPES[name]))
    assert E(x) is x
    same(E(np.array([1, 0])), T(np.array([1, 0])))


def test_typed_tensor_errors():
    with pytest.raises(KindError):
        et.FloatTensor(et.ones(2, dtype=et.int64))
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.ones(2, dtype=torch.int64))
    with pytest.raises(KindError):
        et.FloatTensor(2, [1])
    with pytest.raises(TypeError):
        torch.FloatTensor(2, [1])
    with pytest.raises(InvalidParameterError):
        et.FloatTensor(-1)
    with pytest.raises(DeviceError):
        et.FloatTensor(2, device="cuda")
    with pytest.raises(RuntimeError):
        torch.FloatTensor(2, device="cuda")
    same(et.FloatTensor([1, 2], device="cpu"), torch.FloatTensor([1, 2], device="cpu"))
    assert tuple(et.FloatTensor(2, device="cpu").shape) == (2,)


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.half_precision
def test_isinstance(name):
    E, T = getattr(et, name), getattr(torch, name)
    for dt in TYPES.values():
        e, t = et.zeros(2, dtype=getattr(et, dt)), torch.zeros(2, dtype=getattr(torch, dt))
        assert isinstance(e, E) == isinstance(t, T)
    assert not isinstance(ember.zeros(2, dtype=getattr(et, TYPES[name])), E)  # ember's API
    assert not isinstance([1.0], E) and not issubclass(E, et.Tensor)


@pytest.mark.half_precision
def test_type_with_classes_and_default_tensor_type():
    x, t = et.tensor([1.5, 2.0]), torch.tensor([1.5, 2.0])
    for name in TYPES:
        same(x.type(getattr(et, name)), t.type(getattr(torch, name)))
        same(x.type(f"torch.{name}"), t.type(f"torch.{name}"))
    assert x.type() == t.type() == "torch.FloatTensor"
    try:
        et.set_default_tensor_type(et.DoubleTensor)
        assert et.ones(1).dtype is et.float64 and et.get_default_dtype() is et.float64
        et.set_default_tensor_type("torch.HalfTensor")
        assert et.ones(1).dtype is et.float16
    finally:
        et.set_default_tensor_type(et.FloatTensor)
    assert et.ones(1).dtype is et.float32
    with pytest.raises(KindError):
        et.set_default_tensor_type(et.LongTensor)
    with pytest.raises(TypeError):
        torch.set_default_tensor_type(torch.LongTensor)
    with pytest.raises(InvalidParameterError):
        et.set_default_tensor_type("torch.NoTensor")


@pytest.mark.parametrize("dtype", list(TYPES.values()) + ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(2, 3), (0,), ()])
def test_tensor_storage(dtype, shape):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape) * 3).astype("float32")
    t = torch.tensor(a).to(getattr(torch, dtype))
    e = et.tensor(a).to(getattr(et, dtype))
    se, st = e.storage(), t.storage()
    assert se.size() == st.size() == len(se) and se.dtype.name == str(st.dtype)[6:]
    assert se.element_size() == st.element_size() and se.nbytes() == st.nbytes()
    assert se.tolist() == st.tolist() and list(se) == list(st)
    if se.size():
        assert se[0] == st[0] and se[-1] == st[-1]
    assert se.type() == st.type()
    assert e.storage_type() is getattr(et, type(t.storage()).__name__ if False else
                                       t.storage_type().__name__)
    assert repr(e.storage_type()) == repr(t.storage_type())
    assert isinstance(se, e.storage_type()) and isinstance(se, et.TypedStorage)
    ue, ut = e.untyped_storage(), t.untyped_storage()
    assert ue.size() == ut.size() == ue.nbytes() and ue.tolist() == ut.tolist()
    assert ue.element_size() == 1 and ue.type() == ut.type()
    if ue.size() > 2:
        assert ue[1] == ut[1] and ue[1:3].tolist() == ut[1:3].tolist()
    assert se.device.type == ember.get_default_device().type  # "cpu" on a CPU device
    assert not se.is_cuda and not se.is_shared()


def test_storage_is_a_snapshot_of_a_views_values():
    # PyTorch's storage of a view is its base's; ember's holds the view's elements (documented)
    e = et.arange(6.0).reshape(2, 3)[1:]
    assert e.storage().tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(KindError):
        e.storage()[0] = 1.0


@pytest.mark.parametrize("name", STORAGES)
def test_storage_classes(name):
    E, T = getattr(et, name), getattr(torch, name)
    assert repr(E) == repr(T)
    for args in ((), (3,), ([1, 0, 1],)):
        e, t = E(*args), T(*args)
        assert e.size() == t.size() and e.dtype.name == str(t.dtype)[6:]
        if not args or isinstance(args[0], list):  # T(3) is uninitialised
            assert e.tolist() == t.tolist()
        assert e.type() == t.type()
    assert isinstance(E([1]), E) and isinstance(E([1]), et.TypedStorage)
    others = [getattr(et, n) for n in STORAGES if n != name]
    assert not any(isinstance(E([1]), o) for o in others)
    tensor_name = name.replace("Storage", "Tensor")
    if hasattr(torch, tensor_name) and tensor_name in TYPES:
        same(getattr(et, tensor_name)(E([1, 0])), getattr(torch, tensor_name)(T([1, 0])))


@pytest.mark.half_precision
def test_storage_conversions_and_errors():
    s = et.FloatStorage([1.5, -2.0])
    t = torch.FloatStorage([1.5, -2.0])
    for conv in ("double", "long", "int", "bool", "half", "byte", "char", "short", "bfloat16",
                 "complex_float", "complex_double", "float"):
        assert getattr(s, conv)().tolist() == getattr(t, conv)().tolist(), conv
        assert getattr(s, conv)().type() == getattr(t, conv)().type(), conv
    assert s.type(et.DoubleStorage).tolist() == t.double().tolist()  # (PyTorch's type(cls) fails)
    assert s.type(et.DoubleStorage).type() == "torch.DoubleStorage"
    assert s.type("torch.LongStorage").tolist() == t.long().tolist()
    assert et.Storage is et.FloatStorage and torch.Storage is torch.FloatStorage
    e2, t2 = et.TypedStorage(2, dtype=et.int64), torch.TypedStorage(2, dtype=torch.int64)
    assert e2.size() == t2.size() and e2.type() == t2.type() and e2.tolist() == [0, 0]
    assert et.TypedStorage([1, 2]).tolist() == torch.TypedStorage([1, 2]).tolist()
    assert et.TypedStorage([1, 2]).dtype.name == "float32"
    w = et.TypedStorage(wrap_storage=et.ones(2).untyped_storage(), dtype=et.float32)
    assert w.tolist() == torch.TypedStorage(wrap_storage=torch.ones(2).untyped_storage(),
                                            dtype=torch.float32).tolist()
    assert et.UntypedStorage([1, 2]).tolist() == torch.UntypedStorage([1, 2]).tolist()
    assert et.UntypedStorage(3).size() == 3
    with pytest.raises(DimensionError):
        s[5]
    with pytest.raises(IndexError):
        t[5]
    with pytest.raises(KindError):
        s[0:1]
    with pytest.raises(InvalidParameterError):
        et.FloatStorage([1], dtype=et.float64)
    with pytest.raises(KindError):
        et.FloatStorage(1.5)
    with pytest.raises(InvalidParameterError):
        s.type("torch.NoStorage")
    c = s.clone()
    assert c.tolist() == s.tolist() and c is not s and s.cpu() is s
