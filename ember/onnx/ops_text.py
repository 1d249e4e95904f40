"""ONNX converters of the text operators: StringNormalizer, StringConcat, StringSplit,
RegexFullMatch, and Equal and Constant of strings (on ``Strings``, ember.onnx's string tensors),
TfIdfVectorizer (n-gram counts of int or string tokens), and ai.onnx.ml's LabelEncoder.

Strings are not numbers, so these converters work on Python strings; what they return as
numbers (lengths, matches, counts) are ember tensors. No gradient flows through text.

>>> from ember.onnx.registry import CONVERTERS, Context
>>> from ember.onnx.strings import Strings
>>> out = CONVERTERS["StringConcat"]([Strings.of(["a", "b"]), Strings.of(["c", "d"])], {},
...                                  Context(20))
>>> out.values
['ac', 'bd']
"""

import re

from ..errors import InvalidParameterError
from . import ops_math, ops_shape  # noqa: F401  (Equal's and Constant's converters,
#                                                  wrapped below)
from .registry import CONVERTERS, converter
from .strings import Strings, broadcast, expand


@converter("StringConcat")
def string_concat(x, a, c):
    p, q = x
    shape = broadcast([p.shape, q.shape])
    return Strings([u + v for u, v in zip(expand(p, shape), expand(q, shape))], shape)


@converter("RegexFullMatch")
def regex_full_match(x, a, c):
    s = x[0]
    try:
        pattern = re.compile(a["pattern"])
    except re.error as exc:
        raise InvalidParameterError(f"RegexFullMatch: bad pattern {a['pattern']!r} ({exc})",
                                    "pattern", a["pattern"]) from None
    hits = [pattern.fullmatch(v) is not None for v in s.values]
    return c.const(hits, "bool").reshape(s.shape)


@converter("StringSplit")
def string_split(x, a, c):
    s = x[0]
    sep = a.get("delimiter") or None          # absent or "": runs of whitespace
    limit = a.get("maxsplit", -1)
    parts = [v.split(sep, limit if limit is not None else -1) for v in s.values]
    width = max([len(p) for p in parts], default=0)
    flat = []
    for p in parts:
        flat += p + [""] * (width - len(p))
    lengths = c.const([len(p) for p in parts], "int64").reshape(s.shape)
    return [Strings(flat, s.shape + (width,)), lengths]


@converter("StringNormalizer")
def string_normalizer(x, a, c):
    s = x[0]
    action = a.get("case_change_action", "NONE")
    sensitive = a.get("is_case_sensitive", 0)
    stops = a.get("stopwords", [])
    stops = set(stops) if sensitive else {w.lower() for w in stops}
    kept = [v for v in s.values if (v if sensitive else v.lower()) not in stops]
    if action == "LOWER":
        kept = [v.lower() for v in kept]
    elif action == "UPPER":
        kept = [v.upper() for v in kept]
    if not kept:
        kept = [""]
    return Strings(kept, (1, len(kept)) if s.ndim == 2 else (len(kept),))


def _rows(t):
    """The rows of tokens of a TfIdfVectorizer input ([C] or [N, C]) as lists."""
    vals = t.values if isinstance(t, Strings) else t.reshape(-1).tolist()
    if len(t.shape) == 1:
        return [vals]
    n, w = t.shape[0], t.shape[1]
    return [vals[i * w:(i + 1) * w] for i in range(n)]


@converter("TfIdfVectorizer")
def tfidf_vectorizer(x, a, c):
    t = x[0]
    lo, hi = a["min_gram_length"], a["max_gram_length"]
    skip, mode = a["max_skip_count"], a["mode"]
    starts = list(a["ngram_counts"]) + [None]
    index = list(a["ngram_indexes"])
    pool = list(a.get("pool_int64s") or a.get("pool_strings") or [])
    weights = a.get("weights")
    # the pool's n-grams (tuples) -> output column
    column, j = {}, 0
    for n in range(1, len(starts)):
        end = starts[n] if starts[n] is not None else len(pool)
        items = pool[starts[n - 1]:end]
        for k in range(0, len(items), n):
            column[(n, tuple(items[k:k + n]))] = j
            j += 1
    width = max(index) + 1 if index else 0
    out = []
    for row in _rows(t):
        counts = [0.0] * width
        for n in range(max(lo, 1), hi + 1):
            for gap in range(1, (skip if n > 1 else 0) + 2):
                for start in range(len(row) - (n - 1) * gap):
                    gram = tuple(row[start + i * gap] for i in range(n))
                    hit = column.get((n, gram))
                    if hit is not None:
                        counts[index[hit]] += 1
        for k in range(width):
            w = 1.0 if weights is None else float(weights[k])
            if mode == "IDF":
                counts[k] = w if counts[k] > 0 else 0.0
            elif mode == "TFIDF":
                counts[k] *= w
        out.append(counts)
    y = c.const(out, "float32")
    return y if len(t.shape) == 2 else y.reshape(width)


def _ml_values(a, kind):
    """A LabelEncoder's ``keys_*`` or ``values_*`` list (``kind`` "keys" or "values"), and
    whether it holds strings."""
    for suffix, strings in (("strings", True), ("int64s", False), ("floats", False)):
        v = a.get(f"{kind}_{suffix}")
        if v is not None and len(v):
            return list(v), strings
    tensor = a.get(f"{kind}_tensor")
    if tensor is not None:
        vals = tensor.tolist()
        vals = vals if isinstance(vals, list) else [vals]
        vals = [v.decode() if isinstance(v, bytes) else v for v in vals]
        return vals, bool(vals) and isinstance(vals[0], str)
    return [], False


@converter("ai.onnx.ml.LabelEncoder")
def label_encoder(x, a, c):
    t = x[0]
    keys, _ = _ml_values(a, "keys")
    values, strings = _ml_values(a, "values")
    table = dict(zip(keys, values))
    if "default_tensor" in a:
        default = a["default_tensor"].reshape(-1).tolist()[0]
        default = default.decode() if isinstance(default, bytes) else default
    elif strings:
        default = a.get("default_string", "_Unused")
    elif "values_floats" in a:
        default = a.get("default_float", -0.0)
    else:
        default = a.get("default_int64", -1)
    src = t.values if isinstance(t, Strings) else t.reshape(-1).tolist()
    out = [table.get(v, default) for v in src]
    if strings:
        return Strings([str(v) for v in out], t.shape)
    floats = any(isinstance(v, float) for v in values + [default])
    dtype = "float32" if floats else "int64"
    if "values_tensor" in a:
        dtype = a["values_tensor"].dtype.name
    return c.const(out, dtype).reshape(tuple(t.shape))



def _equal_of(numeric):
    """Equal that also compares string tensors (element-wise, broadcasting); numbers go to
    ``numeric``, the default domain's converter."""
    def equal(x, a, c):
        p, q = x
        if not isinstance(p, Strings):
            return numeric(x, a, c)
        shape = broadcast([p.shape, q.shape])
        same = [u == v for u, v in zip(expand(p, shape), expand(q, shape))]
        return c.const(same, "bool").reshape(shape)
    return equal


converter("Equal")(_equal_of(CONVERTERS["Equal"]))


def _constant_of(numeric):
    """Constant that also makes string tensors (``value_string``, ``value_strings`` or a
    string ``value``); the others go to ``numeric``, the default domain's converter."""
    def constant(x, a, c):
        if "value_string" in a:
            return Strings([a["value_string"]], ())
        if "value_strings" in a:
            return Strings(a["value_strings"], (len(a["value_strings"]),))
        value = a.get("value")
        if value is not None and getattr(value, "dtype", None) is not None and \
                value.dtype.kind in "OUS":
            return Strings.of(value)
        return numeric(x, a, c)
    return constant


converter("Constant")(_constant_of(CONVERTERS["Constant"]))
