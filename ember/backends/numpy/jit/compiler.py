"""The compiler behind ember's kernels: finds ``cc``, compiles, caches on disk, loads.

Nothing here runs at import: the compiler is looked for at the first kernel request, and the
launcher extension (``launch.c``, the one call from Python into a kernel) is built then.
"""

import contextlib
import ctypes
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sysconfig
import tempfile
import threading

import numpy as np

FLAGS = ("-O3", "-march=native", "-fopenmp", "-fno-math-errno", "-fno-trapping-math", "-fPIC",
         "-shared")
PRELUDE = """#include <stdint.h>
#include <math.h>
#include <string.h>
#include <omp.h>
#define EMBER_EXPORT __attribute__((visibility("default")))
"""
COMPILE_SECONDS = 120  # one compile; past it the kernel counts as failed
_HERE = os.path.dirname(os.path.abspath(__file__))

_lock = threading.Lock()
_state = {"cc": None, "identity": None, "launch": None, "checked": False}
_kernels = {}      # source hash -> callable, or None while compiling or after a failure
_failures = {}     # name -> the compiler's message
_queue = []        # (name, source, key) waiting for the background thread
_idle = threading.Condition(_lock)
_worker = {"thread": None}


def _mode():
    value = os.environ.get("EMBER_JIT", "1").strip().lower()
    return "off" if value in ("0", "off", "false", "no") else "sync" if value == "sync" else "async"


def _cache_dir():
    path = os.environ.get("EMBER_JIT_CACHE")
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "ember", "jit")
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    path = os.path.join(tempfile.gettempdir(), f"ember-jit-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def _cpu_identity():
    """What a kernel built with -march=native depends on: the CPU's model and feature flags."""
    try:
        with open("/proc/cpuinfo") as f:
            lines = [ln for ln in f if ln.startswith(("model name", "flags", "vendor_id"))]
        return "".join(sorted(set(lines)))
    except OSError:  # pragma: no cover - not Linux
        import platform
        return platform.machine() + platform.processor()


@contextlib.contextmanager
def _passive_openmp():
    """OpenMP threads that sleep between kernels rather than spin: GNU OpenMP reads
    ``OMP_WAIT_POLICY`` when it loads, with the first compiled module, so it is set for that
    moment only (unless the user set it). Spinning threads would take the cores from the BLAS
    threads of the matmuls between two kernels (measured: a GPT training step twice as slow
    with two threads)."""
    if "OMP_WAIT_POLICY" in os.environ:
        yield
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
    finally:
        os.environ.pop("OMP_WAIT_POLICY", None)


def _find_compiler():
    """The C compiler's path and version line, or None."""
    names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path is None:
            continue
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.returncode == 0:
            return path, out.stdout.splitlines()[0] if out.stdout else name
    return None


def _compile(source, out_path, extra=()):
    """Compile ``source`` into the shared object ``out_path`` (atomically); the compiler's
    message on failure, else None."""
    cc = _state["cc"][0]
    folder = os.path.dirname(out_path)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        src = os.path.join(tmp, "kernel.c")
        so = os.path.join(tmp, "kernel.so")
        with open(src, "w") as f:
            f.write(source)
        try:
            run = subprocess.run([cc, *FLAGS, *extra, src, "-o", so, "-lm"], capture_output=True,
                                 text=True, timeout=COMPILE_SECONDS)
        except (OSError, subprocess.SubprocessError) as exc:
            return str(exc)
        if run.returncode != 0:
            return run.stderr or f"{cc} exited with {run.returncode}"
        os.replace(so, out_path)
    return None


def _so_path(source, extra=()):
    digest = hashlib.sha256("\0".join((source, _state["cc"][1], " ".join(FLAGS + tuple(extra)),
                                       _state["identity"])).encode()).hexdigest()[:32]
    return os.path.join(_cache_dir(), digest + ".so")


def _load_extension(name, path):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    with _passive_openmp():
        loader.exec_module(module)
    return module


def _ext_flags():
    return ("-I" + sysconfig.get_paths()["include"], "-I" + np.get_include())


def _build(name, source, extra=()):
    """The shared object for ``source``, compiled unless the disk cache has it: (path, None) or
    (None, the compiler's message)."""
    path = _so_path(source, extra)
    if os.path.exists(path):
        return path, None
    message = _compile(source, path, extra)
    return (None, message) if message else (path, None)


def _ready():
    """Whether kernels can be compiled and launched here (looked up once)."""
    if _state["checked"]:
        return _state["launch"] is not None
    with _lock:
        if not _state["checked"]:
            _state["cc"] = _find_compiler()
            if _state["cc"] is not None:
                _state["identity"] = _cpu_identity()
                with open(os.path.join(_HERE, "launch.c")) as f:
                    module = _extension("ember_launch", f.read())
                if module is not None:
                    _state["launch"] = module.launch
            _state["checked"] = True
    return _state["launch"] is not None


def _extension(name, source):
    path, message = _build(name, source, _ext_flags())
    if path is None:
        _failures[name] = message
        return None
    try:
        return _load_extension(name, path)
    except ImportError as exc:
        _failures[name] = str(exc)
        return None


def enabled():
    """Whether compiled kernels may be used: ``EMBER_JIT`` is not 0 and no look for a working C
    compiler has failed (in background mode the first kernel request looks, off the caller's
    thread; ``EMBER_JIT=sync`` looks now).

    >>> from ember.backends.numpy import jit
    >>> isinstance(jit.enabled(), bool)
    True
    """
    mode = _mode()
    if mode == "off":
        return False
    if mode == "sync" or _state["checked"]:
        return _ready()
    return True


def build_extension(name, source):
    """The CPython extension module ``name`` compiled from C ``source`` (Python's and NumPy's
    headers on the include path), cached like kernels; None when it cannot be built."""
    if _mode() == "off" or not _ready():
        return None
    with _lock:
        return _extension(name, source)


def _load_kernel(name, source):
    path, message = _build(name, source)
    if path is None:
        _failures[name] = message
        return None
    try:
        with _passive_openmp():
            library = ctypes.CDLL(path)
        address = ctypes.cast(getattr(library, name), ctypes.c_void_p).value
    except (OSError, AttributeError) as exc:
        _failures[name] = str(exc)
        return None
    return functools.partial(_state["launch"], address)


def _background():
    ready = _ready()  # the first request: find the compiler and build the launcher here
    while True:
        with _lock:
            if not _queue:
                _worker["thread"] = None
                _idle.notify_all()
                return
            name, source, key = _queue[0]
        found = _load_kernel(name, source) if ready else None
        with _lock:
            _queue.pop(0)
            _kernels[key] = found


def kernel(name, source):
    """The compiled kernel ``name`` of C ``source`` as ``k(arrays, ints, floats)``, or None while it
    compiles in the background, when compiling is off or when it failed (see ``failures()``)."""
    key = hash(source)
    found = _kernels.get(key, False)
    if found is not False:
        return found
    mode = _mode()
    if mode == "off":
        return None
    if mode == "sync":
        if not _ready():
            return None
        found = _kernels[key] = _load_kernel(name, source)
        if found is None:
            raise RuntimeError(f"ember jit: kernel {name} failed to compile:\n{_failures[name]}")
        return found
    if _state["checked"]:
        if _state["launch"] is None:
            return None
        if os.path.exists(_so_path(source)):  # compiled before: loading takes ~0.1 ms
            found = _kernels[key] = _load_kernel(name, source)
            return found
    with _lock:
        if key in _kernels:
            return _kernels[key]
        _kernels[key] = None
        _queue.append((name, source, key))
        if _worker["thread"] is None:
            _worker["thread"] = threading.Thread(target=_background, name="ember-jit", daemon=True)
            _worker["thread"].start()
    return None


def wait(timeout=None):
    """Block until the kernels compiling in the background are done (or ``timeout`` seconds)."""
    with _lock:
        _idle.wait_for(lambda: not _queue, timeout)


def failures():
    """The compiler's messages of the kernels that failed to compile, by kernel name."""
    return dict(_failures)


def num_threads():
    """The threads a compiled kernel may use: ember's ``set_num_threads`` setting, else
    ``OMP_NUM_THREADS`` (its first entry), else the CPUs this process may run on."""
    from .. import threads
    n = threads._state["n"]
    if n is not None:
        return n
    env = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if env.isdigit() and int(env) >= 1:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
