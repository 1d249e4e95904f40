"""The aliasing record (ember/ops/aliasing.py): views follow writes on both tensor classes,
threads writing disjoint parts keep each other's writes, the in-place fast path writes only a
buffer nobody else holds, and Burn's ``inplace`` leaves views their values."""

import threading
import weakref

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import CastError, GraphError, KindError


def test_views_of_the_spec_tensor_follow_writes_as_pytorchs():
    e, t = ember.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    ev, tv = e.transpose(0, 1)[1:], t.transpose(0, 1)[1:]
    ev += 10
    tv += 10
    e[0, 0] = -1.0
    t[0, 0] = -1.0
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    np.testing.assert_array_equal(ev.numpy(), tv.numpy())


def test_threads_writing_disjoint_rows_of_a_view_keep_each_others_writes():
    ret = ember.zeros((400, 64)).transpose(0, 1)          # a view, as scikit-learn's `.T`
    blocks = [ember.full((16, 400), float(j + 1)) for j in range(4)]

    def fill(j):
        for _ in range(5):
            ret[16 * j:16 * (j + 1), :] = blocks[j]

    threads = [threading.Thread(target=fill, args=(j,)) for j in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    got = ret.numpy()
    for j in range(4):
        assert (got[16 * j:16 * (j + 1)] == j + 1).all(), j


@pytest.mark.skipif(not et.zeros(1).device.backend.writes_in_place,
                    reason="a backend without ew_inplace always allocates")
def test_the_fast_path_writes_only_a_buffer_nobody_else_holds():
    x = et.ones(1000)
    before = weakref.ref(x._data)         # (a weak reference: the buffer stays unshared)
    x.add_(et.ones(1000))                 # nobody else holds x's buffer: written in place
    assert before() is x._data and x.tolist()[0] == 2.0
    snapshot = x.numpy()                  # now the buffer has a reader
    x.add_(1.0)
    assert before() is not x._data and snapshot[0] == 2.0 and x.tolist()[0] == 3.0


@pytest.mark.skipif(not et.zeros(1).device.backend.writes_in_place,
                    reason="a backend without ew_inplace always allocates")
def test_the_fast_path_writes_through_data_and_detach_views():
    p = et.ones(1000).requires_grad_()
    before = weakref.ref(p._data)
    g = et.full((1000,), 4.0)
    p.data.add_(g, alpha=-0.25)           # the SGD of PyTorch's tutorials: p's own buffer
    assert before() is p._data and p.tolist()[:2] == [0.0, 0.0]
    d1, d2 = p.data, p.detach()           # two identity views alive: three holders
    d1.sub_(1.0)
    assert before() is p._data and p.tolist()[0] == -1.0 and d2.tolist()[999] == -1.0
    assert p.requires_grad and p.is_leaf and p.grad is None
    with ember.no_grad():
        p.add_(1.0)                       # the root itself, its identity views alive
    assert before() is p._data and d1.tolist()[0] == 0.0 and d2.tolist()[0] == 0.0
    p.data.sub_(1.0)
    part = p.data[:3]                     # a view of part of the buffer: it holds the buffer
    snapshot = p.detach().numpy()         # and so does a reader: the write allocates
    p.data.mul_(2.0)
    assert before() is not p._data and snapshot[0] == -1.0 and p.tolist()[0] == -2.0
    assert d1.tolist()[0] == -2.0 and part.tolist() == [-2.0, -2.0, -2.0]


def test_a_write_through_data_counts_for_the_saved_tensors():
    w = et.ones(4).requires_grad_()
    y = (w * w).sum()                     # saves w: its buffer has a second holder
    w.data.add_(1.0)
    assert w.tolist() == [2.0] * 4
    with pytest.raises(ember.GraphError):
        y.backward()


def test_a_view_sees_a_fast_path_write_of_its_base():
    x = et.zeros(8)
    v = x[2:4]
    x += 1.0
    assert v.tolist() == [1.0, 1.0]


def test_burn_inplace_rebinds_one_tensor_and_leaves_its_views():
    t = ember.tensor([1.0, 2.0, 3.0])
    view = t[1:]
    t.inplace(lambda x: x * 10)
    assert t.tolist() == [10.0, 20.0, 30.0] and view.tolist() == [2.0, 3.0]
    view += 1                              # the view keeps the old memory
    assert t.tolist() == [10.0, 20.0, 30.0] and view.tolist() == [3.0, 4.0]


def test_an_in_place_shape_op_makes_the_tensor_a_new_view_of_its_memory():
    for lib in (torch, et):
        x = lib.zeros(2, 3)
        row = x[1]
        x.t_()
        x[2, 1] = 5.0                      # x is (3, 2): element (1, 2) of the memory
        assert row.tolist() == [0.0, 0.0, 5.0], lib.__name__


def test_set_shares_the_source_memory_both_ways():
    for lib in (torch, et):
        a, b = lib.zeros(4), lib.zeros(1)
        b.set_(a)
        b[1] = 2.0
        a[3] = 7.0
        assert a.tolist() == [0.0, 2.0, 0.0, 7.0] and b.tolist() == a.tolist(), lib.__name__


def test_refusals_are_typed_and_change_nothing():
    x = et.tensor([1, 2])
    with pytest.raises(CastError) as info:
        x += 0.5
    assert isinstance(info.value, KindError) and isinstance(info.value, RuntimeError)
    assert x.tolist() == [1, 2]
    z = et.complex(et.ones(2), et.ones(2))
    with pytest.raises(KindError, match="real view"):
        z.real.add_(1.0)
    assert z.tolist() == [1 + 1j, 1 + 1j]
    p = et.ones(3, requires_grad=True)
    with pytest.raises(GraphError, match="view of a leaf"):
        p[1:].mul_(2)
    assert p.tolist() == [1.0, 1.0, 1.0]


def test_an_in_place_op_keeps_the_value_it_read_for_its_gradient():
    for lib in (torch, et):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 1.0
        y.sin_()                           # sin's gradient reads y's old value
        y.sum().backward()
        np.testing.assert_allclose(x.grad.tolist(), np.cos([1.0, -2.0, 3.0]), rtol=1e-6)


def test_no_grad_writes_keep_every_graph():
    for lib in (torch, et):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3.0
        with lib.no_grad():
            y[0] = 100.0
        (y * 1.0).sum().backward()
        assert y.detach().tolist() == [100.0, 6.0] and x.grad.tolist() == [3.0, 3.0]
