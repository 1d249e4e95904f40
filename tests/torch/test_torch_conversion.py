"""ember.torch's conversions, predicates and layout queries against PyTorch."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import (DeviceError, DimensionError, EmberError, GraphError,
                          InvalidParameterError, KindError)

rng = np.random.default_rng(2)

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "complex128"]


def both(a, dtype):
    return torch.tensor(a).to(getattr(torch, dtype)), et.tensor(a).to(getattr(et, dtype))


def name(dtype):
    return str(dtype).replace("torch.", "").replace("ember.", "")


@pytest.mark.parametrize("dtype", DTYPES)
def test_sizes_and_predicates(dtype):
    for shape in ((2, 3), (), (0, 4)):
        t, e = both(rng.standard_normal(shape), dtype)
        assert e.element_size() == t.element_size()
        assert e.itemsize == t.itemsize
        assert e.nbytes == t.nbytes
        assert e.nelement() == t.nelement() and e.numel() == t.numel()
        assert e.ndimension() == t.ndimension() == e.dim()
        assert e.is_floating_point() == t.is_floating_point()
        assert et.is_floating_point(e) == torch.is_floating_point(t)
        assert e.is_complex() == t.is_complex() == et.is_complex(e)
        assert e.is_signed() == t.is_signed()
        assert et.numel(e) == torch.numel(t)
        assert e.is_cpu == t.is_cpu and e.is_cuda == t.is_cuda
        assert e.get_device() == t.get_device()
        assert e.is_inference() == t.is_inference()


@pytest.mark.parametrize("method", ["float", "double", "half", "bfloat16", "long", "int", "short",
                                    "char", "byte", "bool", "cfloat", "cdouble"])
def test_dtype_shorthands(method):
    a = rng.standard_normal((2, 3)) * 3
    t, e = torch.tensor(a, dtype=torch.float32), et.tensor(a, dtype=et.float32)
    rt, re = getattr(t, method)(), getattr(e, method)()
    assert name(re.dtype) == name(rt.dtype)
    np.testing.assert_allclose(np.asarray(re.to(et.complex128).tolist()),
                               rt.to(torch.complex128).numpy(), rtol=1e-2)
    assert getattr(re, method)() is re  # already that dtype: the tensor itself
    assert getattr(e.t(), method)().shape == getattr(t.t(), method)().shape


def test_float_shorthand_gradient():
    xt = torch.tensor([1.5, -2.0], dtype=torch.float32, requires_grad=True)
    xe = et.tensor([1.5, -2.0], dtype=et.float32, requires_grad=True)
    (xt.double() ** 2).sum().backward()
    (xe.double() ** 2).sum().backward()
    assert xe.grad.tolist() == xt.grad.tolist()


def test_is_nonzero_and_same_size():
    for v in (0.0, 1.5, -1, 0, True, False):
        assert et.tensor([v]).is_nonzero() == torch.tensor([v]).is_nonzero()
        assert et.is_nonzero(et.tensor(v)) == torch.is_nonzero(torch.tensor(v))
    for shape in ((2,), (0,)):
        with pytest.raises(RuntimeError):
            torch.zeros(shape).is_nonzero()
        with pytest.raises(InvalidParameterError):
            et.zeros(shape).is_nonzero()
    assert et.ones(2, 3).is_same_size(et.zeros(2, 3)) == torch.ones(2, 3).is_same_size(
        torch.zeros(2, 3))
    assert et.is_same_size(et.ones(2), et.ones(3)) == torch.is_same_size(torch.ones(2),
                                                                          torch.ones(3))
    x = et.ones(2)
    assert x.is_set_to(x) and not x.is_set_to(et.ones(2))


def test_bool_float_int_index():
    for v in ([0.0], [2.5], [[1]], 3, -0.0):
        t, e = torch.tensor(v), et.tensor(v)
        assert bool(e) == bool(t) and float(e) == float(t) and int(e) == int(t)
    assert et.tensor(3).__index__() == torch.tensor(3).__index__()
    assert [10, 20, 30][et.tensor(1)] == 20
    for v in ([1.0, 2.0], []):
        with pytest.raises(RuntimeError):
            bool(torch.tensor(v))
        with pytest.raises(EmberError):
            bool(et.tensor(v))
        with pytest.raises(ValueError):
            float(et.tensor(v))
    with pytest.raises(TypeError):
        et.tensor(1.5).__index__()


@pytest.mark.layout
def test_stride_offset_pointer():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t, e = torch.tensor(a), et.tensor(a)
    for f in (lambda x: x, lambda x: x.transpose(0, 2), lambda x: x[:, 1:, ::2],
              lambda x: x[1], lambda x: x.expand(5, 2, 3, 4), lambda x: x.permute(1, 0, 2)):
        assert f(e).stride() == f(t).stride()
        assert f(e).is_contiguous() == f(t).is_contiguous()
    assert e.stride(-1) == t.stride(-1) and e.stride(0) == t.stride(0)
    if e._device.backend.name != "xp":  # an xp device's views do not tell their base buffer
        assert e[1, 2:].storage_offset() == t[1, 2:].storage_offset()
    else:
        assert e[1, 2:].storage_offset() == 0
    assert e[1].data_ptr() - e.data_ptr() == t[1].data_ptr() - t.data_ptr()
    assert et.tensor(2.0).stride() == torch.tensor(2.0).stride()


def test_memory_formats():
    x = et.ones(2, 3).t()
    assert x.contiguous(memory_format=et.contiguous_format).is_contiguous()
    assert x.clone(memory_format=et.preserve_format).tolist() == x.tolist()
    assert et.clone(x).tolist() == x.tolist()
    assert repr(et.channels_last) == repr(torch.channels_last)
    with pytest.raises(InvalidParameterError):
        x.contiguous(memory_format="C")


def test_clone_gradient():
    xt = torch.tensor([1.0, 2.0], requires_grad=True)
    xe = et.tensor([1.0, 2.0], requires_grad=True)
    (xt.clone() * xt).sum().backward()
    (xe.clone() * xe).sum().backward()
    assert xe.grad.tolist() == xt.grad.tolist()


def test_devices():
    e = et.ones(2)
    assert e.cpu() is e
    assert e.cpu().device.type == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError):
            e.cuda()
        with pytest.raises(DeviceError):
            e.cuda(1)


def test_requires_grad_():
    t, e = torch.ones(2), et.ones(2)
    assert e.requires_grad_() is e
    t.requires_grad_()
    assert e.requires_grad == t.requires_grad and e.is_leaf == t.is_leaf
    assert e.requires_grad_(False).requires_grad == t.requires_grad_(False).requires_grad
    y = et.ones(2, requires_grad=True) * 2
    assert y.requires_grad_() is y
    with pytest.raises(RuntimeError):
        (torch.ones(2, requires_grad=True) * 2).requires_grad_(False)
    with pytest.raises(GraphError):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError):
        torch.ones(2, dtype=torch.int64).requires_grad_()
    with pytest.raises(KindError):
        et.ones(2, dtype=et.int64).requires_grad_()


def test_numpy_tolist_item():
    a = rng.standard_normal((2, 3)).astype(np.float32)
    t, e = torch.tensor(a), et.tensor(a)
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    np.testing.assert_array_equal(np.asarray(e), np.asarray(t))
    assert e.tolist() == t.tolist() and e[1, 2].item() == t[1, 2].item()
    g = et.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.tensor(a, requires_grad=True).numpy()
    with pytest.raises(GraphError):
        g.numpy()
    np.testing.assert_array_equal(g.numpy(force=True),
                                  torch.tensor(a, requires_grad=True).numpy(force=True))


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (3,), ()])
def test_transposes(shape):
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    t, e = torch.tensor(a), et.tensor(a)
    import warnings
    warnings.simplefilter("ignore")

    def agree(attr):
        try:
            want = getattr(t, attr).resolve_conj().numpy()
        except RuntimeError:
            with pytest.raises(DimensionError):
                getattr(e, attr)
            return
        np.testing.assert_array_equal(np.asarray(getattr(e, attr).tolist()), want)

    for attr in ("T", "mT", "H", "mH"):
        agree(attr)


def test_transpose_gradient():
    a = rng.standard_normal((2, 3, 4))
    xt, xe = torch.tensor(a, requires_grad=True), et.tensor(a, requires_grad=True)
    w = rng.standard_normal((4, 3, 2))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (xt.T * torch.tensor(w)).sum().backward()
    (xe.T * et.tensor(w)).sum().backward()
    np.testing.assert_allclose(np.asarray(xe.grad.tolist()), xt.grad.numpy())


@pytest.mark.half_precision
def test_typename_and_storage():
    for dtype in ("float32", "float64", "int64", "int32", "bool", "uint8", "int8", "int16",
                  "float16"):
        t, e = both([1, 0], dtype)
        assert et.typename(e) == torch.typename(t)
    assert et.typename(1.5) == torch.typename(1.5)
    assert et.typename(np.ones(1)) == torch.typename(np.ones(1))
    assert et.is_storage(et.ones(1)) == torch.is_storage(torch.ones(1))
