"""Tests of the movement family (ember/ops/views.py, pad.py and repeat.py) against PyTorch, the
spec and the laws; one file, as its case tables, spec examples and laws mix the three."""

import doctest
import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from oracle import (assert_close, ember_tensor, has_views, layouts, on_device, random_array,
                    to_torch, SHAPES)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def E(data, dtype=None):
    """An ember tensor from nested lists / arrays (a copy)."""
    return ember.tensor(np.asarray(data) if not isinstance(data, np.ndarray) else data, dtype=dtype)


def arange(n, shape=None, dtype="int64"):
    a = np.arange(n).astype(dtype)
    return E(a.reshape(shape) if shape is not None else a)


# -- torch helpers ---------------------------------------------------------------------------------

def torch_pad(x, pairs, mode="constant", value=0.0):
    """``pairs``: one (before, after) per dim of ``x`` (full length); a PyTorch oracle for every
    mode and rank, one dim at a time (the padding modes are separable per dim)."""
    if mode == "constant":
        flat = [v for p in reversed(pairs) for v in p]
        return F.pad(x, flat, value=value)
    tmode = {"edge": "replicate", "reflect": "reflect", "circular": "circular"}[mode]
    if x.dtype == torch.bool:  # PyTorch has no bool kernels for these modes
        return torch_pad(x.to(torch.uint8), pairs, mode).to(torch.bool)
    if x.numel() == 0:  # nor for empty inputs: the result is empty too (or a size-0 pad)
        shape = [n + b + e for n, (b, e) in zip(x.shape, pairs)]
        return x.reshape(-1).sum() * 0 + torch.zeros(shape, dtype=x.dtype)
    for d, (b, e) in enumerate(pairs):
        if b == 0 and e == 0:
            continue
        y = x.movedim(d, -1)
        lead = y.shape[:-1]
        y = F.pad(y.reshape(1, -1, y.shape[-1]), (b, e), mode=tmode)
        x = y.reshape(*lead, y.shape[-1]).movedim(-1, d)
    return x


def torch_unfold(x, dim, size, step):
    """PyTorch's unfold, and Burn's 0 windows where PyTorch refuses a window longer than the dim."""
    if size <= x.shape[dim]:
        return x.unfold(dim, size, step)
    shape = list(x.shape)
    shape[dim] = 0
    return x.reshape(-1)[:0].reshape(shape + [size])


# -- the cases: (id, input shape, ember call, torch call, returns a view) ---------------------------

EXTRA_SHAPES = [(1,), (3, 1), (1, 4), (2, 1, 3), (1, 3, 1)]
ALL_SHAPES = SHAPES + EXTRA_SHAPES


def _cases():
    cases = []

    def add(name, shape, ef, tf, view=False):
        cases.append(pytest.param(shape, ef, tf, view, id=f"{name}-{shape}"))

    for s in ALL_SHAPES:
        nd = len(s)
        n = int(np.prod(s))
        add("reshape-1", s, lambda t: t.reshape(-1), lambda t: t.reshape(-1), "contiguous")
        if n or not nd or s[0] == 0:  # a 0 keeps the size of dim 0 (Burn)
            add("reshape-flat", s, lambda t, n=n: t.reshape((n,)), lambda t, n=n: t.reshape(n),
                "contiguous")
        add("view-1", s, lambda t: t.view(-1), lambda t: t.reshape(-1))
        if nd >= 2 and s[0] != 0:
            add("reshape0", s, lambda t: t.reshape(0, -1), lambda t: t.reshape(t.shape[0], -1))
            add("reshapeNone", s, lambda t: t.reshape([None, -1, 1]),
                lambda t: t.reshape(t.shape[0], -1, 1))
        add("reshape-rev", s, lambda t, s=s: t.reshape(s[::-1]),
            lambda t, s=s: t.reshape(s[::-1]))
        # expand: size-1 dims grow to 3, one new leading dim of 2 (-1 keeps the others)
        target = tuple(3 if v == 1 else -1 for v in s)
        ttarget = tuple(3 if v == 1 else v for v in s)
        add("expand", s, lambda t, a=target: t.expand(2, *a),
            lambda t, a=ttarget: t.expand(2, *a), True)
        add("expand-None", s, lambda t, a=tuple(3 if v == 1 else None for v in s): t.expand(a),
            lambda t, a=ttarget: t.expand(a), True)
        # permute
        order = tuple(range(nd))[::-1]
        add("permute-rev", s, lambda t, o=order: t.permute(o), lambda t, o=order: t.permute(o), True)
        if nd >= 2:
            rot = tuple(range(1, nd)) + (0,)
            neg = tuple(d - nd for d in rot)
            add("permute-neg", s, lambda t, o=neg: t.permute(*o), lambda t, o=rot: t.permute(o),
                True)
        # flip
        add("flip-none", s, lambda t: t.flip(()), lambda t: t.flip([]), True)
        if nd >= 1:
            # a view on NumPy (negative strides); torch has none, so its flip copies
            add("flip0", s, lambda t: t.flip(0), lambda t: t.flip(0), "numpy")
            add("flip-all", s, lambda t, nd=nd: t.flip(*[-d - 1 for d in range(nd)]),
                lambda t, nd=nd: t.flip(list(range(nd))), "numpy")
        # shrink
        arg = tuple((1, v - 1) if v >= 2 else None for v in s)
        sl = tuple(slice(1, v - 1) if v >= 2 else slice(None) for v in s)
        add("shrink", s, lambda t, a=arg: t.shrink(a), lambda t, sl=sl: t[sl], True)
        if nd >= 1 and s[-1] >= 2:
            add("shrink-neg", s, lambda t, nd=nd: t.shrink((None,) * (nd - 1) + ((-2, -1),)),
                lambda t: t[..., -2:-1], True)
        # pad
        if nd >= 1:
            pairs = [(0, 0)] * (nd - 1) + [(1, 2)]
            add("pad-const", s, lambda t: t.pad([(1, 2)]), lambda t, p=pairs: torch_pad(t, p))
            add("pad-flat", s, lambda t: t.pad((2, 1)),
                lambda t, p=[(0, 0)] * (nd - 1) + [(2, 1)]: torch_pad(t, p))
            add("pad-none", s, lambda t, nd=nd: t.pad((None,) * (nd - 1) + ((1, 0),), "constant", 1),
                lambda t, p=[(0, 0)] * (nd - 1) + [(1, 0)]: torch_pad(
                    t.long() if t.dtype == torch.bool else t, p, value=1))
            if s[-1] >= 1:
                add("pad-crop", s, lambda t: t.pad((-1, 2)),
                    lambda t, p=[(0, 0)] * (nd - 1) + [(-1, 2)]: torch_pad(t, p))
                add("pad-edge", s, lambda t: t.pad([(2, 1)], "edge"),
                    lambda t, p=[(0, 0)] * (nd - 1) + [(2, 1)]: torch_pad(t, p, "edge"))
                add("pad-replicate", s, lambda t: t.pad([(0, 3)], "replicate"),
                    lambda t, p=[(0, 0)] * (nd - 1) + [(0, 3)]: torch_pad(t, p, "edge"))
                add("pad-circular", s, lambda t: t.pad([(1, 1)], ember.PadMode.circular()),
                    lambda t, p=[(0, 0)] * (nd - 1) + [(1, 1)]: torch_pad(t, p, "circular"))
            if s[-1] >= 3:
                add("pad-reflect", s, lambda t: t.pad([(2, 1)], "reflect"),
                    lambda t, p=[(0, 0)] * (nd - 1) + [(2, 1)]: torch_pad(t, p, "reflect"))
                add("pad-reflect-crop", s, lambda t: t.pad((-1, 2), "reflect"),
                    lambda t, p=[(0, 0)] * (nd - 1) + [(-1, 2)]: torch_pad(t, p, "reflect"))
            if nd >= 2 and min(s[-2:]) >= 2:
                add("pad-reflect2", s, lambda t: t.pad((1, 1, 1, 0), mode="reflect"),
                    lambda t, nd=nd: torch_pad(t, [(0, 0)] * (nd - 2) + [(1, 0), (1, 1)], "reflect"))
                add("pad2d", s, lambda t: t.pad2d((1, -1, -1, 2)),
                    lambda t, nd=nd: F.pad(t, (1, -1, -1, 2)))
        # transposes
        if nd >= 2:
            add("transpose", s, lambda t: t.transpose(), lambda t: t.transpose(-2, -1), True)
            add("transpose0", s, lambda t: t.transpose(0, -1), lambda t: t.transpose(0, -1), True)
            add("T", s, lambda t: t.T, lambda t: t.transpose(-2, -1), True)
            add("t", s, lambda t: t.t(), lambda t: t.transpose(-2, -1), True)
            add("swap_dims", s, lambda t: t.swap_dims(-1, 0), lambda t: t.transpose(0, -1), True)
            add("movedim", s, lambda t: t.movedim(0, -1), lambda t: t.movedim(0, -1), True)
            add("movedim-seq", s, lambda t: t.movedim([0, 1], [-1, 0]),
                lambda t: t.movedim((0, 1), (-1, 0)), True)
        else:
            add("t-small", s, lambda t: t.t(), lambda t: t.t(), True)
            add("T-small", s, lambda t: t.T, lambda t: t.t(), True)
        if nd >= 1:
            add("movedim-same", s, lambda t: t.movedim(-1, -1), lambda t: t.movedim(-1, -1), True)
        # flatten / unflatten
        add("flatten", s, lambda t: t.flatten(), lambda t: t.flatten(), "contiguous")
        if nd >= 2:
            add("flatten1", s, lambda t: t.flatten(start_dim=1), lambda t: t.flatten(1), "contiguous")
            add("flatten01", s, lambda t: t.flatten(0, -2), lambda t: t.flatten(0, -2), "contiguous")
        if nd >= 1:
            add("unflatten", s, lambda t: t.unflatten(-1, (1, -1, 1)),
                lambda t: t.unflatten(-1, (1, -1, 1)), "contiguous")
        # squeeze / unsqueeze
        add("squeeze", s, lambda t: t.squeeze(), lambda t: t.squeeze(), True)
        add("squeeze0", s, lambda t: t.squeeze(0), lambda t: t.squeeze(0), True)
        if nd >= 2:
            add("squeeze-seq", s, lambda t: t.squeeze((0, -1)), lambda t: t.squeeze((0, -1)), True)
        if nd >= 1:
            ones = [d for d in range(nd) if s[d] == 1]
            if ones:
                add("squeeze_dim", s, lambda t, d=ones[-1]: t.squeeze_dim(d),
                    lambda t, d=ones[-1]: t.squeeze(d), True)
                add("squeeze_dims", s, lambda t, o=ones, nd=nd: t.squeeze_dims([d - nd for d in o]),
                    lambda t, o=ones: t.squeeze(tuple(o)), True)
            add("squeeze_dims-empty", s, lambda t: t.squeeze_dims([]), lambda t: t.squeeze(), True)
        add("unsqueeze0", s, lambda t: t.unsqueeze(0), lambda t: t.unsqueeze(0), True)
        add("unsqueeze-1", s, lambda t: t.unsqueeze(-1), lambda t: t.unsqueeze(-1), True)
        add("unsqueeze_dim", s, lambda t, nd=nd: t.unsqueeze_dim(nd), lambda t: t.unsqueeze(-1),
            True)
        add("unsqueeze_dims", s, lambda t: t.unsqueeze_dims([0, -1, -1]),
            lambda t, s=s: t.reshape((1,) + s + (1, 1)), True)
        add("unsqueeze_dims2", s, lambda t: t.unsqueeze_dims([1, 0]),
            lambda t: t.unsqueeze(0).unsqueeze(0), True)
        add("unsqueeze_to", s, lambda t, nd=nd: t.unsqueeze_to(nd + 2),
            lambda t, s=s: t.reshape((1, 1) + s), True)
        # roll
        add("roll-flat", s, lambda t: t.roll(2), lambda t: t.roll(2))
        if nd >= 1:
            add("roll0", s, lambda t: t.roll(-7, 0), lambda t: t.roll(-7, 0))
            add("roll_dim", s, lambda t: t.roll_dim(2, -1), lambda t: t.roll(2, -1))
            add("roll-seq", s, lambda t, nd=nd: t.roll([1, 3, -1], [0, -1, 0]),
                lambda t: t.roll((1, 3, -1), (0, -1, 0)))
        # repeat
        add("repeat", s, lambda t, nd=nd: t.repeat(([2] + [1, 3] * nd)[:nd]),
            lambda t, nd=nd: t.repeat(*([2] + [1, 3] * nd)[:nd]) if nd else t.clone())
        add("repeat-lead", s, lambda t, nd=nd: t.repeat([2, 3] + [2] * nd),
            lambda t, nd=nd: t.repeat([2, 3] + [2] * nd))
        add("repeat-zero", s, lambda t, nd=nd: t.repeat((0,) + (1,) * nd),
            lambda t, nd=nd: t.repeat((0,) + (1,) * nd))
        if nd >= 1:
            add("repeat_dim", s, lambda t: t.repeat_dim(-1, 3),
                lambda t, nd=nd: t.repeat(*([1] * (nd - 1) + [3])))
        if nd >= 2:
            add("repeat-burn", s, lambda t: t.repeat(2),
                lambda t, nd=nd: t.repeat(*([2] + [1] * (nd - 1))))
        # repeat_interleave
        add("repeat_interleave", s, lambda t: t.repeat_interleave(2),
            lambda t: t.repeat_interleave(2))
        if nd >= 1:
            add("repeat_interleave-dim", s, lambda t: t.repeat_interleave(3, dim=-1),
                lambda t: t.repeat_interleave(3, dim=-1))
            counts = [i % 3 for i in range(s[0])]
            add("repeat_interleave-tensor", s,
                lambda t, c=counts: t.repeat_interleave(E(np.array(c, dtype=np.int64)), 0),
                lambda t, c=counts: t.repeat_interleave(torch.tensor(c, dtype=torch.int64), 0))
            add("repeat_interleave-list", s,
                lambda t, c=counts: t.repeat_interleave(c, 0) if c else t.repeat_interleave(
                    E(np.zeros(0, np.int64)), 0),
                lambda t, c=counts: t.repeat_interleave(torch.tensor(c, dtype=torch.int64), 0))
        # unfold
        if nd >= 1:
            size = min(2, s[-1])
            add("unfold", s, lambda t, z=size: t.unfold(-1, z, 1),
                lambda t, z=size: torch_unfold(t, -1, z, 1), True)
            add("unfold-step", s, lambda t: t.unfold(0, 1, 2), lambda t: torch_unfold(t, 0, 1, 2),
                True)
            add("unfold-overlap", s, lambda t: t.unfold(0, 3, 1), lambda t: torch_unfold(t, 0, 3, 1),
                True)
    return cases


CASES = _cases()

DTYPES = on_device(["float64", "float32", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"])
DTYPE_LAYOUTS = ([(d, "contiguous") for d in DTYPES]
                 + [(d, l) for d in ("float32", "int64") for l in ("permuted", "flipped", "stepped")])


def assert_same(actual, expected, where=""):
    """Exactly equal to a torch result: dtype, shape and every value (movement ops are exact)."""
    assert isinstance(actual, ember.Tensor)
    assert actual.dtype.name == str(expected.dtype).replace("torch.", ""), (
        f"{where}: dtype {actual.dtype.name} != {expected.dtype}")
    exp = expected.detach()
    exp = (exp.float() if exp.dtype == torch.bfloat16 else exp).numpy()
    act = actual.numpy()
    act = act.astype(np.float32) if act.dtype.name == "bfloat16" else act
    assert act.shape == exp.shape, f"{where}: shape {act.shape} != {exp.shape}"
    assert np.array_equal(act, exp, equal_nan=act.dtype.kind == "f"), f"{where}: {act} != {exp}"


def _input(rng, shape, dtype, layout):
    arr = np.asarray(random_array(rng, shape, dtype))
    found = dict(layouts(arr))
    if layout not in found:
        return None
    cast = "bfloat16" if dtype == "bfloat16" else None
    return ember_tensor(found[layout], dtype=cast)


@pytest.mark.parametrize("shape,ef,tf,view", CASES)
def test_values_match_torch(shape, ef, tf, view, rng):
    """Every case in every dtype (contiguous), and float32 / int64 in every layout."""
    for dtype, layout in DTYPE_LAYOUTS:
        x = _input(rng, shape, dtype, layout)
        if x is None:
            continue
        before = np.array(x.numpy(), copy=True)
        out = ef(x)
        assert_same(out, tf(to_torch(x)), f"{dtype}, {layout}")
        np.testing.assert_array_equal(x.numpy(), before)  # the input is unchanged


@pytest.mark.parametrize("shape,ef,tf,view", CASES)
def test_grad_matches_torch(shape, ef, tf, view, rng):
    """float64 gradients vs torch.autograd, contiguous and one strided layout."""
    for name, arr in layouts(random_array(rng, shape, "float64")):
        if name not in ("contiguous", "permuted" if len(shape) >= 2 else "stepped"):
            continue
        x = ember_tensor(arr, requires_grad=True)
        before = np.array(arr, copy=True)
        out = ef(x)
        seed = rng.standard_normal(out.shape)
        out.backward(ember.tensor(seed))
        xt = torch.tensor(before, requires_grad=True)
        ot = tf(xt)
        ot.backward(torch.tensor(seed))
        assert x.grad is not None, "no gradient reached the input"
        assert_close(x.grad, xt.grad, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(arr, before)


@pytest.mark.layout
@pytest.mark.parametrize("shape,ef,tf,view", [c for c in CASES if c.values[3]])
def test_views_share_memory(shape, ef, tf, view, rng):
    for name, arr in layouts(random_array(rng, shape, "float32")):
        x = ember_tensor(arr)
        out = ef(x)
        if not (x.numel() and out.numel()):
            continue
        if view == "contiguous" and name != "contiguous":
            continue  # a reshape of a non-contiguous layout may need a copy
        if view == "numpy" and x.device.backend_name != "numpy":
            continue
        assert np.shares_memory(x.numpy(), out.numpy()), f"{name}: not a view"


@pytest.mark.layout
def test_reshape_of_noncontiguous_copies_only_when_needed(rng):
    arr = random_array(rng, (3, 4), "float32")
    t = ember.from_numpy(arr).permute(1, 0)
    assert not np.shares_memory(arr, t.reshape(-1).numpy())
    assert np.shares_memory(arr, t.reshape(4, 3, 1).numpy())
    assert np.shares_memory(arr, t.unsqueeze(0).squeeze(0).numpy())


@pytest.mark.numpy_only
def test_expand_result_is_read_only():
    t = E([1, 2, 3])
    out = t.expand(4, -1).numpy()
    assert not out.flags.writeable
    with pytest.raises(ValueError):
        np.asarray(t.expand(4, -1)._data)[0, 0] = 7
    assert t.tolist() == [1, 2, 3]


@pytest.mark.numpy_only
def test_unfold_is_read_only_view():
    arr = np.arange(10.0)
    t = ember.from_numpy(arr)
    u = t.unfold(0, 4, 2)
    assert np.shares_memory(arr, u.numpy())
    assert not u._data.flags.writeable


# -- the spec's examples -----------------------------------------------------------------------------

class TestTinygradExamples:
    def test_reshape(self):
        assert arange(6).reshape(2, 3).tolist() == [[0, 1, 2], [3, 4, 5]]

    def test_expand(self):
        assert E([1, 2, 3]).expand(4, -1).tolist() == [[1, 2, 3]] * 4

    def test_permute(self):
        t = arange(6, (2, 3))
        assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
        assert t.permute(1, 0).tolist() == [[0, 3], [1, 4], [2, 5]]

    def test_flip(self):
        t = arange(6, (2, 3))
        assert t.flip(0).tolist() == [[3, 4, 5], [0, 1, 2]]
        assert t.flip((0, 1)).tolist() == [[5, 4, 3], [2, 1, 0]]

    def test_shrink(self):
        t = arange(9, (3, 3))
        assert t.shrink(((None, (1, 3)))).tolist() == [[1, 2], [4, 5], [7, 8]]
        assert t.shrink((((0, 2), (0, 2)))).tolist() == [[0, 1], [3, 4]]
        # read as a Python slice: negatives count from the end, None is an open bound
        assert t.shrink(((-1, None), (None, -2))).tolist() == [[6]]

    def test_pad(self):
        t = arange(6, (2, 3))
        assert t.pad(((None, (1, 2)))).tolist() == [[0, 0, 1, 2, 0, 0], [0, 3, 4, 5, 0, 0]]
        out = t.pad(((None, (1, 2))), -2)
        assert out.tolist() == [[-2, 0, 1, 2, -2, -2], [-2, 3, 4, 5, -2, -2]]
        assert out.dtype == ember.int64

    def test_repeat(self):
        t = E([1, 2, 3])
        assert t.repeat(4, 2).tolist() == [[1, 2, 3, 1, 2, 3]] * 4
        assert t.repeat(4, 2, 1).shape == (4, 2, 3)

    def test_repeat_interleave(self):
        assert E([1, 2, 3]).repeat_interleave(2).tolist() == [1, 1, 2, 2, 3, 3]

    def test_squeeze(self):
        t = E(np.zeros((2, 1, 2, 1, 2)))
        assert t.squeeze().shape == (2, 2, 2)
        assert t.squeeze(0).shape == (2, 1, 2, 1, 2)
        assert t.squeeze(1).shape == (2, 2, 1, 2)

    def test_unsqueeze(self):
        t = E([1, 2, 3, 4])
        assert t.unsqueeze(0).tolist() == [[1, 2, 3, 4]]
        assert t.unsqueeze(1).tolist() == [[1], [2], [3], [4]]

    def test_pad2d(self):
        t = arange(9, (1, 1, 3, 3))
        assert t.tolist() == [[[[0, 1, 2], [3, 4, 5], [6, 7, 8]]]]
        out = t.pad2d((1, 1, 2, 0), value=-float("inf"))
        inf = float("inf")
        assert out.tolist() == [[[[-inf] * 5, [-inf] * 5, [-inf, 0.0, 1.0, 2.0, -inf],
                                  [-inf, 3.0, 4.0, 5.0, -inf], [-inf, 6.0, 7.0, 8.0, -inf]]]]
        assert out.dtype.kind == "float"

    def test_transpose(self):
        t = arange(6, (2, 3))
        assert t.transpose(0, 1).tolist() == [[0, 3], [1, 4], [2, 5]]
        assert t.T.tolist() == [[0, 3], [1, 4], [2, 5]]

    def test_flatten(self):
        t = arange(8, (2, 2, 2))
        assert t.flatten().tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
        assert t.flatten(start_dim=1).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]

    def test_unflatten(self):
        assert E(np.ones((3, 4, 1))).unflatten(1, (2, 2)).shape == (3, 2, 2, 1)
        assert E(np.ones((3, 4, 1))).unflatten(1, (-1, 2)).shape == (3, 2, 2, 1)
        assert E(np.ones((5, 12, 3))).unflatten(-2, (2, 2, 3, 1, 1)).shape == (5, 2, 2, 3, 1, 1, 3)

    def test_view(self):
        assert arange(6).view(2, 3).tolist() == [[0, 1, 2], [3, 4, 5]]


M = [[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]


class TestBurnExamples:
    def test_reshape(self):
        out = E(np.ones((2, 3, 4), np.float32)).reshape([2, -1])
        assert out.shape == (2, 12) and out.tolist() == [[1.0] * 12] * 2
        # the prose: [2, 0, 4] keeps dim 1; [0, -1] of [1, 3, 4] is [1, 12]
        assert E(np.ones((2, 3, 4))).reshape([2, 0, 4]).shape == (2, 3, 4)
        assert E(np.ones((1, 3, 4))).reshape([0, -1]).shape == (1, 12)

    def test_transpose(self):
        out = E(M).transpose()
        assert out.tolist() == [[1.0, 5.0], [-2.0, 9.0], [3.0, 6.0]] and out.shape == (3, 2)
        assert E(np.ones((1, 2, 3, 4))).transpose().shape == (1, 2, 4, 3)
        assert E(M).t().tolist() == [[1.0, 5.0], [-2.0, 9.0], [3.0, 6.0]]

    def test_swap_dims(self):
        assert E(M).swap_dims(0, -1).tolist() == [[1.0, 5.0], [-2.0, 9.0], [3.0, 6.0]]
        assert E(M).swap_dims(1, 1).tolist() == M

    def test_permute_erratum(self):
        out = E([[1.0, 5.0], [-2.0, 9.0], [3.0, 6.0]]).permute([1, 0])
        assert out.tolist() == [[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]
        assert out.shape == (2, 3)  # API.md erratum: the comment says [3, 2]

    def test_movedim(self):
        t = E([[[1.0], [5.0]], [[-2.0], [9.0]], [[3.0], [6.0]]])
        out = t.movedim(1, 0)
        assert out.tolist() == [[[1.0], [-2.0], [3.0]], [[5.0], [9.0], [6.0]]]
        assert out.shape == (2, 3, 1)

    def test_flip(self):
        t = E([[3.0, 4.9, 2.0], [2.0, 1.9, 3.0], [4.0, 5.9, 8.0], [1.4, 5.8, 6.0]])
        expected = [[6.0, 5.8, 1.4], [8.0, 5.9, 4.0], [3.0, 1.9, 2.0], [2.0, 4.9, 3.0]]
        assert_close(t.flip([0, 1]), np.array(expected, np.float32))

    def test_flatten(self):
        assert E(np.ones((2, 3, 4))).flatten(1, 2).shape == (2, 12)

    def test_squeeze(self):
        t = E([[[[3.0, 4.9, 2.0]], [[2.0, 1.9, 3.0]], [[4.0, 5.9, 8.0]]]])
        assert t.shape == (1, 3, 1, 3)
        out = t.squeeze()
        assert out.shape == (3, 3)
        assert_close(out, np.array([[3.0, 4.9, 2.0], [2.0, 1.9, 3.0], [4.0, 5.9, 8.0]], np.float32))

    def test_squeeze_dim(self):
        t = E([[[3.0, 4.9, 2.0]], [[2.0, 1.9, 3.0]], [[4.0, 5.9, 8.0]]])
        out = t.squeeze_dim(1)
        assert out.shape == (3, 3)
        assert_close(out, np.array([[3.0, 4.9, 2.0], [2.0, 1.9, 3.0], [4.0, 5.9, 8.0]], np.float32))

    def test_squeeze_dims(self):
        assert E(np.ones((2, 1, 4, 1))).squeeze_dims([1, 3]).shape == (2, 4)
        assert E(np.ones((2, 1, 4, 1))).squeeze_dims([]).shape == (2, 4)

    def test_unsqueeze(self):
        assert E(np.ones((3, 3))).unsqueeze_to(4).shape == (1, 1, 3, 3)

    def test_unsqueeze_dim(self):
        assert E(np.ones((3, 3))).unsqueeze_dim(1).shape == (3, 1, 3)

    def test_unsqueeze_dims(self):
        t = E(np.ones((3, 4, 5)))
        assert t.unsqueeze_dims([0, -1, -1]).shape == (1, 3, 4, 5, 1, 1)
        # Burn's own tests of the same op
        assert t.unsqueeze_dims([1, -2]).shape == (3, 1, 4, 1, 5)
        assert t.unsqueeze_dims([0, 4]).shape == (1, 3, 4, 5, 1)
        assert t.unsqueeze_dims([1]).shape == (3, 1, 4, 5)
        assert t.unsqueeze_dims([0, 0]).shape == (1, 1, 3, 4, 5)

    def test_roll(self):
        t = arange(5)
        assert t.roll_dim(2, 0).tolist() == [3, 4, 0, 1, 2]  # API.md: NumPy's direction
        assert t.roll_dim(-1, -1).tolist() == [1, 2, 3, 4, 0]
        assert t.roll_dim(12, 0).tolist() == [3, 4, 0, 1, 2]  # wraps around
        m = arange(6, (2, 3))
        # a dim rolled twice: the shifts apply one after the other
        assert m.roll([1, 1], [1, 1]).tolist() == [[1, 2, 0], [4, 5, 3]]
        assert m.roll([1, -1], [0, 1]).tolist() == [[4, 5, 3], [1, 2, 0]]

    def test_repeat_dim(self):
        t = E([[3.0, 4.9], [2.0, 1.9], [4.0, 5.9]])
        out = t.repeat_dim(0, 2)
        assert out.shape == (6, 2)
        assert_close(out, np.array([[3.0, 4.9], [2.0, 1.9], [4.0, 5.9]] * 2, np.float32))

    def test_repeat(self):
        t = E([[3.0, 4.9], [2.0, 1.9], [4.0, 5.9]])
        out = t.repeat([2, 1])
        assert out.shape == (6, 2)
        assert_close(out, np.array([[3.0, 4.9], [2.0, 1.9], [4.0, 5.9]] * 2, np.float32))

    def test_expand(self):
        out = E([[1.0], [2.0], [3.0]]).expand([3, 4])
        assert out.tolist() == [[1.0] * 4, [2.0] * 4, [3.0] * 4]
        assert E([[1.0], [2.0], [3.0]]).expand([-1, 4]).shape == (3, 4)

    def test_unfold(self):
        t = E(np.arange(24.0).reshape(2, 6, 2))
        out = t.unfold(1, 3, 2)  # [pre, windows, post, size]: (6 - 3) // 2 + 1 = 2 windows
        assert out.shape == (2, 2, 2, 3)
        assert out.tolist()[0][1][0] == [4.0, 6.0, 8.0]
        assert t.unfold(1, 7, 1).shape == (2, 0, 2, 7)  # fewer elements than size: 0 windows

    def test_pad(self):
        t = E([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]])
        out = t.pad((1, 1, 1, 1), ember.PadMode.constant(0.0))
        assert out.tolist() == [[0.0] * 5, [0.0, 12.0, -2.0, 3.0, 0.0], [0.0, 5.0, 3.0, 6.0, 0.0],
                                [0.0] * 5]
        out = t.pad([(1, 1), (2, 2)], ember.PadMode.constant(0.0))
        assert out.shape == (4, 7)
        assert out.tolist()[1] == [0.0, 0.0, 12.0, -2.0, 3.0, 0.0, 0.0]
        out = t.pad([(1, 1)], ember.PadMode.reflect())
        assert out.tolist() == [[-2.0, 12.0, -2.0, 3.0, -2.0], [3.0, 5.0, 3.0, 6.0, 3.0]]
        assert t.pad([(1, 1)], "edge").tolist() == [[12.0, 12.0, -2.0, 3.0, 3.0],
                                                     [5.0, 5.0, 3.0, 6.0, 6.0]]


# -- more behaviour ----------------------------------------------------------------------------------

def test_shapes_as_varargs_or_sequences():
    t = arange(6)
    assert t.reshape(2, 3).shape == t.reshape((2, 3)).shape == t.reshape([2, 3]).shape == (2, 3)
    m = t.reshape(2, 3)
    assert m.permute(1, 0).shape == m.permute([1, 0]).shape == (3, 2)
    assert m.flip(0, 1).tolist() == m.flip([0, 1]).tolist()
    assert m.expand(2, 2, 3).shape == m.expand((2, 2, 3)).shape == (2, 2, 3)
    assert m.repeat(1, 2).shape == m.repeat((1, 2)).shape == (2, 6)
    assert t.reshape(np.int64(3), 2).shape == (3, 2)


def test_expand_new_leading_dim_minus_one_keeps_size_one():
    assert E([1, 2]).expand(-1, 3, 2).shape == (1, 3, 2)
    assert E([1, 2]).expand(None, -1).shape == (1, 2)
    assert E([[1], [2]]).expand(2, 0).shape == (2, 0)


def test_transpose_of_small_tensors():
    assert E(5).t().tolist() == 5 and E(5).T.shape == ()
    assert E([1, 2]).T.tolist() == [1, 2]
    with pytest.raises(DimensionError, match="transpose: dim0 -2 is out of range"):
        E([1, 2]).transpose()


def test_flatten_of_0d():
    assert E(3.0).flatten().shape == (1,)
    assert E(3.0).flatten(0, -1).shape == (1,)


def test_squeeze_of_0d_and_noop():
    assert E(3.0).squeeze().shape == ()
    assert E(3.0).squeeze(0).shape == ()
    assert E(3.0).squeeze(-1).shape == ()
    assert E([[1, 2]]).squeeze(1).shape == (1, 2)


@pytest.mark.half_precision
def test_pad_promotes_like_arithmetic():
    i = E([1, 2], dtype="int32")
    assert i.pad([(1, 0)], value=2).dtype == ember.int32
    assert i.pad([(1, 0)], value=2.5).dtype == ember.float32
    assert i.pad([(1, 0)], value=2.5).tolist() == [2.5, 1.0, 2.0]
    b = E([True, False])
    assert b.pad([(1, 0)]).dtype == ember.bool
    assert b.pad([(1, 1)], value=True).tolist() == [True, True, False, True]
    h = E([1.0], dtype="float16")
    assert h.pad([(1, 0)], value=-3).dtype == ember.float16
    assert h.pad((1, 0), 0.5).tolist() == [0.5, 1.0]


def test_pad_mode_aliases_and_padmode():
    t = E([[1.0, 2.0, 3.0]])
    assert t.pad([(2, 0)], "replicate").tolist() == t.pad([(2, 0)], ember.PadMode.edge()).tolist()
    assert t.pad([(1, 1)], ember.PadMode.constant(7)).tolist() == [[7.0, 1.0, 2.0, 3.0, 7.0]]
    assert t.pad([(1, 2)], "circular").tolist() == [[3.0, 1.0, 2.0, 3.0, 1.0, 2.0]]
    assert ember.PadMode.reflect() == ember.PadMode("reflect")
    assert repr(ember.PadMode.edge()) == "PadMode.edge()"
    assert t.pad(()).tolist() == t.tolist()


def test_pad_reflect_in_several_dims_matches_numpy(rng):
    arr = rng.standard_normal((3, 4, 5))
    out = E(arr).pad([(1, 2), (3, 0), (0, 4)], "reflect")
    np.testing.assert_array_equal(out.numpy(), np.pad(arr, [(1, 2), (3, 0), (0, 4)], "reflect"))
    out = E(arr).pad([(2, 2), (0, 1), (4, 4)], "edge")
    np.testing.assert_array_equal(out.numpy(), np.pad(arr, [(2, 2), (0, 1), (4, 4)], "edge"))


def test_repeat_interleave_tensor_scalar_and_flattened():
    t = E([[1, 2], [3, 4]])
    assert t.repeat_interleave(E(2)).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert t.repeat_interleave(E([2]), dim=1).tolist() == [[1, 1, 2, 2], [3, 3, 4, 4]]
    assert t.repeat_interleave(E([0, 2]), dim=-1).tolist() == [[2, 2], [4, 4]]
    assert E(5).repeat_interleave(3).tolist() == [5, 5, 5]
    assert ember.repeat_interleave(t, 0, 0).shape == (0, 2)


def test_module_functions():
    t = arange(6, (2, 3))
    assert ember.reshape(t, (3, 2)).shape == (3, 2)
    assert ember.permute(t, (1, 0)).shape == (3, 2)
    assert ember.flip(t, 0).tolist() == [[3, 4, 5], [0, 1, 2]]
    assert ember.transpose(t, 0, 1).shape == (3, 2)
    assert ember.t(t).shape == (3, 2)
    assert ember.movedim(t, 0, 1).shape == (3, 2)
    assert ember.flatten(t).shape == (6,)
    assert ember.unflatten(t, 1, (3, 1)).shape == (2, 3, 1)
    assert ember.squeeze(t.unsqueeze(0)).shape == (2, 3)
    assert ember.unsqueeze(t, 0).shape == (1, 2, 3)
    assert ember.roll(t, 1, 1).tolist() == [[2, 0, 1], [5, 3, 4]]
    assert ember.repeat_interleave(t, 2, 0).shape == (4, 3)
    for fn, args in [(ember.reshape, (-1,)), (ember.flip, (0,)), (ember.squeeze, ())]:
        with pytest.raises(InvalidParameterError, match="input must be a Tensor, got list"):
            fn([1, 2], *args)


def test_as_methods_too():
    t = arange(6, (2, 3))
    assert t.reshape_as(E(np.zeros((3, 2)))).shape == (3, 2)
    assert t.view_as(E(np.zeros((6,)))).shape == (6,)
    assert E([[1], [2]]).expand_as(E(np.zeros((2, 2)))).tolist() == [[1, 1], [2, 2]]


def test_results_untracked_for_ints_and_tracked_for_floats():
    x = E([1.0, 2.0]).require_grad()
    assert x.reshape(2, 1).is_tracked() and x.pad([(1, 1)]).is_tracked()
    assert not E([1, 2]).reshape(2, 1).is_tracked()
    with ember.no_grad():
        assert not x.flip(0).is_tracked()


def test_gradient_through_a_chain():
    x = E([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype="float64").require_grad()
    y = x.T.reshape(-1).roll(1).unsqueeze(0).expand(2, -1).pad([(0, 0), (1, 1)], "edge")
    seed = np.arange(np.prod(y.shape), dtype=np.float64).reshape(y.shape)
    y.backward(E(seed))
    xt = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64, requires_grad=True)
    yt = F.pad(xt.T.reshape(-1).roll(1).unsqueeze(0).expand(2, -1).unsqueeze(0), (1, 1),
               mode="replicate")[0]
    yt.backward(torch.tensor(seed))
    assert_close(x.grad, xt.grad)


# -- finite differences -------------------------------------------------------------------------------

FD_OPS = [
    ("pad-reflect", lambda t: t.pad([(1, 2), (2, 1)], "reflect")),
    ("pad-edge-crop", lambda t: t.pad([(-1, 3), (2, -2)], "edge")),
    ("pad-circular", lambda t: t.pad([(2, 1)], "circular")),
    ("unfold-overlap", lambda t: t.unfold(1, 3, 1)),
    ("unfold-gap", lambda t: t.unfold(1, 2, 3)),
    ("roll", lambda t: t.roll([2, -1], [0, 1])),
    ("repeat", lambda t: t.repeat(2, 1, 2)),
    ("repeat_interleave", lambda t: t.repeat_interleave(E([2, 0, 1]), 0)),
    ("expand", lambda t: t.unsqueeze(1).expand(3, 2, 4)),
]


@pytest.mark.parametrize("name,fn", FD_OPS, ids=[n for n, _ in FD_OPS])
def test_finite_differences(name, fn, rng):
    arr = rng.standard_normal((3, 4))
    x = E(arr).require_grad()
    out = fn(x)
    seed = rng.standard_normal(out.shape)
    out.backward(E(seed))
    eps = 1e-6
    num = np.zeros_like(arr)
    for i in np.ndindex(arr.shape):  # a test-only loop over 12 entries
        up, down = arr.copy(), arr.copy()
        up[i] += eps
        down[i] -= eps
        num[i] = ((fn(E(up)).numpy() - fn(E(down)).numpy()) * seed).sum() / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-6)


# -- laws ---------------------------------------------------------------------------------------------

shapes_st = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def tensor_and_perm(draw):
    shape = draw(shapes_st)
    perm = draw(st.permutations(list(range(len(shape)))))
    return shape, tuple(perm)


LAW_SETTINGS = settings(max_examples=30, deadline=None)


@LAW_SETTINGS
@given(tensor_and_perm())
def test_law_permute_inverse(sp):
    shape, perm = sp
    arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    inv = tuple(np.argsort(perm))
    out = E(arr).permute(perm).permute(inv)
    np.testing.assert_array_equal(out.numpy(), arr)
    np.testing.assert_array_equal(E(arr).permute(perm).numpy(), np.transpose(arr, perm))


@LAW_SETTINGS
@given(shapes_st, st.data())
def test_law_flip_flip_and_roll_inverse(shape, data):
    arr = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    nd = len(shape)
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), unique_by=lambda d: d % nd, max_size=nd)
                     if nd else st.just([]))
    np.testing.assert_array_equal(E(arr).flip(dims).flip(dims).numpy(), arr)
    shifts = data.draw(st.lists(st.integers(-9, 9), min_size=len(dims), max_size=len(dims)))
    rolled = E(arr).roll(shifts, dims)
    np.testing.assert_array_equal(rolled.numpy(), np.roll(arr, shifts, dims) if dims else arr)
    np.testing.assert_array_equal(rolled.roll([-s for s in shifts], dims).numpy(), arr)


@LAW_SETTINGS
@given(shapes_st, st.data())
def test_law_reshape_and_flatten_inverse(shape, data):
    arr = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = E(arr)
    np.testing.assert_array_equal(t.reshape(-1).reshape(shape).numpy(), arr)
    if shape:
        s = data.draw(st.integers(0, len(shape) - 1))
        e = data.draw(st.integers(s, len(shape) - 1))
        flat = t.flatten(s, e)
        np.testing.assert_array_equal(flat.unflatten(s, shape[s:e + 1]).numpy(), arr)
        d = data.draw(st.integers(-len(shape) - 1, len(shape)))
        np.testing.assert_array_equal(t.unsqueeze(d).squeeze_dim(d).numpy(), arr)
        assert t.unsqueeze(d).shape == np.expand_dims(arr, d).shape


@LAW_SETTINGS
@given(shapes_st, st.data())
def test_law_pad_then_shrink_is_identity(shape, data):
    arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    pads = [data.draw(st.tuples(st.integers(0, 3), st.integers(0, 3))) for _ in shape]
    padded = E(arr).pad(pads, value=-1.0)
    if shape:
        np.testing.assert_array_equal(padded.numpy(), np.pad(arr, pads, constant_values=-1.0))
    back = padded.shrink(tuple((b, b + n) for (b, _), n in zip(pads, shape)))
    np.testing.assert_array_equal(back.numpy(), arr)


@LAW_SETTINGS
@given(tensor_and_perm(), st.data())
def test_law_movedim_matches_numpy_and_inverts(sp, data):
    shape, perm = sp
    arr = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    nd = len(shape)
    k = data.draw(st.integers(0, nd))
    src, dst = list(perm[:k]), data.draw(st.permutations(list(range(nd))))[:k]
    out = E(arr).movedim(src, dst)
    np.testing.assert_array_equal(out.numpy(), np.moveaxis(arr, src, dst))
    np.testing.assert_array_equal(out.movedim(dst, src).numpy(), arr)


@LAW_SETTINGS
@given(shapes_st, st.lists(st.integers(0, 3), max_size=5))
def test_law_repeat_matches_torch(shape, reps):
    arr = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    if len(reps) >= len(shape):
        expected = torch.from_numpy(arr).repeat(*reps) if reps else torch.from_numpy(arr)
        np.testing.assert_array_equal(E(arr).repeat(reps).numpy(), expected.numpy())
    else:  # Burn's: fewer counts apply to the leading dims
        full = list(reps) + [1] * (len(shape) - len(reps))
        np.testing.assert_array_equal(E(arr).repeat(reps).numpy(), np.tile(arr, full))


@LAW_SETTINGS
@given(shapes_st, st.data())
def test_law_unfold_matches_torch(shape, data):
    if not shape:
        return
    arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    d = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = data.draw(st.integers(0, 5))
    step = data.draw(st.integers(1, 4))
    out = E(arr).unfold(d, size, step)
    if size <= shape[d]:
        np.testing.assert_array_equal(out.numpy(), torch.from_numpy(arr).unfold(d, size, step).numpy())
    else:
        assert out.shape[d % len(shape)] == 0 and out.shape[-1] == size


# -- bad input ---------------------------------------------------------------------------------------

BAD = [
    ("reshape", lambda t: t.reshape(4, 4), ShapeMismatchError, r"reshape: shape \(4, 4\) has 16 elements, expected 6"),
    ("reshape2", lambda t: t.reshape(-1, -1), InvalidParameterError, "more than one -1"),
    ("reshape3", lambda t: t.reshape(-2, 3), InvalidParameterError, "negative size -2"),
    ("reshape4", lambda t: t.reshape(2.5, 3), InvalidParameterError, "shape must be an int, got float"),
    ("reshape5", lambda t: t.reshape(-1, 4), ShapeMismatchError, "cannot infer the -1"),
    ("view", lambda t: t.view(5), ShapeMismatchError, "view: shape"),
    ("reshape_as", lambda t: t.reshape_as([1, 2]), InvalidParameterError, "reshape_as: other must be a Tensor"),
    ("expand", lambda t: t.expand(4, 3), ShapeMismatchError, "expand: cannot expand dim 0 of size 2 to 4"),
    ("expand2", lambda t: t.expand(3), ShapeMismatchError, "expand: shape .* fewer than the tensor's 2"),
    ("expand3", lambda t: t.expand(2, -3), InvalidParameterError, "expand: shape .* size -3"),
    ("expand4", lambda t: t.expand(2, "a"), InvalidParameterError, "expand: shape must be an int"),
    ("permute", lambda t: t.permute(0), InvalidParameterError, r"permute: order \(0,\) has 1 entries, expected 2"),
    ("permute2", lambda t: t.permute(0, 0), InvalidParameterError, "permute: order .* repeats a dim"),
    ("permute3", lambda t: t.permute(0, 2), DimensionError, "permute: order 2 is out of range"),
    ("flip", lambda t: t.flip(0, -2), InvalidParameterError, "flip: dims .* repeats a dim"),
    ("flip2", lambda t: t.flip(3), DimensionError, "flip: dims 3 is out of range for a tensor of rank 2"),
    ("shrink", lambda t: t.shrink(((0, 1),)), InvalidParameterError, "shrink: arg must be a sequence with one entry per dim"),
    ("shrink2", lambda t: t.shrink(((0, 3), None)), DimensionError, "shrink: end 3 of dim 0 is out of range for size 2"),
    ("shrink3", lambda t: t.shrink(((1, 0), None)), InvalidParameterError, "shrink: .* start 1 is after end 0"),
    ("shrink4", lambda t: t.shrink((1, None)), InvalidParameterError, "shrink: entry 0 of arg is 1"),
    ("pad", lambda t: t.pad([(1, 1)] * 3), InvalidParameterError, "pad: padding .* covers 3 dims, but the tensor has only 2"),
    ("pad2", lambda t: t.pad((1, 2, 3)), InvalidParameterError, "pad: flat padding .* odd length 3"),
    ("pad3", lambda t: t.pad([(1, 1)], "reflect2"), InvalidParameterError, "pad: mode 'reflect2' is unknown"),
    ("pad4", lambda t: t.pad([(3, 0)], "reflect"), InvalidParameterError, r"pad: reflect padding \(3, 0\) of dim 1 needs amounts < the dim's size 3"),
    ("pad5", lambda t: t.pad([1, (2, 3)]), InvalidParameterError, "pad: padding .* mixes numbers with pairs"),
    ("pad5b", lambda t: t.pad([(1, (2, 3))]), InvalidParameterError, r"pad: padding must be an int, got tuple \(2, 3\)"),
    ("pad6", lambda t: t.pad([(-2, -2)]), InvalidParameterError, r"pad: padding \(-2, -2\) of dim 1 crops more than its size 3"),
    ("pad7", lambda t: t.pad([(1, 1)], value="x"), InvalidParameterError, "pad: value must be a number, got str"),
    ("pad8", lambda t: t.pad([(1, 1)], 2, value=3), InvalidParameterError, "pad: got the fill value twice"),
    ("pad9", lambda t: t.pad(5), InvalidParameterError, "pad: padding must be a sequence"),
    ("pad10", lambda t: t.pad([(4, 0)], "circular"), InvalidParameterError, "circular padding .* <= the dim's size 3"),
    ("pad11", lambda t: t.pad([(1, 1, 1)]), InvalidParameterError, r"pad: entry 0 of padding is \(1, 1, 1\)"),
    ("pad13", lambda t: t.pad([(1.5, 1)]), InvalidParameterError, "pad: padding must be an int, got float"),
    ("pad14", lambda t: t.pad([(1, 1)], ["reflect"]), InvalidParameterError, r"pad: mode \['reflect'\] is unknown"),
    ("pad2d", lambda t: t.pad2d([(1, 1)]), InvalidParameterError, "pad2d: padding must be a flat sequence of ints"),
    ("pad2d2", lambda t: t.pad2d((1, 1, 1, 1, 1, 1)), InvalidParameterError, "pad2d: padding .* covers 3 dims"),
    ("view_as", lambda t: t.view_as(E(np.zeros(5))), ShapeMismatchError, r"view_as: shape \(5,\) has 5 elements, expected 6"),
    ("expand_as", lambda t: t.expand_as(E(np.zeros((2, 4)))), ShapeMismatchError, "expand_as: cannot expand dim 1 of size 3 to 4"),
    ("expand_as2", lambda t: t.expand_as(np.zeros((2, 3))), InvalidParameterError, "expand_as: other must be a Tensor, got ndarray"),
    ("transpose", lambda t: t.transpose(0, 2), DimensionError, "transpose: dim1 2 is out of range for a tensor of rank 2"),
    ("swap_dims", lambda t: t.swap_dims(-3, 0), DimensionError, "swap_dims: dim1 -3 is out of range"),
    ("movedim", lambda t: t.movedim([0, 1], [1]), InvalidParameterError, "movedim: source .* has 2 dims but destination .* has 1"),
    ("movedim2", lambda t: t.movedim([0, 0], [0, 1]), InvalidParameterError, "movedim: source .* repeats a dim"),
    ("movedim3", lambda t: t.movedim(0, 5), DimensionError, "movedim: destination 5 is out of range"),
    ("flatten", lambda t: t.flatten(1, 0), InvalidParameterError, "flatten: start_dim 1 .* comes after end_dim 0"),
    ("flatten2", lambda t: t.flatten(0, 2), DimensionError, "flatten: end_dim 2 is out of range"),
    ("unflatten", lambda t: t.unflatten(1, (2, 2)), ShapeMismatchError, r"unflatten: sizes \(2, 2\) multiply to 4, expected the size 3 of dim 1"),
    ("unflatten2", lambda t: t.unflatten(1, (-1, -1)), InvalidParameterError, "unflatten: sizes .* at most one -1"),
    ("unflatten3", lambda t: t.unflatten(1, (2, -1)), ShapeMismatchError, "unflatten: cannot infer the -1"),
    ("unflatten4", lambda t: t.unflatten(1, 3), InvalidParameterError, "unflatten: sizes must be a non-empty sequence"),
    ("squeeze", lambda t: t.squeeze(2), DimensionError, "squeeze: dim 2 is out of range"),
    ("squeeze_dim", lambda t: t.squeeze_dim(0), ShapeMismatchError, r"squeeze_dim: dim 0 has size 2 \(shape \(2, 3\)\); expected size 1"),
    ("squeeze_dims", lambda t: t.squeeze_dims([1]), ShapeMismatchError, "squeeze_dims: dim 1 has size 3"),
    ("squeeze_dims2", lambda t: t.squeeze_dims([0, -2]), InvalidParameterError, "squeeze_dims: dims .* repeats a dim"),
    ("unsqueeze", lambda t: t.unsqueeze(3), DimensionError, r"unsqueeze: dim 3 is out of range for inserting a dim into a tensor of rank 2; expected a dim in \[-3, 2\]"),
    ("unsqueeze2", lambda t: t.unsqueeze(-4), DimensionError, "unsqueeze: dim -4 is out of range"),
    ("unsqueeze_dim", lambda t: t.unsqueeze_dim(True), InvalidParameterError, "unsqueeze_dim: dim must be an int, got bool"),
    ("unsqueeze_dims", lambda t: t.unsqueeze_dims([4]), DimensionError, "unsqueeze_dims: axis 4 is out of range for a result of rank 3"),
    ("unsqueeze_dims2", lambda t: t.unsqueeze_dims([3, 3]), DimensionError, r"unsqueeze_dims: axes \(3, 3\) need more positions"),
    ("unsqueeze_to", lambda t: t.unsqueeze_to(1), InvalidParameterError, "unsqueeze_to: rank 1 is smaller than the tensor's rank 2"),
    ("roll", lambda t: t.roll([1, 2], [0]), InvalidParameterError, "roll: shifts .* and dims .* have different lengths"),
    ("roll2", lambda t: t.roll(1, 2), DimensionError, "roll: dims 2 is out of range"),
    ("roll3", lambda t: t.roll([1, 2]), InvalidParameterError, r"roll: shifts \(1, 2\) needs dims of the same length"),
    ("roll4", lambda t: t.roll(1.5, 0), InvalidParameterError, "roll: shifts must be an int, got float"),
    ("roll_dim", lambda t: t.roll_dim(1, -3), DimensionError, "roll_dim: dim -3 is out of range"),
    ("repeat", lambda t: t.repeat(2, -1), InvalidParameterError, "repeat: repeats .* negative count -1"),
    ("repeat2", lambda t: t.repeat(2, None), InvalidParameterError, "repeat: repeats must be an int, got NoneType"),
    ("repeat_dim", lambda t: t.repeat_dim(0, -2), InvalidParameterError, "repeat_dim: times -2 is negative"),
    ("repeat_dim2", lambda t: t.repeat_dim(2, 2), DimensionError, "repeat_dim: dim 2 is out of range"),
    ("repeat_interleave", lambda t: t.repeat_interleave(-1), InvalidParameterError, "repeat_interleave: repeats -1 is negative"),
    ("repeat_interleave2", lambda t: t.repeat_interleave(E([1, 2, 3]), 0), ShapeMismatchError, r"repeat_interleave: repeats has shape \(3,\); expected .*size 2"),
    ("repeat_interleave3", lambda t: t.repeat_interleave(E([1.0, 2.0]), 0), KindError, "repeat_interleave: repeats must be an int tensor, got float64"),
    ("repeat_interleave4", lambda t: t.repeat_interleave([1, -1], 0), InvalidParameterError, "repeat_interleave: repeats has a negative count"),
    ("repeat_interleave5", lambda t: t.repeat_interleave(2, 2), DimensionError, "repeat_interleave: dim 2 is out of range"),
    ("repeat_interleave6", lambda t: t.repeat_interleave(["a"], 0), InvalidParameterError, "repeat_interleave: repeats .* must be ints"),
    ("unfold", lambda t: t.unfold(0, 2, 0), InvalidParameterError, "unfold: step 0 must be >= 1"),
    ("unfold2", lambda t: t.unfold(0, -1, 1), InvalidParameterError, "unfold: size -1 is negative"),
    ("unfold3", lambda t: t.unfold(2, 1, 1), DimensionError, "unfold: dim 2 is out of range"),
    ("unfold4", lambda t: t.unfold(0, "2", 1), InvalidParameterError, "unfold: size must be an int, got str"),
]


@pytest.mark.parametrize("name,fn,err,match", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_bad_input(name, fn, err, match, dtype, rng):
    arr = random_array(rng, (2, 3), dtype)
    x = ember.from_numpy(arr)
    before = arr.copy()
    with pytest.raises(err, match=match):
        fn(x)
    np.testing.assert_array_equal(arr, before)
    assert x.shape == before.shape


def test_bad_fill_values_and_pad_modes():
    u = E(np.array([1, 2], dtype=np.uint8))
    with pytest.raises(InvalidParameterError, match="pad: value 300 does not fit the result dtype uint8"):
        u.pad([(1, 1)], value=300)
    with pytest.raises(InvalidParameterError, match="pad: value -1 does not fit the result dtype uint8"):
        u.pad([(1, 1)], -1)
    with pytest.raises(InvalidParameterError, match="PadMode: mode 'wrap' is unknown"):
        ember.PadMode("wrap")
    with pytest.raises(InvalidParameterError, match=r"edge padding \(1, 0\) of dim 0 has no edge"):
        E(np.zeros(0)).pad([(1, 0)], "edge")
    assert u.tolist() == [1, 2]


def test_pad_of_0d_and_zero_padding():
    z = E(2.5)
    assert z.pad(()).tolist() == 2.5
    assert z.pad((), "reflect").tolist() == 2.5
    m = arange(6, (2, 3))
    out = m.pad([(0, 0)], "edge")
    assert out.tolist() == m.tolist() and not np.shares_memory(out.numpy(), m.numpy())


def test_errors_are_the_builtin_ones_too():
    t = arange(6, (2, 3))
    with pytest.raises(ValueError):
        t.reshape(4)
    with pytest.raises(IndexError):
        t.permute(0, 5)
    with pytest.raises(TypeError):
        t.repeat_interleave(E([1.0, 1.0]), 0)


def test_no_op_changes_its_input_or_grad_seed(rng):
    arr = rng.standard_normal((3, 4))
    x = ember.from_numpy(arr).require_grad()
    before = arr.copy()
    outs = [x.reshape(-1), x.expand(2, 3, 4), x.permute(1, 0), x.flip(0), x.shrink(((0, 2), None)),
            x.pad([(1, 1)], "reflect"), x.pad2d((1, 1, 1, 1)), x.T, x.movedim(0, 1), x.flatten(),
            x.unflatten(1, (2, 2)), x.squeeze(), x.unsqueeze(0), x.unsqueeze_dims([0, -1]),
            x.roll(1, 0), x.repeat(2, 1), x.repeat_interleave(2, 0), x.unfold(1, 2, 1)]
    for out in outs:
        seed_arr = rng.standard_normal(out.shape)
        seed_before = seed_arr.copy()
        out.backward(ember.from_numpy(seed_arr))
        np.testing.assert_array_equal(seed_arr, seed_before)
    np.testing.assert_array_equal(arr, before)


# -- the guide ---------------------------------------------------------------------------------------

@pytest.mark.layout  # its examples show views sharing memory
def test_docs_movement_md_examples_run():
    path = os.path.join(ROOT, "docs", "movement.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20
    assert result.failed == 0


# -- the fast paths: plain reshape sizes and already-normalized permute orders ---------------------

RESHAPES = [((2, 3, 4), ((6, 4), (6, -1), (-1, 4))), ((2, 3, 4), ((2, 12), (0, 12), (None, -1))),
            ((6,), ((1, 6, 1), (-1, 6, 1), (1, -1, 1))), ((), ((1, 1), (1, -1))),
            ((2, 0, 3), ((2, 0, 3), (None, 0, 3), (0, 0, 0)))]


@pytest.mark.parametrize("shape, targets", RESHAPES, ids=str)
def test_plain_reshape_equals_the_general_path(shape, targets, rng):
    plain, *general = targets
    for name, arr in layouts(random_array(rng, shape, "float32")):
        x = ember_tensor(arr)
        before = np.array(x.numpy(), copy=True)
        outs = [x.reshape(plain), x.reshape(*plain), x.view(plain), ember.reshape(x, plain)]
        outs += [x.reshape(g) for g in general]
        outs.append(x.reshape(tuple(np.int64(s) for s in plain)))  # NumPy ints: general path
        for out in outs:
            assert out.shape == plain and out.dtype is x.dtype
            np.testing.assert_array_equal(out.numpy(), arr.reshape(plain))
        if name == "contiguous" and arr.size and has_views(x):
            assert np.shares_memory(outs[0].numpy(), arr)
        np.testing.assert_array_equal(x.numpy(), before)


def test_plain_permute_equals_the_general_path(rng):
    for name, arr in layouts(random_array(rng, (2, 3, 4), "int32")):
        x = ember_tensor(arr)
        want = arr.transpose(2, 0, 1)
        for out in (x.permute(2, 0, 1), x.permute((2, 0, 1)), x.permute([2, 0, 1]),
                    x.permute(-1, 0, 1), x.permute(np.int64(2), 0, 1), ember.permute(x, (2, 0, 1))):
            assert out.shape == (4, 2, 3) and out.dtype is x.dtype
            np.testing.assert_array_equal(out.numpy(), want)
            if x.device.backend_name == "numpy":  # a view of the caller's NumPy buffer
                assert np.shares_memory(out.numpy(), arr)
    assert E(5.0).permute(()).tolist() == 5.0 and E(5.0).permute([]).shape == ()


def test_fast_paths_keep_the_autodiff_state_and_gradients(rng):
    x = rng.standard_normal((2, 3, 4))
    for ad in ("none", "balanced"):
        t = ember.tensor(x).with_gradient_checkpointing_strategy(ad)
        for out in (t.reshape(6, 4), t.permute(2, 0, 1), t.transpose(0, 1), t.unsqueeze(0)):
            assert out.gradient_checkpointing_strategy() == ad and not out.is_tracked()
    off = ember.tensor(x).without_autodiff()
    assert not off.reshape(24).is_autodiff() and not off.permute(1, 0, 2).is_autodiff()
    w = ember.tensor(x, dtype="float64").require_grad()
    seed = rng.standard_normal((4, 3, 2))
    w.reshape(6, 4).permute(1, 0).reshape(4, 3, 2).backward(ember.tensor(seed, dtype="float64"))
    wt = torch.from_numpy(x).requires_grad_(True)
    wt.reshape(6, 4).permute(1, 0).reshape(4, 3, 2).backward(torch.from_numpy(seed))
    assert_close(w.grad, wt.grad)


@pytest.mark.parametrize("fn, error, match", [
    (lambda t: t.reshape(True, 6), InvalidParameterError, r"reshape: shape must be an int, got bool"),
    (lambda t: t.reshape(4, 4), ShapeMismatchError, r"reshape: shape \(4, 4\) has 16 elements, expected 6"),
    (lambda t: t.reshape((2, 3), 1), InvalidParameterError, r"reshape: shape must be an int"),
    (lambda t: t.permute(1, 1), InvalidParameterError, r"permute: order \(1, 1\) repeats a dim"),
    (lambda t: t.permute(True, 0), InvalidParameterError, r"permute: order must be an int, got bool"),
    (lambda t: t.permute(0, 2), DimensionError, r"permute: order 2 is out of range for a tensor of rank 2"),
    (lambda t: t.permute(0), InvalidParameterError, r"permute: order \(0,\) has 1 entries, expected 2"),
])
def test_fast_path_lookalikes_still_raise(fn, error, match):
    t = arange(6, (2, 3))
    with pytest.raises(error, match=match):
        fn(t)
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("device", ["cpu", "torch:cpu"])
def test_ops_keep_their_input_device(device):
    x = ember.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], device=device)
    outs = [x.sum(), x.mean(1), x.prod(0), x.max(), x.argmax(1), x.var(1), x.median(), x.cumsum(1),
            x.cummax(0), x.sort(1), x.topk(2), x.argsort(0), x.reshape(3, 2), x.permute(1, 0),
            x.flip(0), x.expand(2, 2, 3), x.pad([(1, 1)]), x.roll(1, 1), x.repeat(2, 1),
            x.unfold(1, 2, 1), x.repeat_interleave([1, 2], dim=0)]
    for out in outs:
        assert out.device is x.device
    assert x.repeat_interleave([1, 2], dim=0).tolist() == [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0],
                                                           [0.0, 5.0, 4.0]]


def test_repeat_interleave_counts_on_another_device_raise():
    x = ember.tensor([1.0, 2.0], device="cpu")
    counts = ember.tensor([1, 2], device="torch:cpu")
    with pytest.raises(ember.errors.DeviceError, match="different devices"):
        x.repeat_interleave(counts)
