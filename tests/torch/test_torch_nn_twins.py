"""PyTorch's nn functions at the top level of ``torch`` with ATen's signatures
(ember/torch/nn_twins.py) against PyTorch: values, shapes, dtypes, gradients, the in-place
forms' rebinding and typed errors."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check, rand as _rand
from oracle import assert_close


def rand(shape, dtype="float32", seed=0, **kw):
    return np.asarray(_rand(shape, dtype, seed, **kw))


def ints(shape, high, seed=0):
    return np.random.default_rng(seed).integers(0, high, size=shape).astype("int64")


def positive(shape, seed=0):
    return (np.abs(rand(shape, "float64", seed)) + 0.5).astype("float64")


# -- activations ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activations(shape, dtype):
    x = rand(shape, dtype)
    check(lambda m, x: m.celu(x), x)
    check(lambda m, x: m.celu(x, 0.5), x)
    check(lambda m, x: m.selu(x), x)
    check(lambda m, x: m.threshold(x, 0.1, -2.0), x)
    check(lambda m, x: m.hardshrink(x, 0.7), x)
    check(lambda m, x: m.hardshrink(x), x)
    check(lambda m, x: x.hardshrink(0.3), x)
    check(lambda m, x: m.rrelu(x, 0.1, 0.3), x)
    check(lambda m, x: m.rrelu(x, 0.1, 0.3, False), x)


@pytest.mark.parametrize("wshape", [(1,), (3,)])
def test_prelu(wshape):
    x, w = rand((2, 3, 4)), np.abs(rand(wshape, seed=1))
    check(lambda m, x, w: m.prelu(x, w), x, w)
    check(lambda m, x, w: x.prelu(w), x, w)
    check(lambda m, x, w: m.prelu(x.transpose(1, 2), w), rand((2, 4, 3)), np.abs(rand((3,))))


def test_activation_inplace_forms():
    for name, args in (("celu_", (0.7,)), ("selu_", ()), ("threshold_", (0.0, 5.0)),
                       ("rrelu_", (0.2, 0.2))):
        x = rand((3, 4), seed=2)
        xt, xe = torch.tensor(x), et.tensor(x)
        ref = getattr(torch, name)(xt, *args)
        assert getattr(et, name)(xe, *args) is xe
        assert_close(xe, ref)


def test_inplace_on_a_leaf_requiring_grad_raises():
    leaf = et.ones(2, requires_grad=True)
    with pytest.raises(GraphError):
        et.celu_(leaf)
    with pytest.raises(GraphError):
        et.dropout_(leaf, 0.5, False)


def test_rrelu_training_slopes_lie_in_range():
    x = et.tensor(-np.ones(2000, dtype=np.float32))
    y = et.rrelu(x, 0.1, 0.3, True).numpy()
    assert ((-y >= 0.1 - 1e-6) & (-y <= 0.3 + 1e-6)).all() and y.std() > 0.01


# -- dropouts -------------------------------------------------------------------------------------

DROPS = ("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout")


@pytest.mark.parametrize("name", DROPS)
def test_dropouts_without_train_are_the_identity(name):
    x = rand((2, 3, 4))
    check(lambda m, x: getattr(m, name)(x, 0.4, False), x)
    x_e = et.tensor(x)
    assert getattr(et, name + "_")(x_e, 0.4, False) is x_e
    assert_close(x_e, torch.tensor(x))


@pytest.mark.parametrize("name", DROPS)
def test_dropouts_in_training_statistics(name):
    et.manual_seed(0)
    x = et.ones(400, 50, 6)
    y = getattr(et, name)(x, 0.3, True)
    assert y.shape == et.Size((400, 50, 6)) and y.dtype == et.float32
    arr = y.numpy()
    if name.startswith("feature"):  # whole channels: constant over the last dim
        assert (arr == arr[..., :1]).all()
    if "alpha" in name:   # the mean and variance of a standard input are kept
        z = getattr(et, name)(et.randn(400, 50, 6), 0.3, True).numpy()
        assert abs(z.mean()) < 0.1 and abs(z.std() - 1) < 0.1
    else:
        assert set(np.unique(arr)) <= {0.0, np.float32(1 / 0.7)}
        assert abs((arr == 0).mean() - 0.3) < 0.05
    x2 = et.ones(400, 50, 6)
    assert getattr(et, name + "_")(x2, 0.3, True) is x2
    kept = x2.numpy()
    if name.startswith("feature"):
        assert (kept == kept[..., :1]).all()
    assert len(np.unique(kept)) == 2 and abs((kept == kept.min()).mean() - 0.3) < 0.05


def test_dropout_gradient_follows_the_mask():
    et.manual_seed(1)
    x = et.ones(100, requires_grad=True)
    y = et.dropout(x, 0.5, True)
    y.sum().backward()
    assert_close(x.grad, torch.tensor(y.detach().numpy()))


def test_dropout_bad_arguments():
    with pytest.raises(InvalidParameterError):
        et.dropout(et.ones(2), 1.5, True)
    with pytest.raises(InvalidParameterError):
        et.dropout(et.ones(2), 0.5, "yes")


# -- embeddings -----------------------------------------------------------------------------------

@pytest.mark.parametrize("padding_idx", [-1, 2])
@pytest.mark.parametrize("freq", [False, True])
def test_embedding(padding_idx, freq):
    w, idx = rand((5, 3)), ints((2, 4), 5)
    check(lambda m, w, i: m.embedding(w, i, padding_idx, freq), w, idx)
    check(lambda m, w, i: m.embedding(w, i), w, ints((0,), 5))


def test_embedding_errors():
    with pytest.raises(KindError):
        et.embedding(et.ones(3, 2), et.tensor([0.5]))
    with pytest.raises(InvalidParameterError):
        et.embedding(et.ones(3, 2), et.tensor([0]), 0.5)


@pytest.mark.parametrize("norm_type", [1.0, 2.0])
def test_embedding_renorm_(norm_type):
    w = rand((6, 3), "float64") * 3
    idx = np.array([0, 2, 2, 5])
    wt, we = torch.tensor(w), et.tensor(w)
    torch.embedding_renorm_(wt, torch.tensor(idx), 1.5, norm_type)
    assert et.embedding_renorm_(we, et.tensor(idx), 1.5, norm_type) is we
    assert_close(we, wt, rtol=1e-6, atol=1e-7)
    with pytest.raises(GraphError):
        et.embedding_renorm_(et.ones(2, 2, requires_grad=True), et.tensor([0]), 1.0, 2.0)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 3])
@pytest.mark.parametrize("offsets,last", [([0, 2, 5], False), ([0, 2, 2, 6], True)])
def test_embedding_bag(mode, padding_idx, offsets, last):
    w, idx = rand((5, 3)), np.array([0, 2, 4, 1, 3, 3])
    off = np.array(offsets)
    check(lambda m, w: m.embedding_bag(w, m.tensor(idx), m.tensor(off), False, mode, False,
                                       None, last, padding_idx), w)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_embedding_bag_random_bags(mode, seed):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, 7, size=40)
    off = np.sort(np.concatenate([[0], rng.integers(0, 41, size=9)]))  # empty bags too
    check(lambda m, w: m.embedding_bag(w, m.tensor(idx), m.tensor(off), False, mode, False,
                                       None, False, 2), rand((7, 5), "float64", seed),
          rtol=1e-7, atol=1e-9)
    check(lambda m, w: m.embedding_bag(w, m.tensor(idx), m.tensor(off), False, mode),
          rand((7, 5), "float64", seed), rtol=1e-7, atol=1e-9)


def test_embedding_bag_per_sample_weights():
    w, psw = rand((5, 3)), rand((6,), seed=1)
    idx, off = np.array([0, 2, 4, 1, 3, 3]), np.array([0, 2, 5])
    check(lambda m, w, p: m.embedding_bag(w, m.tensor(idx), m.tensor(off), False, 0, False, p),
          w, psw)
    with pytest.raises(InvalidParameterError):
        et.embedding_bag(et.tensor(w), et.tensor(idx), et.tensor(off), False, 3)


# -- convolutions ---------------------------------------------------------------------------------

@pytest.mark.parametrize("nd", [1, 2, 3])
def test_convs(nd):
    x = rand((2, 4) + (5,) * nd)
    w, b = rand((6, 2) + (3,) * nd, seed=1), rand((6,), seed=2)
    conv = f"conv{nd}d"
    check(lambda m, x, w, b: getattr(m, conv)(x, w, b, 2, 1, 1, 2), x, w, b, rtol=1e-4,
          atol=1e-5)
    check(lambda m, x, w: getattr(m, conv)(x, w, None, 1, "same", 1, 2), x, w, rtol=1e-4,
          atol=1e-5)
    check(lambda m, x, w, b: m.convolution(x, w, b, [2] * nd, [1] * nd, [1] * nd, False,
                                           [0] * nd, 2), x, w, b, rtol=1e-4, atol=1e-5)
    check(lambda m, x, w: m.convolution(x, w, None, [2], [1], [1], False, [0], 2), x, w,
          rtol=1e-4, atol=1e-5)
    wt = rand((4, 3) + (2,) * nd, seed=3)
    tconv = f"conv_transpose{nd}d"
    check(lambda m, x, w, b: getattr(m, tconv)(x, w, b, 2, 1, 1, 1, 1), x, wt, rand((3,)),
          rtol=1e-4, atol=1e-5)
    check(lambda m, x, w: m.convolution(x, w, None, [2] * nd, [0] * nd, [1] * nd, True,
                                        [1] * nd, 1), x, wt, rtol=1e-4, atol=1e-5)


def test_conv_float64_and_errors():
    check(lambda m, x, w: m.conv2d(x, w), rand((1, 2, 4, 4), "float64"),
          rand((3, 2, 2, 2), "float64", seed=1), rtol=1e-7, atol=1e-9)
    with pytest.raises(ShapeMismatchError):
        et.convolution(et.ones(1, 1, 3), et.ones(1), None, [1], [0], [1], False, [0], 1)
    with pytest.raises(InvalidParameterError):
        et.convolution(et.ones(1, 1, 3), et.ones(1, 1, 2), None, [1], [0], [1], 0, [0], 1)


def test_conv_tbc():
    check(lambda m, x, w, b: m.conv_tbc(x, w, b, 1), rand((6, 2, 3)), rand((3, 3, 4), seed=1),
          rand((4,), seed=2), rtol=1e-5, atol=1e-6)


# -- pooling --------------------------------------------------------------------------------------

def test_pools():
    x1, x2, x3 = rand((2, 3, 9)), rand((2, 3, 6, 7)), rand((1, 2, 4, 5, 6))
    check(lambda m, x: m.avg_pool1d(x, 3), x1)
    check(lambda m, x: m.avg_pool1d(x, [3], [2], [1], True, False), x1)
    check(lambda m, x: m.max_pool1d(x, 3), x1)
    check(lambda m, x: m.max_pool1d(x, 3, 2, 1, 2, True), x1)
    check(lambda m, x: m.max_pool1d_with_indices(x, 2), x1)
    check(lambda m, x: m.max_pool1d_with_indices(x, [3], [1], [1], [1], False), x1)
    check(lambda m, x: m.max_pool2d(x, 2), x2)
    check(lambda m, x: m.max_pool2d(x, [3, 2], [1, 2], 1, 1, True), x2)
    check(lambda m, x: m.max_pool3d(x, 2), x3)
    check(lambda m, x: m.max_pool3d(x, 2, [1, 2, 2], 1), x3)
    check(lambda m, x: m.adaptive_avg_pool1d(x, 4), x1)
    check(lambda m, x: m.adaptive_avg_pool1d(x, [5]), x1)
    check(lambda m, x: m.adaptive_max_pool1d(x, 4), x1)
    check(lambda m, x: m.adaptive_max_pool1d(x.transpose(0, 1), [2]), x1)


# -- shuffles, padding, grids ---------------------------------------------------------------------

def test_non_contiguous_inputs():
    x = rand((3, 4, 5), "float64")
    tol = dict(rtol=1e-7, atol=1e-9)
    check(lambda m, x: m.layer_norm(x.transpose(1, 2), [4]), x, **tol)
    check(lambda m, x: m.dropout(x.transpose(0, 2), 0.3, False), x, **tol)
    check(lambda m, x: m.max_pool1d(x.transpose(1, 2), 2), x, **tol)
    check(lambda m, x, w: m.conv1d(x.transpose(1, 2), w), x, rand((2, 5, 2), "float64", 1),
          **tol)
    check(lambda m, x, y: m.cosine_similarity(x.transpose(0, 1), y), x, rand((4, 3, 5),
                                                                              "float64", 2), **tol)


def test_shuffles_and_padding():
    x = rand((2, 8, 3, 4))
    check(lambda m, x: m.pixel_shuffle(x, 2), x)
    check(lambda m, x: m.pixel_unshuffle(x, 1), x)
    check(lambda m, x: m.pixel_unshuffle(x[:, :, :2], 2), x)
    check(lambda m, x: m.channel_shuffle(x, 4), x)
    check(lambda m, x: m.constant_pad_nd(x, [1, 2]), x)
    check(lambda m, x: m.constant_pad_nd(x, [1, -1, 0, 2, 1, 1], 3.5), x)
    check(lambda m, x: m.constant_pad_nd(x, [0, 1]), ints((3,), 5))


@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_and_samplers(align):
    theta = rand((2, 2, 3), "float64")
    check(lambda m, t: m.affine_grid_generator(t, [2, 3, 4, 5], align), theta, rtol=1e-7,
          atol=1e-9)
    check(lambda m, t: m.affine_grid_generator(t, [2, 1, 2, 3, 4], align),
          rand((2, 3, 4), "float64"), rtol=1e-7, atol=1e-9)
    x = rand((2, 3, 5, 6), "float64")
    grid = np.tanh(rand((2, 4, 3, 2), "float64", seed=1)) * 1.2
    for mode in (0, 1, 2):
        for pad in (0, 1, 2):
            for name in ("grid_sampler", "grid_sampler_2d"):
                check(lambda m, x, g: getattr(m, name)(x, g, mode, pad, align), x, grid,
                      grad=mode != 1, rtol=1e-6, atol=1e-8)
    with pytest.raises(InvalidParameterError):
        et.grid_sampler(et.tensor(x), et.tensor(grid), 3, 0, align)
    with pytest.raises(InvalidParameterError):
        et.grid_sampler(et.tensor(x), et.tensor(grid), 0, "zeros", align)


# -- normalizations -------------------------------------------------------------------------------

@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2)])
def test_batch_norm(training, shape):
    x = rand(shape, "float64")
    w, b = rand((3,), "float64", 1), rand((3,), "float64", 2)
    rm, rv = rand((3,), "float64", 3), positive((3,), 4)
    check(lambda m, x, w, b: m.batch_norm(x, w, b, m.tensor(rm), m.tensor(rv), training, 0.3,
                                          1e-5, True), x, w, b, rtol=1e-7, atol=1e-9)
    rm_t, rv_t, rm_e, rv_e = torch.tensor(rm), torch.tensor(rv), et.tensor(rm), et.tensor(rv)
    torch.batch_norm(torch.tensor(x), None, None, rm_t, rv_t, training, 0.3, 1e-5, False)
    et.batch_norm(et.tensor(x), None, None, rm_e, rv_e, training, 0.3, 1e-5, False)
    assert_close(rm_e, rm_t, rtol=1e-7, atol=1e-9)
    assert_close(rv_e, rv_t, rtol=1e-7, atol=1e-9)
    if training:
        check(lambda m, x: m.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, True), x,
              rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("use_input_stats", [False, True])
def test_instance_norm(use_input_stats):
    x = rand((2, 3, 5), "float64")
    rm, rv = rand((3,), "float64", 3), positive((3,), 4)
    check(lambda m, x, w, b: m.instance_norm(x, w, b, m.tensor(rm), m.tensor(rv),
                                             use_input_stats, 0.2, 1e-5, True),
          x, rand((3,), "float64", 1), rand((3,), "float64", 2), rtol=1e-7, atol=1e-9)
    rm_t, rv_t, rm_e, rv_e = torch.tensor(rm), torch.tensor(rv), et.tensor(rm), et.tensor(rv)
    torch.instance_norm(torch.tensor(x), None, None, rm_t, rv_t, use_input_stats, 0.2, 1e-5,
                        False)
    et.instance_norm(et.tensor(x), None, None, rm_e, rv_e, use_input_stats, 0.2, 1e-5, False)
    assert_close(rm_e, rm_t, rtol=1e-7, atol=1e-9)
    assert_close(rv_e, rv_t, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_group_rms_norm(dtype):
    x = rand((2, 4, 3), dtype)
    tol = dict(rtol=1e-7, atol=1e-9) if dtype == "float64" else dict(rtol=1e-5, atol=1e-6)
    check(lambda m, x, w, b: m.layer_norm(x, [4, 3], w, b, 1e-5, True), x,
          rand((4, 3), dtype, 1), rand((4, 3), dtype, 2), **tol)
    check(lambda m, x: m.layer_norm(x, (3,)), x, **tol)
    check(lambda m, x, w, b: m.group_norm(x, 2, w, b, 1e-5, True), x, rand((4,), dtype, 1),
          rand((4,), dtype, 2), **tol)
    check(lambda m, x: m.group_norm(x, 4), x, **tol)
    check(lambda m, x, w: m.rms_norm(x, [3], w), x, rand((3,), dtype, 1), **tol)
    check(lambda m, x: m.rms_norm(x, [4, 3], None, 1e-3), x, **tol)
    with pytest.raises(ShapeMismatchError):
        et.layer_norm(et.tensor(x), [5])


@pytest.mark.filterwarnings("ignore:.*is deprecated and it is just left for JIT:UserWarning")
def test_norms():
    v = rand((3, 4, 5), "float64")
    for p, dim in ((2, 0), (2, 1), (3, 2), (2, -1), (1, 0)):
        check(lambda m, v: m.norm_except_dim(v, p, dim), v, rtol=1e-7, atol=1e-9)
    check(lambda m, v: m.norm_except_dim(v), rand((4,), "float64"), rtol=1e-7, atol=1e-9)
    check(lambda m, v: m.frobenius_norm(v, [0, 2]), v, rtol=1e-7, atol=1e-9)
    check(lambda m, v: m.frobenius_norm(v, [1], True), v, rtol=1e-7, atol=1e-9)
    check(lambda m, v: m.nuclear_norm(v[0]), v, rtol=1e-7, atol=1e-9)
    check(lambda m, v: m.nuclear_norm(v[0], True), v, rtol=1e-7, atol=1e-9)
    check(lambda m, v: m.nuclear_norm(v, [0, 2]), v, rtol=1e-7, atol=1e-9)
    check(lambda m, v: m.nuclear_norm(v, [2, 1], True), v, rtol=1e-7, atol=1e-9)
    with pytest.raises(InvalidParameterError):
        et.norm_except_dim(et.tensor(v), 2, 3)
    with pytest.raises(InvalidParameterError):
        et.frobenius_norm(et.tensor(v), [0, 1, 2])
    with pytest.raises(ShapeMismatchError):
        et.nuclear_norm(et.tensor(v))
    with pytest.raises(InvalidParameterError):
        et.nuclear_norm(et.tensor(v), [0])
    with pytest.raises(InvalidParameterError):
        et.frobenius_norm(et.tensor(v), None)


# -- SyncBatchNorm's building blocks (CUDA-only in PyTorch: checked against their math on
# torch's CPU ops and against torch's batch_norm and its gradient) ------------------------------

def _stats_t(x, eps):
    dims = (0,) + tuple(range(2, x.ndim))
    return x.mean(dims), 1 / (x.var(dims, unbiased=False) + eps).sqrt()


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2)])
def test_batch_norm_stats_and_elemt(shape):
    x = rand(shape, "float64")
    mean_e, inv_e = et.batch_norm_stats(et.tensor(x), 1e-5)
    mean_t, inv_t = _stats_t(torch.tensor(x), 1e-5)
    assert_close(mean_e, mean_t, rtol=1e-7, atol=1e-9)
    assert_close(inv_e, inv_t, rtol=1e-7, atol=1e-9)
    w, b = rand((3,), "float64", 1), rand((3,), "float64", 2)
    out = et.batch_norm_elemt(et.tensor(x), et.tensor(w), et.tensor(b), mean_e, inv_e, 1e-5)
    ref = torch.batch_norm(torch.tensor(x), torch.tensor(w), torch.tensor(b), None, None, True,
                           0.1, 1e-5, False)
    assert_close(out, ref, rtol=1e-7, atol=1e-9)
    check(lambda m, x: m.batch_norm_stats(x, 1e-3)[1] if m is et else _stats_t(x, 1e-3)[1], x,
          rtol=1e-7, atol=1e-9)


def test_batch_norm_gather_stats_combine_the_pieces_of_a_batch():
    x = rand((10, 3, 4), "float64")
    pieces = [x[:3], x[3:4], x[4:]]
    counts = np.array([p.size // 3 for p in pieces], dtype="float64")
    means, invs = zip(*(et.batch_norm_stats(et.tensor(p), 1e-5) for p in pieces))
    rm_e, rv_e = et.tensor(rand((3,), "float64", 3)), et.tensor(positive((3,), 4))
    rm_t, rv_t = torch.tensor(rm_e.numpy()), torch.tensor(rv_e.numpy())
    mean, inv = et.batch_norm_gather_stats_with_counts(
        et.tensor(x), et.stack(means), et.stack(invs), rm_e, rv_e, 0.2, 1e-5, et.tensor(counts))
    mean_t, inv_t = _stats_t(torch.tensor(x), 1e-5)
    assert_close(mean, mean_t, rtol=1e-7, atol=1e-9)
    assert_close(inv, inv_t, rtol=1e-7, atol=1e-9)
    torch.batch_norm(torch.tensor(x), None, None, rm_t, rv_t, True, 0.2, 1e-5, False)
    assert_close(rm_e, rm_t, rtol=1e-7, atol=1e-9)
    assert_close(rv_e, rv_t, rtol=1e-7, atol=1e-9)
    # equal counts
    halves = [x[:5], x[5:]]
    means, invs = zip(*(et.batch_norm_stats(et.tensor(p), 1e-5) for p in halves))
    mean, inv = et.batch_norm_gather_stats(et.tensor(x), et.stack(means), et.stack(invs), None,
                                           None, 0.1, 1e-5, 20)
    assert_close(mean, mean_t, rtol=1e-7, atol=1e-9)
    assert_close(inv, inv_t, rtol=1e-7, atol=1e-9)
    with pytest.raises(ShapeMismatchError):
        et.batch_norm_gather_stats(et.tensor(x), means[0], invs[0], None, None, 0.1, 1e-5, 20)
    with pytest.raises(ShapeMismatchError):
        et.batch_norm_gather_stats_with_counts(et.tensor(x), et.stack(means), et.stack(invs),
                                               None, None, 0.1, 1e-5, et.ones(3))
    with pytest.raises(ShapeMismatchError):
        et.batch_norm_update_stats(et.tensor(x), et.zeros(4), None, 0.1)


def test_batch_norm_update_stats():
    x = rand((4, 3, 5), "float64")
    rm, rv = rand((3,), "float64", 3), positive((3,), 4)
    rm_t, rv_t, rm_e, rv_e = torch.tensor(rm), torch.tensor(rv), et.tensor(rm), et.tensor(rv)
    out_t = torch.batch_norm_update_stats(torch.tensor(x), rm_t, rv_t, 0.3)
    out_e = et.batch_norm_update_stats(et.tensor(x), rm_e, rv_e, 0.3)
    for a, b in zip(out_e, out_t):
        assert_close(a, b, rtol=1e-7, atol=1e-9)
    assert_close(rm_e, rm_t, rtol=1e-7, atol=1e-9)
    assert_close(rv_e, rv_t, rtol=1e-7, atol=1e-9)
    for a, b in zip(et.batch_norm_update_stats(et.tensor(x), None, None, 0.3),
                    torch.batch_norm_update_stats(torch.tensor(x), None, None, 0.3)):
        assert_close(a, b, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("with_weight", [False, True])
def test_batch_norm_backward_pieces_give_batch_norms_gradients(with_weight):
    x, dy = rand((4, 3, 5), "float64"), rand((4, 3, 5), "float64", 1)
    w = rand((3,), "float64", 2)
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True) if with_weight else None
    bt = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    out = torch.batch_norm(xt, wt, bt, None, None, True, 0.1, 1e-5, False)
    grads = torch.autograd.grad(out, [xt, bt] + ([wt] if with_weight else []), torch.tensor(dy))
    mean, inv = et.batch_norm_stats(et.tensor(x), 1e-5)
    we = et.tensor(w) if with_weight else None
    sum_dy, sum_dy_xmu, gw, gb = et.batch_norm_backward_reduce(
        et.tensor(dy), et.tensor(x), mean, inv, we, True, with_weight, True)
    assert_close(gb, grads[1], rtol=1e-7, atol=1e-9)
    if with_weight:
        assert_close(gw, grads[2], rtol=1e-7, atol=1e-9)
    else:
        assert gw is None
    gx = et.batch_norm_backward_elemt(et.tensor(dy), et.tensor(x), mean, inv, we, sum_dy,
                                      sum_dy_xmu, et.tensor([20], dtype=et.int32))
    assert_close(gx, grads[0], rtol=1e-7, atol=1e-9)
    assert et.batch_norm_backward_reduce(et.tensor(dy), et.tensor(x), mean, inv, we, False,
                                         False, False) == (None, None, None, None)


# -- losses and distances -------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses_with_int_reductions(reduction):
    r = reduction
    a, b = rand((4, 5), "float64"), rand((4, 5), "float64", 1)
    sign = np.where(rand((4,), seed=2) > 0, 1.0, -1.0)
    tol = dict(rtol=1e-7, atol=1e-9)
    check(lambda m, x, t: m.binary_cross_entropy_with_logits(x, t, None, None, r), a,
          np.abs(np.tanh(b)), **tol)
    w, pw = positive((5,), 3), positive((5,), 4)
    check(lambda m, x, t: m.binary_cross_entropy_with_logits(x, t, m.tensor(w), m.tensor(pw),
                                                             r), a, np.abs(np.tanh(b)), **tol)
    check(lambda m, x, t: m.kl_div(x, t, r), np.log(np.abs(a) + 0.1), np.abs(b), **tol)
    check(lambda m, x, t: m.kl_div(x, t, r, log_target=True), a, b, **tol)
    check(lambda m, x, y, t: m.cosine_embedding_loss(x, y, t, 0.2, r), a, b, sign, **tol)
    check(lambda m, x, t: m.hinge_embedding_loss(x, t, 0.5, r), a,
          np.where(b > 0, 1.0, -1.0), **tol)
    check(lambda m, x, y, t: m.margin_ranking_loss(x, y, t, 0.1, r), a[0], b[0],
          np.where(a[1] > 0, 1.0, -1.0), **tol)
    check(lambda m, x, t: m.poisson_nll_loss(x, t, True, False, 1e-8, r), a, np.abs(b), **tol)
    check(lambda m, x, t: m.poisson_nll_loss(x, t, False, True, 1e-8, r), np.abs(a),
          np.abs(b) * 3, **tol)
    check(lambda m, x, y, z: m.triplet_margin_loss(x, y, z, 1.0, 2, 1e-6, False, r), a, b,
          rand((4, 5), "float64", 5), **tol)
    check(lambda m, x, y, z: m.triplet_margin_loss(x, y, z, 0.5, 1, 1e-6, True, r), a, b,
          rand((4, 5), "float64", 5), **tol)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_ctc_loss(reduction):
    T, N, C, S = 8, 3, 5, 3
    lp = np.log(np.random.default_rng(0).dirichlet(np.ones(C), size=(T, N))).astype("float64")
    targets = 1 + ints((N, S), C - 1)
    il, tl = [8, 7, 6], [3, 2, 3]
    check(lambda m, x: m.ctc_loss(x, m.tensor(targets), il, tl, 0, reduction, False), lp,
          rtol=1e-6, atol=1e-8)
    check(lambda m, x: m.ctc_loss(x, m.tensor(targets), m.tensor(il), m.tensor(tl), 0,
                                  reduction, True), lp, rtol=1e-6, atol=1e-8)


def test_reduction_must_be_an_int_enum():
    x = et.zeros(2)
    for bad in ("mean", 3, True, -1):
        with pytest.raises(InvalidParameterError):
            et.kl_div(x, x, bad)
    with pytest.raises(InvalidParameterError):
        et.kl_div(x, x, 1, log_target="yes")
    with pytest.raises(InvalidParameterError):
        et.margin_ranking_loss(x, x, x, 0.0, "sum")
    with pytest.raises(InvalidParameterError):
        et.ctc_loss(et.zeros(3, 1, 3), et.tensor([[1]]), [3], [1], 0, 5)


def test_distances_and_bilinear():
    a, b = rand((4, 5), "float64"), rand((4, 5), "float64", 1)
    tol = dict(rtol=1e-7, atol=1e-9)
    check(lambda m, x, y: m.cosine_similarity(x, y), a, b, **tol)
    check(lambda m, x, y: m.cosine_similarity(x, y, 0, 1e-6), a, b, **tol)
    check(lambda m, x, y: m.pairwise_distance(x, y), a, b, **tol)
    check(lambda m, x, y: m.pairwise_distance(x, y, 1.0, 1e-6, True), a, b, **tol)
    check(lambda m, x, y, w, c: m.bilinear(x, y, w, c), a, rand((4, 3), "float64", 2),
          rand((6, 5, 3), "float64", 3), rand((6,), "float64", 4), **tol)
    check(lambda m, x, y, w: m.bilinear(x, y, w), a, rand((4, 3), "float64", 2),
          rand((6, 5, 3), "float64", 3), **tol)


# -- recurrent ------------------------------------------------------------------------------------

_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _params(name, inp, hid, layers, bidir, bias, proj=0, seed=10):
    g = _GATES[name] * hid
    out, ps = proj or hid, []
    for layer in range(layers):
        for _ in range(2 if bidir else 1):
            width = inp if layer == 0 else out * (2 if bidir else 1)
            ps += [rand((g, width), "float64", seed), rand((g, out), "float64", seed + 1)]
            if bias:
                ps += [rand((g,), "float64", seed + 2), rand((g,), "float64", seed + 3)]
            if proj:
                ps.append(rand((proj, hid), "float64", seed + 4))
            seed += 5
    return [p * 0.4 for p in ps]


@pytest.mark.parametrize("name", sorted(_GATES))
@pytest.mark.parametrize("layers,bidir,bias,batch_first",
                         [(1, False, True, False), (2, True, True, True),
                          (2, False, False, False)])
def test_recurrent_padded(name, layers, bidir, bias, batch_first):
    T, B, F, H = 5, 3, 4, 6
    lead = layers * (2 if bidir else 1)
    x = rand((B, T, F) if batch_first else (T, B, F), "float64")
    ps = _params(name, F, H, layers, bidir, bias)
    h0 = rand((lead, B, H), "float64", 1)
    hx = [h0, rand((lead, B, H), "float64", 2)] if name == "lstm" else h0
    check(lambda m, x, hx, ps: getattr(m, name)(x, hx, ps, bias, layers, 0.0, False, bidir,
                                                batch_first), x, hx, ps, rtol=1e-6, atol=1e-8)


def test_lstm_with_projections():
    T, B, F, H, P = 4, 2, 3, 5, 2
    ps = _params("lstm", F, H, 2, True, True, proj=P)
    hx = [rand((4, B, P), "float64", 1), rand((4, B, H), "float64", 2)]
    check(lambda m, x, hx, ps: m.lstm(x, hx, ps, True, 2, 0.0, False, True, False),
          rand((T, B, F), "float64"), hx, ps, rtol=1e-6, atol=1e-8)


def test_recurrent_empty_batch():
    ps = _params("gru", 3, 4, 1, True, True)
    check(lambda m, x, h, ps: m.gru(x, h, ps, True, 1, 0.0, False, True, False),
          rand((5, 0, 3), "float64"), rand((2, 0, 4), "float64"), ps)


@pytest.mark.parametrize("name", sorted(_GATES))
@pytest.mark.parametrize("bidir", [False, True])
def test_recurrent_packed(name, bidir):
    F, H = 3, 4
    sizes = np.array([3, 3, 2, 1])
    data = rand((int(sizes.sum()), F), "float64")
    lead = 2 if bidir else 1
    h0 = rand((lead, 3, H), "float64", 1)
    hx = [h0, rand((lead, 3, H), "float64", 2)] if name == "lstm" else h0
    ps = _params(name, F, H, 1, bidir, True)
    check(lambda m, d, hx, ps: getattr(m, name)(d, m.tensor(sizes), hx, ps, True, 1, 0.0, False,
                                                bidir), data, hx, ps, rtol=1e-6, atol=1e-8)


def test_recurrent_dropout_between_layers_in_training():
    ps = [et.tensor(p) for p in _params("gru", 3, 4, 2, False, True)]
    x, h0 = et.tensor(rand((5, 2, 3), "float64")), et.zeros(2, 2, 4, dtype=et.float64)
    out_eval, _ = et.gru(x, h0, ps, True, 2, 0.5, False, False, False)
    et.manual_seed(0)
    out_a, _ = et.gru(x, h0, ps, True, 2, 0.5, True, False, False)
    et.manual_seed(0)
    out_b, _ = et.gru(x, h0, ps, True, 2, 0.5, True, False, False)
    assert_close(out_a, out_b.numpy())
    assert not np.allclose(out_a.numpy(), out_eval.numpy())


def test_recurrent_errors():
    ps = [et.ones(8, 3), et.ones(8, 2)]
    x, hx = et.ones(4, 1, 3), [et.zeros(1, 1, 2)] * 2
    with pytest.raises(InvalidParameterError):
        et.lstm(x, hx, ps[:1], False, 1, 0.0, False, False, False)
    with pytest.raises(InvalidParameterError):
        et.lstm(x, et.zeros(1, 1, 2), ps, False, 1, 0.0, False, False, False)
    with pytest.raises(ShapeMismatchError):
        et.lstm(et.ones(4, 3), hx, ps, False, 1, 0.0, False, False, False)
    with pytest.raises(InvalidParameterError):
        et.gru(x, et.zeros(1, 1, 2), [et.ones(6, 3), et.ones(6, 2)], False, 0, 0.0, False,
               False, False)
    for bad in ([et.zeros(1, 2, 2)] * 2, [et.zeros(2, 1, 2)] * 2,
                [et.zeros(1, 1, 2), et.zeros(1, 1, 3)]):
        with pytest.raises(ShapeMismatchError):
            et.lstm(x, bad, ps, False, 1, 0.0, False, False, False)
    with pytest.raises(ShapeMismatchError):
        et.lstm(x, hx, ps, False, 1, 0.0, False, False, True)  # batch_first: batch 4
    with pytest.raises(ShapeMismatchError):
        et.lstm(et.ones(0, 1, 3), hx, ps, False, 1, 0.0, False, False, False)
    with pytest.raises(ShapeMismatchError):
        et.lstm(et.ones(4, 3), et.tensor([3, 2]), hx, ps, False, 1, 0.0, False, False)
    with pytest.raises(ShapeMismatchError):
        et.lstm(et.ones(4, 3), et.tensor([1, 3]), hx, ps, False, 1, 0.0, False, False)


@pytest.mark.parametrize("bias", [False, True])
def test_cells(bias):
    B, F, H = 3, 4, 5
    x, h, c = rand((B, F), "float64"), rand((B, H), "float64", 1), rand((B, H), "float64", 2)
    tol = dict(rtol=1e-7, atol=1e-9)
    for name, gates in (("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1),
                        ("rnn_relu_cell", 1)):
        ws = [rand((gates * H, F), "float64", 3), rand((gates * H, H), "float64", 4)]
        if bias:
            ws += [rand((gates * H,), "float64", 5), rand((gates * H,), "float64", 6)]
        hx = [h, c] if name == "lstm_cell" else h
        check(lambda m, x, hx, *ws: getattr(m, name)(x, hx, *ws), x, hx, *ws, **tol)
    with pytest.raises(ShapeMismatchError):
        et.gru_cell(et.ones(4), et.ones(1, 5), et.ones(15, 4), et.ones(15, 5))
    with pytest.raises(InvalidParameterError):
        et.lstm_cell(et.ones(1, 4), et.ones(1, 5), et.ones(20, 4), et.ones(20, 5))
    with pytest.raises(ShapeMismatchError):
        et.rnn_tanh_cell(et.ones(2, 4), et.ones(1, 5), et.ones(5, 4), et.ones(5, 5))
    with pytest.raises(ShapeMismatchError):
        et.lstm_cell(et.ones(1, 4), [et.ones(1, 5), et.ones(1, 4)], et.ones(20, 4),
                     et.ones(20, 5))


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("pad", [0, 1, 2])
@pytest.mark.parametrize("mode", [0, 1])
def test_grid_sampler_3d(align, pad, mode):
    x = rand((2, 3, 4, 5, 3), "float64")
    grid = np.tanh(rand((2, 3, 2, 4, 3), "float64", seed=1)) * 1.3
    for name in ("grid_sampler", "grid_sampler_3d"):
        check(lambda m, x, g: getattr(m, name)(x, g, mode, pad, align), x, grid,
              grad=mode == 0, rtol=1e-6, atol=1e-8)
    if mode == 1:  # the input's gradient of nearest sampling
        check(lambda m, x: getattr(m, "grid_sampler_3d")(x, m.tensor(grid), mode, pad, align),
              x, rtol=1e-6, atol=1e-8)
    check(lambda m, x, g: m.grid_sampler_3d(x, g, mode, pad, align),
          rand((1, 2, 3, 3, 3)), np.tanh(rand((1, 2, 2, 2, 3), seed=2)), grad=mode == 0,
          rtol=1e-4, atol=1e-5)


def test_grid_sampler_3d_errors():
    x, g = et.ones(1, 1, 2, 2, 2), et.zeros(1, 1, 1, 1, 3)
    with pytest.raises(InvalidParameterError):
        et.grid_sampler_3d(x, g, 2, 0, False)
    with pytest.raises(ShapeMismatchError):
        et.grid_sampler_3d(et.ones(1, 1, 2, 2), g, 0, 0, False)
    with pytest.raises(ShapeMismatchError):
        et.grid_sampler_3d(x, et.zeros(1, 1, 1, 1, 2), 0, 0, False)
    with pytest.raises(KindError):
        et.grid_sampler_3d(et.ones(1, 1, 2, 2, 2, dtype=et.int64), g, 0, 0, False)
