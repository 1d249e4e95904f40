"""The NumPy backend's buffer pool (ember/backends/numpy/buffers.py, jit/pool.c): a NumPy memory
handler that caches large blocks for reuse, bounded, emptied on request.

NumPy's handler belongs to a context, so each test installs the pool in a context of its own
(``contextvars.Context().run``) and compares with an empty context, which has NumPy's own
allocator whatever the main thread uses.
"""

import contextvars
import doctest
import os
import resource
import subprocess
import sys
import threading

import numpy as np
import pytest

import ember
from ember import nn, optim
from ember.backends.numpy import buffers as pool
from ember.errors import InvalidParameterError
from ember.nn import functional as F

pytestmark = pytest.mark.numpy_only

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MiB = 1 << 20
_WHO = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)


def _configure():
    """Apply the environment's settings and ``MIN_BYTES`` to the pool again (installing it in a
    throwaway context)."""
    contextvars.Context().run(pool._module(build=False).install, *pool._settings())


@pytest.fixture
def pooled(monkeypatch):
    """A context whose NumPy allocator is the pool (compiled on this thread if needed; also in
    the suite's EMBER_JIT=0 run, as tests/backends/test_jit.py does)."""
    monkeypatch.setenv("EMBER_JIT", "sync")
    if not pool.enabled():
        pytest.skip("no C compiler here, or EMBER_JIT=0 / EMBER_POOL_BYTES=0")
    context = contextvars.Context()
    assert context.run(pool.install)
    assert context.run(pool.stats)["installed"]
    yield context
    pool.release()


def _faults(fn, *args):
    before = resource.getrusage(_WHO).ru_minflt
    fn(*args)
    return resource.getrusage(_WHO).ru_minflt - before


def _two_large_temporaries(steps):
    for _ in range(steps):
        a = np.empty(16 * MiB // 4, np.float32)
        a.fill(1.0)
        b = np.empty_like(a)
        b.fill(2.0)
        del a, b


_FAULTS = """
import resource
import numpy as np
from ember.backends.numpy import buffers as pool
print(pool.install(), end=" ")
MiB = 1 << 20
def steps(n):
    for _ in range(n):
        a = np.empty(16 * MiB // 4, np.float32)
        a.fill(1.0)
        b = np.empty_like(a)
        b.fill(2.0)
        del a, b
steps(1)
who = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)
before = resource.getrusage(who).ru_minflt
steps(50)
print(resource.getrusage(who).ru_minflt - before)
"""


def _faults_in_a_process(env):
    out = subprocess.run([sys.executable, "-c", _FAULTS], env={**os.environ, **env}, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    installed, faults = out.stdout.split()
    return installed, int(faults)


def test_reused_blocks_fault_far_less(pooled):
    # in the same process, NumPy's allocator may reuse its heap or not depending on what ran
    # before; a fresh process each gives both the same start
    env = {"PYTHONPATH": ROOT, "EMBER_JIT": "1"}
    installed, with_pool = _faults_in_a_process(env)
    assert installed == "True"
    installed, without = _faults_in_a_process({**env, "EMBER_POOL_BYTES": "0"})
    assert installed == "False"
    assert without > 1000  # fresh pages every step: 16 MiB is 4096 of them
    assert with_pool < without / 4

    # and here: after the first step, every request is a hit and nothing faults
    pooled.run(_two_large_temporaries, 1)
    before = pool.stats()
    faults = _faults(pooled.run, _two_large_temporaries, 50)
    after = pool.stats()
    assert after["hits"] - before["hits"] == 100
    assert after["misses"] == before["misses"]
    assert faults < 1000


def test_zeros_after_ones_reuse_a_block_and_are_zero(pooled):
    def run():
        a = np.ones(1_000_000)        # 8 MB: the 8 MiB class
        del a
        hits = pool.stats()["hits"]
        z = np.zeros(990_000)          # the same class: the block of ``a``, cleared
        assert pool.stats()["hits"] == hits + 1
        np.testing.assert_array_equal(z, np.zeros(990_000))
        e = np.empty(990_000)
        del e
        c = np.zeros((3, 330_000), np.float64)
        assert not c.any()
    pooled.run(run)


def test_blocks_hold_their_values_through_reuse_and_resize(pooled):
    def run():
        a = np.arange(100_000.0)              # 800 kB: a pool block
        a.resize(250_000, refcheck=False)     # another class: moved, values kept
        np.testing.assert_array_equal(a[:100_000], np.arange(100_000.0))
        assert not a[100_000:].any()          # ndarray.resize zero-fills the new part
        a.resize(1_000, refcheck=False)       # below the pool's size: back to NumPy's allocator
        np.testing.assert_array_equal(a, np.arange(1_000.0))
        a.resize(300_000, refcheck=False)     # NumPy's block grows past the pool's size
        np.testing.assert_array_equal(a[:1_000], np.arange(1_000.0))
        a.resize(290_000, refcheck=False)     # within its class
        np.testing.assert_array_equal(a[:1_000], np.arange(1_000.0))
        b = np.frombuffer(np.arange(70_000, dtype=np.int64).tobytes(), np.int64).copy()
        np.testing.assert_array_equal(b, np.arange(70_000))
    pooled.run(run)


def test_the_bound_holds_and_release_empties_the_cache(pooled, monkeypatch):
    monkeypatch.setenv("EMBER_POOL_BYTES", "20M")
    try:
        pooled.run(pool.install)
        assert pool.stats()["limit"] == 20 * MiB

        def run():
            arrays = [np.ones(MiB) for _ in range(4)]   # 8 MiB each
            released = pool.stats()["released_bytes"]
            del arrays
            got = pool.stats()
            assert got["cached_bytes"] <= got["limit"]
            assert got["cached_blocks"] == 2            # two fit under 20 MiB
            assert got["released_bytes"] - released == 16 * MiB
        pooled.run(run)
        assert pool.release() == 16 * MiB
        got = pool.stats()
        assert got["cached_bytes"] == 0 and got["cached_blocks"] == 0
        assert pool.release() == 0
    finally:
        monkeypatch.delenv("EMBER_POOL_BYTES")
        _configure()
        assert pool.stats()["limit"] == pool.limit()


def _mlp_losses(steps=4):
    """A small MLP trained with Adam: its losses and final weights."""
    rng = np.random.default_rng(0)
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = optim.Adam(model.parameters(), lr=1e-3)
    x = ember.tensor(rng.standard_normal((256, 256), dtype=np.float32))
    y = ember.tensor(rng.integers(0, 10, 256))
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, {k: v.numpy().copy() for k, v in model.state_dict().items()}


def test_training_values_are_identical_with_and_without_the_pool(pooled, monkeypatch):
    least = pool.MIN_BYTES
    monkeypatch.setattr(pool, "MIN_BYTES", 4096)  # most of the step's arrays in the pool
    pooled.run(pool.install)
    try:
        assert pool.stats()["min_bytes"] == 4096
        hits = pool.stats()["hits"]
        losses, weights = pooled.run(_mlp_losses)
        assert pool.stats()["hits"] > hits
        plain_losses, plain_weights = contextvars.Context().run(_mlp_losses)
    finally:
        monkeypatch.setattr(pool, "MIN_BYTES", least)
        _configure()
    assert losses == plain_losses
    assert losses[-1] < losses[0]
    for name, value in plain_weights.items():
        np.testing.assert_array_equal(weights[name], value)


def test_threads_hammering_allocations(pooled):
    errors = []
    shared = []

    def hammer(seed):
        try:
            contextvars.Context().run(work, seed)
        except Exception as exc:  # reported below: a thread's exception would be lost
            errors.append(exc)

    def work(seed):
        pool.install()
        rng = np.random.default_rng(seed)
        for i in range(200):
            n = int(rng.integers(1, 400_000))
            a = np.full(n, float(seed), np.float32)
            b = np.zeros(n // 2 + 1, np.float64)
            if i % 7 == 0:
                a.resize(n + 50_000, refcheck=False)
            assert (a[:n] == seed).all() and not b.any()
            if i % 10 == 0:
                shared.append(a)        # freed later by another thread
            elif shared and i % 5 == 0:
                shared.pop()

    threads = [threading.Thread(target=hammer, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shared.clear()
    assert errors == []
    got = pool.stats()
    assert got["cached_bytes"] <= got["limit"]


def _installed_at_import(env):
    code = ("from ember.backends.numpy import buffers as pool; import numpy as np; a = np.ones(1 << 20); "
            "del a; s = pool.stats(); print(s['installed'], s['hits'] + s['misses'] > 0)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_installed_at_import_once_compiled_and_zero_bytes_turns_it_off(pooled):
    env = {"PYTHONPATH": ROOT, "EMBER_JIT": "1"}
    assert _installed_at_import(env) == ["True", "True"]   # compiled already (the fixture)
    assert _installed_at_import({**env, "EMBER_POOL_BYTES": "0"}) == ["False", "False"]
    assert _installed_at_import({**env, "EMBER_JIT": "0"}) == ["False", "False"]


def test_zero_bytes_or_no_compiling_leaves_numpy_alone(monkeypatch):
    monkeypatch.setenv("EMBER_POOL_BYTES", "0")
    assert not pool.enabled()
    assert contextvars.Context().run(pool.install) is False
    monkeypatch.setenv("EMBER_POOL_BYTES", "1G")
    monkeypatch.setenv("EMBER_JIT", "0")
    assert not pool.enabled()
    assert contextvars.Context().run(pool.install) is False


@pytest.mark.parametrize("text, expected", [("0", 0), ("4096", 4096), ("512M", 512 * MiB),
                                            ("2G", 2 << 30), ("64KiB", 64 << 10)])
def test_limit_reads_the_environment(monkeypatch, text, expected):
    monkeypatch.setenv("EMBER_POOL_BYTES", text)
    assert pool.limit() == expected


def test_limit_defaults_to_at_most_a_gibibyte(monkeypatch):
    monkeypatch.delenv("EMBER_POOL_BYTES", raising=False)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert pool.limit() == min(1 << 30, memory // 8)


@pytest.mark.parametrize("text", ["-1", "lots", "1.5G", "12 parsecs"])
def test_a_bad_limit_raises_naming_the_variable(monkeypatch, text):
    monkeypatch.setenv("EMBER_POOL_BYTES", text)
    with pytest.raises(InvalidParameterError, match="EMBER_POOL_BYTES") as info:
        pool.limit()
    assert info.value.param == "EMBER_POOL_BYTES"


def test_module_doctests():
    result = contextvars.Context().run(doctest.testmod, pool)  # its install() stays in there
    assert result.attempted > 0 and result.failed == 0
