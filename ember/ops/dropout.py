"""``dropout`` and ``embedding`` (``ember.nn.functional``)."""

from .. import dtypes as _dt
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError

from .._tensor import check_tensor, record, wrap
from .indexing import linear_map
from .inplace import apply_inplace
from .nn_args import _backend, _float_tensor, _int, _real, _shape_str
from .random import _gen, _random


# -- dropout, embedding -------------------------------------------------------------------------

def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` when
    ``training``; the input itself otherwise. Draws from ember's generator
    (``ember.manual_seed`` reproduces the mask). ``inplace=True`` writes the result into
    ``input`` and its views, as PyTorch's (ember/ops/inplace.py's ``apply_inplace``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.ones(4)
    >>> F.dropout(x, 0.5, training=False) is x
    True
    >>> sorted(set(F.dropout(x, 0.5).tolist()) - {0.0, 2.0})
    []
    """
    op = "dropout"
    check_tensor(input, op, "input")
    p = _real(p, op, "p", 0.0, 1.0)
    if not isinstance(training, bool):
        raise InvalidParameterError(f"{op}: training must be a bool, got {training!r}",
                                    "training", training)
    if not isinstance(inplace, bool):
        raise InvalidParameterError(f"{op}: inplace must be a bool, got {inplace!r}",
                                    "inplace", inplace)
    x = input
    if x._dtype.kind != "float":
        if x._dtype.kind == "complex":
            raise _dt.complex_error(op, "input", x._dtype)
        raise KindError(f"{op}: input has dtype {x._dtype.name}; expected a float tensor")
    if not training or p == 0.0:
        return x
    npd = x._dtype
    be = x._device.backend
    if p == 1.0:
        mask = be.nn_full_like_shape(tuple(x.shape), 0, npd)
        scale = 0.0
    else:
        mask = _random("random_bernoulli", (be, _gen(None, "dropout", x._device)), "dropout",
                       tuple(x.shape), 1.0 - p, npd)
        scale = 1.0 / (1.0 - p)
    def apply(a):  # x * mask * scale: its own transpose
        return be.nn_dropout_apply(a, mask, scale)

    if inplace:
        return apply_inplace(x, lambda t: linear_map(t, apply, apply, op), op)
    return linear_map(x, apply, apply, op)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` (num, dim) picked by the int tensor ``input``: shape ``(*, dim)``;
    the row ``padding_idx`` gets no gradient (PyTorch's ``F.embedding``).

    ``max_norm`` (a number >= 0): first, each row that ``input`` picks and whose
    ``norm_type``-norm (a real number; ``inf`` for the largest absolute value) exceeds it is
    scaled by ``max_norm / (norm + 1e-7)``, as PyTorch. PyTorch writes that into the weight in
    place; ember's values are immutable, so ``weight`` (the same Tensor object) is *rebound* to
    the renormalized value, untracked, as an optimizer step rebinds a parameter: a leaf stays
    that leaf, tensors taken from it before keep the old values. ``scale_grad_by_freq`` divides
    each row's gradient by how often its index occurs in ``input``. ``sparse=True`` raises
    InvalidParameterError: ember has no sparse gradients.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> w = ember.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
    >>> F.embedding(ember.tensor([2, 1]), w).tolist()
    [[3.0, 4.0], [1.0, 2.0]]
    >>> [round(v, 4) for v in F.embedding(ember.tensor([2]), w, max_norm=1.0)[0].tolist()]
    [0.6, 0.8]
    >>> [round(v, 4) for v in w[2].tolist()]          # w was rebound: row 2 renormalized
    [0.6, 0.8]
    """
    w, padding_idx, be = _checked(input, weight, padding_idx, max_norm, norm_type,
                                  scale_grad_by_freq, sparse)
    op = "embedding"
    idx = input._data
    num = w._data.shape[0]

    def lookup(a):
        return be.nn_embedding(a, idx)

    if padding_idx is None and not scale_grad_by_freq:
        def scatter(g):
            return be.nn_embedding_grad(g, idx, num, None)

        return linear_map(w, lookup, scatter, op)
    out = lookup(w._data)
    dt = w._dtype

    def rule(g, needs, out_t):
        return (_embedding_grad(g, idx, num, padding_idx, scale_grad_by_freq, dt, op),)

    return record(out, dt, (w,), rule, op)


def _checked(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse):
    """``embedding``'s checks of its arguments and of the indices' range, then its ``max_norm``
    renorm of the weight: (the weight, ``padding_idx`` in [0, num) or None, the backend)."""
    op = "embedding"
    check_tensor(input, op, "input")
    if input._dtype.kind != "int":
        raise KindError(f"{op}: input has dtype {input._dtype.name}; expected an int tensor of "
                        "indices")
    w = _float_tensor(weight, op, "weight")
    if w.ndim != 2:
        raise ShapeMismatchError(f"{op}: weight has shape {_shape_str(w.shape)}; expected a 2-d "
                                 "(num_embeddings, embedding_dim) tensor", expected=2,
                                 actual=tuple(w.shape))
    num = w._data.shape[0]
    if padding_idx is not None:
        padding_idx = _int(padding_idx, op, "padding_idx")
        if not -num <= padding_idx < num:
            raise InvalidParameterError(
                f"{op}: padding_idx {padding_idx} is out of range for {num} embeddings; expected "
                f"an int in [{-num}, {num - 1}]", "padding_idx", padding_idx)
        padding_idx %= num
    if max_norm is not None:
        max_norm = _real(max_norm, op, "max_norm", 0.0)
    norm_type = _real(norm_type, op, "norm_type")
    for name, flag in () if scale_grad_by_freq.__class__ is bool is sparse.__class__ else (
            ("scale_grad_by_freq", scale_grad_by_freq), ("sparse", sparse)):
        if not isinstance(flag, bool):
            raise InvalidParameterError(f"{op}: {name} must be a bool, got {flag!r}", name, flag)
    if sparse:
        raise InvalidParameterError(
            f"{op}: sparse=True is not supported: ember has no sparse gradients; expected "
            "sparse=False (the gradient of the weight is a dense tensor)", "sparse", sparse)
    idx = input._data
    be = _backend((w, input), op)
    bad = be.nn_target_bad(idx, num, None)
    if bad is not None:
        raise DimensionError(f"{op}: index {bad} is out of range for {num} embeddings; expected "
                             f"indices in [0, {num - 1}]")
    if max_norm is not None:
        renormed = be.nn_embedding_renorm(w._data, idx, max_norm, norm_type)
        if renormed is not None:
            w._data = renormed      # PyTorch's in-place renorm: rebinds, records nothing
    return w, padding_idx, be


def _embedding_grad(g, idx, num, padding_idx, scale_grad_by_freq, dtype, op):
    """The gradient of the weight from the output's, ``g``, as a recorded step: rows summed
    (``S g``), divided by their counts (``scale_grad_by_freq``) and the ``padding_idx`` row
    zeroed, ``C S g`` with ``C`` a constant diagonal; its transpose is the lookup of ``C h``."""
    be = g._device.backend
    data = be.nn_embedding_grad(g._data, idx, num, padding_idx, scale_grad_by_freq)

    def rule(h, needs, out):
        ones = wrap(be.nn_full_like_shape(tuple(idx.shape) + (1,), 1, dtype), dtype)
        # C as a column: the step itself applied to ones counts each row's share
        scale = _embedding_grad(ones, idx, num, padding_idx, scale_grad_by_freq, dtype, op)
        plain = wrap(be.nn_embedding_grad(ones._data, idx, num, None), dtype)
        col = scale / plain.clamp_min(1.0)
        hc = h * col
        return (linear_map(hc, lambda a: be.nn_embedding(a, idx),
                           lambda a: be.nn_embedding_grad(a, idx, num, None), op),)

    return record(data, dtype, (g,), rule, op + "_grad")
