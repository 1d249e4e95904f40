"""DLPack both ways: zero-copy exchange with NumPy and PyTorch, and the read-only rule."""

import numpy as np
import pytest
import torch

import ember
from ember.errors import InvalidParameterError, KindError
from oracle import SHAPES, TORCH_DTYPES, assert_close, ember_tensor, layouts, random_array

DTYPES = ["float64", "float32", "float16", "int64", "int32", "int8", "uint8", "bool"]


def _ptr(t):
    return t.numpy().__array_interface__["data"][0]


@pytest.mark.numpy_only  # NumPy's read-only buffers and views
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_from_dlpack_shares_read_only(shape, dtype):
    arr = random_array(np.random.default_rng(0), shape, dtype)
    t = ember_tensor(arr)
    out = np.from_dlpack(t)
    assert out.dtype == arr.dtype and out.shape == arr.shape
    np.testing.assert_array_equal(out, arr)
    assert not out.flags.writeable
    if arr.size:
        assert np.shares_memory(out, t.numpy())
    with pytest.raises(ValueError):
        out[...] = 0


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_from_dlpack_shares(shape, dtype):
    arr = random_array(np.random.default_rng(1), shape, dtype)
    for name, a in layouts(arr):
        if name == "flipped":
            continue
        t = ember_tensor(a)
        out = torch.from_dlpack(t)
        assert out.dtype == TORCH_DTYPES[dtype]
        assert tuple(out.shape) == a.shape
        np.testing.assert_array_equal(out.numpy(), a)
        if a.size:
            assert out.data_ptr() == _ptr(t), name


@pytest.mark.numpy_only  # NumPy's read-only buffers and views
def test_flipped_view_is_exported_as_a_copy():
    t = ember.arange(6).reshape(2, 3).flip(1)
    out = torch.from_dlpack(t)
    assert out.tolist() == [[2, 1, 0], [5, 4, 3]]
    assert out.data_ptr() != _ptr(t)
    with pytest.raises(BufferError, match="negative strides"):
        t.__dlpack__(max_version=(1, 0), copy=False)


@pytest.mark.numpy_only  # NumPy's read-only buffers and views
def test_exported_buffer_blocks_in_place_reuse():
    t = ember.zeros(4) + 1.0
    assert t.can_mut()
    view = np.from_dlpack(t)
    assert not t.can_mut()
    del view
    assert t.can_mut()


def test_copy_true_and_legacy_consumers_get_a_writable_copy():
    t = ember.tensor([1.0, 2.0])
    for kwargs in ({"max_version": (1, 0), "copy": True}, {}):
        cap = t.__dlpack__(**kwargs)
        assert type(cap).__name__ == "PyCapsule"
    out = torch.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    out += 1
    assert t.tolist() == [1.0, 2.0] and out.tolist() == [2.0, 3.0]
    legacy = torch.utils.dlpack.from_dlpack(t.__dlpack__())
    assert legacy.data_ptr() != _ptr(t) and legacy.tolist() == [1.0, 2.0]
    with pytest.raises(BufferError, match="DLPack < 1.0"):
        t.__dlpack__(copy=False)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dlpack_of_torch_and_numpy_shares(shape, dtype):
    arr = random_array(np.random.default_rng(2), shape, dtype)
    x = torch.from_numpy(arr.copy())
    t = ember.from_dlpack(x)
    assert_close(t, x)
    a = arr.copy()
    u = ember.from_dlpack(a)
    assert_close(u, a)
    assert u.dtype.name == dtype
    if arr.size:
        assert _ptr(t) == x.data_ptr()
        assert np.shares_memory(u.numpy(), a)
    assert not t.can_mut() and not u.can_mut()


def test_from_dlpack_non_contiguous_and_copy():
    x = torch.arange(12.0).reshape(3, 4).T
    t = ember.from_dlpack(x)
    assert_close(t, x)
    assert _ptr(t) == x.data_ptr()
    c = ember.from_dlpack(x, copy=True)
    x[0, 0] = 100.0      # the owner writes: the shared tensor sees it, the copy does not
    assert t.tolist()[0][0] == 100.0 and c.tolist()[0][0] == 0.0
    assert ember.from_dlpack(c) is c
    assert ember.from_dlpack(c, copy=True).tolist() == c.tolist()


def test_ember_ops_never_write_an_imported_buffer():
    a = np.arange(5.0)
    before = a.copy()
    t = ember.from_dlpack(a)
    t[1] = 7.0           # rebinding: t gets a new buffer
    (t + 1).exp()
    np.testing.assert_array_equal(a, before)
    assert t.tolist() == [0.0, 7.0, 2.0, 3.0, 4.0]


def test_gradients_flow_through_an_imported_tensor():
    t = ember.from_dlpack(torch.tensor([1.0, 2.0], dtype=torch.float64)).require_grad()
    (t * t).sum().backward()
    assert t.grad.tolist() == [2.0, 4.0]


def test_complex_buffers_are_imported():
    # complex is ember's fourth kind (docs/complex.md): shared like any other dtype
    x = torch.tensor([1 + 2j, -3j], dtype=torch.complex64)
    t = ember.from_dlpack(x)
    assert t.dtype is ember.complex64 and t.tolist() == [1 + 2j, -3j]
    assert t._data.data_ptr() == x.data_ptr()


def test_torch_tensors_import_through_torch():
    x = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)
    t = ember.from_dlpack(x)  # torch's own DLPack: any torch dtype, the tensor's torch device
    assert t.device == "torch:cpu" and t.dtype is ember.bfloat16 and t.tolist() == [1.5, -2.0]
    assert t._data.data_ptr() == x.data_ptr()
    back = torch.from_dlpack(t)
    assert back.data_ptr() == x.data_ptr() and back.dtype == torch.bfloat16
    assert t.__dlpack_device__() == (1, 0)
    u = ember.from_dlpack(np.arange(3.0), device="torch:cpu")
    assert u.device == "torch:cpu" and u.tolist() == [0.0, 1.0, 2.0]
    v = ember.from_dlpack(torch.arange(3), device="cpu")
    assert v.device == "cpu" and v.tolist() == [0, 1, 2]
    assert ember.from_dlpack(t, device="cpu").device == "cpu"
    c = ember.from_dlpack(x, copy=True)
    assert c._data.data_ptr() != x.data_ptr() and c.tolist() == [1.5, -2.0]


def test_dlpack_device():
    assert ember.tensor([1.0]).__dlpack_device__() == (1, 0)
    assert ember.tensor(1).__dlpack_device__() == np.zeros(1).__dlpack_device__()


def test_bad_input():
    t = ember.tensor([1.0])
    with pytest.raises(KindError, match="from_dlpack: x must support DLPack"):
        ember.from_dlpack([1.0, 2.0])
    with pytest.raises(KindError, match="from_dlpack"):
        ember.from_dlpack(torch.ones(2, dtype=torch.bfloat16), device="cpu")  # NumPy cannot
    with pytest.raises(InvalidParameterError, match="copy must be"):
        ember.from_dlpack(np.ones(2), copy="yes")
    with pytest.raises(InvalidParameterError, match="device: 'tpu' is not a device name"):
        ember.from_dlpack(np.ones(2), device="tpu")
    if not ember.cuda.is_available():
        with pytest.raises(ember.DeviceError, match="from_dlpack: device torch:cuda:0"):
            ember.from_dlpack(np.ones(2), device="cuda")
    with pytest.raises(InvalidParameterError, match="stream"):
        t.__dlpack__(stream=3)
    with pytest.raises(InvalidParameterError, match="max_version"):
        t.__dlpack__(max_version=1)
    with pytest.raises(BufferError, match="dl_device"):
        t.__dlpack__(dl_device=(2, 0))
    assert t.tolist() == [1.0]


def test_docstring_examples_run():
    import doctest

    import ember.ops.dlpack
    result = doctest.testmod(ember.ops.dlpack)
    assert result.attempted >= 3 and result.failed == 0
