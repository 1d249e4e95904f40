"""ember.torch's index family against PyTorch: values, dtypes, shapes, gradients, errors."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import (DimensionError, EmberError, InvalidParameterError, KindError,
                          ShapeMismatchError)

rng = np.random.default_rng(0)


def pair(a, grad=False):
    """(torch tensor, ember.torch tensor) of the array ``a``."""
    t = torch.tensor(a, requires_grad=grad)
    e = et.tensor(a, requires_grad=grad)
    return t, e


def same(e, t, tol=1e-6):
    assert isinstance(e, et.Tensor)
    assert tuple(e.shape) == tuple(t.shape)
    assert e.dtype.name == str(t.dtype).replace("torch.", "")
    np.testing.assert_allclose(np.asarray(e.tolist(), dtype=np.float64).reshape(tuple(t.shape)),
                               t.detach().double().numpy(), rtol=tol, atol=tol)


def grads(fn, *arrays):
    """Compare fn's values and the gradients of every float input (a weighted sum's)."""
    arrays = [np.asarray(a) if isinstance(a, np.generic) else a for a in arrays]
    ts = [torch.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray)
          else a for a in arrays]
    es = [et.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray)
          else a for a in arrays]
    out_t, out_e = fn(torch, *ts), fn(et, *es)
    same(out_e, out_t)
    if out_t.numel() == 0:
        return
    w = rng.standard_normal(tuple(out_t.shape))
    (out_t * torch.tensor(w, dtype=out_t.dtype)).sum().backward()
    (out_e * et.tensor(w, dtype=out_e.dtype)).sum().backward()
    for t, e in zip(ts, es):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            same(e.grad, t.grad, 1e-5)


def idx(values):
    return np.array(values, dtype=np.int64)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# -- index_* ------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,dim,index", [((4, 3), 0, [3, 0, 3]), ((2, 5), 1, [4, 0]),
                                             ((2, 3, 4), -1, [1]), ((3, 0), 0, [2, 1]),
                                             ((4,), 0, []), ((), 0, [0])])
def test_index_select(shape, dim, index):
    grads(lambda m, x, i: m.index_select(x, dim, i), f32(*shape), idx(index))
    grads(lambda m, x, i: x.index_select(dim, i), f32(*shape), idx(index))


def test_index_select_noncontiguous_and_errors():
    a = f32(3, 4)
    t, e = pair(a)
    same(e.t().index_select(0, et.tensor([3, 1])), t.t().index_select(0, torch.tensor([3, 1])))
    with pytest.raises(KindError):
        e.index_select(0, et.tensor([0.0]))
    with pytest.raises(DimensionError):
        e.index_select(0, et.tensor([3]))
    with pytest.raises(ShapeMismatchError):
        e.index_select(0, et.tensor([[0]]))


@pytest.mark.parametrize("shape,dim,index", [((4, 3), 0, [3, 0, 3]), ((2, 5), 1, [4, 0]),
                                             ((2, 3, 4), -1, [1, 1, 1]), ((3,), 0, [])])
def test_index_add_copy_fill(shape, dim, index):
    src_shape = list(shape)
    src_shape[dim] = len(index)
    x, s, i = f32(*shape), f32(*src_shape), idx(index)
    grads(lambda m, x, i, s: m.index_add(x, dim, i, s), x, i, s)
    grads(lambda m, x, i, s: x.index_add(dim, i, s, alpha=-2.5), x, i, s)
    uniq = idx(sorted(set(index)))
    src_shape[dim] = len(uniq)
    s2 = f32(*src_shape)
    grads(lambda m, x, i, s: x.index_copy(dim, i, s), x, uniq, s2)
    grads(lambda m, x, i: m.index_fill(x, dim, i, 0.5), x, i)
    grads(lambda m, x, i: x.index_fill(dim, i, m.tensor(-2.0)), x, i)


def test_index_fill_int_and_0d():
    t, e = pair(np.arange(6).reshape(2, 3))
    same(e.index_fill(1, et.tensor([0, 2]), 7), t.index_fill(1, torch.tensor([0, 2]), 7))
    same(e.index_fill(1, et.tensor([1]), -2.7), t.index_fill(1, torch.tensor([1]), -2.7))
    t0, e0 = pair(np.float32(2.0))
    same(e0.index_fill(0, et.tensor([0]), 5.0), t0.index_fill(0, torch.tensor([0]), 5.0))
    same(e0.index_add(0, et.tensor([0]), et.tensor(1.0)),
         t0.index_add(0, torch.tensor([0]), torch.tensor(1.0)))


def test_index_errors():
    e = et.zeros(3, 2)
    with pytest.raises(KindError):  # PyTorch: source and self must have the same dtype
        e.index_add(0, et.tensor([0]), et.ones(1, 2, dtype=et.float64))
    with pytest.raises(ShapeMismatchError):
        e.index_add(0, et.tensor([0, 1]), et.ones(1, 2))
    with pytest.raises(DimensionError):
        e.index_copy(0, et.tensor([5]), et.ones(1, 2))
    with pytest.raises(ShapeMismatchError):
        e.index_fill(0, et.tensor([0]), et.ones(2))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    x, s, i = f32(4, 3), f32(5, 3), idx([0, 2, 0, 3, 0])
    grads(lambda m, x, i, s: x.index_reduce(0, i, s, reduce, include_self=include_self), x, i, s)
    grads(lambda m, x, i, s: m.index_reduce(x, 1, i[:2], s[:3, :2], reduce,
                                            include_self=include_self), x.T.copy(), i, s)
    t, e = pair(np.arange(12).reshape(4, 3))
    src = np.arange(15).reshape(5, 3) * 3 - 7
    same(e.index_reduce(0, et.tensor(i), et.tensor(src), reduce, include_self=include_self),
         t.index_reduce(0, torch.tensor(i), torch.tensor(src), reduce, include_self=include_self))


def test_index_reduce_errors():
    with pytest.raises(InvalidParameterError):
        et.zeros(3).index_reduce(0, et.tensor([0]), et.ones(1), "sum")
    with pytest.raises(InvalidParameterError):
        et.zeros(3).index_reduce(0, et.tensor([0]), et.ones(1), "amax", include_self=1)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(accumulate):
    x, v = f32(4, 3), f32(3)
    i0, i1 = idx([0, 2, 3]), idx([1, 1, 2])
    grads(lambda m, x, a, b, v: x.index_put((a, b), v, accumulate), x, i0, i1, v)
    rows = idx([0, 0, 2]) if accumulate else idx([0, 3, 2])
    grads(lambda m, x, a, v: m.index_put(x, (a,), v, accumulate=accumulate), x, rows,
          f32(3, 3))
    grads(lambda m, x, v: x.index_put((m.tensor([0, 1]), m.tensor([2, 2])), v, accumulate),
          x, np.float32(1.5))
    mask = np.array([True, False, True, False])
    grads(lambda m, x, v: x.index_put((m.tensor(mask),), v, accumulate), x, f32(3))


def test_index_put_errors():
    e = et.zeros(2, 2)
    with pytest.raises(KindError):
        e.index_put((et.tensor([0.5]),), et.ones(2))
    with pytest.raises(DimensionError):
        e.index_put((et.tensor([0]),) * 3, et.ones(()))
    with pytest.raises(InvalidParameterError):
        e.index_put(et.tensor([0]), et.ones(2))


# -- masks --------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,mshape", [((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (2, 4)),
                                          ((), ()), ((0, 2), (0, 2))])
def test_masked_select(shape, mshape):
    mask = rng.random(mshape) > 0.4
    grads(lambda m, x, k: m.masked_select(x, k), f32(*shape), mask)
    grads(lambda m, x, k: x.masked_select(k), f32(*shape), mask)


def test_masked_select_errors():
    with pytest.raises(KindError):
        et.ones(2).masked_select(et.tensor([1, 0]))
    with pytest.raises(ShapeMismatchError):
        et.ones(2).masked_select(et.tensor([True, False, True]))


@pytest.mark.parametrize("shape,mshape", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()),
                                          ((2, 0), (2, 0))])
def test_masked_scatter(shape, mshape):
    mask = rng.random(mshape) > 0.4
    n = int(np.broadcast_to(mask, shape).sum())
    grads(lambda m, x, k, s: x.masked_scatter(k, s), f32(*shape), mask, f32(n + 2))
    grads(lambda m, x, k, s: m.masked_scatter(x, k, s), f32(*shape), mask, f32(n))


def test_masked_scatter_errors_and_masked_fill():
    with pytest.raises(ShapeMismatchError):
        et.zeros(3).masked_scatter(et.tensor([True, True, False]), et.ones(1))
    with pytest.raises(KindError):
        et.zeros(3).masked_scatter(et.tensor([True, True, False]), et.ones(2, dtype=et.int64))
    mask = rng.random((3, 4)) > 0.5
    grads(lambda m, x, k: x.masked_fill(k, -1.5), f32(3, 4), mask)
    grads(lambda m, x, k: m.masked_fill(x, k, m.tensor(2.0)), f32(3, 4), mask[0])
    t, e = pair(np.arange(4))
    same(e.masked_fill(e > 1, 9), t.masked_fill(t > 1, 9))


@pytest.mark.parametrize("shape", [(3, 4), (4,), ()])
def test_where_scalar(shape):
    cond = rng.random(shape) > 0.5
    grads(lambda m, c, x: m.where(c, x, 0.5), cond, f32(*shape))
    grads(lambda m, c, x: m.where(c, -1.0, x), cond, f32(*shape))
    grads(lambda m, c, x: x.where(c, 2), cond, f32(*shape))


# -- scatter ------------------------------------------------------------------------------------

def test_scatter_add_and_scatter():
    x, s = f32(3, 5), f32(2, 6)
    i = idx([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    grads(lambda m, x, i, s: x.scatter_add(0, i, s), x, i, s[:, :5].copy())
    grads(lambda m, x, i, s: m.scatter_add(x, 1, i[:, :3], s), x, i, s[:, :3].copy())
    t, e = pair(x)  # src larger than index: its leading part is used
    same(e.scatter_add(1, et.tensor(i[:, :3]), et.tensor(s)),
         t.scatter_add(1, torch.tensor(i[:, :3]), torch.tensor(s)))
    j = idx([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]])
    grads(lambda m, x, i, s: x.scatter(1, i, s), x, j, s[:, :5].copy())
    grads(lambda m, x, i: x.scatter(1, i, 2.5), x, j)
    t, e = pair(np.arange(15, dtype=np.float32).reshape(3, 5))
    for reduce in ("add", "multiply"):
        same(e.scatter(0, et.tensor(i), et.tensor(s[:, :5]), reduce=reduce),
             t.scatter(0, torch.tensor(i), torch.tensor(s[:, :5]), reduce=reduce))


def test_scatter_errors():
    e = et.zeros(3)
    with pytest.raises(KindError):
        e.scatter_add(0, et.tensor([0]), et.ones(1, dtype=et.float64))
    with pytest.raises(ShapeMismatchError):
        e.scatter_add(0, et.tensor([0, 1]), et.ones(1))
    with pytest.raises(DimensionError):
        e.scatter_add(0, et.tensor([3]), et.ones(1))
    with pytest.raises(InvalidParameterError):
        e.scatter(0, et.tensor([0]), et.ones(1), reduce="max")


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    x, s = f32(3, 4), f32(3, 4)
    i = idx([[0, 1, 1, 3], [0, 0, 2, 2], [1, 1, 1, 1]])
    grads(lambda m, x, i, s: x.scatter_reduce(1, i, s, reduce, include_self=include_self),
          x, i, s)
    grads(lambda m, x, i, s: m.scatter_reduce(x, 0, i[:2] % 3, s, reduce,
                                              include_self=include_self), x, i, s[:2].copy())
    t, e = pair(np.arange(12).reshape(3, 4) - 5)
    src = np.arange(12).reshape(3, 4) * 2 - 11
    same(e.scatter_reduce(1, et.tensor(i), et.tensor(src), reduce, include_self=include_self),
         t.scatter_reduce(1, torch.tensor(i), torch.tensor(src), reduce,
                          include_self=include_self))


def test_gather():
    x = f32(3, 4)
    i = idx([[0, 3], [1, 1], [2, 0]])
    grads(lambda m, x, i: x.gather(1, i), x, i)
    grads(lambda m, x, i: m.gather(x, 0, i[:2] % 3), x, i)
    grads(lambda m, x, i: m.gather(x, 0, i), np.float32(3.0), idx(0))


# -- take / put ---------------------------------------------------------------------------------

def test_take_put():
    x = f32(3, 4)
    grads(lambda m, x, i: x.take(i), x, idx([[0, 11], [-1, 5]]))
    grads(lambda m, x, i: m.take(x, i), x, idx([]))
    grads(lambda m, x, i: m.take(x, i), np.float32(2.0), idx([0, 0]))
    grads(lambda m, x, i: x.t().take(i), x, idx([1, 4]))
    grads(lambda m, x, i, s: x.put(i, s), x, idx([[0, 11], [-1, 5]]), f32(2, 2))
    grads(lambda m, x, i, s: m.put(x, i, s, accumulate=True), x, idx([0, 0, 3]), f32(3))
    with pytest.raises(ShapeMismatchError):
        et.zeros(3).put(et.tensor([0, 1]), et.ones(3))
    with pytest.raises(DimensionError):
        et.zeros(3).take(et.tensor([3]))


# -- diagonals ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,offset,d1,d2", [((3, 4), 0, 0, 1), ((3, 4), 2, 0, 1),
                                                ((3, 4), -2, 0, 1), ((2, 3, 4), 1, 2, 0),
                                                ((2, 3, 4), -1, -1, 1), ((3, 3), 5, 0, 1),
                                                ((0, 3), 0, 0, 1)])
def test_diagonal_and_scatter(shape, offset, d1, d2):
    x = f32(*shape)
    grads(lambda m, x: x.diagonal(offset, d1, d2), x)
    grads(lambda m, x: m.diagonal(x, offset=offset, dim1=d1, dim2=d2), x)
    n = tuple(torch.diagonal(torch.tensor(x), offset, d1, d2).shape)
    grads(lambda m, x, s: m.diagonal_scatter(x, s, offset, d1, d2), x, f32(*n))


@pytest.mark.parametrize("shape,offset,d1,d2", [((3,), 0, -2, -1), ((2, 3), 1, 0, 2),
                                                ((2, 3), -2, 2, 0), ((0,), 1, 0, 1)])
def test_diag_embed(shape, offset, d1, d2):
    grads(lambda m, x: x.diag_embed(offset, d1, d2), f32(*shape))
    grads(lambda m, x: m.diag_embed(x, offset=offset, dim1=d1, dim2=d2), f32(*shape))


@pytest.mark.parametrize("shape,k", [((3,), 0), ((3,), 2), ((3,), -1), ((3, 4), 1),
                                     ((4, 3), -1), ((0,), 0)])
def test_diag_diagflat(shape, k):
    grads(lambda m, x: m.diag(x, k), f32(*shape))
    grads(lambda m, x: x.diag(diagonal=k), f32(*shape))
    grads(lambda m, x: m.diagflat(x, k), f32(*shape))
    grads(lambda m, x: x.diagflat(offset=k), f32(*shape))
    t, e = pair(np.arange(int(np.prod(shape))).reshape(shape))
    same(e.diag(k), t.diag(k))


def test_diagonal_errors():
    with pytest.raises(DimensionError):
        et.ones(3).diagonal()
    with pytest.raises(DimensionError):
        et.ones(3, 3).diagonal(0, 1, 1)
    with pytest.raises(DimensionError):
        et.ones(2, 2, 2).diag()
    with pytest.raises(ShapeMismatchError):
        et.ones(3, 3).diagonal_scatter(et.ones(2))
    with pytest.raises(DimensionError):
        et.ones(()).diag_embed()


# -- select / slice scatter ---------------------------------------------------------------------

@pytest.mark.parametrize("shape,dim,index", [((3, 4), 0, 1), ((3, 4), 1, -1), ((2, 3, 4), 2, 0),
                                             ((3,), 0, 2)])
def test_select_scatter(shape, dim, index):
    src = list(shape)
    del src[dim]
    grads(lambda m, x, s: x.select_scatter(s, dim, index), f32(*shape), f32(*src))
    grads(lambda m, x, s: m.select_scatter(x, s, dim, index), f32(*shape), f32(*src))
    with pytest.raises(DimensionError):
        et.ones(*shape).select_scatter(et.ones(*src), dim, shape[dim])


@pytest.mark.parametrize("shape,dim,start,end,step", [
    ((5, 4), 0, 1, 4, 2), ((5, 4), 1, None, None, 1), ((5, 4), -1, -3, None, 2),
    ((5,), 0, 3, 3, 1), ((2, 6), 1, 0, 100, 4)])
def test_slice_scatter(shape, dim, start, end, step):
    n = len(range(*slice(start, end, step).indices(shape[dim])))
    s = list(shape)
    s[dim] = n
    grads(lambda m, x, v: x.slice_scatter(v, dim, start, end, step), f32(*shape), f32(*s))
    grads(lambda m, x, v: m.slice_scatter(x, v, dim=dim, start=start, end=end, step=step),
          f32(*shape), f32(*s))


def test_slice_scatter_errors():
    with pytest.raises(ShapeMismatchError):
        et.zeros(4).slice_scatter(et.ones(3), 0, 0, 2)
    with pytest.raises(InvalidParameterError):
        et.zeros(4).slice_scatter(et.ones(4), 0, step=0)


# -- triangles, argwhere, nonzero_static --------------------------------------------------------

@pytest.mark.parametrize("k", [0, 1, -1, 5])
def test_tril_triu(k):
    x = f32(2, 3, 4)
    grads(lambda m, x: x.tril(k), x)
    grads(lambda m, x: m.triu(x, k), x)
    grads(lambda m, x: m.tril(x, diagonal=k), f32(0, 3))


@pytest.mark.parametrize("size,fill", [(5, -1), (2, 0), (0, -1), (8, 7)])
def test_nonzero_static_and_argwhere(size, fill):
    a = (rng.random((3, 4)) > 0.5) * rng.integers(1, 5, (3, 4))
    t, e = pair(a)
    same(e.nonzero_static(size=size, fill_value=fill),
         t.nonzero_static(size=size, fill_value=fill))
    same(et.nonzero_static(e, size=size), torch.nonzero_static(t, size=size))
    same(e.argwhere(), t.argwhere())
    same(et.argwhere(e[0, 0]), torch.argwhere(t[0, 0]))
    with pytest.raises(InvalidParameterError):
        e.nonzero_static(size=-1)


def test_errors_are_ember_errors():
    for call in (lambda: et.index_select(et.ones(2), 0, [0]),
                 lambda: et.ones(2).take(et.tensor([5]))):
        with pytest.raises(EmberError):
            call()


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_reduce_ties_share_the_gradient(reduce, include_self):
    x = np.array([[1.0, 5.0, 2.0, 3.0], [4.0, 4.0, 0.0, -1.0]], dtype=np.float32)
    s = np.array([[5.0, 1.0, 5.0], [4.0, 4.0, 9.0]], dtype=np.float32)
    i = idx([[1, 0, 1], [0, 1, 3]])
    # PyTorch's backward counts a tie with self even when include_self=False (the gradients
    # of the ties then sum to less than 1); ember counts the values reduced: compared where
    # self has no tie
    xs = x if include_self else x + 100 * (reduce == "amin") - 100 * (reduce == "amax")
    grads(lambda m, x, i, s: x.scatter_reduce(1, i, s, reduce, include_self=include_self),
          xs, i, s)
    grads(lambda m, x, i, s: x.index_reduce(1, i[0], s, reduce, include_self=include_self),
          xs, i, s)
    inf = np.array([[np.inf, 1.0, -np.inf, 2.0]], dtype=np.float32)
    t, e = torch.tensor(inf), et.tensor(inf)
    src = np.array([[np.inf, -np.inf, 3.0]], dtype=np.float32)
    same(e.scatter_reduce(1, et.tensor(i[:1]), et.tensor(src), reduce, include_self=include_self),
         t.scatter_reduce(1, torch.tensor(i[:1]), torch.tensor(src), reduce,
                          include_self=include_self))


def test_scatter_gather_functions():
    x = f32(2, 3)
    i = idx([[1, 0, 1]])
    s = f32(1, 3)
    grads(lambda m, x, i, s: m.scatter(x, 0, i, s), x, i, s)
    grads(lambda m, x, i: m.scatter(x, 0, i, value=2.0), x, i)
    grads(lambda m, x, i: m.gather(x, 1, i, sparse_grad=False), x, i)
    t, e = pair(x)
    same(et.scatter(e, 0, et.tensor(i), et.tensor(s), reduce="multiply"),
         torch.scatter(t, 0, torch.tensor(i), torch.tensor(s), reduce="multiply"))
