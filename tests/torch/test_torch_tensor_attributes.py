"""ember/torch/tensor_attributes.py against torch 2.13: as_subclass, grad_dtype, name,
output_nr, volatile, index, module_load, to_padded_tensor and the xpu/ipu/mtia moves."""

import warnings

import pytest
import torch

import ember.torch as et
from ember.errors import DeviceError, GraphError, InvalidParameterError, KindError
from math_oracle import check, rand
from oracle import assert_close


def test_as_subclass_shares_values_and_graph():
    class Tagged(et.Tensor):
        pass

    class TaggedT(torch.Tensor):
        pass
    x = et.tensor([1.0, 2.0], requires_grad=True)
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    y, u = x.as_subclass(Tagged), t.as_subclass(TaggedT)
    assert type(y) is Tagged and type(u) is TaggedT
    assert y.tolist() == u.tolist()
    (y * y).sum().backward()
    (u * u).sum().backward()
    assert_close(x.grad, t.grad)
    with pytest.raises(KindError):
        x.as_subclass(int)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_grad_dtype_name_output_nr(dtype):
    x, t = et.ones(2, dtype=getattr(et, dtype)), torch.ones(2, dtype=getattr(torch, dtype))
    assert x.grad_dtype.name == str(t.grad_dtype).replace("torch.", "")
    assert x.name is None and t.name is None
    assert x.output_nr == t.output_nr == 0


def test_grad_dtype_of_a_non_leaf_and_setting_it():
    x = et.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError):
        (torch.ones(2, requires_grad=True) * 2).grad_dtype
    with pytest.raises(GraphError, match="leaf"):
        x.grad_dtype
    assert x.output_nr == (torch.ones(2, requires_grad=True) * 2).output_nr == 0
    leaf = et.ones(2)
    leaf.grad_dtype = et.float32
    leaf.grad_dtype = None
    with pytest.raises(InvalidParameterError):
        leaf.grad_dtype = et.float64
    with pytest.raises(AttributeError):
        torch.ones(1).name = "w"
    with pytest.raises(AttributeError):
        leaf.name = "w"


def test_volatile_is_false_and_warns_as_torch():
    for x in (et.ones(1), torch.ones(1)):
        with pytest.warns(UserWarning, match="volatile was removed"):
            assert x.volatile is False
        with pytest.warns(UserWarning, match="volatile was removed"):
            x.volatile = True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert x.volatile is False


@pytest.mark.parametrize("positions,dims", [(1, 2), ((0, 2), (1, 3)), (-1, 0), (0, 1),
                                            (1, "t"), ((0, 1), ("t", "t"))])
def test_index_as_torch(positions, dims):
    x = rand((2, 3, 4), "float64")

    def f(m, a):
        idx = m.tensor([0, 1])
        d = tuple(idx if v == "t" else v for v in dims) if isinstance(dims, tuple) else (
            idx if dims == "t" else dims)
        return a.index(positions, d)
    check(f, x)


def test_index_errors():
    x = et.ones(2, 3)
    with pytest.raises(TypeError):
        torch.ones(2, 3).index((0, 1), (1,))
    with pytest.raises(InvalidParameterError):
        x.index((0, 1), (1,))
    with pytest.raises(InvalidParameterError):
        x.index(2, 0)
    with pytest.raises(KindError):
        x.index(0, 1.5)
    with pytest.raises(KindError):
        x.index(0.5, 1)


@pytest.mark.parametrize("assign", [False, True])
def test_module_load_as_torch(assign):
    values = rand((2, 3), "float64")
    other = rand((2, 3), "float64", seed=1)
    p, q = et.tensor(values), torch.tensor(values)
    with et.no_grad(), torch.no_grad():
        a = p.module_load(et.tensor(other), assign=assign)
        b = q.module_load(torch.tensor(other), assign=assign)
    assert_close(a, b)
    assert_close(p, q)
    assert a.requires_grad == b.requires_grad is False
    with pytest.raises(KindError):
        p.module_load(other)


def test_to_padded_tensor_of_a_regular_tensor_raises_as_torch():
    with pytest.raises(NotImplementedError):
        torch.ones(2).to_padded_tensor(0.0)
    with pytest.raises(KindError, match="nested"):
        et.ones(2).to_padded_tensor(0.0)


@pytest.mark.parametrize("kind", ["xpu", "ipu", "mtia"])
def test_devices_ember_has_not_raise_device_error(kind):
    with pytest.raises(DeviceError, match=kind):
        getattr(et.ones(1), kind)()
    with pytest.raises(DeviceError):
        getattr(et.ones(1), kind)(0, non_blocking=True)
    assert hasattr(torch.Tensor, kind)
