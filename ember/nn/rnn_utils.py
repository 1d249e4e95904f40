"""PyTorch's ``torch.nn.utils.rnn``: sequences of unequal lengths for the recurrent layers.

A ``PackedSequence`` holds the time steps of a batch one after the other, each step only the
sequences still running (``batch_sizes[t]`` rows, sequences sorted by decreasing length);
``sorted_indices``/``unsorted_indices`` map between that order and the caller's.
``pack_padded_sequence`` and ``pack_sequence`` build one, ``pad_packed_sequence`` and
``unpack_sequence`` undo it; ``pad_sequence``/``unpad_sequence`` pad a list to one tensor and
back. All are ember ops (indexing, cat, stack), so gradients flow through them.

>>> import ember
>>> from ember.nn import rnn_utils as R
>>> seqs = [ember.tensor([1.0, 2.0, 3.0]), ember.tensor([4.0]), ember.tensor([5.0, 6.0])]
>>> p = R.pack_sequence(seqs, enforce_sorted=False)
>>> p.data.tolist(), p.batch_sizes.tolist()
([1.0, 5.0, 4.0, 2.0, 6.0, 3.0], [3, 2, 1])
>>> padded, lengths = R.pad_packed_sequence(p, batch_first=True)
>>> padded.tolist(), lengths.tolist()
([[1.0, 2.0, 3.0], [4.0, 0.0, 0.0], [5.0, 6.0, 0.0]], [3, 1, 2])
"""

from collections import namedtuple

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor
from ..ops.creation import full, tensor
from ..ops.segments import cat, stack

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


def _tensor_arg(x, op, param):
    if not isinstance(x, Tensor):
        raise InvalidParameterError(f"{op}: {param} must be a Tensor, got {type(x).__name__}",
                                    param, x)
    return x


def _index_tensor(t, op, param):
    if t is None:
        return None
    if not isinstance(t, Tensor):
        t = tensor(list(t), dtype=_dt.int64)
    if t._dtype.kind != "int" or t.ndim != 1:
        raise KindError(f"{op}: {param} must be a 1-D int64 tensor, got a {t.ndim}-D "
                        f"{t._dtype.name} tensor")
    return t


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (a 1-D int tensor), or None for None.

    >>> import ember
    >>> from ember.nn.rnn_utils import invert_permutation
    >>> invert_permutation(ember.tensor([2, 0, 1])).tolist()
    [1, 2, 0]
    """
    if permutation is None:
        return None
    p = _index_tensor(permutation, "invert_permutation", "permutation")
    order = p.tolist()
    inv = [0] * len(order)
    for i, j in enumerate(order):
        inv[j] = i
    return tensor(inv, dtype=_dt.int64, device=p._device)


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """PyTorch's ``PackedSequence``: ``data`` (sum of batch_sizes, *), ``batch_sizes`` (an
    int64 tensor, one per step), ``sorted_indices`` and ``unsorted_indices`` (None when the
    batch came sorted). Given only ``sorted_indices``, ``unsorted_indices`` is its inverse.

    >>> import ember
    >>> from ember.nn.rnn_utils import PackedSequence
    >>> p = PackedSequence(ember.ones(3, 2), ember.tensor([2, 1]))
    >>> p.batch_sizes.tolist(), p.sorted_indices
    ([2, 1], None)
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        op = "PackedSequence"
        if batch_sizes is None:
            raise InvalidParameterError(f"{op}: batch_sizes is required", "batch_sizes", None)
        batch_sizes = _index_tensor(batch_sizes, op, "batch_sizes")
        sorted_indices = _index_tensor(sorted_indices, op, "sorted_indices")
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        else:
            unsorted_indices = _index_tensor(unsorted_indices, op, "unsorted_indices")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The sequence with ``data.to(*args, **kwargs)`` (and the indices on its device).

        >>> import ember
        >>> from ember.nn.rnn_utils import PackedSequence
        >>> PackedSequence(ember.ones(1), ember.tensor([1])).to(ember.float64).data.dtype
        ember.float64
        """
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        dev = data.device
        idx = [None if t is None else t.to(dev) for t in (self.sorted_indices,
                                                            self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *idx)

    def cpu(self):
        """The sequence on the CPU (``to("cpu")``)."""
        return self.to("cpu")

    def double(self):
        """The sequence with float64 data."""
        return self.to(_dt.float64)

    def float(self):
        """The sequence with float32 data."""
        return self.to(_dt.float32)

    def half(self):
        """The sequence with float16 data."""
        return self.to(_dt.float16)

    @property
    def is_cuda(self):
        """Whether the data is on a CUDA device."""
        return self.data.device.type == "cuda"

    def is_pinned(self):
        """False: ember does not pin memory."""
        return False


def _lengths(lengths, op):
    if isinstance(lengths, Tensor):
        if lengths._dtype.kind != "int" or lengths.ndim != 1:
            raise KindError(f"{op}: lengths must be a 1-D int tensor or a list of ints, got a "
                            f"{lengths.ndim}-D {lengths._dtype.name} tensor")
        return [int(n) for n in lengths.tolist()]
    try:
        out = [int(n) for n in lengths]
    except TypeError:
        raise InvalidParameterError(f"{op}: lengths must be a 1-D int tensor or a list of ints, "
                                    f"got {type(lengths).__name__}", "lengths",
                                    lengths) from None
    return out


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``input`` (T, B, *) (``batch_first``: (B, T, *)) whose sequence b
    has ``lengths[b]`` steps. ``enforce_sorted=True`` requires decreasing lengths; otherwise
    the batch is sorted and the PackedSequence keeps the permutation.

    >>> import ember
    >>> from ember.nn.rnn_utils import pack_padded_sequence
    >>> x = ember.tensor([[1.0, 2.0], [3.0, 0.0]])
    >>> pack_padded_sequence(x, [2, 1], batch_first=True).data.tolist()
    [1.0, 3.0, 2.0]
    """
    op = "pack_padded_sequence"
    x = _tensor_arg(input, op, "input")
    lens = _lengths(lengths, op)
    if x.ndim < 2:
        raise ShapeMismatchError(f"{op}: input has shape {tuple(x.shape)}; expected (T, B, *)",
                                 expected="(T, B, *)", actual=tuple(x.shape))
    if batch_first:
        x = x.transpose(0, 1)
    T, B = x.shape[0], x.shape[1]
    if len(lens) != B:
        raise ShapeMismatchError(f"{op}: expected {B} lengths (the batch size), got {len(lens)}",
                                 expected=B, actual=len(lens))
    if any(n <= 0 for n in lens):
        raise InvalidParameterError(f"{op}: lengths {lens}: the length of every sequence has "
                                    "to be greater than 0", "lengths", lens)
    if max(lens) > T:
        raise InvalidParameterError(f"{op}: a length of {max(lens)} is over the {T} steps of "
                                    "input", "lengths", lens)
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise InvalidParameterError(f"{op}: lengths {lens} must be sorted in decreasing "
                                        "order when enforce_sorted is True (pass "
                                        "enforce_sorted=False to have them sorted)", "lengths",
                                        lens)
    else:
        order = sorted(range(B), key=lambda b: -lens[b])
        lens = [lens[b] for b in order]
        sorted_indices = tensor(order, dtype=_dt.int64, device=x._device)
        x = x[:, sorted_indices]
    sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    data = cat([x[t, :b] for t, b in enumerate(sizes)], 0)
    return PackedSequence(data, tensor(sizes, dtype=_dt.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo ``pack_padded_sequence``: ``(padded, lengths)``, padded (T, B, *) (``batch_first``:
    (B, T, *)) with ``padding_value``, T = ``total_length`` if given, and the lengths (int64)
    in the caller's batch order.

    >>> import ember
    >>> from ember.nn.rnn_utils import pack_sequence, pad_packed_sequence
    >>> p = pack_sequence([ember.tensor([1.0, 2.0]), ember.tensor([3.0])])
    >>> x, lengths = pad_packed_sequence(p, padding_value=-1.0, total_length=3)
    >>> x.tolist(), lengths.tolist()
    ([[1.0, 3.0], [2.0, -1.0], [-1.0, -1.0]], [2, 1])
    """
    op = "pad_packed_sequence"
    if not isinstance(sequence, PackedSequence):
        raise InvalidParameterError(f"{op}: sequence must be a PackedSequence, got "
                                    f"{type(sequence).__name__}", "sequence", sequence)
    data = sequence.data
    sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    T, B = len(sizes), sizes[0]
    if total_length is not None:
        if isinstance(total_length, bool) or not isinstance(total_length, int) \
                or total_length < T:
            raise InvalidParameterError(f"{op}: expected total_length to be at least the "
                                        f"length of the longest sequence ({T}), got "
                                        f"{total_length!r}", "total_length", total_length)
    feat = tuple(data.shape[1:])
    steps, start = [], 0
    for b in sizes:
        part = data[start:start + b]
        if b < B:
            part = cat([part, full((B - b,) + feat, padding_value, dtype=data._dtype,
                                   device=data._device)], 0)
        steps.append(part)
        start += b
    if total_length is not None and total_length > T:
        steps += [full((B,) + feat, padding_value, dtype=data._dtype, device=data._device)] \
            * (total_length - T)
    padded = stack(steps, 0)
    lens = [sum(1 for s in sizes if s > b) for b in range(B)]
    if sequence.unsorted_indices is not None:
        order = sequence.unsorted_indices
        padded = padded[:, order]
        lens = [lens[i] for i in order.tolist()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, tensor(lens, dtype=_dt.int64)


def _sequences(sequences, op):
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    try:
        seqs = list(sequences)
    except TypeError:
        raise InvalidParameterError(f"{op}: sequences must be a list of tensors, got "
                                    f"{type(sequences).__name__}", "sequences",
                                    sequences) from None
    if not seqs:
        raise InvalidParameterError(f"{op}: sequences is empty; expected at least one tensor",
                                    "sequences", seqs)
    for i, s in enumerate(seqs):
        _tensor_arg(s, op, f"sequences[{i}]")
        if s.ndim == 0:
            raise ShapeMismatchError(f"{op}: sequences[{i}] is 0-d; expected (L, *)",
                                     expected="(L, *)", actual=())
        if tuple(s.shape[1:]) != tuple(seqs[0].shape[1:]):
            rest = ", ".join(map(str, seqs[0].shape[1:]))
            raise ShapeMismatchError(f"{op}: sequences[{i}] has shape {tuple(s.shape)}; every "
                                     f"sequence must be (L, {rest})",
                                     expected=tuple(seqs[0].shape[1:]),
                                     actual=tuple(s.shape))
    return seqs


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors (L_i, *) into (T, B, *) (``batch_first``: (B, T, *)), T the longest L_i,
    padded with ``padding_value`` on ``padding_side`` ("right" or "left").

    >>> import ember
    >>> from ember.nn.rnn_utils import pad_sequence
    >>> pad_sequence([ember.tensor([1.0, 2.0]), ember.tensor([3.0])], batch_first=True,
    ...              padding_side="left").tolist()
    [[1.0, 2.0], [0.0, 3.0]]
    """
    op = "pad_sequence"
    if padding_side not in ("left", "right"):
        raise InvalidParameterError(f"{op}: padding_side is {padding_side!r}; expected 'left' "
                                    "or 'right'", "padding_side", padding_side)
    seqs = _sequences(sequences, op)
    T = max(s.shape[0] for s in seqs)
    rows = []
    for s in seqs:
        n = T - s.shape[0]
        if n:
            pad = full((n,) + tuple(s.shape[1:]), padding_value, dtype=s._dtype,
                       device=s._device)
            s = cat([s, pad] if padding_side == "right" else [pad, s], 0)
        rows.append(s)
    return stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences in a padded batch: ``padded_sequences`` (T, B, *) (or (B, T, *)),
    sequence b its first ``lengths[b]`` steps.

    >>> import ember
    >>> from ember.nn.rnn_utils import unpad_sequence
    >>> [s.tolist() for s in unpad_sequence(ember.tensor([[1.0, 2.0], [3.0, 0.0]]), [2, 1],
    ...                                     batch_first=True)]
    [[1.0, 2.0], [3.0]]
    """
    op = "unpad_sequence"
    x = _tensor_arg(padded_sequences, op, "padded_sequences")
    lens = _lengths(lengths, op)
    if x.ndim < 2:
        raise ShapeMismatchError(f"{op}: padded_sequences has shape {tuple(x.shape)}; expected "
                                 "(T, B, *)", expected="(T, B, *)", actual=tuple(x.shape))
    if not batch_first:
        x = x.transpose(0, 1)
    if len(lens) != x.shape[0]:
        raise ShapeMismatchError(f"{op}: expected {x.shape[0]} lengths (the batch size), got "
                                 f"{len(lens)}", expected=x.shape[0], actual=len(lens))
    for n in lens:
        if not 0 <= n <= x.shape[1]:
            raise InvalidParameterError(f"{op}: length {n} is outside [0, {x.shape[1]}]",
                                        "lengths", lens)
    return [x[b, :n] for b, n in enumerate(lens)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of tensors (L_i, *): ``pack_padded_sequence(pad_sequence(sequences),
    lengths, enforce_sorted=enforce_sorted)``.

    >>> import ember
    >>> from ember.nn.rnn_utils import pack_sequence
    >>> pack_sequence([ember.tensor([1.0, 2.0]), ember.tensor([3.0])]).batch_sizes.tolist()
    [2, 1]
    """
    seqs = _sequences(sequences, "pack_sequence")
    return pack_padded_sequence(pad_sequence(seqs), [s.shape[0] for s in seqs],
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Undo ``pack_sequence``: the list of sequences, in the caller's order.

    >>> import ember
    >>> from ember.nn.rnn_utils import pack_sequence, unpack_sequence
    >>> p = pack_sequence([ember.tensor([1.0]), ember.tensor([2.0, 3.0])], enforce_sorted=False)
    >>> [s.tolist() for s in unpack_sequence(p)]
    [[1.0], [2.0, 3.0]]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
