"""The graph contract of the spec's autodiff paragraphs, one test per sentence or rule."""

import numpy as np
import pytest
import torch

import ember
from ember import GraphError, KindError


def leaf(values):
    return ember.tensor(values, dtype="float64").require_grad()


def test_backward_returns_gradients_and_sets_grad():
    x = leaf([1.0, 2.0, 3.0])
    grads = (x * x).sum().backward()
    assert grads.get(x).tolist() == [2.0, 4.0, 6.0]
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_gradient_has_no_autodiff_association():
    x = leaf([1.0, 2.0])
    g = (x * 3.0).sum().backward().get(x)
    assert not g.is_tracked()


def test_backward_of_untracked_tensor_raises():
    with pytest.raises(GraphError, match="does not participate"):
        ember.tensor([1.0, 2.0]).sum().backward()


def test_backward_without_autodiff_raises():
    with pytest.raises(GraphError, match="autodiff is disabled"):
        ember.tensor([1.0]).without_autodiff().backward()


def test_backward_of_int_tensor_raises():
    with pytest.raises(KindError, match="only float"):
        ember.tensor([1, 2]).backward()


def test_second_backward_through_consumed_step_raises():
    x = leaf([1.0, 2.0])
    y = (x * 2.0).sum()
    y.backward()
    with pytest.raises(GraphError, match="consumed"):
        y.backward()


def test_consumed_ancestry_rejected_before_consuming_fresh_branches():
    x = leaf([1.0, 2.0])
    shared = x * 2.0
    shared.sum().backward()
    fresh = x * 5.0
    mixed = (fresh + shared).sum()
    with pytest.raises(GraphError, match="consumed"):
        mixed.backward()
    # the fresh branch was not consumed by the failed call
    grads = fresh.sum().backward()
    assert grads.get(x).tolist() == [5.0, 5.0]


def test_leaves_are_reusable_in_fresh_forwards():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    grads = (x * 3.0).sum().backward()
    assert grads.get(x).tolist() == [3.0, 3.0]


def test_grad_accumulates_across_backwards_like_pytorch():
    x = leaf([1.0, 2.0])
    (x * 2.0).sum().backward()
    (x * 3.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_grad_remove_and_replace():
    x = leaf([1.0, 2.0])
    grads = (x * x).sum().backward()
    removed = x.grad_remove(grads)
    assert removed.tolist() == [2.0, 4.0]
    assert grads.get(x) is None
    assert x.grad_remove(grads) is None
    x.grad_replace(grads, ember.tensor([7.0, 8.0], dtype="float64"))
    assert grads.get(x).tolist() == [7.0, 8.0]


def test_grad_replace_rejects_tracked_gradient():
    x = leaf([1.0, 2.0])
    grads = (x * x).sum().backward()
    with pytest.raises(GraphError, match="autodiff association"):
        x.grad_replace(grads, leaf([1.0, 1.0]))


def test_grad_absent_for_tensor_outside_autodiff():
    x = leaf([1.0, 2.0])
    grads = (x * x).sum().backward()
    assert grads.get(ember.tensor([1.0, 2.0])) is None


def test_is_tracked_is_autodiff_is_require_grad():
    c = ember.tensor([1.0])
    assert c.is_autodiff() and not c.is_tracked() and not c.is_require_grad()
    x = leaf([1.0])
    assert x.is_tracked() and x.is_require_grad()
    y = x * 2.0
    assert y.is_tracked() and not y.is_require_grad()
    assert not (c * 2.0).is_tracked()


def test_require_grad_on_non_leaf_raises():
    y = leaf([1.0]) * 2.0
    with pytest.raises(GraphError, match="not a leaf"):
        y.require_grad()


def test_require_grad_on_int_raises():
    with pytest.raises(KindError, match="only float"):
        ember.tensor([1, 2]).require_grad()


def test_require_grad_without_autodiff_raises():
    with pytest.raises(GraphError, match="autodiff is disabled"):
        ember.tensor([1.0]).without_autodiff().require_grad()


def test_set_require_grad_false_on_non_leaf_starts_new_lineage():
    x = leaf([1.0, 2.0])
    y = (x * 2.0).set_require_grad(False)
    assert not y.is_tracked() and not y.is_require_grad()
    assert y.tolist() == [2.0, 4.0]


def test_set_require_grad_false_without_autodiff_is_harmless():
    t = ember.tensor([1.0]).without_autodiff().set_require_grad(False)
    assert not t.is_autodiff()


def test_detach_starts_new_lineage_and_keeps_leaf_require_grad():
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert d.is_require_grad() and d.is_autodiff()
    y = (x * 2.0).detach()
    assert not y.is_tracked() and y.is_autodiff()
    z = (y * x).sum()
    assert z.backward().get(x).tolist() == [2.0, 4.0]


def test_without_autodiff_is_a_constant_when_mixed():
    x = leaf([1.0, 2.0])
    c = ember.tensor([3.0, 4.0], dtype="float64").without_autodiff()
    assert c.inner() is c  # idempotent
    out = x * c
    assert out.is_tracked() and out.is_autodiff()
    assert out.sum().backward().get(x).tolist() == [3.0, 4.0]
    assert not (c * c).is_autodiff()


def test_autodiff_and_from_inner():
    c = ember.tensor([1.0]).without_autodiff()
    a = c.autodiff()
    assert a.is_autodiff() and not a.is_require_grad()
    assert a.autodiff() is a
    assert ember.Tensor.from_inner(c).is_autodiff()


def test_no_grad_records_nothing():
    x = leaf([1.0])
    with ember.no_grad():
        y = x * 2.0
    assert not y.is_tracked()
    assert (x * 2.0).is_tracked()


def test_inference_mode_as_torch():
    x = leaf([1.0, 2.0])
    xt = torch.tensor([1.0, 2.0], requires_grad=True)
    with ember.inference_mode():
        assert not (x * 2.0).is_tracked() and not ember.grad_enabled()
    with torch.inference_mode():
        assert not (xt * 2.0).requires_grad
    with ember.inference_mode(False):
        assert (x * 2.0).is_tracked()

    @ember.inference_mode()
    def predict(v):
        """Doc."""
        return v * 3.0

    assert not predict(x).is_tracked() and predict.__name__ == "predict"
    assert predict.__doc__ == "Doc." and ember.grad_enabled()
    with ember.no_grad():
        with ember.inference_mode(False):
            assert not ember.grad_enabled()            # False leaves the mode as it is
    with pytest.raises(ember.InvalidParameterError, match="inference_mode: mode must be a bool"):
        ember.inference_mode("yes")


def test_checkpointing_strategy_carried_and_mixing_recorded_steps_raises():
    x = ember.tensor([1.0, 2.0]).with_gradient_checkpointing_strategy("balanced")
    assert x.gradient_checkpointing_strategy() == "balanced"
    assert (x * 2.0).gradient_checkpointing_strategy() == "balanced"
    # a constant adopts the strategy it joins
    assert (x * ember.tensor([1.0, 2.0])).gradient_checkpointing_strategy() == "balanced"
    a = x.require_grad().exp()
    b = ember.tensor([1.0, 2.0]).require_grad().exp()
    with pytest.raises(GraphError, match="strategies"):
        a * b
    with pytest.raises(GraphError, match="autodiff is disabled"):
        ember.tensor([1.0]).without_autodiff().with_gradient_checkpointing_strategy("none")


def test_non_scalar_backward_seeds_ones_or_explicit_seed():
    x = leaf([1.0, 2.0])
    assert (x * 3.0).backward().get(x).tolist() == [3.0, 3.0]
    x2 = leaf([1.0, 2.0])
    seed = ember.tensor([1.0, 10.0], dtype="float64")
    assert (x2 * 3.0).backward(seed).get(x2).tolist() == [3.0, 30.0]


def test_gradient_tinygrad_style():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    gx, gy = (x * y).sum().gradient(x, y)
    assert gx.tolist() == [3.0, 4.0] and gy.tolist() == [1.0, 2.0]


def test_mlp_gradients_match_pytorch():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((8, 5))
    w1, b1 = rng.standard_normal((5, 7)), rng.standard_normal(7)
    w2, b2 = rng.standard_normal((7, 3)), rng.standard_normal(3)
    params = [ember.tensor(a).require_grad() for a in (w1, b1, w2, b2)]
    tparams = [torch.tensor(a, requires_grad=True) for a in (w1, b1, w2, b2)]
    h = (ember.tensor(xs) @ params[0] + params[1]).clamp_min(0.0)
    loss = ((h @ params[2] + params[3]) ** 2).mean()
    th = (torch.tensor(xs) @ tparams[0] + tparams[1]).clamp_min(0.0)
    tloss = ((th @ tparams[2] + tparams[3]) ** 2).mean()
    grads = loss.backward()
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-12)
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(grads.get(p).numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_docs_autodiff_examples_run():
    import doctest
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "autodiff.md")
    result = doctest.testfile(path, module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 20 and result.failed == 0


# -- more sentences of the spec's paragraphs ---------------------------------------------------

def test_clones_share_the_recorded_steps():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    c = y.clone()
    c.sum().backward()
    with pytest.raises(GraphError, match="consumed"):
        y.sum().backward()


def test_detach_after_backward_gives_a_usable_constant():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    y.sum().backward()
    d = y.detach()  # a new lineage: the consumed graph is not restored
    assert not d.is_tracked()
    assert (d * x).sum().backward().get(x).tolist() == [2.0, 4.0]


def test_repeated_get_returns_the_same_gradient_and_none_for_non_retained():
    x = leaf([1.0, 2.0])
    y = x * 3.0
    grads = (y * y).sum().backward()
    assert grads.get(x) is grads.get(x)
    assert grads.get(y) is None  # an intermediate does not retain its gradient


def test_grad_replace_on_a_tensor_without_autodiff_raises():
    x = leaf([1.0, 2.0])
    grads = (x * x).sum().backward()
    outside = ember.tensor([1.0, 2.0]).without_autodiff()
    with pytest.raises(GraphError, match="not associated with autodiff"):
        outside.grad_replace(grads, ember.tensor([0.0, 0.0]))


def test_is_tracked_does_not_report_consumption():
    x = leaf([1.0])
    y = x * 2.0
    y.sum().backward()
    assert y.is_tracked()


def test_set_require_grad_true_on_non_leaf_or_without_autodiff_raises():
    y = leaf([1.0]) * 2.0
    with pytest.raises(GraphError, match="not a leaf"):
        y.set_require_grad(True)
    with pytest.raises(GraphError, match="autodiff is disabled"):
        ember.tensor([1.0]).without_autodiff().set_require_grad(True)


def test_without_autodiff_drops_the_graph_reference():
    y = leaf([1.0, 2.0]) * 2.0
    inner = y.without_autodiff()
    assert not inner.is_tracked() and not inner.is_autodiff()
    assert inner.tolist() == [2.0, 4.0]


# -- assigning .grad, looking gradients up ------------------------------------------------------

@pytest.mark.parametrize("value,exc,match", [
    ("oops", KindError, r"grad: the gradient is of type str \('oops'\); expected a Tensor of "
                        r"shape \(2,\) and dtype float64, or None"),
    (3, KindError, r"grad: the gradient is of type int"),
    ([1.0, 2.0], KindError, r"grad: the gradient is of type list"),
    (np.ones(2), KindError, r"grad: the gradient is of type ndarray"),
    (ember.ones(3, dtype="float64"), ember.ShapeMismatchError,
     r"grad: the gradient has shape \(3,\), expected \(2,\)"),
    (ember.ones(2), KindError, r"grad: the gradient has dtype float32, expected float64"),
    (ember.ones(2, dtype="int64"), KindError, r"grad: the gradient has dtype int64"),
])
def test_assigning_a_wrong_grad_raises_like_pytorch(value, exc, match):
    """PyTorch refuses a non-tensor ``.grad`` (TypeError), another size or dtype (RuntimeError);
    ember used to accept anything and fail in the next backward with AttributeError."""
    tx = torch.ones(2, dtype=torch.float64, requires_grad=True)
    tvalue = torch.from_numpy(np.array(value.numpy())) if isinstance(value, ember.Tensor) \
        else value
    with pytest.raises((TypeError, RuntimeError)):
        tx.grad = tvalue
    x = leaf([1.0, 2.0])
    with pytest.raises(exc, match=match):
        x.grad = value
    assert x.grad is None
    x.grad = ember.tensor([0.5, 0.5], dtype="float64")
    with pytest.raises(exc, match=match):
        x.grad = value
    assert x.grad.tolist() == [0.5, 0.5]
    _ = (x * x).sum().backward()  # accumulates into the kept gradient, no AttributeError
    assert x.grad.tolist() == [2.5, 4.5]


def test_assigning_grad_accepts_tensors_of_the_shape_and_dtype_and_none():
    x = leaf([1.0, 2.0])
    g = ember.tensor([3.0, 4.0], dtype="float64")
    x.grad = g
    assert x.grad is g
    x.grad = None
    assert x.grad is None
    x.grad = g
    del x.grad
    assert x.grad is None
    n = ember.tensor([1, 2])  # as PyTorch: an int tensor may hold an int gradient
    n.grad = ember.tensor([0, 0])
    assert n.grad.tolist() == [0, 0]


@pytest.mark.parametrize("key", [3, None, "x", [1.0, 2.0], np.ones(2)])
def test_gradients_lookups_refuse_a_non_tensor(key):
    x = leaf([1.0, 2.0])
    grads = (x * x).sum().backward()
    for fn, op in ((grads.get, "Gradients.get"), (grads.remove, "Gradients.remove"),
                   (lambda k: k in grads, "Gradients.__contains__"),
                   (lambda k: grads.replace(k, ember.ones(2, dtype="float64")), "grad_replace")):
        with pytest.raises(KindError, match=rf"{op}: tensor is of type {type(key).__name__}"):
            fn(key)
    with pytest.raises(KindError, match=r"grad_replace: grad is of type str"):
        x.grad_replace(grads, "oops")
    assert grads.get(x).tolist() == [2.0, 4.0]


def test_gradients_arguments_are_checked():
    x = ember.tensor([1.0]).require_grad()
    (x * 2.0).sum().backward()
    for call in (lambda: x.grad_remove("grads"), lambda: x.grad_replace((0,), x),
                 lambda: ember.Tensor.from_inner(None)):
        with pytest.raises(ember.KindError, match="must be"):
            call()


# -- complex: no gradients through complex tensors (docs/complex.md) ---------------------------
def _complex(values, dtype=np.complex64):
    return ember.from_numpy(np.asarray(values, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_require_grad_refused(dtype):
    z = _complex([1 + 2j, -1j], dtype)
    with pytest.raises(KindError, match=r"require_grad.*complex"):
        z.require_grad()
    with pytest.raises(KindError, match="complex"):
        z.set_require_grad(True)
    assert not z.is_require_grad() and z.grad is None


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_backward_refused(dtype):
    with pytest.raises(KindError, match=r"backward.*complex"):
        _complex(1 + 2j, dtype).backward()


def test_complex_result_of_a_tracked_tensor_refused():
    x = leaf([1.0, 2.0])
    with pytest.raises(KindError, match="complex"):
        x.cast(ember.complex64)
    with ember.no_grad():
        z = x.cast(ember.complex64)
    assert z.dtype is ember.complex64 and z.tolist() == [1 + 0j, 2 + 0j]
    assert not z.is_require_grad()
