"""ember.linalg: PyTorch's ``torch.linalg`` namespace.

Norms (``norm``, ``vector_norm``, ``matrix_norm``), decompositions (``svd``, ``svdvals``,
``qr``, ``cholesky``, ``eigh``), ``inv``, ``det``, ``solve``, and the products ``matmul`` and
``cross``. Each is batched over leading dims and differentiable; see docs/linalg.md.

>>> import ember
>>> ember.linalg.det(ember.tensor([[2.0, 0.0], [0.0, 3.0]])).item()
6.0
"""

from .ops.decompositions import (QR, SVD, Eigh, cholesky, det, eigh, inv, qr, solve,  # noqa: F401
                                 svd, svdvals)
from .ops.linalg import cross, matmul  # noqa: F401
from .ops.norms import linalg_norm as norm  # noqa: F401
from .ops.norms import matrix_norm, vector_norm  # noqa: F401

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "det", "solve", "svd", "svdvals", "qr",
           "cholesky", "eigh", "matmul", "cross", "SVD", "QR", "Eigh"]
