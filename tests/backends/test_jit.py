"""The NumPy backend's compiler of C kernels (ember/backends/numpy/jit): compiles with the system
compiler, caches on disk, compiles in the background, and gives None (the NumPy path) when
compiling is off or fails."""

import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

from ember.backends.numpy import jit
from ember.backends.numpy.jit import compiler

pytestmark = pytest.mark.numpy_only

needs_cc = pytest.mark.skipif(compiler._find_compiler() is None, reason="no C compiler here")


def _scale_source(name, tag=""):
    return jit.PRELUDE + f"""/* {tag} */
EMBER_EXPORT void {name}(char **p, const int64_t *n, const double *f) {{
    const double *x = (const double *)p[0];
    double *out = (double *)p[1];
    for (int64_t i = 0; i < n[0]; i++) out[i] = f[0] * x[i] + (double)n[1];
}}"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_JIT_CACHE", str(tmp_path))
    return tmp_path


@needs_cc
def test_sync_compile_runs_the_kernel(cache, monkeypatch):
    monkeypatch.setenv("EMBER_JIT", "sync")
    source = _scale_source("scale", "sync")
    k = jit.kernel("scale", source)
    x = np.array([1.0, -2.0, np.inf, np.nan])
    out = np.zeros(4)
    k((x, out), (4, 3), (2.0,))
    np.testing.assert_array_equal(out, [5.0, -1.0, np.inf, np.nan])
    assert os.path.dirname(compiler._so_path(source)) == str(cache)
    assert os.path.exists(compiler._so_path(source))  # cached on disk


@needs_cc
def test_background_compile_serves_none_then_the_kernel(cache, monkeypatch):
    monkeypatch.setenv("EMBER_JIT", "1")
    source = _scale_source("scale", "background")
    assert jit.kernel("scale", source) is None  # compiling: the caller takes its NumPy path
    jit.wait(60)
    k = jit.kernel("scale", source)
    out = np.zeros(2)
    k((np.array([1.0, 2.0]), out), (2, 0), (-1.0,))
    assert out.tolist() == [-1.0, -2.0]


@needs_cc
def test_a_cached_object_loads_without_compiling(cache, monkeypatch):
    monkeypatch.setenv("EMBER_JIT", "sync")
    source = _scale_source("scale", "disk")
    jit.kernel("scale", source)
    compiler._kernels.clear()  # as in a new process: only the disk cache is left
    monkeypatch.setenv("EMBER_JIT", "1")
    monkeypatch.setattr(compiler, "_compile", lambda *a, **k: pytest.fail("compiled again"))
    k = jit.kernel("scale", source)
    out = np.zeros(1)
    k((np.array([4.0]), out), (1, 1), (0.5,))
    assert out.tolist() == [3.0]


def test_off_gives_none(monkeypatch):
    monkeypatch.setenv("EMBER_JIT", "0")
    assert jit.enabled() is False
    assert jit.kernel("scale", _scale_source("scale", "off")) is None
    assert jit.build_extension("nothing", "int x;") is None


@needs_cc
def test_a_failed_compile_is_reported(cache, monkeypatch):
    bad = jit.PRELUDE + "EMBER_EXPORT void broken(char **p) { this is not C }"
    monkeypatch.setenv("EMBER_JIT", "sync")
    monkeypatch.setattr(compiler, "_warned", set())
    with pytest.warns(jit.JitWarning, match="kernel broken could not be compiled"):
        assert jit.kernel("broken", bad) is None  # the caller takes its NumPy path
    assert "unknown type name" in jit.failures()["broken"]
    monkeypatch.setenv("EMBER_JIT", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not retried, not warned of again
        assert jit.kernel("broken", bad) is None


def test_no_compiler_gives_none(monkeypatch):
    monkeypatch.setattr(compiler, "_state", {"cc": None, "identity": None, "launch": None,
                                             "checked": False})
    monkeypatch.setattr(compiler, "_kernels", {})
    monkeypatch.setenv("CC", "/nonexistent/cc")
    monkeypatch.setenv("EMBER_JIT", "1")
    assert jit.kernel("scale", _scale_source("scale", "no cc")) is None
    jit.wait(60)
    assert jit.enabled() is False  # looked, found none
    assert jit.kernel("scale", _scale_source("scale", "no cc, again")) is None


@needs_cc
def test_the_first_request_looks_for_the_compiler_off_the_callers_thread(cache, monkeypatch):
    monkeypatch.setattr(compiler, "_state", {"cc": None, "identity": None, "launch": None,
                                             "checked": False})
    monkeypatch.setattr(compiler, "_kernels", {})
    monkeypatch.setenv("EMBER_JIT", "1")
    threads = []
    find = compiler._find_compiler

    def spy():
        threads.append(threading.current_thread())
        return find()
    monkeypatch.setattr(compiler, "_find_compiler", spy)
    source = _scale_source("scale", "first request")
    assert jit.enabled() is True and threads == []  # nothing looked for yet
    assert jit.kernel("scale", source) is None
    jit.wait(120)
    assert threads and threads[0] is not threading.main_thread()
    assert jit.kernel("scale", source) is not None


def test_openmp_is_loaded_passive_and_the_environment_left_as_it_was(monkeypatch):
    seen = []
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    with compiler._passive_openmp():
        seen.append(os.environ.get("OMP_WAIT_POLICY"))
    assert seen == ["PASSIVE"] and "OMP_WAIT_POLICY" not in os.environ
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # the user's choice wins
    with compiler._passive_openmp():
        seen.append(os.environ.get("OMP_WAIT_POLICY"))
    assert seen[-1] == "ACTIVE" and os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


def test_num_threads_follows_set_num_threads():
    import ember
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert jit.num_threads() == 1
    finally:
        ember.set_num_threads(before)
    assert jit.num_threads() >= 1


@pytest.mark.parametrize("env, expected", [("1", "1"), ("3,2", "3"), ("many", "cpus")])
def test_num_threads_follows_omp_num_threads(env, expected):
    # without a set_num_threads call, OMP_NUM_THREADS governs the kernels as it does the BLAS
    # pools (a process started with OMP_NUM_THREADS=1 must not run its kernels on two threads);
    # it is read on first use, as PyTorch reads it when it starts
    code = ("import os; from ember.backends.numpy import jit; "
            "print(jit.num_threads(), len(os.sched_getaffinity(0)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, OMP_NUM_THREADS=env))
    got, cpus = out.stdout.split()
    assert got == (cpus if expected == "cpus" else expected), out.stderr


def test_cache_dir_is_created(tmp_path, monkeypatch):
    target = tmp_path / "a" / "b"
    monkeypatch.setenv("EMBER_JIT_CACHE", str(target))
    assert compiler._cache_dir() == str(target) and os.path.isdir(target)
