"""ember.torch.utils.data.DataLoader against torch.utils.data.DataLoader: the same batches
(structure, dtype, shape, values) where the order is deterministic, the same len() and the
same refusals; worker processes give num_workers=0's batches, their errors and deaths come
back as typed errors within a bound, and they end (by PID) with their iterator. Every test is
bounded in time (SIGALRM) and uses small datasets."""

import collections
import os
import signal
import time

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import EmberError, InvalidParameterError
from ember.torch.utils import data as ed
from torch.utils import data as td

from test_torch_data import same

DEVICE = ember.get_default_device()
Pair = collections.namedtuple("Pair", ["a", "b"])


@pytest.fixture(autouse=True)
def bounded():
    """No test may run past 60 s: a hang fails the test instead of the run."""
    def _expired(signum, frame):
        raise TimeoutError("the test ran past its 60 s bound")
    old = signal.signal(signal.SIGALRM, _expired)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def gone(pid):
    """Whether no process ``pid`` is left (ended and reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:  # a zombie is ended but not reaped
        return f.read().split(")")[-1].split()[0] == "Z"


class Samples:
    """A map-style dataset of mixed samples: arrays, numbers, strings, dicts, named tuples."""

    def __init__(self, n=11):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        r = np.random.default_rng(i)
        return {"x": r.standard_normal((2, 3)).astype(np.float32), "label": i % 3,
                "w": float(i) / 4, "name": f"s{i}",
                "pair": Pair(np.arange(i, i + 2), bool(i % 2))}


class Raising(Samples):
    def __getitem__(self, i):
        if i == 5:
            raise KeyError(f"no sample {i}")
        return super().__getitem__(i)


class RaisingEmber(Samples):
    def __getitem__(self, i):
        if i == 2:
            raise InvalidParameterError("bad sample", "i", i)
        return super().__getitem__(i)


class Exiting(Samples):
    def __getitem__(self, i):
        if i == 6:
            os._exit(7)
        return super().__getitem__(i)


class Killed(Samples):
    def __getitem__(self, i):
        if i == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__getitem__(i)


class Sleeping(Samples):
    def __getitem__(self, i):
        if i >= 4:
            time.sleep(30)
        return super().__getitem__(i)


class WorkerIds(Samples):
    def __getitem__(self, i):
        info = ed.get_worker_info()
        return np.array([info.id, info.num_workers, info.seed % 1000, np.random.randint(1 << 30)])


class Stream(ed.IterableDataset):
    """0..n-1, each worker taking every num_workers-th item (PyTorch's documented pattern)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = ed.get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


class TStream(td.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = td.get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


def init_fn(worker_id):
    info = ed.get_worker_info()
    info.dataset.start = 100 * (worker_id + 1)


class Started(Samples):
    start = 0

    def __getitem__(self, i):
        return self.start + i


def batches(loader):
    return list(loader)


# -- the same batches as PyTorch -----------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {}, {"batch_size": 4}, {"batch_size": 4, "drop_last": True}, {"batch_size": 11},
    {"batch_size": 20}, {"batch_size": None},
    {"sampler": [10, 0, 3, 3, 7], "batch_size": 2},
    {"batch_sampler": [[1, 2], [9], [0, 4, 8]]},
    {"batch_size": 3, "collate_fn": lambda b: [s["label"] for s in b]},
], ids=lambda k: ",".join(sorted(k)) or "default")
def test_sequential_loaders_give_torch_s_batches(kwargs):
    ds = Samples()
    e = batches(ed.DataLoader(ds, **kwargs))
    t = batches(td.DataLoader(ds, **kwargs))
    same(e, t)
    assert len(ed.DataLoader(ds, **kwargs)) == len(td.DataLoader(ds, **kwargs)) or \
        "sampler" in kwargs


def test_tensor_dataset_loader_gives_torch_s_batches():
    x = np.random.default_rng(1).standard_normal((10, 3)).astype(np.float32)
    y = np.arange(10)
    e = ed.DataLoader(ed.TensorDataset(et.tensor(x), et.tensor(y)), batch_size=4)
    t = td.DataLoader(td.TensorDataset(torch.tensor(x), torch.tensor(y)), batch_size=4)
    same(batches(e), batches(t))
    for xb, yb in e:
        assert isinstance(xb, et.Tensor) and xb.device == DEVICE
        assert xb.argmax(1).shape == (len(yb),)  # PyTorch's method meanings


@pytest.mark.parametrize("kwargs", [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                                    {"batch_size": None}], ids=str)
def test_iterable_dataset_loaders_give_torch_s_batches(kwargs):
    e, t = ed.DataLoader(Stream(8), **kwargs), td.DataLoader(TStream(8), **kwargs)
    same(batches(e), batches(t))
    assert len(e) == len(t)


@pytest.mark.parametrize("kwargs", [{"batch_size": 3}, {"batch_size": 2, "drop_last": True},
                                    {"batch_size": None}], ids=str)
def test_iterable_dataset_with_workers_gives_torch_s_order(kwargs):
    e = ed.DataLoader(Stream(9), num_workers=2, **kwargs)
    t = td.DataLoader(TStream(9), num_workers=2, **kwargs)
    same(batches(e), batches(t))


def test_len_matches_torch():
    for kwargs in ({}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                   {"batch_size": 100}, {"batch_size": None}):
        assert len(ed.DataLoader(Samples(), **kwargs)) == len(td.DataLoader(Samples(),
                                                                             **kwargs))
        assert len(ed.DataLoader(Stream(7), **kwargs)) == len(td.DataLoader(TStream(7),
                                                                             **kwargs))


# -- refusals ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {"batch_size": 0}, {"batch_size": -1}, {"batch_size": 2.5},
    {"shuffle": True, "sampler": [0, 1]},
    {"batch_sampler": [[0]], "batch_size": 2}, {"batch_sampler": [[0]], "shuffle": True},
    {"batch_sampler": [[0]], "sampler": [0]}, {"batch_sampler": [[0]], "drop_last": True},
    {"batch_size": None, "drop_last": True}, {"num_workers": -1}, {"timeout": -1},
    {"prefetch_factor": 2}, {"persistent_workers": True},
    {"num_workers": 1, "prefetch_factor": -1}, {"num_workers": 1, "multiprocessing_context":
                                                "no-such-method"},
    {"multiprocessing_context": "fork"}, {"batch_size": 2, "drop_last": 1},
], ids=str)
def test_refusals_match_torch(kwargs):
    with pytest.raises(ValueError):
        td.DataLoader(Samples(), **kwargs)
    with pytest.raises(InvalidParameterError):
        ed.DataLoader(Samples(), **kwargs)


@pytest.mark.parametrize("kwargs", [{"shuffle": True}, {"sampler": [0]},
                                    {"batch_sampler": [[0]]}], ids=str)
def test_iterable_dataset_refusals_match_torch(kwargs):
    with pytest.raises(ValueError):
        td.DataLoader(TStream(3), **kwargs)
    with pytest.raises(InvalidParameterError):
        ed.DataLoader(Stream(3), **kwargs)


def test_attributes_are_frozen_as_in_torch():
    loader = ed.DataLoader(Samples(), batch_size=2)
    with pytest.raises(ValueError):
        td.DataLoader(Samples()).batch_size = 3
    with pytest.raises(InvalidParameterError):
        loader.batch_size = 3
    loader.num_workers = 0  # not frozen in PyTorch either
    assert loader.batch_size == 2


def test_other_refusals_are_typed():
    for kwargs in ({"generator": np.random.default_rng(0)}, {"collate_fn": 3},
                   {"worker_init_fn": "f"}, {"num_workers": 1, "prefetch_factor": 0},
                   {"num_workers": True}):
        with pytest.raises(InvalidParameterError):
            ed.DataLoader(Samples(), **kwargs)
    with pytest.raises(InvalidParameterError):  # an empty dataset cannot be shuffled
        ed.DataLoader([], shuffle=True)


# -- shuffling -----------------------------------------------------------------------------------

def labels(loader):
    return [b["label"].tolist() + [b["name"]] for b in loader]


def test_shuffle_repeats_with_the_seed_and_covers_the_dataset():
    ember.manual_seed(0)
    a = labels(ed.DataLoader(Samples(), batch_size=3, shuffle=True))
    b = labels(ed.DataLoader(Samples(), batch_size=3, shuffle=True))
    ember.manual_seed(0)
    assert labels(ed.DataLoader(Samples(), batch_size=3, shuffle=True)) == a != b
    names = sorted(n for batch in a for n in batch[-1])
    assert names == sorted(f"s{i}" for i in range(11))
    g = et.Generator().manual_seed(9)
    c = labels(ed.DataLoader(Samples(), batch_size=3, shuffle=True, generator=g))
    g.manual_seed(9)
    assert labels(ed.DataLoader(Samples(), batch_size=3, shuffle=True, generator=g)) == c


# -- worker processes ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {"batch_size": 3}, {"batch_size": 4, "drop_last": True}, {"batch_size": None},
    {"batch_size": 2, "prefetch_factor": 1}, {"batch_sampler": [[3, 1], [0], [2, 9, 8, 7]]},
], ids=str)
def test_workers_give_the_batches_of_the_main_process(kwargs):
    main = batches(ed.DataLoader(Samples(), **{k: v for k, v in kwargs.items()
                                               if k != "prefetch_factor"}))
    same(batches(ed.DataLoader(Samples(), num_workers=2, **kwargs)), batches(
        td.DataLoader(Samples(), num_workers=0, **{k: v for k, v in kwargs.items()
                                                   if k != "prefetch_factor"})))
    with_workers = batches(ed.DataLoader(Samples(), num_workers=2, **kwargs))
    assert labels_of(with_workers) == labels_of(main)


def labels_of(bs):
    return [[np.asarray(b["x"].numpy()).tolist(), b["name"]] if isinstance(b, dict) else b
            for b in bs]


def test_shuffled_workers_follow_the_seed_like_the_main_process():
    ember.manual_seed(4)
    main = labels(ed.DataLoader(Samples(), batch_size=3, shuffle=True))
    ember.manual_seed(4)
    assert labels(ed.DataLoader(Samples(), batch_size=3, shuffle=True, num_workers=2)) == main


def test_worker_info_seeds_and_init_fn():
    out = ed.DataLoader(WorkerIds(6), batch_size=1, num_workers=2, generator=et.Generator()
                        .manual_seed(1))
    rows = [b[0].tolist() for b in out]
    assert [r[0] for r in rows] == [0, 1, 0, 1, 0, 1] and {r[1] for r in rows} == {2}
    assert rows[0][2] != rows[1][2]  # base seed + worker id
    assert rows[0][3] != rows[1][3]  # NumPy's global generator is seeded per worker
    assert ed.get_worker_info() is None
    got = [b.tolist() for b in ed.DataLoader(Started(4), batch_size=1, num_workers=2,
                                             worker_init_fn=init_fn)]
    assert got == [[100], [201], [102], [203]]


def test_a_raising_worker_gives_a_typed_error_with_its_traceback():
    it = iter(ed.DataLoader(Raising(), batch_size=2, num_workers=2))
    got = [next(it)["name"], next(it)["name"]]
    with pytest.raises(ed.WorkerError) as info:
        next(it)
    err = info.value
    assert isinstance(err, KeyError) and isinstance(err, EmberError)
    assert "Caught KeyError in DataLoader worker process 0" in str(err)
    assert "no sample 5" in err.worker_traceback and "__getitem__" in err.worker_traceback
    assert err.worker_id == 0
    # as in PyTorch, the iterator goes on with the batches after the failed one
    got += [b["name"] for b in it]
    assert got == [["s0", "s1"], ["s2", "s3"], ["s6", "s7"], ["s8", "s9"], ["s10"]]
    assert gone(err.pid)
    with pytest.raises(InvalidParameterError, match="bad sample"):
        batches(ed.DataLoader(RaisingEmber(), batch_size=2, num_workers=2))


def test_a_raising_worker_init_fn_is_reported():
    def bad_init(worker_id):
        raise ValueError(f"init {worker_id}")
    with pytest.raises(ValueError, match="init 0"):
        batches(ed.DataLoader(Samples(), num_workers=1, worker_init_fn=bad_init))


@pytest.mark.parametrize("dataset, text", [(Exiting(), "exit code 7"), (Killed(), "SIGKILL")],
                         ids=["os._exit", "SIGKILL"])
def test_a_dying_worker_gives_a_typed_error_not_a_hang(dataset, text):
    start = time.monotonic()
    loader = ed.DataLoader(dataset, batch_size=2, num_workers=2)
    with pytest.raises(ed.WorkerError, match=text) as info:
        batches(loader)
    assert time.monotonic() - start < 10
    assert gone(info.value.pid)


def test_timeout_is_honoured():
    start = time.monotonic()
    with pytest.raises(ed.WorkerTimeoutError, match="timed out after 0.5 seconds") as info:
        batches(ed.DataLoader(Sleeping(), batch_size=2, num_workers=2, timeout=0.5))
    assert isinstance(info.value, ed.WorkerError) and isinstance(info.value, RuntimeError)
    assert time.monotonic() - start < 10


def test_workers_end_when_the_iterator_is_exhausted_or_deleted():
    it = iter(ed.DataLoader(Samples(), batch_size=2, num_workers=2))
    pids = [w.process.pid for w in it._workers]
    assert not any(gone(p) for p in pids)
    batches(it)
    assert all(gone(p) for p in pids)
    it = iter(ed.DataLoader(Samples(), batch_size=2, num_workers=2))
    next(it)
    pids = [w.process.pid for w in it._workers]
    del it
    assert all(gone(p) for p in pids)


def test_persistent_workers_serve_every_epoch_and_end_with_the_loader():
    loader = ed.DataLoader(Samples(), batch_size=3, num_workers=2, persistent_workers=True)
    expected = labels(ed.DataLoader(Samples(), batch_size=3))
    first = labels(loader)
    pids = [w.process.pid for w in loader._iterator._workers]
    it = iter(loader)
    next(it)  # an epoch left early: its prefetched batches are dropped
    assert labels(loader) == first == expected
    assert [w.process.pid for w in loader._iterator._workers] == pids
    assert not any(gone(p) for p in pids)
    stream = ed.DataLoader(Stream(5), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in stream] == [b.tolist() for b in stream] == [[0, 2], [1, 3],
                                                                            [4]]
    del loader, it, stream
    import gc
    gc.collect()
    assert all(gone(p) for p in pids)


def test_spawned_workers_give_the_same_batches():
    kwargs = {"batch_size": 4}
    spawned = batches(ed.DataLoader(Samples(6), num_workers=1, multiprocessing_context="spawn",
                                    **kwargs))
    same(spawned, batches(td.DataLoader(Samples(6), **kwargs)))


def test_a_dataset_spawn_cannot_send_is_refused_with_a_typed_error():
    class Local(Samples):
        pass
    with pytest.raises(InvalidParameterError, match="cannot be sent to a worker"):
        next(iter(ed.DataLoader(Local(2), num_workers=1, multiprocessing_context="spawn")))


def test_pin_memory_and_in_order_are_accepted():
    got = batches(ed.DataLoader(Samples(4), batch_size=2, pin_memory=True, in_order=False))
    same(got, batches(td.DataLoader(Samples(4), batch_size=2)))


def test_workers_build_on_the_host_where_the_device_cannot_fork():
    # XLA's thread pools do not survive a fork: on xp:jax a forked worker would deadlock, so
    # workers build on the host and the batches arrive on JAX all the same
    pytest.importorskip("jax")
    jax_device = ember.Device("xp:jax")
    assert not jax_device.backend.survives_fork and ember.Device("cpu").backend.survives_fork
    before = ember.get_default_device()
    ember.set_default_device(jax_device)
    try:
        got = list(ed.DataLoader(Started(6), batch_size=3, num_workers=2))
    finally:
        ember.set_default_device(before)
    assert [b.tolist() for b in got] == [[0, 1, 2], [3, 4, 5]]
    assert all(b.device == jax_device for b in got)
