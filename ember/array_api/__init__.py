"""The Python Array API standard (2024.12) over ember's own ops.

``x.__array_namespace__()`` of an ember Tensor is this module: SciPy, scikit-learn
(``array_api_dispatch=True``), array-api-compat and einops take ember tensors through it. Every
function here is a rename or a short composition of ember ops, so gradients flow through it
(for real tensors: complex tensors have no gradients). Complex tensors (complex64, complex128)
go through the functions docs/complex.md lists; the others raise ``KindError``. The decisions
where the standard leaves room are listed in docs/array-api.md.

>>> import ember
>>> xp = ember.tensor([1.0, 4.0]).__array_namespace__()
>>> xp.sqrt(xp.asarray([1.0, 4.0])).tolist()
[1.0, 2.0]
>>> xp.sum(xp.ones((2, 3)), axis=1, keepdims=True).shape
(2, 1)
"""


import math
import sys

from ..dtypes import (bool_ as bool, complex64, complex128, float32, float64, int8,  # noqa: A004
                      int16, int32, int64, uint8, uint16, uint32, uint64)
from ..errors import InvalidParameterError
from ..ops.dlpack import from_dlpack
from .._tensor import Device, tensor_method
from ._info import __array_namespace_info__
from ._creation import (asarray, zeros, ones, empty, full, zeros_like, ones_like, empty_like,
                        full_like, arange, linspace, eye, tril, triu, meshgrid)
from ._data_types import (astype, can_cast, result_type, finfo_object, iinfo_object, finfo, iinfo,
                          isdtype)
from ._elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, bitwise_and,
                           bitwise_invert, bitwise_left_shift, bitwise_or, bitwise_right_shift,
                           bitwise_xor, ceil, clip, conj, copysign, cos, cosh, divide, equal, exp,
                           expm1, floor, floor_divide, greater, greater_equal, hypot, imag,
                           isfinite, isinf, isnan, less, less_equal, log, log10, log1p, log2,
                           logaddexp, logical_and, logical_not, logical_or, logical_xor, maximum,
                           minimum, multiply, negative, nextafter, not_equal, positive, pow, real,
                           reciprocal, remainder, round, sign, signbit, sin, sinh, sqrt, square,
                           subtract, tan, tanh, trunc)
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from ._manipulation import (take, take_along_axis, broadcast_arrays, broadcast_to, concat,
                            expand_dims, flip, moveaxis, permute_dims, repeat, reshape, roll, squeeze, stack, tile, unstack)
from ._searching import (argmax, argmin, count_nonzero, nonzero, where, searchsorted, argsort,
                         sort, unique_values, unique_counts, unique_inverse, unique_all)
from ._statistics import (sum, prod, mean, max, min, var, std, cumulative_sum, cumulative_prod,
                          all, any, diff)
from . import fft, linalg

__array_api_version__ = "2024.12"

e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None


@tensor_method
def __array_namespace__(self, /, *, api_version=None):
    """The Array API namespace of ember tensors: ``ember.array_api``.

    >>> import ember
    >>> ember.tensor([1.0]).__array_namespace__().__array_api_version__
    '2024.12'
    """
    if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12",
                                                       "2024.12"):
        raise InvalidParameterError(
            f"__array_namespace__: api_version {api_version!r} is not supported; expected "
            "None or one of '2021.12', '2022.12', '2023.12', '2024.12'", "api_version",
            api_version)
    return sys.modules[__name__]


