"""ember: a tensor library for Python with PyTorch's habits, Burn's contracts and a small core.

>>> import ember
>>> ember.tensor([[1.0, 2.0], [3.0, 4.0]]).shape
(2, 2)
"""

from . import dtypes
from .autodiff import (Gradients, enable_grad, grad_enabled, inference_mode, no_grad,
                       set_grad_enabled)
from .dtypes import (DType, bfloat16, complex64, complex128, float16, float32, float64, int8,
                     int16, int32, int64, promote_types, result_type, uint8, uint16, uint32,
                     uint64)
from .dtypes import bool_
from .errors import (DimensionError, EmberError, GraphError, InvalidParameterError, KindError,
                     ShapeMismatchError)
from .errors import DeviceError, DistributedError
from .devices import Device, devices, get_default_device, set_default_device
from ._tensor import Tensor
from . import ops
from .ops.bitwise import *  # noqa: F401,F403
from .ops.compare import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.data import *  # noqa: F401,F403
from .ops.dlpack import *  # noqa: F401,F403
from .ops.display import *  # noqa: F401,F403
from .ops.arith import *  # noqa: F401,F403
from .ops.float_math import *  # noqa: F401,F403
from .ops.clamps import *  # noqa: F401,F403
from .ops.complex_parts import *  # noqa: F401,F403
from .ops.extremes import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.inplace import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.masking import *  # noqa: F401,F403
from .ops.norms import *  # noqa: F401,F403
from .ops.pad import *  # noqa: F401,F403
from .ops.quantization import *  # noqa: F401,F403
from .ops.random import *  # noqa: F401,F403
from .ops.repeat import *  # noqa: F401,F403
from .ops.reduce import *  # noqa: F401,F403
from .ops.sampling import *  # noqa: F401,F403
from .ops.scan import *  # noqa: F401,F403
from .ops.segments import *  # noqa: F401,F403
from .ops.slicing import *  # noqa: F401,F403
from .ops.sort import *  # noqa: F401,F403
from .ops.statistics import *  # noqa: F401,F403
from .ops.triangles import *  # noqa: F401,F403
from .ops.views import *  # noqa: F401,F403

from . import io, nn, optim, vision  # noqa: E402  (they build on the op families above)
from .io.checkpoint import load, save  # noqa: E402  (ember.save / ember.load, as torch's)
from .compiler import compile  # noqa: E402,A001  (ember.compile, as torch.compile)
from . import return_types  # noqa: E402
from .threads import get_num_threads, set_num_threads  # noqa: E402
from . import linalg  # noqa: E402,F811  (the torch.linalg namespace)
from . import fft  # noqa: E402,F811  (the torch.fft namespace)

# PyTorch's dtype aliases. They shadow the builtins in this module's namespace only, so they
# come last; no other module of ember sees them.
bool = bool_  # noqa: A001  (ember.bool, as torch.bool)
float = float32  # noqa: A001
double = float64
half = float16
int = int32  # noqa: A001
long = int64
short = int16

__version__ = "0.1.0"
from . import array_api  # noqa: E402,F401  (the Array API namespace)
from . import cuda  # noqa: E402,F401
from .devices import _env_default  # noqa: E402

_env_default()  # EMBER_DEVICE, once every backend can load
del _env_default

from .ops import aliasing as _aliasing  # noqa: E402

_aliasing.install(Tensor)  # views record their base, once every op family has its methods
