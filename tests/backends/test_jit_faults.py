"""Faults of the NumPy backend's compiler and its disk cache (ember/backends/numpy/jit): a damaged
object in the cache, a full disk, a cache folder that cannot be written, a compiler that fails,
dies or hangs, processes and threads at once. In each case the values are right (through the
NumPy path if they must), nothing crashes, hangs or raises, one ``JitWarning`` tells, and a later
run compiles again.

The cases that crashed or hung ember run in a subprocess with its own cache, bounded by a timeout.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings

import numpy as np
import pytest

from ember.backends.numpy import jit
from ember.backends.numpy.jit import compiler

pytestmark = [pytest.mark.numpy_only,
              pytest.mark.skipif(compiler._find_compiler() is None, reason="no C compiler here")]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SECONDS = 120  # per subprocess: past it, ember hung

# Computes x * y + x (a deferred chain: one compiled kernel) before and after ``jit.wait()``;
# prints the values' digests, the warnings and how many kernels were compiled.
SCRIPT = r"""
import hashlib, json, os, resource, signal, sys, threading, warnings
cfg = json.loads(sys.argv[1])


def drop_file_capabilities():
    # root writes into a read-only folder unless it gives up CAP_DAC_OVERRIDE (and kin)
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    header, data = Header(0x20080522, 0), (Data * 2)()
    if libc.capget(ctypes.byref(header), data) == 0:
        keep = ~0b1110 & 0xFFFFFFFF  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
        data[0].effective &= keep
        data[0].permitted &= keep
        libc.capset(ctypes.byref(header), data)


if cfg.get("read_only") and os.geteuid() == 0:
    drop_file_capabilities()
if cfg.get("file_size") is not None:  # a full disk: writes past the size fail with an error
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE,
                       (cfg["file_size"], resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

import numpy as np

with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    import ember
    from ember.backends.numpy import buffers, jit
    from ember.backends.numpy.jit import compiler
    if "compile_seconds" in cfg:
        compiler.COMPILE_SECONDS = cfg["compile_seconds"]
    x = np.linspace(-4, 4, 1 << 17, dtype=np.float32)
    a, b = ember.tensor(x), ember.tensor(x[::-1].copy())

    def digest():
        return hashlib.sha256((a * b + a).numpy().tobytes()).hexdigest()

    if cfg.get("threads"):
        digests = [None] * cfg["threads"]

        def work(i):
            digests[i] = digest()
        workers = [threading.Thread(target=work, args=(i,)) for i in range(cfg["threads"])]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
    else:
        digests = [digest()]
    jit.wait()
    digests.append(digest())
    pool = buffers.install() if cfg.get("pool") else None
print(json.dumps({
    "digests": digests,
    "warnings": [[w.category.__name__, str(w.message)] for w in seen],
    "compiled": sum(k is not None for k in compiler._kernels.values()),
    "failures": sorted(jit.failures()),
    "writable": os.access(os.environ["EMBER_JIT_CACHE"], os.W_OK),
    "pool": pool,
}))
"""


def _expected():
    x = np.linspace(-4, 4, 1 << 17, dtype=np.float32)
    return hashlib.sha256((x * x[::-1] + x).tobytes()).hexdigest()


EXPECTED = _expected()


def _env(cache, mode, **extra):
    env = {**os.environ, "EMBER_JIT": mode, "EMBER_JIT_CACHE": str(cache), "EMBER_DEVICE": "cpu",
           "EMBER_POOL_BYTES": "0", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.update(extra)
    return env


def _start(cache, mode, env=None, **cfg):
    return subprocess.Popen([sys.executable, "-c", SCRIPT, json.dumps(cfg)], cwd=ROOT,
                            env=_env(cache, mode, **(env or {})), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(proc):
    try:
        out, err = proc.communicate(timeout=SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"ember hung: still running after {SECONDS} s")
    assert proc.returncode == 0, f"ember exited with {proc.returncode}:\n{err[-4000:]}"
    result = json.loads(out.splitlines()[-1])
    assert result["digests"] and all(d == EXPECTED for d in result["digests"]), "wrong values"
    result["jit_warnings"] = [m for c, m in result["warnings"] if c == "JitWarning"]
    return result


def _run(cache, mode, env=None, **cfg):
    """Run the script in a new process with the cache folder ``cache``: its report, once its
    exit status and values are checked."""
    return _finish(_start(cache, mode, env, **cfg))


def _objects(cache):
    return sorted(p for p in os.listdir(cache) if p.endswith(".so"))


def _is_launcher(path):
    with open(path, "rb") as f:
        return b"PyInit_ember_launch" in f.read()


def _assert_clean(cache):
    """Only whole objects in the cache, no build folder left behind."""
    names = os.listdir(cache)
    assert names and all(n.endswith(".so") for n in names), names
    assert all(compiler._whole(os.path.join(cache, n)) for n in names)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache holding the launcher and the x * y + x kernel."""
    cache = tmp_path_factory.mktemp("warm")
    result = _run(cache, "sync")
    assert result["compiled"] == 1 and not result["jit_warnings"]
    assert len(_objects(cache)) == 2
    return cache


def _copy(warm, tmp_path, kernels=True):
    cache = tmp_path / "cache"
    shutil.copytree(warm, cache)
    if not kernels:  # the launcher alone
        for name in _objects(cache):
            if not _is_launcher(cache / name):
                os.remove(cache / name)
    return cache


def _truncate(path, other):
    os.truncate(path, os.path.getsize(path) // 2)


def _corrupt(path, other):
    with open(path, "r+b") as f:
        f.seek(os.path.getsize(path) // 2)
        f.write(b"\xff" * 64)


def _garbage(path, other):
    with open(path, "wb") as f:
        f.write(b"not an object\n")


def _empty(path, other):
    open(path, "wb").close()


def _foreign(path, other):
    """Another object of ember's, whole, under this one's name."""
    path.write_bytes(other)


@pytest.mark.parametrize("damage,mode", [((_truncate, _truncate), "sync"),
                                         ((_truncate, _truncate), "1"),
                                         ((_corrupt, _garbage), "sync"),
                                         ((_empty, _corrupt), "1"),
                                         ((_foreign, _foreign), "sync")],
                         ids=["truncated-sync", "truncated-background", "corrupt-garbage",
                              "empty-corrupt", "foreign"])
def test_a_damaged_cached_object_is_rebuilt(warm, tmp_path, damage, mode):
    cache = _copy(warm, tmp_path)
    names = _objects(cache)
    originals = {n: (cache / n).read_bytes() for n in names}
    for how, name, other in zip(damage, names, names[::-1]):
        how(cache / name, originals[other])
    result = _run(cache, mode)  # a truncated object was a SIGBUS at dlopen
    # one warning per damaged object, and compiled again at once
    assert len(result["jit_warnings"]) == 2, result["jit_warnings"]
    assert all("is not used" in m for m in result["jit_warnings"])
    assert result["compiled"] == 1
    assert {n: (cache / n).read_bytes() for n in _objects(cache)} == originals
    _assert_clean(cache)
    if damage[0] is _truncate:
        again = _run(cache, mode)
        assert again["compiled"] == 1 and again["jit_warnings"] == []


@pytest.mark.parametrize("mode", ["sync", "1"], ids=["sync", "background"])
@pytest.mark.parametrize("launcher_cached", [False, True], ids=["cold", "warm"])
def test_a_full_disk(warm, tmp_path, mode, launcher_cached):
    if launcher_cached:
        cache = _copy(warm, tmp_path, kernels=False)
    else:
        cache = tmp_path / "cache"
        cache.mkdir()
    before = _objects(cache)
    # sync: a raw OSError from a * b; background: the compile thread died, wait() hung
    result = _run(cache, mode, file_size=512)
    assert result["compiled"] == 0
    assert len(result["jit_warnings"]) == 1, result["jit_warnings"]
    assert "could not be compiled" in result["jit_warnings"][0]
    assert _objects(cache) == before and os.listdir(cache) == before  # nothing half-written
    if mode == "sync":
        again = _run(cache, mode)  # room again: compiled and cached
        assert again["compiled"] == 1 and again["jit_warnings"] == []
        _assert_clean(cache)


def _blocked(tmp_path, what, fallback):
    """A cache folder that cannot be used, and a temporary folder whose ember-jit folder can
    (``fallback``) or cannot (a file stands there)."""
    if what == "read-only":
        cache = tmp_path / "cache"
        cache.mkdir()
        cache.chmod(0o555)
    else:
        (tmp_path / "file").write_text("")
        cache = tmp_path / "file" / "cache"  # its parent is a file
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    if not fallback:
        (tmp / f"ember-jit-{os.getuid()}").write_text("")
    return cache, {"TMPDIR": str(tmp)}


@pytest.mark.parametrize("mode", ["sync", "1"], ids=["sync", "background"])
@pytest.mark.parametrize("what", ["read-only", "uncreatable"])
def test_a_cache_folder_that_cannot_be_written(tmp_path, what, mode):
    cache, env = _blocked(tmp_path, what, fallback=True)
    result = _run(cache, mode, env, read_only=True)
    if result["writable"]:
        pytest.skip("this process may write into a read-only folder")
    assert result["compiled"] == 1
    assert len(result["jit_warnings"]) == 1 and "cannot be written" in result["jit_warnings"][0]
    fallback = tmp_path / "tmp" / f"ember-jit-{os.getuid()}"
    assert len(_objects(fallback)) == 2  # kept in the temporary folder instead
    if mode == "sync":
        again = _run(cache, mode, env, read_only=True)  # found there, warned of again
        assert again["compiled"] == 1 and len(again["jit_warnings"]) == 1
        assert len(_objects(fallback)) == 2


@pytest.mark.parametrize("what", ["read-only", "uncreatable"])
def test_no_folder_can_be_written(tmp_path, what):
    # the fallback was made with os.makedirs: a raw FileExistsError from a * b
    cache, env = _blocked(tmp_path, what, fallback=False)
    result = _run(cache, "sync", env, read_only=True)
    if result["writable"]:
        pytest.skip("this process may write into a read-only folder")
    assert result["compiled"] == 1  # compiled, loaded, not kept
    assert len(result["jit_warnings"]) == 1, result["jit_warnings"]
    assert "cannot be stored" in result["jit_warnings"][0]
    assert os.listdir(tmp_path / "tmp") == [f"ember-jit-{os.getuid()}"]  # no build folder left


FAKE_CC = """#!/bin/sh
for arg in "$@"; do
  case "$arg" in
    --version) echo "fake-cc 1.0"; exit 0;;
    *.c) src="$arg";;
    *.so) out="$arg";;
  esac
done
if grep -q PyInit_ "$src"; then exec {real} "$@"; fi  # the launcher compiles
{fault}
"""
FAULTS = {
    "fails": 'echo "fake-cc: internal compiler error" >&2; exit 1',
    "writes nothing": "exit 0",
    "writes garbage": 'echo "not an object" > "$out"; exit 0',
    "dies": "kill -KILL $$",
    "hangs": "sleep 300; exit 0",  # a child holding the output pipes, as cc1 would
}


@pytest.mark.parametrize("fault,mode", [("fails", "sync"), ("fails", "1"),
                                        ("writes nothing", "1"), ("writes garbage", "sync"),
                                        ("dies", "1"), ("hangs", "sync"), ("hangs", "1")])
def test_a_compiler_that_fails(tmp_path, fault, mode):
    script = tmp_path / "fake-cc"
    script.write_text(FAKE_CC.format(real=compiler._find_compiler()[0], fault=FAULTS[fault]))
    script.chmod(0o755)
    cache = tmp_path / "cache"
    result = _run(cache, mode, {"CC": str(script)}, compile_seconds=3)
    assert result["compiled"] == 0
    assert len(result["jit_warnings"]) == 1, result["jit_warnings"]
    warning = result["jit_warnings"][0]
    assert "could not be compiled" in warning and "ember_map_" in warning
    assert len(_objects(cache)) == 1  # the launcher; nothing of the failed kernel
    _assert_clean(cache)


@pytest.mark.parametrize("mode", ["sync", "1"], ids=["sync", "background"])
def test_processes_and_threads_at_once(tmp_path, mode):
    cache = tmp_path / "cache"
    procs = [_start(cache, mode, threads=4) for _ in range(3)]
    for proc in procs:
        result = _finish(proc)
        assert result["jit_warnings"] == [] and result["compiled"] == 1
        assert len(result["digests"]) == 5
    _assert_clean(cache)
    assert len(_objects(cache)) == 2


def test_a_truncated_buffer_pool_is_rebuilt(tmp_path):
    cache = tmp_path / "cache"
    env = {"EMBER_POOL_BYTES": "64M"}
    assert _run(cache, "sync", env, pool=True)["pool"] is True
    (marker,) = [p for p in os.listdir(cache) if p.endswith(".path")]
    pool = (cache / marker).read_text().strip()
    assert os.path.dirname(pool) == str(cache) and os.path.exists(pool)
    os.truncate(pool, os.path.getsize(pool) // 2)
    result = _run(cache, "sync", env, pool=True)  # was a SIGBUS at the backend's first use
    assert result["pool"] is True
    assert len(result["jit_warnings"]) == 1 and "ember_pool" in result["jit_warnings"][0]
    assert compiler._whole(pool)
    again = _run(cache, "sync", env, pool=True)
    assert again["pool"] is True and again["jit_warnings"] == []


# In this process: the background thread's own faults.

@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """The compiler's state as in a new process, with the cache in ``tmp_path``."""
    monkeypatch.setenv("EMBER_JIT_CACHE", str(tmp_path))
    monkeypatch.setattr(compiler, "_state", {"cc": None, "identity": None, "launch": None,
                                             "checked": False})
    for name, value in [("_kernels", {}), ("_failures", {}), ("_queue", []), ("_warned", set()),
                        ("_notices", []), ("_worker", {"thread": None})]:
        monkeypatch.setattr(compiler, name, value, raising=False)
    return tmp_path


def _source(name, tag):
    return jit.PRELUDE + f"""/* {tag} */
EMBER_EXPORT void {name}(char **p, const int64_t *n, const double *f) {{
    double *out = (double *)p[0];
    for (int64_t i = 0; i < n[0]; i++) out[i] = f[0];
}}"""


@pytest.mark.parametrize("fault", [RuntimeError("boom"), SystemExit(3)], ids=["error", "exit"])
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_background_thread_always_empties_its_queue(fresh, monkeypatch, fault):
    monkeypatch.setenv("EMBER_JIT", "1")
    load = compiler._load_kernel

    def flaky(name, source):
        if name == "bad":
            raise fault
        return load(name, source)
    monkeypatch.setattr(compiler, "_load_kernel", flaky)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert jit.kernel("bad", _source("bad", "thread")) is None
        assert jit.kernel("good", _source("good", "thread")) is None
        jit.wait(60)  # returned at once: the queue is empty
        assert compiler._queue == [] and compiler._worker["thread"] is None
        assert jit.kernel("bad", _source("bad", "thread")) is None  # not retried
        if isinstance(fault, Exception):  # the thread went on with the next kernel
            assert len([w for w in seen if w.category is jit.JitWarning]) == 1
            assert "boom" in compiler.failures()["bad"]
            k = jit.kernel("good", _source("good", "thread"))
            out = np.zeros(3)
            k((out,), (3,), (1.5,))
            assert out.tolist() == [1.5] * 3
    # a later request is served by a new thread
    assert jit.kernel("later", _source("later", "thread")) is None
    jit.wait(60)
    assert jit.kernel("later", _source("later", "thread")) is not None


def test_no_build_folder_in_the_cache_compiles_elsewhere(fresh, monkeypatch):
    monkeypatch.setenv("EMBER_JIT", "sync")
    mkdtemp = tempfile.mkdtemp
    asked = []

    def full(suffix=None, prefix=None, dir=None):
        asked.append(dir)
        if dir is not None and os.path.samefile(dir, fresh):
            raise OSError(28, "No space left on device")
        return mkdtemp(suffix, prefix, dir)
    monkeypatch.setattr(tempfile, "mkdtemp", full)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = jit.kernel("fill", _source("fill", "no build folder"))
    out = np.zeros(2)
    k((out,), (2,), (-2.0,))
    assert out.tolist() == [-2.0, -2.0]
    assert None in asked  # built in the system's temporary folder, then moved into the cache
    assert len(_objects(fresh)) == 2 and all(compiler._whole(fresh / n) for n in _objects(fresh))


def test_threads_in_sync_mode_get_one_working_kernel(fresh, monkeypatch):
    monkeypatch.setenv("EMBER_JIT", "sync")
    source = _source("fill", "threads")
    found, errors = [], []

    def ask():
        try:
            found.append(jit.kernel("fill", source))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        workers = [threading.Thread(target=ask) for _ in range(6)]
        for t in workers:
            t.start()
        for t in workers:
            t.join(120)
    assert errors == [] and len(found) == 6 and all(k is not None for k in found)
    for k in found:
        out = np.zeros(4)
        k((out,), (4,), (7.0,))
        assert out.tolist() == [7.0] * 4
    assert all(compiler._whole(fresh / n) for n in _objects(fresh))
