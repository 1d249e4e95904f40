"""The in-place Tensor methods and torch functions that no family test covers, against
PyTorch: each updates its tensor to PyTorch's result and returns it."""

import numpy as np
import pytest
import torch

import ember.torch as et

RNG = np.random.default_rng(7)


def _f(*shape):
    return RNG.uniform(0.5, 2.0, shape)


def _i(*shape):
    return RNG.integers(0, 8, shape)


def _b(*shape):
    return RNG.uniform(0, 1, shape) < 0.5


# name -> (self, other arguments): NumPy arrays become tensors of both libraries
CASES = {
    "addbmm_": (_f(3, 4), [_f(2, 3, 5), _f(2, 5, 4)]),
    "addmm_": (_f(3, 4), [_f(3, 5), _f(5, 4)]),
    "addr_": (_f(3, 4), [_f(3), _f(4)]),
    "baddbmm_": (_f(2, 3, 4), [_f(2, 3, 5), _f(2, 5, 4)]),
    "arctan2_": (_f(3, 4) - 1, [_f(3, 4) - 1]),
    "bitwise_left_shift_": (_i(5), [RNG.integers(0, 3, 5)]),
    "bitwise_right_shift_": (_i(5), [RNG.integers(0, 3, 5)]),
    "bitwise_not_": (_i(5), []),
    "bitwise_or_": (_i(5), [_i(5)]),
    "bitwise_xor_": (_i(5), [_i(5)]),
    "cumprod_": (_f(3, 4), [1]),
    "cumsum_": (_f(3, 4), [0]),
    "digamma_": (_f(6), []),
    "erfinv_": (RNG.uniform(-0.9, 0.9, 6), []),
    "floor_divide_": (_f(6) * 10, [_f(6)]),
    "greater_": (_f(6), [_f(6)]),
    "greater_equal_": (_f(6), [_f(6)]),
    "less_": (_f(6), [_f(6)]),
    "less_equal_": (_f(6), [_f(6)]),
    "not_equal_": (np.array([1.0, 2.0, 3.0]), [np.array([1.0, 0.0, 3.0])]),
    "heaviside_": (np.array([-1.0, 0.0, 2.0]), [np.array([0.5, 0.5, 0.5])]),
    "lgamma_": (_f(6), []),
    "mvlgamma_": (_f(6) + 2, [2]),
    "polygamma_": (_f(6), [1]),
    "logical_not_": (_b(6), []),
    "logical_or_": (_b(6), [_b(6)]),
    "logical_xor_": (_b(6), [_b(6)]),
    "renorm_": (_f(3, 4), [2, 0, 1.0]),
    "sgn_": (np.array([-2.0, 0.0, 3.0]), []),
    "swapaxes_": (_f(2, 3), [0, 1]),
}


def _arg(m, a):
    return m.tensor(a) if isinstance(a, np.ndarray) else a


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_method_matches_torch(name):
    x0, args = CASES[name]
    xe, xt = et.tensor(x0), torch.tensor(x0)
    re = getattr(xe, name)(*[_arg(et, a) for a in args])
    rt = getattr(xt, name)(*[_arg(torch, a) for a in args])
    assert re is xe  # returns the updated tensor itself, as PyTorch does
    assert str(xe.dtype).split(".")[-1] == str(xt.dtype).split(".")[-1]
    assert tuple(xe.shape) == tuple(rt.shape)
    rtol = 1e-8 if name == "polygamma_" else 1e-12  # ember's series and PyTorch's differ there
    np.testing.assert_allclose(xe.numpy(), xt.numpy(), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("name", ["alpha_dropout_", "feature_alpha_dropout_", "feature_dropout_"])
def test_dropout_functions_in_place(name):
    x0 = _f(2, 3, 4)
    xe = et.tensor(x0)
    out = getattr(et, name)(xe, 0.5, False)  # not training: the identity, in place
    assert out is xe
    np.testing.assert_array_equal(xe.numpy(), x0)
    et.manual_seed(0)
    xe = et.tensor(x0)
    getattr(et, name)(xe, 0.5, True)
    xt = torch.tensor(x0)
    getattr(torch, name)(xt, 0.5, True)
    # training: torch's result and ember's have the same kinds of values (random masks differ)
    if name == "feature_dropout_":
        for r in (xe.numpy(), xt.numpy()):
            channels = r.reshape(2, 3, -1)
            zero = (channels == 0).all(-1)
            kept = np.isclose(channels, 2 * x0.reshape(2, 3, -1)).all(-1)
            assert (zero | kept).all()  # whole channels dropped or scaled by 1 / (1 - p)
    else:
        assert xe.shape == xt.shape and np.isfinite(xe.numpy()).all()
        assert not np.allclose(xe.numpy(), x0)


def test_device_predicates():
    x = et.ones(2)
    assert (x.is_meta, x.is_mps) == (torch.ones(2).is_meta, torch.ones(2).is_mps) == (False, False)


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("name,dtype", [("BFloat16Storage", "bfloat16"), ("ByteStorage", "uint8"),
                                        ("CharStorage", "int8"), ("HalfStorage", "float16"),
                                        ("ShortStorage", "int16")])
def test_typed_storages(name, dtype):
    s = getattr(et, name)([1, 2, 3])
    t = getattr(torch, name)([1, 2, 3])
    assert len(s) == len(t) == 3
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] == dtype
    assert list(s) == list(t)
    assert isinstance(s, et.StorageBase) == isinstance(t, torch.StorageBase)
