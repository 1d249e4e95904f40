"""The core kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

import contextlib
import math

from .declare import metadata, required



def complex_cast_message(dtype):
    """The message of the TypeError for complex values cast to the real ember ``dtype``."""
    return (f"complex values cannot become {dtype.name} values (the imaginary part would be "
            "lost); expected a complex dtype, or take .real(), .imag() or .abs() of a complex "
            "tensor first")

class CoreKernels:
    @required
    def allocation_failed(self, exc, op, shape=None, inputs=()):
        """The error to raise for ``exc``, caught around an allocation for the op named ``op`` (the one
        the user called): the typed error naming it and the result ``shape`` (None: the
        kernel cannot tell it, the message names the ``inputs``' shapes) when NumPy could
        not make the array, else ``exc`` itself (a ValueError of another cause is not ours
        to rename). Kernels on hot paths call it from their own ``try`` (free when nothing
        is raised); the others use ``allocates``."""

    @required
    def allocates(self, result_shape=None):
        """``allocates``."""

    @required
    def asarray(self, data, dtype=None):
        """An ndarray from nested sequences, scalars or arrays; ``dtype`` an ember DType or None."""

    @metadata
    def complex_cast_message(self, dtype):
        """Why complex values cannot become ember ``dtype`` (a real one): the imaginary part
        would be lost (docs/complex.md)."""
        return complex_cast_message(dtype)

    @metadata
    def is_array(self, data):
        """Whether ``data`` is this backend's array type."""
        return isinstance(data, self.Array)

    def replay_kernels(self, names, largest):
        """The callables a replay of ember.compile calls for the kernels ``names`` (a dict by
        name), the recording's largest array having ``largest`` elements: the kernels
        themselves by default; a backend may give ones that leave to ``replay_scope`` the work
        each call would repeat."""
        return {n: getattr(self, n) for n in names}

    def replay_scope(self):
        """The context a replay runs its kernels in (see ``replay_kernels``)."""
        return contextlib.nullcontext()

    @metadata
    def array_types(self):
        """The types of the values the kernels give as arrays: ``Array``, and any other the
        backend has (NumPy's scalars; a deferred expression)."""
        return (self.Array,)

    def realize(self, a):
        """``a``'s values, computed: ``a`` itself (a backend that ``fuses`` is wrapped in
        ``ember.backends.lazy.Lazy``, whose kernels compute a deferred expression first)."""
        return a

    @required
    def cast(self, a, dtype):
        """``a`` with elements of ember ``dtype``; ``a`` itself when it already has it (values out of a
        float dtype's range become inf, quietly, as PyTorch's casts)."""

    @required
    def readonly(self, a):
        """A read-only view of ``a`` (same buffer)."""

    @required
    def copy(self, a, op='copy'):
        """A fresh, writable, C-contiguous copy (``op``: the op named if it cannot be allocated)."""

    @required
    def contiguous(self, a, op='contiguous'):
        """``a`` if it is C-contiguous, else a C-contiguous copy (``op``: the op named if it cannot be
        allocated)."""

    @required
    def is_contiguous(self, a):
        """``is_contiguous``."""

    @required
    def shares_memory(self, a, b):
        """``shares_memory``."""

    @required
    def tolist(self, a, op='tolist'):
        """``a``'s elements as nested Python lists (``op``: the op named if they cannot fit)."""

    @required
    def item(self, a):
        """``item``."""

    @required
    def scalar_array(self, value, dtype):
        """A 0-d array holding ``value`` as ember ``dtype``."""

    def sum_to_shape(self, g, shape):
        """Sum ``g`` over the dims that broadcasting added or expanded, to get back ``shape``."""
        if tuple(g.shape) == tuple(shape):
            return g
        lead = g.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, s in enumerate(shape) if s == 1 and g.shape[i + lead] != 1)
        out = self.xp.sum(g, axis=axes, keepdims=True) if axes else g
        return self.xp.reshape(out, tuple(shape)) if lead else out

    @required
    def broadcast_to(self, a, shape, op='broadcast_to'):
        """A read-only broadcast view (``op``: the op named if the view's size cannot be addressed)."""

    @required
    def add(self, a, b):
        """``a + b`` in the operands' common dtype (accumulating gradients)."""

    def ones_like(self, a):
        """A new array of ones with the shape, dtype and device of ``a``."""
        return self.xp.ones_like(a)

    def zeros_like(self, a):
        """A new array of zeros with the shape, dtype and device of ``a``."""
        return self.xp.zeros_like(a)

    @required
    def native_dtype(self, dtype):
        """The backend's own dtype for the ember DType ``dtype`` (``numpy.float32``,
        ``torch.float32``): what defaults pass to ``self.xp``."""

    @required
    def dtype_of(self, a):
        """The ember DType of the array ``a`` (KindError for a dtype ember has no kind for)."""

    @required
    def ember_dtype(self, value):
        """The ember DType of a NumPy dtype or scalar type (``np.float32``), or None."""

    @metadata
    def numel(self, a):
        """The number of elements of ``a``."""
        return math.prod(a.shape)

    @required
    def to_host(self, a):
        """``a`` as a NumPy array, for another backend or for TensorData (the array itself)."""

    @required
    def from_host(self, a, dtype):
        """A NumPy array of ember ``dtype`` from a host array another backend produced (bfloat16
        arrives as its uint16 bits); shares ``a``'s memory where it can."""

    @required
    def synchronize(self):
        """Wait for queued work (nothing is queued on NumPy)."""

    def settle(self):
        """Finish the work after which the same call computes the same way for the rest of the
        process (the NumPy backend: the kernels compiling in the background); ember.compile
        settles before it records. Nothing to finish by default."""

    @metadata
    def layout_strides(self, a):
        """The step in elements between neighbours along each dim of ``a``'s buffer; row-major
        where the library has no memory layout (the standard has none)."""
        steps, n = [], 1
        for size in reversed(a.shape):
            steps.append(n)
            n *= max(size, 1)
        return tuple(reversed(steps))

    @metadata
    def layout_offset(self, a):
        """The offset in elements of ``a``'s first element in the buffer it views (0 where the
        library has no views)."""
        return 0

    @metadata
    def layout_address(self, a):
        """The address of ``a``'s first element (0 where the library does not tell, as PyTorch's
        tensors without storage)."""
        return 0

    def move(self, a):
        """``a``, an array of this backend on another of its devices, on this one; by default
        through host memory (a backend with a direct path overrides it)."""
        return self.from_host(self.to_host(a), self.dtype_of(a))
