"""The compiler behind ember's kernels: finds ``cc``, compiles, caches on disk, loads.

Nothing here runs at import: the compiler is looked for at the first kernel request, and the
launcher extension (``launch.c``, the one call from Python into a kernel, and the short paths
in ``calls`` that make a row program's copies and outputs in C) is built then.

Every fault of the compiler or the cache (see the package docstring) ends in the NumPy path and
one ``JitWarning``, never in an exception: a cached object ends in a trailer holding the SHA-256
of what precedes it, is moved into the cache whole (``os.replace``) and is checked before it is
loaded.
"""

import contextlib
import ctypes
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import shutil
import signal
import stat
import subprocess
import sysconfig
import tempfile
import threading
import warnings

import numpy as np

from .. import threads as _threads

# -mprefer-vector-width=512 (an x86 option): where the CPU has AVX-512, GCC's default is 256-bit
# vectors; the compute-bound loops (GELU, softmax) run 1.3x faster at the full width
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")
FLAGS = ("-O3", "-march=native", *(("-mprefer-vector-width=512",) if _X86 else ()), "-fopenmp",
         "-fno-math-errno", "-fno-trapping-math", "-fPIC", "-shared")
PRELUDE = """#include <stdint.h>
#include <math.h>
#include <string.h>
#include <omp.h>
#define EMBER_EXPORT __attribute__((visibility("default")))

/* the end of a thread's work in a parallel region: the calling thread (0) waits for the others
   spinning, not asleep at the region's barrier (waking a sleeping thread costs tens of µs).
   Kernels whose rows or elements are computed independently deal them out as threads ask,
   in chunks that shrink from a share of what is left to about CHUNK_NUMEL elements (schedule
   guided: long runs for the prefetchers), so the calling thread works while the others wake
   up; a row's or element's result is the same whichever thread computes it. (Kernels with
   per-thread partial sums keep a fixed split, so that their results do not vary.) */
#define CHUNK_NUMEL 16384
#if defined(__x86_64__) || defined(__i386__)
#define ember_relax() __builtin_ia32_pause()
#else
#define ember_relax() ((void)0)
#endif
static void ember_join(int *done) {
    const int team = omp_get_num_threads();
    if (__atomic_add_fetch(done, 1, __ATOMIC_ACQ_REL) < team && omp_get_thread_num() == 0)
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < team) ember_relax();
}
"""


# the float dtypes the element-wise kernels (outer products, Adam, reductions) are written for,
# by NumPy dtype (native byte order only), and the C type of each
FLOAT_NAMES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}
C_TYPES = {"float32": "float", "float64": "double"}

# No contraction of a * b + c into one fused multiply-add: NumPy rounds each operation.
NO_CONTRACT = """#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize ("fp-contract=off")
#endif
"""


def simd_loop(total, nt, threshold, body):
    """C text of ``for (int64_t i = 0; i < total; i++) { body }``, vectorized, on ``nt`` OpenMP
    threads when ``total >= threshold`` and ``nt > 1``, else on the calling thread. The loop is
    written twice because GCC leaves the serial path of ``parallel for simd ... if(...)``
    scalar: 6.4 ns an element against 0.6 for float32 GELU of 65,536 elements, one thread."""
    loop = f"for (int64_t i = 0; i < {total}; i++) {{\n{body}\n    }}\n"
    return (f"    if ({total} >= {threshold} && {nt} > 1) {{\n    int done = 0;\n"
            f"    #pragma omp parallel num_threads({nt})\n    {{\n"
            f"    #pragma omp for simd schedule(simd: guided, CHUNK_NUMEL) nowait\n    {loop}"
            f"    ember_join(&done);\n    }}\n"
            f"    }} else {{\n    #pragma omp simd\n    {loop}    }}\n")


COMPILE_SECONDS = 120  # one compile; past it the kernel counts as failed
_HERE = os.path.dirname(os.path.abspath(__file__))
_TRAILER = b"\n#ember-sha256:"  # then the hex digest of the bytes before the trailer
_TRAILER_BYTES = len(_TRAILER) + 64
_MAX_BYTES = 64 << 20  # a bigger file in the cache is not one of ember's objects
_FORMAT = "sealed-1"  # part of every object's name: objects of older formats are not looked at


class JitWarning(RuntimeWarning):
    """A compiled kernel could not be built, cached or loaded: the NumPy path computes instead
    (the same values). Given once per fault and kernel."""


_lock = threading.Lock()
_state = {"cc": None, "identity": None, "launch": None, "checked": False}
_kernels = {}      # source hash -> callable, or None while compiling or after a failure
_failures = {}     # name -> the compiler's message
_queue = []        # (name, source, key) waiting for the background thread
_idle = threading.Condition(_lock)
_worker = {"thread": None}
_notes_lock = threading.Lock()
_warned = set()    # (fault, kernel name or None) already warned of
_notices = []      # warnings of the background thread, given on the caller's next request
_local = threading.local()


def _mode():
    value = os.environ.get("EMBER_JIT", "1").strip().lower()
    return "off" if value in ("0", "off", "false", "no") else "sync" if value == "sync" else "async"


def _cache_dir():
    """The folder of compiled objects: ``EMBER_JIT_CACHE`` (or the default), else a private one
    in the system's temporary folder when that one cannot be written; None when neither can."""
    path = os.environ.get("EMBER_JIT_CACHE")
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "ember", "jit")
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except (OSError, ValueError):
        pass
    wanted = path
    try:
        path = os.path.join(tempfile.gettempdir(), f"ember-jit-{os.getuid()}")
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        info = os.lstat(path)  # objects are loaded from it: only a folder of this user's
        if not (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
                and not info.st_mode & 0o022 and os.access(path, os.W_OK)):
            path = None
    except (OSError, ValueError):
        path = None
    if path is not None:
        _warn("cache folder", None, f"ember jit: the cache folder {wanted} cannot be written; "
              f"compiled kernels are kept in {path} instead (EMBER_JIT_CACHE sets the folder)")
    return path


def _warn(fault, name, message):
    """Warn once of ``fault`` (per kernel ``name``, or per process when None); from the
    background thread the warning waits for the caller's next request."""
    with _notes_lock:
        if (fault, name) in _warned:
            return
        _warned.add((fault, name))
        if getattr(_local, "background", False):
            _notices.append(message)
            return
    warnings.warn(message, JitWarning, stacklevel=4)


def _give_notices():
    with _notes_lock:
        given = _notices[:]
        del _notices[:]
    for message in given:
        warnings.warn(message, JitWarning, stacklevel=3)


def _fail(name, message):
    """Record that kernel ``name`` is not compiled in this process, and warn once."""
    _failures[name] = message
    _warn("compile", name, f"ember jit: kernel {name} could not be compiled or loaded; the NumPy "
          f"path computes it instead (same values, slower):\n{message}")


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


def _run(command, cwd=None, timeout=None):
    """Run ``command`` in a process group of its own: (exit status, stdout, stderr), with status
    None when it could not start or ran past ``timeout`` seconds (default ``COMPILE_SECONDS``;
    then the whole group, the compiler's own children included, is killed)."""
    try:
        proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace",
                                start_new_session=True)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        return None, "", str(exc)
    timeout = COMPILE_SECONDS if timeout is None else timeout
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.SubprocessError):
            proc.communicate(timeout=10)
        return None, "", f"{command[0]} ran past {timeout} s and was stopped"
    return proc.returncode, out, err


def _find_compiler():
    """The C compiler's path and version line, or None."""
    names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path is None:
            continue
        status, out, _ = _run([path, "--version"], timeout=30)
        if status == 0:
            return path, out.splitlines()[0] if out.strip() else name
    return None


def _so_path(source, extra=()):
    """Where the cache keeps the object of ``source``, or None without a cache folder."""
    folder = _cache_dir()
    if folder is None:
        return None
    key = "\0".join((source, _state["cc"][1], " ".join(FLAGS + tuple(extra)), _state["identity"],
                     _FORMAT))
    return os.path.join(folder, hashlib.sha256(key.encode()).hexdigest()[:32] + ".so")


def _whole(path):
    """Whether ``path`` holds a whole object of ember's: None when there is no file, False when
    there is one but it is not a regular file ending in a trailer whose digest matches."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _TRAILER_BYTES < info.st_size <= _MAX_BYTES:
            return False
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read()
    except OSError:
        return False
    finally:
        os.close(fd)
    body, tail = data[:-_TRAILER_BYTES], data[-_TRAILER_BYTES:]
    return tail == _TRAILER + hashlib.sha256(body).hexdigest().encode()


def _seal(so):
    """Append the trailer to the compiled object ``so``; the failure's message, or None."""
    try:
        with open(so, "rb") as f:
            size = os.fstat(f.fileno()).st_size  # (read(n) would allocate n bytes up front)
            body = f.read() if 0 < size <= _MAX_BYTES else b""
    except OSError as exc:
        return f"the compiler wrote no shared object ({exc})"
    if not body or len(body) > _MAX_BYTES:
        return f"the compiler wrote {'no' if not size else 'an oversized'} shared object"
    try:
        with open(so, "ab") as f:
            f.write(_TRAILER + hashlib.sha256(body).hexdigest().encode())
    except OSError as exc:
        return f"cannot write {so}: {exc}"
    return None


@contextlib.contextmanager
def _workspace(folder):
    """A new private folder to compile in: in ``folder`` (the cache, so the object moves in
    atomically) when that works, else in the system's temporary folder."""
    tmp, error = None, None
    for where in (folder, None) if folder is not None else (None,):
        try:
            tmp = tempfile.mkdtemp(prefix="build-", dir=where)
            break
        except (OSError, ValueError) as exc:
            error = exc
    if tmp is None:
        raise OSError(f"no folder to compile in: {error}")
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _compile(name, source, path, extra, load):
    """Compile ``source``, load the object with ``load`` and move it into the cache at ``path``
    (when not None); what ``load`` made of it, or None on failure (recorded and warned of)."""
    folder = os.path.dirname(path) if path is not None else None
    try:
        with _workspace(folder) as tmp:
            with open(os.path.join(tmp, "kernel.c"), "w") as f:
                f.write(source)
            # named as in the cache: a fresh name for the loader, which reuses an object it has
            # loaded from the same path before
            so = os.path.basename(path) if path is not None else "kernel.so"
            cc = _state["cc"][0]
            status, _, err = _run([cc, *FLAGS, *extra, "kernel.c", "-o", so, "-lm"], cwd=tmp)
            if status != 0:
                if status is None:
                    return _fail(name, err)
                how = f"was killed by signal {-status}" if status < 0 else f"exited with {status}"
                return _fail(name, f"{cc} {how}:\n{err}".rstrip())
            so = os.path.join(tmp, so)
            message = _seal(so)
            if message:
                return _fail(name, message)
            try:
                found = load(so)  # loaded first: what does not load never enters the cache
            except (OSError, ImportError, AttributeError) as exc:
                return _fail(name, f"the compiled object does not load: {exc}")
            _install(so, path, found)
            return found
    except OSError as exc:  # the disk is full, the folder read-only, ...
        return _fail(name, str(exc))


def _install(so, path, found):
    """Move the whole object ``so`` into the cache at ``path``; warn once when it cannot."""
    if path is None:
        message = "no cache folder can be written (EMBER_JIT_CACHE, nor the temporary folder)"
    else:
        try:
            os.replace(so, path)
            if hasattr(found, "__file__"):  # an extension module: it is now at home in the cache
                found.__file__ = path
            return
        except OSError as exc:
            message = str(exc)
    _warn("cache", None, "ember jit: compiled kernels cannot be stored in the cache, so each "
          f"process compiles them again: {message}")


def _discard(path):
    with contextlib.suppress(OSError):
        os.remove(path)


def _cached(name, path, load):
    """What ``load`` makes of the cache's object at ``path`` when it is whole and loads; else
    None, and a damaged object is warned of and removed (so that it is compiled again)."""
    whole = _whole(path)
    if whole is None:
        return None
    if whole:
        try:
            return load(path)
        except (OSError, ImportError, AttributeError) as exc:
            problem = f"it does not load ({exc})"
    else:
        problem = "it is truncated, corrupt or not ember's"
    _warn("damaged", name, f"ember jit: the cached object of kernel {name} ({path}) is not used: "
          f"{problem}; it is compiled again")
    _discard(path)
    return None


def _obtain(name, source, load, extra=()):
    """What ``load`` makes of the object compiled from ``source``, from the cache when it holds
    it whole, else compiled now; None when that fails (see ``failures()``)."""
    try:
        path = _so_path(source, extra)
        if path is not None:
            found = _cached(name, path, load)
            if found is not None:
                return found
        return _compile(name, source, path, extra, load)
    except Exception as exc:  # noqa: BLE001 - a fault here must end in the NumPy path
        return _fail(name, f"{type(exc).__name__}: {exc}")


def _load_extension(name, path):
    """The extension module ``name`` in the object at ``path``, which must be whole."""
    if not _whole(path):
        raise ImportError(f"{path} is not a whole object compiled by ember")
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    with _passive_openmp():
        loader.exec_module(module)
    return module


def _ext_flags():
    return ("-I" + sysconfig.get_paths()["include"], "-I" + np.get_include())


def _ready():
    """Whether kernels can be compiled and launched here (looked up once)."""
    if _state["checked"]:
        return _state["launch"] is not None
    with _lock:
        if not _state["checked"]:
            try:
                _state["cc"] = _find_compiler()
                if _state["cc"] is not None:
                    _state["identity"] = _cpu_identity()
                    with open(os.path.join(_HERE, "launch.c")) as f:
                        module = _extension("ember_launch", f.read())
                    if module is not None:
                        _state["launch"] = module.launch
                        calls.update(rows=module.rows, bounds=module.bounds, class_rows=module.class_rows)
            except Exception as exc:  # noqa: BLE001 - no launcher: the NumPy path
                _fail("ember_launch", f"{type(exc).__name__}: {exc}")
            finally:
                _state["checked"] = True
    return _state["launch"] is not None


def _extension(name, source):
    return _obtain(name, source, functools.partial(_load_extension, name), _ext_flags())


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


def _open_kernel(name, path):
    with _passive_openmp():
        library = ctypes.CDLL(path)
    _libraries.append(library)  # kept: a CDLL dropped is a reference cycle for the collector
    address = ctypes.cast(getattr(library, name), ctypes.c_void_p).value
    return functools.partial(_state["launch"], address)


def _load_kernel(name, source):
    return _obtain(name, source, functools.partial(_open_kernel, name))


def _background():
    _local.background = True
    try:
        ready = _ready()  # the first request: find the compiler and build the launcher here
        while True:
            with _lock:
                if not _queue:
                    _worker["thread"] = None
                    _idle.notify_all()
                    return
                name, source, key = _queue[0]
            found = None
            try:
                found = _load_kernel(name, source) if ready else None
            except Exception as exc:  # noqa: BLE001 - the thread serves the queue to its end
                _fail(name, f"{type(exc).__name__}: {exc}")
            finally:
                with _lock:
                    _queue.pop(0)
                    _kernels[key] = found
    finally:
        with _lock:  # left by an exception: the requests still queued take the NumPy path
            if _worker["thread"] is threading.current_thread():
                for _, _, key in _queue:
                    _kernels[key] = None
                del _queue[:]
                _worker["thread"] = None
                _idle.notify_all()


def kernel(name, source):
    """The compiled kernel ``name`` of C ``source`` as ``k(arrays, ints, floats)``, or None while it
    compiles in the background, when compiling is off or when it failed (see ``failures()``)."""
    if _notices:
        _give_notices()
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
        return found
    if _state["checked"]:
        if _state["launch"] is None:
            return None
        path = _so_path(source)
        found = _cached(name, path, functools.partial(_open_kernel, name)) if path else None
        if found is not None:  # compiled before: loading takes ~0.1 ms
            _kernels[key] = found
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
    _give_notices()


def failures():
    """The compiler's messages of the kernels that failed to compile, by kernel name."""
    return dict(_failures)


def num_threads():
    """The threads a compiled kernel may use: ember's ``set_num_threads`` setting, else
    ``OMP_NUM_THREADS`` (its first entry), else the CPUs this process may run on; those two are
    read on first use, as PyTorch reads them when it starts."""
    n = _threads._state["n"]
    if n is not None:
        return n
    if not _default:
        env = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
        if env.isdigit() and int(env) >= 1:
            _default.append(int(env))
        else:
            try:
                _default.append(len(os.sched_getaffinity(0)))
            except AttributeError:  # pragma: no cover - not Linux
                _default.append(os.cpu_count() or 1)
    return _default[0]


calls = {}  # the launcher's other functions (see launch.c), once it is built
_default = []  # the threads without a set_num_threads call, found on first use
_libraries = []  # the loaded kernels' libraries (never unloaded)
