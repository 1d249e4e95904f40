"""F.embedding_bag through the backends' ``nn_embedding_bag`` kernel (one gather-and-reduce
pass; the NumPy backend's compiled one in ember/backends/numpy/jit/bags.py): values and
gradients against PyTorch from the same weights, second-order gradients against PyTorch's
composition of ``F.embedding`` and a bag matrix, the compiled kernel against the NumPy path and
the base default."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from oracle import assert_close, on_device

DTYPES = on_device(["float32", "float64"])
TOL = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-12, atol=1e-12)}

# (input, offsets, include_last_offset): a 2-d input, 1-d inputs with empty bags (the last
# offset is the input's length where include_last_offset: PyTorch's own kernels disagree on
# indices past it, see test_indices_past_the_last_offset_are_in_no_bag)
IDX = np.array([3, 7, 1, 1, 9, 0, 4, 4, 4, 8, 2, 5, 6, 0])
LAYOUTS = {
    "2d": (np.array([[3, 7, 1, 1], [9, 0, 4, 4], [4, 4, 4, 4]]), None, False),
    "offsets": (IDX, np.array([0, 2, 2, 7, 13]), False),
    "last-offset": (IDX, np.array([0, 0, 5, 9, 14]), True),
}


def _pair(a, dtype, grad=True):
    e = ember.tensor(a.astype(dtype))
    t = torch.tensor(a.astype(dtype))
    return (e.require_grad(), t.requires_grad_()) if grad else (e, t)


def _run(layout, mode, dtype, padding_idx=None, psw=False, seed=0, num=10, d=6):
    """Values and gradients (weight, per_sample_weights) of ember's and PyTorch's
    embedding_bag from the same data."""
    rng = np.random.default_rng(seed)
    idx, offsets, last = LAYOUTS[layout]
    (ew, tw) = _pair(rng.standard_normal((num, d)), dtype)
    (ep, tp) = _pair(rng.standard_normal(idx.shape), dtype) if psw else (None, None)
    kw = dict(mode=mode, include_last_offset=last, padding_idx=padding_idx)
    out_e = F.embedding_bag(ember.tensor(idx), ew, None if offsets is None else
                            ember.tensor(offsets), per_sample_weights=ep, **kw)
    out_t = TF.embedding_bag(torch.tensor(idx), tw, None if offsets is None else
                             torch.tensor(offsets), per_sample_weights=tp, **kw)
    g = rng.standard_normal(tuple(out_t.shape)).astype(dtype)
    out_e.backward(ember.tensor(g))
    out_t.backward(torch.tensor(g))
    return (out_e, ew.grad, None if ep is None else ep.grad), (out_t.detach(), tw.grad,
                                                               None if tp is None else tp.grad)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_values_and_gradients_match_pytorch(mode, layout, dtype, padding_idx):
    mine, theirs = _run(layout, mode, dtype, padding_idx)
    for a, b in zip(mine[:2], theirs[:2]):
        assert_close(a, b, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_per_sample_weights_match_pytorch(layout, dtype, padding_idx):
    mine, theirs = _run(layout, "sum", dtype, padding_idx, psw=True, seed=1)
    for a, b in zip(mine, theirs):
        assert_close(a, b, **TOL[dtype])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_a_wide_table_of_many_bags_matches_pytorch(mode):
    rng = np.random.default_rng(2)
    w = rng.standard_normal((500, 130)).astype("float32")
    idx = rng.integers(0, 500, (96, 40))
    idx[5, 3:9] = 7
    out = F.embedding_bag(ember.tensor(idx), ember.tensor(w), mode=mode, padding_idx=7)
    want = TF.embedding_bag(torch.tensor(idx), torch.tensor(w), mode=mode, padding_idx=7)
    assert_close(out, want, **TOL["float32"])
    flat = idx.reshape(-1)
    offsets = np.array([0, 0, 17, 17, 17, 900, 3000, 3840])
    out = F.embedding_bag(ember.tensor(flat), ember.tensor(w), ember.tensor(offsets), mode=mode)
    want = TF.embedding_bag(torch.tensor(flat), torch.tensor(w), torch.tensor(offsets), mode=mode)
    assert_close(out, want, **TOL["float32"])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_indices_past_the_last_offset_are_in_no_bag(mode):
    # include_last_offset with a last offset short of the input's length: the indices after it
    # belong to no bag (PyTorch's kernels differ here: its float32 sum leaves them out, its
    # float64 sum and its means and maxima add them to the last bag)
    rng = np.random.default_rng(3)
    w = rng.standard_normal((10, 4))
    offsets = [0, 3, 3, 8]
    ew = ember.tensor(w).require_grad()
    out = F.embedding_bag(ember.tensor(IDX), ew, ember.tensor(offsets), mode=mode,
                          include_last_offset=True)
    reduce = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    want = [reduce(w[IDX[a:b]], axis=0) if b > a else np.zeros(4)
            for a, b in zip(offsets, offsets[1:])]
    assert_close(out, np.array(want))
    out.sum().backward()
    strays = sorted(set(IDX[8:]) - set(IDX[:8]))  # rows only the indices past it pick
    assert strays and not ew.grad.numpy()[strays].any()


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_empty_bags_and_inputs_give_zeros(mode):
    w = ember.tensor(np.arange(12.0).reshape(4, 3)).require_grad()
    out = F.embedding_bag(ember.zeros(3, 0, dtype=ember.int64), w, mode=mode)
    assert out.shape == (3, 3) and not out.detach().numpy().any()
    out = F.embedding_bag(ember.zeros(0, dtype=ember.int64), w, ember.tensor([0, 0]),
                          mode=mode)
    assert out.shape == (2, 3) and not out.detach().numpy().any()
    out.sum().backward()
    assert not w.grad.numpy().any()
    out = F.embedding_bag(ember.tensor([2, 2]), w, ember.tensor([0, 0, 2, 2]), mode=mode,
                          padding_idx=2)
    assert out.shape == (4, 3) and not out.detach().numpy().any()
    out = F.embedding_bag(ember.tensor([1, 2]), w, ember.zeros(0, dtype=ember.int64),
                          mode=mode)
    assert out.shape == (0, 3)


def test_max_picks_the_first_of_tied_rows_as_pytorch():
    w = np.array([[1.0, 5.0], [1.0, 2.0], [0.0, 5.0], [3.0, -1.0]])
    idx = np.array([[0, 1, 2], [2, 0, 3]])
    ew, tw = _pair(w, "float64")
    out_e = F.embedding_bag(ember.tensor(idx), ew, mode="max")
    out_t = TF.embedding_bag(torch.tensor(idx), tw, mode="max")
    out_e.backward(ember.tensor(np.ones((2, 2))))
    out_t.backward(torch.ones(2, 2, dtype=torch.float64))
    assert_close(out_e, out_t.detach())
    assert_close(ew.grad, tw.grad)


@pytest.mark.parametrize("dtype", on_device(["float64"]))
@pytest.mark.parametrize("mode,layout,padding_idx,psw", [
    ("sum", "2d", None, True), ("sum", "offsets", 4, True), ("mean", "2d", None, False),
    ("mean", "last-offset", 4, False), ("max", "2d", None, False)])
def test_double_backward_matches_a_composition(mode, layout, padding_idx, psw, dtype):
    # PyTorch has no derivative of its embedding_bag backward: the reference is F.embedding's
    # rows reduced by a bag matrix (for max, the rows of a 2-d input maximized over dim 1)
    rng = np.random.default_rng(4)
    idx, offsets, last = LAYOUTS[layout]
    flat = idx.reshape(-1)
    bounds = (list(range(0, flat.size + 1, idx.shape[1])) if offsets is None else
              list(offsets) if last else list(offsets) + [flat.size])
    nb = len(bounds) - 1
    member = np.zeros((nb, flat.size))
    for b in range(nb):
        member[b, bounds[b]:bounds[b + 1]] = flat[bounds[b]:bounds[b + 1]] != padding_idx
    if mode == "mean":
        member /= np.maximum(member.sum(1, keepdims=True), 1)
    ew, tw = _pair(rng.standard_normal((10, 5)), dtype)
    ep, tp = _pair(rng.standard_normal(idx.shape), dtype) if psw else (None, None)
    g = rng.standard_normal((nb, 5))
    eg, tg = _pair(g, dtype)
    out_e = F.embedding_bag(ember.tensor(idx), ew, None if offsets is None else
                            ember.tensor(offsets), mode=mode, per_sample_weights=ep,
                            include_last_offset=last, padding_idx=padding_idx)
    rows = TF.embedding(torch.tensor(flat), tw)
    if mode == "max":
        out_t = rows.reshape(idx.shape + (5,)).max(1).values
    else:
        rows = rows * tp.reshape(-1, 1) if psw else rows
        out_t = torch.tensor(member) @ rows
    leaves_e, leaves_t = [ew] + ([ep] if psw else []), [tw] + ([tp] if psw else [])
    first = out_e.backward(eg, create_graph=True)
    firsts_t = torch.autograd.grad(out_t, leaves_t, tg, create_graph=True)
    for e, t in zip(leaves_e, firsts_t):
        assert_close(first.get(e), t.detach(), **TOL[dtype])
    loss_e = sum(((first.get(e) ** 2) * (k + 1)).sum() for k, e in enumerate(leaves_e))
    loss_t = sum(((t ** 2) * (k + 1)).sum() for k, t in enumerate(firsts_t))
    second = loss_e.backward()
    seconds_t = torch.autograd.grad(loss_t, leaves_t + [tg], allow_unused=True)
    for e, t in zip(leaves_e + [eg], seconds_t):
        got = second.get(e)
        if t is None or not t.any():
            assert got is None or not got.numpy().any()
        else:
            assert_close(got, t, **TOL[dtype])


def test_max_norm_renormalizes_the_bagged_rows_as_pytorch():
    w = np.arange(1.0, 31.0).reshape(10, 3)
    ew, tw = ember.tensor(w), torch.tensor(w)
    idx = np.array([1, 2, 9, 2, 0])
    out = F.embedding_bag(ember.tensor(idx), ew, ember.tensor([0, 2]), max_norm=5.0, mode="sum")
    want = TF.embedding_bag(torch.tensor(idx), tw, torch.tensor([0, 2]), max_norm=5.0,
                            mode="sum")
    assert_close(out, want)
    assert_close(ew, tw)  # the renorm is written into the weight (rebound), as PyTorch's


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_scale_grad_by_freq_divides_by_the_input_counts(mode):
    # each row's gradient divided by how often its index occurs in the input, as F.embedding's
    # (PyTorch 2.13's CPU embedding_bag divides some rows by another index's count,
    # pytorch/pytorch#190063; docs/pytorch.md)
    rng = np.random.default_rng(5)
    ew, tw = _pair(rng.standard_normal((10, 3)), "float64")
    out_e = F.embedding_bag(ember.tensor(IDX), ew, ember.tensor([0, 4, 9]), mode=mode,
                            scale_grad_by_freq=True)
    member = np.zeros((3, IDX.size))
    for b, (lo, hi) in enumerate([(0, 4), (4, 9), (9, 14)]):
        member[b, lo:hi] = 1.0 / (hi - lo) if mode == "mean" else 1.0
    rows = TF.embedding(torch.tensor(IDX), tw, scale_grad_by_freq=True)
    out_t = torch.tensor(member) @ rows
    g = rng.standard_normal((3, 3))
    out_e.backward(ember.tensor(g))
    out_t.backward(torch.tensor(g))
    assert_close(out_e, out_t.detach())
    assert_close(ew.grad, tw.grad)


def test_scale_grad_by_freq_the_documented_example():
    # docs/pytorch.md: indices [1, 1, 3] in one bag give rows 1 and 3 a gradient of 1.0
    w = ember.ones(4, 3, requires_grad=True)
    F.embedding_bag(ember.tensor([1, 1, 3]), w, ember.tensor([0]), mode="sum",
                    scale_grad_by_freq=True).sum().backward()
    assert w.grad[:, 0].tolist() == [0.0, 1.0, 0.0, 1.0]


def test_the_base_default_computes_what_the_backend_does():
    from ember.backends.base import Backend
    be = ember.tensor([0.0]).device.backend
    rng = np.random.default_rng(6)
    w = be.asarray(rng.standard_normal((10, 4)))
    psw = be.asarray(rng.standard_normal(14))
    bounds = be.asarray(np.array([0, 2, 2, 7, 13]))
    idx = be.asarray(IDX)
    for mode, p, pad, off in [("sum", psw, None, bounds), ("mean", None, 4, bounds),
                              ("max", None, 4, bounds), ("max", None, None, None),
                              ("mean", None, None, None), ("max", None, 0, None)]:
        i = idx if off is not None else be.asarray(IDX[:12].reshape(3, 4))
        q = p if off is not None or p is None else be.asarray(be.to_host(p)[:12].reshape(3, 4))
        mine = be.nn_embedding_bag(w, i, off, mode, q, pad)
        default = Backend.nn_embedding_bag(be, w, i, off, mode, q, pad)
        np.testing.assert_allclose(be.to_host(mine[0]), be.to_host(default[0]), rtol=1e-12,
                                   atol=1e-12)
        assert (mine[1] is None) == (default[1] is None) == (mode != "max")
        if mode == "max":
            np.testing.assert_array_equal(be.to_host(mine[1]), be.to_host(default[1]))


# -- the NumPy backend's compiled kernel -----------------------------------------------------------

@pytest.mark.numpy_only
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_the_compiled_kernel_matches_the_numpy_path(compiled_kernels, jit_launches, mode, dtype):
    from ember.backends.numpy.jit import bags
    rng = np.random.default_rng(7)
    w = (rng.standard_normal((300, 33)) * 10.0 ** rng.integers(-3, 4, (300, 1))).astype(dtype)
    w[5, 3] = np.nan
    w[6, :4] = w[7, :4]
    idx = rng.integers(0, 300, (40, 25))
    idx[0, :6] = [6, 7, 7, 6, 5, 1]
    flat = idx.reshape(-1)
    bounds = np.array([0, 0, 3, 3, 400, 401, 999, 1000])
    psw = rng.standard_normal(flat.size).astype(dtype) if mode == "sum" else None
    many = rng.integers(0, 300, (1300, 25))  # enough rows for two threads
    cases = [(idx, None, None, None), (idx, None, None, 7), (flat, bounds, psw, None),
             (flat, bounds, psw, 6), (flat, bounds[:-1], None, None), (many, None, None, 7)]
    for i, off, p, pad in cases:
        want = bags._default(w, i, off, mode, p, pad)
        got = bags.nn_embedding_bag(w, i, off, mode, p, pad)
        assert got[0].dtype == want[0].dtype == w.dtype
        assert got[0].tobytes() == want[0].tobytes()
        if mode == "max":
            np.testing.assert_array_equal(got[1], want[1])
    assert jit_launches and all(ok for _, ok in jit_launches)
    assert {name for name, _ in jit_launches} == {bags.name(np.dtype(dtype))}


@pytest.mark.numpy_only
def test_the_op_takes_the_compiled_kernel(compiled_kernels, jit_launches):
    from ember.backends.numpy.jit import bags
    rng = np.random.default_rng(8)
    w = ember.tensor(rng.standard_normal((50, 8)).astype("float32")).require_grad()
    out = F.embedding_bag(ember.tensor(rng.integers(0, 50, (6, 5))), w, mode="mean")
    out.sum().backward()
    assert (bags.name(np.dtype("float32")), True) in jit_launches
    assert_close(w.grad.sum(), 6.0 * 8.0, rtol=1e-5)


@pytest.mark.numpy_only
def test_other_float_dtypes_take_the_numpy_path(jit_launches):
    rng = np.random.default_rng(9)
    w = rng.standard_normal((20, 3)).astype("float16")
    idx = rng.integers(0, 20, (4, 5))
    out = F.embedding_bag(ember.tensor(idx), ember.tensor(w), mode="sum")
    assert out.dtype == ember.float16 and not jit_launches
    want = TF.embedding_bag(torch.tensor(idx), torch.tensor(w).float(), mode="sum")
    assert_close(out.float(), want, rtol=2e-3, atol=2e-3)
