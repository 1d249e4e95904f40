"""The torch backend's short paths through PyTorch's own kernels (issue 31, per-op costs): ReLU
(``torch.threshold``), the class-index losses (``nll_loss`` and its backward), the embedding
lookup and its bags, ``x[idx]``'s index conversion, and the in-place write of ``add_`` and
friends into a buffer nothing else sees. Each is checked against PyTorch itself and against
the NumPy backend: exactly where the two backends agree bit for bit, within float32 tolerance
where PyTorch's kernels sum in another order (docs/devices.md), at NaN, -0.0, 0-d, empty and
non-contiguous inputs; the in-place write against a view, an export and a saved step."""

import math
import weakref

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
import ember.torch as et

pytestmark = pytest.mark.torch_only

DEVICES = ("cpu", "torch:cpu")
TOL = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1e-2}


def _np(t):
    return t.detach().cast("float64").numpy()


def _same_bits(a, b):
    """Equal values, NaN where NaN, and the same signs of zero (a NaN's sign aside)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a) & (a == a), np.signbit(b) & (b == b))


# -- relu ------------------------------------------------------------------------------------------

RELU_IN = [-0.0, 0.0, -1.5, 2.5, math.nan, math.inf, -math.inf, 2.0 ** -130, -2.0 ** -130]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("how", ["method", "functional"])
def test_relu_keeps_nan_and_gives_numpys_sign_of_zero(dtype, how):
    found = []
    for device in DEVICES:
        x = ember.tensor(RELU_IN, device=device).cast(dtype)
        found.append(_np(x.relu() if how == "method" else F.relu(x)))
    _same_bits(found[0], found[1])
    ref = torch.relu(torch.tensor(RELU_IN, dtype=getattr(torch, dtype))).double().numpy()
    np.testing.assert_array_equal(found[1], ref)      # PyTorch's values (its -0.0 aside)
    assert np.signbit(found[1][0]) == (dtype == "float16")  # NumPy's maximum: float16 keeps -0.0


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint16", "uint64"])
def test_relu_of_ints(dtype):
    vals = [0, 1, 5, 100] if dtype.startswith("u") else [-128, -1, 0, 1, 127]
    found = [ember.tensor(vals, device=d).cast(dtype).relu().tolist() for d in DEVICES]
    assert found[0] == found[1] == [max(v, 0) for v in vals]


def test_relu_of_0d_empty_and_non_contiguous_tensors_and_its_gradient():
    base = np.random.default_rng(0).standard_normal((6, 5))
    base[1, 2], base[3, 3] = -0.0, math.nan
    cases = [np.float64(-0.0), np.float64(2.0), np.zeros((0, 3)), base]
    for a in cases:
        found = []
        for device in DEVICES:
            x = ember.tensor(a, device=device).cast("float32")
            if x.ndim == 2 and x.numel():
                x = x.t()[::2]                      # non-contiguous
            x = x.require_grad()
            y = F.relu(x)
            y.backward(ember.ones_like(y) * 3.0)
            found.append((_np(y), _np(x.grad), tuple(y.shape)))
        _same_bits(found[0][0], found[1][0])
        _same_bits(found[0][1], found[1][1])
        assert found[0][2] == found[1][2]
        t = torch.tensor(np.asarray(a), dtype=torch.float32)
        if t.ndim == 2 and t.numel():
            t = t.t()[::2]
        np.testing.assert_array_equal(found[1][0], torch.relu(t).double().numpy())


# -- cross entropy and nll_loss --------------------------------------------------------------------

def _loss(lib, device, x, t, w, nll, dtype, **kw):
    f = lib.nn.functional.nll_loss if nll else lib.nn.functional.cross_entropy
    if lib is torch:
        xs = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
        ws = None if w is None else torch.tensor(w).to(xs.dtype)
        out = f(xs, torch.tensor(t), weight=ws, **kw)
        out.backward(torch.ones_like(out) * 0.7)
        return out.detach().double().numpy(), xs.grad.double().numpy()
    xs = ember.tensor(x, device=device).cast(dtype).require_grad()
    ws = None if w is None else ember.tensor(w, device=device).cast(dtype)
    out = f(xs, ember.tensor(t, device=device), weight=ws, **kw)
    out.backward(ember.ones_like(out) * 0.7)
    return _np(out), _np(xs.grad)


@pytest.mark.parametrize("shape", [(8, 5), (1, 3), (4, 5, 3), (2, 3, 2, 2), (0, 4)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("nll", [False, True])
def test_class_losses_agree_with_pytorch_and_the_numpy_backend(shape, reduction, nll):
    rng = np.random.default_rng(sum(shape) + len(reduction) + nll)
    for dtype in ("float32", "float64", "float16"):
        for weighted in (False, True):
            for ignore in (False, True):
                x = rng.standard_normal(shape) * 3
                t = rng.integers(0, shape[1], (shape[0],) + shape[2:])
                if ignore and t.size:
                    t.reshape(-1)[::3] = -100
                w = rng.random(shape[1]) + 0.1 if weighted else None
                kw = dict(reduction=reduction)
                if reduction == "mean" and ignore and t.size and (t == -100).all():
                    continue
                got = _loss(ember, "torch:cpu", x, t, w, nll, dtype, **kw)
                for other in (_loss(ember, "cpu", x, t, w, nll, dtype, **kw),
                              _loss(torch, None, x, t, w, nll, dtype, **kw)):
                    for a, b in zip(got, other):
                        assert a.shape == b.shape
                        np.testing.assert_allclose(a, b, rtol=TOL[dtype], atol=TOL[dtype],
                                                   equal_nan=True)


def test_class_losses_with_label_smoothing_and_non_contiguous_logits():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 6))
    t = rng.integers(0, 7, 6)
    found = []
    for device in DEVICES:
        xs = ember.tensor(x, device=device).require_grad()
        for kw in (dict(label_smoothing=0.2), dict()):
            out = F.cross_entropy(xs.t(), ember.tensor(t, device=device), **kw)   # (6, 7)
            out.backward()
            found += [_np(out), _np(xs.grad)]
    ref = torch.tensor(x).t()
    for i, kw in enumerate((dict(label_smoothing=0.2), dict())):
        want = torch.nn.functional.cross_entropy(ref, torch.tensor(t), **kw).item()
        assert abs(found[4 + 2 * i] - want) < 1e-12 and abs(found[2 * i] - want) < 1e-12
    for a, b in zip(found[:4], found[4:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_ignored_targets_get_no_gradient_even_of_non_finite_logits():
    x = [[1.0, math.nan], [0.0, 1.0], [math.inf, 0.0]]
    for device in DEVICES:
        xs = ember.tensor(x, device=device).require_grad()
        F.cross_entropy(xs, ember.tensor([-100, 1, -100], device=device)).backward()
        g = xs.grad.tolist()
        assert g[0] == [0.0, 0.0] and g[2] == [0.0, 0.0], (device, g)
        assert abs(g[1][0] - 0.2689414) < 1e-6 and abs(g[1][1] + 0.2689414) < 1e-6
        ys = ember.tensor([[1.0, 2.0], [0.0, 1.0]], device=device).require_grad()
        loss = F.cross_entropy(ys, ember.tensor([-100, -100], device=device))
        loss.backward()                            # every target ignored: nan, no gradient
        assert math.isnan(loss.item()) and ys.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_the_2d_and_nd_cross_entropy_paths_agree_bit_for_bit():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((9, 4)).astype(np.float32)
    t = rng.integers(0, 4, 9)
    found = []
    for xs, ts in ((x, t), (x[:, :, None], t[:, None])):
        a = ember.tensor(xs, device="torch:cpu").require_grad()
        out = F.cross_entropy(a, ember.tensor(ts, device="torch:cpu"), reduction="none")
        out.backward(ember.ones_like(out))
        found.append((out.numpy().reshape(-1), a.grad.numpy().reshape(9, 4)))
    np.testing.assert_array_equal(found[0][0], found[1][0])
    np.testing.assert_array_equal(found[0][1], found[1][1])


# -- embedding, embedding_bag, x[idx] --------------------------------------------------------------

@pytest.mark.parametrize("idx_dtype", ["int64", "int32", "uint8", "int16"])
def test_embedding_lookups_are_pytorchs_rows(idx_dtype):
    rng = np.random.default_rng(7)
    w = rng.standard_normal((12, 5)).astype(np.float32)
    w[3, 1], w[4, 0] = math.nan, -0.0
    for idx in (rng.integers(0, 12, (4, 3)), np.array(3), np.zeros((0, 2), np.int64),
                np.array([4, 3, 4])):
        want = torch.nn.functional.embedding(torch.tensor(idx, dtype=torch.int64),
                                             torch.tensor(w)).numpy()
        for device in DEVICES:
            table = ember.tensor(w, device=device)
            i = ember.tensor(idx, device=device).cast(idx_dtype)
            got = F.embedding(i, table).numpy()
            assert got.shape == want.shape
            _same_bits(got, want)
            got_t = F.embedding(i, ember.tensor(w.T.copy(), device=device).t()).numpy()
            _same_bits(got_t, want)                          # a non-contiguous table


def test_index_with_int_tensors_of_any_width_and_negative_indices():
    x = np.arange(24.0, dtype=np.float32).reshape(6, 4)
    for idx in ([1, 5, 0, 1], [-1, -6, 2], []):
        for dtype in ("int64", "int32", "int8"):
            found = []
            for device in DEVICES:
                xs = ember.tensor(x, device=device).require_grad()
                y = xs[ember.tensor(idx, device=device).cast(dtype)]
                y.backward(ember.ones_like(y))
                found.append((y.numpy(), xs.grad.numpy()))
            want = x[np.asarray(idx, np.int64)]
            np.testing.assert_array_equal(found[1][0], want)
            np.testing.assert_array_equal(found[0][0], found[1][0])
            np.testing.assert_array_equal(found[0][1], found[1][1])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_bags_agree_with_pytorch_and_the_numpy_backend(mode, padding_idx):
    rng = np.random.default_rng(8)
    w = rng.standard_normal((10, 4))
    idx = rng.integers(0, 10, (5, 6))
    idx[1, :] = 3                                   # a bag of padding only
    idx[2, ::2] = 3
    for dtype in ("float32", "float64", "float16"):
        for weighted in ([False, True] if mode == "sum" else [False]):
            pw = rng.standard_normal(idx.shape) if weighted else None
            found = []
            for device in DEVICES:
                table = ember.tensor(w, device=device).cast(dtype).require_grad()
                per = None if pw is None else ember.tensor(pw, device=device).cast(dtype)
                out = F.embedding_bag(ember.tensor(idx, device=device), table, mode=mode,
                                      padding_idx=padding_idx, per_sample_weights=per)
                out.backward(ember.ones_like(out))
                found.append((_np(out), _np(table.grad)))
            ref = torch.nn.functional.embedding_bag(
                torch.tensor(idx), torch.tensor(w).to(getattr(torch, dtype)), mode=mode,
                padding_idx=padding_idx,
                per_sample_weights=None if pw is None else torch.tensor(pw).to(
                    getattr(torch, dtype))).double().numpy()
            for a, b in ((found[1][0], ref), (found[0][0], found[1][0]),
                         (found[0][1], found[1][1])):
                np.testing.assert_allclose(a, b, rtol=TOL[dtype], atol=TOL[dtype])


# -- in-place writes -------------------------------------------------------------------------------

def _buffer(t):
    return weakref.ref(t._data)


def test_an_unshared_tensor_is_written_in_place_with_the_right_values():
    for dtype, other in (("float32", 0.5), ("float64", 2), ("int32", None), ("float16", None)):
        x = et.ones(6, dtype=getattr(et, dtype))
        y = et.full((6,), 3, dtype=getattr(et, dtype))
        before = _buffer(x)
        x.add_(y).mul_(y).sub_(y)
        if other is not None:
            x += other
            x /= 2
        assert before() is x._data, dtype                  # written in place
        want = (1 + 3) * 3 - 3
        if other is not None:
            want = (want + other) / 2
        assert x.tolist() == [want] * 6, (dtype, x.tolist())
    z = et.zeros(2, 3)
    z += et.tensor([1.0, 2.0, 3.0])                      # b broadcast to a
    assert z.tolist() == [[1.0, 2.0, 3.0]] * 2


def test_a_view_makes_the_write_fall_back_and_sees_it():
    x = et.zeros(8)
    v = x[2:4]
    before = _buffer(x)
    x += 1.0
    assert v.tolist() == [1.0, 1.0] and x.tolist() == [1.0] * 8
    w = et.zeros(4)
    t = w._data[1:]                                  # a torch view of the buffer
    w.add_(1.0)
    assert t.tolist() == [0.0, 0.0, 0.0] and w.tolist() == [1.0] * 4
    del before


def test_exports_make_the_write_fall_back():
    x = et.ones(4)
    snap = x.numpy()                                 # shares the buffer
    before = _buffer(x)
    x.add_(1.0)
    assert before() is not x._data and snap.tolist() == [1.0] * 4 and x.tolist() == [2.0] * 4
    y = et.ones(4)
    cap = et.to_dlpack(y)                            # a capsule holds the buffer
    y.mul_(3.0)
    got = torch.from_dlpack(cap)
    assert got.tolist() == [1.0] * 4 and y.tolist() == [3.0] * 4
    z = et.ones(4)
    mine = z._data                                   # another holder of the tensor itself
    z.sub_(1.0)
    assert mine.tolist() == [1.0] * 4 and z.tolist() == [0.0] * 4
    e = ember.ones(4, device="torch:cpu")
    alias = et.as_torch(e)
    alias.add_(1.0)                                  # a view: both see the write
    assert e.tolist() == [2.0] * 4 and alias.tolist() == [2.0] * 4


def test_shared_host_buffers_are_never_written():
    arr = np.ones(3, np.float32)
    x = et.from_numpy(arr)
    x.add_(1.0)
    assert arr.tolist() == [1.0] * 3 and x.tolist() == [2.0] * 3
    src = ember.ones(3, device="cpu")                # on the NumPy backend
    moved = et.as_torch(src.to("torch:cpu"))
    moved.mul_(5.0)
    assert src.tolist() == [1.0] * 3 and moved.tolist() == [5.0] * 3
    ext = np.ones(2, np.float64)
    d = et.from_dlpack(ext)                          # shares the NumPy array's buffer
    if d.device == ember.Device("torch:cpu"):
        d.add_(1.0)
        assert ext.tolist() == [1.0, 1.0] and d.tolist() == [2.0, 2.0]


def test_a_saved_tensor_makes_the_write_fall_back():
    p = et.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = p * 1.0
    z = y * y                                        # saves y's buffer for its gradient
    before = _buffer(y)
    with et.no_grad():
        y.add_(1.0)
    assert before() is not y._data and before().tolist() == [1.0, -2.0, 3.0]
    assert y.tolist() == [2.0, -1.0, 4.0]
    with pytest.raises(ember.errors.GraphError, match="modified by an inplace operation"):
        z.sum().backward()                           # as PyTorch: the saved value was written


def test_refusals_change_nothing():
    x = et.tensor([4, 6])
    before = _buffer(x)
    with pytest.raises(ember.errors.CastError):
        x /= et.tensor([2, 2])
    with pytest.raises(ember.errors.CastError):
        x += 0.5
    assert x.tolist() == [4, 6] and before() is x._data
    y = et.ones(3)
    with pytest.raises(ember.errors.ShapeMismatchError):
        y += et.ones(2, 3)
    assert y.tolist() == [1.0] * 3
    u = et.tensor([1, 2], dtype=et.uint32)          # an emulated dtype: the general path
    u += et.tensor([4294967295, 1], dtype=et.uint32)
    assert u.tolist() == [0, 3]
    h = et.tensor([1.0, 2.0], dtype=et.float16)      # a number into a half type: the general path
    h += 0.1
    assert h.tolist() == ember.tensor([1.0, 2.0], device="cpu").cast("float16").add(
        0.1).tolist()


# -- sort's values ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint64"])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_values_and_indices_match_a_stable_sort(dtype, descending):
    rng = np.random.default_rng(9)
    base = rng.integers(0, 5, 41).astype(np.float64)            # ties
    if dtype.startswith("float"):
        base[[3, 17]] = math.nan
        base[[5, 9]] = -0.0
    found = []
    for device in DEVICES:
        x = ember.tensor(base, device=device).cast(dtype)[::2]   # non-contiguous
        values, indices = ember.sort(x, descending=descending)
        found.append((_np(values), indices.numpy()))
        _same_bits(_np(x.sort(descending=descending)), found[-1][0])  # the values alone
    _same_bits(found[0][0], found[1][0])
    np.testing.assert_array_equal(found[0][1], found[1][1])
    ref = torch.tensor(base[::2]).to(getattr(torch, dtype))
    v, i = torch.sort(ref, descending=descending, stable=True)
    np.testing.assert_array_equal(found[1][1], i.numpy())
    np.testing.assert_array_equal(found[1][0], v.double().numpy())
