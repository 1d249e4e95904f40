"""ember's buffer pool: a caching allocator for NumPy's large arrays, as PyTorch's allocators are.

NumPy asks the system for every large array and returns it when the array dies, so each large
temporary of a training step lands on fresh pages the kernel must fault in and zero. The pool is a
NumPy memory handler (NEP 49, compiled from ``jit/pool.c``) that keeps the blocks of at least
``MIN_BYTES`` when they are freed, in size classes (eight per power of two), and gives them to the
next request of the same class: a training step reuses its buffers. Smaller blocks go to NumPy's
own allocator.

- Bounded: at most ``limit()`` bytes stay cached (default the smaller of 1 GiB and an eighth of
  the physical memory; the ``EMBER_POOL_BYTES`` environment variable sets it, ``0`` turns the
  pool off); past it the blocks cached longest ago go back first.
- Released on pressure: when the system refuses memory, the cache is emptied and the request
  retried; ``release()`` empties it at any time.
- Where: NumPy's handler belongs to a context (a ``contextvars`` variable, so one per thread).
  The pool is installed on the thread that first uses the NumPy backend (the one importing
  ember): at once when its compiled module is on disk, else compiled in the background and
  installed on the main thread when ready (a later process finds it on disk). It then serves
  every NumPy array that thread allocates, ember's or not; other threads keep NumPy's allocator
  unless they call ``install()``. Each array is freed by the handler that allocated it, so
  arrays made before or elsewhere are unaffected.
- Only with ember's compiler in use (``jit.enabled()``, ``EMBER_JIT`` not ``0``); otherwise
  nothing changes.

>>> from ember.backends.numpy import buffers
>>> sorted(buffers.stats())[:3]
['cached_blocks', 'cached_bytes', 'hits']
"""

import os
import re
import threading

import numpy as np

from ...errors import InvalidParameterError
from . import jit
from .jit import compiler

__all__ = ["install", "release", "stats", "enabled", "limit", "MIN_BYTES"]

MIN_BYTES = 1 << 16  # blocks below 64 KiB stay with NumPy's allocator
DEFAULT_LIMIT = 1 << 30
_HERE = os.path.dirname(os.path.abspath(__file__))
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}

_lock = threading.Lock()
_state = {"module": None, "source": None, "started": False}


def limit():
    """The most bytes the pool keeps cached: ``EMBER_POOL_BYTES`` (a byte count, or with a
    ``K``/``M``/``G`` suffix), by default the smaller of 1 GiB and an eighth of the memory.

    >>> from ember.backends.numpy import buffers
    >>> buffers.limit() >= 0
    True
    """
    text = os.environ.get("EMBER_POOL_BYTES", "").strip()
    if not text:
        try:
            memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
            return DEFAULT_LIMIT
        return min(DEFAULT_LIMIT, memory // 8)
    match = re.fullmatch(r"(\d+)\s*([kmgt]?)(?:i?b)?", text.lower())
    if match is None:
        raise InvalidParameterError(
            f"the environment variable EMBER_POOL_BYTES={text!r}: expected a byte count such as "
            "1073741824, 512M or 2G (0 turns the buffer pool off)", "EMBER_POOL_BYTES", text)
    return int(match.group(1)) * _UNITS[match.group(2)]


def _source():
    if _state["source"] is None:
        with open(os.path.join(_HERE, "jit", "pool.c")) as f:
            _state["source"] = f.read()
    return _state["source"]


def _settings():
    try:
        from numpy._core.multiarray import _get_madvise_hugepage
    except ImportError:  # pragma: no cover - NumPy 1.x
        from numpy.core.multiarray import _get_madvise_hugepage
    return limit(), MIN_BYTES, bool(_get_madvise_hugepage())


def _marker():
    """The file naming the compiled pool for this source, NumPy, Python and CPU: looking it up
    needs no compiler run, so the first use of the backend stays fast."""
    import hashlib
    import sysconfig
    key = "\0".join((_source(), np.__version__, sysconfig.get_config_var("EXT_SUFFIX") or "",
                     compiler._cpu_identity()))
    name = "pool-" + hashlib.sha256(key.encode()).hexdigest()[:32] + ".path"
    return os.path.join(compiler._cache_dir(), name)


def _load_cached():
    """The compiled pool named by the marker file, or None."""
    try:
        with open(_marker()) as f:
            path = f.read().strip()
        if not os.path.exists(path):
            return None
        return compiler._load_extension("ember_pool", path)
    except (OSError, ImportError):
        return None


def _module(build):
    """The compiled pool module: loaded from disk, else compiled when ``build``; else None."""
    with _lock:
        if _state["module"] is None:
            module = _load_cached()
            if module is None and build and jit.enabled():
                module = jit.build_extension("ember_pool", _source())
                if module is not None:
                    try:
                        marker = _marker()
                        with open(marker + ".tmp", "w") as f:
                            f.write(module.__file__)
                        os.replace(marker + ".tmp", marker)
                    except OSError:
                        pass
            _state["module"] = module
        return _state["module"]


def _off():
    return compiler._mode() == "off" or limit() == 0


def enabled():
    """Whether the pool can serve here: ember's compiler is in use and ``EMBER_POOL_BYTES`` is not
    0 (whether it serves the calling thread: ``stats()["installed"]``).

    >>> from ember.backends.numpy import buffers
    >>> isinstance(buffers.enabled(), bool)
    True
    """
    return not _off() and jit.enabled()


def install():
    """Put the pool in front of NumPy's allocator for the calling thread (its context), compiling
    it first if needed; whether the pool serves this thread now. A no-op when it already does or
    when the pool is off.

    >>> from ember.backends.numpy import buffers
    >>> buffers.install() == buffers.stats()["installed"]
    True
    """
    if not enabled():
        return False
    module = _module(build=True)
    if module is None:
        return False
    module.install(*_settings())
    return True


def release():
    """Return the cached blocks to the system; the number of bytes returned. Arrays in use keep
    their memory.

    >>> from ember.backends.numpy import buffers
    >>> buffers.release() >= 0
    True
    """
    module = _state["module"]
    return 0 if module is None else module.release()


def stats():
    """The pool's counters: ``cached_bytes``/``cached_blocks`` (kept for reuse), ``live_bytes``/
    ``live_blocks`` (pool blocks in use), ``hits``/``misses`` (requests served from the cache or
    from the system), ``released_bytes``, ``limit``, ``min_bytes``, and ``installed`` (whether the
    pool serves the calling thread).

    >>> from ember.backends.numpy import buffers
    >>> buffers.stats()["cached_bytes"] <= buffers.stats()["limit"] or not buffers.stats()["installed"]
    True
    """
    module = _state["module"]
    if module is None:
        return {"cached_bytes": 0, "cached_blocks": 0, "live_bytes": 0, "live_blocks": 0,
                "hits": 0, "misses": 0, "released_bytes": 0, "limit": 0,
                "min_bytes": MIN_BYTES, "installed": False}
    return {**module.stats(), "installed": module.installed()}


def start():
    """Install the pool on the calling thread at the NumPy backend's first use, without ever
    compiling there: at once when the compiled pool is on disk, else after a background compile
    (installed then on the main thread if that is the calling thread)."""
    if _state["started"]:
        return
    _state["started"] = True
    if _off():
        return
    module = _module(build=False)
    if module is not None:
        module.install(*_settings())
        return
    on_main = threading.current_thread() is threading.main_thread()

    def build():
        module = _module(build=True)
        if module is not None and on_main:
            module.install_on_main_thread(*_settings())

    threading.Thread(target=build, name="ember-pool", daemon=True).start()
