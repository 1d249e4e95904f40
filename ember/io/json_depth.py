"""How deep a JSON text nests, found without parsing it: ``json.loads`` recurses, so the readers
of untrusted files (safetensors headers, ``ember.load`` structures) bound the depth first.

>>> nesting_within(b'{"a": [[1], {"b": "[[["}]}', 3)
True
>>> nesting_within(b"[" * 100 + b"]" * 100, 64)
False
"""

from itertools import accumulate, count as _counter
from operator import sub

__all__ = ["nesting_within"]

_BRACKETS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_CHUNK = 1 << 20


def nesting_within(text, limit):
    """Whether the JSON ``text`` (bytes) nests its arrays and objects at most ``limit`` deep,
    found with bytes operations, so that ``json.loads`` (which recurses) only sees text it can
    parse. Brackets in strings do not count; unbalanced brackets may count as deeper."""
    b = bytes(text)
    if b"\\" in b:  # escapes: drop the escaped backslashes, then the escaped quotes
        b = b.replace(b"\\\\", b"").replace(b'\\"', b"")
    if b'"' in b:  # what lies outside the strings
        b = b"".join(b.split(b'"')[::2])
    b = b.translate(_BRACKETS, _NOT_BRACKETS)
    if b.count(b"(") <= limit:
        return True
    if b"(" * (limit + 1) in b:
        return False
    depth = 0
    for start in range(0, len(b), _CHUNK):
        part = b[start:start + _CHUNK]
        # the depth peaks before a ')' or at the part's end: before the k-th ')' it is the
        # depth at the start, plus the '(' before it, minus k - 1
        peaks = accumulate(map(len, part.split(b")")), initial=depth)
        next(peaks)
        if max(map(sub, peaks, _counter())) > limit:
            return False
        depth += 2 * part.count(b"(") - len(part)
    return True
