"""Tests of ember/ops/operators.py: the untracked fast path of ``+ - * /`` gives exactly what the
general path (``ember.add(a, b)`` ...) gives, keeps the autodiff state and never shares a buffer."""

import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import SHAPES, assert_close, layouts
from oracle import assert_unchanged, snapshot
from test_elementwise import E, data


# -- the operators' untracked fast path ---------------------------------------------------------
# ``a + b`` on two tensors of one dtype and shape (or a float tensor with a number) builds its
# result inline when no input is tracked; it must give exactly what the general path gives.

SHORT_OPS = [("+", "add", np.add), ("-", "sub", np.subtract), ("*", "mul", np.multiply),
             ("/", "true_divide", np.true_divide)]


def general(name, a, b):
    """The general path of the op (``ember.add(a, b)`` ...): promotion, broadcasting, record."""
    return getattr(ember, name)(a, b)


def same_result(fast, slow):
    assert fast.dtype is slow.dtype and fast.shape == slow.shape
    np.testing.assert_array_equal(np.asarray(fast.numpy()), np.asarray(slow.numpy()))
    assert fast.is_tracked() == slow.is_tracked()
    assert fast.gradient_checkpointing_strategy() == slow.gradient_checkpointing_strategy()


@pytest.mark.parametrize("sym,name,ufunc", SHORT_OPS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8"])
def test_operator_fast_path_equals_general_path_and_numpy(sym, name, ufunc, dtype):
    fn = eval(f"lambda a, b: a {sym} b")  # noqa: S307 - a fixed operator from the list above
    for shape in SHAPES:
        x, y = data(shape, dtype, special=True), data(shape, dtype, special=True)
        for (_, xa), (_, ya) in zip(layouts(x), layouts(y)):
            a, b = E(xa), E(ya)
            before = snapshot(a, b)
            out = fn(a, b)
            same_result(out, general(name, a, b))
            with np.errstate(all="ignore"):
                want = ufunc(xa, ya)
            if dtype not in ("float16", "float32", "float64"):  # int / int is a float
                want = want.astype(np.float32 if sym == "/" else dtype)
            np.testing.assert_array_equal(np.asarray(out.numpy()), want)
            assert_unchanged([a, b], before)
            assert not np.shares_memory(out.numpy(), xa) and not np.shares_memory(out.numpy(), ya)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_operator_scalar_fast_path_equals_general_path(dtype):
    x = data((3, 4), dtype, special=True)
    a = E(x)
    before = snapshot(a)
    for s in (2.5, -3, 0.0, 1e300, 7):
        same_result(a + s, ember.add(a, s))
        same_result(s + a, ember.add(s, a))
        same_result(a - s, ember.sub(a, s))
        same_result(s - a, ember.sub(s, a))
        same_result(a * s, ember.mul(a, s))
        same_result(s * a, ember.mul(s, a))
        same_result(a / s, ember.true_divide(a, s))
        same_result(s / a, ember.true_divide(s, a))
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal((s - a).numpy(), np.subtract(np.asarray(s, x.dtype), x))
    assert_unchanged([a], before)


@pytest.mark.parametrize("a_ad, b_ad", [("none", "none"), ("balanced", "balanced"), (None, None),
                                        (None, "balanced"), ("balanced", None), (None, "none")])
def test_operator_fast_path_keeps_the_autodiff_state(a_ad, b_ad):
    def carrying(t, ad):
        if ad is None:
            return t.without_autodiff()
        return t.with_gradient_checkpointing_strategy(ad)
    a = carrying(E(data((2, 3), "float32")), a_ad)
    b = carrying(E(data((2, 3), "float32")), b_ad)
    for sym, name, _ in SHORT_OPS:
        fn = eval(f"lambda a, b: a {sym} b")  # noqa: S307
        out = fn(a, b)
        same_result(out, general(name, a, b))
        assert out.gradient_checkpointing_strategy() == (a_ad if a_ad is not None else b_ad)
        assert not out.is_tracked()
    assert (a * 2.0).gradient_checkpointing_strategy() == a_ad
    assert (2.0 - b).gradient_checkpointing_strategy() == b_ad


def test_operator_fast_path_joins_constants_and_rejects_mixed_recorded_steps():
    x = data((2, 3), "float32")
    a = E(x)
    b = a.with_gradient_checkpointing_strategy("balanced")
    for fn, want in ((lambda: a + b, x + x), (lambda: b * a, x * x),
                     (lambda: ember.add(a, b), x + x)):
        out = fn()  # constants: the "balanced" one wins over the default
        assert out.gradient_checkpointing_strategy() == "balanced"
        np.testing.assert_array_equal(out.numpy(), want)
    ra = a.require_grad().exp()
    rb = E(x).with_gradient_checkpointing_strategy("balanced").require_grad().exp()
    for fn in (lambda: ra + rb, lambda: rb * ra, lambda: ember.add(ra, rb)):
        with pytest.raises(ember.GraphError, match="different gradient-checkpointing strategies"):
            fn()


def test_operator_fast_path_leaves_tracked_operands_to_record():
    x, y = data((3, 4), "float64"), data((3, 4), "float64")
    w = E(x).require_grad()
    c = E(y)
    seed = data((3, 4), "float64")
    wt = torch.from_numpy(x).requires_grad_(True)
    out = w * c + c / w - 2.0 * w
    assert out.is_tracked()
    out.backward(E(seed))
    (wt * torch.from_numpy(y) + torch.from_numpy(y) / wt - 2.0 * wt).backward(torch.from_numpy(seed))
    assert_close(w.grad, wt.grad)
    with ember.no_grad():
        assert not (w + c).is_tracked() and not (w * 3.0).is_tracked()


def test_operator_fast_path_never_warns_nor_changes_numpy_error_state():
    be = ember.Device("cpu").backend
    big = E(np.array([3e38, -3e38, 0.0], np.float32))
    zero = E(np.zeros(3, np.float32))
    state = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (big + big).numpy()[0] == np.inf and np.isnan((zero / zero).numpy()).all()
        assert (big * 10.0).numpy()[0] == np.inf and (1.0 / zero).numpy()[0] == np.inf
    assert np.geterr() == state
    with pytest.raises(ValueError):  # a kernel that fails still restores NumPy's error state
        be.ew_add(np.ones(2), np.ones(3))
    assert np.geterr() == state


def test_results_never_share_a_buffer_another_object_can_see():
    # the operators never write into an operand, however few references it has: a temporary
    # held only by a NumPy object array reaches __add__ exactly like one on the stack
    x, y, z = (E(data((4,), "float32")) for _ in range(3))
    want = x.numpy() * y.numpy()
    a = x * y
    b = a + z
    np.testing.assert_array_equal(a.numpy(), want)
    assert not np.shares_memory(a.numpy(), b.numpy())
    objs = np.empty(2, dtype=object)
    objs[0], objs[1] = x * y, x * y
    held = {"k": [x * y]}
    outs = objs + 1.0, held["k"][0] + z, 2.0 * held["k"][0]
    for t in (objs[0], objs[1], held["k"][0]):
        np.testing.assert_array_equal(t.numpy(), want)
    np.testing.assert_array_equal(outs[0][1].numpy(), want + np.float32(1.0))
    np.testing.assert_array_equal((x * y + z).numpy(), want + z.numpy())
