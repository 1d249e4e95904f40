"""``ember.torch.nn.utils.rnn``: ember.nn.rnn_utils (PyTorch's ``torch.nn.utils.rnn``), its
results as ember.torch tensors. ``PackedSequence`` is ember.nn's, so ember.nn's and
ember.torch.nn's recurrent layers both take it.

>>> import ember.torch as torch
>>> from ember.torch.nn.utils.rnn import pack_sequence, pad_packed_sequence
>>> p = pack_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0])])
>>> padded, lengths = pad_packed_sequence(p)
>>> padded.shape, lengths.tolist()
(torch.Size([2, 2]), [2, 1])
"""

from ....nn import rnn_utils as _ru
from ..._tensor import returns_torch

PackedSequence = _ru.PackedSequence

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]



invert_permutation = returns_torch(_ru.invert_permutation)
pack_padded_sequence = returns_torch(_ru.pack_padded_sequence)
pad_packed_sequence = returns_torch(_ru.pad_packed_sequence)
pad_sequence = returns_torch(_ru.pad_sequence)
unpad_sequence = returns_torch(_ru.unpad_sequence)
pack_sequence = returns_torch(_ru.pack_sequence)
unpack_sequence = returns_torch(_ru.unpack_sequence)
