"""ember's compiled kernels: C source compiled at run time with the system C compiler.

A kernel is a C translation unit defining ``void NAME(char **p, const int64_t *n, const double *f)``
(the arrays' data pointers, integer and float parameters). ``kernel(name, source)`` gives a
callable for it, or None while it compiles or when nothing can compile, in which case the caller
takes its NumPy path, which computes the same values:

>>> import numpy as np
>>> from ember.backends.numpy import jit
>>> source = jit.PRELUDE + '''
... EMBER_EXPORT void twice(char **p, const int64_t *n, const double *f) {
...     const double *x = (const double *)p[0];
...     double *out = (double *)p[1];
...     for (int64_t i = 0; i < n[0]; i++) out[i] = f[0] * x[i];
... }'''
>>> k = jit.kernel("twice", source)
>>> jit.wait()
>>> k = jit.kernel("twice", source)
>>> x, out = np.arange(3.0), np.zeros(3)
>>> if k is not None:
...     k((x, out), (3,), (2.0,))
... else:
...     out[:] = 2.0 * x  # the NumPy path: no compiler here, or EMBER_JIT=0
>>> out.tolist()
[0.0, 2.0, 4.0]

The settings, from the environment:

- ``EMBER_JIT``: ``0`` turns compiling off (every kernel takes its NumPy path); ``sync``
  compiles on the calling thread (tests); otherwise a kernel the cache lacks compiles in a
  background thread and the calls made meanwhile take the NumPy path.
- ``EMBER_JIT_CACHE``: the folder of compiled shared objects (default
  ``$XDG_CACHE_HOME/ember/jit`` or ``~/.cache/ember/jit``); a file's name is the hash of its
  source, the compiler's version, the flags and this CPU, so a cache shared between machines
  never loads a kernel built for another CPU.
- ``CC``: the compiler (default ``cc``, then ``gcc``, then ``clang``).

Faults: compiled kernels are only a faster way to the NumPy path's values, so no fault of the
compiler or of the cache reaches the caller. A kernel that cannot be compiled or loaded (the
compiler fails, dies, writes nothing or no object, runs past ``COMPILE_SECONDS``, the disk is
full) takes the NumPy path for the rest of the process, with one ``JitWarning`` per kernel
(``failures()`` keeps the compiler's message); ``EMBER_JIT=sync`` too, it does not raise. The
cache holds only whole objects: each is compiled in a private folder, ends in a trailer with the
SHA-256 of the bytes before it, and is moved in with ``os.replace``; an object is loaded only
after its digest is checked, and one that is truncated, corrupt or not ember's (or does not
load) is warned of once, removed and compiled again. A cache folder that cannot be written is
replaced by a private one in the temporary folder (one warning); without any, kernels are
compiled into a temporary folder, loaded from there and compiled again by the next process (one
warning). Processes and threads may share a cache: each writes its own objects, and the last
``os.replace`` of the same bytes wins. The background thread serves its queue to the end
whatever happens, so ``wait()`` returns; its warnings are given on the caller's next request.
"""

from .compiler import (FLAGS, PRELUDE, JitWarning, build_extension, enabled, failures, kernel,
                       num_threads, wait)

__all__ = ["FLAGS", "PRELUDE", "JitWarning", "build_extension", "enabled", "failures", "kernel",
           "num_threads", "wait"]
