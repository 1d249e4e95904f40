"""Tests of ember/nn/rnn_utils.py against torch.nn.utils.rnn 2.13: padding, packing and
unpacking sequences of unequal lengths (values, batch sizes, permutations, gradients through
them) and bad input."""

import pytest
import torch
from torch.nn.utils import rnn as trnn

import ember
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from ember.nn import rnn_utils as R
from oracle import assert_close, on_device


def leaves(rng, lengths, feat=(2,)):
    arrs = [rng.standard_normal((n,) + feat) for n in lengths]
    return ([ember.tensor(a).require_grad() for a in arrs],
            [torch.tensor(a, requires_grad=True) for a in arrs])


def backprop(e, t, rng):
    w = rng.standard_normal(tuple(t.shape))
    (e * ember.tensor(w)).sum().backward()
    (t * torch.tensor(w)).sum().backward()


def same_packed(pe, pt):
    assert isinstance(pe, R.PackedSequence)
    assert_close(pe.data, pt.data)
    assert pe.batch_sizes.tolist() == pt.batch_sizes.tolist()
    assert pe.batch_sizes.dtype.name == "int64"
    for a, b in ((pe.sorted_indices, pt.sorted_indices),
                 (pe.unsorted_indices, pt.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tolist() == b.tolist()


@pytest.mark.parametrize("lengths", [[3, 1, 2], [4], [2, 2, 5, 1]])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("feat", [(), (2,), (2, 3)])
def test_pad_sequence_matches_torch(rng, lengths, batch_first, side, feat):
    es, ts = leaves(rng, lengths, feat)
    e = R.pad_sequence(es, batch_first=batch_first, padding_value=-1.5, padding_side=side)
    t = trnn.pad_sequence(ts, batch_first=batch_first, padding_value=-1.5, padding_side=side)
    assert_close(e, t)
    backprop(e, t, rng)
    for a, b in zip(es, ts):
        assert_close(a.grad, b.grad)


@pytest.mark.parametrize("lengths,enforce", [([5, 3, 3, 1], True), ([2, 5, 1, 4], False),
                                             ([3, 3, 1], False), ([1], True)])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_pack_padded_sequence_matches_torch(rng, lengths, enforce, batch_first, as_tensor):
    B, T = len(lengths), max(lengths)
    x = rng.standard_normal((B, T, 3) if batch_first else (T, B, 3))
    xe, xt = ember.tensor(x).require_grad(), torch.tensor(x, requires_grad=True)
    le = ember.tensor(lengths) if as_tensor else lengths
    pe = R.pack_padded_sequence(xe, le, batch_first=batch_first, enforce_sorted=enforce)
    pt = trnn.pack_padded_sequence(xt, torch.tensor(lengths) if as_tensor else lengths,
                                   batch_first=batch_first, enforce_sorted=enforce)
    same_packed(pe, pt)
    backprop(pe.data, pt.data, rng)
    assert_close(xe.grad, xt.grad)


@pytest.mark.parametrize("lengths,enforce", [([5, 3, 1], True), ([2, 5, 1, 4], False)])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("total_length", [None, 7])
def test_pad_packed_sequence_matches_torch(rng, lengths, enforce, batch_first, total_length):
    es, ts = leaves(rng, lengths, (2,))
    pe = R.pack_sequence(es, enforce_sorted=enforce)
    pt = trnn.pack_sequence(ts, enforce_sorted=enforce)
    same_packed(pe, pt)
    e, le = R.pad_packed_sequence(pe, batch_first=batch_first, padding_value=9.0,
                                  total_length=total_length)
    t, lt = trnn.pad_packed_sequence(pt, batch_first=batch_first, padding_value=9.0,
                                     total_length=total_length)
    assert_close(e, t)
    assert le.tolist() == lt.tolist() and le.dtype.name == "int64"
    backprop(e, t, rng)
    for a, b in zip(es, ts):
        assert_close(a.grad, b.grad)


@pytest.mark.parametrize("enforce", [True, False])
def test_unpack_and_unpad_sequence_match_torch(rng, enforce):
    lengths = [4, 2, 1] if enforce else [1, 4, 2]
    es, ts = leaves(rng, lengths, (3,))
    ue = R.unpack_sequence(R.pack_sequence(es, enforce_sorted=enforce))
    ut = trnn.unpack_sequence(trnn.pack_sequence(ts, enforce_sorted=enforce))
    assert len(ue) == len(ut)
    for a, b in zip(ue, ut):
        assert_close(a, b)
    for batch_first in (False, True):
        pe = R.pad_sequence(es, batch_first=batch_first)
        pt = trnn.pad_sequence(ts, batch_first=batch_first)
        for a, b in zip(R.unpad_sequence(pe, ember.tensor(lengths), batch_first=batch_first),
                        trnn.unpad_sequence(pt, torch.tensor(lengths),
                                            batch_first=batch_first)):
            assert_close(a, b)


def test_packed_sequence_is_a_named_tuple_with_inverse_indices():
    p = R.PackedSequence(ember.ones(4, 2), ember.tensor([2, 1, 1]), ember.tensor([1, 2, 0]))
    t = trnn.PackedSequence(torch.ones(4, 2), torch.tensor([2, 1, 1]), torch.tensor([1, 2, 0]))
    assert p._fields == t._fields
    assert p.unsorted_indices.tolist() == t.unsorted_indices.tolist()
    data, sizes, _, _ = p
    assert data.shape == (4, 2) and sizes.tolist() == [2, 1, 1]
    assert R.invert_permutation(None) is None
    assert (R.invert_permutation(ember.tensor([3, 0, 2, 1])).tolist()
            == trnn.invert_permutation(torch.tensor([3, 0, 2, 1])).tolist())
    assert p.to("float64").data.dtype.name == "float64"
    assert p.double().data.dtype.name == "float64" and p.double().float().data.dtype.name == "float32"
    assert p.cpu().data.device.type == "cpu"
    if on_device(["float16"]):
        assert p.half().data.dtype.name == "float16"
    assert p.is_cuda is False and p.is_pinned() is False
    assert p.double().sorted_indices.tolist() == [1, 2, 0]


def test_bad_input():
    x = ember.ones(4, 3, 2)
    with pytest.raises(InvalidParameterError, match="decreasing"):
        R.pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(InvalidParameterError, match="greater than 0"):
        R.pack_padded_sequence(x, [4, 2, 0])
    with pytest.raises(InvalidParameterError, match="over the 4 steps"):
        R.pack_padded_sequence(x, [5, 2, 1])
    with pytest.raises(ShapeMismatchError, match="expected 3 lengths"):
        R.pack_padded_sequence(x, [4, 2])
    with pytest.raises(KindError, match="int"):
        R.pack_padded_sequence(x, ember.tensor([4.0, 2.0, 1.0]))
    p = R.pack_sequence([ember.ones(3), ember.ones(2)])
    with pytest.raises(InvalidParameterError, match="total_length"):
        R.pad_packed_sequence(p, total_length=2)
    with pytest.raises(InvalidParameterError, match="PackedSequence"):
        R.pad_packed_sequence(x)
    with pytest.raises(ShapeMismatchError, match="sequences"):
        R.pad_sequence([ember.ones(3, 2), ember.ones(3, 4)])
    with pytest.raises(InvalidParameterError, match="empty"):
        R.pad_sequence([])
    with pytest.raises(InvalidParameterError, match="padding_side"):
        R.pad_sequence([ember.ones(2)], padding_side="top")
    with pytest.raises(InvalidParameterError, match="batch_sizes"):
        R.PackedSequence(ember.ones(2))
