"""Linear algebra functions of the Array API standard's main namespace (``linalg`` has the rest)."""

import builtins
import math

from ..errors import ShapeMismatchError
from .._tensor import Tensor
from ._elementwise import _binary, conj
from ._statistics import sum

_int = builtins.int


# -- linear algebra -------------------------------------------------------------------------------

def matmul(x1, x2, /):
    return _binary("matmul", Tensor.matmul)(x1, x2)


def matrix_transpose(x, /):
    return x.mT


def tensordot(x1, x2, /, *, axes=2):
    if isinstance(axes, _int):
        a1 = list(range(x1.ndim - axes, x1.ndim))
        a2 = list(range(axes))
    else:
        a1, a2 = [list(a) for a in axes]
    a1 = [a % x1.ndim for a in a1] if x1.ndim else a1
    a2 = [a % x2.ndim for a in a2] if x2.ndim else a2
    free1 = [d for d in range(x1.ndim) if d not in a1]
    free2 = [d for d in range(x2.ndim) if d not in a2]
    k = math.prod(x1.shape[d] for d in a1)
    left = x1.permute(free1 + a1).reshape((math.prod(x1.shape[d] for d in free1), k))
    right = x2.permute(a2 + free2).reshape((k, math.prod(x2.shape[d] for d in free2)))
    out = matmul(left, right)
    return out.reshape(tuple(x1.shape[d] for d in free1) + tuple(x2.shape[d] for d in free2))


def vecdot(x1, x2, /, *, axis=-1):
    x1, x2 = _binary("vecdot", lambda a, b: (a, b))(x1, x2)
    n1 = x1.shape[axis] if x1.ndim else None
    n2 = x2.shape[axis] if x2.ndim else None
    if n1 is None or n2 is None or n1 != n2:
        raise ShapeMismatchError(f"vecdot: shapes {x1.shape} and {x2.shape} differ along axis "
                                 f"{axis}; expected equal sizes", n1, n2)
    # the standard's vecdot conjugates x1 (a real x1 is its own conjugate)
    return sum(conj(x1) * x2, axis=axis, dtype=x1.dtype)
