"""``inplace=True`` in ``ember.torch.nn.functional`` and the ``nn`` modules, against PyTorch:
the result is written into the input tensor (the object, and every view of it, hold it
afterwards), the function returns that object, gradients through an intermediate are
PyTorch's, and a leaf that requires grad raises as PyTorch's (GraphError for RuntimeError)."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.torch as et
import ember.torch.nn.functional as EF

RNG = np.random.default_rng(25)
TOL = dict(rtol=1e-6, atol=1e-6)  # PyTorch's celu/hardsigmoid gradients use float32 constants

# name -> keyword arguments (alphas exact in float32, as PyTorch's kernels convert them)
ACTIVATIONS = {
    "relu": {}, "relu6": {}, "leaky_relu": {"negative_slope": 0.2}, "elu": {"alpha": 0.75},
    "selu": {}, "celu": {"alpha": 1.25}, "hardtanh": {"min_val": -0.5, "max_val": 2.0},
    "hardsigmoid": {}, "hardswish": {}, "silu": {}, "mish": {},
    "rrelu": {"lower": 0.1, "upper": 0.3, "training": False},
    "threshold": {"threshold": 0.3, "value": -2.0},
}

# module name -> (constructor arguments, functional name): nn.Module(inplace=True)
MODULES = {
    "ReLU": ((), "relu"), "ReLU6": ((), "relu6"), "LeakyReLU": ((0.2,), "leaky_relu"),
    "ELU": ((0.75,), "elu"), "SELU": ((), "selu"), "CELU": ((1.25,), "celu"),
    "Hardtanh": ((-0.5, 2.0), "hardtanh"), "Hardsigmoid": ((), "hardsigmoid"),
    "Hardswish": ((), "hardswish"), "SiLU": ((), "silu"), "Mish": ((), "mish"),
    "RReLU": ((0.1, 0.3), "rrelu"), "Threshold": ((0.3, -2.0), "threshold"),
}

SHAPES = [(3, 4), (), (0, 3), (2, 3, 5)]


def _data(shape):
    # values away from the kinks (0, +-3, thresholds), where one-sided gradients differ
    a = RNG.uniform(0.05, 4.0, shape) * RNG.choice([-1.0, 1.0], shape)
    return np.where(np.abs(np.abs(a) - 3.0) < 0.05, 1.5, np.where(np.abs(a - 0.3) < 0.05, 1.0, a))


def _np(t):
    return t.detach().numpy().copy()


def _both(fn):
    """``fn(lib, F)`` run with PyTorch and with ember.torch."""
    return fn(torch, TF), fn(et, EF)


# -- activations --------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_writes_the_input_and_its_views(name, shape):
    a = _data(shape)

    def run(lib, F):
        x = lib.tensor(a.copy())
        view = x.reshape(-1)  # a view of x, taken before the write
        out = getattr(F, name)(x, inplace=True, **ACTIVATIONS[name])
        return out is x, _np(x), _np(view), _np(getattr(F, name)(lib.tensor(a.copy()),
                                                               **ACTIVATIONS[name]))

    (t_same, t_x, t_view, t_plain), (e_same, e_x, e_view, e_plain) = _both(run)
    assert t_same and e_same
    np.testing.assert_allclose(e_x, t_x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(e_view, t_view, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(e_x, e_plain, rtol=0, atol=0)  # as the out-of-place result


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_in_place_on_an_intermediate_has_pytorchs_gradient(name):
    a = _data((3, 4))
    w = RNG.standard_normal((3, 4))

    def run(lib, F):
        leaf = lib.tensor(a.copy(), requires_grad=True)
        z = leaf * 1.5
        out = getattr(F, name)(z, inplace=True, **ACTIVATIONS[name])
        (out * lib.tensor(w)).sum().backward()
        return _np(out), _np(leaf.grad), out is z

    (t_out, t_grad, t_same), (e_out, e_grad, e_same) = _both(run)
    assert t_same and e_same
    np.testing.assert_allclose(e_out, t_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(e_grad, t_grad, **TOL)


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "elu", "hardswish", "silu", "mish"])
def test_activation_in_place_on_a_view_changes_the_base_and_its_gradient(name):
    a = _data((3, 4))
    w = RNG.standard_normal((3, 4))

    def run(lib, F, view):
        leaf = lib.tensor(a.copy(), requires_grad=True)
        z = leaf * 2.0
        part = view(z)
        getattr(F, name)(part, inplace=True, **ACTIVATIONS[name])
        (z * lib.tensor(w)).sum().backward()
        return _np(z), _np(part), _np(leaf.grad)

    for view in (lambda z: z[1], lambda z: z.t()[1:3], lambda z: z.view(2, 6)[:, ::2]):
        t, e = run(torch, TF, view), run(et, EF, view)
        for got, want in zip(e[:2], t[:2]):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(e[2], t[2], **TOL)


@pytest.mark.parametrize("name", ["relu", "elu", "silu"])
def test_two_in_place_writes_through_overlapping_views(name):
    a = _data((3, 4))
    results, grads = [], []
    for lib, F in ((torch, TF), (et, EF)):
        leaf = lib.tensor(a.copy(), requires_grad=True)
        z = leaf * 2.0
        getattr(F, name)(z[1], inplace=True)      # saves its result (or input) ...
        getattr(F, name)(z.t()[1:3], inplace=True)  # ... which this write changes
        try:
            z.sum().backward()
            results.append(None)
        except (RuntimeError, ember.errors.GraphError) as exc:
            results.append(str(exc))
        grads.append(leaf.grad)
    if results[0] is None:  # PyTorch computes it: so does ember, with PyTorch's gradient
        assert results[1] is None, results[1]
        np.testing.assert_allclose(_np(grads[1]), _np(grads[0]), **TOL)
        return
    assert "modified by an inplace operation" in results[0]
    # PyTorch's relu_/elu_ save their result, which the second write changes; ember's rules
    # keep the input as it was before each write, so ember may go on: then its gradient is
    # that of the same program written out of place
    if results[1] is not None:
        assert "modified by an inplace operation" in results[1]
        return
    leaf = torch.tensor(a.copy(), requires_grad=True)
    z = leaf * 2.0
    f = getattr(TF, name)
    z = torch.cat([z[:1], f(z[1:2]), z[2:]])
    z = torch.cat([z[:, :1], f(z[:, 1:3]), z[:, 3:]], 1)
    z.sum().backward()
    np.testing.assert_allclose(_np(grads[1]), _np(leaf.grad), **TOL)


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "silu", "mish", "leaky_relu"])
def test_activation_in_place_second_derivative(name):
    a = _data((5,))

    def run(lib, F):
        leaf = lib.tensor(a.copy(), requires_grad=True)
        z = leaf * 1.0
        out = getattr(F, name)(z, inplace=True, **ACTIVATIONS[name])
        (g,) = lib.autograd.grad(out.pow(2).sum(), leaf, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), leaf)
        return _np(g), _np(gg)

    (t_g, t_gg), (e_g, e_gg) = _both(run)
    np.testing.assert_allclose(e_g, t_g, **TOL)
    np.testing.assert_allclose(e_gg, t_gg, **TOL)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_in_place_on_a_leaf_that_requires_grad_raises(name):
    a = _data((2, 3))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        getattr(TF, name)(torch.tensor(a, requires_grad=True), inplace=True,
                          **ACTIVATIONS[name])
    x = et.tensor(a.copy(), requires_grad=True)
    with pytest.raises(ember.errors.GraphError, match="leaf"):
        getattr(EF, name)(x, inplace=True, **ACTIVATIONS[name])
    np.testing.assert_array_equal(_np(x), a)  # unchanged
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        getattr(TF, name)(torch.tensor(a, requires_grad=True)[0], inplace=True,
                          **ACTIVATIONS[name])
    with pytest.raises(ember.errors.GraphError, match="view of a leaf"):
        getattr(EF, name)(x[0], inplace=True, **ACTIVATIONS[name])
    np.testing.assert_array_equal(_np(x), a)
    view = x.detach()[0]  # without grad mode, or through a detached alias: allowed, as PyTorch
    with et.no_grad():
        getattr(EF, name)(x, inplace=True, **ACTIVATIONS[name])
    t = torch.tensor(a, requires_grad=True)
    with torch.no_grad():
        getattr(TF, name)(t, inplace=True, **ACTIVATIONS[name])
    np.testing.assert_allclose(_np(x), _np(t), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(view), _np(t)[0], rtol=1e-12, atol=1e-12)
    assert x.is_leaf and x.requires_grad


@pytest.mark.parametrize("name", ["relu", "elu", "silu", "hardtanh", "leaky_relu"])
def test_a_tensor_saved_for_backward_then_written_in_place_raises_on_backward(name):
    a = _data((4,))
    leaf = torch.tensor(a, requires_grad=True)
    z = leaf + 0.0
    y = z * z  # saves z
    getattr(TF, name)(z, inplace=True, **ACTIVATIONS[name])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    leaf = et.tensor(a, requires_grad=True)
    z = leaf + 0.0
    y = z * z
    getattr(EF, name)(z, inplace=True, **ACTIVATIONS[name])
    with pytest.raises(ember.errors.GraphError, match="modified by an inplace operation"):
        y.sum().backward()


def test_relu_in_place_on_an_int_tensor_keeps_its_dtype():
    a = RNG.integers(-5, 5, (3, 4))
    t, e = torch.tensor(a), et.tensor(a)
    assert TF.relu(t, inplace=True) is t and EF.relu(e, inplace=True) is e
    assert str(e.dtype) == str(t.dtype) == "torch.int64"
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_the_underscore_spellings_write_in_place():
    a = _data((3, 4))
    for name in ("relu_", "elu_", "leaky_relu_", "selu_", "celu_", "hardtanh_", "rrelu_"):
        t, e = torch.tensor(a.copy()), et.tensor(a.copy())
        tv, ev = t[1:], e[1:]
        assert getattr(TF, name)(t) is t and getattr(EF, name)(e) is e
        np.testing.assert_allclose(_np(e), _np(t), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(_np(ev), _np(tv), rtol=1e-12, atol=1e-12)
    t, e = torch.tensor(a.copy()), et.tensor(a.copy())
    assert TF.threshold_(t, 0.3, -2.0) is t and EF.threshold_(e, 0.3, -2.0) is e
    np.testing.assert_array_equal(_np(e), _np(t))


def test_rrelu_in_training_writes_random_slopes_in_place():
    a = -RNG.uniform(0.5, 2.0, (400,))
    a[::2] *= -1
    x = et.tensor(a.copy())
    view = x[:10]
    assert EF.rrelu(x, 0.1, 0.3, training=True, inplace=True) is x
    ratio = _np(x) / a
    assert np.all(ratio[::2] == 1.0)  # non-negative entries kept
    neg = ratio[1::2]
    assert np.all((neg >= 0.1) & (neg <= 0.3)) and neg.std() > 0.03
    np.testing.assert_array_equal(_np(view), _np(x)[:10])
    t = torch.tensor(a.copy())  # PyTorch's slopes lie in the same interval
    TF.rrelu(t, 0.1, 0.3, training=True, inplace=True)
    tneg = (_np(t) / a)[1::2]
    assert abs(neg.mean() - tneg.mean()) < 0.02


# -- modules ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_with_inplace_true_writes_its_input(name):
    args, fname = MODULES[name]
    a = _data((2, 3, 4))
    w = RNG.standard_normal((2, 3, 4))

    def run(lib, F):
        m = getattr(lib.nn, name)(*args, inplace=True)
        m.eval()  # RReLU: the mean slope, as F.rrelu(training=False)
        x = lib.tensor(a.copy())
        view = x[0]
        same = m(x) is x
        leaf = lib.tensor(a.copy(), requires_grad=True)
        z = leaf * 0.5
        out = m(z)
        (out * lib.tensor(w)).sum().backward()
        return repr(m), same, _np(x), _np(view), _np(out), _np(leaf.grad)

    t, e = _both(run)
    assert e[0] == t[0] and e[1] and t[1]
    for got, want in zip(e[2:5], t[2:5]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(e[5], t[5], **TOL)
    with pytest.raises(ember.errors.GraphError):
        getattr(et.nn, name)(*args, inplace=True)(et.tensor(a, requires_grad=True))


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_without_inplace_leaves_its_input(name):
    args, _ = MODULES[name]
    a = _data((3, 4))
    x = et.tensor(a.copy())
    m = getattr(et.nn, name)(*args).eval()
    out = m(x)
    t = getattr(torch.nn, name)(*args).eval()(torch.tensor(a))
    assert out is not x
    np.testing.assert_array_equal(_np(x), a)
    np.testing.assert_allclose(_np(out), _np(t), rtol=1e-12, atol=1e-12)


# -- dropouts -----------------------------------------------------------------------------------

# name -> (input shape, module, extra keyword arguments of the function)
DROPOUTS = {
    "dropout": ((4, 5), "Dropout", {}),
    "alpha_dropout": ((4, 5), "AlphaDropout", {}),
    "feature_alpha_dropout": ((2, 3, 4), "FeatureAlphaDropout", {}),
    "dropout1d": ((2, 3, 4), "Dropout1d", {}),
    "dropout2d": ((2, 3, 4, 5), "Dropout2d", {}),
    "dropout3d": ((2, 3, 2, 3, 4), "Dropout3d", {}),
}


@pytest.mark.parametrize("p", [0.0, 1.0])
@pytest.mark.parametrize("name", sorted(DROPOUTS))
def test_dropout_in_place_with_p_0_or_1(name, p):
    shape = DROPOUTS[name][0]
    a = _data(shape)
    w = RNG.standard_normal(shape)

    def run(lib, F):
        x = lib.tensor(a.copy())
        view = x[0]
        same = getattr(F, name)(x, p, training=True, inplace=True) is x
        leaf = lib.tensor(a.copy(), requires_grad=True)
        z = leaf * 2.0
        out = getattr(F, name)(z, p, training=True, inplace=True)
        (out * lib.tensor(w)).sum().backward()
        return same, _np(x), _np(view), _np(out), _np(leaf.grad), out is z

    t, e = _both(run)
    assert e[0] and t[0] and e[5] and t[5]
    for got, want in zip(e[1:5], t[1:5]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, shape", [
    ("dropout1d", (3, 4)), ("dropout1d", (2, 3, 4)), ("dropout3d", (2, 3, 4, 5)),
    ("dropout3d", (1, 2, 3, 4, 5)), ("dropout2d", (3, 4, 5))])
@pytest.mark.parametrize("p, training", [(0.0, True), (0.5, False)])
def test_channel_dropout_of_an_unbatched_leaf_raises_as_pytorch(name, shape, p, training):
    # PyTorch unsqueezes an unbatched input in place first, so a leaf raises with nothing dropped
    a = _data(shape)
    outcomes = []
    for lib, F, error in ((torch, TF, RuntimeError), (et, EF, ember.errors.GraphError)):
        x = lib.tensor(a.copy(), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                outcomes.append(getattr(F, name)(x, p, training=training, inplace=True) is x)
            except error as exc:
                assert "leaf" in str(exc)
                outcomes.append("raised")
        np.testing.assert_array_equal(_np(x), a)
    assert outcomes[1] == outcomes[0]


@pytest.mark.parametrize("name", sorted(DROPOUTS))
def test_dropout_in_place_outside_training_returns_the_input_unchanged(name):
    shape = DROPOUTS[name][0]
    a = _data(shape)
    for lib, F in ((torch, TF), (et, EF)):
        x = lib.tensor(a.copy(), requires_grad=True)  # no write, so a leaf is fine
        assert getattr(F, name)(x, 0.5, training=False, inplace=True) is x
        np.testing.assert_array_equal(_np(x), a)


@pytest.mark.parametrize("p", [0.5, 1.0])
@pytest.mark.parametrize("name", sorted(DROPOUTS))
def test_dropout_in_place_on_a_leaf_that_requires_grad_raises(name, p):
    a = _data(DROPOUTS[name][0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        getattr(TF, name)(torch.tensor(a, requires_grad=True), p, training=True, inplace=True)
    x = et.tensor(a.copy(), requires_grad=True)
    with pytest.raises(ember.errors.GraphError, match="leaf"):
        getattr(EF, name)(x, p, training=True, inplace=True)
    np.testing.assert_array_equal(_np(x), a)


@pytest.mark.parametrize("name", ["dropout", "dropout1d", "dropout2d", "dropout3d"])
def test_dropout_in_place_with_p_half_keeps_pytorchs_statistics(name):
    shape = {"dropout": (40, 50), "dropout1d": (40, 50, 3), "dropout2d": (20, 50, 2, 2),
             "dropout3d": (20, 50, 1, 2, 2)}[name]
    a = RNG.uniform(0.5, 1.5, shape)
    stats = []
    for lib, F in ((torch, TF), (et, EF)):
        x = lib.tensor(a.copy())
        view = x[0]
        leaf = lib.tensor(a.copy(), requires_grad=True)
        z = leaf * 1.0
        out = getattr(F, name)(z, 0.5, training=True, inplace=True)
        out.sum().backward()
        assert getattr(F, name)(x, 0.5, training=True, inplace=True) is x
        got = _np(x)
        np.testing.assert_array_equal(_np(view), got[0])
        kept = np.isclose(got, 2.0 * a, rtol=1e-12, atol=0)
        assert np.all(kept | (got == 0.0))  # each entry dropped or scaled by 1 / (1 - p)
        if name != "dropout":  # whole channels: one decision per (N, C)
            flat = kept.reshape(shape[0], shape[1], -1)
            assert np.all(flat.all(-1) | (~flat).all(-1))
        # the gradient of a sum is the mask scaled by 1 / (1 - p): 2 where kept, 0 where dropped
        g = _np(leaf.grad)
        assert np.all((g == 0.0) | (g == 2.0))
        np.testing.assert_array_equal(g == 2.0, _np(out) != 0.0)
        stats.append(kept.mean())
    assert abs(stats[0] - 0.5) < 0.1 and abs(stats[1] - 0.5) < 0.1


@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout"])
def test_alpha_dropout_in_place_keeps_pytorchs_values_of_dropped_entries(name):
    shape = (30, 40, 3)
    a = RNG.standard_normal(shape)
    out = {}
    for lib, F in ((torch, TF), (et, EF)):
        x = lib.tensor(a.copy())
        view = x[0]
        assert getattr(F, name)(x, 0.5, training=True, inplace=True) is x
        got = _np(x)
        np.testing.assert_array_equal(_np(view), got[0])
        out[lib.__name__] = got
    t, e = out["torch"], out["ember.torch"]
    # the dropped entries all take one value (SELU's saturation under the affine map)
    t_values, t_counts = np.unique(np.round(t, 12), return_counts=True)
    e_values, e_counts = np.unique(np.round(e, 12), return_counts=True)
    assert t_counts.max() > t.size * 0.3 and e_counts.max() > e.size * 0.3
    np.testing.assert_allclose(e_values[e_counts.argmax()], t_values[t_counts.argmax()],
                               rtol=1e-6)
    assert abs(e.mean() - t.mean()) < 0.1 and abs(e.std() - t.std()) < 0.1


@pytest.mark.parametrize("name", sorted(DROPOUTS))
def test_dropout_module_with_inplace_true_writes_its_input(name):
    shape, module, _ = DROPOUTS[name]
    a = _data(shape)
    for p in (0.0, 1.0):
        res = []
        for lib in (torch, et):
            m = getattr(lib.nn, module)(p, inplace=True)
            x = lib.tensor(a.copy())
            view = x[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = m(x)
            res.append((repr(m), out is x, _np(x), _np(view)))
        (t_repr, t_same, t_x, t_view), (e_repr, e_same, e_x, e_view) = res
        # PyTorch's AlphaDropout and FeatureAlphaDropout never pass inplace on
        assert e_repr == t_repr and e_same == t_same == (p == 0.0 or "Alpha" not in module)
        np.testing.assert_array_equal(e_x, t_x)
        np.testing.assert_array_equal(e_view, t_view)
    m = getattr(et.nn, module)(0.5, inplace=True)
    if "Alpha" in module:
        x = et.tensor(a, requires_grad=True)
        assert m(x) is not x and getattr(torch.nn, module)(0.5, inplace=True)(
            torch.tensor(a, requires_grad=True)).requires_grad
    else:
        with pytest.raises(ember.errors.GraphError):
            m(et.tensor(a, requires_grad=True))
        with pytest.raises(RuntimeError, match="leaf Variable"):
            getattr(torch.nn, module)(0.5, inplace=True)(torch.tensor(a, requires_grad=True))
    m.eval()
    x = et.tensor(a, requires_grad=True)
    assert m(x) is x
