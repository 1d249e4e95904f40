"""ember.torch's shape functions and grids against PyTorch: values, dtypes, shapes, gradients,
tuples where PyTorch returns tuples."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check, rand


def test_broadcasting():
    check(lambda m, a, b, c: m.broadcast_tensors(a, b, c), rand((3, 1)), rand((4,), seed=1),
          rand((), seed=2))
    check(lambda m, a, b: m.broadcast_tensors(a.T, b), rand((1, 3)), rand((0, 1, 1), seed=1))
    for shapes in [((2, 1), (3,)), (2, (3, 1)), ((), (0, 1)), ((5,),)]:
        assert et.broadcast_shapes(*shapes) == torch.broadcast_shapes(*shapes)
        assert type(et.broadcast_shapes(*shapes)) is et.Size
    with pytest.raises(ShapeMismatchError):
        et.broadcast_shapes((2,), (3,))
    for size in [(2, 3), (2, -1), (4, 2, 3), (0, 2, 3)]:
        check(lambda m, x: m.broadcast_to(x, size), rand((1, 3)))
        check(lambda m, x: x.broadcast_to(size), rand((3,)))
    with pytest.raises(ShapeMismatchError):
        et.broadcast_to(et.ones(2, 3), (3, 3))
    with pytest.raises(InvalidParameterError):
        et.broadcast_to(et.ones(3), (-1, 3))


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)])
def test_atleast(shape):
    for f in ("atleast_1d", "atleast_2d", "atleast_3d"):
        check(lambda m, x: getattr(m, f)(x), rand(shape))
        check(lambda m, x, y: getattr(m, f)(x, y), rand(shape), rand((2,), seed=1))
        check(lambda m, x, y: getattr(m, f)([x, y]), rand(shape), rand((), seed=1))


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1, 5])
def test_rot90(k):
    check(lambda m, x: m.rot90(x, k), rand((2, 3)))
    check(lambda m, x: x.rot90(k, [2, 0]), rand((2, 3, 4)))
    check(lambda m, x: x.T.rot90(k, (-1, 0)), rand((3, 2), "int64"))
    with pytest.raises(InvalidParameterError):
        et.rot90(et.ones(2, 2), k, (0, 0))


def test_vander():
    for n in (None, 0, 1, 4):
        for inc in (False, True):
            check(lambda m, x: m.vander(x, n, inc), rand((3,)), grad=False)  # torch's fails
            check(lambda m, x: m.vander(x, N=n, increasing=inc), rand((3,), "int32"))
    check(lambda m, x: m.vander(x), rand((0,)), grad=False)
    x = et.tensor([1.0, 2.0, 3.0], requires_grad=True)
    et.vander(x, 4).sum().backward()  # d/dx (1 + x + x^2 + x^3)
    assert x.grad.tolist() == [6.0, 17.0, 34.0]
    with pytest.raises(ShapeMismatchError):
        et.vander(et.ones(2, 2))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    check(lambda m, a, b: m.meshgrid(a, b, indexing=indexing), rand((2,)), rand((3,), seed=1))
    check(lambda m, a, b, c: m.meshgrid([a, b, c], indexing=indexing), rand((2,)),
          rand((3,), seed=1), rand((4,), seed=2))
    check(lambda m, a, b: m.meshgrid(a, b, indexing=indexing), rand(()), rand((0,), seed=1))
    check(lambda m, a: m.meshgrid(a, indexing=indexing), rand((3,)))


def test_meshgrid_default_and_errors():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m, a, b: m.meshgrid(a, b), rand((2,)), rand((3,), seed=1))
    with pytest.raises(InvalidParameterError):
        et.meshgrid(et.ones(2), indexing="ji")
    with pytest.raises(ShapeMismatchError):
        et.meshgrid(et.ones(2, 2))


def test_stacks():
    vecs = [rand((3,)), rand((3,), seed=1)]
    mats = [rand((2, 3)), rand((2, 3), seed=1)]
    for f in ("hstack", "vstack", "row_stack", "dstack", "column_stack"):
        check(lambda m, a, b: getattr(m, f)([a, b]), *vecs)
        check(lambda m, a, b: getattr(m, f)((a, b.T.T)), *mats)
        check(lambda m, a, b: getattr(m, f)([a, b]), rand(()), rand((), seed=1))
    check(lambda m, a, b: m.hstack([a, b]), rand((2, 1)), rand((2, 3), "int64"))
    check(lambda m, a, b: m.column_stack([a, b]), rand((2,)), rand((2, 2), seed=1))
    check(lambda m, a, b: m.dstack([a, b]), rand((2, 3, 1)), rand((2, 3, 2), seed=1))
    with pytest.raises(InvalidParameterError):
        et.vstack([])
    with pytest.raises(ShapeMismatchError):
        et.vstack([et.ones(2), et.ones(3)])


@pytest.mark.parametrize("ios", [1, 2, 3, 7, [1, 4], [0, 0, 2], [-2], [4, 2], [10]])
def test_tensor_split(ios):
    check(lambda m, x: m.tensor_split(x, ios), rand((5, 2)))
    check(lambda m, x: x.T.tensor_split(ios, dim=1), rand((2, 5)))
    check(lambda m, x: m.tensor_split(x, ios, axis=-1), rand((2, 5)))
    check(lambda m, x: m.tensor_split(x, ios), rand((0,)))
    index = np.array(ios if isinstance(ios, int) else ios, dtype=np.int64)
    check(lambda m, x: m.tensor_split(x, m.tensor(index)), rand((5,)))


def test_named_splits():
    check(lambda m, x: m.hsplit(x, 2), rand((3, 4)))
    check(lambda m, x: x.hsplit([1, 3]), rand((6,)))
    check(lambda m, x: m.vsplit(x, [1]), rand((3, 4)))
    check(lambda m, x: x.vsplit(3), rand((3, 4)))
    check(lambda m, x: m.dsplit(x, 2), rand((1, 2, 4)))
    check(lambda m, x: x.dsplit([3]), rand((1, 2, 4)))
    with pytest.raises(InvalidParameterError):
        et.hsplit(et.ones(2, 3), 2)
    with pytest.raises(ShapeMismatchError):
        et.vsplit(et.ones(3), 3)
    with pytest.raises(ShapeMismatchError):
        et.dsplit(et.ones(3, 3), 3)


def test_split_chunk_unbind_return_tuples():
    for s in (1, 2, 5, [1, 4], [0, 5], [2, 0, 3]):
        check(lambda m, x: m.split(x, s), rand((5, 2)))
        check(lambda m, x: x.T.split(s, 1), rand((5, 2)))
    for c in (1, 2, 3, 6):
        check(lambda m, x: m.chunk(x, c, 1), rand((2, 5)))
        check(lambda m, x: x.chunk(c), rand((5,)))
    check(lambda m, x: m.chunk(x, 2), rand((0,)))
    check(lambda m, x: x.unbind(1), rand((2, 3)))
    check(lambda m, x: m.unbind(x), rand((0, 2)))
    assert type(et.ones(4).split(2)) is tuple and type(et.ones(4).chunk(2)) is tuple
    assert type(et.unbind(et.ones(2, 2))) is tuple


def test_dim_spellings():
    check(lambda m, x: m.moveaxis(x, 0, -1), rand((2, 3, 4)))
    check(lambda m, x: x.moveaxis((0, 1), (2, 0)), rand((2, 3, 4)))
    check(lambda m, x: m.swapaxes(x, 0, 2), rand((2, 3, 4)))
    check(lambda m, x: x.swapdims(-1, 0), rand((2, 3, 4)))
    check(lambda m, x: x.swapaxes(0, 0), rand((2, 3)))
    for shape in [(), (0,), (2, 3)]:
        check(lambda m, x: m.ravel(x), rand(shape))
    check(lambda m, x: x.T.ravel(), rand((2, 3)))
    check(lambda m, x: m.fliplr(x), rand((2, 3)))
    check(lambda m, x: x.T.flipud(), rand((2, 3, 4)).reshape(2, 12))
    check(lambda m, x: m.flipud(x), rand((3,)))
    with pytest.raises(ShapeMismatchError):
        et.fliplr(et.ones(3))
    with pytest.raises(ShapeMismatchError):
        et.flipud(et.tensor(1.0))


@pytest.mark.parametrize("reps", [(2,), (2, 3), (1, 2, 2), (0, 1), (2, 1, 1, 2)])
def test_tile(reps):
    check(lambda m, x: m.tile(x, reps), rand((2, 3)))
    check(lambda m, x: x.T.tile(reps), rand((3, 2), "int64"))
    check(lambda m, x: x.tile(reps), rand(()))
    with pytest.raises(InvalidParameterError):
        et.tile(et.ones(2), (-1,))


def test_narrow_take():
    for start, length in [(0, 2), (1, 3), (-2, 2), (4, 0), (-4, 1)]:
        check(lambda m, x: m.narrow(x, 0, start, length), rand((4, 3)))
        check(lambda m, x: x.T.narrow(1, start, length), rand((4, 3)))
        grad = length > 0 and start >= 0  # PyTorch's narrow_copy backward fails otherwise
        check(lambda m, x: m.narrow_copy(x, 0, start, length), rand((4, 3)), grad=grad)
        check(lambda m, x: x.narrow_copy(-1, start, length), rand((3, 4)), grad=grad)
    check(lambda m, x: x.narrow(0, m.tensor(1), 2), rand((4,)))
    with pytest.raises(InvalidParameterError):
        et.narrow(et.ones(3), 0, 2, 2)
    with pytest.raises(DimensionError):
        et.narrow(et.ones(3), 0, 5, 0)
    idx = np.array([[0, -1], [5, 2]], np.int64)
    check(lambda m, x: m.take(x, m.tensor(idx)), rand((2, 3)))
    check(lambda m, x: x.T.take(m.tensor(idx)), rand((3, 2)))
    check(lambda m, x: m.take(x, m.tensor([0, 0])), rand(()))
    check(lambda m, x: x.take(m.tensor(np.zeros((0, 2), np.int64))), rand((2, 3)))
    with pytest.raises(DimensionError):
        et.take(et.ones(3), et.tensor([3]))
    with pytest.raises(KindError):
        et.take(et.ones(3), et.tensor([1.0]))


def test_take_along_dim():
    x = rand((3, 4))
    idx = np.array([[0, 3], [1, 1], [2, -1]], np.int64)
    check(lambda m, x: m.take_along_dim(x, m.tensor(idx), 1), x)
    check(lambda m, x: x.take_along_dim(m.tensor(idx[:1]), dim=1), x)
    check(lambda m, x: x.T.take_along_dim(m.tensor(idx.T), 0), x)
    check(lambda m, x: m.take_along_dim(x, m.tensor([0, 11, 3])), x)
    check(lambda m, x: m.take_along_dim(x, m.argsort(x, 1), 1), x)
    check(lambda m, x: m.take_along_dim(x, m.tensor(np.zeros((1, 1, 2), np.int64)), 2),
          rand((2, 3, 4)))
    with pytest.raises(ShapeMismatchError):
        et.take_along_dim(et.ones(3, 4), et.tensor([0]), 1)


def test_t_adjoint_type_as():
    for shape in [(), (3,), (2, 3), (0, 2)]:
        check(lambda m, x: m.t(x), rand(shape))
        check(lambda m, x: x.t(), rand(shape))
    with pytest.raises(ShapeMismatchError):
        et.ones(2, 3, 4).t()
    check(lambda m, x: m.adjoint(x), rand((2, 3, 4)))
    check(lambda m, x: x.adjoint(), rand((3, 2)))
    c = (rand((2, 3)) + 1j * rand((2, 3), seed=1)).astype(np.complex64)
    check(lambda m, x: x.adjoint(), c, grad=False)
    check(lambda m, x, y: x.type_as(y), rand((2,), "int64"), rand((1,), "float64"))
    check(lambda m, x, y: x.type_as(y), rand((2,)), rand((1,), "int32"), grad=False)
    check(lambda m, x, y: x.type_as(y), rand((2,)), rand((1,), "float64"))
