"""Memory of autodiff: backward frees each step's saved arrays as soon as the step is used, and a
long training loop does not grow.

NumPy reports its array buffers to tracemalloc (domain ``numpy.lib.tracemalloc_domain``), so the
sizes below are those of the arrays themselves. The chains use 1 MiB arrays, so the few hundred
bytes of Python objects around them do not matter.
"""

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import nn, optim
from ember.autodiff.graph import Node
from ember._tensor import record

MIB = 2 ** 20
N = MIB // 8  # float64 elements in 1 MiB
DEPTH = 40

# ops of several families; each saves its input or its output (or both) for backward
CHAIN = [
    lambda y: y.sin(),
    lambda y: y.tanh(),
    lambda y: y * y,
    lambda y: y.sigmoid(),
    lambda y: y.exp(),
    lambda y: F.softmax(y.reshape(256, -1), dim=1).reshape(-1),
    lambda y: y.cumprod(0),
    lambda y: y.sort(0),
    lambda y: y.clamp(-0.9, 0.9),
    lambda y: y.max_pair(y.flip(0)),
]


def numpy_bytes():
    """Bytes of NumPy buffers alive now (tracemalloc's NumPy domain)."""
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.DomainFilter(True, np.lib.tracemalloc_domain)])
    return sum(stat.size for stat in snap.statistics("filename"))


def probe(t, on_backward):
    """An identity step whose backward calls ``on_backward()`` (to look inside a backward)."""
    def backward(g, needs, out):
        on_backward()
        return (g,)
    return record(t._data, t._dtype, (t,), backward, "probe")


@pytest.fixture
def traced():
    gc.collect()
    tracemalloc.start()
    yield
    tracemalloc.stop()


def test_saved_arrays_are_freed_step_by_step():
    rng = np.random.default_rng(0)
    x = ember.from_numpy(rng.uniform(-1, 1, 4096)).require_grad()
    refs = []
    alive_at_probe = []
    y = x
    mid = DEPTH // 2
    for k in range(DEPTH):
        y = CHAIN[k % len(CHAIN)](y)
        refs.append(weakref.ref(y._data))
        if k == mid:
            y = probe(y, lambda: alive_at_probe.extend(r() is not None for r in refs))
    loss = y.sum()
    del y
    gc.collect()
    # before backward, the graph keeps the results that its steps saved (tanh, sigmoid and exp
    # save their result; y * y saves its input, tanh's result) and no others of the first
    # five ops: sin's result feeds tanh and y * y's feeds sigmoid, which save their results
    saving = [k for k in range(DEPTH) if k % len(CHAIN) in (1, 3, 4)]
    assert all(refs[k]() is not None for k in saving)
    assert all(refs[k]() is None for k in range(DEPTH) if k % len(CHAIN) in (0, 2))
    loss.backward()
    # when backward reached the middle, the results of the steps it had used were gone ...
    assert alive_at_probe[mid + 1:] == [False] * (DEPTH - mid - 1)
    # ... while the steps still ahead kept theirs
    assert all(alive_at_probe[k] for k in saving if k <= mid)
    # and after backward nothing is kept, not even by the consumed graph that loss still holds
    gc.collect()
    assert [k for k, r in enumerate(refs) if r() is not None] == []
    assert x.grad is not None and x.grad.shape == (4096,)
    assert loss._node.consumed and loss._node.backward is None


# tracemalloc sees NumPy's buffers only (torch's CPU allocator does not report to it); that
# backward frees each step's saved arrays is checked on every backend by
# test_saved_arrays_are_freed_step_by_step (weak references to the arrays)
@pytest.mark.numpy_only
def test_backward_memory_falls_as_it_goes(traced):
    rng = np.random.default_rng(1)
    x = ember.from_numpy(rng.uniform(-1, 1, N)).require_grad()
    base = numpy_bytes()
    at_probe = []
    y = x
    for k in range(DEPTH):
        y = CHAIN[k % 5](y)  # elementwise steps: each saves 1-2 arrays of 1 MiB
        if k == DEPTH // 2:
            y = probe(y, lambda: at_probe.append(tracemalloc.get_traced_memory()[0]))
    loss = y.sum()
    del y
    gc.collect()
    saved = numpy_bytes() - base
    start = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1]
    del loss
    gc.collect()
    after = numpy_bytes() - base
    # the graph saved the results of tanh, sigmoid and exp (sin and y * y save their inputs,
    # the results of exp and tanh): three arrays of every five steps
    assert saved >= (3 * DEPTH // 5 - 1) * MIB
    # halfway through backward, the saved arrays of the used half are freed
    freed_by_mid = start - at_probe[0]
    assert freed_by_mid >= 0.4 * saved, (freed_by_mid, saved)
    # backward never needs more than a few arrays beyond what the graph already held
    assert peak - start <= 4 * MIB, (peak - start) / MIB
    # afterwards only x.grad (1 MiB) remains
    assert after <= 1.1 * MIB, after / MIB


# tracemalloc sees NumPy's buffers only (torch's CPU allocator does not report to it); that
# backward frees each step's saved arrays is checked on every backend by
# test_saved_arrays_are_freed_step_by_step (weak references to the arrays)
@pytest.mark.numpy_only
def test_backward_of_a_wide_graph_frees_branches(traced):
    """Many branches off one input: each branch's saved arrays go once the branch is used."""
    rng = np.random.default_rng(2)
    x = ember.from_numpy(rng.uniform(-1, 1, N)).require_grad()
    base = numpy_bytes()
    total = None
    for k in range(12):
        branch = CHAIN[k % 5](x * float(k + 1))
        total = branch if total is None else total + branch
    loss = total.sum()
    del total, branch
    gc.collect()
    saved = numpy_bytes() - base
    start = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1]
    del loss
    gc.collect()
    assert saved >= 12 * MIB
    assert peak - start <= 4 * MIB, (peak - start) / MIB
    assert numpy_bytes() - base <= 1.1 * MIB


# traced bytes a device's library keeps in caches of its own that a training loop's first steps
# have not filled yet: JAX's conversions of its arrays to Python numbers (loss.item(), the
# targets' bounds) fill about 9.5 KB, measured as the same after 3,000 and after 30,000 of them
LIBRARY_CACHE_BYTES = {"xp:jax": 16 * 1024}


def _live_graph_objects():
    gc.collect()
    objs = gc.get_objects()
    return (sum(type(o) is ember.Tensor for o in objs), sum(type(o) is Node for o in objs))


def test_training_loop_does_not_grow(traced):
    ember.manual_seed(0)
    rng = np.random.default_rng(3)
    x = ember.tensor(rng.standard_normal((64, 8)), dtype="float32")
    y = ember.tensor(rng.integers(0, 3, 64))
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.Tanh(),
                          nn.Linear(32, 3))
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    marks = {}
    first = last = None
    cyclic = None
    try:
        for step in range(1, 301):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            last = loss.item()
            first = last if first is None else first
            if step in (50, 300):
                del loss
                if step == 300:
                    cyclic = gc.collect()  # what steps 51..300 left to the cycle collector
                gc.collect()
                traced_now = tracemalloc.get_traced_memory()[0]
                marks[step] = (traced_now, numpy_bytes(), _live_graph_objects())
                gc.disable()  # from here on, only reference counting frees memory
    finally:
        gc.enable()
    assert last < first  # it trains
    all_50, np_50, objs_50 = marks[50]
    all_300, np_300, objs_300 = marks[300]
    assert cyclic == 0  # no reference cycles: each step's graph went as soon as it was dropped
    assert np_300 - np_50 <= 1024, (np_50, np_300)          # NumPy buffers: no growth
    cache = LIBRARY_CACHE_BYTES.get(ember.get_default_device().name, 0)
    assert all_300 - all_50 <= 16 * 1024 + cache, (all_50, all_300)  # everything traced: no growth
    assert objs_300 == objs_50                               # the same live Tensors and Nodes


@pytest.mark.parametrize("cut", [lambda y: y.split(3, dim=1), lambda y: y.chunk(2, dim=0),
                                 lambda y: y.unbind(1), lambda y: list(y.iter_dim(0))],
                         ids=["split", "chunk", "unbind", "iter_dim"])
def test_dropped_parts_free_the_graph_at_once(cut):
    """Regression: the parts of a split shared a step that formed a reference cycle, so a graph
    through split/chunk/unbind (and the arrays its steps saved) stayed alive after the parts
    were dropped, until the cycle collector happened to run."""
    rng = np.random.default_rng(4)
    x = ember.from_numpy(rng.standard_normal((4, 6))).require_grad()
    gc.collect()
    gc.disable()
    try:
        y = x.exp()  # saves its result
        saved = weakref.ref(y._data)
        parts = cut(y)
        del y
        alive = saved() is not None  # (no array in an assert: pytest would keep it alive)
        assert alive
        del parts  # no backward: reference counting alone must free the graph
        alive = saved() is not None
        assert not alive
        y = x.exp()
        saved = weakref.ref(y._data)
        parts = cut(y)
        del y
        total = None
        for p in parts:
            total = p.sum() if total is None else total + p.sum()
        total.backward()
        del parts, total, p
        alive = saved() is not None
        assert not alive
        assert gc.collect() == 0
    finally:
        gc.enable()
