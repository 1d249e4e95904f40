"""ONNX converters of ai.onnx.ml's tensor operators: Binarizer, ArrayFeatureExtractor and
TreeEnsemble (LabelEncoder, which maps strings too, is in ``ops_text``).

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> CONVERTERS["ai.onnx.ml.Binarizer"]([ember.tensor([0.5, 2.0])], {"threshold": 1.0},
...                                    Context(18)).tolist()
[0.0, 1.0]
"""

import math

from .registry import converter

_ML = "ai.onnx.ml."


@converter(_ML + "Binarizer")
def binarizer(x, a, c):
    return (x[0] > a.get("threshold", 0.0)).cast(x[0].dtype)


@converter(_ML + "ArrayFeatureExtractor")
def array_feature_extractor(x, a, c):
    t, idx = x[0], x[1].cast("int64").reshape(-1)
    out = t.select(t.ndim - 1, idx)
    return out.reshape(1, -1) if t.ndim == 1 else out


def _plain(v):
    """An attribute value (list, NumPy array from a tensor attribute, or None) as a list."""
    if v is None:
        return None
    return v.tolist() if hasattr(v, "tolist") else list(v)


_TESTS = {0: lambda v, s: v <= s, 1: lambda v, s: v < s, 2: lambda v, s: v >= s,
          3: lambda v, s: v > s, 4: lambda v, s: v == s, 5: lambda v, s: v != s,
          6: lambda v, s: v in s}


@converter(_ML + "TreeEnsemble")
def tree_ensemble(x, a, c):
    t = x[0]
    splits, feats = _plain(a["nodes_splits"]), a["nodes_featureids"]
    modes = _plain(a["nodes_modes"])
    true_ids, false_ids = a["nodes_truenodeids"], a["nodes_falsenodeids"]
    true_leaf, false_leaf = a["nodes_trueleafs"], a["nodes_falseleafs"]
    targets, weights = a["leaf_targetids"], _plain(a["leaf_weights"])
    missing = a.get("nodes_missing_value_tracks_true") or [0] * len(splits)
    members = iter(_plain(a.get("membership_values")) or [])
    agg, n_out = a.get("aggregate_function", 1), a["n_targets"]
    sets = {}
    for i, m in enumerate(modes):  # each MEMBER node's set: the next NaN-ended run
        if m == 6:
            s = set()
            for v in members:
                if math.isnan(v):
                    break
                s.add(v)
            sets[i] = s

    def leaf_of(row, node, is_leaf):
        while not is_leaf:
            v = row[feats[node]]
            go = (math.isnan(v) and missing[node]) or _TESTS[modes[node]](
                v, sets.get(node, splits[node]))
            node, is_leaf = ((true_ids[node], true_leaf[node]) if go
                             else (false_ids[node], false_leaf[node]))
        return node

    roots = a["tree_roots"]
    big = 3.4028234663852886e38 if t.dtype.name == "float32" else 1.7976931348623157e308
    start = {2: big, 3: -big}.get(agg, 0.0)   # the dtype's extremes, as onnx's reference
    out = []
    for row in t.tolist():
        acc = [start] * n_out
        for r in roots:
            single = true_leaf[r] and false_leaf[r] and true_ids[r] == false_ids[r]
            k = leaf_of(row, r, single)
            w, tid = weights[k], targets[k]
            if agg == 0:
                acc[tid] += w / len(roots)
            elif agg == 2:
                acc[tid] = min(acc[tid], w)
            elif agg == 3:
                acc[tid] = max(acc[tid], w)
            else:
                acc[tid] += w
        out.append(acc)
    return c.const(out, t.dtype).reshape(len(out), n_out)

