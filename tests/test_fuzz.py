"""Fuzz: every public function and Tensor method, called with random valid and invalid arguments.

Two promises are checked on every call: only ``EmberError`` subclasses escape (a bad call gets a
typed error, never a raw NumPy/Python one), and no input changes (values, shape, dtype). The run
is seeded and bounded in time; ``EMBER_FUZZ_SECONDS`` lengthens it and ``EMBER_FUZZ_SEED``
explores other calls.
"""

import collections
import inspect
import os
import time

import numpy as np
import pytest

import ember
from ember import nn
from ember.errors import EmberError
from oracle import assert_unchanged, on_device, snapshot

SECONDS = float(os.environ.get("EMBER_FUZZ_SECONDS", "20"))
LIMIT = int(os.environ.get("EMBER_FUZZ_LIMIT", "20"))
SEED = int(os.environ.get("EMBER_FUZZ_SEED", "0"))

# Functions that change process-wide state, touch files, start processes or wait on purpose:
# each has its own tests, and a random call would leak into the rest of the suite.
SKIP = {
    "manual_seed", "seed", "set_default_device", "set_default_dtype", "set_num_threads",
    "set_grad_enabled", "enable_grad", "no_grad", "inference_mode", "set_printoptions",
    "save", "load", "save_file", "load_file", "load_record", "save_record", "try_load_file",
    "try_load_record", "to_data_async", "into_data_async", "train", "main",
    "init_process_group", "destroy_process_group", "barrier", "set_distributed",
}


def _tensors(rng):
    base = ember.tensor(rng.standard_normal((3, 4)).astype(np.float32))
    return [
        ember.tensor(1.5),                                        # 0-d float
        ember.tensor(rng.standard_normal((2, 3))),                # float64
        base,                                                     # float32
        base.T,                                                   # non-contiguous
        base[:, ::2],                                             # strided
        ember.zeros(0, 3),                                        # size 0
        ember.tensor([[1.0, float("nan")], [float("inf"), -0.0]]),
        ember.tensor(rng.integers(-5, 5, (2, 3))),                # int64
        ember.tensor(rng.integers(0, 3, (4,)), dtype="int32"),
        ember.tensor([255, 0, 7], dtype="uint8"),
        ember.tensor([[True, False], [False, True]]),
        ember.tensor(3),                                          # 0-d int
        *[ember.tensor([1.0, 2.0], dtype=dt) for dt in on_device(["float16"])],
        ember.ones(2, 3).require_grad(),                          # tracked leaf
        ember.from_numpy((rng.standard_normal((2, 3))            # complex64 (docs/complex.md)
                          + 1j * rng.standard_normal((2, 3))).astype(np.complex64)),
        ember.from_numpy(np.array([1j, -0.0, complex("nan+1j")], np.complex128)),
    ]


# Burn's inplace/extract and PyTorch's trailing-underscore methods rebind the tensor they are
# called on (documented): for them only the other arguments must stay unchanged.
REBINDING = {"extract", "clone_from", "inplace"}


def _rebinds(label):
    name = label.rpartition(".")[2]
    return label.startswith("Tensor.") and (name in REBINDING or name.endswith("_"))


SCALARS = [0, 1, 2, -1, 3, -2, 0.5, -1.5, float("nan"), float("inf"), True, False, None,
           2**63, 2**70, -2**63 - 1, 2**40, 1e300, "a", "sum", "float32", "int64", "mean",
           (), (0,), (1, 0), (2, 3), (-1,), [0, 1], [2, 2], [[0, 1]], (0.5,), {}, object(),
           slice(0, 1), Ellipsis, ember.float32, ember.int64, ember.bool_]


def _arg(rng, tensors):
    if rng.random() < 0.45:
        return tensors[rng.integers(len(tensors))]
    if rng.random() < 0.1:
        return [tensors[rng.integers(len(tensors))] for _ in range(rng.integers(0, 3))]
    return SCALARS[rng.integers(len(SCALARS))]


def _public_functions():
    out = []
    for name in sorted(dir(ember)):
        obj = getattr(ember, name)
        if name.startswith("_") or name in SKIP or inspect.isclass(obj) or inspect.ismodule(obj):
            continue
        if callable(obj):
            out.append(("ember." + name, obj, False))
    for name in sorted(dir(nn.functional)):
        obj = getattr(nn.functional, name)
        if not name.startswith("_") and name not in SKIP and inspect.isfunction(obj) \
                and obj.__module__ == "ember.nn.functional":
            out.append(("F." + name, obj, False))
    for name in sorted(dir(ember.Tensor)):
        if name.startswith("_") or name in SKIP:
            continue
        attr = inspect.getattr_static(ember.Tensor, name)
        if isinstance(attr, property) or not callable(getattr(ember.Tensor, name)):
            continue
        if isinstance(attr, (staticmethod, classmethod)):
            out.append(("Tensor." + name, getattr(ember.Tensor, name), False))
        else:
            out.append(("Tensor." + name, name, True))
    return out


def _bindable(fn, args, kwargs):
    """Whether Python itself accepts the call's shape (count and names of arguments): a call
    Python refuses raises its own TypeError before ember runs, so the fuzz only tries values."""
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return False
    except ValueError:              # no signature to read (a builtin): try the call
        return True
    return True


def _call(target, is_method, args, kwargs):
    if is_method:
        self, *rest = args
        return getattr(self, target)(*rest, **kwargs)
    return target(*args, **kwargs)


def _contains_unchangeable(args):
    """Inputs worth snapshotting: every tensor among the arguments (one level of lists)."""
    found = []
    for a in args:
        if isinstance(a, ember.Tensor):
            found.append(a)
        elif isinstance(a, list):
            found.extend(x for x in a if isinstance(x, ember.Tensor))
    return found


def test_only_typed_errors_escape_and_inputs_never_change(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)                   # a stray file-writing call lands in tmp
    rng = np.random.default_rng(SEED)
    targets = _public_functions()
    assert len(targets) > 300, len(targets)
    outcomes = collections.Counter()
    failures = []
    calls = 0
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline and len(failures) < LIMIT:
        for label, target, is_method in targets:
            tensors = _tensors(rng)
            nargs = int(rng.integers(0, 4))
            args = [_arg(rng, tensors) for _ in range(nargs)]
            if is_method:
                args.insert(0, tensors[rng.integers(len(tensors))])
            kwargs = {}
            if rng.random() < 0.25:
                kwargs[["dim", "dtype", "keepdim", "device", "value"][rng.integers(5)]] = \
                    _arg(rng, tensors)
            fn = getattr(ember.Tensor, target) if is_method else target
            if not _bindable(fn, args, kwargs):
                continue
            watched = _contains_unchangeable(args + list(kwargs.values()))
            if is_method and _rebinds(label):
                watched = [t for t in watched if t is not args[0]]
            before = snapshot(*watched)
            calls += 1
            try:
                _call(target, is_method, args, kwargs)
                outcome = "ok"
            except EmberError as e:
                outcome = type(e).__name__
            except Exception as e:  # noqa: BLE001  (the point: nothing else may escape)
                outcome = "RAW " + type(e).__name__
                failures.append(f"{label}{_show(args, kwargs)} raised "
                                f"{type(e).__name__}: {str(e)[:200]}")
            outcomes[(label, outcome)] += 1
            try:
                assert_unchanged(watched, before)
            except AssertionError as e:
                failures.append(f"{label}{_show(args, kwargs)} changed an input: {e}")
            if time.monotonic() >= deadline or len(failures) >= LIMIT:
                break
    with capsys.disabled():
        print(f"\nfuzz: {calls} calls over {len(targets)} functions and methods, "
              f"{len(outcomes)} distinct (function, outcome) pairs, "
              f"{sum(1 for k in outcomes if k[1] == 'ok')} of them successful calls")
    assert not failures, "\n".join(failures)


def _show(args, kwargs):
    def one(a):
        if isinstance(a, ember.Tensor):
            return f"Tensor{a.shape}:{a.dtype.name}"
        if isinstance(a, list) and any(isinstance(x, ember.Tensor) for x in a):
            return "[" + ", ".join(one(x) for x in a) + "]"
        return repr(a)[:40]
    parts = [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"
