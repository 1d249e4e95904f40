"""The Array API libraries ember runs on as ``xp:<library>`` devices, and what each needs beyond
the standard: its namespace, its array type, the way to host memory and back, and the few
kernels the standard lacks that the library has (JAX's ``erf``, ``complex`` and ``.at[]``
scatter). A library not listed here runs through the host for those (``xp/host.py``).

>>> sorted(LIBRARIES)
['array_api_strict', 'dask', 'jax']
"""

import importlib
import importlib.util

__all__ = ["Library", "LIBRARIES", "installed"]


class Library:
    """One Array API library: ``package`` (what must be installed), ``load()`` (its namespace),
    and hooks a subclass overrides where the library has something better than the default."""

    package = None
    #: the dtypes the library lacks, by ember name (the device refuses them with KindError)
    lacks = ()
    #: whether its arrays have a memory layout ``shares_memory`` sees (Backend.has_layout)
    has_layout = False
    #: whether its float arithmetic keeps subnormal values (Backend.keeps_subnormals)
    keeps_subnormals = True
    #: whether a forked child may compute with it (Backend.survives_fork)
    survives_fork = True
    #: default kernels the device runs on the host (xp/host.py) all the same
    on_host = ()
    #: kernels whose complex inputs the device computes on the host (NumPy's values, C99 Annex
    #: G's at infinite, NaN and signed-zero parts), where the library's own differ
    complex_on_host = ()

    def load(self):
        """The library's Array API namespace (imported now)."""
        return importlib.import_module(self.package)

    def device_type(self):
        """The type of its device, as PyTorch names it: "cpu" where the library computes in host
        memory."""
        return "cpu"

    def array_type(self, xp):
        """The type of the library's arrays."""
        return type(xp.asarray(0))

    def dtype_key(self, host_xp, dtype):
        """A dictionary key for one of the library's dtypes (or dtype classes); ``host_xp`` is
        the host backend's namespace, NumPy."""
        return str(dtype)

    def to_host(self, host_xp, a):
        """``a`` as a NumPy array (``host_xp`` is the host backend's namespace, NumPy)."""
        return host_xp.asarray(a)

    def from_host(self, host_xp, xp, a, native):
        """The NumPy array ``a`` as one of the library's arrays of dtype ``native``."""
        return xp.asarray(a, dtype=native)

    def erf(self, xp):
        """The library's element-wise error function, or None (ember's host kernel is used)."""
        return None

    def complex(self, xp):
        """The library's ``complex(re, im)`` that keeps each part exactly, or None."""
        return None

    def scatter(self, xp):
        """``scatter(target, key, values, op)`` on the library's arrays, or None (the host's)."""
        return None

    def divide(self, xp):
        """The library's correctly rounded ``divide(a, b)``, where its own is not, or None."""
        return None

    def take_along_axis(self, xp):
        """The library's ``take_along_axis(x, idx, axis)`` where its own changes values (NaN
        payloads), or None."""
        return None

    def synchronize(self, xp):
        """Wait for the library's queued work."""

    def out_of_memory(self, exc):
        """Whether the library's exception ``exc`` says an allocation found too little memory
        (beside Python's MemoryError)."""
        return False

    def shares_memory(self, host_xp, a, b):
        """Whether two distinct arrays share memory (False where the library cannot tell)."""
        return False

    def is_contiguous(self, host_xp, a):
        """Whether ``a`` is row-major in memory (True where the library has no layout)."""
        return True

    def host_view(self, host_xp, a):
        """A NumPy array viewing ``a``'s memory (its layout and address), or None where the
        library has no memory layout to show."""
        return None

    def quiet(self, kernel, numpy_quiet):
        """``kernel`` as the device runs it (``numpy_quiet(kernel)`` runs it with NumPy's
        floating-point warnings off): with the library's floating-point warnings off
        (inf and nan are the IEEE answers), where it has such warnings."""
        return kernel


class ArrayApiStrict(Library):
    """array-api-strict: the standard's reference namespace (NumPy underneath), nothing more."""

    package = "array_api_strict"
    lacks = ("float16", "bfloat16")
    has_layout = True  # NumPy arrays underneath, seen through DLPack

    def quiet(self, kernel, numpy_quiet):
        return numpy_quiet(kernel)  # NumPy computes underneath

    # its arrays are NumPy arrays underneath, which DLPack hands over without a copy
    def shares_memory(self, host_xp, a, b):
        return bool(host_xp.shares_memory(host_xp.from_dlpack(a), host_xp.from_dlpack(b)))

    def is_contiguous(self, host_xp, a):
        return bool(host_xp.from_dlpack(a).flags.c_contiguous)

    def host_view(self, host_xp, a):
        return host_xp.from_dlpack(a)


class Jax(Library):
    """JAX (``jax.numpy``) on its default device. Loading it turns on JAX's 64-bit mode
    (``jax_enable_x64``), without which float64 and int64 would silently be 32-bit."""

    package = "jax"
    keeps_subnormals = False  # XLA sets FTZ and DAZ
    survives_fork = False  # XLA's thread pools: a forked child deadlocks (JAX warns of it)
    # loops whose arrays change shape every turn: JAX would compile each turn's ops anew
    on_host = ("cc_label", "cc_stats", "nms_keep")
    # XLA's complex functions do not follow C99 Annex G (exp(inf + inf j) is nan + nan j,
    # sqrt(-2 - 0j) is +1.414j): 163 of the 1,701 values of a grid of special parts differ
    complex_on_host = (
        "ew_abs", "ew_exp", "ew_expm1", "ew_log", "ew_log1p", "ew_log2", "ew_log10", "ew_sqrt",
        "ew_rsqrt", "ew_recip", "ew_sin", "ew_cos", "ew_tan", "ew_sinh", "ew_cosh", "ew_tanh",
        "ew_asin", "ew_acos", "ew_atan", "ew_asinh", "ew_acosh", "ew_atanh", "ew_pow",
        "ew_truediv")

    def load(self):
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        return jnp

    def device_type(self):
        """The platform of JAX's default device: "cpu", "cuda" for a GPU (PyTorch's name, which
        it gives AMD's GPUs too), else JAX's name ("tpu"). Imports JAX ("cpu" where it is not
        installed: the device is refused when first used)."""
        try:
            import jax
        except ImportError:
            return "cpu"
        platform = jax.default_backend()
        return "cuda" if platform == "gpu" else platform

    def array_type(self, xp):
        import jax
        return jax.Array

    def dtype_key(self, host_xp, dtype):
        try:  # jnp.float32 (a class) and the arrays' NumPy dtypes
            return str(host_xp.dtype(dtype))
        except (TypeError, ValueError):  # NumPy: ValueError for an object with an odd .dtype
            return None

    def from_host(self, host_xp, xp, a, native):
        return xp.array(a, dtype=native)

    def erf(self, xp):
        import jax.scipy.special
        return jax.scipy.special.erf

    def complex(self, xp):
        import jax.lax
        return lambda re, im: jax.lax.complex(*xp.broadcast_arrays(re, im))

    def scatter(self, xp):
        return _jax_scatter

    def divide(self, xp):
        # XLA's CPU division by a broadcast operand multiplies by its reciprocal (20 / 3 in
        # float32 gives 6.666667, not 6.6666665); between operands of one shape it divides
        def divide(a, b):
            a, b = (x if isinstance(x, xp.ndarray) else xp.asarray(x, dtype=y.dtype)
                    for x, y in ((a, b), (b, a)))
            if a.shape != b.shape:
                a, b = xp.broadcast_arrays(a, b)
            return xp.divide(a, b)
        return divide

    def take_along_axis(self, xp):
        # XLA's gather of bfloat16 makes every NaN the canonical one: gather the bits instead
        import jax.lax

        def take_along_axis(x, idx, axis):
            if x.dtype != xp.bfloat16:
                return xp.take_along_axis(x, idx, axis=axis)
            bits = xp.take_along_axis(jax.lax.bitcast_convert_type(x, xp.uint16), idx, axis=axis)
            return jax.lax.bitcast_convert_type(bits, xp.bfloat16)
        return take_along_axis

    def synchronize(self, xp):
        import jax
        jax.effects_barrier()

    def out_of_memory(self, exc):
        # XLA's allocator: JaxRuntimeError "RESOURCE_EXHAUSTED: Out of memory allocating ..."
        return type(exc).__name__ in ("JaxRuntimeError", "XlaRuntimeError") and \
            str(exc).startswith("RESOURCE_EXHAUSTED")

    def quiet(self, kernel, numpy_quiet):
        """``kernel`` with NumPy's warnings off (JAX converts Python numbers with NumPy); an
        element-wise or bitwise kernel also takes a Python int past int64 (a uint64 operand), which JAX's
        argument parsing refuses, as a uint64 array."""
        run = numpy_quiet(kernel)
        name = getattr(kernel, "__name__", "")
        if not name.startswith(("ew_", "bitwise_")) or name == "ew_scalar":  # converts its own
            return run

        def wide_ints(*args, **kwargs):
            if any(type(a) is int and a > _INT64_MAX for a in args):
                import jax.numpy as jnp
                args = [jnp.asarray(a, dtype=jnp.uint64) if type(a) is int and a > _INT64_MAX
                        else a for a in args]
            return run(*args, **kwargs)
        wide_ints.__name__, wide_ints.__doc__ = kernel.__name__, kernel.__doc__
        return wide_ints


_INT64_MAX = 2 ** 63 - 1


def _jax_scatter(target, key, values, op):
    """``idx_scatter`` through JAX's functional updates (``target.at[key].add(values)``); an
    index out of range raises IndexError (JAX would drop the update)."""
    import jax.numpy as jnp
    for n, k in zip(target.shape, key if isinstance(key, tuple) else (key,)):
        if isinstance(k, jnp.ndarray) and k.dtype != bool and k.size and \
                bool(jnp.any((k < -n) | (k >= n))):
            raise IndexError(f"index out of range for an axis of size {n}")
    if getattr(values, "ndim", 0):
        shape = target[key].shape
        extra = values.ndim - len(shape)
        if extra > 0 and all(n == 1 for n in values.shape[:extra]):
            values = values.reshape(values.shape[extra:])  # leading ones broadcast away
    at = target.at[key]
    if target.dtype == bool:
        op = {"add": "max", "mul": "min"}.get(op, op)
    if op == "assign":
        return at.set(values)
    return getattr(at, {"add": "add", "mul": "multiply", "min": "min", "max": "max"}[op])(values)


class Dask(Library):
    """Dask arrays (through ``array_api_compat.dask.array``): chunked, lazy, computed by Dask's
    scheduler in effect (a ``dask.distributed.Client`` when one is running)."""

    package = "dask"
    lacks = ("bfloat16",)

    def load(self):
        return importlib.import_module("array_api_compat.dask.array")

    def array_type(self, xp):
        import dask.array
        return dask.array.Array

    dtype_key = Jax.dtype_key  # NumPy's dtypes

    def to_host(self, host_xp, a):
        return host_xp.asarray(a.compute())

    def from_host(self, host_xp, xp, a, native):
        import dask.array
        return dask.array.from_array(host_xp.asarray(a, dtype=native), chunks="auto")


LIBRARIES = {"array_api_strict": ArrayApiStrict(), "jax": Jax(), "dask": Dask()}


def installed():
    """The names of the listed libraries installed here (nothing is imported)."""
    return [name for name, lib in LIBRARIES.items() if importlib.util.find_spec(lib.package)]
