"""Shared pieces of gradient rules, written with ember ops (so every rule works on every backend
and can be differentiated again).

A rule (see ``ember._tensor.record``) gets the gradient of its step's result as a Tensor and
returns one Tensor per input; these helpers undo the broadcasting and the reductions that a
forward op did.
"""

from .._tensor import wrap

__all__ = ["sum_to", "fit", "unreduce", "array_rule"]


def sum_to(g, shape):
    """``g`` summed over the dims that broadcasting added or expanded, to get ``shape`` back.

    >>> import ember
    >>> sum_to(ember.ones(2, 3), (1, 3)).tolist()
    [[2.0, 2.0, 2.0]]
    """
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axes, keepdim=True) if axes else g


def fit(g, x):
    """The gradient ``g`` of a broadcast operand ``x``: summed to ``x``'s shape, in its dtype."""
    g = sum_to(g, x.shape)
    return g if g._dtype is x._dtype else g.cast(x._dtype)


def unreduce(g, shape, axes, keepdim):
    """The gradient ``g`` of a reduction over ``axes`` of a tensor of ``shape``, spread back
    over the reduced dims (``keepdim``: whether the reduction kept them).

    >>> import ember
    >>> unreduce(ember.tensor([1.0, 2.0]), (2, 3), (1,), False).tolist()
    [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    """
    shape = tuple(shape)
    if not keepdim:
        for a in sorted(axes):
            g = g.unsqueeze(a)
    return g.expand(*shape) if tuple(g.shape) != shape else g


def array_rule(rule, dtype, out=None):
    """The rule ``rule`` (on Tensors) as a rule on backend arrays, ``backward(g, needs)``, for a
    step recorded with ``record_arrays`` (the "balanced" checkpointing strategy recomputes on
    arrays); ``dtype`` is the result's dtype, ``out`` the result's array if the rule reads it."""
    out_t = None if out is None else wrap(out, dtype)

    def backward(g, needs):
        return [None if r is None else r._data for r in rule(wrap(g, dtype), needs, out_t)]
    return backward
