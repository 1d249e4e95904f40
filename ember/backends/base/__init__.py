"""The backend base: one class that declares every kernel an op may call.

A backend is a subclass of ``Backend`` whose instances compute on one device. ``Backend`` gathers
the kernel families (one file each in this package, mirroring the backends' own files); in them
a method marked ``@required`` is a primitive every backend implements, and any other method is a
default written once against ``self.xp``, the Array API namespace of the backend's arrays, which
a backend overrides only where it is measurably faster. A backend names the modules that hold its
implementations (``class NumpyBackend(Backend, kernels=FAMILIES)``); each public name there must
be a declared kernel with the declared parameters (tests/backends/test_base.py).

>>> from ember.backends.base import Backend, required_kernels
>>> "idx_scatter" in required_kernels(), "ew_add" in required_kernels()
(True, False)
"""

import types

from ... import dtypes as _dtypes

from .declare import is_metadata, is_required, required
from .core import CoreKernels
from .creation import CreationKernels
from .movement import MovementKernels
from .segments import SegmentsKernels
from .slicing import SlicingKernels
from .elementwise import ElementwiseKernels
from .bitwise import BitwiseKernels
from .compare import CompareKernels
from .reduce import ReduceKernels
from .scan import ScanKernels
from .sort import SortKernels
from .indexing import IndexingKernels
from .linalg import LinAlgFailure, LinalgKernels
from .random import RandomKernels
from .nn import NnKernels
from .activation import ActivationKernels
from .linear import LinearKernels
from .conv import ConvKernels
from .pool import PoolKernels
from .normalization import NormalizationKernels
from .loss import LossKernels
from .dropout import DropoutKernels
from .attention import AttentionKernels
from .optim import OptimKernels
from .io import IoKernels
from .threads import ThreadsKernels
from .sampling import SamplingKernels
from .quantization import QuantizationKernels
from .color import ColorKernels
from .morphology import MorphologyKernels
from .components import ComponentsKernels
from .suppression import SuppressionKernels
from .distributed import DistributedKernels
from .dlpack import DlpackKernels
from .array_api import ArrayApiKernels
from .fft import FftKernels
from .fusion import FusionKernels
from .host import HostKernels

__all__ = ["Backend", "HostKernels", "required", "required_kernels", "kernel_names",
           "kernel_class", "metadata_kernels", "generator_position"]


class Backend(CoreKernels, CreationKernels, MovementKernels, SegmentsKernels,
              SlicingKernels, ElementwiseKernels, BitwiseKernels, CompareKernels,
              ReduceKernels, ScanKernels, SortKernels, IndexingKernels, LinalgKernels,
              RandomKernels, NnKernels, ActivationKernels, LinearKernels, ConvKernels,
              PoolKernels, NormalizationKernels, LossKernels, DropoutKernels,
              AttentionKernels, OptimKernels, IoKernels, ThreadsKernels, SamplingKernels,
              QuantizationKernels, ColorKernels, MorphologyKernels, ComponentsKernels,
              SuppressionKernels, DistributedKernels, DlpackKernels, ArrayApiKernels,
              FftKernels, FusionKernels):
    """The kernels of one device. Class attributes a backend sets: ``name`` (its registry
    name), ``xp`` (the Array API namespace of its arrays), ``Array`` (its array type) and the
    abilities below; instances hold every kernel in their own ``__dict__`` (one dictionary hit
    per call) and know their ``device`` (an ember Device) and ``native_device`` (what ``xp``'s
    creation functions take as ``device=``).

    A default creates arrays with ``self.xp.zeros(shape, dtype=self.native_dtype(dtype),
    device=self.native_device)``, computes with the standard's functions only (no ``out=``, no
    item assignment: the arrays of some libraries are immutable) and calls other kernels as
    ``self.<kernel>``."""

    name = None
    xp = None
    Array = None
    #: the ``device=`` argument of ``self.xp``'s creation functions for this backend's device
    native_device = None
    #: the widest float dtype the device computes in (defaults work in it where precision matters)
    widest_float = _dtypes.float64
    #: computes deferred element-wise chains (``ew_evaluate``, ``ew_chain_sum``): its module wraps
    #: the backend in ``ember.backends.lazy.Lazy``
    fuses = False
    #: every kernel's result is computed when it returns (False for the wrapper ``Lazy``, whose
    #: ``realize`` computes a deferred result)
    eager = True
    #: in-place element-wise writes into an exclusively held buffer (``ew_inplace``)
    writes_in_place = False
    #: whether arrays have a memory layout ``shares_memory`` sees; without one (the standard's
    #: arrays) a reshape is a view, as PyTorch's of a contiguous tensor
    has_layout = True
    #: whether float arithmetic keeps subnormal values; XLA on a CPU flushes them to zero (FTZ,
    #: DAZ), so a result or an operand below the smallest normal float is a signed zero there
    keeps_subnormals = True
    #: whether a forked child process may compute on the device (a DataLoader worker builds its
    #: batches there); XLA's thread pools do not survive a fork: a forked child deadlocks
    survives_fork = True

    class RaggedError(ValueError):
        """Nested data whose rows differ in length."""

    class RankError(ValueError):
        """Nested data deeper than an array may be."""

    LinAlgFailure = LinAlgFailure

    def __init_subclass__(cls, kernels=(), **kwargs):
        super().__init_subclass__(**kwargs)
        declared = kernel_names(cls)
        for module in kernels:
            for name in module.__all__:
                value = getattr(module, name)
                if name not in declared and name not in _ATTRIBUTES:
                    raise TypeError(f"{cls.__name__}: {module.__name__}.{name} is not a "
                                    "declared kernel (declare it in ember/backends/base)")
                setattr(cls, name, staticmethod(value) if name in declared else value)
        if cls.name is not None:
            missing = [n for n in required_kernels(cls) if is_required(getattr(cls, n))]
            if missing:
                raise TypeError(f"{cls.__name__} lacks the required kernels " + ", ".join(missing))

    def __init__(self, device):
        self.device = device
        own = self.__dict__
        for name in kernel_names(type(self)):
            kernel = getattr(self, name)
            own[name] = kernel if is_metadata(kernel) else self._prepare(kernel)

    def _prepare(self, kernel):
        """The callable stored for ``kernel`` (a backend binds device parameters here); a
        ``metadata`` default is stored as written, without it."""
        return kernel

    def __repr__(self):
        return f"<{self.name} kernels on {self.device}>"


_ATTRIBUTES = {"Array", "RaggedError", "RankError", "LinAlgFailure"}
_names = {}


def kernel_names(cls=None):
    """The names of every kernel declared for the backend class ``cls`` (default: every
    backend's), required and default, in declaration order: the methods of the kernel families
    of this package among its bases (``HostKernels`` adds the host backend's)."""
    cls = Backend if cls is None else cls
    found = _names.get(cls)
    if found is None:
        found, seen = [], set()
        for family in cls.__mro__:
            if family.__module__.startswith(__name__ + ".") and family.__name__.endswith("Kernels"):
                for name, value in vars(family).items():
                    if isinstance(value, types.FunctionType) and not name.startswith("_") and name not in seen:
                        seen.add(name)
                        found.append(name)
        _names[cls] = found
    return found


def required_kernels(cls=None):
    """The names of the required primitives of the backend class ``cls`` (default: every
    backend's): those it must implement."""
    cls = Backend if cls is None else cls
    return [n for n in kernel_names(cls) if is_required(vars(_declaring(cls, n))[n])]


def kernel_class(backend):
    """The Backend class whose kernels ``backend`` has (a wrapper's, such as the fusion
    wrapper ``Lazy``: the wrapped backend's)."""
    return type(getattr(backend, "inner", backend))


def metadata_kernels(cls):
    """The names of the kernels of Backend class ``cls`` declared ``@metadata`` (a backend's
    override, or a wrapper's copy, may lack the mark)."""
    return frozenset(n for n in kernel_names(cls) if is_metadata(vars(_declaring(cls, n))[n]))


def generator_position(cls, name):
    """Where kernel ``name`` of Backend class ``cls`` takes the random generator it draws from
    (``gen``: its index among the arguments after ``self``), or None when it takes none.

    >>> generator_position(Backend, "random_normal"), generator_position(Backend, "ew_add")
    (4, None)
    """
    fn = vars(_declaring(cls, name))[name]
    while getattr(fn, "__wrapped__", None) is not None:  # a decorated default
        fn = fn.__wrapped__
    code = fn.__code__
    names = code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]
    return names.index("gen") if "gen" in names else None


def _declaring(cls, name):
    """The kernel family of ``cls``'s bases that declares ``name``."""
    for family in cls.__mro__:
        if family.__module__.startswith(__name__ + ".") and name in vars(family):
            return family
    return Backend
