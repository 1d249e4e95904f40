"""PyTorch's aliases (ember/torch/aliases.py) and module-level twins of Tensor methods
(``torch.abs_``, ``torch.fill``, ...) against PyTorch: values, dtypes, shapes, gradients and the
in-place identity."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import GraphError, InvalidParameterError, KindError
from ember.torch import aliases
from math_oracle import check, rand as _rand


def rand(*args, **kwargs):
    return np.asarray(_rand(*args, **kwargs))


def unit(shape, seed=0):
    """Values in (-0.9, 0.9): inside every inverse function's domain."""
    return np.asarray(np.tanh(rand(shape, seed=seed)) * 0.9, np.float32)


UNARY = {"absolute": rand, "arccos": unit, "arcsin": unit, "arctan": rand, "arctanh": unit,
         "arcsinh": rand, "arccosh": lambda s, seed=0: np.asarray(np.abs(rand(s, seed=seed)) + 1.5),
         "negative": rand, "fix": lambda s, seed=0: np.asarray(rand(s, seed=seed) * 4)}
BINARY = ("arctan2", "multiply", "subtract", "divide", "less", "less_equal")


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
def test_unary_aliases(name, shape):
    x = UNARY[name](shape)
    check(lambda m, x: getattr(m, name)(x), x)
    check(lambda m, x: getattr(x, name)(), x)
    check(lambda m, x: getattr(m, name)(x.T), UNARY[name]((3, 2), seed=1))


@pytest.mark.parametrize("name", BINARY)
def test_binary_aliases(name):
    check(lambda m, x, y: getattr(m, name)(x, y), rand((3, 4)), rand((4,), seed=1) + 3)
    check(lambda m, x, y: getattr(x, name)(y), rand((3, 4)), rand((4,), seed=1) + 3)
    check(lambda m, x, y: getattr(m, name)(x.T, y), rand((4, 3)), np.asarray(rand((), seed=2) + 3))
    check(lambda m, x, y: getattr(m, name)(x, y), rand((3,), "int64"),
          rand((3,), "int64", seed=1, low=1, high=5))


def test_aliases_keep_their_targets_arguments():
    check(lambda m, x: m.clip(x, -0.5, 0.5), rand((3, 4)))
    check(lambda m, x, lo: m.clip(x, min=lo), rand((3, 4)), rand((4,), seed=1))
    check(lambda m, x: x.clip(max=0.1), rand((5,)))
    check(lambda m, x: m.clip(x, 0), rand((4,), "int64"))
    check(lambda m, x, y: m.divide(x, y, rounding_mode="floor"), rand((4,)) * 5,
          rand((4,), seed=1) + 3)
    check(lambda m, x, y: m.subtract(x, y, alpha=2), rand((4,)), rand((4,), seed=1))
    check(lambda m, x, y: x.arctan2(y), rand((4,)), rand((4,), seed=1))
    check(lambda m, x: m.fix(x), rand((3,), "int64"))
    with pytest.raises(KindError):
        et.absolute(et.tensor([True]))


@pytest.mark.parametrize("name", ["concat", "concatenate"])
def test_concat(name):
    check(lambda m, a, b: getattr(m, name)([a, b]), rand((2, 3)), rand((1, 3), seed=1))
    check(lambda m, a, b: getattr(m, name)((a, b), dim=1), rand((2, 3)), rand((2, 0), seed=1))
    check(lambda m, a, b: getattr(m, name)([a.T, b], dim=-1), rand((3, 2)), rand((2, 2)))
    check(lambda m, a, b: getattr(m, name)([a, b]), rand((2,), "int64"), rand((3,)))


def test_concatenate_axis():
    check(lambda m, a, b: m.concatenate([a, b], axis=1), rand((2, 3)), rand((2, 1), seed=1))
    check(lambda m, a, b: m.concatenate([a, b], 0), rand((2, 3)), rand((2, 3), seed=1))


INPLACE_UNARY = {
    "abs_": rand, "acos_": unit, "arccos_": unit, "asin_": unit,
    "arcsin_": unit, "atan_": rand, "arctan_": rand, "atanh_": unit, "arctanh_": unit,
    "asinh_": rand, "arcsinh_": rand, "ceil_": rand, "cos_": rand, "cosh_": rand,
    "deg2rad_": rand, "erf_": rand, "erfc_": rand, "exp2_": rand, "exp_": rand, "expm1_": rand,
    "fix_": rand, "floor_": rand, "frac_": rand, "i0_": rand, "neg_": rand, "negative_": rand,
    "rad2deg_": rand, "reciprocal_": rand, "relu_": rand, "round_": rand, "sigmoid_": rand,
    "sin_": rand, "sinc_": rand, "sinh_": rand, "square_": rand, "tan_": rand, "tanh_": rand,
    "trunc_": rand, "zero_": rand, "nan_to_num_": rand, "conj_physical_": rand,
    "acosh_": lambda s: np.abs(rand(s)) + 1.5, "arccosh_": lambda s: np.abs(rand(s)) + 1.5,
    "sqrt_": lambda s: np.abs(rand(s)), "rsqrt_": lambda s: np.abs(rand(s)) + 0.1,
    "log_": lambda s: np.abs(rand(s)) + 0.1, "log10_": lambda s: np.abs(rand(s)) + 0.1,
    "log1p_": lambda s: np.abs(rand(s)), "log2_": lambda s: np.abs(rand(s)) + 0.1,
    "logit_": lambda s: np.asarray(np.abs(unit(s)), np.float32),
}


@pytest.mark.parametrize("name", sorted(INPLACE_UNARY))
def test_module_inplace_unary(name):
    def f(m, x):
        y = x.clone()
        out = getattr(m, name)(y)
        assert out is y
        return y
    check(f, np.asarray(INPLACE_UNARY[name]((2, 3)), np.float32), grad=False)


def test_module_inplace_with_arguments():
    def f(m, x, lo, e, v):
        outs = [x.clone() for _ in range(8)]
        m.clamp_(outs[0], -0.5, 0.5)
        m.clip_(outs[1], min=lo)
        m.clamp_min_(outs[2], 0.2)
        m.clamp_max_(outs[3], lo)
        m.ldexp_(outs[4], e)
        m.xlogy_(outs[5], v.abs() + 0.5)
        m.fill_(outs[6], 2.5)
        m.round_(outs[7], decimals=1)
        return outs
    check(f, rand((2, 3)), rand((3,), seed=1), rand((2, 3), seed=2), rand((2, 3), seed=3),
          grad=False)

    def ints(m, a, b):
        x, y = a.clone(), a.clone()
        assert m.gcd_(x, b) is x and m.lcm_(y, b) is y
        return x, y
    check(ints, rand((4,), "int64", low=-9, high=9), rand((4,), "int64", 1, low=-9, high=9))


def test_module_inplace_rules():
    x = et.ones(2, requires_grad=True)
    with pytest.raises(GraphError):
        et.exp_(x)
    with pytest.raises(KindError):
        et.sqrt_(et.tensor([1, 4]))
    with pytest.raises(InvalidParameterError):
        et.abs_([1.0, -2.0])
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    z = et.tensor([1.0, 2.0], requires_grad=True)
    ty, tz = y * 1, z * 1
    torch.sigmoid_(ty).sum().backward()
    et.sigmoid_(tz).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), y.grad.numpy(), rtol=1e-6)


def test_addmv_index_put_detach():
    def f(m, a, mat, vec):
        out = a.clone()
        m.addmv_(out, mat, vec, beta=0.5, alpha=2)
        idx = a.clone()
        m.index_put_(idx, (m.tensor([0, 2]),), m.tensor([9.0, 8.0]))
        return out, idx, m.detach(a)
    check(f, rand((3,)), rand((3, 4), seed=1), rand((4,), seed=2), grad=False)
    x = et.ones(2, requires_grad=True)
    d = x * 2
    assert et.detach_(d) is d and not d.requires_grad
    assert not et.detach(x).requires_grad


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint8", "int8"])
def test_is_signed_and_fill(dtype):
    x = rand((2, 3), dtype)
    check(lambda m, x: m.is_signed(x), x)
    check(lambda m, x: m.fill(x, 1), x)
    check(lambda m, x: m.fill(x.T, True), x)


def test_fill_forms():
    check(lambda m, x: m.fill(x, 2.5), rand((0, 2)))
    check(lambda m, x: m.fill(x, 2.5), rand(()))
    check(lambda m, x, v: m.fill(x, v), rand((2, 3)), rand(()))  # the gradient reaches v
    with pytest.raises(InvalidParameterError):
        et.fill(et.ones(2), et.ones(2))


def test_every_listed_name_is_torchs():
    for name in aliases.FUNCTION_ALIASES:
        assert hasattr(torch, name) and hasattr(et, name), name
    for name in aliases.METHOD_ALIASES:
        assert hasattr(torch.Tensor, name) and hasattr(et.Tensor, name), name
    for name in aliases.METHOD_TWINS:
        assert hasattr(torch, name) and hasattr(et.Tensor, name), name


def test_unsafe_split_and_chunk():
    check(lambda m, x: m.unsafe_chunk(x, 3), rand((10, 2)))
    check(lambda m, x: x.unsafe_chunk(2, dim=1), rand((3, 4)))
    check(lambda m, x: m.unsafe_split(x, 4), rand((10,)))
    check(lambda m, x: x.unsafe_split(1, 1), rand((2, 3)))
    # split_with_sizes gives a list where PyTorch gives a tuple: the pieces are compared
    check(lambda m, x: tuple(m.unsafe_split_with_sizes(x, [3, 7])), rand((10,)))
    check(lambda m, x: tuple(x.unsafe_split_with_sizes([1, 2], dim=1)), rand((2, 3)))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_twins(name):
    check(lambda m, x: getattr(m, name)(x, 1), rand((3, 4)))
    check(lambda m, x: getattr(m, name)(x.T, dim=0, dtype=m.float64), rand((3, 4)))
    check(lambda m, x: getattr(m, name)(x, -1), rand((0, 2)))


def test_select_twin():
    check(lambda m, x: m.select(x, 1, 2), rand((3, 4)))
    check(lambda m, x: m.select(x.T, 0, -1), rand((3, 4)))
    check(lambda m, x: m.select(x, 0, 1), rand((2,)))
