"""``ember.torch``: PyTorch's API, exactly, on ember's engine.

A PyTorch program ports by changing its imports (``import ember.torch as torch``,
``import ember.torch.nn as nn``, ``from ember.torch.utils.data import DataLoader``); tensors made
or returned here have PyTorch's methods (``ember.torch.Tensor``), while ``import ember`` keeps
the spec's API. ``as_torch`` and ``as_ember`` convert between the two without copying.
docs/pytorch.md lists every name whose meaning differs between the two APIs.

>>> import ember.torch as torch
>>> x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
>>> pred = x.argmax(1)
>>> (pred == torch.tensor([1, 2])).type(torch.float).sum().item()
2.0
"""

import builtins as _builtins
import types as _types

import ember as _e

from ._tensor import (Size, Tensor, as_ember, as_torch, functions as _functions,  # noqa: F401
                      to_torch as _to_torch, torch_function as _torch_function)
from . import methods as _methods  # noqa: F401  (PyTorch's meanings of the Tensor methods)
from .printing import tensor_format as _tensor_format

Tensor.__format__ = _tensor_format

# -- dtypes: twins of ember's that print as PyTorch's (torch.float32 == ember.float32) --------
from ._dtypes import TorchDType as dtype, twin as _twin  # noqa: F401

(float64, float32, float16, bfloat16, int64, int32, int16, int8, uint8, uint16, uint32, uint64,
 bool, complex64, complex128) = map(_twin, (  # noqa: A001
    "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
    "uint16", "uint32", "uint64", "bool", "complex64", "complex128"))
from ..devices import Device as device  # noqa: F401
from ..errors import (DeviceError, DimensionError, EmberError, GraphError,  # noqa: F401
                      InvalidParameterError, KindError, ShapeMismatchError)
from ..autodiff import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401
from ..ops.random import Generator, default_generator  # noqa: F401
from ..threads import get_num_threads, set_num_threads  # noqa: F401

float = float32  # noqa: A001
double = float64
half = float16
cfloat = complex64
cdouble = complex128
int = int32  # noqa: A001
long = int64
short = int16

# ember's module-level functions already speak PyTorch (docs/pytorch.md); these differ or are
# not PyTorch's names, and are not exported here
_NOT_TORCH = _builtins.frozenset((
    "s", "tour", "devices", "dtypes", "shapes", "threads", "ops", "io", "vision",
    "array_api", "return_types", "backends", "errors", "autodiff", "train",
    "save", "load",  # ember.torch.serialization's, which read and write PyTorch's files
    "compile",  # ember.torch.compiled's, with torch.compile's options
))

for _name in dir(_e):
    if _name.startswith("_") or _name in globals() or _name in _NOT_TORCH:
        continue
    _value = getattr(_e, _name)
    if isinstance(_value, (_types.ModuleType, _builtins.type)) or not callable(_value):
        continue
    _torch_function(_value, name=_name)


def is_tensor(obj):
    """Whether ``obj`` is a tensor (of either API), as ``torch.is_tensor``.

    >>> import ember.torch as torch
    >>> torch.is_tensor(torch.ones(1)), torch.is_tensor([1])
    (True, False)
    """
    return isinstance(obj, _e.Tensor)


from . import accelerator, backends, cuda  # noqa: E402,F401
from . import (linear_algebra_products, reductions, shapes_and_grids,  # noqa: E402,F401
               histograms, windows)
from . import special, fft, linalg  # noqa: E402,F401
from . import elementwise, aliases  # noqa: E402,F401
from . import info, legacy_types, linalg_legacy, strided  # noqa: E402,F401
from . import indexing, creation, conversion, inplace  # noqa: E402,F401
from .conversion import (channels_last, channels_last_3d, contiguous_format,  # noqa: E402,F401
                         memory_format, preserve_format)
from .serialization import load, save  # noqa: E402,F401
from .compiled import compile  # noqa: E402,F401,A001
from . import functions  # noqa: E402,F401  (torch.<name>(x, ...) as x.<name>(...))
from . import onnx  # noqa: E402,F401
from . import nn_twins  # noqa: E402,F401  (torch.embedding, torch.lstm ...: ATen's signatures)
from .amp import GradScaler, autocast  # noqa: E402,F401  (and torch.amp, torch.cpu)
from . import (runtime, cpu, streams, control_flow, complex_views,  # noqa: E402,F401
               scalar_and_index, tensor_attributes, resizing, slicing_inverse, segments,
               hashing, spectral, random_counts, lowrank, linalg_ldl)
from . import nn, optim, utils, autograd, func  # noqa: E402,F401
from .autograd import set_grad_enabled  # noqa: E402,F401,F811  (a decorator too)
from ._tensor import adopt_inherited as _adopt_inherited  # noqa: E402
from ..ops import aliasing as _aliasing  # noqa: E402

globals().update(_functions)  # the functions the modules above registered, over ember's
from . import out_param as _out_param  # noqa: E402,F401  (out=, where PyTorch has it)
_adopt_inherited()  # every other method of ember.Tensor, its results as ember.torch tensors
# PyTorch's own view methods record their base (ember/ops/aliasing.py), converting their
# results themselves
_aliasing.install(Tensor, _to_torch)
del _name, _value

# Submodules that build on the whole ``ember.torch`` namespace, loaded on first use (so importing
# ember.torch stays quick and they can use every name above): ``torch.distributions``.
_ON_FIRST_USE = ("distributions",)


def __getattr__(name):
    if name in _ON_FIRST_USE:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
