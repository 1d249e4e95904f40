"""ember.torch.utils.data's datasets, samplers and collate functions against PyTorch's
torch.utils.data: collate outputs (structure, dtype, shape, values), dataset indexing,
random_split sizes, sampler lengths and orders where deterministic, distributions where not.
(Named test_torch_data.py: tests/ops/test_data.py holds the basename test_data.)"""

import collections
import os
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import (DimensionError, InvalidParameterError, KindError,
                          ShapeMismatchError)
from ember.torch.utils import data as ed
from torch.utils import data as td

DEVICE = ember.get_default_device()
Point = collections.namedtuple("Point", ["x", "y"])


def same(e, t):
    """``e`` (ember.torch's output) matches ``t`` (PyTorch's): the same structure and types,
    and tensors of the same dtype, shape and values, on ember's default device."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, et.Tensor), type(e)
        assert e.dtype.name == str(t.dtype).removeprefix("torch."), (e.dtype, t.dtype)
        assert tuple(e.shape) == tuple(t.shape)
        assert e.device == DEVICE
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    elif isinstance(t, dict):
        assert type(e) is type(t) and list(e) == list(t)
        for k in t:
            same(e[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), (type(e), type(t))
        for a, b in zip(e, t):
            same(a, b)
    else:
        assert type(e) is type(t) and e == t


def as_both(x):
    """``x`` with each tensor given as (ember.torch, torch) twins: two structures."""
    if isinstance(x, np.ndarray) and x.dtype.kind not in "SUO":
        return et.tensor(x), torch.tensor(x)
    if isinstance(x, dict):
        pairs = {k: as_both(v) for k, v in x.items()}
        return {k: v[0] for k, v in pairs.items()}, {k: v[1] for k, v in pairs.items()}
    if isinstance(x, (list, tuple)):
        pairs = [as_both(v) for v in x]
        cls = type(x)
        if hasattr(x, "_fields"):
            return cls(*[p[0] for p in pairs]), cls(*[p[1] for p in pairs])
        return cls(p[0] for p in pairs), cls(p[1] for p in pairs)
    return x, x


rng = np.random.default_rng(0)
ARRAYS = [rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(()),
          np.zeros((0, 4), np.float64), rng.integers(-5, 5, (2, 3)).astype(np.int32),
          rng.integers(0, 9, (4,)).astype(np.uint8), rng.standard_normal((4, 3)).T,
          np.array([True, False]), rng.integers(0, 9, (2,)).astype(np.int64)]


# -- default_collate ---------------------------------------------------------------------------

@pytest.mark.parametrize("arr", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_collate_numpy_arrays_and_tensors_match_torch(arr):
    batch = [arr, np.asarray(arr * 2 if arr.dtype != bool else ~arr), arr]
    same(ed.default_collate(batch), td.default_collate(batch))
    mixed = [arr, arr.astype(np.float64), arr]  # arrays of two dtypes: promoted
    same(ed.default_collate(mixed), td.default_collate(mixed))
    e_batch, t_batch = as_both(batch)
    same(ed.default_collate(e_batch), td.default_collate(t_batch))


@pytest.mark.parametrize("batch", [
    [1.5, 2.0, -3.25], [1, 2, 3], [True, False, True], [1, True], [2.5, 1],
    [np.float32(1.5), np.float32(2)], [np.int32(3), np.int32(-1)], [np.bool_(True)],
    [np.float32(1.5), np.float64(2)], [np.array(1.5), np.array(2.5)],
    ["a", "bc"], [b"x", b"y"],
], ids=repr)
def test_collate_numbers_scalars_and_strings_match_torch(batch):
    same(ed.default_collate(batch), td.default_collate(batch))


@pytest.mark.parametrize("batch", [
    [(1, "a", np.ones(2, np.float32)), (2, "b", np.zeros(2, np.float32))],
    [{"x": np.arange(3), "y": 0.5, "name": "p"}, {"x": np.arange(3) + 1, "y": 1.5,
                                                 "name": "q"}],
    [Point(np.ones((2, 2)), 1), Point(np.zeros((2, 2)), 2)],
    [[1, [2.0, np.float32(3)]], [4, [5.0, np.float32(6)]]],
    [{"a": (1, {"b": [np.int16(2), 3.0]})}, {"a": (4, {"b": [np.int16(5), 6.0]})}],
], ids=["tuples", "dicts", "namedtuples", "nested-lists", "deep"])
def test_collate_containers_match_torch(batch):
    same(ed.default_collate(batch), td.default_collate(batch))
    e_batch, t_batch = as_both(batch)
    same(ed.default_collate(e_batch), td.default_collate(t_batch))


def test_collate_of_ember_tensors_of_either_api_gives_ember_torch_tensors():
    out = ed.default_collate([ember.tensor([1.0, 2.0]), et.tensor([3.0, 4.0])])
    assert isinstance(out, et.Tensor) and out.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_collate_keeps_gradients_flowing():
    x = et.tensor([1.0, 2.0], requires_grad=True)
    out = ed.default_collate([x, x * 3])
    out.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


@pytest.mark.parametrize("batch, error", [
    ([object(), object()], KindError),
    ([np.array(["a"]), np.array(["b"])], KindError),
    ([np.array([object()])], KindError),
    ([(1, 2), (3,)], ShapeMismatchError),
    ([np.zeros(2), np.zeros(3)], ShapeMismatchError),
])
def test_collate_refusals_are_typed_where_torch_refuses(batch, error):
    with pytest.raises((TypeError, RuntimeError)):
        td.default_collate(batch)
    with pytest.raises(error):
        ed.default_collate(batch)


@pytest.mark.parametrize("data", [
    np.arange(4.0), np.float32(2.5), np.int64(3), 7, 2.5, "s",
    (np.ones(2), 3), [np.zeros((1, 2), np.float32), "a"], {"k": np.arange(3), "n": 1},
    Point(np.array(1), np.array(2.0)), np.array(["x"]),
], ids=repr)
def test_default_convert_matches_torch(data):
    same(ed.default_convert(data), td.default_convert(data))


def test_collate_with_a_custom_map_extends_it():
    def as_list(batch, *, collate_fn_map):
        return [float(b) for b in batch]
    fn_map = dict(ed.default_collate_fn_map)
    fn_map[float] = as_list
    out = ed.collate([{"x": 1.0}, {"x": 2.0}], collate_fn_map=fn_map)
    assert out == {"x": [1.0, 2.0]}


# -- datasets ----------------------------------------------------------------------------------

def test_tensor_dataset_matches_torch():
    x = rng.standard_normal((5, 3)).astype(np.float32)
    y = np.arange(5)
    e = ed.TensorDataset(et.tensor(x), et.tensor(y))
    t = td.TensorDataset(torch.tensor(x), torch.tensor(y))
    assert len(e) == len(t) == 5
    for i in (0, 3, -1):
        same(e[i], t[i])
    same(e[1:4], t[1:4])


def test_tensor_dataset_refusals():
    with pytest.raises(AssertionError):
        td.TensorDataset(torch.zeros(2), torch.zeros(3))
    with pytest.raises(ShapeMismatchError):
        ed.TensorDataset(et.zeros(2), et.zeros(3))
    with pytest.raises(DimensionError):
        ed.TensorDataset(et.tensor(1.0))
    with pytest.raises(InvalidParameterError):
        ed.TensorDataset()
    with pytest.raises(InvalidParameterError):
        ed.TensorDataset([1, 2])


def test_concat_dataset_matches_torch():
    parts = [list(range(3)), [], list(range(10, 14)), [99]]
    e, t = ed.ConcatDataset(parts), td.ConcatDataset(parts)
    assert len(e) == len(t) == 8 and e.cumulative_sizes == t.cumulative_sizes
    assert [e[i] for i in range(-8, 8)] == [t[i] for i in range(-8, 8)]
    with pytest.raises(ValueError):
        t[-9]
    with pytest.raises(InvalidParameterError):
        e[-9]
    with pytest.raises(IndexError):
        t[8]
    with pytest.raises(DimensionError):
        e[8]


def test_concat_dataset_refusals_and_add():
    with pytest.raises(AssertionError):
        td.ConcatDataset([])
    with pytest.raises(InvalidParameterError):
        ed.ConcatDataset([])
    with pytest.raises(InvalidParameterError):
        ed.ConcatDataset([Count(2)])

    class Items(ed.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return i * 10
    both = Items() + Items()
    assert isinstance(both, ed.ConcatDataset) and [both[i] for i in range(4)] == [0, 10, 0, 10]


class Count(ed.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


class TCount(td.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_chain_dataset_matches_torch():
    e = ed.ChainDataset([Count(2), Count(3)])
    t = td.ChainDataset([TCount(2), TCount(3)])
    assert list(e) == list(t) and len(e) == len(t) == 5
    assert list(Count(2) + Count(1)) == [0, 1, 0]
    with pytest.raises(InvalidParameterError):
        list(ed.ChainDataset([Count(1), [5]]))


def test_stack_dataset_matches_torch():
    a, b = list(range(4)), ["w", "x", "y", "z"]
    for args, kwargs in (((a, b), {}), ((), {"n": a, "s": b})):
        e, t = ed.StackDataset(*args, **kwargs), td.StackDataset(*args, **kwargs)
        assert len(e) == len(t) == 4
        assert [e[i] for i in range(4)] == [t[i] for i in range(4)]
        assert e.__getitems__([3, 1]) == t.__getitems__([3, 1])
    with pytest.raises(ValueError):
        td.StackDataset(a, b[:2])
    with pytest.raises(ShapeMismatchError):
        ed.StackDataset(a, b[:2])
    with pytest.raises(InvalidParameterError):
        ed.StackDataset(a, s=b)
    with pytest.raises(InvalidParameterError):
        ed.StackDataset()


def test_subset_matches_torch():
    base = list("abcdefg")
    e, t = ed.Subset(base, [6, 0, 3]), td.Subset(base, [6, 0, 3])
    assert len(e) == len(t) == 3
    assert [e[i] for i in range(3)] == [t[i] for i in range(3)]
    assert e.__getitems__([2, 0]) == t.__getitems__([2, 0])

    class Bad(ed.Subset):
        def __getitem__(self, i):
            return 0
    with pytest.raises(NotImplementedError):
        Bad(base, [0])


def test_datasets_are_generic_as_in_torch():
    class Typed(ed.Dataset[int]):
        def __getitem__(self, i):
            return i
    class Ints(ed.Sampler[int]):
        def __iter__(self):
            return iter([2, 1])
    assert Typed()[3] == 3 and list(Ints()) == [2, 1]
    with pytest.raises(NotImplementedError):
        ed.Dataset()[0]


@pytest.mark.parametrize("n, lengths", [
    (10, [3, 7]), (10, [0.3, 0.7]), (11, [0.5, 0.5]), (7, [0.2, 0.2, 0.6]),
    (30, [0.3, 0.3, 0.4]), (5, [5]), (0, [0, 0]), (3, [1.0]), (4, [0.25] * 4),
])
def test_random_split_sizes_match_torch(n, lengths):
    ds = list(range(n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = td.random_split(ds, lengths, generator=torch.Generator().manual_seed(0))
        e = ed.random_split(ds, lengths, generator=et.Generator().manual_seed(0))
    assert [len(s) for s in e] == [len(s) for s in t]
    assert sorted(i for s in e for i in s.indices) == list(range(n))
    again = ed.random_split(ds, lengths, generator=et.Generator().manual_seed(0)) \
        if n else e
    assert [s.indices for s in again] == [s.indices for s in e]


def test_random_split_uses_the_default_generator_seeded_by_manual_seed():
    ember.manual_seed(3)
    a = ed.random_split(range(20), [5, 15])
    ember.manual_seed(3)
    b = ed.random_split(range(20), [5, 15])
    assert [s.indices for s in a] == [s.indices for s in b]


@pytest.mark.parametrize("lengths", [[3, 3], [0.5, 0.6], [-1, 11], [1.5, 8.5], ["a"]])
def test_random_split_refusals(lengths):
    if lengths != [-1, 11]:  # PyTorch accepts a negative length that keeps the sum
        with pytest.raises((ValueError, TypeError)):
            td.random_split(range(10), lengths)
    with pytest.raises(InvalidParameterError):
        ed.random_split(range(10), lengths)


def test_random_split_warns_of_an_empty_split_as_torch():
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        ed.random_split(range(2), [0.9, 0.1])


# -- samplers ----------------------------------------------------------------------------------

def test_sequential_and_batch_samplers_match_torch():
    for n in (0, 1, 7, 12):
        assert list(ed.SequentialSampler(range(n))) == list(td.SequentialSampler(range(n)))
        for bs in (1, 3, 5):
            for drop in (False, True):
                e = ed.BatchSampler(ed.SequentialSampler(range(n)), bs, drop)
                t = td.BatchSampler(td.SequentialSampler(range(n)), bs, drop)
                assert list(e) == list(t) and len(e) == len(t)


@pytest.mark.parametrize("kwargs", [{}, {"num_samples": 3}, {"num_samples": 17},
                                    {"replacement": True}, {"replacement": True,
                                                            "num_samples": 40}])
def test_random_sampler_lengths_match_torch_and_orders_repeat_per_seed(kwargs):
    n = 7
    e = ed.RandomSampler(range(n), generator=et.Generator().manual_seed(5), **kwargs)
    t = td.RandomSampler(range(n), generator=torch.Generator().manual_seed(5), **kwargs)
    first = list(e)
    assert len(e) == len(t) == len(first) == len(list(t))
    assert all(0 <= i < n for i in first)
    if not kwargs.get("replacement"):
        assert sorted(first[:n]) == list(range(n))[:len(first)] or len(first) < n
        assert len(set(first[:n])) == min(n, len(first))
    again = list(ed.RandomSampler(range(n), generator=et.Generator().manual_seed(5), **kwargs))
    assert again == first


def test_random_sampler_without_generator_follows_manual_seed():
    ember.manual_seed(11)
    a = list(ed.RandomSampler(range(50)))
    b = list(ed.RandomSampler(range(50)))
    ember.manual_seed(11)
    assert list(ed.RandomSampler(range(50))) == a and a != b
    assert sorted(a) == list(range(50))


@pytest.mark.parametrize("kwargs", [{"num_samples": 0}, {"num_samples": -1},
                                    {"num_samples": 2.0}, {"replacement": 1},
                                    {"data_source": []}])
def test_random_sampler_refusals(kwargs):
    kwargs = {"data_source": range(4), **kwargs}
    with pytest.raises((ValueError, TypeError)):
        td.RandomSampler(**kwargs)
    with pytest.raises(InvalidParameterError):
        ed.RandomSampler(**kwargs)
    with pytest.raises(InvalidParameterError):
        ed.RandomSampler(range(3), generator=np.random.default_rng(0))


def test_subset_random_sampler():
    idx = [4, 8, 15, 16, 23, 42]
    e = ed.SubsetRandomSampler(idx, generator=et.Generator().manual_seed(1))
    t = td.SubsetRandomSampler(idx, generator=torch.Generator().manual_seed(1))
    assert len(e) == len(t) == 6 and sorted(e) == sorted(t) == idx
    first = list(ed.SubsetRandomSampler(idx, generator=et.Generator().manual_seed(1)))
    assert first == list(ed.SubsetRandomSampler(idx, generator=et.Generator().manual_seed(1)))


def test_weighted_random_sampler_distribution():
    w = [1.0, 2.0, 0.0, 7.0]
    e = ed.WeightedRandomSampler(w, 20000, generator=et.Generator().manual_seed(0))
    t = td.WeightedRandomSampler(w, 20000)
    draws = np.array(list(e))
    assert len(e) == len(t) == draws.size == 20000
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, np.array(w) / sum(w), atol=0.015)
    assert e.weights.dtype == et.float64 and isinstance(e.weights, et.Tensor)
    no_rep = list(ed.WeightedRandomSampler([1.0, 5.0, 2.0, 3.0], 4, replacement=False))
    assert sorted(no_rep) == [0, 1, 2, 3]
    same(e.weights, t.weights)


@pytest.mark.parametrize("args, kwargs", [
    (([1.0, 2.0], 0), {}), (([1.0, 2.0], True), {}), (([1.0, 2.0], 2), {"replacement": 0}),
    (([[1.0, 2.0]], 2), {}),
])
def test_weighted_random_sampler_refusals(args, kwargs):
    with pytest.raises(ValueError):
        td.WeightedRandomSampler(*args, **kwargs)
    with pytest.raises(ValueError):
        ed.WeightedRandomSampler(*args, **kwargs)


@pytest.mark.parametrize("batch_size, drop_last", [(0, False), (-2, False), (True, False),
                                                   (2.0, False), (2, None), (2, 1)])
def test_batch_sampler_refusals(batch_size, drop_last):
    with pytest.raises(ValueError):
        td.BatchSampler(range(4), batch_size, drop_last)
    with pytest.raises(InvalidParameterError):
        ed.BatchSampler(range(4), batch_size, drop_last)


@pytest.mark.parametrize("n, replicas, drop_last", [(10, 3, False), (10, 3, True), (2, 4, False),
                                                     (12, 4, True), (0, 2, False)])
def test_distributed_sampler_matches_torch(n, replicas, drop_last):
    ds = list(range(n))
    shares = []
    for rank in range(replicas):
        t = td.DistributedSampler(ds, replicas, rank, shuffle=False, drop_last=drop_last)
        e = ed.DistributedSampler(ds, replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(e) == list(t) and len(e) == len(t)
        e = ed.DistributedSampler(ds, replicas, rank, shuffle=True, seed=4,
                                  drop_last=drop_last)
        t = td.DistributedSampler(ds, replicas, rank, shuffle=True, seed=4,
                                  drop_last=drop_last)
        assert len(e) == len(t) == len(list(e))
        shares.append(list(e))
    flat = sorted(i for s in shares for i in s)
    assert set(flat) == set(range(n)) or drop_last


def test_distributed_sampler_epochs_and_refusals():
    s = ed.DistributedSampler(range(20), num_replicas=2, rank=0, seed=1)
    a = list(s)
    s.set_epoch(1)
    b = list(s)
    assert a != b and list(ed.DistributedSampler(range(20), num_replicas=2, rank=0,
                                                 seed=1)) == a
    assert isinstance(s, ed.Sampler) and s.dataset == range(20)
    with pytest.raises(ValueError):
        td.DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(InvalidParameterError):
        ed.DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(InvalidParameterError):
        ed.DistributedSampler(range(4), num_replicas=2, rank=-1)


def test_distributed_sampler_reads_the_process_group():
    import ember.distributed as dist
    if not dist.is_available():
        pytest.skip("torch.distributed is not available")
    dist.init_process_group(rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    try:
        s = ed.DistributedSampler(range(5), shuffle=False)
        assert (s.num_replicas, s.rank, list(s)) == (1, 0, [0, 1, 2, 3, 4])
    finally:
        dist.destroy_process_group()


def test_the_namespace_holds_torch_utils_data_names():
    import ember.torch.utils.data as mod
    wanted = [n for n in td.__all__ if not n.startswith("_") and "DataPipe" not in n
              and n not in ("DataChunk", "argument_validation", "functional_datapipe",
                            "guaranteed_datapipes_determinism", "non_deterministic",
                            "runtime_validation", "runtime_validation_disabled")]
    missing = [n for n in wanted if not hasattr(mod, n)]
    assert missing == [] and len(wanted) == 19
    from ember.torch.utils.data import DataLoader  # noqa: F401
    assert et.utils.data is mod and os.path.basename(mod.__file__) == "__init__.py"
