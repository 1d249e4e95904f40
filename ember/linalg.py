"""ember.linalg: PyTorch's ``torch.linalg`` namespace.

Norms (``norm``, ``vector_norm``, ``matrix_norm``), decompositions (``svd``, ``svdvals``,
``qr``, ``cholesky``, ``eigh``, ``eigvalsh``), ``inv``, ``pinv``, ``det``, ``slogdet``,
``matrix_rank``, ``matrix_power``, ``solve``, and the products ``matmul``, ``vecdot`` and
``cross``. Each is batched over leading dims and differentiable for real inputs; each takes
complex64/complex128 tensors too (docs/complex.md; norms, singular values, ``eigh``'s
eigenvalues and ``slogdet``'s ``logabsdet`` are real). See docs/linalg.md.

>>> import ember
>>> ember.linalg.det(ember.tensor([[2.0, 0.0], [0.0, 3.0]])).item()
6.0
"""

from .ops.decompositions import (QR, SVD, Eigh, SlogDet, cholesky, det, eigh,  # noqa: F401
                                 eigvalsh, inv, matrix_power, matrix_rank, pinv, qr, slogdet,
                                 solve, svd, svdvals)
from .ops.linalg import cross, matmul, vecdot  # noqa: F401
from .ops.norms import linalg_norm as norm  # noqa: F401
from .ops.norms import matrix_norm, vector_norm  # noqa: F401

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "pinv", "det", "slogdet", "solve",
           "svd", "svdvals", "qr", "cholesky", "eigh", "eigvalsh", "matrix_rank",
           "matrix_power", "matmul", "vecdot", "cross", "SVD", "QR", "Eigh", "SlogDet"]
