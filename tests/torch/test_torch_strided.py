"""ember/torch/strided.py against torch 2.13: as_strided (reading a tensor's values as a flat
row-major buffer), as_strided_scatter, sum_to_size, resize, the unsafe splits, apply_/map_/
map2_, frombuffer, from_file, empty_permuted, new_empty_strided, pin_memory and the layout
predicates: values, shapes, dtypes, gradients and errors."""

import os

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import (DeviceError, EmberError, GraphError, InvalidParameterError,
                          KindError, ShapeMismatchError)
from math_oracle import check, rand

STRIDED = [((6,), (2, 2), (1, 2), 1), ((2, 3), (3, 2), (1, 1), 0), ((4,), (3, 3), (0, 1), 1),
           ((2, 3), (0,), (1,), 0), ((5,), (), (), 4), ((3, 4), (2, 2, 2), (4, 1, 2), 1)]


@pytest.mark.parametrize("shape,size,stride,offset", STRIDED)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_as_strided(shape, size, stride, offset, dtype):
    x = rand(shape, dtype)
    check(lambda m, a: m.as_strided(a, size, stride, offset), x)
    check(lambda m, a: a.as_strided(size, stride, storage_offset=offset), x)


def test_as_strided_reads_row_major_values():
    # ember's tensors have no storage apart from their values: a transposed tensor is read in
    # its own row-major order, as PyTorch's contiguous copy
    x = rand((2, 3), "float64")
    e = et.tensor(x).t().as_strided((3, 2), (2, 1))
    t = torch.tensor(x).t().contiguous().as_strided((3, 2), (2, 1))
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize("shape,size,stride,offset",
                         [((6,), (2, 2), (1, 2), 1), ((2, 3), (2,), (3,), 0),
                          ((3, 4), (2, 2), (4, 1), 5), ((4,), (0,), (1,), 0)])
def test_as_strided_scatter(shape, size, stride, offset):
    x, src = rand(shape, "float64"), rand(size, "float64", seed=3)
    check(lambda m, a, s: m.as_strided_scatter(a, s, size, stride, offset), x, src, grad=False)
    check(lambda m, a, s: a.as_strided_scatter(s, size, stride, offset), x, src, grad=False)
    # gradients: PyTorch 2.13's derivative of as_strided_scatter for input is wrong (it keeps
    # the overwritten positions and zeroes the others), so the reference is the same update
    # made with index_put
    w = rand(shape, "float64", seed=4)
    xe, se = et.tensor(x, requires_grad=True), et.tensor(src, requires_grad=True)
    (et.as_strided_scatter(xe, se, size, stride, offset) * et.tensor(w)).sum().backward()
    xt, st = torch.tensor(x, requires_grad=True), torch.tensor(src, requires_grad=True)
    idx = torch.as_strided(torch.arange(xt.numel()), size, stride, offset).reshape(-1)
    ref = xt.reshape(-1).index_put((idx,), st.reshape(-1)).reshape(shape)
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy())
    if se.grad is not None:
        np.testing.assert_allclose(se.grad.numpy(), st.grad.numpy())
    else:
        assert not st.grad.any()


def test_as_strided_errors():
    x = et.ones(6)
    for args, err in [(((3, 3), (1, 1), 2), InvalidParameterError),
                      (((2,), (-1,)), InvalidParameterError),
                      (((2, 2), (1,)), ShapeMismatchError),
                      (((2,), (1,), -1), InvalidParameterError)]:
        with pytest.raises(err):
            et.as_strided(x, *args)
        with pytest.raises(RuntimeError):
            torch.as_strided(torch.ones(6), *args)
    with pytest.raises(ShapeMismatchError):
        et.as_strided_scatter(x, et.ones(3), (2,), (1,))
    with pytest.raises(KindError):
        et.as_strided([1.0], (1,), (1,))


@pytest.mark.parametrize("shape,size", [((2, 4), (4,)), ((2, 4), (2, 1)), ((2, 4), (1, 4)),
                                        ((3, 1, 2), (1, 2)), ((2, 3), (2, 3)), ((0, 3), (3,)),
                                        ((), ())])
def test_sum_to_size(shape, size):
    x = rand(shape, "float32")
    check(lambda m, a: a.sum_to_size(size), x)
    if size:
        check(lambda m, a: a.sum_to_size(*size), x)


def test_sum_to_size_errors():
    with pytest.raises(ShapeMismatchError):
        et.ones(2, 4).sum_to_size(3)
    with pytest.raises(RuntimeError):
        torch.ones(2, 4).sum_to_size(3)
    with pytest.raises(ShapeMismatchError):
        et.ones(4).sum_to_size(2, 4)


def test_resize_and_resize_as():
    x = rand((6,), "float32")
    check(lambda m, a: a.resize(2, 3), x)
    assert et.tensor(x).resize((3, 2)).shape == (3, 2)  # (PyTorch's refuses a tuple: a bug)
    check(lambda m, a: a.resize_as(m.ones(1, 6)), x)
    with pytest.raises(ShapeMismatchError):
        et.ones(6).resize(4)
    with pytest.raises(RuntimeError):
        torch.ones(6).resize(4)


@pytest.mark.parametrize("shape,dim", [((7, 2), 0), ((3, 5), 1), ((0, 2), 0)])
def test_unsafe_splits(shape, dim):
    x = rand(shape, "float32")
    check(lambda m, a: m.unsafe_chunk(a, 3, dim), x)
    check(lambda m, a: a.unsafe_chunk(2, dim=dim), x)
    check(lambda m, a: m.unsafe_split(a, 2, dim), x)
    check(lambda m, a: a.unsafe_split(2, dim), x)
    sizes = [1, shape[dim] - 1] if shape[dim] else [0, 0]
    check(lambda m, a: m.unsafe_split_with_sizes(a, sizes, dim), x)
    check(lambda m, a: a.unsafe_split_with_sizes(sizes, dim=dim), x)





@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8", "float64", "bool", "bfloat16"])
@pytest.mark.parametrize("count,offset", [(-1, 0), (2, 0), (1, 2)])
def test_frombuffer(dtype, count, offset):
    buf = bytearray(np.arange(16, dtype=np.uint8) % 2 if dtype == "bool"
                    else np.arange(16, dtype=np.uint8) + 60)
    tdt, edt = getattr(torch, dtype), getattr(et, dtype)
    size = tdt.itemsize
    if offset % size and count == -1:
        return
    e = et.frombuffer(buf, dtype=edt, count=count, offset=offset)
    t = torch.frombuffer(bytearray(buf), dtype=tdt, count=count, offset=offset)
    assert e.dtype.name == dtype and tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(np.asarray(e.float().numpy()), t.float().numpy())


def test_frombuffer_errors_and_grad():
    for kw, buf in [({}, b""), ({}, b"abcde"), ({"count": 3, "offset": 4}, b"abcdefgh"),
                    ({"offset": 9}, b"abcdefgh")]:
        dt = "int16" if "count" in kw else "float32"
        with pytest.raises(InvalidParameterError):
            et.frombuffer(buf, dtype=getattr(et, dt), **kw)
        with pytest.raises(ValueError):
            torch.frombuffer(bytearray(buf), dtype=getattr(torch, dt), **kw)
    with pytest.raises(KindError):
        et.frombuffer([1, 2], dtype=et.uint8)
    x = et.frombuffer(np.ones(2, np.float32).tobytes(), dtype=et.float32, requires_grad=True)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_from_file(tmp_path):
    path = os.path.join(tmp_path, "x.bin")
    np.arange(5, dtype=np.float32).tofile(path)
    for kw in ({"size": 3, "dtype": "float32"}, {"size": 5}, {"size": 20, "dtype": "uint8"},
               {"size": 0}, {"shared": False, "size": 2, "dtype": "int16"}):
        e = et.from_file(path, **{k: getattr(et, v) if k == "dtype" else v
                                  for k, v in kw.items()})
        t = torch.from_file(path, **{k: getattr(torch, v) if k == "dtype" else v
                                     for k, v in kw.items()})
        assert e.dtype.name == str(t.dtype)[6:] and e.tolist() == t.tolist()
    with pytest.raises(InvalidParameterError):
        et.from_file(path, size=10)
    with pytest.raises(RuntimeError):
        torch.from_file(path, size=10)
    with pytest.raises(InvalidParameterError):
        et.from_file(path, shared=True, size=1)
    with pytest.raises(InvalidParameterError):
        et.from_file(os.path.join(tmp_path, "missing"), size=1)


def test_empty_permuted_and_new_empty_strided():
    e = et.empty_permuted((2, 3, 4), (0, 2, 1), dtype=et.float64)
    t = torch.empty_permuted((2, 3, 4), (0, 2, 1), dtype=torch.float64)
    assert tuple(e.shape) == tuple(t.shape) and e.dtype.name == "float64"
    assert not e.any()
    with pytest.raises(InvalidParameterError):
        et.empty_permuted((2, 3), (0, 0))
    with pytest.raises(RuntimeError):
        torch.empty_permuted((2, 3), (0, 0))
    x = et.ones(2, dtype=et.int32)
    n = x.new_empty_strided((2, 3), (3, 1))
    tn = torch.ones(2, dtype=torch.int32).new_empty_strided((2, 3), (3, 1))
    assert tuple(n.shape) == tuple(tn.shape) and n.dtype.name == "int32"
    assert x.new_empty_strided((2,), (1,), dtype=et.float64).dtype.name == "float64"
    with pytest.raises(ShapeMismatchError):
        x.new_empty_strided((2, 3), (1,))


def test_pin_memory_and_sharing():
    x, t = et.ones(2), torch.ones(2)
    assert x.is_pinned() is t.is_pinned() is False
    if not et.accelerator.is_available():
        with pytest.raises(DeviceError):
            x.pin_memory()
        with pytest.raises(RuntimeError):
            t.pin_memory()
    else:
        assert x.pin_memory() is x
    assert x.share_memory_() is x and x.is_shared() is False  # documented: no shared pages


def test_layout_and_predicates():
    x, t = et.ones(2, 3), torch.ones(2, 3)
    assert x.layout is et.strided and repr(et.strided) == repr(torch.strided) == "torch.strided"
    assert isinstance(x.layout, et.layout)
    for name in ("is_xpu", "is_xla", "is_ipu", "is_mtia", "is_maia", "is_vulkan", "is_nested"):
        assert getattr(x, name) is getattr(t, name) is False
    assert x.const_data_ptr() == x.data_ptr()


@pytest.mark.parametrize("shape", [(2, 3), (0, 3), (), (2, 0), (1,), (3, 1), (2, 2, 1)])
def test_dim_order(shape):
    x, t = et.zeros(shape), torch.zeros(shape)
    assert x.dim_order() == t.dim_order()
    try:
        expected = t.dim_order(ambiguity_check=True)
    except RuntimeError:
        with pytest.raises(EmberError):
            x.dim_order(ambiguity_check=True)
    else:
        assert x.dim_order(ambiguity_check=True) == expected
