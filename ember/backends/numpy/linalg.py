"""NumPy kernels of the linalg family. Public names here are kernels (`be.NAME`); helpers start with _."""

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

from .core import allocates, sum_to_shape

__all__ = ["linalg_matmul", "linalg_matmul_grads", "linalg_dot", "linalg_outer", "linalg_cross",
           "linalg_reshape", "linalg_mul", "einsum_contract", "einsum_grads"]


def _matmul_shape(a, b):
    sa = (1,) + a.shape if a.ndim == 1 else a.shape
    sb = b.shape + (1,) if b.ndim == 1 else b.shape
    out = np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1])
    return out[:len(out) - (a.ndim == 1) - (b.ndim == 1)] if a.ndim == 1 else \
        out[:len(out) - (b.ndim == 1)]


@allocates(_matmul_shape)
def linalg_matmul(a, b):
    """NumPy's matmul (batched, broadcasting, 1-D operands promoted and removed)."""
    return np.asarray(np.matmul(a, b))


def linalg_matmul_grads(g, a, b, need_a, need_b):
    """The gradients of ``matmul(a, b)`` for the output gradient ``g``: (ga or None, gb or None)."""
    a1, b1 = a.ndim == 1, b.ndim == 1
    A = a[None, :] if a1 else a
    B = b[:, None] if b1 else b
    if a1 and b1:
        G = g.reshape(1, 1)
    elif a1:
        G = g[..., None, :]
    elif b1:
        G = g[..., :, None]
    else:
        G = g
    ga = gb = None
    batch = G.shape[:-2]
    if need_a:
        if A.ndim == 2 and B.ndim > 2 and B.shape[:-2] == batch:
            # sum over the batch of G_b @ B_b^T as one product
            k = B.shape[-2]
            rest = int(np.prod(batch, dtype=np.int64)) * G.shape[-1]
            Gm = np.moveaxis(G, -2, 0).reshape(G.shape[-2], rest)
            Bm = np.moveaxis(B, -2, 0).reshape(k, rest)
            ga = Gm @ Bm.T
        else:
            ga = sum_to_shape(np.matmul(G, np.swapaxes(B, -1, -2)), A.shape)
        ga = ga.reshape(a.shape)
    if need_b:
        if B.ndim == 2 and A.ndim > 2 and A.shape[:-2] == batch:
            rows = int(np.prod(batch, dtype=np.int64)) * A.shape[-2]
            gb = A.reshape(rows, A.shape[-1]).T @ G.reshape(rows, G.shape[-1])
        else:
            gb = sum_to_shape(np.matmul(np.swapaxes(A, -1, -2), G), B.shape)
        gb = gb.reshape(b.shape)
    return ga, gb


def linalg_dot(a, b):
    """The inner product of two 1-D arrays, as a 0-d array."""
    return np.asarray(np.dot(a, b))


@allocates(lambda a, b: a.shape + b.shape)
def linalg_outer(a, b):
    """The outer product of two 1-D arrays."""
    return np.multiply.outer(a, b)


def linalg_cross(a, b, dim):
    """The cross product along ``dim`` (size 3 in both), broadcasting the other dims."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    a = np.broadcast_to(a, shape)
    b = np.broadcast_to(b, shape)
    a0, a1, a2 = (np.take(a, i, axis=dim) for i in range(3))
    b0, b1, b2 = (np.take(b, i, axis=dim) for i in range(3))
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)


def linalg_mul(a, b):
    """The elementwise product with broadcasting."""
    return np.multiply(a, b)


def linalg_reshape(a, shape):
    """``a`` with a new shape of the same number of elements (a view where the layout allows)."""
    return a.reshape(shape)


# -- einsum -----------------------------------------------------------------------------------

_PATHS = {}
_PATHS_MAX = 2048
_SMALL = 1 << 15  # below this many multiply-adds NumPy's plain einsum loop beats a BLAS plan


def _path(eq, arrays):
    """The contraction order for ``eq`` on arrays of these shapes: False (NumPy's plain loop,
    for small problems) or a path of ``numpy.einsum_path``; computed once per equation and shapes."""
    key = (eq, tuple([x.shape for x in arrays]))
    path = _PATHS.get(key)
    if path is None:
        sizes = {}
        for term, x in zip(eq.split("->")[0].split(","), arrays):
            sizes.update(zip(term, x.shape))
        work = 1
        for n in sizes.values():
            work *= n
        if work <= _SMALL:
            path = False
        elif len(arrays) == 2:
            path = ["einsum_path", (0, 1)]
        else:
            path = np.einsum_path(eq, *arrays, optimize="greedy")[0]
        if len(_PATHS) >= _PATHS_MAX:
            _PATHS.clear()
        _PATHS[key] = path
    return path


@allocates()
def einsum_contract(eq, arrays):
    """``numpy.einsum`` of an explicit equation without ellipses, with a cached contraction order.

    Every label must have one size across the operands (no broadcasting left).
    """
    if len(arrays) == 1:
        return np.asarray(np.einsum(eq, arrays[0]))
    return np.asarray(np.einsum(eq, *arrays, optimize=_path(eq, arrays)))


def einsum_grads(g, arrays, subs, out, needs):
    """Gradients of ``einsum(",".join(subs) + "->" + out, *arrays)`` for output gradient ``g``.

    Each operand's gradient is the einsum of ``g`` with the other operands onto the operand's
    distinct labels; labels summed only inside that operand are broadcast back, and repeated
    labels (diagonals) put the result on the diagonal of a zero array.
    """
    grads = []
    sizes = {}
    for s, x in zip(subs, arrays):
        for lab, n in zip(s, x.shape):
            sizes[lab] = n
    for i, (s, x) in enumerate(zip(subs, arrays)):
        if not needs[i]:
            grads.append(None)
            continue
        uniq = "".join(dict.fromkeys(s))
        others = [subs[j] for j in range(len(subs)) if j != i]
        avail = set(out).union(*others) if others else set(out)
        present = "".join(lab for lab in uniq if lab in avail)
        eq = ",".join([out] + others) + "->" + present
        gi = einsum_contract(eq, [g] + [arrays[j] for j in range(len(arrays)) if j != i])
        if len(present) != len(uniq):
            gi = gi.reshape([sizes[lab] if lab in avail else 1 for lab in uniq])
            gi = np.broadcast_to(gi, [sizes[lab] for lab in uniq])
            if len(uniq) == len(s):
                gi = np.ascontiguousarray(gi)
        if len(uniq) != len(s):
            full = np.zeros(x.shape, dtype=gi.dtype)
            strides = [sum(full.strides[k] for k, lab2 in enumerate(s) if lab2 == lab)
                       for lab in uniq]
            diag = _as_strided(full, shape=gi.shape, strides=strides)
            diag[...] = gi
            gi = full
        grads.append(gi)
    return grads
