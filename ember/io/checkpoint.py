"""Checkpoints: ``ember.save(obj, path)`` and ``ember.load(path)``, for what training code saves.

``obj`` is a tree of None, bools, ints, floats (inf and NaN included), strs, ember Tensors of
any real dtype (a complex tensor raises KindError: safetensors has no complex dtype), and
lists, tuples and dicts of them (dict keys: str or int) -- a model's ``state_dict()``, an
optimizer's (nested state and parameter groups), a scheduler's, epoch counters, configuration.
The file is a safetensors file: the tensors are its tensors (named ``"0"``, ``"1"``, ...), and
the structure is JSON in its metadata header. ``load`` parses JSON
and reads raw tensor bytes; it never executes code and never unpickles, so a checkpoint from an
untrusted source is as safe to load as a safetensors file.

In the JSON, lists are arrays and finite floats numbers; everything else is an object with
one tag: ``{"tuple": [...]}``, ``{"dict": [[key, value], ...]}`` (int keys stay ints, order is
kept), ``{"float": "inf"}`` (or ``"-inf"``, ``"nan"``) and ``{"tensor": "0"}`` (with
``"requires_grad": true`` for a tensor that requires grad). A tensor that appears twice in
``obj`` is stored once and loads as one tensor object in both places (tied weights stay tied).

>>> import ember, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "ckpt.safetensors")
>>> ember.save({"epoch": 3, "w": ember.ones(2), "best": float("inf")}, path)
>>> ckpt = ember.load(path)
>>> ckpt["epoch"], ckpt["w"].tolist(), ckpt["best"]
(3, [1.0, 1.0], inf)
"""

import json
import math
import os

from ..devices import as_device
from ..errors import InvalidParameterError, KindError
from .._tensor import Tensor
from .json_depth import nesting_within
from .safetensors import load_file, load_metadata, save_file

__all__ = ["save", "load"]

_FORMAT = "ember.checkpoint"
_VERSION = "1"
_FLOATS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
_HOLDS = ("a checkpoint holds None, bools, ints, floats, strs, ember Tensors, and lists, tuples "
          "and dicts (str or int keys) of them")
_MAX_NESTING = 64  # lists, tuples and dicts within each other
# the deepest JSON that save writes: a dict is 3 levels ({"dict": [[key, value]]}), a leaf 1
_MAX_DEPTH = 3 * _MAX_NESTING + 1


def _check_path(op, path):
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise InvalidParameterError(f"{op}: path must be a str or os.PathLike, got "
                                    f"{type(path).__name__} {path!r}", "path", path)


def _unsupported(where, what):
    return InvalidParameterError(f"save: {where}: {what} is not supported; {_HOLDS}", "obj",
                                 where)


def _encode(x, where, tensors, names, active, depth=0):
    """The JSON value of ``x`` (at ``where`` in the object, within ``depth`` containers);
    tensors go into ``tensors``."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float):
        x = float(x)
        return x if math.isfinite(x) else {"float": repr(x)}
    if isinstance(x, Tensor):
        if type(x) is not Tensor:
            raise _unsupported(where, f"a {type(x).__name__}")
        if x._dtype.kind == "complex":  # a checkpoint is a safetensors file (docs/complex.md)
            raise KindError(f"save: {where} is a {x._dtype.name} tensor, which a checkpoint "
                            "cannot store (safetensors has no complex dtype); expected a bool, "
                            "int or float tensor (save its .real() and .imag() parts)")
        name = names.get(id(x))
        if name is None:
            name = names[id(x)] = str(len(tensors))
            tensors[name] = x
        out = {"tensor": name}
        if x.is_require_grad():
            out["requires_grad"] = True
        return out
    if not isinstance(x, (list, tuple, dict)):
        raise _unsupported(where, f"a {type(x).__name__}")
    if type(x) not in (list, tuple) and not isinstance(x, dict):
        raise _unsupported(where, f"a {type(x).__name__} (a subclass of "
                                  f"{'list' if isinstance(x, list) else 'tuple'})")
    if id(x) in active:
        raise InvalidParameterError(f"save: {where} contains itself; a checkpoint holds a tree",
                                    "obj", where)
    if depth == _MAX_NESTING:
        raise InvalidParameterError(f"save: {where} is nested in {depth} lists, tuples and "
                                    f"dicts; a checkpoint nests at most {_MAX_NESTING}", "obj",
                                    where)
    depth += 1
    active.add(id(x))
    if isinstance(x, dict):
        items = []
        for k, v in x.items():
            if isinstance(k, bool) or not isinstance(k, (str, int)):
                raise _unsupported(f"{where} key {k!r}", f"a {type(k).__name__} key")
            k = k if isinstance(k, str) else int(k)
            items.append([k, _encode(v, f"{where}[{k!r}]", tensors, names, active, depth)])
        out = {"dict": items}
    else:
        values = [_encode(v, f"{where}[{i}]", tensors, names, active, depth)
                  for i, v in enumerate(x)]
        out = values if type(x) is list else {"tuple": values}
    active.discard(id(x))
    return out


def save(obj, path):
    """Write ``obj`` (a tree of numbers, strs, None, ember Tensors, lists, tuples and dicts) to
    ``path`` as a checkpoint, atomically; ``ember.load(path)`` reads it back.

    Everything is checked before the file is written: an object a checkpoint cannot hold (a
    set, a NumPy array, a module) raises InvalidParameterError naming where it is in ``obj``.

    >>> import ember, os, tempfile
    >>> from ember import nn, optim
    >>> model = nn.Linear(2, 1)
    >>> opt = optim.Adam(model.parameters(), lr=0.01)
    >>> path = os.path.join(tempfile.mkdtemp(), "run.ckpt")
    >>> ember.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": 0}, path)
    >>> ember.save({"seen": {1, 2}}, path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ember.errors.InvalidParameterError: save: obj['seen']: a set is not supported; ...
    """
    _check_path("save", path)
    tensors = {}
    structure = _encode(obj, "obj", tensors, {}, set())
    text = json.dumps(structure, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    save_file(tensors, path, metadata={"format": _FORMAT, "version": _VERSION,
                                       "structure": text})


def _short(x):
    """``repr(x)``, cut short: a damaged file can hold a huge value."""
    text = repr(x)
    return text if len(text) <= 200 else text[:200] + "..."


class _Reader:
    def __init__(self, path, tensors):
        self.path = path
        self.tensors = tensors
        self.loaded = {}

    def bad(self, where, reason):
        return InvalidParameterError(f"load: {self.path!r} is not a valid ember checkpoint: "
                                     f"{where}: {reason}", "path", self.path)

    def decode(self, x, where):
        if x is None or isinstance(x, (bool, str, int, float)):
            return x
        if isinstance(x, list):
            return [self.decode(v, f"{where}[{i}]") for i, v in enumerate(x)]
        if not isinstance(x, dict) or not x:
            raise self.bad(where, f"unexpected JSON value {_short(x)}")
        tag = next(iter(x))
        if tag == "tuple" and len(x) == 1 and isinstance(x[tag], list):
            return tuple(self.decode(v, f"{where}[{i}]") for i, v in enumerate(x[tag]))
        if tag == "dict" and len(x) == 1 and isinstance(x[tag], list):
            out = {}
            for pair in x[tag]:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(
                        pair[0], (str, int)) and not isinstance(pair[0], bool)):
                    raise self.bad(where, f"a dict entry {_short(pair)} is not a [key, value] "
                                          "pair")
                out[pair[0]] = self.decode(pair[1], f"{where}[{pair[0]!r}]")
            return out
        if tag == "float" and len(x) == 1 and isinstance(x[tag], str) and x[tag] in _FLOATS:
            return _FLOATS[x[tag]]
        if tag == "tensor" and set(x) <= {"tensor", "requires_grad"}:
            name, grad = x[tag], x.get("requires_grad", False)
            if not isinstance(name, str) or name not in self.tensors:
                raise self.bad(where, f"tensor {name!r} is not in the file")
            if not isinstance(grad, bool):
                raise self.bad(where, f"requires_grad is {grad!r}; expected true or false")
            t = self.loaded.get(name)
            if t is None:
                t = self.loaded[name] = self.tensors[name]
                if grad:
                    if t.kind != "float":
                        raise self.bad(where, f"tensor {name!r} is {t.dtype.name} and cannot "
                                              "require grad; expected a float tensor")
                    t.require_grad()
            return t
        raise self.bad(where, f"unexpected JSON object {_short(x)}")


def load(path, device=None):
    """The object that ``ember.save`` wrote to ``path``: the same tree, tensors with their
    dtypes, shapes, values and require-grad flags, on ``device`` (None: the default device).
    Never executes code from the file. ``ember.save`` writes tensors of any device.

    A missing file raises FileNotFoundError; a file that is not an ember checkpoint (a plain
    safetensors file: read it with ``ember.io.load_file``) or is damaged raises
    InvalidParameterError naming the path.

    >>> import ember, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "state.ckpt")
    >>> ember.save([(1, "a"), {0: None, "lr": 0.1}, ember.tensor([7], dtype="uint8")], path)
    >>> pair, options, t = ember.load(path)
    >>> pair, options, t.dtype, t.tolist()
    ((1, 'a'), {0: None, 'lr': 0.1}, ember.uint8, [7])
    """
    _check_path("load", path)
    device = as_device(device, "load")
    meta = load_metadata(path)
    if meta.get("format") != _FORMAT or "structure" not in meta:
        raise InvalidParameterError(
            f"load: {path!r} is a safetensors file but not an ember checkpoint (its metadata "
            "has no ember.checkpoint structure); read its tensors with ember.io.load_file",
            "path", path)
    if meta.get("version") != _VERSION:
        raise InvalidParameterError(
            f"load: {path!r} is an ember checkpoint of version {meta.get('version')!r}; this "
            f"ember reads version {_VERSION}", "path", path)
    reader = _Reader(os.fspath(path), None)
    text = meta["structure"]
    if not nesting_within(text.encode("utf-8", "surrogatepass"), _MAX_DEPTH):
        raise reader.bad("obj", f"its structure nests more than {_MAX_DEPTH} levels of JSON, "
                                f"deeper than ember.save writes ({_MAX_NESTING} lists, tuples "
                                "and dicts)")
    try:
        structure = json.loads(text)
    except ValueError as exc:
        raise reader.bad("obj", f"its structure is not JSON ({exc})") from None
    reader.tensors = load_file(path, device)
    return reader.decode(structure, "obj")
